//! The gate before the write (`mf hook pre-tool-use`) and at the end of a turn
//! (`mf hook stop`), fed real-shaped payloads from fixtures/hooks/ (see its README for the
//! reference they follow); asserts the exact JSON and exit code, and that nothing was written.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const REASON_HEAD: &str =
    "[math-forge] Rule: never replace a proof with sorry/admit, never add an axiom.";
const REASON_TAIL: &str = "is refused. Instead: keep the existing proof (or finish it without a hole); state a missing fact as a new lemma with its own sorry and use it; never assume what is unproven with an axiom. `mf sorries FILE` lists a file's holes; `git diff` shows what changed since the last commit.";

fn fixture(name: &str) -> String {
    std::fs::read_to_string(common::fixture("hooks").join(name)).unwrap()
}

/// A fixture payload with `@CWD@`, `@FILE@` and `@CONTENT@` filled in.
fn payload(name: &str, cwd: &Path, file: &Path, content: Option<&str>) -> String {
    let esc = |s: &str| {
        let q = serde_json::to_string(s).unwrap();
        q[1..q.len() - 1].to_string()
    };
    let mut text = fixture(name)
        .replace("@CWD@", &esc(&cwd.to_string_lossy()))
        .replace("@FILE@", &esc(&file.to_string_lossy()));
    if let Some(c) = content {
        text = text.replace("@CONTENT@", &esc(c));
    }
    assert!(!text.contains('@'), "{name}: placeholder left");
    text
}

/// `mf hook SUB` in `cwd` with an isolated environment; (stdout, stderr, exit code).
fn hook(sub: &str, cwd: &Path, input: &str, env: &[(&str, &Path)]) -> (String, String, i32) {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mf"));
    cmd.args(["hook", sub]).current_dir(cwd);
    common::isolate(&mut cmd, cwd);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.write_stdin(input.as_bytes().to_vec()).output().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
        out.status.code().unwrap(),
    )
}

/// A project holding Erdos850.lean as the fixture has it.
fn project() -> (tempfile::TempDir, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let text = fixture("Erdos850.lean");
    let file = dir.path().join("Erdos850.lean");
    std::fs::write(&file, &text).unwrap();
    (dir, file, text)
}

