//! The plugin in the real Claude Code CLI (`claude -p`), offline: a scripted stand-in for the
//! Anthropic Messages API on 127.0.0.1 (`ANTHROPIC_BASE_URL`, a dummy key, no credentials, no
//! network) answers each request of a session with the next scripted `tool_use` block, then
//! text; Claude Code runs the tools and the plugin's real hooks and MCP server on them.
//! HOME (so `~/.claude`, the plugin data folder and the user-level knowledge base) is a
//! temporary directory.
//!
//! Sessions: a newcomer's first, before any knowledge base (the briefing and MCP search say it
//! is empty and how to fill it, new holes of one's own are allowed, `/math-forge:stats` runs
//! `mk stats` through the plugin's bin/); a gutting Edit and an axiom Write are denied, a
//! harmless Edit is applied; a
//! subagent's prompt carries knowledge-base context; MCP `search` answers from the knowledge
//! base `mf extract` filled from the shell in the same folder; a gutting MCP `splice`, and a
//! `splice` of a file outside the project, are refused; a day in the life (an attempt Lean
//! rejects when the agent runs `lake env lean` through Bash, taken back, a proof that passes `mf verify`) lands in the knowledge base as a
//! failure and a verified technique, and the next session's briefing says so; a Bash `sed` that guts a proof is
//! blocked at Stop, blocked again at the next stop, then announced; the plugin installed from
//! the repository's marketplace (no `--plugin-dir`, binaries where `cargo install` puts them)
//! gates the same, and takes a changed plugin of the same version on reinstall (not on
//! `claude plugin update`); a METAFONT stand-in first on PATH does not turn the gate off; without
//! math-forge the MCP server stays connected and says how to install.
//!
//! Skipped, saying so, where `claude` is not on PATH (`.ci/run` installs it). Tested with
//! Claude Code 2.1.197.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

/// How long one `claude` run may take before it is killed and the test fails.
const SESSION_TIMEOUT: Duration = Duration::from_secs(180);

/// The full name Claude Code gives a tool of the plugin's MCP server.
fn mcp_tool(name: &str) -> String {
    format!("mcp__plugin_math-forge_math-forge__{name}")
}

// ---------------------------------------------------------------------------------------------
// The Messages API stand-in

/// One scripted answer: a tool call, or text (which ends the turn).
#[derive(Clone, Debug)]
enum Step {
    Tool(String, Value),
    Text(&'static str),
}

fn tool(name: &str, input: Value) -> Step {
    Step::Tool(name.to_string(), input)
}

#[derive(Default)]
struct Shared {
    /// Every request: `{"path": …, "body": …}`.
    log: Vec<Value>,
    /// Scenario name → its steps.
    scripts: HashMap<String, Vec<Step>>,
}

/// An HTTP server on 127.0.0.1 answering `POST /v1/messages` (streaming or not) from the
/// scripts. The scenario is the `scenario:NAME` word of the conversation's first user message;
/// the step is one past the highest step marker in the conversation so far (tool_use ids
/// `toolu_sN`, text `[step N]`), so a retried request gets the same answer. A conversation of
/// no scenario (a subagent's) gets text.
struct StandIn {
    port: u16,
    shared: Arc<Mutex<Shared>>,
}

impl StandIn {
    fn start() -> StandIn {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = Arc::new(Mutex::new(Shared::default()));
        let s = Arc::clone(&shared);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let s = Arc::clone(&s);
                std::thread::spawn(move || {
                    let _ = serve(stream, &s);
                });
            }
        });
        StandIn { port, shared }
    }

    fn script(&self, scenario: &str, steps: Vec<Step>) {
        self.shared
            .lock()
            .unwrap()
            .scripts
            .insert(scenario.to_string(), steps);
    }

    fn log(&self) -> Vec<Value> {
        self.shared.lock().unwrap().log.clone()
    }

    /// Requests of a scenario's main conversation, in order.
    fn requests(&self, scenario: &str) -> Vec<Value> {
        self.log()
            .into_iter()
            .filter(|r| scenario_of(&r["body"]).as_deref() == Some(scenario))
            .map(|r| r["body"].clone())
            .collect()
    }

    /// A short account of the requests, for failure messages.
    fn summary(&self) -> String {
        let mut out = String::from("stand-in request log:\n");
        for r in self.log() {
            let body = &r["body"];
            let msgs = body["messages"].as_array().map_or(0, Vec::len);
            let first = first_user_text(body);
            let last = body["messages"]
                .as_array()
                .and_then(|m| m.last())
                .map(|m| clip(&m["content"].to_string(), 300))
                .unwrap_or_default();
            out.push_str(&format!(
                "  {} stream={} messages={msgs} first={:?} last={last}\n",
                r["path"].as_str().unwrap_or(""),
                body["stream"],
                clip(&first, 80),
            ));
        }
        out
    }
}

fn clip(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}…", s.chars().take(n).collect::<String>())
    }
}

/// The text of the first user message (all its text blocks).
fn first_user_text(body: &Value) -> String {
    let Some(first) = body["messages"].as_array().and_then(|m| m.first()) else {
        return String::new();
    };
    blocks_text(&first["content"])
}

