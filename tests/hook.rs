//! `mf hook …` end to end, with realistic Claude Code payloads from fixtures/hooks/.
//!
//! Payload fixtures are what Claude Code sends, with placeholders the tests fill in: `@FILE@`
//! and `@CWD@` (paths in a temporary directory), `"@ORIGINAL@"` (the file before the tool ran)
//! and `"@CONTENT@"` (a Write's text). Each test puts the file on disk as the tool left it
//! (applying the payload's own edits to the fixture) and runs the hook on the payload.

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn hook_fixture(name: &str) -> PathBuf {
    common::fixture("hooks").join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(hook_fixture(name)).unwrap()
}

/// `mf hook SUB` in `cwd`, isolated from the caller's environment.
fn mf_hook(sub: &str, cwd: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mf"));
    cmd.args(["hook", sub]).current_dir(cwd);
    common::isolate(&mut cmd, cwd);
    cmd.env_remove("MATH_FORGE_SLOTS");
    cmd
}

/// A hook run: stdout, stderr, exit code.
struct Run {
    stdout: String,
    stderr: String,
    code: Option<i32>,
}

impl Run {
    fn of(cmd: &mut assert_cmd::Command, input: &[u8]) -> Run {
        let out = cmd.write_stdin(input.to_vec()).output().unwrap();
        Run {
            stdout: String::from_utf8(out.stdout).unwrap(),
            stderr: String::from_utf8(out.stderr).unwrap(),
            code: out.status.code(),
        }
    }

    fn json(&self) -> Value {
        assert_eq!(self.code, Some(0), "stderr: {}", self.stderr);
        assert_eq!(
            self.stdout.lines().count(),
            1,
            "one JSON line: {:?}",
            self.stdout
        );
        serde_json::from_str(&self.stdout).unwrap()
    }

    /// The block reason, checking the output is exactly a block.
    fn block_reason(&self) -> String {
        let v = self.json();
        assert_eq!(v.as_object().unwrap().len(), 2, "{v}");
        assert_eq!(v["decision"], "block", "{v}");
        v["reason"].as_str().unwrap().to_string()
    }

    /// The additionalContext of a non-blocking output for `event`.
    fn context(&self, event: &str) -> String {
        let v = self.json();
        assert!(v.get("decision").is_none(), "{v}");
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], event, "{v}");
        v["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Nothing on stdout, exit 0.
    fn assert_silent(&self) {
        assert_eq!(self.code, Some(0), "stderr: {}", self.stderr);
        assert_eq!(self.stdout, "", "expected no output");
    }
}