fn deny_reason(stdout: &str) -> String {
    let v: Value =
        serde_json::from_str(stdout.trim_end()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let out = &v["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PreToolUse", "{v}");
    assert_eq!(out["permissionDecision"], "deny", "{v}");
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
    let reason = out["permissionDecisionReason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(reason.chars().count() < 2000, "{} chars", reason.len());
    reason
}

fn pre(name: &str) -> (String, String, i32, String) {
    let (dir, file, before) = project();
    let (stdout, stderr, code) = hook(
        "pre-tool-use",
        dir.path(),
        &payload(name, dir.path(), &file, None),
        &[],
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        before,
        "the hook never writes the file"
    );
    (stdout, stderr, code, before)
}

#[test]
fn pre_tool_use_denies_replacing_a_proof_with_sorry() {
    let (stdout, stderr, code, _) = pre("pre_edit_proof_to_sorry.json");
    assert_eq!(code, 0);
    assert_eq!(stderr, "");
    assert_eq!(
        deny_reason(&stdout),
        format!(
            "{REASON_HEAD}\n- Erdos850.lean: theorem Erdos850.two_dvd_three_consecutive (lines 20-21): had proof code without sorry/admit, now has sorry at line 21.\nThis edit {REASON_TAIL}\n{}",
            math_forge::hook::reopen::HINT
        )
    );
}

#[test]
fn pre_tool_use_denies_admit_and_a_new_axiom() {
    let (stdout, _, code, _) = pre("pre_edit_admit.json");
    assert_eq!(code, 0);
    assert!(
        deny_reason(&stdout).contains("\n- Erdos850.lean: theorem Erdos850.three_dvd_three_consecutive (lines 37-44): had proof code without sorry/admit, now has admit at line 42.\n"),
        "{stdout}"
    );
    let (stdout, _, code, _) = pre("pre_edit_axiom.json");
    assert_eq!(code, 0);
    assert_eq!(
        deny_reason(&stdout),
        format!(
            "{REASON_HEAD}\n- Erdos850.lean: axiom Erdos850.small_cases_checked (line 46): new axiom. An axiom is an unchecked assumption: every proof that uses it is unsound, and the proof gate rejects it.\nThis edit {REASON_TAIL}"
        )
    );
}

#[test]
fn pre_tool_use_applies_replace_all() {
    let (stdout, _, code, _) = pre("pre_edit_replace_all.json");
    assert_eq!(code, 0);
    let reason = deny_reason(&stdout);
    let items: Vec<&str> = reason.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(
        items,
        [
            "- Erdos850.lean: theorem Erdos850.small_case_four (line 35): had proof code without sorry/admit, now has sorry at line 35.",
            "- Erdos850.lean: theorem Erdos850.small_case_three (line 33): had proof code without sorry/admit, now has sorry at line 33.",
        ]
    );
}

#[test]
fn pre_tool_use_lets_sketches_and_restatements_through_silently() {
    for name in [
        "pre_edit_restate.json",
        "pre_multiedit_sketch.json",
        "pre_edit_new_lemma_sorry.json",
    ] {
        let (stdout, stderr, code, _) = pre(name);
        assert_eq!(
            (stdout.as_str(), stderr.as_str(), code),
            ("", "", 0),
            "{name}"
        );
    }
}

#[test]
fn pre_tool_use_write_compares_with_the_file_on_disk() {
    let (dir, file, before) = project();
    // Over an existing file: a proof replaced with sorry.
    let gutted = before.replace(
        "theorem small_case_three : 2 ∣ 3 * 4 * 5 := by decide",
        "theorem small_case_three : 2 ∣ 3 * 4 * 5 := by sorry",
    );
    let input = payload("pre_write.json", dir.path(), &file, Some(&gutted));
    let (stdout, _, code) = hook("pre-tool-use", dir.path(), &input, &[]);
    assert_eq!(code, 0);
    assert!(
        deny_reason(&stdout)
            .contains("- Erdos850.lean: theorem Erdos850.small_case_three (line 33)"),
        "{stdout}"
    );
    // A new file: a sketch with sorry passes, an axiom does not.
    let new = dir.path().join("New.lean");
    let sketch = "theorem s : 1 = 1 := by\n  sorry\n";
    let input = payload("pre_write.json", dir.path(), &new, Some(sketch));
    assert_eq!(
        hook("pre-tool-use", dir.path(), &input, &[]),
        (String::new(), String::new(), 0)
    );
    let input = payload(
        "pre_write.json",
        dir.path(),
        &new,
        Some("axiom bad : False\n"),
    );
    let (stdout, _, _) = hook("pre-tool-use", dir.path(), &input, &[]);
    assert!(
        deny_reason(&stdout)
            .contains("- New.lean: axiom bad (line 1): axiom in a file with no earlier version."),
        "{stdout}"
    );
    assert!(!new.exists());
}

#[test]
fn pre_tool_use_steps_aside_on_what_it_cannot_judge() {
    let (dir, file, _) = project();
    // The tool itself would fail: old_string is not in the file.
    let input = payload("pre_edit_proof_to_sorry.json", dir.path(), &file, None)
        .replace("Dvd.dvd.mul_right h (n + 2)", "no such text");
    let (stdout, stderr, code) = hook("pre-tool-use", dir.path(), &input, &[]);
    assert_eq!((stdout.as_str(), code), ("", 0));
    assert!(stderr.contains("old_string is not in the file"), "{stderr}");
    // Another kind of file, another tool, and input that is not JSON.
    let md = payload(
        "pre_write.json",
        dir.path(),
        &dir.path().join("notes.md"),
        Some("sorry"),
    );
    assert_eq!(
        hook("pre-tool-use", dir.path(), &md, &[]),
        (String::new(), String::new(), 0)
    );
    let bash =
        r#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}"#;
    assert_eq!(
        hook("pre-tool-use", dir.path(), bash, &[]),
        (String::new(), String::new(), 0)
    );
    let (stdout, stderr, code) = hook("pre-tool-use", dir.path(), "{not json", &[]);
    assert_eq!((stdout.as_str(), code), ("", 0));
    assert!(stderr.contains("not a JSON object"), "{stderr}");
}

/// Fail closed: a `.lean` edit the gate cannot read (input that is not JSON, a FIFO, a binary
/// or huge file) is refused with a one-line reason naming what and why, at once (a FIFO is
/// never waited on); PostToolUse says such an edit was NOT checked.
#[test]
fn pre_tool_use_refuses_a_lean_edit_it_cannot_read() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fifo = d.join("Fifo.lean");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    std::fs::write(
        d.join("Bin.lean"),
        b"theorem t : True := by\n  trivial\x00\x01",
    )
    .unwrap();
    std::fs::write(
        d.join("Huge.lean"),
        "theorem t : True := trivial\n".repeat(160_000),
    )
    .unwrap();
    let edit = |file: &str| {
        format!(
            r#"{{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{{"file_path":{},"old_string":"trivial","new_string":"sorry"}}}}"#,
            serde_json::to_string(&d.join(file).to_string_lossy()).unwrap()
        )
    };
    let mut cases = vec![
        ("Bin.lean", edit("Bin.lean"), "binary file"),
        (
            "Huge.lean",
            edit("Huge.lean"),
            "over the hook's 4194304-byte limit",
        ),
    ];
    if made.is_ok_and(|s| s.success()) {
        cases.push(("Fifo.lean", edit("Fifo.lean"), "not a regular file"));
    } else {
        eprintln!("SKIPPED the FIFO case: mkfifo is not available");
    }
    // Cut short: what a broken pipe or a killed writer leaves.
    let cut = edit("A.lean");
    cases.push((
        "A.lean",
        cut[..cut.len() - 5].to_string(),
        "not a JSON object: EOF",
    ));
    for (file, input, why) in cases {
        let started = std::time::Instant::now();
        let (stdout, stderr, code) = hook("pre-tool-use", d, &input, &[]);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{file} waited"
        );
        assert_eq!(code, 0, "{stderr}");
        let reason = deny_reason(&stdout);
        assert!(
            reason.starts_with("[math-forge] This edit is refused because it cannot be checked: ")
                && reason.contains(why),
            "{file}: {reason}"
        );
        assert_eq!(reason.lines().count(), 1, "{reason}");
        assert!(stderr.contains("refused unchecked"), "{file}: {stderr}");
    }
    let (stdout, _, _) = hook("post-tool-use", d, &cut[..cut.len() - 5], &[]);
    assert!(
        stdout.contains("[math-forge] This edit was NOT checked: hook input is not a JSON object"),
        "{stdout}"
    );
}

