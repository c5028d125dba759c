//! The Claude Code plugin in plugin/: its JSON is valid and wires the documented events, and
//! every command it names exists (`mf hook X`, `mk X`).

mod common;

use std::path::{Path, PathBuf};

use serde_json::Value;

fn plugin_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("plugin")
}

fn json(rel: &str) -> Value {
    let path = plugin_dir().join(rel);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: invalid JSON: {e}", path.display()))
}

fn mf() -> assert_cmd::Command {
    assert_cmd::Command::new(env!("CARGO_BIN_EXE_mf"))
}

/// (event, matcher, command, timeout in seconds) of every hook in hooks.json.
fn hooks() -> Vec<(String, String, String, f64)> {
    let v = json("hooks/hooks.json");
    assert!(v["description"].as_str().is_some_and(|d| !d.is_empty()));
    let mut out = Vec::new();
    for (event, groups) in v["hooks"].as_object().expect("hooks is an object") {
        for group in groups
            .as_array()
            .expect("an event has an array of matcher groups")
        {
            // Stop takes no matcher (https://code.claude.com/docs/en/hooks).
            let matcher = group["matcher"].as_str().unwrap_or("").to_string();
            for h in group["hooks"].as_array().expect("hooks array") {
                assert_eq!(h["type"], "command", "{h}");
                out.push((
                    event.clone(),
                    matcher.clone(),
                    h["command"].as_str().expect("command").to_string(),
                    h["timeout"].as_f64().expect("timeout in seconds"),
                ));
            }
        }
    }
    out
}

/// The `X` of `…/bin/mf" hook X` in a hook command.
fn hook_subcommand(command: &str) -> String {
    let rest = command
        .split_once("/bin/mf\" hook ")
        .unwrap_or_else(|| {
            panic!("not a `\"${{CLAUDE_PLUGIN_ROOT}}/bin/mf\" hook …` command: {command}")
        })
        .1;
    assert!(
        command.starts_with("\"${CLAUDE_PLUGIN_ROOT}/bin/mf\""),
        "{command}"
    );
    rest.split_whitespace().next().unwrap().to_string()
}

#[test]
fn manifest_is_valid() {
    let m = json(".claude-plugin/plugin.json");
    let name = m["name"].as_str().unwrap();
    assert_eq!(name, "math-forge");
    assert!(name.chars().all(|c| c.is_ascii_lowercase() || c == '-'));
    let version = m["version"].as_str().unwrap();
    assert_eq!(
        version
            .split('.')
            .filter(|p| p.parse::<u32>().is_ok())
            .count(),
        3,
        "{version}"
    );
    // Installed copies update when the crate's version does: one version for both.
    assert_eq!(version, env!("CARGO_PKG_VERSION"), "plugin.json's version");
    assert!(m["description"].as_str().is_some_and(|d| d.len() > 20));
    assert!(
        m["author"]["name"].is_string(),
        "author is an object with a name"
    );
    assert!(m["keywords"]
        .as_array()
        .unwrap()
        .iter()
        .all(Value::is_string));
}

#[test]
fn hooks_wire_the_six_events() {
    let got: Vec<(String, String, String, f64)> = hooks()
        .into_iter()
        .map(|(e, m, c, t)| (e, m, hook_subcommand(&c), t))
        .collect();
    // Matchers name tools Claude Code has (2.1.197: `Agent` starts a subagent; there is no
    // `MultiEdit` and no `Task` tool). SessionEnd: Claude Code gives all SessionEnd hooks
    // 1.5 s whatever a plugin asks for (CLAUDE_CODE_SESSIONEND_HOOKS_TIMEOUT_MS is the
    // user's), so the hook says so and answers within 1 s.
    let want = [
        ("PostToolUse", "Write|Edit", "post-tool-use", 5.0),
        // Lean's errors from `lake build` in Bash: a command that exits 0 comes to
        // PostToolUse, one that fails to PostToolUseFailure.
        ("PostToolUse", "Bash", "lean-output", 5.0),
        ("PostToolUseFailure", "Bash", "lean-output", 5.0),
        ("PreToolUse", "Write|Edit|Agent", "pre-tool-use", 5.0),
        ("SessionEnd", "", "session-end", 1.5),
        (
            "SessionStart",
            "startup|resume|clear|compact",
            "session-start",
            10.0,
        ),
        ("Stop", "", "stop", 15.0),
    ];
    let want: Vec<(String, String, String, f64)> = want
        .iter()
        .map(|(e, m, c, t)| (e.to_string(), m.to_string(), c.to_string(), *t))
        .collect();
    assert_eq!(got, want);
    for tool in ["MultiEdit", "Task"] {
        assert!(
            got.iter()
                .all(|(_, m, _, _)| !m.split('|').any(|t| t == tool)),
            "{tool} is no Claude Code tool"
        );
    }
}

