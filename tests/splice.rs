//! `mf splice`: proofs put in place byte for byte, refusals that leave the file untouched.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use tempfile::TempDir;

fn mf() -> Command {
    Command::cargo_bin("mf").unwrap()
}

fn original() -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cursor/splice.lean"))
        .unwrap()
}

/// A scratch copy of the splice fixture (optionally transformed).
struct Scratch {
    _dir: TempDir,
    path: PathBuf,
}

fn scratch_with(text: &str) -> Scratch {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("splice.lean");
    fs::write(&path, text).unwrap();
    Scratch { _dir: dir, path }
}

fn scratch() -> Scratch {
    scratch_with(&original())
}

/// `text` with the only occurrence of `old` replaced by `new`.
fn replace_once(text: &str, old: &str, new: &str) -> String {
    assert_eq!(
        text.matches(old).count(),
        1,
        "`{old}` must occur exactly once"
    );
    text.replacen(old, new, 1)
}

fn splice(path: &Path, decl: &str, proof: &str, extra: &[&str]) -> assert_cmd::assert::Assert {
    mf().arg("splice")
        .arg(path)
        .arg(decl)
        .args(["--proof", "-"])
        .args(extra)
        .write_stdin(proof)
        .assert()
}

fn refused(path: &Path, decl: &str, proof: &str, extra: &[&str], reason: &str) {
    let before = fs::read(path).unwrap();
    splice(path, decl, proof, extra)
        .code(1)
        .stdout("")
        .stderr(
            predicate::str::contains("splice refused, file left untouched")
                .or(predicate::str::contains("left untouched")),
        )
        .stderr(predicate::str::contains(reason));
    assert_eq!(
        fs::read(path).unwrap(),
        before,
        "the file must be untouched"
    );
    let dir = path.parent().unwrap();
    let leftovers: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "splice.lean")
        .collect();
    assert!(
        leftovers.is_empty(),
        "no temporary file left: {leftovers:?}"
    );
}

#[test]
fn whole_proof_as_tactics_goes_under_by_in_a_namespace() {
    let s = scratch();
    splice(&s.path, "add_zero'", "simp\n", &[])
        .success()
        .stdout(format!(
            "{}:5:39: spliced 2 lines into the proof of theorem Alpha.add_zero' (replacing 2 lines); 0 holes left in it, 5 in the file\n",
            s.path.display()
        ));
    let expected = replace_once(
        &original(),
        "n + 0 = n := by\n  sorry\n",
        "n + 0 = n := by\n  simp\n",
    );
    assert_eq!(fs::read_to_string(&s.path).unwrap(), expected);
}

#[test]
fn whole_proof_keeps_relative_layout_of_a_by_block() {
    let s = scratch();
    let proof = "\n    by\n      induction n with\n      | zero => rfl\n      | succ k ih =>\n        simp\n\n";
    splice(&s.path, "Alpha.add_zero'", proof, &[]).success();
    let expected = replace_once(
        &original(),
        "n + 0 = n := by\n  sorry\n",
        "n + 0 = n := by\n  induction n with\n  | zero => rfl\n  | succ k ih =>\n    simp\n",
    );
    assert_eq!(fs::read_to_string(&s.path).unwrap(), expected);
}

#[test]
fn a_bare_term_replaces_a_term_proof() {
    let s = scratch();
    splice(&s.path, "by_term", "rfl", &["--json"])
        .success()
        .stdout(predicate::function(|out: &str| {
            let v: Value = serde_json::from_str(out.trim()).unwrap();
            v["form"] == "term"
                && v["declaration"] == "Alpha.by_term"
                && v["kind"] == "theorem"
                && v["line"] == 17
                && v["column"] == 35
                && v["old_lines"] == 1
                && v["new_lines"] == 1
                && v["holes_in_declaration"] == 0
                && v["holes_in_file"] == 5
                && v["written"] == true
        }));
    let expected = replace_once(&original(), "4 = 7 := sorry", "4 = 7 := rfl");
    assert_eq!(fs::read_to_string(&s.path).unwrap(), expected);
}

