//! Hostile and unusual inputs, end to end: deep nesting, text that does not parse, special
//! files, closed pipes. Each test names the input and the outcome it expects.

mod common;

use std::path::Path;
use std::process::Output;

use serde_json::json;

/// `mf` in `cwd`, isolated from the caller's environment, with `cwd` as its home (a hook
/// keeps session snapshots under the home's data folder).
fn mf(cwd: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mf"));
    cmd.current_dir(cwd);
    common::isolate(&mut cmd, cwd);
    cmd.env_remove("MATH_FORGE_SLOTS");
    cmd
}

/// The exit code, failing the test when the process died of a signal (an abort, a stack
/// overflow) instead of exiting.
fn exit_code(out: &Output, what: &str) -> i32 {
    match out.status.code() {
        Some(code) => code,
        None => panic!(
            "{what}: killed by a signal ({:?}); stderr: {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ),
    }
}

/// A PostToolUse payload for a Write of `path` from `before` to `after`.
fn write_payload(dir: &Path, path: &Path, before: &str, after: &str) -> Vec<u8> {
    json!({
        "session_id": "s",
        "cwd": dir,
        "hook_event_name": "PostToolUse",
        "tool_name": "Write",
        "tool_input": {"file_path": path, "content": after},
        "tool_response": {"type": "update", "filePath": path, "content": after,
                          "structuredPatch": [], "originalFile": before},
    })
    .to_string()
    .into_bytes()
}

/// `theorem t : P := (((…(fun =>)…)))` nested `depth` deep: the missing `=>` sits at the
/// bottom, so every walk that looks for errors goes all the way down.
fn deeply_nested(depth: usize) -> String {
    format!(
        "theorem t : P := {}fun =>{}\n\naxiom cheat : False\n",
        "(".repeat(depth),
        ")".repeat(depth)
    )
}

#[test]
fn depth_100000_aborts_no_command() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir.path().join("Deep.lean");
    std::fs::write(&deep, deeply_nested(100_000)).unwrap();
    let plain = dir.path().join("Plain.lean");
    std::fs::write(&plain, "theorem ok : True := trivial\n").unwrap();
    let commands: &[&[&str]] = &[
        &["parse", "Deep.lean"],
        &["parse", "--errors", "Deep.lean"],
        &["parse", "--stats", "Deep.lean"],
        &["outline", "Deep.lean"],
        &["outline", "--json", "Deep.lean"],
        &["lint", "Deep.lean"],
        &["sorries", "Deep.lean"],
        &["diff", "Plain.lean", "Deep.lean"],
        &["verify", "Deep.lean"],
    ];
    for args in commands {
        let out = mf(dir.path()).args(*args).output().unwrap();
        let code = exit_code(&out, &args.join(" "));
        assert!(code == 0 || code == 1, "{args:?} exited {code}");
    }

    // A whole batch: the deep file is one report among others, the plain file is extracted.
    let out = mf(dir.path())
        .args(["extract", "--json", "--db", "kb.db", "--all", "."])
        .output()
        .unwrap();
    let code = exit_code(&out, "extract --all");
    assert!(code == 0 || code == 2, "extract exited {code}");
    // JSON Lines: the last line is the summary.
    let stdout = String::from_utf8(out.stdout).unwrap();
    let report: serde_json::Value =
        serde_json::from_str(stdout.lines().last().unwrap_or_default()).unwrap();
    assert_eq!(report["summary"]["files"], 2, "{report}");
    assert_eq!(report["summary"]["failed"], 0, "{report}");

    // The edit hook: exits 0 and still sees the axiom.
    let text = std::fs::read_to_string(&deep).unwrap();
    let payload = write_payload(dir.path(), &deep, "theorem t : P := trivial\n", &text);
    let out = mf(dir.path())
        .args(["hook", "post-tool-use"])
        .write_stdin(payload)
        .output()
        .unwrap();
    assert_eq!(exit_code(&out, "hook post-tool-use"), 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("\"block\""), "{stdout}");
    assert!(stdout.contains("cheat"), "{stdout}");
}

/// A proof with an unparseable line, followed by a `sorry` the grammar then reads as part of an
/// identifier, an `axiom` and an `admit` it reads as plain identifiers: only the lexical scan
/// of the unparsed command sees them.
const AFTER_UNPARSEABLE: &str =
    "theorem a : True := by\n  exact (foo ] ]\n  exact sorry.elim\n  axiom cheat : False\n  admit\n";

