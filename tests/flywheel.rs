//! Issue 17 end to end: a session's hook payloads (SessionStart → edits that close one hole and
//! fail three times on another → Stop, twice) leave in knowledge.db one technique finding with
//! session provenance, one failure candidate listing the three approaches, and nothing twice.

mod common;

use std::path::Path;

use serde_json::{json, Value};

const SESSION: &str = "sess-flywheel-1";

const START: &str = "theorem easy (a b : ℝ) : 0 ≤ (a - b) ^ 2 := by
  sorry

theorem hard (n : ℕ) (hn : 0 < n) : n ≤ n ^ 2 := by
  sorry
";

const EASY_OPEN: &str = "theorem easy (a b : ℝ) : 0 ≤ (a - b) ^ 2 := by
  sorry";
const EASY_CLOSED: &str = "theorem easy (a b : ℝ) : 0 ≤ (a - b) ^ 2 := by
  nlinarith [sq_nonneg (a - b)]";

/// The three bodies tried on `hard`, each leaving a hole.
const HARD: [&str; 4] = [
    "theorem hard (n : ℕ) (hn : 0 < n) : n ≤ n ^ 2 := by
  sorry",
    "theorem hard (n : ℕ) (hn : 0 < n) : n ≤ n ^ 2 := by
  simp [Nat.pow_two]
  sorry",
    "theorem hard (n : ℕ) (hn : 0 < n) : n ≤ n ^ 2 := by
  induction n with
  | zero => sorry
  | succ k ih => omega",
    "theorem hard (n : ℕ) (hn : 0 < n) : n ≤ n ^ 2 := by
  have h := Nat.le_self_pow (by norm_num) n
  sorry",
];

struct Session<'a> {
    dir: &'a Path,
    db: std::path::PathBuf,
    file: std::path::PathBuf,
}

impl Session<'_> {
    fn hook(&self, sub: &str, payload: Value) -> (String, String) {
        let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mf"));
        cmd.args(["hook", sub, "--db"])
            .arg(&self.db)
            .current_dir(self.dir);
        common::isolate(&mut cmd, self.dir);
        cmd.env("CLAUDE_PLUGIN_DATA", self.dir.join("plugin-data"));
        let out = cmd.write_stdin(payload.to_string()).output().unwrap();
        assert!(out.status.success());
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }

    /// Applies an Edit to the file on disk, then runs PostToolUse with its payload.
    fn edit(&self, old: &str, new: &str) -> String {
        let text = std::fs::read_to_string(&self.file).unwrap();
        assert_eq!(text.matches(old).count(), 1, "{old}");
        std::fs::write(&self.file, text.replacen(old, new, 1)).unwrap();
        let (stdout, stderr) = self.hook(
            "post-tool-use",
            json!({
                "session_id": SESSION,
                "hook_event_name": "PostToolUse",
                "cwd": self.dir,
                "tool_name": "Edit",
                "tool_input": {
                    "file_path": self.file,
                    "old_string": old,
                    "new_string": new,
                    "replace_all": false
                },
                "tool_response": { "filePath": self.file, "success": true }
            }),
        );
        assert!(
            !stderr.contains("journal entry") && !stderr.contains("session notes skipped"),
            "journaled directly: {stderr}"
        );
        stdout
    }

    fn stop(&self) -> String {
        self.hook(
            "stop",
            json!({
                "session_id": SESSION,
                "hook_event_name": "Stop",
                "cwd": self.dir,
                "stop_hook_active": false
            }),
        )
        .0
    }
}

fn rows(db: &Path, sql: &str) -> Vec<Vec<Option<String>>> {
    let conn = rusqlite::Connection::open(db).unwrap();
    let mut stmt = conn.prepare(sql).unwrap();
    let n = stmt.column_count();
    stmt.query_map([], |r| {
        (0..n)
            .map(|i| r.get::<_, Option<String>>(i))
            .collect::<rusqlite::Result<Vec<_>>>()
    })
    .unwrap()
    .collect::<rusqlite::Result<_>>()
    .unwrap()
}

