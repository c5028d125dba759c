//! `mf mcp` answers a real MCP client session over stdio: initialize,
//! notifications/initialized, tools/list, and tools/call of every tool, with results checked
//! against what the knowledge base and the file hold.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Session {
    fn start(db: &Path, tracking: &Path, cwd: &Path) -> Session {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_mf"));
        cmd.args(["mcp", "--db"])
            .arg(db)
            .arg("--tracking")
            .arg(tracking)
            .current_dir(cwd)
            // The project is the working directory, as when Claude Code starts the server.
            .env_remove("CLAUDE_PROJECT_DIR")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        let mut child = cmd.spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Session {
            child,
            stdin,
            stdout,
            next_id: 1,
        }
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request and returns its response (the server sends no requests of its own).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "server closed stdout"
            );
            let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line}"));
            if v["id"] == json!(id) {
                assert_eq!(v["jsonrpc"], "2.0");
                return v;
            }
        }
    }

    /// The handshake, for `version`.
    fn initialize(&mut self, version: &str) -> Value {
        let init = self.request(
            "initialize",
            json!({"protocolVersion": version, "capabilities": {},
                   "clientInfo": {"name": "math-forge-test", "version": "1"}}),
        );
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        init
    }

    /// tools/call answered with a JSON-RPC error: (code, message).
    fn call_protocol_error(&mut self, name: &str, arguments: Value) -> (i64, String) {
        let r = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        assert!(r.get("result").is_none(), "{name}: {r}");
        (
            r["error"]["code"].as_i64().unwrap(),
            r["error"]["message"].as_str().unwrap().to_string(),
        )
    }

    /// tools/call: (isError, structured result or the error text).
    fn call(&mut self, name: &str, arguments: Value) -> (bool, Value) {
        let r = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        let result = &r["result"];
        assert!(result.is_object(), "{name}: {r}");
        let is_error = result["isError"].as_bool().unwrap_or(false);
        if is_error {
            (true, result["content"][0]["text"].clone())
        } else {
            // The text content is the same JSON as the structured content.
            let text: Value =
                serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
            assert_eq!(text, result["structuredContent"], "{name}");
            (false, result["structuredContent"].clone())
        }
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_client_session_lists_and_calls_every_tool() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::build_kb(dir.path());
    let tracking = common::build_tracking(dir.path(), "tracking.sql");
    let lean = dir.path().join("Erdos850.lean");
    let original = std::fs::read_to_string(common::fixture("hooks/Erdos850.lean")).unwrap();
    std::fs::write(&lean, &original).unwrap();
    let mut s = Session::start(&db, &tracking, dir.path());

    let init = s.request(
        "initialize",
        json!({"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "math-forge-test", "version": "1"}}),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    assert_eq!(init["result"]["serverInfo"]["name"], "math-forge");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let list = s.request("tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            assert_eq!(t["inputSchema"]["type"], "object", "{t}");
            assert!(t["description"].as_str().is_some_and(|d| d.len() > 20));
            t["name"].as_str().unwrap()
        })
        .collect();
    assert_eq!(
        names,
        [
            "search",
            "problem",
            "failed",
            "recommend",
            "context",
            "record_failure",
            "holes",
            "outline",
            "splice"
        ]
    );

    // The knowledge base, as `mk … --json` reads it.
    let (err, hits) = s.call("search", json!({"query": "erdos_850", "limit": 3}));
    assert!(!err, "{hits}");
    let hits = hits["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 3);
    assert!(
        hits.iter().all(|h| h["problem_id"] == "erdos_850"),
        "{hits:?}"
    );

    let (err, report) = s.call("problem", json!({"problem": "Erdos-850"}));
    assert!(!err);
    assert!(
        report["facts"].as_array().is_some_and(|f| !f.is_empty()),
        "{report}"
    );
    // An unknown id is answered as by `mk find`: an error naming the nearest ids.
    let (err, report) = s.call("problem", json!({"problem": "erdos_805"}));
    assert!(err);
    assert_eq!(report, json!("no problem erdos_805; nearest: erdos_850"));

    let (err, recorded) = s.call(
        "record_failure",
        json!({"problem": "erdos_850", "approach": "pigeonhole on residues", "why": "bound too weak for n < 10^6"}),
    );
    assert!(!err, "{recorded}");
    let (err, failed) = s.call("failed", json!({"keyword": "pigeonhole on residues"}));
    assert!(!err);
    assert!(
        failed.to_string().contains("bound too weak for n < 10^6"),
        "the failure just recorded is found: {failed}"
    );

    let (err, recs) = s.call("recommend", json!({"problem": "nt"}));
    assert!(!err, "{recs}");
    assert_eq!(recs["scope"]["kind"], "domain", "{recs}");
    let (err, msg) = s.call("recommend", json!({"problem": "erdos_805"}));
    assert!(err);
    assert!(
        msg.as_str()
            .unwrap()
            .starts_with("no problem erdos_805; nearest: erdos_850"),
        "{msg}"
    );

    // The proof cursor on a file.
    let file = lean.to_str().unwrap();
    let (err, holes) = s.call("holes", json!({"file": file}));
    assert!(!err);
    let holes = holes["holes"].as_array().unwrap();
    assert_eq!(holes.len(), 1);
    assert_eq!(holes[0]["line"], 29);
    assert_eq!(
        holes[0]["declaration"]["full_name"],
        "Erdos850.triple_factors_small"
    );
    let (err, outline) = s.call("outline", json!({"file": file}));
    assert!(!err);
    assert_eq!(outline["error_nodes"], 0);
    assert!(outline["declarations"].as_array().unwrap().len() >= 6);

    // splice: gutting is refused like the gate refuses it, a hole is filled for real.
    let (err, msg) = s.call(
        "splice",
        json!({"file": file, "declaration": "two_dvd_three_consecutive", "proof": "sorry"}),
    );
    assert!(err);
    assert!(
        msg.as_str().unwrap().contains("has a complete proof"),
        "{msg}"
    );
    assert_eq!(std::fs::read_to_string(&lean).unwrap(), original);
    let (err, done) = s.call(
        "splice",
        json!({"file": file, "declaration": "triple_factors_small", "hole": 1,
               "proof": "exact Dvd.dvd.mul_right (Nat.even_mul_succ_self n).two_dvd _"}),
    );
    assert!(!err, "{done}");
    assert_eq!(done["written"], true);
    assert_eq!(done["holes_in_file"], 0);
    let (_, holes) = s.call("holes", json!({"file": file}));
    assert_eq!(holes["holes"], json!([]));

    // A tool that fails is a tool error the model can read.
    let (err, msg) = s.call("holes", json!({"file": dir.path().join("none.lean")}));
    assert!(err);
    assert!(msg.as_str().unwrap().contains("none.lean"), "{msg}");
    // Under 2025-06-18, arguments the schema forbids and unknown tools are protocol errors.
    assert_eq!(
        s.call_protocol_error("search", json!({})),
        (-32602, "missing argument 'query'".to_string())
    );
    assert_eq!(
        s.call_protocol_error("nope", json!({})),
        (-32602, "Unknown tool: nope".to_string())
    );
}

/// The 2025-11-25 revision of the specification ("Error Handling" of Tools): an unknown tool
/// is a protocol error; arguments the input schema forbids are a tool execution error, refused
/// before the tool runs.
#[test]
fn calls_are_checked_against_the_schema_as_the_specification_says() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::build_kb(dir.path());
    let tracking = common::build_tracking(dir.path(), "tracking.sql");
    let mut s = Session::start(&db, &tracking, dir.path());
    let init = s.initialize("2025-11-25");
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert_eq!(
        s.call_protocol_error("nope", json!({})),
        (-32602, "Unknown tool: nope".to_string())
    );
    for (name, args, want) in [
        ("search", json!({}), "missing argument 'query'"),
        (
            "search",
            json!({"query": "x", "limit": 0}),
            "argument 'limit' must be an integer of at least 1, not 0",
        ),
        (
            "search",
            json!({"query": "x", "type": "lemma"}),
            "argument 'type' must be one of \"theorem\", \"technique\", \"failure\", \"false_lemma\", \"insight\", not \"lemma\"",
        ),
        (
            "search",
            json!({"query": 7}),
            "argument 'query' must be a string, not 7",
        ),
        (
            "splice",
            json!({"file": "A.lean", "declaration": "a", "proof": "sorry", "allow_sorry": true}),
            "unknown argument 'allow_sorry' for splice; its arguments are declaration, dry_run, file, hole, proof",
        ),
        (
            "holes",
            json!({"file": "A.lean", "dry_run": "yes"}),
            "unknown argument 'dry_run' for holes; its arguments are file",
        ),
    ] {
        let (err, msg) = s.call(name, args);
        assert!(err, "{name}");
        assert_eq!(msg, want);
    }
    let (err, hits) = s.call("search", json!({"query": "erdos_850", "limit": 2}));
    assert!(!err, "{hits}");
}

/// `splice` takes the edit gate's decision, and the file tools act on the project's .lean
/// files only, resolved through links.
#[test]
fn the_file_tools_stay_in_the_project_and_splice_is_gated() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    let db = common::build_kb(dir.path());
    let tracking = common::build_tracking(dir.path(), "tracking.sql");
    let proven = "theorem a : 1 = 1 := by\n  rfl\n\ntheorem b : 2 = 2 := by\n  sorry\n";
    let inside = project.join("A.lean");
    let foreign = outside.join("B.lean");
    std::fs::write(&inside, proven).unwrap();
    std::fs::write(&foreign, proven).unwrap();
    std::os::unix::fs::symlink(&foreign, project.join("Link.lean")).unwrap();
    std::os::unix::fs::symlink(&outside, project.join("linked-dir")).unwrap();
    std::fs::write(project.join("notes.txt"), "sorry").unwrap();
    let mut s = Session::start(&db, &tracking, &project);
    s.initialize("2025-11-25");

    let refused = |s: &mut Session, file: &str, proof: &str, declaration: &str| {
        let (err, msg) = s.call(
            "splice",
            json!({"file": file, "declaration": declaration, "proof": proof}),
        );
        assert!(err, "{file}: {msg}");
        msg.as_str().unwrap().to_string()
    };
    for file in [
        foreign.to_str().unwrap().to_string(),
        "../outside/B.lean".to_string(),
        "Link.lean".to_string(),
        "linked-dir/B.lean".to_string(),
    ] {
        let msg = refused(&mut s, &file, "rfl", "b");
        assert!(
            msg.starts_with(&format!("{file}: refused, outside the project")),
            "{msg}"
        );
        let (err, _) = s.call("holes", json!({"file": file}));
        assert!(err, "{file}");
    }
    let msg = refused(&mut s, "notes.txt", "rfl", "b");
    assert!(msg.contains("not a .lean file"), "{msg}");
    assert_eq!(std::fs::read_to_string(&foreign).unwrap(), proven);

    // Gutting a complete proof, or adding an axiom, is refused like an Edit.
    let msg = refused(&mut s, "A.lean", "sorry", "a");
    assert!(msg.contains("has a complete proof"), "{msg}");
    // A proof that smuggles in an axiom command changes the declarations: refused too.
    let msg = refused(&mut s, "A.lean", "rfl\n\naxiom cheat : False", "b");
    assert!(msg.contains("splice refused, file left untouched"), "{msg}");
    assert_eq!(std::fs::read_to_string(&inside).unwrap(), proven);
    // Filling a hole is what splice is for.
    let (err, done) = s.call(
        "splice",
        json!({"file": "A.lean", "declaration": "b", "proof": "rfl"}),
    );
    assert!(!err, "{done}");
    assert_eq!(done["holes_in_file"], 0);
    assert!(!std::fs::read_to_string(&inside).unwrap().contains("sorry"));
}