/// The first line of each blocking item of a reason (`- theorem X (lines …): …`).
fn block_items(reason: &str) -> Vec<String> {
    reason
        .lines()
        .filter(|l| l.starts_with("- "))
        .map(str::to_string)
        .collect()
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// A payload fixture with its placeholders filled in.
fn payload(fixture: &str, file: &Path, original: Option<&str>, content: Option<&str>) -> String {
    let path = json_string(&file.to_string_lossy());
    let cwd = json_string(&file.parent().unwrap().to_string_lossy());
    let mut text = read(fixture)
        .replace("@FILE@", &path[1..path.len() - 1])
        .replace("@CWD@", &cwd[1..cwd.len() - 1]);
    if let Some(o) = original {
        text = text.replace("\"@ORIGINAL@\"", &json_string(o));
    }
    if let Some(c) = content {
        text = text.replace("\"@CONTENT@\"", &json_string(c));
    }
    assert!(!text.contains('@'), "{fixture}: placeholder left");
    text
}

/// Applies one `old_string` → `new_string` edit the way Claude Code does (the old string must
/// be unique unless replace_all).
fn apply(text: &str, e: &Value) -> String {
    let old = e["old_string"].as_str().unwrap();
    let new = e["new_string"].as_str().unwrap();
    if e["replace_all"].as_bool().unwrap_or(false) {
        assert!(text.contains(old));
        text.replace(old, new)
    } else {
        assert_eq!(
            text.matches(old).count(),
            1,
            "old_string must be unique: {old:?}"
        );
        text.replacen(old, new, 1)
    }
}

/// A temporary project with `lean` as it was before an Edit/MultiEdit fixture, the edit
/// applied on disk, and the payload to send.
struct Case {
    dir: tempfile::TempDir,
    file: PathBuf,
    payload: String,
}

impl Case {
    fn edit(fixture: &str, lean: &str) -> Case {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(lean);
        let before = read(lean);
        let payload = payload(fixture, &file, Some(&before), None);
        let v: Value = serde_json::from_str(&payload).unwrap();
        let after = match v["tool_name"].as_str().unwrap() {
            "Edit" => apply(&before, &v["tool_input"]),
            "MultiEdit" => v["tool_input"]["edits"]
                .as_array()
                .unwrap()
                .iter()
                .fold(before.clone(), |t, e| apply(&t, e)),
            other => panic!("{other}"),
        };
        assert_ne!(before, after);
        std::fs::write(&file, after).unwrap();
        Case { dir, file, payload }
    }

    /// A Write of `content` (a fixture) to `target`, which held `before` (a fixture) if any.
    fn write(fixture: &str, target: &str, before: Option<&str>, content: &str) -> Case {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(target);
        let before = before.map(read);
        let content = read(content);
        let payload = payload(fixture, &file, before.as_deref(), Some(&content));
        std::fs::write(&file, &content).unwrap();
        Case { dir, file, payload }
    }

    fn run(&self) -> Run {
        Run::of(
            &mut mf_hook("post-tool-use", self.dir.path()),
            self.payload.as_bytes(),
        )
    }

    fn run_with_tracking(&self) -> Run {
        let tracking = common::build_tracking(self.dir.path(), "tracking.sql");
        let mut cmd = mf_hook("post-tool-use", self.dir.path());
        cmd.env("MATH_FORGE_TRACKING_DB", tracking);
        Run::of(&mut cmd, self.payload.as_bytes())
    }
}

const RULE: &str =
    "Project rule: never replace existing proof code with sorry/admit, never add axioms. \
     Restore the proof (or finish it without a hole); state a missing fact as a separate lemma \
     (a new lemma stated with sorry is fine).";

// ---------------------------------------------------------------------------------------------
// PostToolUse: Edit

#[test]
fn edit_replacing_a_proof_with_sorry_blocks_naming_declaration_and_lines() {
    let run = Case::edit("edit_proof_to_sorry.json", "Erdos850.lean").run();
    assert_eq!(
        run.block_reason(),
        format!(
            "[math-forge] BLOCKED: this edit of Erdos850.lean replaced proof code with a hole or added an axiom.\n\
             - theorem Erdos850.two_dvd_three_consecutive (lines 20-21): had proof code without sorry/admit, now has sorry at line 21. The edit removed:\n    \
             have h : 2 ∣ n * (n + 1) := by\n    \
             exact Nat.even_iff_two_dvd.mp (Nat.even_mul_succ_self n)\n    \
             exact Dvd.dvd.mul_right h (n + 2)\n\
             {RULE}"
        )
    );
    assert_eq!(run.stderr, "");
}

#[test]
fn edit_without_original_file_is_undone_on_the_current_text() {
    let run = Case::edit("edit_small_case_to_sorry_no_original.json", "Erdos850.lean").run();
    assert_eq!(
        block_items(&run.block_reason()),
        ["- theorem Erdos850.small_case_three (lines 33-34): had proof code without sorry/admit, now has sorry at line 34. The edit removed:"]
    );
}

#[test]
fn ambiguous_undo_without_original_file_blocks_when_every_candidate_guts_a_proof() {
    // "  sorry" occurs twice after the edit (once from before), so either could be the new
    // one. Either way a complete proof was holed (two_dvd_three_consecutive, or
    // triple_factors_small if the other `sorry` was the new one): the edit is blocked, and
    // the reason says it cannot tell which.
    let run = Case::edit("edit_ambiguous_sorry_no_original.json", "Erdos850.lean").run();
    let items = block_items(&run.block_reason());
    assert_eq!(items.len(), 3, "{items:?}");
    assert!(
        items[0].starts_with("- the earlier version is ambiguous (2 ways to undo the edit)"),
        "{items:?}"
    );
    assert!(items[1..]
        .iter()
        .any(|i| i.starts_with("- theorem Erdos850.two_dvd_three_consecutive (lines 20-21)")));
    assert!(items[1..]
        .iter()
        .any(|i| i.starts_with("- theorem Erdos850.triple_factors_small")));
}

#[test]
fn ambiguous_undo_where_one_candidate_is_clean_does_not_block() {
    // `trivial` → `sorry`, and `sorry` occurs three times now. If the new one is a's, a was
    // gutted; if it is one of b's, b already had a hole and nothing was gutted. Not every
    // candidate guts a proof, so the hook cannot say one was: it does not block.
    let dir = tempfile::tempdir().unwrap();
    let text =
        "theorem a : True := by\n  sorry\n\ntheorem b : True := by\n  first | sorry | sorry\n";
    let file = dir.path().join("A.lean");
    std::fs::write(&file, text).unwrap();
    let input = serde_json::json!({
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "cwd": dir.path(),
        "tool_input": {"file_path": file, "old_string": "trivial", "new_string": "sorry"},
        "tool_response": {"filePath": file}
    });
    post(dir.path(), input.to_string().as_bytes()).assert_silent();
}

#[test]
fn admit_counts_as_a_hole() {
    let run = Case::edit("edit_admit.json", "Erdos850.lean").run();
    assert_eq!(
        block_items(&run.block_reason()),
        ["- theorem Erdos850.three_dvd_three_consecutive (lines 37-44): had proof code without sorry/admit, now has admit at line 42. The edit removed:"]
    );
}

#[test]
fn replace_all_blocks_every_declaration_it_holed() {
    let run = Case::edit("edit_replace_all.json", "Erdos850.lean").run();
    assert_eq!(
        block_items(&run.block_reason()),
        [
            "- theorem Erdos850.small_case_four (line 35): had proof code without sorry/admit, now has sorry at line 35. The edit removed:",
            "- theorem Erdos850.small_case_three (line 33): had proof code without sorry/admit, now has sorry at line 33. The edit removed:",
        ]
    );
}

#[test]
fn replace_all_without_original_file_when_sorry_was_already_there_does_not_block() {
    Case::edit("edit_replace_all_no_original.json", "Erdos850.lean")
        .run()
        .assert_silent();
}

#[test]
fn new_axiom_blocks() {
    let run = Case::edit("edit_axiom.json", "Erdos850.lean").run();
    assert_eq!(
        run.block_reason(),
        format!(
            "[math-forge] BLOCKED: this edit of Erdos850.lean replaced proof code with a hole or added an axiom.\n\
             - axiom Erdos850.small_cases_checked (line 46): new axiom. An axiom is an unchecked assumption: \
             every proof that uses it is unsound, and the proof gate rejects it.\n\
             {RULE}"
        )
    );
}

#[test]
fn sorry_in_a_comment_or_string_does_not_block() {
    for fixture in ["edit_comment_sorry.json", "edit_string_sorry.json"] {
        let run = Case::edit(fixture, "Erdos850.lean").run();
        run.assert_silent();
        assert_eq!(run.stderr, "", "{fixture}");
    }
}

#[test]
fn a_sorry_that_was_already_there_does_not_block() {
    Case::edit("edit_existing_sorry.json", "Erdos850.lean")
        .run()
        .assert_silent();
}

#[test]
fn a_new_lemma_stated_with_sorry_does_not_block() {
    Case::edit("edit_new_lemma_sorry.json", "Erdos850.lean")
        .run()
        .assert_silent();
}

#[test]
fn closing_a_hole_is_silent() {
    Case::edit("edit_close_hole.json", "Erdos850.lean")
        .run()
        .assert_silent();
}

#[test]
fn a_changed_theorem_statement_advises() {
    let run = Case::edit("edit_restate.json", "Erdos850.lean").run();
    assert_eq!(
        run.context("PostToolUse"),
        "[math-forge] Checked Erdos850.lean:\n\
         - theorem Erdos850.two_dvd_three_consecutive (line 20): statement changed from \
         `two_dvd_three_consecutive (n : ℕ) : 2 ∣ n * (n + 1) * (n + 2)` to \
         `two_dvd_three_consecutive (n : ℕ) (hn : 0 < n) : 2 ∣ n * (n + 1) * (n + 2)`. \
         A proof of the new statement is not a proof of the old one; make sure the change is intended."
    );
}

// ---------------------------------------------------------------------------------------------
// PostToolUse: MultiEdit

#[test]
fn multi_edit_blocks_the_holed_proof_but_not_the_new_lemma() {
    for fixture in [
        "multiedit_holes_proof.json",
        "multiedit_holes_proof_no_original.json",
    ] {
        let run = Case::edit(fixture, "Erdos850.lean").run();
        assert_eq!(
            block_items(&run.block_reason()),
            ["- theorem Erdos850.three_dvd_three_consecutive (lines 37-43): had proof code without sorry/admit, now has sorry at line 43. The edit removed:"],
            "{fixture}"
        );
    }
}

#[test]
fn multi_edit_sketching_with_sorry_does_not_block() {
    Case::edit("multiedit_sketch.json", "Erdos850.lean")
        .run()
        .assert_silent();
}

// ---------------------------------------------------------------------------------------------
// PostToolUse: Write

#[test]
fn write_over_a_file_compares_with_the_original_in_the_response() {
    let run = Case::write(
        "write_update.json",
        "Erdos850.lean",
        Some("Erdos850.lean"),
        "Erdos850_rewritten.lean",
    )
    .run();
    let reason = run.block_reason();
    assert_eq!(
        block_items(&reason),
        ["- theorem Erdos850.two_dvd_three_consecutive (lines 24-25): had proof code without sorry/admit, now has sorry at line 25. The edit removed:"]
    );
    assert!(
        !reason.contains("even_among_three"),
        "a new lemma with sorry is fine: {reason}"
    );
}

#[test]
fn write_without_original_uses_git_head() {
    let case = Case::write(
        "write_no_original.json",
        "Erdos850.lean",
        None,
        "Erdos850_rewritten.lean",
    );
    let dir = case.dir.path();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // Not a repository yet: no baseline, and a file with sorry is not blocked.
    case.run().assert_silent();
    // Committed before the Write: HEAD is the baseline.
    std::fs::write(&case.file, read("Erdos850.lean")).unwrap();
    git(&["init", "-q"]);
    git(&["add", "Erdos850.lean"]);
    git(&["commit", "-q", "-m", "proofs"]);
    std::fs::write(&case.file, read("Erdos850_rewritten.lean")).unwrap();
    let expected = ["- theorem Erdos850.two_dvd_three_consecutive (lines 24-25): had proof code without sorry/admit, now has sorry at line 25. The edit removed:"];
    assert_eq!(block_items(&case.run().block_reason()), expected);
    // A file deleted and written anew ("create") is compared with HEAD too.
    let created = case
        .payload
        .replace("\"type\": \"update\"", "\"type\": \"create\"");
    assert_ne!(created, case.payload);
    let run = Run::of(&mut mf_hook("post-tool-use", dir), created.as_bytes());
    assert_eq!(block_items(&run.block_reason()), expected);
}

#[test]
fn write_of_a_new_sketch_with_sorry_does_not_block() {
    Case::write(
        "write_create_sketch.json",
        "Sketch.lean",
        None,
        "Sketch.lean",
    )
    .run()
    .assert_silent();
}

#[test]
fn write_of_a_new_file_with_an_axiom_blocks() {
    let run = Case::write(
        "write_create_axiom.json",
        "Sketch.lean",
        None,
        "SketchWithAxiom.lean",
    )
    .run();
    assert_eq!(
        block_items(&run.block_reason()),
        ["- axiom Erdos850.Sketch.triple_factors_dense (line 24): axiom in a file with no earlier version. \
          An axiom is an unchecked assumption: every proof that uses it is unsound, and the proof gate rejects it."]
    );
}

#[test]
fn write_with_no_baseline_and_an_axiom_blocks_too() {
    // Neither originalFile nor git: the axiom check still applies, the sorry check cannot.
    let run = Case::write(
        "write_no_original.json",
        "Sketch.lean",
        None,
        "SketchWithAxiom.lean",
    )
    .run();
    assert_eq!(
        block_items(&run.block_reason()),
        ["- axiom Erdos850.Sketch.triple_factors_dense (line 24): axiom in a file with no earlier version. \
          An axiom is an unchecked assumption: every proof that uses it is unsound, and the proof gate rejects it."]
    );
}

// ---------------------------------------------------------------------------------------------
// PostToolUse: false lemmas

#[test]
fn a_reference_to_a_false_lemma_advises() {
    let case = Case::edit("edit_false_lemma.json", "TuzaNu4.lean");
    assert_eq!(
        case.run_with_tracking().context("PostToolUse"),
        "[math-forge] Checked TuzaNu4.lean:\n\
         - `local_cover_le_2` is listed as FALSE in tracking.db, and this file uses it (line 18). \
         Why: the link of an edge can need 3 edges to cover. Counterexample: K4 with a pendant triangle. \
         Avoid: do not bound local covers by 2 in nu=4. Details: `mk failed local_cover_le_2`."
    );
    // Without a tracking.db there is nothing to say.
    case.run().assert_silent();
}

#[test]
fn a_look_alike_name_or_a_comment_is_not_a_reference() {
    // The file mentions local_cover_le_2 in a doc comment and uses local_cover_le_2_aux.
    Case::edit("edit_false_lemma_lookalike.json", "TuzaNu4.lean")
        .run_with_tracking()
        .assert_silent();
}

#[test]
fn block_and_false_lemma_advice_together() {
    let run = Case::edit("edit_false_lemma_and_sorry.json", "TuzaNu4.lean").run_with_tracking();
    let reason = run.block_reason();
    assert_eq!(
        block_items(&reason),
        [
            "- theorem TuzaNu4.pair_cover (lines 16-18): had proof code without sorry/admit, now has sorry at line 18. The edit removed:",
            "- `local_cover_le_2` is listed as FALSE in tracking.db, and this file uses it (line 17). \
             Why: the link of an edge can need 3 edges to cover. Counterexample: K4 with a pendant triangle. \
             Avoid: do not bound local covers by 2 in nu=4. Details: `mk failed local_cover_le_2`.",
        ]
    );
    assert!(
        reason.contains(&format!("{RULE}\n\nAlso:\n- `local_cover_le_2`")),
        "{reason}"
    );
}

// ---------------------------------------------------------------------------------------------
// PostToolUse: input it cannot use

fn post(cwd: &Path, input: &[u8]) -> Run {
    Run::of(&mut mf_hook("post-tool-use", cwd), input)
}

#[test]
fn malformed_or_incomplete_input_steps_aside_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&[u8], &str); 6] = [
        (
            b"{\"tool_name\": \"Edit\", \"tool_input\": {",
            "not a JSON object",
        ),
        (b"", "not a JSON object"),
        (b"[\"Edit\"]", "not a JSON object"),
        (b"{\"hook_event_name\": \"PostToolUse\"}", "no tool_name"),
        (
            b"{\"tool_name\": \"Edit\", \"tool_input\": {}}",
            "no file_path",
        ),
        (
            b"{\"tool_name\": \"Bash\", \"tool_input\": {\"command\": \"ls\"}}",
            "(Bash)",
        ),
    ];
    for (input, note) in cases {
        let run = post(dir.path(), input);
        run.assert_silent();
        assert!(
            run.stderr.starts_with("mf hook post-tool-use: "),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains(note), "{note}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    }
}

/// A `.lean` file it cannot read is not checked, and the agent is told so (silence would read
/// as "checked"); a missing file (the tool failed) gets only a note.
#[test]
fn files_it_cannot_read_are_said_not_checked() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("Bin.lean"),
        b"theorem t : True := by\n  sorry\x00\x01",
    )
    .unwrap();
    std::fs::write(
        d.join("Latin1.lean"),
        b"-- caf\xe9\ntheorem t : True := trivial\n",
    )
    .unwrap();
    let huge = "theorem t : True := trivial\n".repeat(160_000); // 4.5 MB
    std::fs::write(d.join("Huge.lean"), huge).unwrap();
    std::fs::create_dir(d.join("Dir.lean")).unwrap();
    for (file, note) in [
        ("Missing.lean", "no such file or directory"),
        ("Bin.lean", "binary file"),
        ("Latin1.lean", "invalid UTF-8"),
        ("Huge.lean", "over the hook's 4194304-byte limit"),
        ("Dir.lean", "not a regular file"),
    ] {
        let input = format!(
            r#"{{"tool_name":"Edit","tool_input":{{"file_path":"{}","old_string":"trivial","new_string":"sorry"}}}}"#,
            d.join(file).display()
        );
        let run = post(d, input.as_bytes());
        assert!(run.stderr.contains(note), "{file}: {}", run.stderr);
        if file == "Missing.lean" {
            run.assert_silent();
        } else {
            let text = run.context("PostToolUse");
            assert!(
                text.starts_with("[math-forge] This edit was NOT checked: ") && text.contains(note),
                "{file}: {text}"
            );
            assert_eq!(text.lines().count(), 1, "{text}");
        }
    }
}

