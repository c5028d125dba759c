//! `mf sorries`: the work list of holes, on hand-written fixtures and bad input.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::Value;
use tempfile::TempDir;

fn mf() -> Command {
    let mut cmd = Command::cargo_bin("mf").unwrap();
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    cmd
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/cursor")
        .join(name)
}

fn json_rows(path: &Path) -> Vec<Value> {
    let out = mf().args(["sorries", "--json"]).arg(path).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

/// (line, column, keyword, position, declaration, hole, holes, in_statement, under)
type Summary = (u64, u64, String, String, String, u64, u64, bool, String);

fn summarize(row: &Value) -> Summary {
    let d = &row["declaration"];
    (
        row["line"].as_u64().unwrap(),
        row["column"].as_u64().unwrap(),
        row["keyword"].as_str().unwrap().into(),
        row["position"].as_str().unwrap().into(),
        d["full_name"].as_str().unwrap_or("<none>").into(),
        d["hole"].as_u64().unwrap_or(0),
        d["holes"].as_u64().unwrap_or(0),
        d["in_statement"].as_bool().unwrap_or(false),
        row["under"]["text"].as_str().unwrap_or("").into(),
    )
}

fn expected_holes() -> Vec<Summary> {
    let s = |line,
             column,
             keyword: &str,
             position: &str,
             decl: &str,
             hole,
             holes,
             in_statement,
             under: &str| {
        (
            line,
            column,
            keyword.to_string(),
            position.to_string(),
            decl.to_string(),
            hole,
            holes,
            in_statement,
            under.to_string(),
        )
    };
    vec![
        s(
            12,
            3,
            "sorry",
            "tactic",
            "Cursor.tactic_hole",
            1,
            1,
            false,
            "",
        ),
        s(16, 5, "sorry", "tactic", "Cursor.bullets", 1, 2, false, ""),
        s(17, 5, "admit", "tactic", "Cursor.bullets", 2, 2, false, ""),
        s(19, 40, "sorry", "term", "Cursor.term_hole", 1, 1, false, ""),
        s(
            23,
            5,
            "sorry",
            "tactic",
            "Cursor.under_have",
            1,
            1,
            false,
            "have hba : b = a",
        ),
        s(
            27,
            25,
            "sorry",
            "term",
            "Cursor.under_show",
            1,
            1,
            false,
            "show a = a",
        ),
        s(
            31,
            5,
            "sorry",
            "tactic",
            "Cursor.under_suffices",
            1,
            1,
            false,
            "suffices h : p",
        ),
        s(
            38,
            48,
            "sorry",
            "term",
            "answer_in_statement",
            1,
            2,
            true,
            "",
        ),
        s(
            39,
            3,
            "sorry",
            "tactic",
            "answer_in_statement",
            2,
            2,
            false,
            "",
        ),
        s(42, 3, "sorry", "tactic", "", 1, 1, false, ""),
    ]
}

#[test]
fn every_hole_in_file_order_with_declaration_and_enclosing_have() {
    let rows = json_rows(&fixture("holes.lean"));
    let got: Vec<Summary> = rows.iter().map(summarize).collect();
    assert_eq!(got, expected_holes());
    let indices: Vec<u64> = rows.iter().map(|r| r["index"].as_u64().unwrap()).collect();
    assert_eq!(indices, (1..=10).collect::<Vec<u64>>());
    assert_eq!(
        rows[0]["declaration"]["statement"],
        "tactic_hole (n : ℕ) : 0 + n = n"
    );
    assert_eq!(rows[0]["declaration"]["kind"], "theorem");
    assert_eq!(rows[0]["declaration"]["line"], 11);
    assert_eq!(rows[9]["declaration"]["kind"], "example");
    assert_eq!(rows[9]["declaration"]["line"], 41);
    assert_eq!(rows[4]["under"]["keyword"], "have");
    assert_eq!(rows[4]["under"]["line"], 22);
    assert_eq!(rows[4]["under"]["column"], 3);
    assert!(rows[0]["path"].as_str().unwrap().ends_with("holes.lean"));
    let text = fs::read_to_string(fixture("holes.lean")).unwrap();
    for row in &rows {
        let byte = row["byte"].as_u64().unwrap() as usize;
        let keyword = row["keyword"].as_str().unwrap();
        assert_eq!(&text[byte..byte + keyword.len()], keyword);
    }
}

#[test]
fn human_output_is_one_located_line_per_hole_with_context() {
    let expected = "\
fixtures/cursor/holes.lean:12:3: sorry in theorem Cursor.tactic_hole (hole 1 of 1)
    tactic_hole (n : ℕ) : 0 + n = n
fixtures/cursor/holes.lean:16:5: sorry in lemma Cursor.bullets (hole 1 of 2)
    bullets (p q : Prop) (hp : p) (hq : q) : p ∧ q
fixtures/cursor/holes.lean:17:5: admit in lemma Cursor.bullets (hole 2 of 2)
    bullets (p q : Prop) (hp : p) (hq : q) : p ∧ q
fixtures/cursor/holes.lean:19:40: sorry in theorem Cursor.term_hole (hole 1 of 1)
    term_hole : (2 : ℕ) + 2 = 4
fixtures/cursor/holes.lean:23:5: sorry in theorem Cursor.under_have (hole 1 of 1)
    under_have (a b : ℕ) (h : a = b) : b = a
    under: have hba : b = a
fixtures/cursor/holes.lean:27:25: sorry in theorem Cursor.under_show (hole 1 of 1)
    under_show (a : ℕ) : a = a
    under: show a = a
fixtures/cursor/holes.lean:31:5: sorry in theorem Cursor.under_suffices (hole 1 of 1)
    under_suffices (p : Prop) (hp : p) : p ∧ p
    under: suffices h : p
fixtures/cursor/holes.lean:38:48: sorry in theorem answer_in_statement in its statement (hole 1 of 2)
    answer_in_statement : (1 : ℕ) = answer(sorry)
fixtures/cursor/holes.lean:39:3: sorry in theorem answer_in_statement (hole 2 of 2)
    answer_in_statement : (1 : ℕ) = answer(sorry)
fixtures/cursor/holes.lean:42:3: sorry in example at line 41 (hole 1 of 1)
    : True
10 holes
";
    mf().args(["sorries", "fixtures/cursor/holes.lean"])
        .assert()
        .success()
        .stdout(expected)
        .stderr("");
}

#[test]
fn crlf_and_bom_files_give_the_same_work_list() {
    let dir = TempDir::new().unwrap();
    let text = fs::read_to_string(fixture("holes.lean")).unwrap();
    let crlf = dir.path().join("crlf.lean");
    fs::write(&crlf, text.replace('\n', "\r\n")).unwrap();
    let bom = dir.path().join("bom.lean");
    fs::write(&bom, format!("\u{feff}{text}")).unwrap();
    for path in [&crlf, &bom] {
        let rows = json_rows(path);
        let got: Vec<Summary> = rows.iter().map(summarize).collect();
        assert_eq!(got, expected_holes(), "{}", path.display());
        assert_eq!(
            rows[4]["declaration"]["statement"], "under_have (a b : ℕ) (h : a = b) : b = a",
            "no carriage return leaks into statements"
        );
    }
}

#[test]
fn a_directory_lists_holes_file_by_file_and_counts_them() {
    let dir = TempDir::new().unwrap();
    fs::write(
        dir.path().join("a.lean"),
        "theorem a : True := by\n  sorry\n",
    )
    .unwrap();
    fs::write(dir.path().join("b.lean"), "theorem b : True := trivial\n").unwrap();
    fs::write(
        dir.path().join("c.lean"),
        "theorem c : True ∧ True := ⟨sorry, sorry⟩\n",
    )
    .unwrap();
    let out = mf().arg("sorries").arg(dir.path()).output().unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let located: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(": sorry in "))
        .map(|l| l.rsplit_once('/').unwrap().1)
        .collect();
    assert_eq!(
        located,
        vec![
            "a.lean:2:3: sorry in theorem a (hole 1 of 1)",
            "c.lean:1:29: sorry in theorem c (hole 1 of 2)",
            "c.lean:1:36: sorry in theorem c (hole 2 of 2)",
        ]
    );
    assert_eq!(stdout.lines().last(), Some("3 holes in 2 files"));
}