#[test]
fn equations_are_replaced_at_their_own_indentation() {
    let s = scratch();
    splice(
        &s.path,
        "double",
        "| 0 => 0\n| n + 1 => 2 * (n + 1)\n",
        &["--json"],
    )
    .success()
    .stdout(predicate::str::contains("\"form\":\"body\""));
    let expected = replace_once(
        &original(),
        "  | 0 => 0\n  | n + 1 => double n + 2\n",
        "  | 0 => 0\n  | n + 1 => 2 * (n + 1)\n",
    );
    assert_eq!(fs::read_to_string(&s.path).unwrap(), expected);
}

#[test]
fn one_hole_in_a_nested_tactic_block_takes_the_hole_column() {
    let s = scratch();
    splice(&s.path, "nested", "have := hq\nexact this", &["--sorry", "1"])
        .success()
        .stdout(format!(
            "{}:12:7: spliced 2 lines into hole 1 of theorem Alpha.nested (replacing 1 line); 1 hole left in it, 5 in the file\n",
            s.path.display()
        ));
    let expected = replace_once(
        &original(),
        "    · sorry\n",
        "    · have := hq\n      exact this\n",
    );
    assert_eq!(fs::read_to_string(&s.path).unwrap(), expected);

    // The second hole is now the only one: it sits under a `have` two blocks deep.
    splice(&s.path, "nested", "  exact hr\n", &["--sorry", "1"]).success();
    let expected = replace_once(&expected, "        sorry\n", "        exact hr\n");
    assert_eq!(fs::read_to_string(&s.path).unwrap(), expected);
}

#[test]
fn a_term_hole_takes_a_by_block_with_its_relative_layout() {
    let s = scratch();
    splice(&s.path, "by_term", "by\n  norm_num", &["--sorry", "1"]).success();
    let expected = replace_once(
        &original(),
        "4 = 7 := sorry\n",
        &format!("4 = 7 := by\n{}norm_num\n", " ".repeat(39)),
    );
    assert_eq!(fs::read_to_string(&s.path).unwrap(), expected);
}

#[test]
fn an_anonymous_example_is_named_by_a_line_inside_it() {
    let s = scratch();
    splice(&s.path, "37", "omega", &["--sorry", "1"]).success();
    let expected = replace_once(
        &original(),
        "b + a := by\n  sorry\n",
        "b + a := by\n  omega\n",
    );
    assert_eq!(fs::read_to_string(&s.path).unwrap(), expected);
}

#[test]
fn crlf_files_stay_crlf_and_the_rest_is_byte_for_byte() {
    let crlf = original().replace('\n', "\r\n");
    let s = scratch_with(&crlf);
    splice(
        &s.path,
        "nested",
        "have := hr\nexact this",
        &["--sorry", "2"],
    )
    .success();
    splice(&s.path, "add_zero'", "by\n  simp\n  done", &[]).success();
    let expected = replace_once(
        &original(),
        "        sorry\n",
        "        have := hr\n        exact this\n",
    );
    let expected = replace_once(
        &expected,
        "n + 0 = n := by\n  sorry\n",
        "n + 0 = n := by\n  simp\n  done\n",
    );
    assert_eq!(
        fs::read_to_string(&s.path).unwrap(),
        expected.replace('\n', "\r\n")
    );
}

#[test]
fn a_byte_order_mark_is_kept() {
    let s = scratch_with(&format!("\u{feff}{}", original()));
    splice(&s.path, "Beta.dup", "simp", &[]).success();
    let expected = replace_once(
        &original(),
        "a + 0 = a := by\n  sorry\n",
        "a + 0 = a := by\n  simp\n",
    );
    assert_eq!(
        fs::read_to_string(&s.path).unwrap(),
        format!("\u{feff}{expected}")
    );
}

#[test]
fn proof_may_come_from_a_file() {
    let s = scratch();
    let proof = s.path.parent().unwrap().join("proof.txt");
    fs::write(&proof, "simp").unwrap();
    mf().arg("splice")
        .arg(&s.path)
        .arg("Alpha.add_zero'")
        .arg("--proof")
        .arg(&proof)
        .assert()
        .success();
    fs::remove_file(&proof).unwrap();
    assert!(fs::read_to_string(&s.path)
        .unwrap()
        .contains(":= by\n  simp\n"));
}