#[test]
fn other_files_and_relative_paths() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // A non-Lean file: nothing, not even a note.
    std::fs::write(d.join("notes.md"), "sorry").unwrap();
    let run = post(
        d,
        br#"{"tool_name":"Write","tool_input":{"file_path":"notes.md","content":"sorry"}}"#,
    );
    run.assert_silent();
    assert_eq!(run.stderr, "");
    // A relative path is resolved against the payload's cwd.
    let sub = d.join("proj");
    std::fs::create_dir(&sub).unwrap();
    std::fs::write(sub.join("A.lean"), "theorem a : True := by\n  sorry\n").unwrap();
    let input = format!(
        r#"{{"cwd":{},"tool_name":"Edit","tool_input":{{"file_path":"A.lean","old_string":"trivial","new_string":"sorry"}},"tool_response":{{"originalFile":"theorem a : True := by\n  trivial\n"}}}}"#,
        json_string(&sub.to_string_lossy())
    );
    assert_eq!(
        block_items(&post(d, input.as_bytes()).block_reason()),
        ["- theorem a (lines 1-2): had proof code without sorry/admit, now has sorry at line 2. The edit removed:"]
    );
}

#[test]
fn an_edit_that_cannot_be_undone_still_checks_false_lemmas() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("TuzaNu4.lean");
    let text = read("TuzaNu4.lean").replace("  omega", "  exact local_cover_le_2 G e");
    std::fs::write(&file, text).unwrap();
    let tracking = common::build_tracking(dir.path(), "tracking.sql");
    // The file does not contain the payload's new_string (it changed again since).
    let input = format!(
        r#"{{"tool_name":"Edit","tool_input":{{"file_path":{},"old_string":"omega","new_string":"linarith"}}}}"#,
        json_string(&file.to_string_lossy())
    );
    let mut cmd = mf_hook("post-tool-use", dir.path());
    cmd.env("MATH_FORGE_TRACKING_DB", tracking);
    let run = Run::of(&mut cmd, input.as_bytes());
    assert!(run
        .context("PostToolUse")
        .contains("`local_cover_le_2` is listed as FALSE"));
    assert_eq!(
        run.stderr,
        "mf hook post-tool-use: TuzaNu4.lean: earlier version unknown (the file no longer contains the edit's new_string); only false lemmas checked\n"
    );
}