#[test]
fn escapes_after_an_unparseable_region_are_reported_by_lint() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("F.lean"), AFTER_UNPARSEABLE).unwrap();
    let out = mf(dir.path())
        .args(["lint", "--format", "json", "F.lean"])
        .output()
        .unwrap();
    assert_eq!(exit_code(&out, "lint"), 1);
    // JSON Lines: a finding per line, then the summary.
    let findings: Vec<serde_json::Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v.get("summary").is_none())
        .collect();
    let found: Vec<(String, u64, bool)> = findings
        .iter()
        .filter(|f| f["rule"] != "parse-error")
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
                f["message"]
                    .as_str()
                    .unwrap()
                    .contains("in a part of the file mf could not parse"),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![
            ("sorry".to_string(), 3, true),
            ("axiom".to_string(), 4, true),
            ("admit".to_string(), 5, true)
        ],
        "{findings:?}"
    );
}

#[test]
fn escapes_after_an_unparseable_region_fail_verify() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("F.lean"), AFTER_UNPARSEABLE).unwrap();
    let out = mf(dir.path())
        .args(["verify", "--json", "F.lean"])
        .env("PATH", "")
        .output()
        .unwrap();
    assert_eq!(exit_code(&out, "verify"), 1);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["verdict"], "fail", "{report}");
    let checks: Vec<(&str, u64)> = report["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["check"].as_str().unwrap(), r["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        checks,
        vec![("sorry", 3), ("axiom", 4), ("sorry", 5), ("parse-error", 2)],
        "{report}"
    );
}

/// A file that does not parse fails verify even with nothing else wrong in it.
#[test]
fn a_parse_error_alone_fails_verify() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("F.lean"),
        "theorem a : True := by\n  exact (trivial ] ]\n",
    )
    .unwrap();
    let out = mf(dir.path())
        .args(["verify", "F.lean"])
        .env("PATH", "")
        .output()
        .unwrap();
    assert_eq!(exit_code(&out, "verify"), 1);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.starts_with("FAIL F.lean"), "{stdout}");
    assert!(
        stdout.contains("F.lean:2:9: parse-error: mf could not parse this part of the file, so it cannot check it"),
        "{stdout}"
    );
}

#[test]
fn escapes_after_an_unparseable_region_are_blocked_by_the_edit_hook() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("F.lean");
    std::fs::write(&file, AFTER_UNPARSEABLE).unwrap();
    let payload = write_payload(
        dir.path(),
        &file,
        "theorem a : True := by\n  simp\n",
        AFTER_UNPARSEABLE,
    );
    let out = mf(dir.path())
        .args(["hook", "post-tool-use"])
        .write_stdin(payload)
        .output()
        .unwrap();
    assert_eq!(exit_code(&out, "hook"), 0);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["decision"], "block", "{v}");
    let reason = v["reason"].as_str().unwrap();
    for (word, line) in [("sorry", 3), ("axiom", 4), ("admit", 5)] {
        assert!(
            reason.contains(&format!(
                "- `{word}` at line {line} is in a part of the file mf could not parse"
            )),
            "{reason}"
        );
    }

    // The same words already there before the edit are not new: nothing to block.
    let edited = AFTER_UNPARSEABLE.replace("exact (foo", "exact (bar");
    std::fs::write(&file, &edited).unwrap();
    let payload = write_payload(dir.path(), &file, AFTER_UNPARSEABLE, &edited);
    let out = mf(dir.path())
        .args(["hook", "post-tool-use"])
        .write_stdin(payload)
        .output()
        .unwrap();
    assert_eq!(exit_code(&out, "hook"), 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("\"block\""), "{stdout}");
}

/// The write end of a pipe whose read end is already closed: every write fails with EPIPE.
fn closed_pipe() -> std::process::Stdio {
    use std::os::fd::{FromRawFd, OwnedFd};
    let mut fds = [0; 2];
    // SAFETY: `pipe` fills both descriptors, which are then owned here exactly once.
    let (read, write) = unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))
    };
    drop(read);
    write.into()
}

/// Runs `mf ARGS` with `stdin` and the given stdout/stderr; returns the exit code.
fn run_with(
    dir: &Path,
    args: &[&str],
    stdin: &[u8],
    stdout: std::process::Stdio,
    stderr: std::process::Stdio,
) -> i32 {
    use std::io::Write;
    // `dir` is the home too: session-start keeps a snapshot under the home's data folder.
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mf"))
        .args(args)
        .current_dir(dir)
        .env_remove("MATH_FORGE_DB")
        .env_remove("CLAUDE_ENV_FILE")
        .env_remove("CLAUDE_PLUGIN_DATA")
        .env_remove("XDG_DATA_HOME")
        .env("HOME", dir)
        .stdin(std::process::Stdio::piped())
        .stdout(stdout)
        .stderr(stderr)
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let _ = input.write_all(stdin);
    drop(input);
    let status = child.wait().unwrap();
    status
        .code()
        .unwrap_or_else(|| panic!("mf {args:?} killed by a signal: {status:?}"))
}