fn blocks_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn scenario_of(body: &Value) -> Option<String> {
    let text = first_user_text(body);
    let at = text.find("scenario:")?;
    Some(
        text[at + "scenario:".len()..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect(),
    )
}

/// One past the highest step marker of the assistant's turns so far.
fn next_step(body: &Value) -> usize {
    let mut next = 0;
    for m in body["messages"].as_array().into_iter().flatten() {
        if m["role"] != "assistant" {
            continue;
        }
        let blocks = match &m["content"] {
            Value::Array(b) => b.clone(),
            other => vec![json!({"type": "text", "text": other})],
        };
        for b in blocks {
            let text = if b["type"] == "tool_use" {
                b["id"].as_str().unwrap_or("").replace("toolu_s", "[step ")
            } else {
                b["text"].as_str().unwrap_or("").to_string()
            };
            for part in text.split("[step ").skip(1) {
                if let Ok(n) = part
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect::<String>()
                    .parse::<usize>()
                {
                    next = next.max(n + 1);
                }
            }
        }
    }
    next
}

fn serve(mut stream: TcpStream, shared: &Mutex<Shared>) -> std::io::Result<()> {
    stream.set_read_timeout(Some(Duration::from_secs(60)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let mut length = 0usize;
    let mut chunked = false;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("transfer-encoding:") && lower.contains("chunked") {
            chunked = true;
        }
    }
    let mut body = Vec::new();
    if chunked {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            if n == 0 {
                let mut end = String::new();
                reader.read_line(&mut end)?;
                break;
            }
            let mut chunk = vec![0; n + 2];
            reader.read_exact(&mut chunk)?;
            body.extend_from_slice(&chunk[..n]);
        }
    } else {
        body.resize(length, 0);
        reader.read_exact(&mut body)?;
    }
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .to_string();
    let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let steps = {
        let mut s = shared.lock().unwrap();
        s.log.push(json!({"path": path, "body": body}));
        scenario_of(&body).and_then(|name| s.scripts.get(&name).cloned())
    };
    if !path.starts_with("/v1/messages") {
        return respond(&mut stream, "404 Not Found", "application/json", b"{}");
    }
    if path.starts_with("/v1/messages/count_tokens") {
        return respond(
            &mut stream,
            "200 OK",
            "application/json",
            br#"{"input_tokens":10}"#,
        );
    }
    let n = next_step(&body);
    let step = steps
        .and_then(|s| s.get(n).cloned())
        .unwrap_or(Step::Text("done"));
    let (block, stop) = match step {
        Step::Tool(name, input) => (
            json!({"type": "tool_use", "id": format!("toolu_s{n}"), "name": name, "input": input}),
            "tool_use",
        ),
        Step::Text(text) => (
            json!({"type": "text", "text": format!("{text} [step {n}]")}),
            "end_turn",
        ),
    };
    let model = body["model"].clone();
    if body["stream"] != true {
        let msg = json!({"id": "msg_standin", "type": "message", "role": "assistant",
            "model": model, "content": [block], "stop_reason": stop, "stop_sequence": null,
            "usage": {"input_tokens": 1, "output_tokens": 1}});
        return respond(
            &mut stream,
            "200 OK",
            "application/json",
            msg.to_string().as_bytes(),
        );
    }
    let mut sse = String::new();
    let mut event = |name: &str, data: Value| {
        sse.push_str(&format!("event: {name}\ndata: {data}\n\n"));
    };
    event(
        "message_start",
        json!({"type": "message_start", "message": {"id": "msg_standin", "type": "message",
            "role": "assistant", "model": model, "content": [], "stop_reason": null,
            "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}}}),
    );
    if block["type"] == "tool_use" {
        let mut start = block.clone();
        start["input"] = json!({});
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": start}),
        );
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta":
                {"type": "input_json_delta", "partial_json": block["input"].to_string()}}),
        );
    } else {
        event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0,
                "content_block": {"type": "text", "text": ""}}),
        );
        event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0,
                "delta": {"type": "text_delta", "text": block["text"]}}),
        );
    }
    event(
        "content_block_stop",
        json!({"type": "content_block_stop", "index": 0}),
    );
    event(
        "message_delta",
        json!({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": null},
            "usage": {"output_tokens": 1}}),
    );
    event("message_stop", json!({"type": "message_stop"}));
    respond(&mut stream, "200 OK", "text/event-stream", sse.as_bytes())
}

fn respond(stream: &mut TcpStream, status: &str, kind: &str, body: &[u8]) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 {status}\r\ncontent-type: {kind}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )?;
    stream.write_all(body)?;
    stream.flush()?;
    stream.shutdown(std::net::Shutdown::Both)
}

// ---------------------------------------------------------------------------------------------
// The world: a project, a home, the binaries, a clone of the repository

struct World {
    tmp: tempfile::TempDir,
    claude: PathBuf,
    standin: StandIn,
}