// ---------------------------------------------------------------------------------------------
// SessionStart

/// tracking.sql plus submissions dated relative to now, so that each part of the briefing
/// has something to show.
fn tracking_with_recent_rows(dir: &Path) -> PathBuf {
    let path = common::build_tracking(dir, "tracking.sql");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "INSERT INTO submissions (id, uuid, filename, problem_id, status, submitted_at, completed_at, sorry_count, proven_count, verified) VALUES
          (10, 'u-800', 'slot800_erdos_850_dense_result.lean', 'erdos_850', 'running', datetime('now', '-30 hours'), NULL, NULL, NULL, NULL),
          (11, 'u-801', 'slot801_erdos_364_gap_result.lean', 'erdos_364', 'completed', datetime('now', '-31 hours'), datetime('now', '-2 hours'), 1, 8, NULL),
          (12, 'u-802', 'slot802_ft_p3_result.lean', 'ft_p3', 'completed', datetime('now', '-4 days'), datetime('now', '-3 days'), 0, 4, 1),
          (13, 'u-803', 'slot803_erdos_850_small_result.lean', 'erdos_850', 'compiled_partial', datetime('now', '-6 days'), datetime('now', '-5 days'), 1, 12, 0),
          (14, 'u-804', 'slot804_tuza_nu4_local_result.lean', 'tuza_nu4', 'compiled_partial', datetime('now', '-6 days'), datetime('now', '-5 days'), 1, 20, 0);
         INSERT INTO submission_false_lemma_targets VALUES (14, 1);",
    )
    .unwrap();
    path
}

