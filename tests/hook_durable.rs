//! Two things the hooks must not lose.
//!
//! 1. A journal entry the knowledge base cannot take now (locked by another writer beyond the
//!    hook's wait, read-only, corrupt) is spooled beside it and added at the next open that
//!    can write, once; the hook still answers, with the same decision.
//! 2. Lean's errors from the agent's own `lake build` / `lake env lean` in Bash (PostToolUse and
//!    PostToolUseFailure) mark the journaled attempts they lie in as rejected, as `mf verify`
//!    does: only at the file's journaled content, never in another file or an unknown version.

mod common;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

const SESSION: &str = "sess-durable-1";

struct Session {
    dir: PathBuf,
    db: PathBuf,
    file: PathBuf,
}

impl Session {
    fn new(dir: &Path, rel: &str, text: &str) -> Session {
        let file = dir.join(rel);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        Session {
            dir: dir.to_path_buf(),
            db: dir.join("knowledge.db"),
            file,
        }
    }

    fn command(&self, sub: &str) -> std::process::Command {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_mf"));
        cmd.args(["hook", sub, "--db"])
            .arg(&self.db)
            .current_dir(&self.dir);
        for var in [
            "MATH_FORGE_DB",
            "MATH_FORGE_TRACKING_DB",
            "CLAUDE_PLUGIN_ROOT",
            "CLAUDE_ENV_FILE",
            "XDG_DATA_HOME",
            "MATH_FORGE_HOOK_BUDGET_MS",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("HOME", &self.dir)
            .env("CLAUDE_PROJECT_DIR", &self.dir)
            .env("CLAUDE_PLUGIN_DATA", self.dir.join("plugin-data"));
        cmd
    }

    fn run(&self, mut cmd: std::process::Command, payload: &Value) -> (String, String) {
        use std::io::Write;
        let mut child = cmd
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(payload.to_string().as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "hooks always exit 0");
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    }

    fn hook(&self, sub: &str, payload: Value) -> (String, String) {
        self.run(self.command(sub), &payload)
    }

    fn edit_payload(&self, old: &str, new: &str) -> Value {
        json!({
            "session_id": SESSION,
            "hook_event_name": "PostToolUse",
            "cwd": self.dir,
            "tool_name": "Edit",
            "tool_input": {"file_path": self.file, "old_string": old, "new_string": new,
                           "replace_all": false},
            "tool_response": {"filePath": self.file, "success": true}
        })
    }

    /// Applies an Edit on disk; returns its PostToolUse payload.
    fn apply(&self, old: &str, new: &str) -> Value {
        let text = std::fs::read_to_string(&self.file).unwrap();
        assert_eq!(text.matches(old).count(), 1, "{old}");
        std::fs::write(&self.file, text.replacen(old, new, 1)).unwrap();
        self.edit_payload(old, new)
    }

    /// Applies an Edit and runs PostToolUse on it: (stdout, stderr).
    fn edit(&self, old: &str, new: &str) -> (String, String) {
        let payload = self.apply(old, new);
        self.hook("post-tool-use", payload)
    }

    fn start(&self) {
        self.hook(
            "session-start",
            json!({"session_id": SESSION, "hook_event_name": "SessionStart", "cwd": self.dir,
                   "source": "startup"}),
        );
    }

    /// The journal: (declaration, event, detail) in order.
    fn journal(&self) -> Vec<(String, String, Option<String>)> {
        let conn = rusqlite::Connection::open(&self.db).unwrap();
        let mut stmt = conn
            .prepare("SELECT declaration, event, detail FROM session_events ORDER BY id")
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap()
    }

    fn spool(&self) -> PathBuf {
        self.dir.join("knowledge.db.spool")
    }
}

/// A connection to `db` holding a write transaction (and one written row) until dropped, so
/// that every other writer waits past its busy timeout.
fn hold_write_lock(db: &Path) -> rusqlite::Connection {
    let holder = rusqlite::Connection::open(db).unwrap();
    holder
        .execute_batch("BEGIN IMMEDIATE; INSERT INTO domains (id, name) VALUES ('held', 'held');")
        .unwrap();
    holder
}

fn kb(dir: &Path) {
    drop(math_forge::kb::Kb::open(&dir.join("knowledge.db")).unwrap());
}

const TWO: &str = "theorem t (a b : ℕ) : a + b = b + a := by\n  sorry\n\n\
                   theorem u (n : ℕ) : n ≤ n * n := by\n  sorry\n";

/// What the gate decides is the same whatever the knowledge base's state: closing a hole
/// passes silently, gutting a proof is blocked.
fn assert_decisions(s: &Session, state: &str) {
    let (out, err) = s.edit(
        "theorem t (a b : ℕ) : a + b = b + a := by\n  sorry",
        "theorem t (a b : ℕ) : a + b = b + a := by\n  omega",
    );
    assert_eq!(
        out.trim(),
        "",
        "{state}: closing a hole is silent; stderr: {err}"
    );
    assert!(
        err.contains("the journal entry is kept in") && err.contains("knowledge.db.spool"),
        "{state}: the note says where the entry went: {err}"
    );
    let (out, err) = s.edit("  omega", "  sorry");
    assert!(
        out.contains("\"decision\":\"block\""),
        "{state}: gutting the proof is blocked: {out} {err}"
    );
    assert!(s.spool().is_file(), "{state}");
}

/// Another connection holds a write transaction past the hook's wait: the hook answers, says
/// where the entry went; the next hook adds both its own and the spooled entries, once.
#[test]
fn a_locked_knowledge_base_spools_the_entry_and_the_next_hook_adds_it() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Session::new(tmp.path(), "P.lean", TWO);
    kb(tmp.path());
    s.start();
    let holder = hold_write_lock(&s.db);
    assert_decisions(&s, "locked");
    assert!(
        s.journal().is_empty(),
        "nothing reached the locked database"
    );
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);

    // The next edit's hook can write: its entry and the spooled ones are journaled.
    let (_, err) = s.edit(
        "theorem u (n : ℕ) : n ≤ n * n := by\n  sorry",
        "theorem u (n : ℕ) : n ≤ n * n := by\n  nlinarith",
    );
    assert!(!err.contains("spool"), "{err}");
    let journal = s.journal();
    let kinds: Vec<(&str, &str)> = journal
        .iter()
        .map(|(d, e, _)| (d.as_str(), e.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("u", "hole_closed"),
            ("t", "hole_closed"),
            // A blocked edit is journaled as the gate firing, not as an attempt.
            ("", "gate_fired")
        ]
    );
    assert_eq!(std::fs::metadata(s.spool()).unwrap().len(), 0, "emptied");
    // A replay again (a crash before the spool was emptied) adds nothing twice.
    std::fs::write(s.spool(), spooled_copy(&s)).unwrap();
    s.hook("session-end", json!({"session_id": SESSION, "hook_event_name": "SessionEnd", "cwd": s.dir, "reason": "other"}));
    assert_eq!(s.journal().len(), 3, "{:?}", s.journal());
    assert_eq!(std::fs::metadata(s.spool()).unwrap().len(), 0);
}