#[test]
fn pre_tool_use_extends_a_subagent_prompt_with_kb_findings() {
    let dir = tempfile::tempdir().unwrap();
    let kb = common::build_kb(dir.path());
    let input = payload("pre_agent.json", dir.path(), Path::new("/unused"), None);
    let (stdout, stderr, code) = hook(
        "pre-tool-use",
        dir.path(),
        &input,
        &[("MATH_FORGE_DB", &kb)],
    );
    assert_eq!((stderr.as_str(), code), ("", 0));
    let v: Value = serde_json::from_str(stdout.trim_end()).unwrap();
    let out = &v["hookSpecificOutput"];
    assert_eq!(out["hookEventName"], "PreToolUse");
    // The reference documents updatedInput with "allow" (or "ask"); "allow" leaves deny and
    // ask rules to apply, and the subagent tool needs no permission otherwise.
    assert_eq!(out["permissionDecision"], "allow", "{v}");
    let updated = &out["updatedInput"];
    assert_eq!(updated["description"], "Prove the small cases");
    assert_eq!(updated["subagent_type"], "general-purpose");
    let prompt = updated["prompt"].as_str().unwrap();
    let original =
        "Prove erdos_850 for n < 100 using pigeonhole on the prime factors of n(n+1)(n+2).";
    let added = prompt
        .strip_prefix(&format!("{original}\n\n"))
        .unwrap_or_else(|| panic!("the task stays first: {prompt}"));
    assert!(added.starts_with("[math-forge] "), "{added}");
    assert!(added.contains("erdos_850"), "{added}");
    // Without a knowledge base there is nothing to add.
    let (stdout, _, code) = hook(
        "pre-tool-use",
        dir.path(),
        &input,
        &[("MATH_FORGE_DB", &dir.path().join("none.db"))],
    );
    assert_eq!((stdout.as_str(), code), ("", 0));
}

// ---------------------------------------------------------------------------------------------
// Stop

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn git_project() -> (tempfile::TempDir, PathBuf) {
    let (dir, file, _) = project();
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-qm", "start"]);
    (dir, file)
}