#[test]
fn every_hook_command_exists() {
    for (_, _, command, _) in hooks() {
        let sub = hook_subcommand(&command);
        let out = mf().args(["hook", &sub, "--help"]).output().unwrap();
        assert!(
            out.status.success(),
            "mf hook {sub} --help: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // `mf --help` names each of them, so nobody reading it misses one.
    let help = String::from_utf8(mf().arg("-h").output().unwrap().stdout).unwrap();
    let line = help
        .lines()
        .find(|l| l.trim_start().starts_with("hook "))
        .expect("mf -h lists hook");
    for (_, _, command, _) in hooks() {
        let sub = hook_subcommand(&command);
        assert!(line.contains(&sub), "`mf -h` names mf hook {sub}: {line}");
    }
    // …and a name that is not a hook is refused, so the check above can fail.
    assert!(!mf()
        .args(["hook", "pre-edit", "--help"])
        .output()
        .unwrap()
        .status
        .success());
}

/// Every `mk X` a slash command runs.
fn mk_commands() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(plugin_dir().join("commands"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in files {
        assert_eq!(
            path.extension().and_then(|e| e.to_str()),
            Some("md"),
            "{}",
            path.display()
        );
        let text = std::fs::read_to_string(&path).unwrap();
        let front = text
            .strip_prefix("---\n")
            .and_then(|t| t.split_once("\n---\n"))
            .unwrap_or_else(|| panic!("{}: no frontmatter", path.display()))
            .0;
        assert!(
            front.lines().any(|l| l.starts_with("description: ")),
            "{}",
            path.display()
        );
        let file = path.file_name().unwrap().to_string_lossy().into_owned();
        for (i, _) in text.match_indices("mk ") {
            let before = text[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_') {
                continue;
            }
            let word: String = text[i + 3..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase())
                .collect();
            if !word.is_empty() {
                out.push((file.clone(), word));
            }
        }
    }
    out
}

#[test]
fn slash_commands_are_the_four_and_run_existing_mk_commands() {
    let commands = mk_commands();
    let mut files: Vec<&str> = commands.iter().map(|(f, _)| f.as_str()).collect();
    files.dedup();
    assert_eq!(
        files,
        ["failed.md", "knowledge.md", "search.md", "stats.md"]
    );
    for (file, sub) in &commands {
        let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mk"))
            .args([sub.as_str(), "--help"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{file}: mk {sub} --help: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let names: Vec<&str> = commands.iter().map(|(_, s)| s.as_str()).collect();
    for expected in ["search", "failed", "stats", "context"] {
        assert!(names.contains(&expected), "{expected} in {names:?}");
    }
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mk"))
        .args(["knowledge", "--help"])
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "an unknown mk command fails, so the check above can fail"
    );
}

#[test]
fn launcher_runs_mf_from_math_forge_bin() {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_mf")).parent().unwrap();
    let out = std::process::Command::new(plugin_dir().join("bin/mf"))
        .args(["hook", "session-start", "--help"])
        .env("MATH_FORGE_BIN", bin_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("SessionStart"));
}

/// A copy of the launchers outside the repository, run with a PATH and HOME that hold no
/// `mf`/`mk` and no build next to them.
fn bare_launcher(dir: &Path, tool: &str, args: &[&str], stdin: &str) -> std::process::Output {
    bare_launcher_with(dir, tool, args, stdin, &[])
}

/// The launcher copy of [`bare_launcher`], not started.
fn bare_command(dir: &Path, tool: &str, env: &[(&str, String)]) -> std::process::Command {
    let bin = dir.join("plugin/bin");
    std::fs::create_dir_all(&bin).unwrap();
    for t in ["mf", "mk"] {
        std::fs::copy(plugin_dir().join("bin").join(t), bin.join(t)).unwrap();
    }
    std::fs::copy(
        plugin_dir().join("mcp-tools.json"),
        dir.join("plugin/mcp-tools.json"),
    )
    .unwrap();
    let mut cmd = std::process::Command::new("/bin/sh");
    cmd.arg(bin.join(tool))
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env("HOME", dir)
        .env("CLAUDE_PLUGIN_DATA", dir.join("data"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

fn bare_launcher_with(
    dir: &Path,
    tool: &str,
    args: &[&str],
    stdin: &str,
    env: &[(&str, String)],
) -> std::process::Output {
    let mut child = bare_command(dir, tool, env)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn launchers_are_one_script() {
    let mf = std::fs::read(plugin_dir().join("bin/mf")).unwrap();
    let mk = std::fs::read(plugin_dir().join("bin/mk")).unwrap();
    assert_eq!(
        mf, mk,
        "plugin/bin/mf and plugin/bin/mk must stay identical"
    );
}

#[test]
fn launcher_without_mf_fails_visibly_outside_hooks() {
    for tool in ["mf", "mk"] {
        let dir = tempfile::tempdir().unwrap();
        let out = bare_launcher(dir.path(), tool, &["stats"], "");
        assert_eq!(out.status.code(), Some(127), "{tool}");
        assert!(out.stdout.is_empty());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(
            err.starts_with(&format!("math-forge: {tool} not found"))
                && err.contains("cargo install --locked --path"),
            "{err}"
        );
    }
}

#[test]
fn launcher_without_mf_tells_the_user_inside_hooks() {
    let dir = tempfile::tempdir().unwrap();
    let out = bare_launcher(
        dir.path(),
        "mf",
        &["hook", "session-start"],
        r#"{"hook_event_name":"SessionStart","source":"startup"}"#,
    );
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("hook JSON on stdout");
    let msg = v["systemMessage"].as_str().unwrap();
    assert!(
        msg.starts_with("math-forge is not installed: .lean edits are NOT being checked"),
        "{msg}"
    );
    assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");

    let edit = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hooks/pre_edit_proof_to_sorry.json"),
    )
    .unwrap()
    .replace("@CWD@", "/p")
    .replace("@FILE@", "/p/Erdos850.lean");
    let out = bare_launcher(dir.path(), "mf", &["hook", "pre-tool-use"], &edit);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("hook JSON on stdout");
    assert!(
        v["systemMessage"]
            .as_str()
            .unwrap()
            .starts_with("math-forge is not installed: this .lean edit is NOT being checked"),
        "{v}"
    );
    // An edit of another file is not gated: no message.
    let other = r#"{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/p/notes.md","content":"x"}}"#;
    let out = bare_launcher(dir.path(), "mf", &["hook", "pre-tool-use"], other);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
}

#[test]
fn launcher_finds_mf_in_plugin_data_bin() {
    let dir = tempfile::tempdir().unwrap();
    let data_bin = dir.path().join("data/bin");
    std::fs::create_dir_all(&data_bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mf"), data_bin.join("mf")).unwrap();
    let out = bare_launcher(dir.path(), "mf", &["--version"], "");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("mf "));
}

/// `claude plugin validate plugin/` with the real Claude Code CLI (npm package
/// `@anthropic-ai/claude-code`, which `.ci/run` installs). Skipped, with the reason printed,
/// only where `claude` is not on PATH.
#[test]
fn claude_plugin_validate_passes() {
    let found = std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join("claude"))
            .find(|p| p.is_file())
    });
    let Some(claude) = found else {
        common::say_skipped(
            "SKIPPED claude_plugin_validate_passes: `claude` is not on PATH \
             (npm install -g @anthropic-ai/claude-code)",
        );
        return;
    };
    // The plugin, and the repository root as a marketplace, with warnings as errors.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf();
    for (target, what) in [
        (plugin_dir(), "plugin manifest"),
        (root, "marketplace manifest"),
    ] {
        let home = tempfile::tempdir().unwrap();
        let out = std::process::Command::new(&claude)
            .args(["plugin", "validate", "--strict"])
            .arg(&target)
            .env("HOME", home.path())
            .env("DISABLE_AUTOUPDATER", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1")
            .stdin(std::process::Stdio::null())
            .output()
            .unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.status.success(),
            "claude plugin validate --strict {} failed:\n{text}",
            target.display()
        );
        assert!(
            text.contains(&format!("Validating {what}")) && text.contains("Validation passed"),
            "{text}"
        );
    }
}

/// Claude Code splices `$ARGUMENTS` into a `!`-command as raw text, so no quoting there is
/// safe: an argument with a quote breaks the line, one with `$(…)` runs. The commands pass
/// arguments as prompt text between markers instead, for the model to quote or to give to an
/// MCP tool.
#[test]
fn slash_commands_never_splice_arguments_into_a_shell_line() {
    for entry in std::fs::read_dir(plugin_dir().join("commands")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for line in text.lines() {
            if line.contains("!`") {
                assert!(
                    !line.contains("$ARGUMENTS") && !line.contains("$1"),
                    "{}: {line}",
                    path.display()
                );
            }
        }
        if text.contains("$ARGUMENTS") {
            let marked =
                text.lines().collect::<Vec<_>>().windows(3).any(|w| {
                    w[0].starts_with('<') && w[1] == "$ARGUMENTS" && w[2].starts_with("</")
                });
            assert!(marked, "{}: $ARGUMENTS between markers", path.display());
        }
    }
}

#[test]
fn the_skill_has_frontmatter_and_names_only_real_tools() {
    let path = plugin_dir().join("skills/lean-proof-workflow/SKILL.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let front = text
        .strip_prefix("---\n")
        .and_then(|t| t.split_once("\n---\n"))
        .expect("frontmatter")
        .0;
    assert!(front.lines().any(|l| l == "name: lean-proof-workflow"));
    assert!(front
        .lines()
        .any(|l| l.starts_with("description: Use when") && l.len() > 80));
    let tools: Vec<&str> = math_forge::mcp::tools::specs()
        .iter()
        .map(|s| s.name)
        .collect();
    for mentioned in [
        "search",
        "problem",
        "failed",
        "recommend",
        "record_failure",
        "holes",
        "splice",
        "outline",
    ] {
        assert!(text.contains(&format!("`{mentioned}`")), "{mentioned}");
        assert!(tools.contains(&mentioned), "{mentioned} is an MCP tool");
    }
    for cmd in [
        "mf sorries",
        "mf splice",
        "mk failed",
        "mk find",
        "mk search",
    ] {
        assert!(text.contains(cmd), "{cmd}");
    }
}

/// The marketplace at the repository root lists the plugin, so that
/// `claude plugin marketplace add <repo>` and `claude plugin install math-forge@math-forge`
/// install it (https://code.claude.com/docs/en/plugins/marketplace-reference).
#[test]
fn the_repository_is_a_marketplace_of_the_plugin() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join(".claude-plugin/marketplace.json")).unwrap();
    let m: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(m["name"], "math-forge");
    assert!(m["owner"]["name"].is_string());
    let plugins = m["plugins"].as_array().unwrap();
    assert_eq!(plugins.len(), 1);
    let entry = &plugins[0];
    assert_eq!(
        entry["name"],
        json("/.claude-plugin/plugin.json".trim_start_matches('/'))["name"]
    );
    let source = entry["source"].as_str().unwrap();
    assert!(
        source.starts_with("./") && !source.contains(".."),
        "{source}"
    );
    assert_eq!(
        root.join(source).canonicalize().unwrap(),
        plugin_dir().canonicalize().unwrap()
    );
    // One version, in plugin.json: an entry's own would be one more to keep equal.
    assert!(entry.get("version").is_none());
}

/// Every MCP tool a slash command tells the model to call is pre-approved by its full name
/// (`mcp__plugin_<plugin>_<server>__<tool>`, as Claude Code 2.1.197 names a plugin's tools).
#[test]
fn slash_commands_allow_the_mcp_tools_they_use() {
    let tools: Vec<&str> = math_forge::mcp::tools::specs()
        .iter()
        .map(|s| s.name)
        .collect();
    let mut checked = 0;
    for entry in std::fs::read_dir(plugin_dir().join("commands")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let allowed: Vec<String> = text
            .lines()
            .find_map(|l| l.strip_prefix("allowed-tools: "))
            .unwrap_or_else(|| panic!("{}: no allowed-tools", path.display()))
            .split(", ")
            .map(str::to_string)
            .collect();
        for tool in &tools {
            let named = format!("MCP tool `{tool}`");
            let named_plural = format!("MCP tools `{tool}`");
            let also = format!("and `{tool}`");
            if text.contains(&named) || text.contains(&named_plural) || text.contains(&also) {
                let full = format!("mcp__plugin_math-forge_math-forge__{tool}");
                assert!(
                    allowed.contains(&full),
                    "{}: calls {tool} but allows {allowed:?}",
                    path.display()
                );
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 3, "search, failed and context are named");
}

/// The launcher answers MCP itself when math-forge is missing, listing the tools of
/// plugin/mcp-tools.json: the same list as `mf mcp`'s. After a change of the tools, rewrite
/// it with `MF_UPDATE_MCP_TOOLS=1 cargo test --test plugin`.
#[test]
fn the_launchers_tool_list_is_mf_mcps() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mf"))
        .arg("mcp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    mcp_exchange(&mut stdin, &mut stdout, "initialize-only", &Value::Null);
    let list = mcp_exchange(
        &mut stdin,
        &mut stdout,
        "tools/list",
        &serde_json::json!({}),
    );
    drop(stdin);
    let _ = child.wait();
    let path = plugin_dir().join("mcp-tools.json");
    let fresh = &list["result"];
    if std::env::var_os("MF_UPDATE_MCP_TOOLS").is_some() {
        std::fs::write(
            &path,
            format!("{}\n", serde_json::to_string_pretty(fresh).unwrap()),
        )
        .unwrap();
    }
    let stored: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(
        &stored, fresh,
        "plugin/mcp-tools.json is not `mf mcp`'s tools/list; rewrite it with MF_UPDATE_MCP_TOOLS=1 cargo test --test plugin"
    );
}

use std::io::{BufRead, BufReader};

/// Sends `method` and returns its response; `initialize-only` sends the handshake
/// (initialize, notifications/initialized) and returns initialize's response.
fn mcp_exchange(
    stdin: &mut impl std::io::Write,
    stdout: &mut impl BufRead,
    method: &str,
    params: &Value,
) -> Value {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(100);
    let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if method == "initialize-only" {
        writeln!(stdin, "{}", serde_json::json!({"method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}, "jsonrpc": "2.0", "id": 0})).unwrap();
        writeln!(
            stdin,
            "{}",
            serde_json::json!({"method": "notifications/initialized", "jsonrpc": "2.0"})
        )
        .unwrap();
    }
    if method != "initialize-only" {
        writeln!(
            stdin,
            "{}",
            serde_json::json!({"method": method, "params": params, "jsonrpc": "2.0", "id": id})
        )
        .unwrap();
    }
    stdin.flush().unwrap();
    let want = if method == "initialize-only" { 0 } else { id };
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            stdout.read_line(&mut line).unwrap() > 0,
            "the server closed stdout"
        );
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
        if v["id"] == serde_json::json!(want) {
            return v;
        }
    }
}

/// Claude Code marks an MCP server that fails to start as failed and keeps it off for a long
/// while; the launcher stays a working server instead, and hands over to math-forge as soon
/// as it is installed, within the same session.
#[test]
fn launcher_answers_mcp_until_math_forge_is_installed() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("A.lean"), "theorem a : True := by\n  sorry\n").unwrap();
    let mut child = bare_command(dir.path(), "mf", &[])
        .arg("mcp")
        .current_dir(&project)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let init = mcp_exchange(&mut stdin, &mut stdout, "initialize-only", &Value::Null);
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    assert!(init["result"]["instructions"]
        .as_str()
        .unwrap()
        .starts_with("math-forge is not installed"));
    let list = mcp_exchange(
        &mut stdin,
        &mut stdout,
        "tools/list",
        &serde_json::json!({}),
    );
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"splice") && names.contains(&"search"),
        "{names:?}"
    );
    let call = serde_json::json!({"name": "holes", "arguments": {"file": "A.lean"}});
    let r = mcp_exchange(&mut stdin, &mut stdout, "tools/call", &call);
    assert_eq!(r["result"]["isError"], true, "{r}");
    let text = r["result"]["content"][0]["text"].as_str().unwrap();
    assert!(
        text.starts_with("math-forge is not installed") && text.contains("cargo install"),
        "{text}"
    );
    let r = mcp_exchange(&mut stdin, &mut stdout, "ping", &serde_json::json!({}));
    assert_eq!(r["result"], serde_json::json!({}));

    // Installed now (where the launcher looks): the next call is math-forge's own answer.
    let data_bin = dir.path().join("data/bin");
    std::fs::create_dir_all(&data_bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mf"), data_bin.join("mf")).unwrap();
    let r = mcp_exchange(&mut stdin, &mut stdout, "tools/call", &call);
    assert_ne!(r["result"]["isError"], true, "{r}");
    assert_eq!(
        r["result"]["structuredContent"]["holes"][0]["line"], 2,
        "{r}"
    );
    let r = mcp_exchange(
        &mut stdin,
        &mut stdout,
        "tools/list",
        &serde_json::json!({}),
    );
    assert_eq!(r["result"]["tools"].as_array().unwrap().len(), names.len());
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(status.success());
}

/// TeX's METAFONT is also called `mf`, often first on PATH. A program named `mf` that is not
/// math-forge's is never run, wherever it is; math-forge's own is found after it.
#[test]
fn launcher_never_runs_another_mf() {
    let dir = tempfile::tempdir().unwrap();
    let tex = dir.path().join("texbin");
    std::fs::create_dir_all(&tex).unwrap();
    let ran = dir.path().join("metafont-ran");
    let fake = tex.join("mf");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\necho 'This is METAFONT'\ntouch '{}'\n",
            ran.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let real = dir.path().join("real");
    std::fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mf"), real.join("mf")).unwrap();
    let bin = dir.path().join("plugin/bin");
    // METAFONT first on PATH, named in MATH_FORGE_BIN and CARGO_HOME too; math-forge later.
    let env = [
        (
            "PATH",
            format!(
                "{}:{}:{}:/usr/bin:/bin",
                tex.display(),
                bin.display(),
                real.display()
            ),
        ),
        ("MATH_FORGE_BIN", tex.display().to_string()),
        ("CARGO_HOME", dir.path().display().to_string()),
    ];
    std::fs::create_dir_all(dir.path().join("bin")).unwrap();
    std::fs::copy(&fake, dir.path().join("bin/mf")).unwrap();
    let out = bare_launcher_with(dir.path(), "mf", &["--version"], "", &env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("mf "),
        "math-forge's mf ran"
    );
    assert!(!ran.exists(), "METAFONT was run");
    // With only METAFONT: not found, visibly, and still never run.
    let env = [(
        "PATH",
        format!("{}:{}:/usr/bin:/bin", tex.display(), bin.display()),
    )];
    let out = bare_launcher_with(dir.path(), "mf", &["--version"], "", &env);
    assert_eq!(out.status.code(), Some(127));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("METAFONT"), "{err}");
    assert!(!ran.exists(), "METAFONT was run");
}

/// Where `cargo install` puts binaries: `$CARGO_HOME/bin` (and `~/.cargo/bin` without it).
#[test]
fn launcher_finds_mf_where_cargo_installs_it() {
    let dir = tempfile::tempdir().unwrap();
    let cargo_bin = dir.path().join("cargo/bin");
    std::fs::create_dir_all(&cargo_bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mk"), cargo_bin.join("mk")).unwrap();
    let env = [("CARGO_HOME", dir.path().join("cargo").display().to_string())];
    let out = bare_launcher_with(dir.path(), "mk", &["--version"], "", &env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("mk "));
    let home_bin = dir.path().join(".cargo/bin");
    std::fs::create_dir_all(&home_bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mf"), home_bin.join("mf")).unwrap();
    let out = bare_launcher(dir.path(), "mf", &["--version"], "");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("mf "));
}

// ---------------------------------------------------------------------------------------------
// Every command line the plugin and the messages name exists, with its flags

/// `TOOL ARGS… -h` of the binaries built with the tests (cached: one run per command path).
struct Helps {
    cache: std::collections::HashMap<Vec<String>, Option<String>>,
}

impl Helps {
    fn new() -> Helps {
        Helps {
            cache: std::collections::HashMap::new(),
        }
    }

    /// The short help of `path` (`["mk", "record", "failure"]`), or None when it is no command.
    fn get(&mut self, path: &[String]) -> Option<String> {
        if let Some(h) = self.cache.get(path) {
            return h.clone();
        }
        let bin = match path[0].as_str() {
            "mf" => env!("CARGO_BIN_EXE_mf"),
            _ => env!("CARGO_BIN_EXE_mk"),
        };
        let out = std::process::Command::new(bin)
            .args(&path[1..])
            .arg("-h")
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        let help = out
            .status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned());
        self.cache.insert(path.to_vec(), help.clone());
        help
    }
}

/// The subcommand names of a help text's `Commands:` section.
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

/// The help line of `flag` (`--type`, `-o`), if the help has it: `  -t, --type <T>  …` or
/// `      --json  …`.
fn flag_line<'h>(help: &'h str, flag: &str) -> Option<&'h str> {
    help.lines().find(|l| {
        let t = l.trim_start();
        let words: Vec<&str> = t.split_whitespace().take(2).collect();
        let (short, long) = match words.as_slice() {
            [s, l, ..] if s.len() == 3 && s.starts_with('-') && s.ends_with(',') => {
                (Some(&s[..2]), Some(*l))
            }
            [w, ..] if w.starts_with("--") => (None, Some(*w)),
            [w, ..] if w.len() == 2 && w.starts_with('-') => (Some(*w), None),
            _ => (None, None),
        };
        short == Some(flag) || long == Some(flag)
    })
}

/// Whether the flag of a help line takes a value (`--type <T>`).
fn takes_value(line: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = if words.first().is_some_and(|w| w.ends_with(',')) {
        2
    } else {
        1
    };
    words.get(at).is_some_and(|w| w.starts_with('<'))
}

/// The values a flag's help line says it takes, when it lists them all: clap's `[possible
/// values: a, b]`, or a description that is the list (`proven, partial, failed or untried`, or
/// `(theorem, technique, insight)` without `…`).
fn values_of(line: &str) -> Option<Vec<String>> {
    let list = |text: &str| -> Option<Vec<String>> {
        let words: Vec<String> = text
            .split(", ")
            .flat_map(|w| w.split(" or "))
            .map(str::to_string)
            .collect();
        let listed = words.len() > 1
            && words
                .iter()
                .all(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        listed.then_some(words)
    };
    if let Some((_, values)) = line.split_once("[possible values: ") {
        return list(values.split(']').next()?);
    }
    let description = line
        .split("  ")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .last()?;
    if let Some(inner) = description
        .rsplit_once('(')
        .and_then(|(_, r)| r.strip_suffix(')'))
    {
        return list(inner);
    }
    list(description)
}

/// Checks one command line as the text writes it (`mk record failure --problem P --why "…"`):
/// each subcommand exists, each flag is one of its command's, and a value written for a flag
/// with possible values (`--color never`, `--outcome proven|failed`) is one of them. Returns
/// what is wrong, or None.
fn check_command_line(helps: &mut Helps, line: &str) -> Option<String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let mut path = vec![tokens[0].to_string()];
    let mut help = helps.get(&path)?;
    let mut i = 1;
    while i < tokens.len() {
        let tok = tokens[i].trim_matches(|c| c == '\'' || c == '"');
        // The end of the command: a pipe, a redirection, another command, end of options.
        if ["|", "||", "&&", ";", ">", "2>", "<", "--"].contains(&tok) || tok.starts_with('>') {
            break;
        }
        if tok.starts_with('-') && tok.len() > 1 && !tok.starts_with("-=") {
            let (flag, inline) = match tok.split_once('=') {
                Some((f, v)) => (f, Some(v)),
                None => (tok, None),
            };
            let Some(fl) = flag_line(&help, flag) else {
                return Some(format!("`{}` has no flag {flag}", path.join(" ")));
            };
            // A flag with a value: check it against the possible values, if any.
            if takes_value(fl) {
                let value = inline.or_else(|| {
                    i += 1;
                    tokens.get(i).copied()
                });
                if let (Some(value), Some(values)) = (value, values_of(fl)) {
                    for v in value.split('|') {
                        let concrete = v.chars().all(|c| c.is_ascii_lowercase() || c == '_');
                        if concrete && !values.iter().any(|x| x == v) {
                            return Some(format!(
                                "`{} {flag}` takes {values:?}, not {v}",
                                path.join(" ")
                            ));
                        }
                    }
                }
            }
        } else if path.len() == 1 || subcommands(&help).contains(&tok.to_string()) {
            if !subcommands(&help).contains(&tok.to_string()) {
                // The first word after the tool must be one of its commands.
                let known = tok.chars().all(|c| c.is_ascii_lowercase() || c == '-');
                if known {
                    return Some(format!("`{}` has no command {tok}", path.join(" ")));
                }
                return None;
            }
            path.push(tok.to_string());
            help = helps
                .get(&path)
                .unwrap_or_else(|| panic!("`{} -h` fails", path.join(" ")));
        }
        i += 1;
    }
    None
}

/// The `mf …`/`mk …` command lines a text shows in backquotes (and `!`-commands).
fn command_lines(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices('`') {
        let rest = &text[i + 1..];
        if !(rest.starts_with("mk ") || rest.starts_with("mf ")) {
            continue;
        }
        if let Some(end) = rest.find('`') {
            let span = &rest[..end];
            if !span.contains('\n') {
                out.push(span.replace("\\\"", "\""));
            }
        }
    }
    out
}

/// What a newcomer or an agent is told to run (slash commands, the skill, the MCP tools'
/// descriptions, the hooks' and the binaries' messages, the README) runs: every `mf …`/`mk …`
/// shown in backquotes names a command that exists, with flags it has and values it takes.
#[test]
fn every_command_line_shown_to_users_and_agents_exists_with_its_flags() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    fn walk(dir: &Path, files: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, files);
            } else if path
                .extension()
                .is_some_and(|e| e == "rs" || e == "md" || e == "json")
            {
                files.push(path);
            }
        }
    }
    walk(&plugin_dir(), &mut files);
    walk(&root.join("src"), &mut files);
    let mut helps = Helps::new();
    let mut checked = 0;
    let mut wrong = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let mut lines = command_lines(&text);
        // A slash command's argument hint: the flags it offers are its `mk` command's.
        if file.parent().is_some_and(|p| p.ends_with("commands")) {
            let hint = text.lines().find_map(|l| l.strip_prefix("argument-hint: "));
            let bash = text
                .split_once("Bash(mk ")
                .and_then(|(_, r)| r.split_once(':'))
                .map(|(sub, _)| sub.to_string());
            if let (Some(hint), Some(sub)) = (hint, bash) {
                let flags: String = hint
                    .split(['[', ']'])
                    .filter(|p| p.starts_with("--"))
                    .collect::<Vec<_>>()
                    .join(" ");
                lines.push(format!("mk {sub} {flags}"));
            }
        }
        for line in lines {
            checked += 1;
            if let Some(why) = check_command_line(&mut helps, &line) {
                wrong.push(format!(
                    "{}: `{line}`: {why}",
                    file.strip_prefix(root).unwrap().display()
                ));
            }
        }
    }
    assert!(checked > 50, "only {checked} command lines found");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // …and the check can fail.
    for bad in [
        "mk search --kind theorem",
        "mk recall erdos_850",
        "mk record strategy --problem P --approach A --outcome won",
        "mf splice F D --hole 2",
    ] {
        assert!(check_command_line(&mut helps, bad).is_some(), "{bad}");
    }
}

