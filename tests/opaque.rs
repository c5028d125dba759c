//! Text the grammar reads as one token but Lean elaborates as code (HTML in a term, Verso's
//! Lean code blocks and roles, a metaprogram's code and its quotations' antiquotations) is
//! scanned lexically for escape words: lint reports them, verify fails, the outline and
//! `mf sorries` count the holes, and the edit gate blocks an edit that adds one. A `sorry` in
//! a syntax quotation is syntax data, not a hole of the file (see `src/lean/opaque.rs`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use math_forge::hook::baseline::{Baseline, Origin};
use math_forge::hook::decide::decide;
use serde_json::Value;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/opaque")
        .join(name)
}

fn mf() -> Command {
    let mut cmd = Command::cargo_bin("mf").unwrap();
    cmd.env("MATH_FORGE_TRACKING_DB", "/nonexistent/tracking.db");
    cmd
}

/// `(rule, line, column, message)` of each lint finding.
fn lint(name: &str) -> Vec<(String, u64, u64, String)> {
    let out = mf()
        .args(["lint", "--format", "json"])
        .arg(fixture(name))
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v.get("summary").is_none())
        .map(|v| {
            (
                v["rule"].as_str().unwrap().to_string(),
                v["line"].as_u64().unwrap(),
                v["column"].as_u64().unwrap(),
                v["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn outline(name: &str) -> Value {
    let out = mf()
        .args(["outline", "--json"])
        .arg(fixture(name))
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `(line, column, declaration, lexical)` of each hole of the outline.
fn holes(outline: &Value) -> Vec<(u64, u64, Option<String>, bool)> {
    outline["sorries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["line"].as_u64().unwrap(),
                s["column"].as_u64().unwrap(),
                s["declaration"].as_str().map(str::to_string),
                s["lexical"] == true,
            )
        })
        .collect()
}

fn sorry_count(outline: &Value, name: &str) -> u64 {
    outline["declarations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == name)
        .unwrap_or_else(|| panic!("no declaration {name}: {outline}"))["sorry_count"]
        .as_u64()
        .unwrap()
}

#[test]
fn a_sorry_in_html_is_a_hole_and_the_page_text_is_not() {
    let findings = lint("html.lean");
    assert_eq!(findings.len(), 1, "{findings:?}");
    let (rule, line, column, message) = &findings[0];
    assert_eq!((rule.as_str(), *line, *column), ("sorry", 9, 9));
    assert!(
        message.contains("HTML") && message.contains("lexically"),
        "{message}"
    );

    let o = outline("html.lean");
    assert_eq!(holes(&o), vec![(9, 9, Some("panel".into()), true)]);
    assert_eq!(sorry_count(&o, "panel"), 1);
    assert_eq!(sorry_count(&o, "clean"), 0);
    assert_eq!(o["error_nodes"], 0);
}

#[test]
fn a_sorry_in_a_verso_lean_block_or_role_is_a_hole() {
    let findings = lint("verso.lean");
    let at: Vec<(u64, u64)> = findings.iter().map(|f| (f.1, f.2)).collect();
    // the role on line 7 and the `lean` block on line 11; not the prose, the `leanOutput`
    // block (Lean's messages) or the anonymous block
    assert_eq!(at, vec![(7, 53), (11, 3)], "{findings:?}");
    assert!(findings
        .iter()
        .all(|f| f.0 == "sorry" && f.3.contains("Verso")));
    let o = outline("verso.lean");
    assert_eq!(
        holes(&o),
        vec![(7, 53, None, true), (11, 3, None, true)],
        "{o}"
    );
}

#[test]
fn a_sorry_quoted_is_syntax_data_but_antiquotations_and_metaprograms_are_code() {
    let findings = lint("quotation.lean");
    let at: Vec<(&str, u64, u64)> = findings.iter().map(|f| (f.0.as_str(), f.1, f.2)).collect();
    // `(tactic| sorry)`, `(sorryAx _ true)` and `(sorry)` inside an antiquotation are data;
    // the `sorry` in the elaborator's own code and the one in `$(sorry)` are holes
    assert_eq!(
        at,
        vec![("sorry", 15, 18), ("sorry", 18, 49)],
        "{findings:?}"
    );
    assert!(findings.iter().all(|f| f.3.contains("metaprogram")));
    let o = outline("quotation.lean");
    assert_eq!(
        holes(&o),
        vec![(15, 18, None, true), (18, 49, Some("build".into()), true)]
    );
    assert_eq!(sorry_count(&o, "fallback"), 0);
    assert_eq!(sorry_count(&o, "build"), 1);
}

#[test]
fn verify_fails_a_file_whose_only_hole_is_in_html() {
    // the fake lake of tests/verify.rs: Lean itself has nothing to say
    let bin = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/verify/bin");
    let mut path = OsString::from(bin);
    if let Some(rest) = std::env::var_os("PATH") {
        path.push(":");
        path.push(rest);
    }
    for name in ["html.lean", "verso.lean"] {
        let out = mf()
            .arg("verify")
            .arg("--json")
            .arg(fixture(name))
            .env("PATH", &path)
            .env("FAKE_LEAN", "clean")
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["verdict"], "fail", "{name}: {report}");
        assert_eq!(out.status.code(), Some(1));
        assert!(
            report["reasons"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["check"] == "sorry"),
            "{name}: {report}"
        );
    }
}

#[test]
fn the_edit_gate_blocks_a_hole_added_to_opaque_code() {
    let gate = |before: &str, after: &str| {
        let baseline = Baseline::Known {
            texts: vec![before.to_string()],
            origin: Origin::ToolResponse,
        };
        decide("f.lean", after, &baseline, &[])
    };
    // HTML in a definition's value: the definition had no hole and now has one
    let html = std::fs::read_to_string(fixture("html.lean")).unwrap();
    let before = html.replace("<i>{sorry}</i>", "<i>{.text \"done\"}</i>");
    let d = gate(&before, &html);
    assert!(!d.blocks.is_empty(), "{d:?}");
    assert!(gate(&html, &html).blocks.is_empty());

    // a Verso code block, outside any declaration
    let verso = std::fs::read_to_string(fixture("verso.lean")).unwrap();
    let before = verso.replace("  sorry\n```", "  rfl\n```");
    let d = gate(&before, &verso);
    assert_eq!(d.blocks.len(), 1, "{d:?}");
    assert!(
        d.blocks[0].contains("line 11") && d.blocks[0].contains("Verso"),
        "{d:?}"
    );
    // a `sorry` added inside a quotation is syntax data: nothing to block
    let quoted = "macro \"give_up\" : tactic => `(tactic| sorry)\n";
    let d = gate("macro \"give_up\" : tactic => `(tactic| rfl)\n", quoted);
    assert!(d.blocks.is_empty(), "{d:?}");
}