#[test]
fn hooks_exit_0_when_stdout_or_stderr_is_a_closed_pipe() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("F.lean");
    std::fs::write(&file, AFTER_UNPARSEABLE).unwrap();
    let payload = write_payload(
        dir.path(),
        &file,
        "theorem a : True := by\n  simp\n",
        AFTER_UNPARSEABLE,
    );
    for hook in ["post-tool-use", "session-start", "subagent-start"] {
        let args = ["hook", hook, "--db", "kb.db"];
        type Streams = (&'static str, fn() -> Stdio, fn() -> Stdio);
        let streams: [Streams; 3] = [
            ("stdout", closed_pipe, Stdio::null),
            ("stderr", Stdio::null, closed_pipe),
            ("both", closed_pipe, closed_pipe),
        ];
        for (closed, out, err) in streams {
            let code = run_with(dir.path(), &args, &payload, out(), err());
            assert_eq!(code, 0, "hook {hook} with closed {closed} exited {code}");
        }
    }
}

#[test]
fn commands_end_quietly_when_their_reader_goes_away() {
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    for i in 0..200 {
        std::fs::write(
            dir.path().join(format!("F{i:03}.lean")),
            "theorem t : True := by\n  sorry\n",
        )
        .unwrap();
    }
    // (command, status with stdout closed): a closed pipe is not an error of outline, parse
    // or sorries; lint still says the files have error-level findings.
    let cases: [(&[&str], i32); 5] = [
        (&["outline", "."], 0),
        (&["outline", "--json", "."], 0),
        (&["parse", "."], 0),
        (&["sorries", "."], 0),
        (&["lint", "."], 1),
    ];
    for (args, expected) in cases {
        let code = run_with(dir.path(), args, b"", closed_pipe(), Stdio::null());
        assert_eq!(code, expected, "mf {args:?} with stdout closed");
        // With stderr closed as well, notes are dropped, never a panic.
        let code = run_with(dir.path(), args, b"", closed_pipe(), closed_pipe());
        assert_eq!(code, expected, "mf {args:?} with stdout and stderr closed");
    }
}

fn mkfifo(path: &Path) {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// A FIFO or a device named as a Lean file is refused at once, with its path and what it is;
/// none of these commands waits for a writer that never comes.
#[test]
fn special_files_are_refused_with_their_path() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("Pipe.lean");
    mkfifo(&fifo);
    let expected_fifo = "Pipe.lean: cannot read: is a FIFO (named pipe), not a regular file";
    let expected_dev = "/dev/zero: cannot read: is a character device, not a regular file";
    let commands: &[&[&str]] = &[
        &["parse"],
        &["outline"],
        &["lint"],
        &["sorries"],
        &["verify"],
        &["extract", "--db", "kb.db"],
    ];
    for args in commands {
        for (target, expected) in [("Pipe.lean", expected_fifo), ("/dev/zero", expected_dev)] {
            let out = mf(dir.path())
                .args(*args)
                .arg(target)
                .env("PATH", "")
                .timeout(std::time::Duration::from_secs(20))
                .output()
                .unwrap();
            let code = exit_code(&out, &format!("{args:?} {target}"));
            assert_eq!(code, 2, "{args:?} {target}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                stderr.contains(expected) || stdout.contains(expected),
                "{args:?} {target}: {stderr}{stdout}"
            );
        }
    }
    let out = mf(dir.path())
        .args(["splice", "Pipe.lean", "t", "--proof", "-"])
        .write_stdin("simp")
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(exit_code(&out, "splice"), 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(expected_fifo), "{stderr}");

    // The edit hook steps aside with a note.
    let payload = write_payload(dir.path(), &fifo, "", "theorem t : True := trivial\n");
    let out = mf(dir.path())
        .args(["hook", "post-tool-use"])
        .write_stdin(payload)
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(exit_code(&out, "hook"), 0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("Pipe.lean: is a FIFO (named pipe), not a regular file"),
        "{stderr}"
    );
}

