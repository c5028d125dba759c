//! Every ERROR and MISSING node counts, hidden ones included: `mf parse --errors` and
//! `--stats`, `mf lint`, `mf verify` and `mf outline` see the same errors, and declarations
//! inside an ERROR node are counted as lost.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn mf() -> Command {
    let mut cmd = Command::cargo_bin("mf").unwrap();
    // no tracking.db is looked up next to the fixtures
    cmd.env("MATH_FORGE_TRACKING_DB", "/nonexistent/tracking.db");
    cmd
}

/// Standard output of `mf ARGS PATH`.
fn mf_stdout(args: &[&str], path: &Path) -> String {
    let out = mf().args(args).arg(path).output().unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// `mf parse --stats --json PATH`.
fn parse_stats(path: &Path) -> Value {
    serde_json::from_str(&mf_stdout(&["parse", "--stats", "--json"], path)).unwrap()
}

fn json_lines(out: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(out)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A tree whose only error is a hidden MISSING node (the end of a `do` block, a zero-width
/// token no node walk shows): every front end reports the file as not parsed.
const HIDDEN: &str = "fixtures/parse_errors/hidden_missing.lean";

#[test]
fn parse_reports_a_hidden_missing_node() {
    let out = mf()
        .args(["parse", "--errors"])
        .arg(fixture(HIDDEN))
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("hidden_missing.lean: 5:7 unfinished do_block"),
        "{stdout}"
    );

    let out = mf()
        .args(["parse", "--stats", "--json"])
        .arg(fixture(HIDDEN))
        .output()
        .unwrap();
    let stats: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["files"], 1, "{stats}");
    assert_eq!(stats["clean_files"], 0, "{stats}");
    assert_eq!(stats["error_nodes"], 1, "{stats}");
}

#[test]
fn lint_reports_a_hidden_missing_node() {
    let out = mf()
        .args(["lint", "--format", "json"])
        .arg(fixture(HIDDEN))
        .output()
        .unwrap();
    let findings = json_lines(&out.stdout);
    let parse_errors: Vec<&Value> = findings
        .iter()
        .filter(|f| f["rule"] == "parse-error")
        .collect();
    assert_eq!(parse_errors.len(), 1, "{findings:?}");
    assert_eq!(parse_errors[0]["line"], 5);
    assert_eq!(parse_errors[0]["column"], 7);
}

#[test]
fn verify_fails_a_file_whose_only_error_is_hidden() {
    // the fake lake of tests/verify.rs: Lean itself has nothing to say
    let bin = fixture("fixtures/verify/bin");
    let mut path = OsString::from(bin);
    if let Some(rest) = std::env::var_os("PATH") {
        path.push(":");
        path.push(rest);
    }
    let out = mf()
        .arg("verify")
        .arg("--json")
        .arg(fixture(HIDDEN))
        .env("PATH", path)
        .env("FAKE_LEAN", "clean")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["verdict"], "fail", "{report}");
    let reasons = report["reasons"].as_array().unwrap();
    assert!(
        reasons
            .iter()
            .any(|r| r["check"] == "parse-error" && r["line"] == 5 && r["column"] == 7),
        "{report}"
    );
}

#[test]
fn outline_marks_the_declaration_that_holds_a_hidden_missing_node() {
    let out = mf()
        .args(["outline", "--json"])
        .arg(fixture(HIDDEN))
        .output()
        .unwrap();
    let outline: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outline["error_nodes"], 1, "{outline}");
    let declarations = outline["declarations"].as_array().unwrap();
    let by_name = |n: &str| declarations.iter().find(|d| d["name"] == n).unwrap();
    assert_eq!(by_name("shout")["parse_error"], true);
    assert!(by_name("fine").get("parse_error").is_none());
}

/// Declarations that the parser kept as `declaration` nodes inside an ERROR node still count
/// as lost: the commands around them did not parse.
#[test]
fn declarations_nested_in_an_error_node_are_lost() {
    let stats = parse_stats(&fixture("fixtures/parse_errors/declarations_in_error.lean"));
    assert_eq!(stats["clean_files"], 0, "{stats}");
    assert_eq!(stats["declarations_lost_to_errors"], 3, "{stats}");
    assert_eq!(stats["declarations_in_unclean_files"], 4, "{stats}");
}