/// The briefing without its first line (which has the time).
fn briefing_body(text: &str) -> &str {
    let (first, rest) = text.split_once('\n').unwrap();
    assert!(
        first.starts_with("[math-forge] Session briefing (") && first.ends_with("Z)"),
        "{first}"
    );
    rest
}

#[test]
fn session_start_briefs_from_tracking_and_kb() {
    let dir = tempfile::tempdir().unwrap();
    let kb = common::build_kb(dir.path());
    let tracking = tracking_with_recent_rows(dir.path());
    let mut cmd = mf_hook("session-start", dir.path());
    cmd.env("MATH_FORGE_DB", &kb)
        .env("MATH_FORGE_TRACKING_DB", &tracking);
    let run = Run::of(
        &mut cmd,
        br#"{"session_id":"s","hook_event_name":"SessionStart","source":"startup"}"#,
    );
    let text = run.context("SessionStart");
    assert_eq!(run.stderr, "");
    assert_eq!(
        briefing_body(&text),
        "\n\
         QUEUE: 1 in flight, 4 of 5 slots open\n\
         READY TO FETCH: slot801\n\
         RECENT PROVEN: slot802 ft_p3 (4 theorems)\n\
         TOP NEAR-MISS: slot803 erdos_850 (1 sorry, 12 proven)\n\
         FALSE LEMMAS: 3 (newest: naive_triple_bound, powerful_gap_bound, local_cover_le_2); never build on them (`mk failed <name>`)\n\
         KB: 11 facts; newest: \"Tuza ν=4 needs a global argument\" (within the hour)\n\
         \n\
         ACTION ITEMS:\n\
         1. Fetch ready results: slot801\n\
         2. Close near-miss: slot803 erdos_850 (1 sorry, 12 proven)\n\
         3. 4 slots open for new submissions\n\
         \n\
         NOTE: last submission was 30h ago; tracking data may be stale.\n\
         \n\
         Use `mk search <query>` for KB queries, `mk find <problem>` for one problem, `mk failed <keyword>` before retrying an approach."
    );
    // About 300 tokens, not a page.
    assert!(text.len() < 1400, "{} bytes", text.len());

    // Slots are configurable; a full queue has no "slots open" action.
    let mut cmd = mf_hook("session-start", dir.path());
    cmd.env("MATH_FORGE_DB", &kb)
        .env("MATH_FORGE_TRACKING_DB", &tracking)
        .env("MATH_FORGE_SLOTS", "1");
    let text = Run::of(&mut cmd, b"").context("SessionStart");
    assert!(
        text.contains("\nQUEUE: 1 in flight, 0 of 1 slots open\n"),
        "{text}"
    );
    assert!(!text.contains("slots open for new submissions"), "{text}");
}