/// The spool's entries as a crashed replay would have left them: recreated from the journal
/// rows with the times they were written.
fn spooled_copy(s: &Session) -> String {
    let conn = rusqlite::Connection::open(&s.db).unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT session_id, file, declaration, event, content_hash, holes,
                    CAST(strftime('%s', at) AS INTEGER)
             FROM session_events",
        )
        .unwrap();
    let rows: Vec<String> = stmt
        .query_map([], |r| {
            Ok(json!({
                "unix": r.get::<_, i64>(6)?,
                "events": [{
                    "session_id": r.get::<_, String>(0)?,
                    "file": r.get::<_, String>(1)?,
                    "declaration": r.get::<_, String>(2)?,
                    "kind": r.get::<_, String>(3)?,
                    "content_hash": r.get::<_, Option<String>>(4)?,
                    "holes": r.get::<_, i64>(5)?,
                }]
            })
            .to_string())
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    rows.join("\n") + "\n"
}

/// A corrupt knowledge base: the entries wait in the spool until a usable one is there.
#[test]
fn a_corrupt_knowledge_base_spools_the_entry_until_it_is_rebuilt() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Session::new(tmp.path(), "P.lean", TWO);
    std::fs::write(
        &s.db,
        b"SQLite format 3\0 but not really; a torn copy\n".repeat(200),
    )
    .unwrap();
    assert_decisions(&s, "corrupt");
    std::fs::remove_file(&s.db).unwrap();
    kb(tmp.path());
    s.hook("session-end", json!({"session_id": SESSION, "hook_event_name": "SessionEnd", "cwd": s.dir, "reason": "other"}));
    let kinds: Vec<String> = s
        .journal()
        .into_iter()
        .map(|(d, e, _)| format!("{d} {e}"))
        .collect();
    assert_eq!(kinds, ["t hole_closed", " gate_fired"]);
}