#[test]
fn a_session_closes_one_hole_fails_three_times_and_is_captured_once() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let s = Session {
        dir,
        db: dir.join("knowledge.db"),
        file: dir.join("P.lean"),
    };
    std::fs::write(&s.file, START).unwrap();
    s.hook(
        "session-start",
        json!({"session_id": SESSION, "hook_event_name": "SessionStart", "cwd": dir, "source": "startup"}),
    );
    assert!(s.db.is_file(), "SessionStart creates the knowledge base");

    s.edit(EASY_OPEN, EASY_CLOSED);
    let outputs: Vec<String> = HARD.windows(2).map(|w| s.edit(w[0], w[1])).collect();
    // The third failed attempt brings the session over the threshold: the agent is asked,
    // while it works, through PostToolUse's additionalContext (the model sees it, nothing
    // blocks); the first two attempts are left alone.
    assert_eq!(outputs.len(), 3);
    for early in &outputs[..2] {
        assert!(!early.contains("mk record failure"), "{early}");
    }
    let v: Value = serde_json::from_str(outputs[2].trim()).expect("the edit asks why");
    assert!(v.get("decision").is_none(), "never blocks for it: {v}");
    let ask = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    assert!(
        ask.contains("hard") && ask.contains("mk record failure"),
        "{ask}"
    );
    let events = rows(
        &s.db,
        "SELECT declaration, event, CAST(holes AS TEXT) FROM session_events ORDER BY id",
    );
    let shown: Vec<String> = events
        .iter()
        .map(|r| {
            format!(
                "{} {} {}",
                r[0].as_deref().unwrap(),
                r[1].as_deref().unwrap(),
                r[2].as_deref().unwrap()
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            "easy hole_closed 0",
            "hard proof_rewritten 1",
            "hard proof_rewritten 1",
            "hard proof_rewritten 1",
        ]
    );

    // Asked once per session: the Stop that captures does not ask again.
    assert_eq!(s.stop().trim(), "");

    let technique = rows(
        &s.db,
        "SELECT theorem_name, proof_technique, confidence, description, notes
         FROM findings WHERE finding_type = 'technique'",
    );
    assert_eq!(technique.len(), 1, "{technique:?}");
    let t = &technique[0];
    assert_eq!(t[0].as_deref(), Some("easy"));
    assert!(t[1].as_deref().unwrap().contains("nlinarith"), "{t:?}");
    assert_eq!(t[2].as_deref(), Some("medium"), "not verified by mf verify");
    let description = t[3].as_deref().unwrap();
    assert!(description.contains("sq_nonneg"), "{description}");
    assert!(description.contains(SESSION) && description.contains("P.lean"));
    assert!(t[4].as_deref().unwrap().contains(SESSION));

    let failures = rows(
        &s.db,
        "SELECT theorem_name, description FROM findings WHERE finding_type = 'failure'",
    );
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert_eq!(failures[0][0].as_deref(), Some("hard"));
    let d = failures[0][1].as_deref().unwrap();
    assert!(d.contains("after 3 approaches"), "{d}");
    for attempt in ["`by simp [Nat.pow_two] sorry`", "induction", "have"] {
        assert!(d.contains(attempt), "{attempt} in {d}");
    }
    assert!(d.contains("Nat.le_self_pow"), "{d}");

    // A repeated Stop (and SessionEnd) adds nothing and does not ask again.
    let count = |db: &Path| rows(db, "SELECT CAST(count(*) AS TEXT) FROM findings")[0][0].clone();
    let before = count(&s.db);
    assert_eq!(s.stop().trim(), "");
    s.hook(
        "session-end",
        json!({"session_id": SESSION, "hook_event_name": "SessionEnd", "cwd": dir, "reason": "other"}),
    );
    assert_eq!(count(&s.db), before);
    assert_eq!(
        rows(&s.db, "SELECT CAST(count(*) AS TEXT) FROM session_captures")[0][0].as_deref(),
        Some("2")
    );
}