impl World {
    fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }
    fn project(&self) -> PathBuf {
        self.path("project")
    }
    fn proofs(&self) -> PathBuf {
        self.project().join("Proofs.lean")
    }
    /// mf and mk, as installed somewhere on PATH.
    fn bin(&self) -> PathBuf {
        self.path("bin")
    }

    /// The environment of a user's shell and of `claude`: HOME in the temporary directory,
    /// the stand-in as the API, nothing else of the caller's.
    fn env(&self, home: &Path, path: &str) -> Vec<(String, String)> {
        let shell = ["/bin/bash", "/bin/sh"]
            .into_iter()
            .find(|s| Path::new(s).exists())
            .unwrap();
        [
            ("HOME", home.display().to_string()),
            ("PATH", path.to_string()),
            ("SHELL", shell.to_string()),
            ("LANG", "C.UTF-8".to_string()),
            (
                "ANTHROPIC_BASE_URL",
                format!("http://127.0.0.1:{}", self.standin.port),
            ),
            ("ANTHROPIC_API_KEY", "sk-ant-dummy-e2e".to_string()),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_string()),
            ("DISABLE_AUTOUPDATER", "1".to_string()),
            ("DISABLE_TELEMETRY", "1".to_string()),
            ("DISABLE_ERROR_REPORTING", "1".to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect()
    }

    fn default_path(&self) -> String {
        "/usr/local/bin:/usr/bin:/bin".to_string()
    }

    /// A command in the user's shell environment (`HOME` = home).
    fn command(&self, program: &Path, home: &Path, path: &str) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear();
        for (k, v) in self.env(home, path) {
            cmd.env(k, v);
        }
        if let Ok(tmp) = std::env::var("TMPDIR") {
            cmd.env("TMPDIR", tmp);
        }
        cmd
    }
}

/// A run of `claude`: the stream-json events and stderr.
struct Run {
    events: Vec<Value>,
    stdout: String,
    stderr: String,
}

impl Run {
    /// The `tool_result` blocks Claude Code sent back, by tool_use id.
    fn tool_results(&self) -> HashMap<String, (bool, String)> {
        let mut out = HashMap::new();
        for e in &self.events {
            if e["type"] != "user" {
                continue;
            }
            for b in e["message"]["content"].as_array().into_iter().flatten() {
                if b["type"] == "tool_result" {
                    let text = match &b["content"] {
                        Value::String(s) => s.clone(),
                        other => blocks_text(other),
                    };
                    out.insert(
                        b["tool_use_id"].as_str().unwrap_or("").to_string(),
                        (b["is_error"] == true, text),
                    );
                }
            }
        }
        out
    }

    /// The outputs of the hooks of `event` (needs `--include-hook-events`).
    fn hook_outputs(&self, event: &str) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e["subtype"] == "hook_response" && e["hook_event"] == event)
            .map(|e| e["stdout"].as_str().unwrap_or("").to_string())
            .collect()
    }

    fn init(&self) -> Value {
        self.events
            .iter()
            .find(|e| e["type"] == "system" && e["subtype"] == "init")
            .cloned()
            .unwrap_or(Value::Null)
    }
}

struct Session<'a> {
    world: &'a World,
    scenario: &'static str,
    home: PathBuf,
    path: String,
    env: Vec<(String, String)>,
    plugin_dir: Option<PathBuf>,
    /// The prompt, instead of the scenario's marker (a slash command).
    prompt: Option<String>,
}

impl<'a> Session<'a> {
    fn new(world: &'a World, scenario: &'static str) -> Session<'a> {
        Session {
            world,
            scenario,
            home: world.path("home"),
            path: format!("{}:{}", world.bin().display(), world.default_path()),
            env: Vec::new(),
            plugin_dir: Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("plugin")),
            prompt: None,
        }
    }

    fn env(mut self, k: &str, v: impl Into<String>) -> Self {
        self.env.push((k.to_string(), v.into()));
        self
    }

    /// Runs `claude -p` on the scenario's script in the project.
    fn run(&self, steps: Vec<Step>) -> Run {
        let w = self.world;
        w.standin.script(self.scenario, steps);
        let mut cmd = w.command(&w.claude, &self.home, &self.path);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        cmd.current_dir(w.project())
            .arg("-p")
            .arg(self.prompt.clone().unwrap_or_else(|| {
                format!("scenario:{} (math-forge end-to-end test)", self.scenario)
            }))
            .args([
                "--output-format",
                "stream-json",
                "--verbose",
                "--include-hook-events",
            ])
            .args(["--permission-mode", "acceptEdits"])
            .arg("--allowedTools")
            .arg(format!(
                "Bash {} {}",
                mcp_tool("search"),
                mcp_tool("splice")
            ));
        if let Some(dir) = &self.plugin_dir {
            cmd.arg("--plugin-dir").arg(dir);
        }
        let run = run_with_timeout(cmd, &format!("claude -p scenario:{}", self.scenario));
        let events: Vec<Value> = run
            .0
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let r = Run {
            events,
            stdout: run.0,
            stderr: run.1,
        };
        let result = r.events.iter().find(|e| e["type"] == "result");
        assert!(
            result.is_some_and(|e| e["is_error"] == false),
            "claude -p scenario:{} did not finish cleanly\nstderr:\n{}\nstdout (last 3000 chars):\n{}\n{}",
            self.scenario,
            r.stderr,
            tail(&r.stdout, 3000),
            w.standin.summary()
        );
        r
    }

    /// A failure message with everything needed to see why.
    fn explain(&self, run: &Run, what: &str) -> String {
        format!(
            "scenario:{}: {what}\nclaude stderr:\n{}\nclaude stdout (last 4000 chars):\n{}\n{}",
            self.scenario,
            run.stderr,
            tail(&run.stdout, 4000),
            self.world.standin.summary()
        )
    }
}

