//! `mf lint`: every rule on hand-written fixtures, every format, configuration and exit codes.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{json, Value};
use tempfile::TempDir;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/lint")
}

/// `mf lint` run inside fixtures/lint (so paths print as given) with no tracking.db around.
fn lint() -> Command {
    let mut cmd = Command::cargo_bin("mf").unwrap();
    cmd.arg("lint")
        .current_dir(fixtures())
        .env_remove("MATH_FORGE_TRACKING_DB")
        .env_remove("GITHUB_STEP_SUMMARY");
    cmd
}

/// A tracking.db in `dir` whose false_lemmas table lists `names`.
fn tracking_db(dir: &Path, names: &[&str]) -> PathBuf {
    let path = dir.join("tracking.db");
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "CREATE TABLE false_lemmas (id INTEGER PRIMARY KEY, lemma_name TEXT, \
         false_statement TEXT, why_false TEXT);",
    )
    .unwrap();
    for name in names {
        conn.execute(
            "INSERT INTO false_lemmas (lemma_name, why_false) VALUES (?1, 'counterexample')",
            [name],
        )
        .unwrap();
    }
    path
}

/// Runs with `--format json`; returns the findings and the exit code.
fn findings(cmd: &mut Command) -> (Vec<Value>, i32) {
    let out = cmd.args(["--format", "json"]).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut lines: Vec<Value> = stdout
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| {
            panic!(
                "not JSON Lines ({e}):\n{stdout}\nstderr: {}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let summary = lines.pop().expect("a summary line");
    assert!(summary["summary"]["files"].is_u64(), "{summary}");
    (lines, out.status.code().unwrap())
}

/// `(rule, line, column, end_line, end_column)` of each finding.
fn places(findings: &[Value]) -> Vec<(String, u64, u64, u64, u64)> {
    findings
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
                f["end_line"].as_u64().unwrap(),
                f["end_column"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn place(
    rule: &str,
    line: u64,
    column: u64,
    end_line: u64,
    end_column: u64,
) -> (String, u64, u64, u64, u64) {
    (rule.to_string(), line, column, end_line, end_column)
}

#[test]
fn every_rule_fires_where_it_should_and_nowhere_else() {
    let dir = TempDir::new().unwrap();
    let db = tracking_db(dir.path(), &["false_lemma"]);
    let (found, code) = findings(lint().arg("rules.lean").arg("--tracking").arg(&db));
    assert_eq!(code, 1);
    assert_eq!(
        places(&found),
        [
            place("sorry", 16, 3, 16, 8),
            place("admit", 19, 3, 19, 8),
            place("axiom", 21, 1, 21, 18),
            place("native-decide", 24, 3, 24, 16),
            place("duplicate-declaration", 26, 9, 26, 14),
            place("duplicate-declaration", 30, 9, 30, 23),
            place("max-heartbeats-zero", 32, 1, 32, 27),
            place("debug-command", 38, 1, 38, 6),
            place("debug-command", 39, 1, 39, 7),
            place("debug-command", 40, 1, 40, 7),
            place("debug-command", 41, 1, 41, 8),
            place("implemented-by", 43, 3, 43, 25),
            place("implemented-by", 46, 3, 46, 23),
            place("false-lemma-reference", 52, 11, 52, 22),
            place("false-lemma-reference", 53, 11, 53, 30),
            place("skip-kernel-tc", 61, 1, 61, 35),
        ]
    );
    let expected: Value =
        serde_json::from_str(&fs::read_to_string(fixtures().join("rules.expected.json")).unwrap())
            .unwrap();
    assert_eq!(Value::Array(found), expected);
}

#[test]
fn text_in_comments_and_strings_is_never_a_finding() {
    let dir = TempDir::new().unwrap();
    let db = tracking_db(dir.path(), &["sorry", "fine", "words"]);
    let (found, code) = findings(lint().arg("clean.lean").arg("--tracking").arg(&db));
    assert_eq!(found, Vec::<Value>::new());
    assert_eq!(code, 0);
    lint()
        .arg("clean.lean")
        .assert()
        .code(0)
        .stdout("mf lint: 0 errors, 0 warnings in 1 file\n");
}

#[test]
fn allow_comments_silence_the_next_line_only() {
    let (found, code) = findings(lint().arg("allow.lean"));
    assert_eq!(
        places(&found),
        [
            place("sorry", 12, 3, 12, 8),
            place("debug-command", 17, 1, 17, 6),
            place("sorry", 20, 24, 20, 29),
        ]
    );
    assert_eq!(code, 1);
}

#[test]
fn human_format_is_rustc_style_with_a_caret() {
    let dir = TempDir::new().unwrap();
    fs::write(
        dir.path().join("a.lean"),
        "theorem t : True := by\n  native_decide\n\ntheorem u (n : ℕ) : n = n := by sorry\n",
    )
    .unwrap();
    let mut cmd = Command::cargo_bin("mf").unwrap();
    cmd.arg("lint")
        .arg("a.lean")
        .current_dir(dir.path())
        .env_remove("MATH_FORGE_TRACKING_DB")
        .assert()
        .code(1)
        .stdout(
            "warning[native-decide]: `native_decide` trusts the compiler through the axiom `Lean.ofReduceBool`; prefer `decide`\n \
             --> a.lean:2:3\n  |\n2 |   native_decide\n  |   ^^^^^^^^^^^^^\n\n\
             error[sorry]: `sorry` leaves a proof unfinished\n \
             --> a.lean:4:33\n  |\n4 | theorem u (n : ℕ) : n = n := by sorry\n  |                                 ^^^^^\n\n\
             mf lint: 1 error, 1 warning in 1 file\n",
        );
}

#[test]
fn github_format_is_one_workflow_command_per_finding() {
    lint()
        .args(["allow.lean", "--format", "github"])
        .assert()
        .code(1)
        .stdout(
            "::error file=allow.lean,line=12,col=3,endLine=12,endColumn=8,title=mf lint (sorry)::`sorry` leaves a proof unfinished\n\
             ::warning file=allow.lean,line=17,col=1,endLine=17,endColumn=6,title=mf lint (debug-command)::`#eval` is a debug command; remove it before committing\n\
             ::error file=allow.lean,line=20,col=24,endLine=20,endColumn=29,title=mf lint (sorry)::`sorry` leaves a proof unfinished\n",
        );
}

#[test]
fn sarif_format_is_a_valid_log() {
    let out = lint()
        .args(["allow.lean", "--format", "sarif"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let log: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(log["version"], "2.1.0");
    assert_eq!(
        log["$schema"],
        "https://json.schemastore.org/sarif-2.1.0.json"
    );
    let run = &log["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "mf lint");
    assert_eq!(run["columnKind"], "unicodeCodePoints");
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    for result in results {
        let index = result["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], result["ruleId"]);
    }
    let mut result = results[1].clone();
    let fingerprint = result
        .as_object_mut()
        .unwrap()
        .remove("partialFingerprints")
        .unwrap();
    assert_eq!(
        fingerprint["mfLintFingerprint/v1"].as_str().unwrap().len(),
        32
    );
    assert_eq!(
        result,
        json!({
            "ruleId": "debug-command",
            "ruleIndex": 7,
            "level": "warning",
            "message": {"text": "`#eval` is a debug command; remove it before committing"},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": "allow.lean", "uriBaseId": "%SRCROOT%"},
                "region": {"startLine": 17, "startColumn": 1, "endLine": 17, "endColumn": 6}
            }}]
        })
    );
}

#[test]
fn allow_and_deny_flags_configure_rules() {
    let (found, code) = findings(lint().args(["allow.lean", "--allow", "sorry"]));
    assert_eq!(places(&found), [place("debug-command", 17, 1, 17, 6)]);
    assert_eq!(code, 0, "warnings alone pass");

    let (found, code) =
        findings(lint().args(["allow.lean", "--allow", "sorry", "--deny", "debug-command"]));
    assert_eq!(found[0]["severity"], "error");
    assert_eq!(code, 1);

    let (found, _) = findings(lint().args(["rules.lean", "--allow", "sorry,admit,axiom"]));
    let rules: Vec<&str> = found.iter().map(|f| f["rule"].as_str().unwrap()).collect();
    assert!(!rules.contains(&"sorry") && !rules.contains(&"admit") && !rules.contains(&"axiom"));
    assert!(rules.contains(&"native-decide"));
}

#[test]
fn unknown_rules_and_contradictions_are_usage_errors() {
    lint()
        .args(["allow.lean", "--allow", "sory"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("unknown rule `sory`"));
    lint()
        .args(["allow.lean", "--allow", "sorry", "--deny", "sorry"])
        .assert()
        .code(2)
        .stdout("")
        .stderr("mf: error: rule `sorry` is both allowed and denied\n");
    lint().assert().code(2);
}

#[test]
fn a_missing_path_is_an_error_not_a_pass() {
    lint()
        .args(["clean.lean", "nope.lean"])
        .assert()
        .code(2)
        .stderr("mf: nope.lean: no such file or directory\n");
}

#[test]
fn binary_files_are_skipped_under_a_directory_and_errors_when_named_or_strict() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("bin.lean"), b"\x1f\x8b\x08\x00").unwrap();
    fs::write(dir.path().join("ok.lean"), "theorem t : True := trivial\n").unwrap();
    let lint = |args: &[&str]| {
        let mut cmd = Command::cargo_bin("mf").unwrap();
        cmd.arg("lint")
            .args(args)
            .env_remove("MATH_FORGE_TRACKING_DB")
            .current_dir(dir.path());
        cmd
    };
    lint(&["."])
        .assert()
        .code(0)
        .stderr(predicate::str::contains(
            "mf: warning: ./bin.lean: binary file",
        ))
        .stderr(predicate::str::contains(
            "mf: 1 file skipped (not Lean text)",
        ));
    lint(&["--strict", "."])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("mf: ./bin.lean: binary file"));
    lint(&["bin.lean"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("mf: bin.lean: binary file"));
}

#[test]
fn directories_are_walked_honouring_gitignore() {
    let dir = TempDir::new().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("src/sub")).unwrap();
    fs::create_dir_all(root.join(".lake/packages")).unwrap();
    fs::create_dir_all(root.join("build")).unwrap();
    fs::write(root.join(".gitignore"), "build/\nscratch.lean\n").unwrap();
    let holey = "theorem t : True := by sorry\n";
    fs::write(root.join("src/a.lean"), holey).unwrap();
    fs::write(root.join("src/sub/b.lean"), holey).unwrap();
    fs::write(root.join("src/notes.txt"), holey).unwrap();
    fs::write(root.join("scratch.lean"), holey).unwrap();
    fs::write(root.join("build/c.lean"), holey).unwrap();
    fs::write(root.join(".lake/packages/d.lean"), holey).unwrap();
    let mut cmd = Command::cargo_bin("mf").unwrap();
    cmd.arg("lint")
        .arg(".")
        .current_dir(root)
        .env_remove("MATH_FORGE_TRACKING_DB");
    let (found, code) = findings(&mut cmd);
    let paths: Vec<&str> = found.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["./src/a.lean", "./src/sub/b.lean"]);
    assert_eq!(code, 1);
}

#[test]
fn false_lemmas_come_from_the_environment_or_the_default_path() {
    let dir = TempDir::new().unwrap();
    fs::write(
        dir.path().join("a.lean"),
        "theorem t : True := by\n  have := Foo.bad_lemma 1\n  trivial\n",
    )
    .unwrap();
    let db = tracking_db(dir.path(), &["bad_lemma"]);

    let mut cmd = Command::cargo_bin("mf").unwrap();
    cmd.arg("lint")
        .arg(dir.path().join("a.lean"))
        .env("MATH_FORGE_TRACKING_DB", &db);
    let (found, code) = findings(&mut cmd);
    assert_eq!(
        places(&found),
        [place("false-lemma-reference", 2, 11, 2, 24)]
    );
    assert_eq!(
        found[0]["message"],
        "`Foo.bad_lemma` refers to `bad_lemma`, recorded as false in tracking.db"
    );
    assert_eq!(code, 0);

    fs::create_dir(dir.path().join("submissions")).unwrap();
    fs::rename(&db, dir.path().join("submissions/tracking.db")).unwrap();
    let mut cmd = Command::cargo_bin("mf").unwrap();
    cmd.arg("lint")
        .arg("a.lean")
        .current_dir(dir.path())
        .env_remove("MATH_FORGE_TRACKING_DB");
    let (found, _) = findings(&mut cmd);
    assert_eq!(found.len(), 1);
}

/// tracking.db is the submission pipeline's, and most projects have none: its absence is news
/// only where it was asked for (the rule denied, a variable naming it), an error where named.
#[test]
fn a_missing_tracking_db_is_silent_unless_asked_for() {
    let dir = TempDir::new().unwrap();
    fs::write(dir.path().join("a.lean"), "theorem t : True := trivial\n").unwrap();
    let lint = |args: &[&str]| {
        let mut cmd = Command::cargo_bin("mf").unwrap();
        cmd.arg("lint")
            .args(args)
            .current_dir(dir.path())
            .env_remove("MATH_FORGE_TRACKING_DB")
            .env_remove("CLAUDE_PROJECT_DIR");
        cmd
    };
    let note =
        "mf: note: no tracking.db at submissions/tracking.db; false-lemma references not checked\n";
    lint(&["a.lean"]).assert().code(0).stderr("");
    // Inside Claude Code the project directory is always set: still no news.
    lint(&["a.lean"])
        .env("CLAUDE_PROJECT_DIR", dir.path())
        .assert()
        .code(0)
        .stderr("");
    lint(&["a.lean", "--deny", "false-lemma-reference"])
        .assert()
        .code(0)
        .stderr(note);
    lint(&["a.lean"])
        .env("MATH_FORGE_TRACKING_DB", "submissions/tracking.db")
        .assert()
        .code(0)
        .stderr(note);

    let mut cmd = Command::cargo_bin("mf").unwrap();
    cmd.arg("lint")
        .args(["a.lean", "--tracking", "nope.db"])
        .current_dir(dir.path())
        .assert()
        .code(2)
        .stderr("mf: error: tracking database nope.db: no such file\n");

    // A database without the table: a note, and the lint still runs.
    let empty = dir.path().join("empty.db");
    rusqlite::Connection::open(&empty)
        .unwrap()
        .execute_batch("CREATE TABLE submissions (id INTEGER);")
        .unwrap();
    let mut cmd = Command::cargo_bin("mf").unwrap();
    cmd.arg("lint")
        .arg("a.lean")
        .arg("--tracking")
        .arg(&empty)
        .current_dir(dir.path())
        .assert()
        .code(0)
        .stderr(format!(
            "mf: note: {} has no table false_lemmas (older schema?); treated as empty; \
             false-lemma references not checked\n",
            empty.display()
        ));
}

/// One `sorry` on a 500 KB line: the report shows a window of the line around it (rustc's
/// `...` where cut), never the line; 20,000 on one line each get their own window.
#[test]
fn a_long_line_is_shown_as_an_excerpt_around_the_finding() {
    let dir = TempDir::new().unwrap();
    let padding = "exact trivial; ".repeat(33_000);
    fs::write(
        dir.path().join("Long.lean"),
        format!("theorem t : True := by {padding}sorry; {padding}\n"),
    )
    .unwrap();
    fs::write(
        dir.path().join("Many.lean"),
        format!(
            "theorem t : True := by {}trivial\n",
            "sorry; ".repeat(20_000)
        ),
    )
    .unwrap();
    let out = Command::cargo_bin("mf")
        .unwrap()
        .args(["lint", "Long.lean"])
        .current_dir(dir.path())
        .env_remove("MATH_FORGE_TRACKING_DB")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.len() < 1_000, "{} bytes", text.len());
    let source = text.lines().nth(3).unwrap();
    let carets = text.lines().nth(4).unwrap();
    assert!(
        source.starts_with("1 | ...") && source.ends_with("..."),
        "{text}"
    );
    let at = carets.find('^').unwrap();
    assert_eq!(&source[at..at + 5], "sorry", "{text}");
    assert_eq!(carets[at..].trim_end(), "^^^^^", "{text}");

    let out = Command::cargo_bin("mf")
        .unwrap()
        .args(["lint", "Many.lean"])
        .current_dir(dir.path())
        .env_remove("MATH_FORGE_TRACKING_DB")
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.matches("error[sorry]").count(), 20_000);
    assert!(text.lines().all(|l| l.len() < 200), "a line was not cut");
}

/// `--color always|never|auto` holds for lint's diagnostics as for every other output.
#[test]
fn lint_diagnostics_follow_color() {
    let run = |args: &[&str], env: &[(&str, &str)]| {
        let mut cmd = lint();
        cmd.arg("allow.lean").args(args).env_remove("NO_COLOR");
        for (k, v) in env {
            cmd.env(k, v);
        }
        String::from_utf8(cmd.output().unwrap().stdout).unwrap()
    };
    let colored = run(&["--color", "always"], &[]);
    assert!(
        colored.contains("\x1b[1m\x1b[31merror[sorry]\x1b[0m"),
        "{colored:?}"
    );
    // Colored or not, the same text.
    let plain = run(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]);
    assert!(!plain.contains('\x1b'), "{plain:?}");
    assert_eq!(strip_escapes(&colored), plain);
    // auto: not a terminal here.
    assert!(!run(&[], &[]).contains('\x1b'));
    assert!(run(&[], &[("CLICOLOR_FORCE", "1")]).contains('\x1b'));
}

fn strip_escapes(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&rest[..at]);
        let end = rest[at..].find('m').map_or(rest.len(), |m| at + m + 1);
        rest = &rest[end..];
    }
    out + rest
}
