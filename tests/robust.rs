//! Hostile and unusual inputs, end to end: deep nesting, text that does not parse, special
//! files, closed pipes. Each test names the input and the outcome it expects.

mod common;

use std::path::Path;
use std::process::Output;

use serde_json::json;

/// `mf` in `cwd`, isolated from the caller's environment.
fn mf(cwd: &Path) -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mf"));
    cmd.current_dir(cwd);
    for var in [
        "MATH_FORGE_DB",
        "MATH_FORGE_TRACKING_DB",
        "MATH_FORGE_SLOTS",
        "CLAUDE_PLUGIN_ROOT",
        "CLAUDE_PROJECT_DIR",
        "CLAUDE_ENV_FILE",
    ] {
        cmd.env_remove(var);
    }
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
    assert!(code == 0 || code == 1, "extract exited {code}");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
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