/// A knowledge base its user cannot write (a read-only file; as root the hook runs as
/// `nobody` through setpriv): spooled beside it, added once it can be written.
#[test]
fn a_read_only_knowledge_base_spools_the_entry() {
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::tempdir().unwrap();
    let s = Session::new(tmp.path(), "P.lean", TWO);
    kb(tmp.path());
    std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::set_permissions(&s.file, std::fs::Permissions::from_mode(0o666)).unwrap();
    std::fs::set_permissions(&s.db, std::fs::Permissions::from_mode(0o444)).unwrap();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let as_user = |sub: &str| {
        let inner = s.command(sub);
        if !root {
            return inner;
        }
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(inner.get_program())
            .args(inner.get_args())
            .current_dir(&s.dir);
        for (k, v) in inner.get_envs() {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        c
    };
    let payload = s.apply(
        "theorem t (a b : ℕ) : a + b = b + a := by\n  sorry",
        "theorem t (a b : ℕ) : a + b = b + a := by\n  omega",
    );
    let (out, err) = s.run(as_user("post-tool-use"), &payload);
    assert_eq!(out.trim(), "", "{err}");
    assert!(err.contains("knowledge.db.spool"), "{err}");
    let payload = s.apply("  omega", "  sorry");
    let (out, err) = s.run(as_user("post-tool-use"), &payload);
    assert!(out.contains("\"decision\":\"block\""), "{out} {err}");
    assert!(s.journal().is_empty());
    std::fs::set_permissions(&s.db, std::fs::Permissions::from_mode(0o644)).unwrap();
    s.hook("session-end", json!({"session_id": SESSION, "hook_event_name": "SessionEnd", "cwd": s.dir, "reason": "other"}));
    let kinds: Vec<String> = s
        .journal()
        .into_iter()
        .map(|(d, e, _)| format!("{d} {e}"))
        .collect();
    assert_eq!(kinds, ["t hole_closed", " gate_fired"]);
}

// ---------------------------------------------------------------------------------------------
// Lean's errors from Bash

/// `Proofs/P.lean` as the fixtures' Lean output saw it (errors on lines 6 and 9).
const P_START: &str = "theorem warm : True := by sorry\n\ndef two : ℕ := 2\n\n\
                       theorem t (a b : ℕ) : a + b = b + a := by\n  sorry\n\n\
                       theorem u (a b : ℕ) : a + b = b + a :=\n  sorry\n";

fn lean_output(name: &str) -> String {
    std::fs::read_to_string(common::fixture("lean-output").join(name)).unwrap()
}

/// A Bash hook payload from fixtures/hooks/ (captured from Claude Code 2.1.197): a command
/// that exits 0 comes to PostToolUse with `tool_response.stdout`, one that fails to
/// PostToolUseFailure with the output in `error`.
fn bash(s: &Session, event: &str, command: &str, output: &str) -> Value {
    let name = if event == "PostToolUseFailure" {
        "bash_failure.json"
    } else {
        "bash_success.json"
    };
    let text = std::fs::read_to_string(common::fixture("hooks").join(name)).unwrap();
    let escape = |t: &str| {
        let quoted = serde_json::to_string(t).unwrap();
        quoted[1..quoted.len() - 1].to_string()
    };
    let text = text
        .replace("@CWD@", &escape(&s.dir.to_string_lossy()))
        .replace("@COMMAND@", &escape(command))
        .replace("@OUTPUT@", &escape(output));
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["session_id"], SESSION);
    v
}

