//! `mf diff`: declaration-level differences between two versions of a file.

use std::fs;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use tempfile::TempDir;

fn mf() -> Command {
    let mut cmd = Command::cargo_bin("mf").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

const OLD: &str = "fixtures/cursor/diff/old.lean";
const NEW: &str = "fixtures/cursor/diff/new.lean";

fn diff_json(old: &str, new: &str) -> Value {
    let out = mf().args(["diff", "--json", old, new]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "exactly one JSON object");
    serde_json::from_str(&stdout).unwrap()
}

#[test]
fn human_output_lists_each_change_with_its_hunks() {
    let expected = "\
--- fixtures/cursor/diff/old.lean
+++ fixtures/cursor/diff/new.lean
modified theorem Diff.gets_hole (line 8 → 10): proof changed, a complete proof now has a hole, 1 hole introduced
@@ -8,2 +10,2 @@
 theorem gets_hole (a b : ℕ) : a + b = b + a := by
-  omega
+  sorry
modified theorem Diff.gets_proof (line 11 → 13): proof changed, 1 hole closed
@@ -11,2 +13,2 @@
 theorem gets_proof (a : ℕ) : a * 1 = a := by
-  sorry
+  simp
modified theorem Diff.restated (line 14 → 16): statement changed
@@ -14,2 +16,2 @@
-theorem restated (x : ℕ) : x ≤ x + 1 := by
+theorem restated (x : ℕ) : x < x + 1 := by
   omega
removed  lemma Diff.goes_away (line 17)
modified example (line 19): proof changed, 1 hole closed
@@ -19,2 +19,2 @@
 example : 1 + 1 = 2 := by
-  sorry
+  norm_num
added    theorem Diff.brand_new (line 22): 1 hole
added    axiom Diff.cheat (line 25): new axiom
outside declarations
@@ -1,0 +3,1 @@
+set_option maxHeartbeats 400000
2 added, 1 removed, 4 modified
";
    mf().args(["diff", OLD, NEW])
        .assert()
        .success()
        .stdout(expected)
        .stderr("");
}

#[test]
fn json_has_every_change_and_the_hook_verdicts() {
    let v = diff_json(OLD, NEW);
    assert_eq!(v["old_path"], OLD);
    assert_eq!(v["new_path"], NEW);
    assert_eq!(v["unchanged"], 1);
    let decls = v["declarations"].as_array().unwrap();
    let summary: Vec<(String, String, bool, bool, bool, bool)> = decls
        .iter()
        .map(|d| {
            (
                d["status"].as_str().unwrap().to_string(),
                d["full_name"].as_str().unwrap().to_string(),
                d["statement_changed"].as_bool().unwrap(),
                d["proof_changed"].as_bool().unwrap(),
                d["newly_holed"].as_bool().unwrap(),
                d["added_axiom"].as_bool().unwrap(),
            )
        })
        .collect();
    let row =
        |s: &str, n: &str, st, pr, holed, ax| (s.to_string(), n.to_string(), st, pr, holed, ax);
    assert_eq!(
        summary,
        vec![
            row("modified", "Diff.gets_hole", false, true, true, false),
            row("modified", "Diff.gets_proof", false, true, false, false),
            row("modified", "Diff.restated", true, false, false, false),
            row("removed", "Diff.goes_away", false, false, false, false),
            row("modified", "", false, true, false, false),
            row("added", "Diff.brand_new", false, false, false, false),
            row("added", "Diff.cheat", false, false, false, true),
        ]
    );
    let gets_hole = &decls[0];
    assert_eq!(gets_hole["old"]["holes"], 0);
    assert_eq!(gets_hole["new"]["holes"], 1);
    assert_eq!(gets_hole["old"]["has_body"], true);
    assert_eq!(gets_hole["old"]["line"], 8);
    assert_eq!(gets_hole["new"]["line"], 10);
    assert_eq!(
        gets_hole["hunks"][0]["lines"],
        serde_json::json!([
            " theorem gets_hole (a b : ℕ) : a + b = b + a := by",
            "-  omega",
            "+  sorry"
        ])
    );
    assert_eq!(decls[4]["kind"], "example");
    assert_eq!(decls[4]["occurrence"], 1);
    assert_eq!(decls[3]["new"], Value::Null);
    assert_eq!(decls[5]["old"], Value::Null);
    assert_eq!(
        v["outside"][0]["lines"][0],
        "+set_option maxHeartbeats 400000"
    );
    assert_eq!(
        (v["old_holes"].as_u64(), v["new_holes"].as_u64()),
        (Some(2), Some(2))
    );
    assert_eq!(
        (v["old_errors"].as_u64(), v["new_errors"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(v["blocks"], true);
    assert_eq!(v["advises"], true);
}

#[test]
fn a_new_declaration_stated_with_sorry_does_not_block() {
    let dir = TempDir::new().unwrap();
    let old = dir.path().join("old.lean");
    let new = dir.path().join("new.lean");
    fs::write(&old, "theorem a : True := trivial\n").unwrap();
    fs::write(
        &new,
        "theorem a : True := trivial\n\ntheorem b : 1 = 1 := by\n  sorry\n",
    )
    .unwrap();
    let v = diff_json(old.to_str().unwrap(), new.to_str().unwrap());
    assert_eq!(v["blocks"], false);
    assert_eq!(v["advises"], false);
    assert_eq!(v["declarations"][0]["status"], "added");
    assert_eq!(v["declarations"][0]["new"]["holes"], 1);
}

#[test]
fn identical_and_line_ending_only_changes_are_no_differences() {
    let dir = TempDir::new().unwrap();
    let crlf = dir.path().join("crlf.lean");
    let text =
        fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(OLD)).unwrap();
    fs::write(&crlf, text.replace('\n', "\r\n")).unwrap();
    let expected = |a: &str, b: &str| format!("--- {a}\n+++ {b}\nno differences\n");
    mf().args(["diff", OLD, OLD])
        .assert()
        .success()
        .stdout(expected(OLD, OLD));
    let crlf = crlf.to_str().unwrap();
    mf().args(["diff", OLD, crlf])
        .assert()
        .success()
        .stdout(expected(OLD, crlf));
    let v = diff_json(OLD, crlf);
    assert_eq!(v["unchanged"], 6);
    assert_eq!(v["declarations"], serde_json::json!([]));
}

#[test]
fn everything_is_added_to_an_empty_file() {
    let dir = TempDir::new().unwrap();
    let empty = dir.path().join("empty.lean");
    fs::write(&empty, "").unwrap();
    let v = diff_json(empty.to_str().unwrap(), NEW);
    let statuses: Vec<&str> = v["declarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, vec!["added"; 7]);
    assert_eq!(v["blocks"], true, "the new axiom blocks");
}

#[test]
fn unreadable_inputs_fail_naming_each() {
    let dir = TempDir::new().unwrap();
    let binary = dir.path().join("bin.lean");
    fs::write(&binary, b"\x1f\x8b\x08\x00").unwrap();
    let missing = dir.path().join("missing.lean");
    let out = mf().arg("diff").args([&missing, &binary]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "");
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(lines[0].ends_with("missing.lean: cannot read: no such file or directory"));
    assert!(lines[1].contains("bin.lean: binary file"));
    assert!(lines[1].contains("gunzip"));
}

#[test]
fn one_path_is_a_usage_error() {
    mf().args(["diff", OLD])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Usage"));
}

/// The questions the PostToolUse hook asks, through the library call it uses.
mod hook_questions {
    use math_forge::cursor::compare_texts;

    const BEFORE: &str = "\
namespace H

theorem t (a b : ℕ) (h : a ≤ b) : a < b + 1 := by
  have h2 : a + 0 ≤ b := by
    simpa using h
  omega

theorem open_one : 1 = 1 := by
  sorry

end H
";

    #[test]
    fn replacing_proof_code_by_sorry_deep_in_a_have_blocks() {
        let after = BEFORE.replace("    simpa using h\n", "    sorry\n");
        let c = compare_texts(BEFORE, &after);
        let names: Vec<&str> = c
            .newly_holed()
            .iter()
            .map(|d| d.full_name.as_str())
            .collect();
        assert_eq!(names, vec!["H.t"]);
        assert!(c.blocks());
        assert!(!c.advises());
    }

    #[test]
    fn admit_counts_like_sorry() {
        let after = BEFORE.replace("  omega\n", "  admit\n");
        assert!(compare_texts(BEFORE, &after).blocks());
    }

    #[test]
    fn touching_a_declaration_that_already_had_a_hole_does_not_block() {
        let after = BEFORE.replace(
            "theorem open_one : 1 = 1 := by\n  sorry",
            "theorem open_one : 1 = 1 := by\n  skip\n  sorry",
        );
        let c = compare_texts(BEFORE, &after);
        assert!(!c.blocks(), "{:?}", c.newly_holed());
        assert_eq!(c.changed().count(), 1);
    }

    #[test]
    fn a_new_lemma_stated_with_sorry_is_fine_but_an_axiom_blocks() {
        let with_lemma = BEFORE.replace("end H", "lemma helper : 2 = 2 := by\n  sorry\n\nend H");
        let c = compare_texts(BEFORE, &with_lemma);
        assert!(!c.blocks() && !c.advises());
        let with_axiom = BEFORE.replace("end H", "axiom magic : ∀ n : ℕ, n < 5\n\nend H");
        let c = compare_texts(BEFORE, &with_axiom);
        let names: Vec<&str> = c
            .added_axioms()
            .iter()
            .map(|d| d.full_name.as_str())
            .collect();
        assert_eq!(names, vec!["H.magic"]);
        assert!(c.blocks());
    }

    #[test]
    fn a_deleted_or_renamed_proof_is_reported_but_does_not_block() {
        let after = BEFORE.replace("theorem t (a b", "theorem t' (a b");
        let c = compare_texts(BEFORE, &after);
        let names: Vec<&str> = c
            .removed_proofs()
            .iter()
            .map(|d| d.full_name.as_str())
            .collect();
        assert_eq!(names, vec!["H.t"]);
        assert!(!c.blocks() && !c.advises());
    }

    #[test]
    fn a_changed_statement_advises_without_blocking() {
        let after = BEFORE.replace("a < b + 1 := by", "a < b + 2 := by");
        let c = compare_texts(BEFORE, &after);
        let names: Vec<&str> = c
            .restated_theorems()
            .iter()
            .map(|d| d.full_name.as_str())
            .collect();
        assert_eq!(names, vec!["H.t"]);
        assert!(c.advises() && !c.blocks());
    }

    #[test]
    fn closing_holes_and_reformatting_are_quiet() {
        let after = BEFORE
            .replace(
                "theorem open_one : 1 = 1 := by\n  sorry",
                "theorem open_one : 1 = 1 := by\n  rfl",
            )
            .replace('\n', "\r\n");
        let c = compare_texts(BEFORE, &after);
        assert!(!c.blocks() && !c.advises());
        let closed: Vec<(&str, usize)> = c
            .changed()
            .map(|d| (d.full_name.as_str(), d.holes_closed()))
            .collect();
        assert_eq!(closed, vec![("H.open_one", 1)]);
    }
}

#[test]
fn a_reader_that_goes_away_is_not_an_error() {
    use std::process::Stdio;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("mf"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["diff", OLD, NEW])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "");
    assert!(out.status.success());
}

#[test]
fn standard_input_stands_for_one_of_the_files() {
    let dir = TempDir::new().unwrap();
    let old = dir.path().join("old.lean");
    fs::write(&old, "theorem a : True := by\n  sorry\n").unwrap();
    mf().arg("diff")
        .arg(&old)
        .arg("-")
        .write_stdin("theorem a : True := by\n  trivial\n")
        .assert()
        .success()
        .stdout(predicate::str::contains("+++ <stdin>"))
        .stdout(predicate::str::contains("1 hole closed"));
    mf().args(["diff", "-", "-"])
        .write_stdin("")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not both"));
}
