//! `mf lint --format sarif` as GitHub code scanning takes it: the SARIF multitool's validator
//! (SARIF and GitHub rules) finds no error, and fingerprints survive unrelated edits. Also
//! `--exit-zero` and the github format's job summary.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;
use serde_json::Value;
use tempfile::TempDir;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `mf lint` in `dir`, with no tracking.db or job summary from the environment.
fn lint(dir: &Path) -> Command {
    let mut cmd = Command::cargo_bin("mf").unwrap();
    cmd.arg("lint")
        .current_dir(dir)
        .env_remove("MATH_FORGE_TRACKING_DB")
        .env_remove("GITHUB_STEP_SUMMARY");
    cmd
}

fn sarif(dir: &Path, args: &[&str]) -> Value {
    let out = lint(dir)
        .args(["--format", "sarif"])
        .args(args)
        .output()
        .unwrap();
    assert!(
        matches!(out.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The multitool's native binary: `$MF_SARIF_MULTITOOL`, else the one the npm package
/// `@microsoft/sarif-multitool` installed globally resolves to. (Its `sarif-multitool`
/// wrapper runs through a shell, which would split `Sarif;Gh` at the semicolon.)
fn multitool() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("MF_SARIF_MULTITOOL") {
        return Some(path.into());
    }
    // npm logs every run under its cache folder (~/.npm/_logs): a scratch one keeps the
    // home untouched.
    let cache = TempDir::new().ok()?;
    let npm_root = Process::new("npm")
        .args(["root", "-g"])
        .env("npm_config_cache", cache.path())
        .output()
        .ok()?;
    let package = Path::new(String::from_utf8(npm_root.stdout).ok()?.trim())
        .join("@microsoft/sarif-multitool");
    let resolved = Process::new("node")
        .args(["-e", "process.stdout.write(require(process.argv[1]))"])
        .arg(&package)
        .output()
        .ok()?;
    let path = PathBuf::from(String::from_utf8(resolved.stdout).ok()?);
    (resolved.status.success() && path.is_file()).then_some(path)
}

/// The validator's error lines for `log` (it exits 0 whatever it finds, so its report is
/// read), or `None` when the multitool is not installed and not required.
fn validator_errors(log: &Value) -> Option<Vec<String>> {
    let Some(tool) = multitool() else {
        assert!(
            std::env::var_os("MF_REQUIRE_SARIF_MULTITOOL").is_none(),
            "MF_REQUIRE_SARIF_MULTITOOL is set but @microsoft/sarif-multitool is not installed"
        );
        common::say_skipped(&format!(
            "SKIPPED {}: the SARIF multitool is not installed \
             (npm install -g @microsoft/sarif-multitool, or set MF_SARIF_MULTITOOL)",
            common::test_name()
        ));
        return None;
    };
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("lint.sarif");
    fs::write(&file, serde_json::to_vec_pretty(log).unwrap()).unwrap();
    let out = Process::new(&tool)
        .args(["validate", "--rule-kind", "Sarif;Gh"])
        .arg(&file)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success() && report.contains("Analysis completed successfully"),
        "the validator failed: {report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        report
            .lines()
            .filter(|l| l.contains(": error "))
            .map(str::to_string)
            .collect(),
    )
}

#[test]
fn fixtures_sarif_validates_with_zero_errors() {
    let log = sarif(root(), &["fixtures/lint"]);
    assert!(log["runs"][0]["results"].as_array().unwrap().len() > 10);
    if let Some(errors) = validator_errors(&log) {
        assert_eq!(errors, Vec::<String>::new());
    }
}

#[test]
fn paths_outside_the_root_are_file_uris_and_validate() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("a b.lean");
    fs::write(&file, "theorem t : True := by\n  sorry\n").unwrap();
    let log = sarif(
        &root().join("fixtures"),
        &[file.to_str().unwrap(), "lint/allow.lean"],
    );
    let run = &log["runs"][0];
    let root_uri = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(root_uri.starts_with("file:///") && root_uri.ends_with("/fixtures/"));
    let locations: Vec<&Value> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["locations"][0]["physicalLocation"]["artifactLocation"])
        .collect();
    let outside = locations
        .iter()
        .find(|l| l["uri"].as_str().unwrap().ends_with("/a%20b.lean"))
        .unwrap();
    assert!(outside["uri"].as_str().unwrap().starts_with("file:///"));
    assert!(outside.get("uriBaseId").is_none());
    assert!(locations
        .iter()
        .any(|l| l["uri"] == "lint/allow.lean" && l["uriBaseId"] == "%SRCROOT%"));
    if let Some(errors) = validator_errors(&log) {
        assert_eq!(errors, Vec::<String>::new());
    }
}

