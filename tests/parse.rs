//! `mf parse`: trees, statistics, and every kind of bad input.

use std::fs;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use tempfile::TempDir;

fn mf() -> Command {
    Command::cargo_bin("mf").unwrap()
}

const GOOD: &str = "theorem t (n : Nat) : n + 0 = n := by\n  simp\n";

fn stats_json(cmd: &mut Command) -> (Value, String, Option<i32>) {
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let value = serde_json::from_str(stdout.trim()).expect("exactly one JSON object");
    (
        value,
        String::from_utf8(out.stderr).unwrap(),
        out.status.code(),
    )
}

#[test]
fn prints_a_tree_per_file() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("a.lean"), GOOD).unwrap();
    mf().arg("parse")
        .arg(dir.path().join("a.lean"))
        .assert()
        .success()
        .stdout(predicate::str::contains("(source_file"))
        .stdout(predicate::str::contains("(declaration"));
}

#[test]
fn stats_json_is_exactly_one_object_with_the_eight_fields() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("a.lean"), GOOD).unwrap();
    fs::write(dir.path().join("b.lean"), "theorem broken : := := )\n").unwrap();
    fs::create_dir(dir.path().join("sub")).unwrap();
    fs::write(dir.path().join("sub/c.lean"), GOOD).unwrap();
    fs::write(dir.path().join("notes.txt"), "not lean").unwrap();
    let (v, _, code) = stats_json(mf().args(["parse", "--stats", "--json"]).arg(dir.path()));
    assert_eq!(code, Some(0));
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 8, "{v}");
    for key in [
        "files",
        "skipped",
        "clean_files",
        "error_nodes",
        "declarations_in_unclean_files",
        "declarations_lost_to_errors",
        "bytes",
        "seconds",
    ] {
        assert!(v.get(key).is_some(), "{key} missing in {v}");
    }
    assert_eq!(v["files"], 3);
    assert_eq!(v["clean_files"], 2);
    assert!(v["error_nodes"].as_u64().unwrap() >= 1);
    // the broken theorem is a declaration node of its own: nothing lost to the error
    assert_eq!(v["declarations_in_unclean_files"], 1, "{v}");
    assert_eq!(v["declarations_lost_to_errors"], 0, "{v}");
    assert_eq!(
        v["bytes"],
        2 * GOOD.len() + "theorem broken : := := )\n".len()
    );
}

#[test]
fn errors_lists_unclean_files_with_positions() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("good.lean"), GOOD).unwrap();
    fs::write(
        dir.path().join("bad.lean"),
        "theorem ok : True := trivial\n\ntheorem bad : ) := (\n",
    )
    .unwrap();
    mf().args(["parse", "--errors"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("bad.lean: 3:"))
        .stdout(predicate::str::contains("good.lean").not());
}

/// Lean nests `/-` inside comments, so an error message quoted in a header never closes it.
#[test]
fn an_unclosed_comment_is_named_as_such() {
    let dir = TempDir::new().unwrap();
    fs::write(
        dir.path().join("header.lean"),
        "theorem ok : True := trivial\n\n/-\nAt line 3: unexpected token '/--'\n-/\n\ntheorem t : True := trivial\n",
    )
    .unwrap();
    mf().args(["parse", "--errors"])
        .arg(dir.path())
        .assert()
        .success()
        .stdout(predicate::str::ends_with(
            "header.lean: 3:1 comment never closed (a `/-` inside it opens another)\n",
        ));
}

#[test]
fn a_missing_path_is_reported_and_the_rest_still_processed() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("a.lean"), GOOD).unwrap();
    let (v, stderr, code) = stats_json(
        mf().args(["parse", "--stats", "--json"])
            .arg(dir.path().join("nope.lean"))
            .arg(dir.path().join("a.lean")),
    );
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("nope.lean: no such file or directory"),
        "{stderr}"
    );
    assert_eq!(v["files"], 1);
}

#[test]
fn a_directory_without_lean_files_is_an_error() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("readme.md"), "# hi").unwrap();
    mf().args(["parse", "--stats"])
        .arg(dir.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "directory contains no .lean files",
        ));
}

#[test]
fn binary_and_invalid_utf8_files_get_one_line_each() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("a.lean"), GOOD).unwrap();
    fs::write(dir.path().join("gz.lean"), b"\x1f\x8b\x08\x00\x00binary").unwrap();
    fs::write(
        dir.path().join("latin1.lean"),
        b"-- caf\xe9\ntheorem t : True := trivial\n",
    )
    .unwrap();
    let (v, stderr, code) = stats_json(mf().args(["parse", "--stats", "--json"]).arg(dir.path()));
    // Under a directory they are skipped: a warning each, a count, exit 0.
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(v["files"], 1, "only the good file is parsed");
    assert_eq!(v["skipped"], 2, "{v}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    // With --json, warnings are JSON objects naming the path.
    let warnings: Vec<serde_json::Value> = lines
        .iter()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let gz = warnings[0]["warning"].as_str().unwrap();
    assert!(
        gz.contains("gz.lean: binary file") && gz.contains("gunzip") && gz.ends_with("; skipped"),
        "{stderr}"
    );
    assert!(warnings[0]["path"].as_str().unwrap().ends_with("gz.lean"));
    let latin1 = warnings[1]["warning"].as_str().unwrap();
    assert!(latin1.contains("latin1.lean:1: invalid UTF-8"), "{stderr}");

    // --strict makes them errors.
    let (v, stderr, code) = stats_json(
        mf().args(["parse", "--strict", "--stats", "--json"])
            .arg(dir.path()),
    );
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(v["skipped"], 0);
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn empty_crlf_and_bom_files_parse_cleanly() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("empty.lean"), "").unwrap();
    fs::write(dir.path().join("crlf.lean"), GOOD.replace('\n', "\r\n")).unwrap();
    fs::write(dir.path().join("bom.lean"), format!("\u{feff}{GOOD}")).unwrap();
    let (v, stderr, code) = stats_json(mf().args(["parse", "--stats", "--json"]).arg(dir.path()));
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(v["files"], 3);
    assert_eq!(v["clean_files"], 3, "{v}");
}

#[test]
fn usage_errors_exit_2() {
    mf().arg("parse").assert().code(2);
    mf().args(["parse", "--json", "x.lean"]).assert().code(2);
    mf().arg("frobnicate").assert().code(2);
}