#[test]
fn session_start_reads_an_older_tracking_db_defensively() {
    // No false_lemmas table; submissions without problem_id, submitted_at, completed_at or
    // verified: what can be read is shown, the rest is left out.
    let dir = tempfile::tempdir().unwrap();
    let tracking = common::build_tracking(dir.path(), "tracking_old.sql");
    rusqlite::Connection::open(&tracking)
        .unwrap()
        .execute_batch(
            "INSERT INTO submissions VALUES (3, 'u-103', 'slot103_erdos_850_late_result.lean', '2024-10-03 10:00:00', 'completed', 1, 9),
                                            (4, 'u-104', 'slot104_erdos_850_run_result.lean', '2024-10-04 10:00:00', 'running', NULL, NULL);",
        )
        .unwrap();
    let mut cmd = mf_hook("session-start", dir.path());
    cmd.env("MATH_FORGE_DB", dir.path().join("k.db"))
        .env("MATH_FORGE_TRACKING_DB", &tracking);
    let run = Run::of(&mut cmd, b"{}");
    assert_eq!(
        briefing_body(&run.context("SessionStart")),
        "\n\
         QUEUE: 1 in flight, 4 of 5 slots open\n\
         TOP NEAR-MISS: slot103 (1 sorry, 9 proven)\n\
         KB: empty (`mf extract --all RESULTS_DIR` adds result files; `mk init --from-tracking PATH` migrates tracking.db)\n\
         \n\
         ACTION ITEMS:\n\
         1. Close near-miss: slot103 (1 sorry, 9 proven)\n\
         2. 4 slots open for new submissions\n\
         \n\
         Use `mk search <query>` for KB queries, `mk find <problem>` for one problem, `mk failed <keyword>` before retrying an approach."
    );
    assert_eq!(run.stderr, "");
}