/// `CLAUDE_ENV_FILE` naming a FIFO: the session starts, with a note instead of a hang.
#[test]
fn session_start_with_a_fifo_env_file_does_not_hang() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("env");
    mkfifo(&fifo);
    let out = mf(dir.path())
        .args(["hook", "session-start", "--db", "kb.db"])
        .env("CLAUDE_ENV_FILE", &fifo)
        .write_stdin(r#"{"hook_event_name":"SessionStart","source":"startup"}"#)
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(exit_code(&out, "session-start"), 0);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "cannot append to {}: is a FIFO (named pipe), not a regular file",
            fifo.display()
        )),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("additionalContext"));
}

/// Twenty `mf splice` processes at once, each on its own declaration of one file: every
/// edit is applied or refused with one line, and every applied one is in the file.
#[test]
fn twenty_concurrent_splices_lose_no_edit() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("F.lean");
    let text: String = (0..20)
        .map(|i| format!("theorem t{i} : {i} = {i} := by\n  sorry\n\n"))
        .collect();
    std::fs::write(&file, text).unwrap();
    let children: Vec<_> = (0..20)
        .map(|i| {
            let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mf"))
                .args(["splice", "F.lean", &format!("t{i}"), "--proof", "-"])
                .current_dir(dir.path())
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(format!("exact rfl -- {i}").as_bytes())
                .unwrap();
            child
        })
        .collect();
    let mut applied = Vec::new();
    for (i, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        match out.status.code() {
            Some(0) => applied.push(i),
            Some(2) => assert_eq!(stderr.lines().count(), 1, "t{i}: {stderr}"),
            other => panic!("t{i}: exit {other:?}: {stderr}"),
        }
    }
    let result = std::fs::read_to_string(&file).unwrap();
    for i in 0..20 {
        let done = result.contains(&format!("exact rfl -- {i}\n"));
        assert_eq!(
            done,
            applied.contains(&i),
            "t{i} in the file: {done}\n{result}"
        );
    }
    // With the lock, none has to be refused.
    assert_eq!(applied.len(), 20, "{result}");
    assert_eq!(result.matches("sorry").count(), 0, "{result}");
}

#[test]
fn splice_refuses_a_read_only_file() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("F.lean");
    std::fs::write(&file, "theorem t : 1 = 1 := by\n  sorry\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = mf(dir.path())
        .args(["splice", "F.lean", "t", "--proof", "-"])
        .write_stdin("rfl")
        .output()
        .unwrap();
    assert_eq!(exit_code(&out, "splice"), 2);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "mf: F.lean: cannot write: is read-only; make it writable (chmod u+w) to change it; file left untouched\n"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "theorem t : 1 = 1 := by\n  sorry\n"
    );
}

/// `mk query` takes `--limit` and says the limit cut the rows; an unbounded result streams
/// (a million rows through a closed pipe end at once, quietly).
#[test]
fn mk_query_streams_and_takes_a_limit() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::build_kb(dir.path());
    let db = db.to_str().unwrap();
    let endless = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT x FROM c";
    let out = common::mk(dir.path())
        .args(["query", "--db", db, "--limit", "3", endless])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "x\n1\n2\n3\n(3 rows, limit reached)\n"
    );
    let out = common::mk(dir.path())
        .args(["query", "--db", db, "--json", "-n", "2", endless])
        .output()
        .unwrap();
    // JSON Lines: a row per line, then the summary.
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"x\":1}\n{\"x\":2}\n{\"summary\":{\"limited\":true,\"rows\":2}}\n"
    );

    let million = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 1000000) SELECT x FROM c";
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mk"))
        .args(["query", "--db", db, million])
        .stdout(closed_pipe())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0));
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(stderr, "");
}

/// A database with a `findings` table that is not a knowledge base: every command refuses it
/// with one line and leaves it byte for byte as it was (no WAL conversion, no migration).
#[test]
fn a_foreign_database_with_a_findings_table_is_left_untouched() {
    // Unversioned (as the bash tooling's knowledge bases were) and at one of our versions.
    for version in [0, 1] {
        foreign_database_is_left_untouched(version);
    }
}

