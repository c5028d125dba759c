//! `mf outline`: expected outlines of hand-written fixtures, checked field by field.

use std::path::Path;

use assert_cmd::Command;
use serde_json::Value;

fn mf() -> Command {
    Command::cargo_bin("mf").unwrap()
}

/// Every key present in `expected` must be equal in `actual`; arrays must match in length; an
/// empty object (`"tactics": {}`) means empty, not "anything".
fn assert_subset(expected: &Value, actual: &Value, at: &str) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) if e.is_empty() => {
            assert!(a.is_empty(), "{at}: expected {{}}, got {actual}");
        }
        (Value::Object(e), Value::Object(a)) => {
            for (key, value) in e {
                let got = a
                    .get(key)
                    .unwrap_or_else(|| panic!("{at}.{key}: missing in {actual}"));
                assert_subset(value, got, &format!("{at}.{key}"));
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            assert_eq!(e.len(), a.len(), "{at}: expected {expected}\n got {actual}");
            for (i, (e, a)) in e.iter().zip(a).enumerate() {
                assert_subset(e, a, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(expected, actual, "{at}"),
    }
}

fn outline_json(path: &Path) -> Value {
    let out = mf()
        .arg("outline")
        .arg("--json")
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut lines = stdout.lines();
    let value: Value = serde_json::from_str(lines.next().expect("one line")).unwrap();
    assert_eq!(lines.next(), None, "one JSON object per file");
    value
}

fn check_fixture(name: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lean");
    let expected: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(format!("{name}.expected.json"))).unwrap(),
    )
    .unwrap();
    let actual = outline_json(&dir.join(format!("{name}.lean")));
    assert_eq!(actual["error_nodes"], 0, "{name}.lean must parse cleanly");
    assert_subset(&expected, &actual, name);
}

#[test]
fn sorries_are_counted_only_where_they_are_code() {
    check_fixture("sorry_tricky");
}

#[test]
fn modifiers_attributes_namespaces_and_kinds() {
    check_fixture("modifiers");
}

/// Statements without their comments, autoParams and grouping brackets that are not proof
/// tactics, declarations ending at their last code line (trailing hints and bare `--` lines).
#[test]
fn statements_tactics_and_ranges_are_code_only() {
    check_fixture("statements_and_ranges");
}

/// Written in Mathlib's style, not taken from the corpus the grammar was tuned on.
#[test]
fn mathlib_style_code_the_grammar_was_not_tuned_on() {
    check_fixture("mathlib_style");
}

/// Lean core style: `prelude`, equations, `termination_by`, `do`, `mutual`, macros.
#[test]
fn lean_core_style_code_the_grammar_was_not_tuned_on() {
    check_fixture("lean_core_style");
}

/// CRLF line endings change nothing in the outline.
#[test]
fn crlf_files_have_the_same_outline() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lean");
    let tmp = tempfile::TempDir::new().unwrap();
    let text = std::fs::read_to_string(dir.join("sorry_tricky.lean")).unwrap();
    let crlf = tmp.path().join("sorry_tricky.lean");
    std::fs::write(&crlf, text.replace('\n', "\r\n")).unwrap();
    let mut lf = outline_json(&dir.join("sorry_tricky.lean"));
    let mut cr = outline_json(&crlf);
    assert_eq!(cr["error_nodes"], 0);
    for v in [&mut lf, &mut cr] {
        v.as_object_mut().unwrap().remove("path");
    }
    assert_eq!(lf, cr);
}

/// A project's own commands shaped like declarations (compfiles' `problem`/`determine`, a
/// `where`-bodied extension, alternatives after `:`) are declarations whose kind is their
/// word, marked `user_command`; other user commands (`problem_file …`, `snip begin`, a word
/// followed by no name) are not, and a lemma between them keeps its namespace.
#[test]
fn declaration_shaped_user_commands_are_declarations() {
    check_fixture("user_commands");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lean");
    let actual = outline_json(&dir.join("user_commands.lean"));
    for d in actual["declarations"].as_array().unwrap() {
        let lean_keyword = matches!(d["kind"].as_str(), Some("lemma" | "theorem" | "def"));
        assert_eq!(
            d.get("user_command").is_some(),
            !lean_keyword,
            "user_command is serialized exactly for a project's own commands: {d}"
        );
    }
}