/// `mk ARGS --json` from the shell in `cwd`: the user's environment, no Claude Code variables.
fn shell_mk(cwd: &Path, home: &Path, args: &[&str]) -> Value {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mk"));
    common::isolate(&mut cmd, home);
    let out = cmd
        .args(args)
        .arg("--json")
        .current_dir(cwd)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "mk {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn session_start_and_the_shell_find_the_same_knowledge_base() {
    // As Claude Code runs a plugin's hook: CLAUDE_PLUGIN_ROOT is the install folder (replaced
    // on every update), CLAUDE_PLUGIN_DATA the plugin's own folder, CLAUDE_PROJECT_DIR the
    // project; the hook's working directory may be elsewhere.
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let project = dir.path().join("project");
    let sub = project.join("Proofs");
    std::fs::create_dir_all(&sub).unwrap();
    let root = dir.path().join("plugin-root");
    let data = dir.path().join("plugin-data");
    let env_file = dir.path().join("claude-env");
    let session_start = |cwd: &Path| {
        let mut cmd = mf_hook("session-start", cwd);
        cmd.env("HOME", &home)
            .env("CLAUDE_PLUGIN_ROOT", &root)
            .env("CLAUDE_PLUGIN_DATA", &data)
            .env("CLAUDE_PROJECT_DIR", &project)
            .env("CLAUDE_ENV_FILE", &env_file);
        Run::of(
            &mut cmd,
            br#"{"hook_event_name":"SessionStart","source":"startup"}"#,
        )
    };
    let run = session_start(dir.path());
    assert_eq!(
        briefing_body(&run.context("SessionStart")),
        format!(
            "\nQUEUE: unknown (no tracking.db at {})\n\
             KB: empty (`mf extract --all RESULTS_DIR` adds result files; `mk init --from-tracking PATH` migrates tracking.db)\n\
             \n\
             Use `mk search <query>` for KB queries, `mk find <problem>` for one problem, `mk failed <keyword>` before retrying an approach.",
            project.join("submissions/tracking.db").display()
        )
    );
    let user_kb = common::user_kb(&home);
    assert!(user_kb.is_file(), "the user-level knowledge.db");
    assert!(
        !data.join("knowledge.db").exists(),
        "none in the plugin's data folder"
    );
    assert!(!root.exists(), "nothing written under CLAUDE_PLUGIN_ROOT");
    // Only PATH is exported: the shell finds the knowledge base by the same rule.
    let exports = std::fs::read_to_string(&env_file).unwrap();
    assert!(!exports.contains("MATH_FORGE_DB"), "{exports}");
    let stats = shell_mk(&sub, &home, &["stats"]);
    assert_eq!(stats["knowledge_db"]["path"], user_kb.to_str().unwrap());
    assert_eq!(
        stats["knowledge_db"]["why"],
        "in the user data directory (no .math-forge/ here or above)"
    );

    // `mk init` in the project makes a project knowledge base; a finding recorded from the
    // shell is in the briefing of the next session, whose hooks start from the project.
    let init = shell_mk(&project, &home, &["init"]);
    let project_kb = project.join(".math-forge/knowledge.db");
    assert_eq!(init["knowledge_db"], project_kb.to_str().unwrap());
    shell_mk(
        &sub,
        &home,
        &[
            "record",
            "failure",
            "--problem",
            "erdos_1",
            "--approach",
            "pigeonhole",
            "--why",
            "bound too weak",
            "--new-problem",
        ],
    );
    let stats = shell_mk(&sub, &home, &["stats"]);
    assert_eq!(stats["knowledge_db"]["path"], project_kb.to_str().unwrap());
    assert_eq!(stats["facts"], 1, "{stats}");
    let run = session_start(dir.path());
    let text = run.context("SessionStart");
    assert!(!text.contains("KB: empty"), "{text}");
    // The briefing counts what `mk stats` counts, in its word.
    assert!(text.contains("KB: 1 fact;"), "{text}");
}

#[test]
fn a_knowledge_base_left_in_the_plugin_data_folder_is_adopted_or_named() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let old_data = home.join(".claude/plugins/data/math-forge-inline");
    let old = old_data.join("knowledge.db");
    {
        let mut kb = math_forge::kb::Kb::open(&old).unwrap();
        kb.record_failure(&math_forge::kb::FailureInput {
            problem: "erdos_1".into(),
            approach: "pigeonhole".into(),
            why: "bound too weak".into(),
            avoid: None,
            description: None,
            category: None,
            domain: None,
            slot: None,
            uuid: None,
            new_problem: true,
        })
        .unwrap();
    }
    // `mk stats` from the shell before any session: the old one is named.
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mk"));
    common::isolate(&mut cmd, &home);
    let out = cmd.arg("stats").current_dir(dir.path()).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains(&old.display().to_string()),
        "{err}"
    );
    let session_start = || {
        let mut cmd = mf_hook("session-start", dir.path());
        cmd.env("HOME", &home)
            .env("CLAUDE_PLUGIN_DATA", &old_data)
            .env("CLAUDE_PROJECT_DIR", dir.path());
        Run::of(
            &mut cmd,
            br#"{"hook_event_name":"SessionStart","source":"startup"}"#,
        )
        .json()
    };
    // The first session copies it where the rule now looks, and says so.
    let v = session_start();
    let msg = v["systemMessage"].as_str().unwrap();
    let user_kb = common::user_kb(&home);
    assert!(
        msg.starts_with(&format!(
            "math-forge copied the knowledge base an earlier version kept at {} to {}",
            old.display(),
            user_kb.display()
        )),
        "{msg}"
    );
    let context = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.contains("KB: 1") && context.contains(msg),
        "{context}"
    );
    assert!(old.is_file(), "the old file is kept");
    let stats = shell_mk(dir.path(), &home, &["stats"]);
    assert_eq!(stats["facts"], 1, "the shell sees the facts: {stats}");
    assert_eq!(stats["old_knowledge_dbs"], serde_json::json!([]));
    // Once: the next session says nothing.
    assert!(session_start().get("systemMessage").is_none());

    // Another old one, beside a knowledge base that exists: named, not merged, untouched.
    let other_data = home.join(".claude/plugins/data/math-forge-math-forge");
    let other = other_data.join("knowledge.db");
    std::fs::create_dir_all(&other_data).unwrap();
    std::fs::copy(&old, &other).unwrap();
    let before = std::fs::read(&other).unwrap();
    let v = session_start();
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(
        msg.contains(&format!(
            "an earlier version's knowledge base at {} is no longer used",
            other.display()
        )),
        "{msg}"
    );
    assert_eq!(std::fs::read(&other).unwrap(), before);
    let stats = shell_mk(dir.path(), &home, &["stats"]);
    assert_eq!(
        stats["old_knowledge_dbs"],
        serde_json::json!([other.to_str().unwrap()])
    );
}