#[test]
fn the_validator_reports_what_github_rejects() {
    // The harness itself: a rule without fullDescription/help must come back as errors.
    let log = serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "x", "version": "1", "informationUri": "https://example.com",
                "rules": [{"id": "r", "shortDescription": {"text": "r"}}]}},
            "results": [{"ruleId": "r", "ruleIndex": 0, "message": {"text": "m"},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": "/abs/a.lean"},
                    "region": {"startLine": 1}}}]}]
        }]
    });
    if let Some(errors) = validator_errors(&log) {
        assert!(errors.len() >= 2, "{errors:?}");
        assert!(
            errors.iter().any(|e| e.contains("fullDescription")),
            "{errors:?}"
        );
    }
}

/// (line, fingerprint) of each result, in order.
fn fingerprints(dir: &Path) -> Vec<(u64, String)> {
    let log = sarif(dir, &["a.lean"]);
    log["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["locations"][0]["physicalLocation"]["region"]["startLine"]
                    .as_u64()
                    .unwrap(),
                r["partialFingerprints"]["mfLintFingerprint/v1"]
                    .as_str()
                    .unwrap()
                    .to_string(),
            )
        })
        .collect()
}

#[test]
fn fingerprints_survive_an_edit_above_the_finding() {
    let dir = TempDir::new().unwrap();
    let body = "theorem a : 1 = 1 := by\n  sorry\n\ntheorem b : 2 = 2 := by\n  sorry\n";
    fs::write(dir.path().join("a.lean"), body).unwrap();
    let before = fingerprints(dir.path());
    assert_eq!(before.iter().map(|b| b.0).collect::<Vec<_>>(), [2, 5]);
    assert_ne!(
        before[0].1, before[1].1,
        "same line text, other declaration"
    );
    assert!(before[0].1.len() == 32 && before[0].1.bytes().all(|b| b.is_ascii_hexdigit()));

    let edited =
        format!("import Mathlib\n\n/-- a new lemma -/\ntheorem c : True := trivial\n\n{body}");
    fs::write(dir.path().join("a.lean"), edited).unwrap();
    let after = fingerprints(dir.path());
    assert_eq!(after.iter().map(|a| a.0).collect::<Vec<_>>(), [7, 10]);
    assert_eq!(
        before.iter().map(|b| &b.1).collect::<Vec<_>>(),
        after.iter().map(|a| &a.1).collect::<Vec<_>>()
    );

    // Two identical findings in one declaration still differ.
    fs::write(
        dir.path().join("a.lean"),
        "theorem a : 1 = 1 ∧ 2 = 2 := by\n  constructor\n  sorry\n  sorry\n",
    )
    .unwrap();
    let twins = fingerprints(dir.path());
    assert_eq!(twins.len(), 2);
    assert_ne!(twins[0].1, twins[1].1);
}

#[test]
fn exit_zero_reports_findings_and_exits_zero() {
    let dir = root().join("fixtures/lint");
    let out = lint(&dir)
        .args(["allow.lean", "--exit-zero"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("error[sorry]"));
    lint(&dir)
        .args(["missing.lean", "--exit-zero"])
        .assert()
        .code(2);
}

#[test]
fn github_format_appends_a_job_summary_when_asked() {
    let tmp = TempDir::new().unwrap();
    let summary = tmp.path().join("summary.md");
    fs::write(&summary, "earlier step\n").unwrap();
    lint(&root().join("fixtures/lint"))
        .args(["allow.lean", "--format", "github"])
        .env("GITHUB_STEP_SUMMARY", &summary)
        .assert()
        .code(1);
    assert_eq!(
        fs::read_to_string(&summary).unwrap(),
        "earlier step\n## mf lint\n\n2 errors, 1 warning in 1 file\n\n\
         | rule | severity | findings |\n|---|---|---:|\n\
         | `sorry` | error | 2 |\n| `debug-command` | warning | 1 |\n\n\
         | where | rule | message |\n|---|---|---|\n\
         | `allow.lean:12:3` | `sorry` | 'sorry' leaves a proof unfinished |\n\
         | `allow.lean:17:1` | `debug-command` | '#eval' is a debug command; remove it before committing |\n\
         | `allow.lean:20:24` | `sorry` | 'sorry' leaves a proof unfinished |\n"
    );
}
