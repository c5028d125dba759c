//! The command-line contract shared by `mf` and `mk` (issue 16): exit codes, unknown flags,
//! missing files, files that are not Lean text, `-` for standard input, JSON errors, `-q`,
//! `--color`/`NO_COLOR`/`CLICOLOR_FORCE`, completions and man pages.

mod common;

use std::fs;
use std::path::Path;

use predicates::prelude::*;
use tempfile::TempDir;

const CLEAN: &str = "theorem t : True := trivial\n";
const HOLE: &str = "theorem h : True := by\n  sorry\n";

fn mf(cwd: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mf"));
    cmd.current_dir(cwd);
    common::isolate(&mut cmd, cwd);
    cmd.env_remove("MATH_FORGE_TRACKING_DB")
        .env_remove("CLICOLOR_FORCE");
    cmd
}

fn mk(cwd: &Path) -> assert_cmd::Command {
    let mut cmd = common::mk(cwd);
    cmd.env_remove("CLICOLOR_FORCE");
    cmd
}

/// A directory with a clean file, a file with a hole, a gzip file and a Latin-1 file.
fn mixed_dir() -> TempDir {
    let dir = TempDir::new().unwrap();
    fs::create_dir(dir.path().join("src")).unwrap();
    fs::write(dir.path().join("src/Clean.lean"), CLEAN).unwrap();
    fs::write(dir.path().join("src/Hole.lean"), HOLE).unwrap();
    fs::write(
        dir.path().join("src/Gz.lean"),
        b"\x1f\x8b\x08\x00\x00binary",
    )
    .unwrap();
    fs::write(dir.path().join("src/Latin1.lean"), b"-- caf\xe9\n").unwrap();
    dir
}

