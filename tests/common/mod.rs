//! Helpers shared by the integration tests: fixture knowledge bases and tracking databases in
//! temporary directories, an `mk` command isolated from the caller's environment, and the real
//! corpora when they are beside the project ([`corpora`]).

#![allow(dead_code)]

pub mod corpora;
pub mod layout;

use std::path::{Path, PathBuf};

use math_forge::kb::{FileItem, FileStatus, Kb};

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(name)
}

/// The running test's name (libtest names each test's thread after it).
pub fn test_name() -> String {
    std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string()
}

/// Prints `line` (one line saying which test skipped and why) where the user sees it: straight
/// to standard error, past the harness, which captures only `print!`/`eprint!` and shows
/// nothing of a passing test.
pub fn say_skipped(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// `mk` running in `cwd` with none of the path variables of the caller's environment, and
/// `cwd` as its home (so the user-data fallback is `cwd/.local/share/math-forge/`).
pub fn mk(cwd: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mk"));
    cmd.current_dir(cwd);
    isolate(&mut cmd, cwd);
    cmd
}

/// Removes every variable that steers where knowledge.db and tracking.db are, and sets HOME.
pub fn isolate(cmd: &mut assert_cmd::Command, home: &Path) {
    for var in [
        "MATH_FORGE_DB",
        "MATH_FORGE_TRACKING_DB",
        "CLAUDE_PLUGIN_ROOT",
        "CLAUDE_PLUGIN_DATA",
        "CLAUDE_PROJECT_DIR",
        "CLAUDE_ENV_FILE",
        "XDG_DATA_HOME",
        "NO_COLOR",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("HOME", home);
}

/// knowledge.db where `mk` in `home` with no variables puts it.
pub fn user_kb(home: &Path) -> PathBuf {
    home.join(".local/share/math-forge/knowledge.db")
}

pub fn corpus() -> Vec<FileItem> {
    let text = std::fs::read_to_string(fixture("kb_corpus.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// knowledge.db built from fixtures/kb_corpus.json through the batch writer.
pub fn build_kb(dir: &Path) -> PathBuf {
    let path = dir.join("knowledge.db");
    let mut kb = Kb::open(&path).unwrap();
    let outcomes = kb.write_batch(corpus()).unwrap();
    assert!(
        outcomes.iter().all(|o| o.status == FileStatus::Added),
        "{outcomes:?}"
    );
    path
}

/// A tracking.db built from one of the fixtures/*.sql files.
pub fn build_tracking(dir: &Path, sql_fixture: &str) -> PathBuf {
    let path = dir.join(sql_fixture.replace(".sql", ".db"));
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(&std::fs::read_to_string(fixture(sql_fixture)).unwrap())
        .unwrap();
    path
}

/// Runs `mk ARGS --json` and parses stdout.
pub fn mk_json(cwd: &Path, args: &[&str]) -> serde_json::Value {
    let out = mk(cwd).args(args).arg("--json").output().unwrap();
    assert!(
        out.status.success(),
        "mk {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("mk {args:?}: not JSON Lines ({e}): {stdout}"))
        })
        .collect();
    // Commands that print a list print a record per line (`query` then a summary line);
    // the others print one object.
    let command = args
        .iter()
        .find(|a| !a.starts_with('-') && !a.contains('/'));
    match command.copied() {
        Some("search") => serde_json::Value::Array(lines),
        Some("query") => {
            let summary = lines.pop().expect("a summary line");
            assert!(summary["summary"]["rows"].is_u64(), "{summary}");
            serde_json::Value::Array(lines)
        }
        _ => {
            assert_eq!(lines.len(), 1, "mk {args:?}: one object expected: {stdout}");
            lines.pop().unwrap()
        }
    }
}

pub fn stdout_of(cwd: &Path, args: &[&str]) -> String {
    let out = mk(cwd).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "mk {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}