/// A line at column 0 that closed the tactic block cannot continue the `calc` step in it
/// (Lean: "unexpected token '≤'; expected command"): the error is reported in that
/// declaration only; the calc continued right of column 0 and the next theorem are clean.
#[test]
fn a_column_0_line_does_not_continue_a_calc_step() {
    let path = fixture("fixtures/parse_errors/calc_column_0.lean");
    let stdout = mf_stdout(&["parse", "--errors"], &path);
    assert!(
        stdout.contains("calc_column_0.lean: 13:9 syntax error"),
        "{stdout}"
    );
    assert!(stdout.contains("15:1 syntax error"), "{stdout}");

    let out = mf()
        .args(["outline", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    let outline: Value = serde_json::from_slice(&out.stdout).unwrap();
    let declarations = outline["declarations"].as_array().unwrap();
    let by_name = |n: &str| declarations.iter().find(|d| d["name"] == n).unwrap();
    assert_eq!(by_name("at_column_0")["parse_error"], true);
    assert!(by_name("continued").get("parse_error").is_none());
    assert!(by_name("after").get("parse_error").is_none());

    let stats = parse_stats(&path);
    assert_eq!(stats["clean_files"], 0, "{stats}");
    assert_eq!(stats["declarations_lost_to_errors"], 0, "{stats}");
}

/// The declarations of a fixture as (name, whether `mf outline` marks a parse error in it).
fn outline_marks(path: &Path) -> Vec<(String, bool)> {
    let out = mf().args(["outline", "--json"]).arg(path).output().unwrap();
    let outline: Value = serde_json::from_slice(&out.stdout).unwrap();
    outline["declarations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let name = d["name"].as_str().unwrap_or_default().to_string();
            (name, d.get("parse_error") == Some(&Value::Bool(true)))
        })
        .collect()
}

/// Rules of Lean's syntax that permissive terms would miss, one fixture each: Lean rejects
/// exactly the declarations named `rejected_*`, and only those hold a parse error (the
/// error costs its command, not its neighbours).
#[test]
fn lean_syntax_rules_mark_only_the_declarations_lean_rejects() {
    for name in [
        // `e |>.f a ≤ b`: `pipeProj` is at `minPrec`, no binary operator takes it
        "pipe_projection",
        // `calc a ≤ b := h` then a more indented `_ = c := h'`: an argument of `h`
        "calc_first_step_argument",
    ] {
        let path = fixture(&format!("fixtures/parse_errors/{name}.lean"));
        let marks = outline_marks(&path);
        assert!(
            marks.iter().any(|(n, _)| n.starts_with("rejected_")),
            "{name}: {marks:?}"
        );
        assert!(
            marks.iter().any(|(n, _)| !n.starts_with("rejected_")),
            "{name}: {marks:?}"
        );
        for (declaration, marked) in &marks {
            assert_eq!(
                *marked,
                declaration.starts_with("rejected_"),
                "{name}: {declaration} ({marks:?})"
            );
        }
        let stats = parse_stats(&path);
        assert_eq!(stats["clean_files"], 0, "{name}: {stats}");
    }
}

/// A tactic after a declaration's `where` definitions is where Lean expects the next command
/// ("unexpected token 'exact'; expected command"): the error comes after the declaration that
/// holds the `where` and before the next one; `where` after a proof at the tactics' column is
/// fine.
#[test]
fn a_tactic_after_where_definitions_is_an_error() {
    let path = fixture("fixtures/parse_errors/where_in_tactic_block.lean");
    let stdout = mf_stdout(&["parse", "--errors"], &path);
    assert!(
        stdout.contains("where_in_tactic_block.lean: 9:"),
        "{stdout}"
    );
    let marks = outline_marks(&path);
    for fine in ["local_definition", "after"] {
        assert!(
            marks.contains(&(fine.to_string(), false)),
            "{fine}: {marks:?}"
        );
    }
}

/// A doc comment that nothing takes (here `end` follows it, past other comments) is an error
/// in its own place; the doc comments of a theorem, of an attributed theorem and of
/// `#guard_msgs` are not.
#[test]
fn a_doc_comment_that_no_declaration_follows_is_an_error() {
    let path = fixture("fixtures/parse_errors/orphan_doc_comment.lean");
    let stdout = mf_stdout(&["parse", "--errors"], &path);
    assert_eq!(
        stdout.trim_end(),
        format!(
            "{}: 12:1 doc comment that no declaration follows (a doc comment belongs to one)",
            path.display()
        ),
        "{stdout}"
    );
    let marks = outline_marks(&path);
    assert_eq!(
        marks,
        vec![
            ("documented".to_string(), false),
            ("attributed".to_string(), false)
        ]
    );
}