#[test]
fn context_shows_facts_constraints_failures_and_the_briefing_shows_them() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let db = common::build_kb(dir);
    let d = db.to_str().unwrap();
    let record = |what: &str, extra: &[&str]| {
        let mut args = vec!["record", what, "--db", d, "--problem", "Erdos-364"];
        args.extend_from_slice(extra);
        common::mk_json(dir, &args)
    };
    record("fact", &["--text", "the sum is bounded by 2n"]);
    record("constraint", &["--text", "n must be odd"]);
    record(
        "failure",
        &[
            "--approach",
            "pigeonhole mod 8",
            "--why",
            "only 8 classes for 9 constraints",
        ],
    );
    // A near-copy of the fact is shown once.
    record(
        "fact",
        &[
            "--text",
            "the sum is bounded by 2n",
            "--title",
            "fact: the sum is bounded by 2n",
        ],
    );

    let v = common::mk_json(dir, &["context", "erdos_364", "--db", d]);
    for section in [
        "problem",
        "facts",
        "failed_approaches",
        "false_lemmas",
        "techniques",
        "similar_problems",
    ] {
        assert!(v.get(section).is_some(), "{section} in {v}");
    }
    let titles: Vec<&str> = v["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles
            .iter()
            .filter(|t| t.contains("bounded by 2n"))
            .count(),
        1,
        "{titles:?}"
    );
    assert!(
        titles.iter().any(|t| t.contains("n must be odd")),
        "{titles:?}"
    );
    let failed = v["failed_approaches"].as_array().unwrap();
    assert!(
        failed.iter().any(|f| f["why"]
            .as_str()
            .is_some_and(|w| w.contains("only 8 classes"))),
        "{failed:?}"
    );

    // The briefing of a session on that problem carries the context.
    let text = context_of_hook(
        dir,
        d,
        "session-start",
        Some("Erdos-364"),
        json!({"session_id": "s2", "cwd": dir, "hook_event_name": "SessionStart", "source": "startup"}),
    );
    assert!(text.contains("PROBLEM CONTEXT"), "{text}");
    assert!(text.contains("n must be odd"), "{text}");
    assert!(text.contains("pigeonhole mod 8"), "{text}");
    assert!(text.len() < 8000);

    // A subagent of that session (no environment naming the problem: SessionStart recorded
    // it) gets the problem's context first, within the subagent budget.
    let text = context_of_hook(
        dir,
        d,
        "subagent-start",
        None,
        json!({"session_id": "s2", "cwd": dir, "hook_event_name": "SubagentStart",
               "agent_type": "general-purpose"}),
    );
    assert!(text.starts_with("[math-forge] Problem erdos_364"), "{text}");
    assert!(text.contains("n must be odd"), "{text}");
    assert!(
        text.chars().count() <= math_forge::hook::subagent::BUDGET_CHARS,
        "{text}"
    );
}