fn foreign_database_is_left_untouched(version: i64) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("other.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(&format!(
        "CREATE TABLE findings (id INTEGER PRIMARY KEY, severity TEXT, message TEXT);
         INSERT INTO findings (severity, message) VALUES ('high', 'not ours');
         PRAGMA user_version = {version};"
    ))
    .unwrap();
    drop(conn);
    let before = std::fs::read(&db).unwrap();
    let db_arg = db.to_str().unwrap();
    let expected = format!(
        "{db_arg} is an SQLite database but not a math-forge knowledge base (is it tracking.db?); point --db at knowledge.db, or run `mk init --db NEW_PATH`"
    );
    let mk_commands: &[&[&str]] = &[
        &["init"],
        &["search", "prime"],
        &["stats"],
        &["query", "SELECT 1"],
        &["record", "insight", "--title", "t", "--text", "x"],
    ];
    for args in mk_commands {
        let out = common::mk(dir.path())
            .args(*args)
            .args(["--db", db_arg])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "mk {args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "mk {args:?}: {stderr}");
        assert!(stderr.contains(&expected), "mk {args:?}: {stderr}");
    }
    let plain = dir.path().join("T.lean");
    std::fs::write(&plain, "theorem t : True := trivial\n").unwrap();
    let out = mf(dir.path())
        .args(["extract", "--db", db_arg, "T.lean"])
        .output()
        .unwrap();
    assert_eq!(exit_code(&out, "extract"), 2);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains(&expected), "{stderr}");
    assert_eq!(std::fs::read(&db).unwrap(), before, "the file changed");
    assert!(!dir.path().join("other.db-wal").exists());
}

/// A knowledge base (in WAL mode) in a read-only directory, itself read-only, is readable by
/// a user who cannot write there. As root (who may write anywhere) the commands run as
/// `nobody` through setpriv.
#[test]
fn a_knowledge_base_in_a_read_only_directory_is_readable() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let ro = dir.path().join("ro");
    std::fs::create_dir(&ro).unwrap();
    let db = common::build_kb(&ro);
    let conn = rusqlite::Connection::open(&db).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    drop(conn);
    let _ = std::fs::remove_file(ro.join("knowledge.db-shm"));
    let _ = std::fs::remove_file(ro.join("knowledge.db-wal"));
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let run = |args: &[&str]| {
        let mut cmd = if root {
            let mut c = std::process::Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(env!("CARGO_BIN_EXE_mk"));
            c
        } else {
            std::process::Command::new(env!("CARGO_BIN_EXE_mk"))
        };
        cmd.args(args)
            .args(["--db", db.to_str().unwrap()])
            .current_dir(dir.path())
            .env_remove("MATH_FORGE_DB")
            .output()
            .unwrap()
    };
    for args in [
        &["query", "SELECT count(*) AS n FROM findings"][..],
        &["search", "card"][..],
        &["stats"][..],
    ] {
        let out = run(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "mk {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = run(&["query", "--json", "SELECT count(*) AS n FROM findings"]);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let first: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert!(first["n"].as_i64().unwrap() > 0, "{stdout}");
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// knowledge.db held by another process (exclusive locking mode, a write open): session-start
/// waits at most half its budget, answers, and says how long it really waited.
#[test]
fn a_locked_knowledge_base_costs_the_hook_its_budget_at_most() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::build_kb(dir.path());
    let holder = rusqlite::Connection::open(&db).unwrap();
    holder
        .execute_batch(
            "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE;
             INSERT INTO domains (id, name) VALUES ('held', 'held');",
        )
        .unwrap();
    let out = mf(dir.path())
        .args(["hook", "session-start", "--db", db.to_str().unwrap()])
        .env("MATH_FORGE_HOOK_BUDGET_MS", "1000")
        .write_stdin("{}")
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(exit_code(&out, "session-start"), 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let (_, after) = stdout
        .split_once("is locked by another process (still busy after ")
        .unwrap_or_else(|| panic!("{stdout}"));
    let waited: u64 = after.split(' ').next().unwrap().parse().unwrap();
    // The busy timeout is half the budget; what is reported is what was measured.
    assert!((450..1000).contains(&waited), "{waited} ms: {stdout}");
    drop(holder);
}

/// Past its budget the edit hook answers itself: the agent is told the edit was not checked.
#[test]
fn the_edit_hook_answers_at_its_deadline() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("Deep.lean");
    let text = deeply_nested(100_000);
    std::fs::write(&file, &text).unwrap();
    let payload = write_payload(dir.path(), &file, "theorem t : P := trivial\n", &text);
    let out = mf(dir.path())
        .args(["hook", "post-tool-use"])
        .env("MATH_FORGE_HOOK_BUDGET_MS", "0")
        .write_stdin(payload)
        .timeout(std::time::Duration::from_secs(20))
        .output()
        .unwrap();
    assert_eq!(exit_code(&out, "post-tool-use"), 0);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let context = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.starts_with("[math-forge] This edit was NOT checked: the check did not finish within its 0.0 s budget"),
        "{context}"
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "mf hook post-tool-use: did not finish within its 0.0 s budget (below the hook's timeout); nothing checked\n"
    );
}