/// The MCP tools that name their command (`Same as \`mk find --json\``) take that
/// command's arguments: each property is a flag (`new_problem` → `--new-problem`) or an
/// argument of it, and an enumerated property offers only values the command accepts.
#[test]
fn mcp_tools_take_the_arguments_of_their_commands() {
    let mut helps = Helps::new();
    for spec in math_forge::mcp::tools::specs() {
        let desc = spec.description;
        let Some(cmd) = command_lines(desc).into_iter().next() else {
            panic!("MCP tool {}: the description names its command", spec.name)
        };
        let cmd: Vec<String> = cmd
            .split_whitespace()
            .take_while(|w| !w.starts_with('-'))
            .map(str::to_string)
            .collect();
        let help = helps
            .get(&cmd)
            .unwrap_or_else(|| panic!("{}: `{}` is no command", spec.name, cmd.join(" ")));
        let usage = help
            .lines()
            .find(|l| l.starts_with("Usage: "))
            .unwrap()
            .to_string();
        let schema = &spec.schema;
        for (prop, def) in schema["properties"].as_object().unwrap() {
            let flag = format!("--{}", prop.replace('_', "-"));
            // A positional argument: its name in the usage line (`<QUERY>`, `[KEYWORD]`), or
            // the argument it is under another name (`hole` is `--sorry`, `file` `<PATH>`).
            let positional = usage.to_lowercase().contains(&format!("<{prop}>"))
                || usage.to_lowercase().contains(&format!("[{prop}]"))
                || usage.to_lowercase().contains(&format!("<{prop}>..."))
                || usage.to_lowercase().contains(&format!("[{prop}]..."));
            let renamed = match (spec.name, prop.as_str()) {
                ("splice", "hole") => flag_line(&help, "--sorry").is_some(),
                ("recommend", "problem") => usage.contains("<TARGET>"),
                ("splice", "declaration") => usage.contains("<DECL"),
                ("holes" | "outline", "file") => usage.contains("<PATH>"),
                ("splice", "file") => usage.contains("<FILE"),
                _ => false,
            };
            let line = flag_line(&help, &flag);
            assert!(
                positional || renamed || line.is_some(),
                "MCP tool {}: property {prop} is neither a flag nor an argument of `{}`:\n{help}",
                spec.name,
                cmd.join(" ")
            );
            if let (Some(values), Some(line)) = (def["enum"].as_array(), line) {
                for v in values {
                    let v = v.as_str().unwrap();
                    assert!(
                        line.contains(v),
                        "MCP tool {}: {prop} offers {v}, which `{} {flag}` does not name: {line}",
                        spec.name,
                        cmd.join(" ")
                    );
                }
            }
        }
    }
}