fn context(stdout: &str) -> String {
    if stdout.trim().is_empty() {
        return String::new();
    }
    let v: Value = serde_json::from_str(stdout).unwrap();
    v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn rejected(s: &Session) -> Vec<String> {
    s.journal()
        .into_iter()
        .filter(|(_, _, d)| {
            d.as_deref()
                .is_some_and(|d| d.starts_with("mf verify: Lean rejected it: "))
        })
        .map(|(decl, event, d)| {
            format!(
                "{decl} {event}: {}",
                &d.unwrap()["mf verify: Lean rejected it: ".len()..]
            )
        })
        .collect()
}

#[test]
fn lean_errors_in_bash_output_mark_the_journaled_attempt_rejected() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Session::new(tmp.path(), "Proofs/P.lean", P_START);
    std::fs::write(tmp.path().join("Proofs/Other.lean"), P_START).unwrap();
    kb(tmp.path());
    s.start();
    s.edit("by\n  sorry\n\ntheorem u", "by\n  norm_num\n\ntheorem u");

    // `lake env lean` exits 1 on an error: PostToolUseFailure, the output in `error`. Line 6
    // is in t (journaled at this content); line 9 in u, which has no attempt: unmarked.
    let failure = bash(
        &s,
        "PostToolUseFailure",
        "lake env lean Proofs/P.lean",
        &lean_output("lake-env-lean.txt"),
    );
    let (out, err) = s.hook("lean-output", failure.clone());
    assert_eq!(rejected(&s), ["t hole_closed: unsolved goals"], "{err}");
    let said = context(&out);
    assert!(
        said.contains("Lean rejected this session's attempt at t in P.lean")
            && out.contains("\"hookEventName\":\"PostToolUseFailure\""),
        "{out}"
    );
    // The same output again marks nothing new, and says nothing.
    let (out, _) = s.hook("lean-output", failure);
    assert_eq!(out.trim(), "");

    // The next attempt, on u, is another content: `lake build`'s errors (severity first,
    // `./././` paths) mark u there; t's attempt stays as it was, at its own content.
    s.edit("a :=\n  sorry", "a :=\n  Nat.add_comm_wrong a b");
    let (out, _) = s.hook(
        "lean-output",
        bash(
            &s,
            "PostToolUse",
            "lake build",
            &lean_output("lake-build.txt"),
        ),
    );
    assert_eq!(
        rejected(&s),
        [
            "t hole_closed: unsolved goals",
            "u hole_closed: unknown identifier 'Nat.add_comm_wrong'"
        ]
    );
    assert!(context(&out).contains("attempt at u in P.lean"), "{out}");
    assert!(!context(&out).contains(" t "), "{out}");

    // A version of the file the journal does not hold (changed from the shell): nothing.
    let before = s.journal();
    let text = std::fs::read_to_string(&s.file).unwrap();
    std::fs::write(&s.file, text.replace("norm_num", "simp")).unwrap();
    let (out, _) = s.hook(
        "lean-output",
        bash(
            &s,
            "PostToolUseFailure",
            "lake build",
            &lean_output("lake-build.txt"),
        ),
    );
    assert_eq!((out.trim(), s.journal()), ("", before.clone()));
    std::fs::write(&s.file, text).unwrap();

    // Errors in a file with no journaled attempt, in a file that does not exist, printed by a
    // command that does not run Lean, in another tool's output, or output without errors:
    // nothing.
    for payload in [
        bash(
            &s,
            "PostToolUseFailure",
            "lake env lean Proofs/Other.lean",
            &lean_output("lake-env-lean.txt").replace("Proofs/P.lean", "Proofs/Other.lean"),
        ),
        bash(
            &s,
            "PostToolUseFailure",
            "lake env lean Nowhere.lean",
            &lean_output("lake-env-lean.txt").replace("Proofs/P.lean", "Nowhere.lean"),
        ),
        bash(
            &s,
            "PostToolUse",
            "lake build",
            "✔ [15/15] Built Proofs\nBuild completed successfully.\n",
        ),
        // An old log shown again: its lines are about another version of the file.
        bash(
            &s,
            "PostToolUse",
            "cat build.log",
            &lean_output("lake-build.txt"),
        ),
        {
            let mut v = bash(&s, "PostToolUse", "cat", &lean_output("lake-build.txt"));
            v["tool_name"] = json!("Read");
            v
        },
    ] {
        let (out, err) = s.hook("lean-output", payload);
        assert_eq!(out.trim(), "", "{err}");
    }
    assert_eq!(s.journal(), before);

    // Lean's rejection lets the agent put back the hole u started the session with.
    let (out, _) = s.hook(
        "pre-tool-use",
        json!({"session_id": SESSION, "hook_event_name": "PreToolUse", "cwd": s.dir,
               "tool_name": "Edit", "tool_input": {"file_path": s.file,
               "old_string": "a :=\n  Nat.add_comm_wrong a b", "new_string": "a :=\n  sorry",
               "replace_all": false}}),
    );
    assert!(!out.contains("deny") && out.contains("Allowed"), "{out}");
}

/// Lean's errors while the knowledge base is locked: kept in the spool, marked once it can be
/// written (after the attempts spooled before them).
#[test]
fn lean_errors_while_the_knowledge_base_is_locked_are_marked_later() {
    let tmp = tempfile::tempdir().unwrap();
    let s = Session::new(tmp.path(), "Proofs/P.lean", P_START);
    kb(tmp.path());
    s.start();
    let holder = hold_write_lock(&s.db);
    let (_, err) = s.edit("by\n  sorry\n\ntheorem u", "by\n  norm_num\n\ntheorem u");
    assert!(err.contains("knowledge.db.spool"), "{err}");
    let (out, err) = s.hook(
        "lean-output",
        bash(
            &s,
            "PostToolUseFailure",
            "lake env lean Proofs/P.lean",
            &lean_output("lake-env-lean.txt"),
        ),
    );
    assert_eq!(out.trim(), "", "nothing is said before it is marked");
    assert!(
        err.contains("Lean's errors are kept in") && err.contains("knowledge.db.spool"),
        "{err}"
    );
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);
    s.hook(
        "session-end",
        json!({"session_id": SESSION, "hook_event_name": "SessionEnd", "cwd": s.dir, "reason": "other"}),
    );
    assert_eq!(rejected(&s), ["t hole_closed: unsolved goals"]);
}