#[test]
fn exit_codes_are_0_found_1_input_2_on_both_binaries() {
    let dir = mixed_dir();
    let d = dir.path();
    // 0: success.
    mf(d).args(["lint", "src/Clean.lean"]).assert().code(0);
    mf(d).args(["sorries", "src/Clean.lean"]).assert().code(0);
    // 1: the check found something.
    mf(d).args(["lint", "src/Hole.lean"]).assert().code(1);
    // 2: usage or input errors.
    mf(d).args(["lint", "--bogus", "src"]).assert().code(2);
    mf(d).args(["parse", "missing.lean"]).assert().code(2);
    mf(d).args(["outline", "missing.lean"]).assert().code(2);
    mf(d).args(["lint", "src/Gz.lean"]).assert().code(2);
    mk(d).args(["search", "--bogus", "x"]).assert().code(2);
    mk(d).args(["failed", "--json2"]).assert().code(2);
    // A knowledge base that does not exist is an input error, not a finding.
    mk(d)
        .args(["--db", "nope.db", "search", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("nope.db"));
    // Both document the contract in --help.
    for cmd in [mf(d).arg("--help").assert(), mk(d).arg("--help").assert()] {
        cmd.code(0).stdout(predicate::str::contains(
            "Exit status: 0 success; 1 the check found something",
        ));
    }
}

#[test]
fn unknown_flags_are_rejected_and_words_after_double_dash_are_literal() {
    let dir = TempDir::new().unwrap();
    let db = common::build_kb(dir.path());
    let db = db.to_str().unwrap();
    mk(dir.path())
        .args(["search", "--db", db, "--bogus", "x"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains("unexpected argument '--bogus'"));
    // After `--` a word that looks like a flag is a query word.
    mk(dir.path())
        .args(["search", "--db", db, "--json", "--", "--bogus"])
        .assert()
        .code(0);
}

#[test]
fn a_named_file_that_does_not_exist_is_an_error_for_every_command() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    for args in [
        &["parse", "nope.lean"][..],
        &["outline", "nope.lean"],
        &["sorries", "nope.lean"],
        &["lint", "nope.lean"],
        &["verify", "nope.lean"],
        &["diff", "nope.lean", "nope.lean"],
        &["splice", "nope.lean", "t", "--proof", "-"],
        &["extract", "--db", "k.db", "nope.lean"],
    ] {
        mf(d)
            .args(args)
            .write_stdin("trivial")
            .assert()
            .code(2)
            .stdout(predicate::str::contains("no holes").not())
            .stderr(predicate::str::contains("nope.lean"));
    }
}

#[test]
fn files_that_are_not_lean_text_under_a_directory_are_skipped_and_counted() {
    let dir = mixed_dir();
    let d = dir.path();
    for command in ["parse", "outline", "sorries"] {
        let out = mf(d).args([command, "src"]).output().unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(0), "{command}: {stderr}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert_eq!(lines.len(), 3, "{command}: {stderr}");
        assert!(
            lines[0].starts_with("mf: warning: src/Gz.lean: binary file"),
            "{stderr}"
        );
        assert!(
            lines[1].starts_with("mf: warning: src/Latin1.lean:1: invalid UTF-8"),
            "{stderr}"
        );
        assert_eq!(lines[2], "mf: 2 files skipped (not Lean text)");
        // --strict: errors, exit 2.
        mf(d).args([command, "--strict", "src"]).assert().code(2);
        // -q: no warnings, same status.
        mf(d)
            .args([command, "-q", "src"])
            .assert()
            .code(0)
            .stderr("");
    }
    let out = mf(d)
        .args(["extract", "--db", "k.db", "--all", "src"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let first = stdout.lines().next().unwrap();
    assert!(
        first.starts_with("2 files (2 added, 0 replaced, 0 unchanged)")
            && first.ends_with(", 2 skipped (not Lean text)"),
        "{stdout}"
    );
    // In JSON too a skipped file is `skipped`, never `failed`.
    let out = mf(d)
        .args(["extract", "--db", "j.db", "--json", "--all", "src"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut statuses: Vec<&str> = lines[..lines.len() - 1]
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    statuses.sort();
    assert_eq!(
        statuses,
        ["added", "added", "skipped", "skipped"],
        "{lines:?}"
    );
    let last = &lines[lines.len() - 1];
    assert_eq!(last["summary"]["failed"], 0, "{last}");
    assert_eq!(last["summary"]["files"], 2, "{last}");
    assert_eq!(last["skipped"], 2, "{last}");
}

#[test]
fn a_dash_reads_standard_input() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    mf(d)
        .args(["sorries", "-"])
        .write_stdin(HOLE)
        .assert()
        .code(0)
        .stdout("<stdin>:2:3: sorry in theorem h (hole 1 of 1)\n    h : True\n1 hole\n");
    let out = mf(d)
        .args(["outline", "--json", "-"])
        .write_stdin(CLEAN)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["path"], "<stdin>");
    mf(d)
        .args(["lint", "-"])
        .write_stdin(HOLE)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("--> <stdin>:2:3"));
    // Binary standard input was named: an error, never skipped.
    mf(d)
        .args(["sorries", "-"])
        .write_stdin(&b"\x1f\x8b\x00"[..])
        .assert()
        .code(2)
        .stderr(predicate::str::starts_with("mf: <stdin>: binary file"));
}

#[test]
fn with_json_errors_are_json_objects_on_stderr() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    mf(d)
        .args(["sorries", "--json", "nope.lean"])
        .assert()
        .code(2)
        .stdout("")
        .stderr("{\"error\":\"nope.lean: no such file or directory\",\"path\":\"nope.lean\"}\n");
    let out = mk(d)
        .args(["--db", "nope.db", "--json", "stats"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let v: serde_json::Value = serde_json::from_str(stderr.trim_end()).unwrap();
    assert!(v["error"].as_str().unwrap().contains("nope.db"), "{v}");
    // Records are JSON Lines, ending in a summary object.
    fs::write(d.join("A.lean"), HOLE).unwrap();
    let out = mf(d)
        .args(["lint", "--format", "json", "A.lean"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert_eq!(lines[0]["rule"], "sorry");
    assert_eq!(
        lines[1],
        serde_json::json!({"summary": {"files": 1, "errors": 1, "warnings": 0, "skipped": 0}})
    );
}

#[test]
fn color_follows_the_flag_no_color_and_clicolor_force() {
    let dir = TempDir::new().unwrap();
    let db = common::build_kb(dir.path());
    let db = db.to_str().unwrap();
    let search = |extra: &[&str], env: &[(&str, &str)]| {
        let mut cmd = mk(dir.path());
        cmd.args(["search", "--db", db]).args(extra).arg("prime");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        String::from_utf8(out.stdout).unwrap().contains("\x1b[")
    };
    // Not a terminal: plain unless forced.
    assert!(!search(&[], &[]));
    assert!(search(&["--color", "always"], &[]));
    assert!(search(&["--color=always"], &[("NO_COLOR", "1")]));
    assert!(search(&[], &[("CLICOLOR_FORCE", "1")]));
    assert!(!search(&[], &[("CLICOLOR_FORCE", "0")]));
    assert!(!search(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]));
    assert!(!search(&["--color", "never"], &[("CLICOLOR_FORCE", "1")]));
    // JSON is never colored.
    assert!(!search(&["--json", "--color", "always"], &[]));
    mk(dir.path())
        .args(["search", "--color", "sometimes", "x"])
        .assert()
        .code(2);
}

#[test]
fn completions_and_man_pages_are_generated_for_both_binaries() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    for (bin, sub) in [("mf", "extract"), ("mk", "search")] {
        let cmd = |args: &[&str]| {
            let mut c = if bin == "mf" { mf(d) } else { mk(d) };
            c.args(args);
            c
        };
        cmd(&["completions", "bash"])
            .assert()
            .code(0)
            .stdout(predicate::str::contains(format!("_{bin}()")))
            .stdout(predicate::str::contains(sub));
        cmd(&["completions", "zsh"])
            .assert()
            .code(0)
            .stdout(predicate::str::starts_with(format!("#compdef {bin}")));
        cmd(&["completions", "fish"])
            .assert()
            .code(0)
            .stdout(predicate::str::contains(format!("complete -c {bin}")));
        cmd(&["completions", "tcsh"]).assert().code(2);
        cmd(&["man"])
            .assert()
            .code(0)
            .stdout(predicate::str::contains(format!(".TH {bin} 1")))
            .stdout(predicate::str::contains(sub));
    }
}

/// Every subcommand of both binaries (nested ones too) ends its help with an example, and
/// every argument says what it is.
#[test]
fn every_subcommand_help_ends_with_an_example_and_every_argument_is_described() {
    fn walk(cmd: &clap::Command, path: &str, problems: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") || arg.is_hide_set() {
                continue;
            }
            if arg
                .get_help()
                .is_none_or(|h| h.to_string().trim().is_empty())
            {
                problems.push(format!("{path}: argument `{id}` has no description"));
            }
        }
        for sub in cmd.get_subcommands() {
            let path = format!("{path} {}", sub.get_name());
            let help = sub.clone().bin_name(&path).render_help().to_string();
            let last = help.trim_end().rsplit("\n\n").next().unwrap_or_default();
            if !last.starts_with("Example") || last.lines().count() < 2 {
                problems.push(format!(
                    "{path} --help does not end with an example:\n{help}"
                ));
            }
            walk(sub, &path, problems);
        }
    }
    let mut problems = Vec::new();
    let mf_cli = math_forge::cli::mf::command();
    let mk_cli = math_forge::cli::mk::command();
    for (name, cmd) in [("mf", &mf_cli), ("mk", &mk_cli)] {
        let top = cmd.clone().render_help().to_string();
        if !top.contains("\nExamples:\n") {
            problems.push(format!("{name} --help has no examples"));
        }
        walk(cmd, name, &mut problems);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));

    // What a user sees.
    let dir = TempDir::new().unwrap();
    let out = mf(dir.path()).args(["lint", "--help"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.trim_end()
            .ends_with("mf lint --format github --allow native-decide src/"),
        "{text}"
    );
}

/// `mf man --dir` / `mk man --dir` write a page for every subcommand, so each page the main
/// pages refer to (`mf-lint(1)`, `mf-hook-stop(1)`) exists.
#[test]
fn every_man_page_referred_to_exists() {
    let dir = TempDir::new().unwrap();
    for bin in ["mf", "mk"] {
        let pages = dir.path().join(bin);
        let mut cmd = if bin == "mf" {
            mf(dir.path())
        } else {
            mk(dir.path())
        };
        cmd.arg("man").arg("--dir").arg(&pages).assert().code(0);
        let mut referred = 0;
        for page in std::fs::read_dir(&pages).unwrap() {
            let page = page.unwrap().path();
            let text = std::fs::read_to_string(&page).unwrap().replace("\\-", "-");
            for (at, _) in text.match_indices("(1)") {
                let name: String = text[..at]
                    .chars()
                    .rev()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                if name.is_empty() {
                    continue;
                }
                referred += 1;
                assert!(
                    pages.join(format!("{name}.1")).is_file(),
                    "{} refers to {name}(1), which was not written",
                    page.display()
                );
            }
        }
        assert!(referred >= 10, "{bin}: only {referred} references");
        assert!(pages.join(format!("{bin}.1")).is_file());
    }
}

/// Completion scripts offer the lint rules for `--allow` and `--deny`, not file names.
#[test]
fn completions_offer_rule_names_for_allow_and_deny() {
    let dir = TempDir::new().unwrap();
    let out = mf(dir.path())
        .args(["completions", "fish"])
        .output()
        .unwrap();
    let fish = String::from_utf8(out.stdout).unwrap();
    for flag in ["-l allow", "-l deny"] {
        // The values of one `complete` line: `-a "sorry\t''\nadmit\t''…"`.
        let at = fish
            .find(&format!("using_subcommand lint\" {flag} "))
            .unwrap_or_else(|| panic!("no {flag} completion:\n{fish}"));
        let values = fish[at..].split("\"\n").next().unwrap();
        for rule in math_forge::lint::Rule::ALL {
            // fish writes `\t` (backslash, t) between a value and its description.
            assert!(
                values.contains(&format!("\n{}\\t", rule.name()))
                    || values.contains(&format!("\"{}\\t", rule.name())),
                "{rule:?} missing: {values}"
            );
        }
    }
    let out = mf(dir.path())
        .args(["completions", "bash"])
        .output()
        .unwrap();
    let bash = String::from_utf8(out.stdout).unwrap();
    assert!(
        bash.contains("--allow)\n                    COMPREPLY=($(compgen -W \"sorry admit axiom"),
        "{bash}"
    );
}