#[test]
fn the_plugin_declares_the_server() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("plugin/.mcp.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let server = &v["mcpServers"]["math-forge"];
    assert_eq!(server["command"], "${CLAUDE_PLUGIN_ROOT}/bin/mf");
    assert_eq!(server["args"], json!(["mcp"]));
}

/// An agent asking an empty knowledge base is told it is empty, and how to fill it: "no hits"
/// would read as "nothing matched". A missing one names the command that makes that file.
#[test]
fn an_empty_or_missing_knowledge_base_says_so_and_how_to_fill_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("knowledge.db");
    let tracking = dir.path().join("tracking.db");

    let mut s = Session::start(&db, &tracking, dir.path());
    s.initialize("2025-06-18");
    let (err, text) = s.call("search", json!({"query": "prime"}));
    let text = text.as_str().unwrap_or_default().to_string();
    assert!(
        err && text.starts_with("no knowledge base at ")
            && text.contains(&format!("`mk init --db {}`", db.display()))
            && text.contains("`mf extract --db"),
        "{text}"
    );
    drop(s);

    math_forge::kb::Kb::open(&db).unwrap();
    let mut s = Session::start(&db, &tracking, dir.path());
    s.initialize("2025-06-18");
    let fill = "is empty: fill it with `mf extract --all RESULTS_DIR`";
    let (err, r) = s.call("search", json!({"query": "prime"}));
    assert!(!err && r["hits"] == json!([]), "{r}");
    assert!(r["note"].as_str().is_some_and(|n| n.contains(fill)), "{r}");
    let (err, r) = s.call("failed", json!({}));
    assert!(!err, "{r}");
    assert!(r["notes"].to_string().contains(fill), "{r}");
    for tool in ["problem", "context", "recommend"] {
        let (err, text) = s.call(tool, json!({"problem": "erdos_850"}));
        let text = text.as_str().unwrap_or_default();
        assert!(
            err && text.starts_with("no problem erdos_850") && text.contains(fill),
            "{tool}: {text}"
        );
    }

    // A file that is not there: said in words, with the directory relative paths are read from.
    let (err, text) = s.call("holes", json!({"file": "Nope.lean"}));
    let text = text.as_str().unwrap_or_default();
    let root = dir.path().canonicalize().unwrap();
    assert!(
        err && text
            .starts_with("Nope.lean: no such file (paths are read from the project directory")
            && text.contains(&root.display().to_string()),
        "{text}"
    );
    drop(s);

    // A knowledge base with facts: no note on a search that finds nothing.
    let full = dir.path().join("full");
    std::fs::create_dir_all(&full).unwrap();
    let db = common::build_kb(&full);
    let mut s = Session::start(&db, &tracking, dir.path());
    s.initialize("2025-06-18");
    let (err, r) = s.call("search", json!({"query": "zzzunmatchedword"}));
    assert!(
        !err && r["hits"] == json!([]) && r.get("note").is_none(),
        "{r}"
    );
}