/// The `additionalContext` a hook prints for `payload`, with `$MATH_FORGE_PROBLEM` set or unset.
fn context_of_hook(
    dir: &Path,
    db: &str,
    hook: &str,
    problem: Option<&str>,
    payload: Value,
) -> String {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mf"));
    cmd.args(["hook", hook, "--db", db]).current_dir(dir);
    common::isolate(&mut cmd, dir);
    match problem {
        Some(p) => cmd.env("MATH_FORGE_PROBLEM", p),
        None => cmd.env_remove("MATH_FORGE_PROBLEM"),
    };
    let out = cmd.write_stdin(payload.to_string()).output().unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A day in the life, through the hooks and `mf verify` (a stand-in `lake` on PATH rejects
/// `norm_num`): an attempt Lean rejects is journaled as rejected, the agent may put its hole
/// back (after `mf verify` failed, not before), the proof that then passes is a verified
/// technique with the rejected attempt kept beside it as failed, and the next session's
/// briefing says so in a few lines.
#[test]
fn a_rejected_attempt_is_recorded_as_failed_and_the_next_briefing_says_so() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let s = Session {
        dir,
        db: dir.join("knowledge.db"),
        file: dir.join("P.lean"),
    };
    const OPEN: &str = "theorem t (a b : ℕ) : a + b = b + a := by\n  sorry\n";
    std::fs::write(&s.file, OPEN).unwrap();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let lake = bin.join("lake");
    std::fs::write(
        &lake,
        "#!/bin/sh\n# lake env lean FILE: norm_num leaves the goal\nif grep -q norm_num \"$3\"; then\n  echo \"$3:2:2: error: unsolved goals\"\n  echo '⊢ a + b = b + a'\n  exit 1\nfi\nexit 0\n",
    )
    .unwrap();
    std::fs::set_permissions(&lake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let verify = |want_pass: bool| {
        let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mf"));
        cmd.args(["verify", "P.lean"]).current_dir(dir);
        common::isolate(&mut cmd, dir);
        cmd.env("MATH_FORGE_DB", &s.db)
            .env("PATH", format!("{}:/usr/bin:/bin", bin.display()));
        let out = cmd.output().unwrap();
        assert_eq!(
            out.status.success(),
            want_pass,
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let pre = |old: &str, new: &str| {
        let (stdout, _) = s.hook(
            "pre-tool-use",
            json!({"session_id": SESSION, "hook_event_name": "PreToolUse", "cwd": dir,
                   "tool_name": "Edit", "tool_input": {"file_path": s.file, "old_string": old,
                   "new_string": new, "replace_all": false}}),
        );
        stdout
    };
    s.hook(
        "session-start",
        json!({"session_id": SESSION, "hook_event_name": "SessionStart", "cwd": dir, "source": "startup"}),
    );
    s.edit("  sorry", "  norm_num");
    // A turn ends before Lean was asked: the proof is captured as a technique, not verified.
    assert_eq!(s.stop().trim(), "");
    let types = || {
        rows(
            &s.db,
            "SELECT finding_type || ' ' || confidence FROM findings ORDER BY id",
        )
        .into_iter()
        .map(|r| r[0].clone().unwrap())
        .collect::<Vec<_>>()
    };
    assert_eq!(types(), ["technique medium"]);
    // Before Lean said anything, putting the hole back is gutting a proof: denied, with how.
    let denied = pre("  norm_num", "  sorry");
    assert!(
        denied.contains("\"permissionDecision\":\"deny\"")
            && denied.contains("check it with Lean first (`mf verify FILE`"),
        "{denied}"
    );
    verify(false);
    // Once Lean rejected it, the next Stop takes the technique back: it is a failure now.
    assert_eq!(s.stop().trim(), "");
    assert_eq!(types(), ["failure low"]);
    let allowed = pre("  norm_num", "  sorry");
    assert!(
        !allowed.contains("deny")
            && allowed.contains("[math-forge] Allowed: this edit of P.lean puts back a hole"),
        "{allowed}"
    );
    let after = s.edit("  norm_num", "  sorry");
    assert!(!after.contains("block"), "PostToolUse agrees: {after}");
    s.edit("  sorry", "  omega");
    verify(true);
    assert_eq!(s.stop().trim(), "");

    let findings = rows(
        &s.db,
        "SELECT finding_type, confidence, title, description FROM findings ORDER BY id",
    );
    assert_eq!(findings.len(), 2, "{findings:#?}");
    assert_eq!(findings[0][0].as_deref(), Some("technique"));
    assert_eq!(findings[0][1].as_deref(), Some("verified"));
    assert!(findings[0][2].as_deref().unwrap().contains("omega"));
    assert_eq!(findings[1][0].as_deref(), Some("failure"));
    let d = findings[1][3].as_deref().unwrap();
    assert!(
        d.contains("attempt 1: `by norm_num` — Lean rejected it (unsolved goals)")
            && !d.contains("omega`"),
        "{d}"
    );

    // `mk failed` says why, in Lean's words.
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mk"));
    cmd.args(["failed", "t", "--db"])
        .arg(&s.db)
        .current_dir(dir);
    common::isolate(&mut cmd, dir);
    let out = String::from_utf8(cmd.output().unwrap().stdout).unwrap();
    assert!(
        out.contains("Why: Lean rejected `by norm_num`: unsolved goals"),
        "{out}"
    );

    // The next session is told, briefly.
    let (stdout, _) = s.hook(
        "session-start",
        json!({"session_id": "sess-next", "hook_event_name": "SessionStart", "cwd": dir, "source": "startup"}),
    );
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    let text = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    let section = text
        .split("EARLIER SESSIONS HERE")
        .nth(1)
        .unwrap_or_else(|| panic!("no earlier sessions in {text}"));
    assert!(
        section.contains("- `t` (P.lean): closed with linear arithmetic (omega) (`mf verify` passed); failed first: `by norm_num`: Lean rejected it (unsolved goals)"),
        "{section}"
    );
    assert!(section.len() < 600, "{section}");
}

/// `mf verify`'s verdict on a knowledge base another process holds locked is not lost: it is
/// kept in the spool beside it, and the next open that can write records it.
#[test]
fn a_verdict_on_a_locked_knowledge_base_is_recorded_at_the_next_open() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let db = dir.join("knowledge.db");
    drop(math_forge::kb::Kb::open(&db).unwrap());
    std::fs::write(
        dir.join("P.lean"),
        "theorem t : 1 + 1 = 2 := by\n  norm_num\n",
    )
    .unwrap();
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let lake = bin.join("lake");
    std::fs::write(&lake, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&lake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder
        .execute_batch("BEGIN IMMEDIATE; INSERT INTO domains (id, name) VALUES ('held', 'held');")
        .unwrap();
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mf"));
    cmd.args(["verify", "P.lean"]).current_dir(dir);
    common::isolate(&mut cmd, dir);
    cmd.env("MATH_FORGE_DB", &db)
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()));
    let out = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && err.contains("knowledge.db.spool"),
        "{}{err}",
        String::from_utf8_lossy(&out.stdout)
    );
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    let verdicts = || rows(&db, "SELECT verdict FROM verifications");
    assert!(verdicts().is_empty());
    let mut kb = math_forge::kb::Kb::open_existing(&db).unwrap();
    kb.replay_spool().unwrap();
    drop(kb);
    assert_eq!(verdicts(), [[Some("pass".to_string())]]);
}
