//! SARIF 2.1.0 for GitHub code scanning: rules with descriptions, help and a link into the
//! README, results with fingerprints that survive unrelated edits, and paths relative to
//! `%SRCROOT%` (the directory `mf lint` ran in).

use std::path::{Component, Path, PathBuf};

use serde_json::{json, Value};

use super::{Finding, Rule, Severity};
use crate::lean::outline::{collapse_whitespace, Declaration};

/// The README the rules' `helpUri`s point into; each rule has a section `lint rule `NAME``.
pub const README_URL: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/README.md");

/// The key of [`fingerprint`] in a result's `partialFingerprints`.
pub const FINGERPRINT_KEY: &str = "mfLintFingerprint/v1";

/// A finding with its fingerprint, as the SARIF log reports it.
#[derive(Debug, Clone)]
pub struct SarifFinding {
    pub finding: Finding,
    pub fingerprint: String,
}

/// Fingerprints one file's findings (sorted as [`super::lint`] returns them). A fingerprint
/// hashes the rule, the full name of the declaration holding the finding, the offending line
/// with whitespace collapsed, and how many identical (rule, declaration, line) triples came
/// before it in the file — never a line number, so edits elsewhere leave it unchanged.
/// `line_text` gives a 1-based line's text; `declarations` are the file's, in file order.
pub fn fingerprint_file<'a>(
    findings: Vec<Finding>,
    declarations: &[Declaration],
    line_text: impl Fn(usize) -> Option<&'a str>,
) -> Vec<SarifFinding> {
    let mut seen: std::collections::HashMap<[u8; 32], usize> = Default::default();
    findings
        .into_iter()
        .map(|finding| {
            let declaration = enclosing(declarations, finding.line);
            let line = collapse_whitespace(line_text(finding.line).unwrap_or(""));
            let mut hasher = blake3::Hasher::new();
            for part in [finding.rule.name(), declaration, &line] {
                hasher.update(part.as_bytes());
                hasher.update(&[0]);
            }
            let key = *hasher.finalize().as_bytes();
            let occurrence = seen.entry(key).or_insert(0);
            hasher.update(occurrence.to_string().as_bytes());
            *occurrence += 1;
            let fingerprint = hasher.finalize().to_hex()[..32].to_string();
            SarifFinding {
                finding,
                fingerprint,
            }
        })
        .collect()
}

/// The full name of the last declaration starting at or before `line` that still spans it
/// (binary search over file order), or "" outside every declaration.
fn enclosing(declarations: &[Declaration], line: usize) -> &str {
    let after = declarations.partition_point(|d| d.line <= line);
    declarations[..after]
        .last()
        .filter(|d| d.end_line >= line)
        .map_or("", |d| d.full_name.as_str())
}

/// One SARIF log with one run; `root` is `%SRCROOT%` (absolute; usually the working
/// directory): paths under it are relative to it, others are `file://` URIs.
pub fn log(findings: &[SarifFinding], root: &Path) -> Value {
    let rules: Vec<Value> = Rule::ALL.iter().map(|&r| rule(r)).collect();
    let results: Vec<Value> = findings
        .iter()
        .map(
            |SarifFinding {
                 finding: f,
                 fingerprint,
             }| {
                let index = Rule::ALL.iter().position(|r| *r == f.rule).unwrap_or(0);
                json!({
                    "ruleId": f.rule.name(),
                    "ruleIndex": index,
                    "level": level(f.severity),
                    "message": { "text": f.message },
                    "locations": [{
                        "physicalLocation": {
                            "artifactLocation": artifact_location(&f.path, root),
                            "region": {
                                "startLine": f.line,
                                "startColumn": f.column,
                                "endLine": f.end_line,
                                "endColumn": f.end_column,
                            }
                        }
                    }],
                    "partialFingerprints": { FINGERPRINT_KEY: fingerprint },
                })
            },
        )
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "mf lint",
                    "informationUri": README_URL,
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "originalUriBaseIds": {
                "%SRCROOT%": { "uri": directory_uri(root) }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

fn rule(r: Rule) -> Value {
    let help_uri = format!("{README_URL}#lint-rule-{}", r.name());
    let help = format!("{}\n\nFix: {}\n\nSee {help_uri}", r.explanation(), r.fix());
    let markdown = format!(
        "{}\n\n**Fix:** {}\n\n[mf lint rule `{}`]({help_uri})",
        r.explanation(),
        r.fix(),
        r.name()
    );
    json!({
        "id": r.name(),
        "shortDescription": { "text": r.description() },
        "fullDescription": { "text": r.explanation() },
        "help": { "text": help, "markdown": markdown },
        "helpUri": help_uri,
        "defaultConfiguration": { "level": level(r.default_severity()) },
    })
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// `{uri, uriBaseId: %SRCROOT%}` for a path under `root`, else `{uri: file:///…}`.
fn artifact_location(path: &str, root: &Path) -> Value {
    let absolute = normalize(&root.join(path));
    match absolute.strip_prefix(root) {
        Ok(relative) => json!({
            "uri": percent_encode(&relative.to_string_lossy()),
            "uriBaseId": "%SRCROOT%",
        }),
        Err(_) => json!({ "uri": file_uri(&absolute) }),
    }
}

/// Removes `.` and folds `..` without touching the file system (the file may be gone).
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn directory_uri(dir: &Path) -> String {
    let mut uri = file_uri(&normalize(dir));
    if !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

/// `file:///abs/path`, percent-encoded (a Windows drive gets its own leading slash).
fn file_uri(path: &Path) -> String {
    let encoded = percent_encode(&path.to_string_lossy());
    if encoded.starts_with('/') {
        format!("file://{encoded}")
    } else {
        format!("file:///{encoded}")
    }
}

/// Forward slashes, everything but unreserved characters and `/` percent-encoded (`:` kept
/// for a Windows drive letter).
pub fn percent_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.replace('\\', "/").bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_under_root_are_relative_and_others_file_uris() {
        let root = Path::new("/repo");
        assert_eq!(
            artifact_location("dir/a b#1.lean", root),
            json!({"uri": "dir/a%20b%231.lean", "uriBaseId": "%SRCROOT%"})
        );
        assert_eq!(
            artifact_location("./x/../é.lean", root),
            json!({"uri": "%C3%A9.lean", "uriBaseId": "%SRCROOT%"})
        );
        assert_eq!(
            artifact_location("/elsewhere/a.lean", root),
            json!({"uri": "file:///elsewhere/a.lean"})
        );
        assert_eq!(
            artifact_location("../b.lean", root),
            json!({"uri": "file:///b.lean"})
        );
        assert_eq!(directory_uri(root), "file:///repo/");
    }

    #[test]
    fn every_rule_links_into_the_readme() {
        for r in Rule::ALL {
            let v = rule(r);
            assert_eq!(
                v["helpUri"],
                format!("{README_URL}#lint-rule-{}", r.name()),
                "{r}"
            );
            assert!(!v["fullDescription"]["text"].as_str().unwrap().is_empty());
            assert!(v["help"]["markdown"].as_str().unwrap().contains("**Fix:**"));
        }
    }
}