#[test]
fn dry_run_shows_the_change_and_writes_nothing() {
    let s = scratch();
    let path = s.path.display().to_string();
    splice(&s.path, "add_zero'", "simp", &["--dry-run"])
        .success()
        .stdout(format!(
            "{path}:5:39: would splice 2 lines into the proof of theorem Alpha.add_zero' (replacing 2 lines); 0 holes left in it, 5 in the file\n\
             @@ -5,2 +5,2 @@\n theorem add_zero' (n : ℕ) : n + 0 = n := by\n-  sorry\n+  simp\n"
        ));
    assert_eq!(fs::read_to_string(&s.path).unwrap(), original());
}

#[cfg(unix)]
#[test]
fn permissions_are_kept_and_symlinks_stay_links() {
    use std::os::unix::fs::{symlink, PermissionsExt};
    let s = scratch();
    fs::set_permissions(&s.path, fs::Permissions::from_mode(0o640)).unwrap();
    let link = s.path.parent().unwrap().join("link.lean");
    symlink(&s.path, &link).unwrap();
    splice(&link, "add_zero'", "simp", &[]).success();
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let mode = fs::metadata(&s.path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
    assert!(fs::read_to_string(&s.path)
        .unwrap()
        .contains(":= by\n  simp\n"));
}

#[test]
fn refuses_a_missing_declaration_with_a_suggestion() {
    let s = scratch();
    refused(
        &s.path,
        "add_zero",
        "simp",
        &[],
        "no declaration `add_zero` (did you mean `Alpha.add_zero'`?)",
    );
}

#[test]
fn refuses_an_ambiguous_name_listing_candidates() {
    let s = scratch();
    refused(
        &s.path,
        "dup",
        "simp",
        &[],
        "`dup` is ambiguous: `Alpha.dup` (line 23), `Beta.dup` (line 29)",
    );
}

#[test]
fn refuses_a_proof_that_does_not_parse() {
    let s = scratch();
    refused(
        &s.path,
        "add_zero'",
        "by\n  exact (foo",
        &[],
        "does not parse cleanly",
    );
    refused(
        &s.path,
        "nested",
        "exact ⟨hq,",
        &["--sorry", "1"],
        "does not parse cleanly",
    );
}

#[test]
fn refuses_a_proof_that_brings_its_own_declaration() {
    let s = scratch();
    let before = fs::read(&s.path).unwrap();
    splice(
        &s.path,
        "by_term",
        "rfl\n\ntheorem evil : False := sorry",
        &[],
    )
    .code(1)
    .stderr(predicate::str::contains(
        "splice refused, file left untouched",
    ));
    assert_eq!(fs::read(&s.path).unwrap(), before);
}

#[test]
fn refuses_holes_that_are_not_there() {
    let s = scratch();
    refused(
        &s.path,
        "add_zero'",
        "simp",
        &["--sorry", "2"],
        "Alpha.add_zero' has 1 hole; there is no hole 2",
    );
    refused(
        &s.path,
        "done",
        "trivial",
        &["--sorry", "1"],
        "done has no `sorry`/`admit` to replace",
    );
}

#[test]
fn refuses_an_empty_proof() {
    let s = scratch();
    refused(
        &s.path,
        "add_zero'",
        " \n\n",
        &[],
        "the proof text is empty",
    );
}

#[test]
fn bad_inputs_fail_with_one_line() {
    let dir = TempDir::new().unwrap();
    let missing = dir.path().join("missing.lean");
    splice(&missing, "x", "simp", &[]).code(2).stderr(format!(
        "mf: {}: cannot read: no such file or directory\n",
        missing.display()
    ));
    let binary = dir.path().join("bin.lean");
    fs::write(&binary, b"\x00\x01").unwrap();
    splice(&binary, "x", "simp", &[])
        .code(2)
        .stderr(predicate::str::contains("binary file"));
    let s = scratch();
    mf().arg("splice")
        .arg(&s.path)
        .arg("add_zero'")
        .args(["--proof", "/no/such/proof.txt"])
        .assert()
        .code(2)
        .stderr("mf: /no/such/proof.txt: cannot read: no such file or directory\n");
    assert_eq!(fs::read_to_string(&s.path).unwrap(), original());
}

#[test]
fn usage_errors_exit_2() {
    let s = scratch();
    splice(&s.path, "add_zero'", "simp", &["--sorry", "0"]).code(2);
    mf().arg("splice")
        .arg(&s.path)
        .arg("add_zero'")
        .assert()
        .code(2);
    assert_eq!(fs::read_to_string(&s.path).unwrap(), original());
}

fn broken_fixture() -> String {
    fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cursor/broken.lean"))
        .unwrap()
}

#[test]
fn refuses_to_replace_a_proof_that_does_not_parse_itself() {
    let s = scratch_with(&broken_fixture());
    let before = fs::read(&s.path).unwrap();
    splice(&s.path, "broken", "simp", &[])
        .code(1)
        .stderr(format!(
        "mf: {}: splice refused, file left untouched: the current proof of broken has a syntax \
         error at line 6:8, so where it ends is uncertain; repair it by hand or splice its holes \
         with --sorry\n",
        s.path.display()
    ));
    assert_eq!(fs::read(&s.path).unwrap(), before);
}

#[test]
fn errors_elsewhere_in_the_file_do_not_block_a_clean_splice() {
    let s = scratch_with(&broken_fixture());
    splice(&s.path, "ok", "trivial", &["--sorry", "1"]).success();
    let expected = replace_once(
        &broken_fixture(),
        "True := by\n  sorry\n",
        "True := by\n  trivial\n",
    );
    assert_eq!(fs::read_to_string(&s.path).unwrap(), expected);
    // Next to an old error, new errors cannot be told from old ones: refused, pointing at it.
    refused(
        &s.path,
        "broken",
        "rfl",
        &["--sorry", "1"],
        "does not parse cleanly: syntax error at line 6:6 (the original already has a syntax \
         error there, at line 6:8; repair it by hand)",
    );
}

#[test]
fn a_reader_that_goes_away_does_not_undo_or_fail_the_splice() {
    use std::io::Write as _;
    use std::process::Stdio;
    let s = scratch();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("mf"))
        .arg("splice")
        .arg(&s.path)
        .args(["add_zero'", "--proof", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.stdin.take().unwrap().write_all(b"simp").unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8(out.stderr).unwrap(), "");
    assert!(out.status.success());
    assert!(fs::read_to_string(&s.path)
        .unwrap()
        .contains(":= by\n  simp\n"));
}

#[test]
fn comments_after_the_last_token_of_a_proof_stay() {
    let original = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/cursor/comments.lean"),
    )
    .unwrap();
    let s = scratch_with(&original);
    splice(&s.path, "a", "simp", &[]).success();
    splice(&s.path, "b", "exact trivial", &[]).success();
    let expected = replace_once(&original, "  sorry -- hole\n", "  simp -- hole\n");
    let expected = replace_once(
        &expected,
        "  trivial\n  -- indented trailing note\n",
        "  exact trivial\n  -- indented trailing note\n",
    );
    assert_eq!(fs::read_to_string(&s.path).unwrap(), expected);
}

#[test]
fn an_indented_declaration_gets_its_proof_indented_relative_to_it() {
    let original =
        "namespace N\n  theorem t (n : ℕ)\n      (h : 0 < n) : 1 ≤ n := by\n    sorry\nend N\n";
    let s = scratch_with(original);
    splice(&s.path, "N.t", "cases n\n· omega\n· omega", &[]).success();
    assert_eq!(
        fs::read_to_string(&s.path).unwrap(),
        "namespace N\n  theorem t (n : ℕ)\n      (h : 0 < n) : 1 ≤ n := by\n    cases n\n    · omega\n    · omega\nend N\n"
    );
}