#[test]
fn a_file_without_holes_says_so() {
    let dir = TempDir::new().unwrap();
    let empty = dir.path().join("empty.lean");
    fs::write(&empty, "").unwrap();
    mf().arg("sorries")
        .arg(&empty)
        .assert()
        .success()
        .stdout("no holes\n");
    mf().args(["sorries", "--json"])
        .arg(&empty)
        .assert()
        .success()
        .stdout("");
}

#[test]
fn unreadable_inputs_fail_with_one_line_each_and_the_rest_is_listed() {
    let dir = TempDir::new().unwrap();
    let good = dir.path().join("good.lean");
    fs::write(&good, "theorem g : True := by\n  sorry\n").unwrap();
    let binary = dir.path().join("bin.lean");
    fs::write(&binary, b"\x1f\x8b\x08\x00\x00").unwrap();
    let latin1 = dir.path().join("latin1.lean");
    fs::write(&latin1, b"theorem caf\xe9 : True := sorry\n").unwrap();
    let missing = dir.path().join("missing.lean");
    let out = mf()
        .arg("sorries")
        .args([&missing, &binary, &latin1, &good])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{stderr}");
    assert!(
        lines[0].ends_with("missing.lean: no such file or directory"),
        "{stderr}"
    );
    assert!(lines[1].contains("bin.lean: binary file"), "{stderr}");
    assert!(
        lines[2].contains("latin1.lean:1: invalid UTF-8"),
        "{stderr}"
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("good.lean:2:3: sorry in theorem g (hole 1 of 1)"),
        "{stdout}"
    );
}

#[test]
fn no_path_is_a_usage_error() {
    mf().arg("sorries")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("Usage"));
}

#[test]
fn a_reader_that_goes_away_is_not_an_error() {
    use std::process::Stdio;
    // `mf sorries --json F | head -1` is how an agent takes the next item; when the reader has
    // gone before mf writes, the buffered output fails only when it is flushed at the end.
    for args in [&["sorries", "--json"][..], &["sorries"][..]] {
        let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("mf"))
            .args(args)
            .arg(fixture("holes.lean"))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        assert_eq!(String::from_utf8(out.stderr).unwrap(), "", "{args:?}");
        assert!(out.status.success(), "{args:?}: {:?}", out.status);
    }
}