#[test]
fn session_start_exports_path_once_and_survives_bad_input() {
    let dir = tempfile::tempdir().unwrap();
    let env_file = dir.path().join("claude-env");
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_mf")).parent().unwrap();
    for input in [&b"{\"source\":\"startup\"}"[..], b"not json"] {
        let mut cmd = mf_hook("session-start", dir.path());
        cmd.env("MATH_FORGE_DB", dir.path().join("k.db"))
            .env("CLAUDE_ENV_FILE", &env_file);
        let run = Run::of(&mut cmd, input);
        assert!(run.context("SessionStart").contains("\nKB: empty"));
        if input == b"not json" {
            assert!(
                run.stderr.contains("not a JSON object") && run.stderr.contains("briefing anyway"),
                "{}",
                run.stderr
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(&env_file).unwrap(),
        format!("export PATH='{}':\"$PATH\"\n", bin_dir.display())
    );
}

// ---------------------------------------------------------------------------------------------
// SubagentStart

fn subagent(dir: &Path, kb: Option<&Path>, tracking: Option<&Path>, input: &str) -> Run {
    let mut cmd = mf_hook("subagent-start", dir);
    cmd.env(
        "MATH_FORGE_DB",
        kb.map_or_else(|| dir.join("none.db"), Path::to_path_buf),
    );
    if let Some(t) = tracking {
        cmd.env("MATH_FORGE_TRACKING_DB", t);
    }
    Run::of(&mut cmd, input.as_bytes())
}

#[test]
fn subagent_gets_false_lemmas_and_failures_first() {
    let dir = tempfile::tempdir().unwrap();
    let kb = common::build_kb(dir.path());
    let tracking = common::build_tracking(dir.path(), "tracking.sql");
    let input = r#"{"hook_event_name":"SubagentStart","agent_id":"a1","agent_type":"general-purpose",
        "prompt":"Work on tuza_nu4: bound the cover number with local_cover_le_2, or a pigeonhole argument on residues."}"#;
    let run = subagent(dir.path(), Some(&kb), Some(&tracking), input);
    let text = run.context("SubagentStart");
    assert_eq!(run.stderr, "");
    assert_eq!(
        text,
        "[math-forge] KB facts related to this task (more: `mk search`, `mk failed`):\n\
         - FALSE LEMMA local_cover_le_2: the link of an edge can need 3 edges to cover; avoid: do not bound local covers by 2 in nu=4\n\
         - FAILED: Failed attempt: slot700 (5 sorry) — 5 sorry remaining; pigeonhole bound too weak; avoid: pigeonhole mod 8\n\
         - KNOWN (insight): Tuza ν=4 needs a global argument [slot701]"
    );
    assert!(text.chars().count() <= 800);
}

#[test]
fn subagent_without_a_task_gets_the_newest_failures() {
    let dir = tempfile::tempdir().unwrap();
    let kb = common::build_kb(dir.path());
    let run = subagent(
        dir.path(),
        Some(&kb),
        None,
        r#"{"hook_event_name":"SubagentStart","agent_type":"Explore"}"#,
    );
    let text = run.context("SubagentStart");
    assert_eq!(
        text,
        "[math-forge] Newest false lemmas and failed approaches (more: `mk failed`):\n\
         - FALSE: local_cover_le_2 — the link of an edge can need 3 edges; avoid: do not bound local covers by 2\n\
         - FAILED: Failed attempt: slot700 (5 sorry) — 5 sorry remaining; pigeonhole bound too weak; avoid: pigeonhole mod 8"
    );
}

#[test]
fn subagent_without_kb_or_with_bad_input_adds_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let run = subagent(dir.path(), None, None, r#"{"prompt":"anything"}"#);
    run.assert_silent();
    assert!(run.stderr.contains("none.db"), "{}", run.stderr);
    assert!(
        !dir.path().join("none.db").exists(),
        "subagent-start never creates a KB"
    );
    let kb = common::build_kb(dir.path());
    let run = subagent(dir.path(), Some(&kb), None, "{{{");
    run.assert_silent();
    assert!(run.stderr.contains("not a JSON object"), "{}", run.stderr);
    let run = subagent(
        dir.path(),
        Some(&kb),
        None,
        r#"{"prompt":"zzzqqq xyzzy plugh"}"#,
    );
    run.assert_silent();
    assert_eq!(run.stderr, "");
}

#[test]
fn a_renamed_declaration_keeps_its_proof_silently() {
    Case::edit("edit_rename.json", "Erdos850.lean")
        .run()
        .assert_silent();
}

#[test]
fn a_removed_complete_proof_advises() {
    let run = Case::edit("edit_delete_proof.json", "Erdos850.lean").run();
    assert_eq!(
        run.context("PostToolUse"),
        "[math-forge] Checked Erdos850.lean:\n\
         - theorem Erdos850.small_case_four (was line 35) had a complete proof and is gone. \
         If it was renamed or moved, keep its proof; do not restate it with sorry."
    );
    // Renamed and restated with sorry: a new declaration, so no block, but the advice names
    // the proof that disappeared.
    let run = Case::edit("edit_rename_to_sorry.json", "Erdos850.lean").run();
    assert_eq!(
        run.context("PostToolUse"),
        "[math-forge] Checked Erdos850.lean:\n\
         - theorem Erdos850.small_case_three (was line 33) had a complete proof and is gone. \
         If it was renamed or moved, keep its proof; do not restate it with sorry."
    );
}