fn tail(s: &str, n: usize) -> String {
    let chars: Vec<char> = s.chars().collect();
    chars[chars.len().saturating_sub(n)..].iter().collect()
}

/// Runs `cmd` to the end or [`SESSION_TIMEOUT`]: (stdout, stderr). Panics, with both, on a
/// timeout or a failed start.
fn run_with_timeout(mut cmd: Command, what: &str) -> (String, String, Option<i32>) {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > SESSION_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = out_t.join().unwrap();
    let stderr = err_t.join().unwrap();
    let Some(status) = status else {
        panic!(
            "{what}: no answer within {} s; killed\nstderr:\n{stderr}\nstdout (last 3000 chars):\n{}",
            SESSION_TIMEOUT.as_secs(),
            tail(&stdout, 3000)
        );
    };
    (stdout, stderr, status.code())
}

fn claude_on_path() -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join("claude"))
        .find(|p| p.is_file())
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn link_binaries(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mf"), dir.join("mf")).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_mk"), dir.join("mk")).unwrap();
}

const PROOFS: &str = "theorem one_eq : 1 = 1 := by\n  rfl\n\ntheorem two_eq : 2 = 2 := by\n  sorry\n\ntheorem three_eq : 3 = 3 := by\n  decide\n";

const DAY: &str = "theorem add_comm_small (a b : ℕ) (h : a ≤ 3) : a + b = b + a := by\n  sorry\n";

const RULE: &str = "[math-forge] Rule: never replace a proof with sorry/admit, never add an axiom.";

fn world(claude: PathBuf) -> World {
    let tmp = tempfile::tempdir().unwrap();
    let w = World {
        tmp,
        claude,
        standin: StandIn::start(),
    };
    // The project: a git work tree with a Lean file and Aristotle result files.
    let project = w.project();
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(w.proofs(), PROOFS).unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/results"),
        &project.join("results"),
    );
    git(&project, &["init", "-q"]);
    git(&project, &["add", "."]);
    git(&project, &["commit", "-qm", "start"]);
    std::fs::create_dir_all(w.path("outside")).unwrap();
    std::fs::write(w.path("outside/B.lean"), PROOFS).unwrap();
    std::fs::create_dir_all(w.path("home")).unwrap();
    link_binaries(&w.bin());
    // A fresh clone of the repository, without any build: what a marketplace install copies.
    let clone = w.path("clone");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    copy_dir(&root.join(".claude-plugin"), &clone.join(".claude-plugin"));
    copy_dir(&root.join("plugin"), &clone.join("plugin"));
    w
}

/// The tool_use id the stand-in gives step `n`.
fn id(n: usize) -> String {
    format!("toolu_s{n}")
}