fn stop(dir: &Path, fixture_name: &str, env: &[(&str, &Path)]) -> (String, String, i32) {
    let input = payload(fixture_name, dir, Path::new("/unused"), None);
    hook("stop", dir, &input, env)
}

fn block_reason(stdout: &str) -> String {
    let v: Value =
        serde_json::from_str(stdout.trim_end()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(v["decision"], "block", "{v}");
    assert_eq!(v.as_object().unwrap().len(), 2, "{v}");
    let reason = v["reason"].as_str().unwrap().to_string();
    assert!(reason.chars().count() < 2000);
    reason
}

#[test]
fn stop_blocks_a_proof_gutted_through_mf_splice_and_an_axiom_added_by_the_shell() {
    let (dir, file) = git_project();
    assert_eq!(
        stop(dir.path(), "stop.json", &[]),
        (String::new(), String::new(), 0)
    );
    // Without --allow-sorry, splice refuses to gut the proof and leaves the file alone.
    let splice = |extra: &[&str]| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mf"));
        cmd.arg("splice")
            .arg(&file)
            .args(["two_dvd_three_consecutive", "--proof", "-"])
            .args(extra)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = cmd.spawn().unwrap();
        use std::io::Write;
        child.stdin.take().unwrap().write_all(b"sorry\n").unwrap();
        child.wait_with_output().unwrap()
    };
    let refused = splice(&[]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains(
            "theorem Erdos850.two_dvd_three_consecutive has a complete proof and this would replace it with one that has sorry/admit"
        ),
        "{}",
        String::from_utf8_lossy(&refused.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        fixture("Erdos850.lean")
    );
    let done = splice(&["--allow-sorry"]);
    assert!(
        done.status.success(),
        "{}",
        String::from_utf8_lossy(&done.stderr)
    );
    // An axiom appended from the shell, in a new untracked file.
    std::fs::write(dir.path().join("Extra.lean"), "axiom extra : False\n").unwrap();
    let (stdout, stderr, code) = stop(dir.path(), "stop.json", &[]);
    assert_eq!((stderr.as_str(), code), ("", 0));
    assert_eq!(
        block_reason(&stdout),
        format!(
            "{REASON_HEAD}\n- Erdos850.lean: theorem Erdos850.two_dvd_three_consecutive (lines 20-21): had proof code without sorry/admit, now has sorry at line 21.\n- Extra.lean: axiom extra (line 1): axiom in a file with no earlier version. An axiom is an unchecked assumption: every proof that uses it is unsound, and the proof gate rejects it.\nStopping {REASON_TAIL}"
        )
    );
    // Claude Code continuing because of this hook: still gutted, still blocked, up to Claude
    // Code's limit of consecutive blocks (here 2); the next stop ends the turn and says why.
    let capped = |fixture_name: &str| {
        let input = payload(fixture_name, dir.path(), Path::new("/unused"), None);
        let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mf"));
        cmd.args(["hook", "stop"]).current_dir(dir.path());
        common::isolate(&mut cmd, dir.path());
        let out = cmd
            .env("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "2")
            .write_stdin(input.into_bytes())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap()
    };
    // The first stop of the turn above counted 1; the continuing one is the second.
    assert!(block_reason(&capped("stop_active.json")).starts_with(REASON_HEAD));
    let last = capped("stop_active.json");
    let v: Value = serde_json::from_str(last.trim_end()).unwrap();
    assert!(v.get("decision").is_none(), "the turn may end: {v}");
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(
        msg.starts_with("math-forge: this turn ended with a proof still gutted or an axiom added, after 2 blocked stops")
            && msg.contains("Erdos850.lean: theorem Erdos850.two_dvd_three_consecutive")
            && msg.contains("Extra.lean: axiom extra"),
        "{msg}"
    );
    // A new turn starts counting again.
    assert!(block_reason(&capped("stop.json")).starts_with(REASON_HEAD));
    assert!(block_reason(&capped("stop_active.json")).starts_with(REASON_HEAD));
}

#[test]
fn stop_lets_a_session_end_with_new_sketches_and_closed_holes() {
    let (dir, file) = git_project();
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "end Erdos850",
        "lemma helper (n : ℕ) : n ≤ n + 1 := by\n  sorry\n\nend Erdos850",
    );
    std::fs::write(&file, text).unwrap();
    std::fs::write(dir.path().join("Sketch.lean"), fixture("Sketch.lean")).unwrap();
    assert_eq!(
        stop(dir.path(), "stop.json", &[]),
        (String::new(), String::new(), 0)
    );
}

#[test]
fn stop_without_git_compares_with_the_session_start_snapshot() {
    let (dir, file, before) = project();
    let data = dir.path().join(".plugin-data");
    let start = payload("session_start.json", dir.path(), Path::new("/unused"), None);
    let (stdout, stderr, code) = hook(
        "session-start",
        dir.path(),
        &start,
        &[
            ("CLAUDE_PLUGIN_DATA", &data),
            ("MATH_FORGE_DB", &dir.path().join("k.db")),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("SessionStart"));
    assert!(
        data.join("snapshots/5c1e2f0a-7d4b-4e8a-9c61-2b3f4d5e6f70.json")
            .is_file(),
        "{stderr}"
    );
    let env = [("CLAUDE_PLUGIN_DATA", data.as_path())];
    assert_eq!(
        stop(dir.path(), "stop.json", &env),
        (String::new(), String::new(), 0)
    );
    std::fs::write(&file, before.replace("by decide", "by sorry")).unwrap();
    let (stdout, _, code) = stop(dir.path(), "stop.json", &env);
    assert_eq!(code, 0);
    let reason = block_reason(&stdout);
    assert!(
        reason.contains("\n- Erdos850.lean: theorem Erdos850.small_case_four (line 35):")
            && reason.contains("\n- Erdos850.lean: theorem Erdos850.small_case_three (line 33):"),
        "{reason}"
    );
    // A second SessionStart (resume) keeps the first snapshot: the change is still seen.
    hook(
        "session-start",
        dir.path(),
        &start,
        &[
            ("CLAUDE_PLUGIN_DATA", &data),
            ("MATH_FORGE_DB", &dir.path().join("k.db")),
        ],
    );
    assert!(!stop(dir.path(), "stop.json", &env).0.is_empty());
    // No snapshot (another session): a note, nothing blocked.
    let other = payload("stop.json", dir.path(), Path::new("/unused"), None)
        .replace("5c1e2f0a-7d4b-4e8a-9c61-2b3f4d5e6f70", "other-session");
    let (stdout, stderr, code) = hook("stop", dir.path(), &other, &env);
    assert_eq!((stdout.as_str(), code), ("", 0));
    assert!(stderr.contains("no snapshot"), "{stderr}");
}

#[test]
fn stop_in_git_does_not_blame_the_session_for_changes_made_before_it() {
    let (dir, file) = git_project();
    let data = dir.path().join(".plugin-data");
    // Before the session: small_case_three already gutted, not committed.
    let before = fixture("Erdos850.lean");
    let dirty = before.replace(
        "theorem small_case_three : 2 ∣ 3 * 4 * 5 := by decide",
        "theorem small_case_three : 2 ∣ 3 * 4 * 5 := by sorry",
    );
    std::fs::write(&file, &dirty).unwrap();
    let env = [
        ("CLAUDE_PLUGIN_DATA", data.as_path()),
        ("MATH_FORGE_DB", &dir.path().join(".plugin-data/k.db")),
    ];
    let start = payload("session_start.json", dir.path(), Path::new("/unused"), None);
    let (_, stderr, code) = hook("session-start", dir.path(), &start, &env);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stop(dir.path(), "stop.json", &env),
        (String::new(), String::new(), 0)
    );
    // The session guts another proof in the same file: that one is blamed, the old one not.
    std::fs::write(
        &file,
        dirty.replace(
            "theorem small_case_four : 3 ∣ 4 * 5 * 6 := by decide",
            "theorem small_case_four : 3 ∣ 4 * 5 * 6 := by sorry",
        ),
    )
    .unwrap();
    let (stdout, _, _) = stop(dir.path(), "stop.json", &env);
    let reason = block_reason(&stdout);
    let items: Vec<&str> = reason.lines().filter(|l| l.starts_with("- ")).collect();
    assert_eq!(
        items,
        ["- Erdos850.lean: theorem Erdos850.small_case_four (line 35): had proof code without sorry/admit, now has sorry at line 35."]
    );
    // Without the snapshot (no plugin data), HEAD is the baseline and both are named.
    let (stdout, _, _) = stop(dir.path(), "stop.json", &[]);
    assert_eq!(
        block_reason(&stdout)
            .lines()
            .filter(|l| l.starts_with("- "))
            .count(),
        2
    );
}