#[test]
fn the_plugin_in_the_real_claude_code_cli() {
    let Some(claude) = claude_on_path() else {
        eprintln!(
            "SKIPPED the_plugin_in_the_real_claude_code_cli: `claude` is not on PATH \
             (npm install -g @anthropic-ai/claude-code; .ci/run does)"
        );
        return;
    };
    let started = Instant::now();
    let w = world(claude);
    let version = Command::new(&w.claude).arg("--version").output().unwrap();
    assert!(
        version.status.success(),
        "{} is on PATH but does not run (an npm install whose postinstall was skipped? run `node $(npm root -g)/@anthropic-ai/claude-code/install.cjs`): {}",
        w.claude.display(),
        String::from_utf8_lossy(&version.stderr)
    );
    eprintln!(
        "e2e: {} (the plugin is tested with 2.1.197)",
        String::from_utf8_lossy(&version.stdout).trim()
    );

    // The shell: `mf extract` fills the knowledge base the rule finds in the project folder
    // (here the user-level one: no .math-forge/ in the project).
    let out = w
        .command(
            Path::new(env!("CARGO_BIN_EXE_mf")),
            &w.path("home"),
            &w.default_path(),
        )
        .current_dir(w.project())
        .args(["extract", "--all", "results"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = w
        .command(
            Path::new(env!("CARGO_BIN_EXE_mk")),
            &w.path("home"),
            &w.default_path(),
        )
        .current_dir(w.project())
        .args(["search", "prime", "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let shell_hits: Vec<i64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_i64()
                .unwrap()
        })
        .collect();
    assert!(!shell_hits.is_empty(), "the shell's search finds findings");

    let bin = w.bin().display().to_string();

    // 0. A newcomer's first session, before any knowledge base: the briefing and the MCP
    //    search say it is empty and how to fill it (not "no hits"); a new Lean file with its
    //    own hole and a new lemma with a sorry are allowed, silently; /math-forge:stats runs
    //    `mk stats` through the plugin's bin/ (no mf or mk on the user's PATH).
    let home0 = w.path("home0");
    std::fs::create_dir_all(&home0).unwrap();
    let mut s = Session::new(&w, "newcomer").env("MATH_FORGE_BIN", &bin);
    s.home = home0.clone();
    s.path = w.default_path();
    let proofs = w.proofs().display().to_string();
    let new_file = w.project().join("New.lean");
    let run = s.run(vec![
        tool(
            "Write",
            json!({"file_path": new_file.display().to_string(),
                   "content": "theorem four_eq : 4 = 4 := by\n  sorry\n"}),
        ),
        tool("Read", json!({"file_path": proofs})),
        tool(
            "Edit",
            json!({"file_path": proofs, "old_string": "theorem three_eq",
                   "new_string": "lemma helper : 6 = 6 := by\n  sorry\n\ntheorem three_eq"}),
        ),
        tool(&mcp_tool("search"), json!({"query": "prime"})),
        Step::Text("done"),
    ]);
    let briefing = run.hook_outputs("SessionStart").join("\n");
    assert!(
        briefing.contains("KB: empty (`mf extract --all RESULTS_DIR` adds result files"),
        "{}",
        s.explain(
            &run,
            "the briefing says the knowledge base is empty and how to fill it"
        )
    );
    let results = run.tool_results();
    for step in [0, 2] {
        let (err, text) = results.get(&id(step)).cloned().unwrap_or_default();
        assert!(
            !err && !text.contains("[math-forge]"),
            "{}",
            s.explain(
                &run,
                &format!("step {step}, a new hole of its own, is allowed: {text}")
            )
        );
    }
    assert!(new_file.is_file());
    assert!(std::fs::read_to_string(w.proofs())
        .unwrap()
        .contains("lemma helper : 6 = 6 := by\n  sorry"));
    let (err, text) = results.get(&id(3)).cloned().unwrap_or_default();
    let answer: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    assert!(
        !err && answer["hits"] == json!([])
            && answer["note"].as_str().is_some_and(
                |n| n.contains("is empty: fill it with `mf extract --all RESULTS_DIR`")
            ),
        "{}",
        s.explain(
            &run,
            &format!("MCP search says the knowledge base is empty: {text}")
        )
    );
    let mut s = Session::new(&w, "stats").env("MATH_FORGE_BIN", &bin);
    s.home = home0.clone();
    s.path = w.default_path();
    s.prompt = Some("/math-forge:stats".into());
    let run = s.run(vec![]);
    let expanded = w
        .standin
        .log()
        .into_iter()
        .map(|r| first_user_text(&r["body"]))
        .find(|t| t.contains("math-forge:stats"))
        .unwrap_or_default();
    assert!(
        expanded.contains("knowledge.db  ") && expanded.contains("Facts: 0"),
        "{}",
        s.explain(
            &run,
            &format!("/math-forge:stats shows `mk stats`: {expanded}")
        )
    );
    std::fs::remove_file(&new_file).unwrap();
    git(&w.project(), &["checkout", "-q", "Proofs.lean"]);

    // 1. The gate: a gutting Edit and an axiom Write are denied, a harmless Edit applied.
    let s = Session::new(&w, "gate").env("MATH_FORGE_BIN", &bin);
    let proofs = w.proofs().display().to_string();
    let run = s.run(vec![
        tool("Read", json!({"file_path": proofs})),
        tool(
            "Edit",
            json!({"file_path": proofs, "old_string": "  rfl", "new_string": "  sorry"}),
        ),
        tool(
            "Write",
            json!({"file_path": w.project().join("Cheat.lean").display().to_string(),
                   "content": "axiom cheat : False\n"}),
        ),
        tool(
            "Edit",
            json!({"file_path": proofs, "old_string": "  sorry", "new_string": "  rfl"}),
        ),
        Step::Text("done"),
    ]);
    let results = run.tool_results();
    let (err, text) = results.get(&id(1)).cloned().unwrap_or_default();
    assert!(
        err && text.starts_with(RULE) && text.contains("theorem one_eq"),
        "{}",
        s.explain(&run, "the gutting Edit is denied with the rule")
    );
    let (err, text) = results.get(&id(2)).cloned().unwrap_or_default();
    assert!(
        err && text.starts_with(RULE) && text.contains("axiom cheat"),
        "{}",
        s.explain(&run, "the axiom Write is denied with the rule")
    );
    let (err, text) = results.get(&id(3)).cloned().unwrap_or_default();
    assert!(
        !err,
        "{}",
        s.explain(&run, &format!("the harmless Edit is applied: {text}"))
    );
    let now = std::fs::read_to_string(w.proofs()).unwrap();
    assert_eq!(
        now,
        PROOFS.replace("  sorry", "  rfl"),
        "only the harmless edit was written"
    );
    assert!(!w.project().join("Cheat.lean").exists());
    // The briefing read the same knowledge base as the shell.
    let briefing = run.hook_outputs("SessionStart").join("\n");
    assert!(
        briefing.contains("KB: ") && !briefing.contains("KB: empty"),
        "{}",
        s.explain(&run, "the briefing sees the shell's knowledge base")
    );
    // Settle the harmless edit, so that later sessions start from a clean tree.
    git(&w.project(), &["commit", "-qam", "two_eq proven"]);

    // 2. The subagent's prompt carries knowledge-base context.
    let s = Session::new(&w, "subagent").env("MATH_FORGE_BIN", &bin);
    let task = "subagent-task: prove erdos_850 for small n from the prime factors of n(n+1)(n+2)";
    let run = s.run(vec![
        tool(
            "Agent",
            json!({"description": "small cases", "prompt": task, "subagent_type": "general-purpose"}),
        ),
        Step::Text("done"),
    ]);
    let sub = w
        .standin
        .log()
        .into_iter()
        .map(|r| first_user_text(&r["body"]))
        .find(|t| t.contains("subagent-task:"));
    let sub = sub.unwrap_or_else(|| panic!("{}", s.explain(&run, "the subagent ran")));
    assert!(
        sub.contains(&format!("{task}\n\n[math-forge] ")) && sub.contains("erdos_850"),
        "{}",
        s.explain(
            &run,
            &format!("the subagent's prompt carries KB context: {sub}")
        )
    );

    // 3. MCP: search answers from the shell's knowledge base; splice is gated and confined.
    let s = Session::new(&w, "mcp").env("MATH_FORGE_BIN", &bin);
    let outside = w.path("outside/B.lean").display().to_string();
    let run = s.run(vec![
        tool(&mcp_tool("search"), json!({"query": "prime", "limit": 5})),
        tool(
            &mcp_tool("splice"),
            json!({"file": "Proofs.lean", "declaration": "one_eq", "proof": "sorry"}),
        ),
        tool(
            &mcp_tool("splice"),
            json!({"file": outside, "declaration": "two_eq", "proof": "rfl"}),
        ),
        Step::Text("done"),
    ]);
    let results = run.tool_results();
    let (err, text) = results.get(&id(0)).cloned().unwrap_or_default();
    let hits: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    let mcp_hits: Vec<i64> = hits["hits"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["id"].as_i64())
        .collect();
    assert!(
        !err && mcp_hits == shell_hits,
        "{}",
        s.explain(
            &run,
            &format!("MCP search finds what `mk search` from the shell finds: {mcp_hits:?} vs {shell_hits:?}: {text}")
        )
    );
    let (err, text) = results.get(&id(1)).cloned().unwrap_or_default();
    assert!(
        err && text.contains("has a complete proof"),
        "{}",
        s.explain(&run, "a gutting splice is refused")
    );
    let (err, text) = results.get(&id(2)).cloned().unwrap_or_default();
    assert!(
        err && text.contains("refused, outside the project"),
        "{}",
        s.explain(&run, "a splice outside the project is refused")
    );
    assert_eq!(
        std::fs::read_to_string(w.path("outside/B.lean")).unwrap(),
        PROOFS
    );
    assert!(std::fs::read_to_string(w.proofs())
        .unwrap()
        .contains("  rfl\n\ntheorem two_eq"));

    // 3b. A day in the life: the agent reads a file with a hole, tries `norm_num` and runs
    //     `lake env lean` on it through Bash (Lean, a stand-in `lake` here, leaves the goal:
    //     the command fails, and PostToolUseFailure's `mf hook lean-output` marks the attempt
    //     rejected), takes its attempt back, closes the hole with `omega`, checks it with
    //     `mf verify`, and stops. The knowledge base keeps the rejected attempt as failed and the
    //     proof as a verified technique; the next session's briefing says so, briefly.
    let day = w.project().join("Day.lean");
    std::fs::write(&day, DAY).unwrap();
    git(&w.project(), &["add", "Day.lean"]);
    git(&w.project(), &["commit", "-qm", "a hole"]);
    let lakebin = w.path("lakebin");
    std::fs::create_dir_all(&lakebin).unwrap();
    std::fs::write(
        lakebin.join("lake"),
        "#!/bin/sh\n# `lake env lean FILE`: norm_num leaves the goal\nif grep -q norm_num \"$3\"; then\n  echo \"$3:2:2: error: unsolved goals\"\n  echo 'a b : ℕ'\n  echo '⊢ a + b = b + a'\n  exit 1\nfi\nexit 0\n",
    )
    .unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(lakebin.join("lake"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
    }
    let mut s = Session::new(&w, "day").env("MATH_FORGE_BIN", &bin);
    s.path = format!("{}:{}", lakebin.display(), s.path);
    let day_path = day.display().to_string();
    let edit = |old: &str, new: &str| {
        tool(
            "Edit",
            json!({"file_path": day_path, "old_string": old, "new_string": new}),
        )
    };
    let verify = tool(
        "Bash",
        json!({"command": "mf verify Day.lean", "description": "check the proof with Lean"}),
    );
    let run = s.run(vec![
        tool("Read", json!({"file_path": day_path})),
        edit("  sorry", "  norm_num"),
        tool(
            "Bash",
            json!({"command": "lake env lean Day.lean", "description": "check the proof with Lean"}),
        ),
        edit("  norm_num", "  sorry"),
        edit("  sorry", "  omega"),
        verify,
        Step::Text("done"),
    ]);
    let results = run.tool_results();
    let (err, text) = results.get(&id(2)).cloned().unwrap_or_default();
    let failure = run.hook_outputs("PostToolUseFailure").join("\n");
    assert!(
        err && text.contains("Day.lean:2:2: error: unsolved goals")
            && failure.contains(
                "[math-forge] Lean rejected this session's attempt at add_comm_small in Day.lean"
            ),
        "{}",
        s.explain(
            &run,
            &format!("Lean's error from Bash marks the attempt rejected: {text} {failure}")
        )
    );
    let (err, text) = results.get(&id(3)).cloned().unwrap_or_default();
    let pre = run.hook_outputs("PreToolUse");
    assert!(
        !err && pre
            .iter()
            .any(|o| o.contains("[math-forge] Allowed: this edit of Day.lean puts back a hole")),
        "{}",
        s.explain(
            &run,
            &format!("taking back a rejected attempt is allowed and said: {text} {pre:?}")
        )
    );
    let (err, text) = results.get(&id(5)).cloned().unwrap_or_default();
    assert!(
        !err && text.contains("PASS Day.lean"),
        "{}",
        s.explain(&run, &format!("the second proof passes: {text}"))
    );
    assert_eq!(
        std::fs::read_to_string(&day).unwrap(),
        DAY.replace("  sorry", "  omega")
    );
    let kb =
        rusqlite::Connection::open(w.path("home/.local/share/math-forge/knowledge.db")).unwrap();
    let captured: Vec<(String, String, String)> = kb
        .prepare(
            "SELECT f.finding_type, f.confidence, f.description FROM session_captures c
             JOIN findings f ON f.id = c.finding_id WHERE c.declaration = 'add_comm_small'
             ORDER BY f.id",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(
        captured.len() == 2
            && captured[0].0 == "technique"
            && captured[0].1 == "verified"
            && captured[0].2.contains("Proof: := by omega")
            && captured[1].0 == "failure"
            && captured[1]
                .2
                .contains("attempt 1: `by norm_num` — Lean rejected it (unsolved goals)"),
        "{}",
        s.explain(
            &run,
            &format!("the KB keeps the failure and the proof: {captured:#?}")
        )
    );
    let s = Session::new(&w, "day-after").env("MATH_FORGE_BIN", &bin);
    let run = s.run(vec![
        tool("Read", json!({"file_path": day_path})),
        Step::Text("done"),
    ]);
    let briefing = run.hook_outputs("SessionStart").join("\n");
    let v: Value = serde_json::from_str(briefing.trim()).unwrap_or(Value::Null);
    let context = v["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or("");
    assert!(
        context.contains("EARLIER SESSIONS HERE")
            && context.contains("- `add_comm_small` (Day.lean): closed with linear arithmetic (omega) (`mf verify` passed); failed first: `by norm_num`: Lean rejected it (unsolved goals)")
            && context.chars().count() < 2000,
        "{}",
        s.explain(&run, &format!("the next briefing says what happened, briefly: {context}"))
    );
    git(&w.project(), &["commit", "-qam", "add_comm_small proven"]);

    // 4. A shell edit that guts a proof: blocked at Stop, blocked at the next stop too, then
    //    (at Claude Code's limit, here 2) the turn ends with a message for the user.
    let s = Session::new(&w, "sed")
        .env("MATH_FORGE_BIN", &bin)
        .env("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP", "2");
    let run = s.run(vec![
        tool(
            "Bash",
            json!({"command": "sed -i 's/decide/sorry/' Proofs.lean", "description": "edit"}),
        ),
        Step::Text("finished"),
        Step::Text("finished again"),
        Step::Text("finished once more"),
        Step::Text("finished at last"),
    ]);
    let last = w.standin.requests("sed").pop().unwrap_or(Value::Null);
    // Claude Code may merge consecutive user turns: count the feedback blocks themselves.
    let feedback: Vec<String> = last["messages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|m| m["role"] == "user")
        .flat_map(|m| match &m["content"] {
            Value::Array(blocks) => blocks.iter().map(|b| blocks_text(&json!([b]))).collect(),
            other => vec![blocks_text(other)],
        })
        .filter(|t| t.contains("Stop hook feedback"))
        .collect();
    assert!(
        feedback.len() == 2
            && feedback
                .iter()
                .all(|f| f.contains(RULE) && f.contains("theorem three_eq")),
        "{}",
        s.explain(
            &run,
            &format!("two stops blocked with the rule: {feedback:?}")
        )
    );
    let stops = run.hook_outputs("Stop");
    assert!(
        stops.last().is_some_and(|o| o
            .contains("\"systemMessage\":\"math-forge: this turn ended with a proof still gutted")
            && o.contains("theorem three_eq")),
        "{}",
        s.explain(
            &run,
            &format!("the last stop announces the gutted proof: {stops:?}")
        )
    );
    git(&w.project(), &["checkout", "-q", "Proofs.lean"]);

    // 5. Installed from the repository's marketplace into a fresh home, the binaries where
    //    `cargo install` puts them, no --plugin-dir: it gates the same.
    let home2 = w.path("home2");
    std::fs::create_dir_all(&home2).unwrap();
    link_binaries(&w.path("cargo/bin"));
    for args in [
        vec![
            "plugin".to_string(),
            "marketplace".into(),
            "add".into(),
            w.path("clone").display().to_string(),
        ],
        vec![
            "plugin".into(),
            "install".into(),
            "math-forge@math-forge".into(),
        ],
    ] {
        let mut cmd = w.command(&w.claude, &home2, &w.default_path());
        cmd.current_dir(w.project()).args(&args);
        let (stdout, stderr, code) = run_with_timeout(cmd, &format!("claude {}", args.join(" ")));
        assert_eq!(code, Some(0), "claude {}: {stdout}{stderr}", args.join(" "));
    }
    let mut s =
        Session::new(&w, "marketplace").env("CARGO_HOME", w.path("cargo").display().to_string());
    s.home = home2.clone();
    s.path = w.default_path();
    s.plugin_dir = None;
    let run = s.run(vec![
        tool("Read", json!({"file_path": proofs})),
        tool(
            "Edit",
            json!({"file_path": proofs, "old_string": "  rfl\n\ntheorem two_eq", "new_string": "  sorry\n\ntheorem two_eq"}),
        ),
        Step::Text("done"),
    ]);
    let (err, text) = run.tool_results().get(&id(1)).cloned().unwrap_or_default();
    assert!(
        err && text.starts_with(RULE),
        "{}",
        s.explain(&run, "the marketplace install denies the gutting Edit")
    );
    let servers = run.init()["mcp_servers"].to_string();
    assert!(
        servers.contains("\"plugin:math-forge:math-forge\"") && servers.contains("connected"),
        "{}",
        s.explain(&run, &format!("its MCP server is connected: {servers}"))
    );
    // After a pull that changed the plugin under the same version, `claude plugin update`
    // keeps the cached copy; uninstall and install again (as the README says) takes the new.
    let cached = home2.join(format!(
        ".claude/plugins/cache/math-forge/math-forge/{}/commands/stats.md",
        env!("CARGO_PKG_VERSION")
    ));
    assert!(
        cached.is_file(),
        "{} is the installed copy",
        cached.display()
    );
    let pulled = w.path("clone/plugin/commands/stats.md");
    let mut text = std::fs::read_to_string(&pulled).unwrap();
    text.push_str("\n<!-- pulled -->\n");
    std::fs::write(&pulled, text).unwrap();
    let plugin_cli = |args: &[&str]| {
        let mut cmd = w.command(&w.claude, &home2, &w.default_path());
        cmd.current_dir(w.project()).args(args);
        let (stdout, stderr, code) = run_with_timeout(cmd, &format!("claude {}", args.join(" ")));
        assert_eq!(code, Some(0), "claude {}: {stdout}{stderr}", args.join(" "));
    };
    plugin_cli(&["plugin", "update", "math-forge@math-forge"]);
    assert!(
        !std::fs::read_to_string(&cached).unwrap().contains("pulled"),
        "`claude plugin update` now refreshes a same-version copy: the README's reinstall step can go"
    );
    plugin_cli(&["plugin", "uninstall", "math-forge@math-forge"]);
    plugin_cli(&["plugin", "install", "math-forge@math-forge"]);
    assert!(
        std::fs::read_to_string(&cached).unwrap().contains("pulled"),
        "uninstall and install take the changed plugin"
    );

    // 6. TeX's METAFONT first on PATH (named mf, as in every TeX distribution): never run,
    //    and the gate still works with math-forge's mf further down PATH.
    let texbin = w.path("texbin");
    std::fs::create_dir_all(&texbin).unwrap();
    let ran = w.path("metafont-ran");
    let fake = texbin.join("mf");
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\necho 'This is METAFONT, Version 2.71828182'\ntouch '{}'\nexit 0\n",
            ran.display()
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut s = Session::new(&w, "metafont");
    s.path = format!("{}:{}:{}", texbin.display(), bin, w.default_path());
    s.plugin_dir = Some(w.path("clone/plugin"));
    let run = s.run(vec![
        tool("Read", json!({"file_path": proofs})),
        tool(
            "Edit",
            json!({"file_path": proofs, "old_string": "  rfl\n\ntheorem two_eq", "new_string": "  sorry\n\ntheorem two_eq"}),
        ),
        Step::Text("done"),
    ]);
    let (err, text) = run.tool_results().get(&id(1)).cloned().unwrap_or_default();
    assert!(
        err && text.starts_with(RULE),
        "{}",
        s.explain(
            &run,
            "with METAFONT first on PATH the gutting Edit is still denied"
        )
    );
    assert!(!ran.exists(), "{}", s.explain(&run, "METAFONT was run"));

    // 7. No math-forge at all: the session is told, and the MCP server stays connected,
    //    its tools saying how to install (so they work once it is installed).
    let mut s = Session::new(&w, "missing");
    s.path = w.default_path();
    s.plugin_dir = Some(w.path("clone/plugin"));
    let run = s.run(vec![
        tool(&mcp_tool("search"), json!({"query": "prime"})),
        Step::Text("done"),
    ]);
    let (err, text) = run.tool_results().get(&id(0)).cloned().unwrap_or_default();
    assert!(
        err && text.starts_with("math-forge is not installed") && text.contains("cargo install"),
        "{}",
        s.explain(&run, "the MCP tool explains the missing install")
    );
    let servers = run.init()["mcp_servers"].to_string();
    assert!(
        servers.contains("connected"),
        "{}",
        s.explain(&run, &format!("the MCP server is connected: {servers}"))
    );
    let briefing = run.hook_outputs("SessionStart").join("\n");
    assert!(
        briefing.contains("math-forge is not installed: .lean edits are NOT being checked"),
        "{}",
        s.explain(&run, "the session start says math-forge is missing")
    );
    assert_eq!(
        std::fs::read_to_string(w.proofs()).unwrap(),
        PROOFS.replace("  sorry", "  rfl")
    );
    eprintln!(
        "e2e: 11 sessions in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}
