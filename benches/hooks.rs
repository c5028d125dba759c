//! Whole-process latency of `mf hook …`, the way Claude Code runs it: spawn `mf`, write the
//! payload on stdin, wait for it to exit. The bars: pre-tool-use and post-tool-use p50 at most
//! 5 ms on a 130 KB result file, session-start under 50 ms.
//!
//! `cargo bench --bench hooks` (`-- pre-tool-use` for the cases whose name holds that). Each
//! case runs `MF_BENCH_RUNS` (default 200) times, single runs, and the table gives p50, p90 and
//! max of the wall time and the p50 of the process's CPU time; beside them, `mf --version` and
//! `mk --version` measure bare process start-up at the same moment (on a shared machine they
//! show how much of a figure is load). With `MF_BENCH_OLD_MF=/path/to/old/mf` (and its `mk`
//! beside it, or `MF_BENCH_OLD_MK`), a second table compares the builds like for like,
//! whatever their schemas: each build's own `mf extract` makes its knowledge base of the same
//! fixture result files, each build's hooks read their own, every run of this build is
//! followed by one of the old, and the table gives both and their ratio. Beware: a build that
//! checkpoints knowledge.db's write-ahead log when it closes (before 2026-11-26) deletes the
//! log after every run, so the build run after it must create (and sync) a new one: compare
//! post-tool-use without alternation too.
//!
//! The 130 KB file is fixtures/hooks/Erdos850.lean's declarations repeated in numbered
//! namespaces, written to a temporary directory; the payload edits one proof in the middle to
//! `sorry` (so the hook parses both versions and blocks). The session journal is on (the
//! payloads carry a session id and knowledge.db exists): every post-tool-use run appends its
//! events, and `stop/capture-130KB` captures a session that closed a hole in the file.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use math_forge::kb::{FileItem, Kb};

#[path = "common/mod.rs"]
mod common;

const TARGET_BYTES: usize = 130 * 1024;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
}

/// A ~130 KB Lean file: the fixture's header once, then its namespace body repeated with
/// numbered declaration names. Returns the text and the number of copies.
fn big_file() -> (String, usize) {
    let text = std::fs::read_to_string(fixture("hooks/Erdos850.lean")).unwrap();
    let start = text.find("namespace Erdos850").unwrap();
    let (header, body) = text.split_at(start);
    let mut out = header.to_string();
    let mut copies = 0;
    while out.len() < TARGET_BYTES {
        let part = body
            .replace("Erdos850", &format!("Erdos850.Part{copies}"))
            .replace(
                "two_dvd_three_consecutive",
                &format!("two_dvd_three_consecutive_{copies}"),
            );
        out.push_str(&part);
        out.push('\n');
        copies += 1;
    }
    (out, copies)
}

const PROOF: &str = "  have h : 2 ∣ n * (n + 1) := by\n    exact Nat.even_iff_two_dvd.mp (Nat.even_mul_succ_self n)\n  exact Dvd.dvd.mul_right h (n + 2)";

struct Setup {
    dir: tempfile::TempDir,
    /// post-tool-use payloads: with originalFile, and without (edit undone on disk text).
    edit_with_original: Vec<u8>,
    edit_undone: Vec<u8>,
    /// A Write creating the 130 KB file: no earlier version, so the whole file is parsed (the
    /// slow path, for comparison).
    write_new: Vec<u8>,
    /// pre-tool-use: the same edit before it is written (the file on disk is the original).
    pre_edit: Vec<u8>,
    session_start: Vec<u8>,
    subagent_start: Vec<u8>,
    /// A proof put back into the 130 KB file (`pre_file`) in session `bench-stop`: journals a
    /// closed hole, so the Stop of that session captures a technique (parsing the file for
    /// what the proof rests on) on every run.
    close_hole: Vec<u8>,
    stop: Vec<u8>,
    kb: PathBuf,
    tracking: PathBuf,
}

fn setup() -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let (before, copies) = big_file();
    let middle = copies / 2;
    let head = format!(
        "theorem two_dvd_three_consecutive_{middle} (n : ℕ) : 2 ∣ n * (n + 1) * (n + 2) := by\n"
    );
    let old_string = format!("{head}{PROOF}");
    let new_string = format!("{head}  sorry");
    assert_eq!(before.matches(&old_string).count(), 1);
    let after = before.replacen(&old_string, &new_string, 1);
    let file = dir.path().join("slot900_erdos_850_big_result.lean");
    std::fs::write(&file, &after).unwrap();
    eprintln!("hook bench file: {} bytes, {copies} copies", after.len());

    let edit = |original: Option<&str>| -> Vec<u8> {
        let mut response = serde_json::json!({
            "filePath": file, "oldString": old_string, "newString": new_string,
            "structuredPatch": [], "userModified": false, "replaceAll": false,
        });
        if let Some(o) = original {
            response["originalFile"] = o.into();
        }
        serde_json::json!({
            "session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": dir.path(),
            "permission_mode": "acceptEdits", "hook_event_name": "PostToolUse", "tool_name": "Edit",
            "tool_input": {"file_path": file, "old_string": old_string, "new_string": new_string},
            "tool_response": response, "tool_use_id": "toolu_bench",
        })
        .to_string()
        .into_bytes()
    };

    let pre_file = dir.path().join("slot901_erdos_850_big_result.lean");
    std::fs::write(&pre_file, &before).unwrap();
    let pre_edit = serde_json::json!({
        "session_id": "bench", "transcript_path": "/tmp/t.jsonl", "cwd": dir.path(),
        "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Edit",
        "tool_input": {"file_path": pre_file, "old_string": old_string, "new_string": new_string},
        "tool_use_id": "toolu_bench",
    })
    .to_string()
    .into_bytes();

    let tracking = dir.path().join("tracking.db");
    let conn = rusqlite::Connection::open(&tracking).unwrap();
    conn.execute_batch(&std::fs::read_to_string(fixture("tracking.sql")).unwrap())
        .unwrap();
    drop(conn);
    let kb = dir.path().join("knowledge.db");
    let items: Vec<FileItem> =
        serde_json::from_str(&std::fs::read_to_string(fixture("kb_corpus.json")).unwrap()).unwrap();
    Kb::open(&kb).unwrap().write_batch(items).unwrap();

    let close_hole = serde_json::json!({
        "session_id": "bench-stop", "cwd": dir.path(), "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": pre_file, "old_string": new_string, "new_string": old_string},
        "tool_response": {"filePath": pre_file, "originalFile": after},
    })
    .to_string()
    .into_bytes();
    let stop = serde_json::json!({
        "session_id": "bench-stop", "cwd": dir.path(), "hook_event_name": "Stop",
        "stop_hook_active": false,
    })
    .to_string()
    .into_bytes();

    Setup {
        close_hole,
        stop,
        edit_with_original: edit(Some(&before)),
        edit_undone: edit(None),
        pre_edit,
        write_new: serde_json::json!({
            "session_id": "bench", "cwd": dir.path(), "hook_event_name": "PostToolUse",
            "tool_name": "Write",
            "tool_input": {"file_path": file, "content": after},
            "tool_response": {"type": "create", "filePath": file, "originalFile": null},
        })
        .to_string()
        .into_bytes(),
        session_start: br#"{"session_id":"bench","hook_event_name":"SessionStart","source":"startup"}"#.to_vec(),
        subagent_start: br#"{"session_id":"bench","hook_event_name":"SubagentStart","agent_id":"a","agent_type":"general-purpose","prompt":"Bound the Tuza nu4 cover number; avoid local_cover_le_2 and pigeonhole on residues."}"#.to_vec(),
        kb,
        tracking,
        dir,
    }
}

/// Runs `mf hook SUB` once with `input` on stdin; returns stdout.
fn run(setup: &Setup, sub: &str, input: &[u8]) -> Vec<u8> {
    run_with(
        Path::new(env!("CARGO_BIN_EXE_mf")),
        &setup.kb,
        setup,
        &["hook", sub],
        input,
    )
}

/// Runs `bin ARGS` once in the bench's directory, on knowledge base `kb`, with `input` on
/// stdin; returns stdout.
fn run_with(bin: &Path, kb: &Path, setup: &Setup, args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(bin)
        .args(args)
        .current_dir(setup.dir.path())
        .env("MATH_FORGE_DB", kb)
        .env("MATH_FORGE_TRACKING_DB", &setup.tracking)
        .env_remove("CLAUDE_ENV_FILE")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // A process that does not read its stdin (`--version`) may close it first.
    let _ = child.stdin.take().unwrap().write_all(input);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    out.stdout
}

/// Wall and CPU milliseconds of one run.
fn timed_run(bin: &Path, kb: &Path, setup: &Setup, args: &[&str], input: &[u8]) -> (f64, f64) {
    let cpu = common::children_cpu();
    let t = Instant::now();
    run_with(bin, kb, setup, args, input);
    (
        common::ms(t.elapsed()),
        common::ms(common::children_cpu() - cpu),
    )
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let wanted = |name: &str| {
        filter.is_empty()
            || filter
                .iter()
                .any(|f| name.contains(f.as_str()) || "hooks".contains(f.as_str()))
    };
    let s = setup();
    if std::env::var_os("MF_BENCH_KEEP").is_some() {
        // For profiling one case by hand: the directory and its payloads stay.
        let dir = s.dir.path();
        for (name, bytes) in [
            ("pre-edit.json", &s.pre_edit),
            ("edit-original.json", &s.edit_with_original),
            ("edit-undone.json", &s.edit_undone),
            ("write-new.json", &s.write_new),
        ] {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
        eprintln!(
            "kept {} (MATH_FORGE_DB=knowledge.db, MATH_FORGE_TRACKING_DB=tracking.db there)",
            dir.display()
        );
    }
    // What each run must print, checked once so the benchmark measures the real decision.
    let block = String::from_utf8(run(&s, "post-tool-use", &s.edit_with_original)).unwrap();
    assert!(block.starts_with("{\"decision\":\"block\""), "{block}");
    let undone = String::from_utf8(run(&s, "post-tool-use", &s.edit_undone)).unwrap();
    assert_eq!(block, undone);
    let created = String::from_utf8(run(&s, "post-tool-use", &s.write_new)).unwrap();
    assert_eq!(created, "", "a new file with holes and no axiom passes");
    let deny = String::from_utf8(run(&s, "pre-tool-use", &s.pre_edit)).unwrap();
    assert!(deny.contains("\"permissionDecision\":\"deny\""), "{deny}");
    let brief = String::from_utf8(run(&s, "session-start", &s.session_start)).unwrap();
    assert!(brief.contains("KB: 11 facts"), "{brief}");
    let sub = String::from_utf8(run(&s, "subagent-start", &s.subagent_start)).unwrap();
    assert!(sub.contains("FALSE LEMMA local_cover_le_2"), "{sub}");
    // The journal is on: the closed hole is journaled and the Stop captures it.
    assert_eq!(run(&s, "post-tool-use", &s.close_hole), b"");
    assert_eq!(run(&s, "stop", &s.stop), b"");
    let techniques: i64 = rusqlite::Connection::open(&s.kb)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM session_captures WHERE session_id = 'bench-stop'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(techniques, 1, "the Stop captured the closed hole");

    let cases: [(&str, &[&str], &[u8]); 9] = [
        ("(mf --version)", &["--version"], b""),
        ("(mk --version)", &["--version"], b""),
        (
            "pre-tool-use/edit-130KB",
            &["hook", "pre-tool-use"],
            &s.pre_edit,
        ),
        (
            "post-tool-use/edit-130KB-original",
            &["hook", "post-tool-use"],
            &s.edit_with_original,
        ),
        (
            "post-tool-use/edit-130KB-undone",
            &["hook", "post-tool-use"],
            &s.edit_undone,
        ),
        (
            "post-tool-use/write-130KB-new",
            &["hook", "post-tool-use"],
            &s.write_new,
        ),
        (
            "session-start",
            &["hook", "session-start"],
            &s.session_start,
        ),
        (
            "subagent-start",
            &["hook", "subagent-start"],
            &s.subagent_start,
        ),
        ("stop/capture-130KB", &["hook", "stop"], &s.stop),
    ];
    let runs = common::runs(200);
    let this = Build {
        mf: PathBuf::from(env!("CARGO_BIN_EXE_mf")),
        mk: PathBuf::from(env!("CARGO_BIN_EXE_mk")),
        kb: s.kb.clone(),
    };
    eprintln!(
        "hooks, whole process, {runs} single runs each; {}",
        common::load()
    );
    table(&s, &cases, &[this], runs, &wanted);
    eprintln!(
        "(bars: pre-tool-use and post-tool-use p50 at most 5 ms; {})",
        common::load()
    );
    let old_mf = common::old_binary("MF_BENCH_OLD_MF");
    let old_mk = common::old_binary("MF_BENCH_OLD_MK");
    if let Some(old_mf) = old_mf.or_else(|| old_mk.as_deref().map(|mk| common::sibling(mk, "mf"))) {
        let old_mk = old_mk.unwrap_or_else(|| common::sibling(&old_mf, "mk"));
        compare(&s, &cases, old_mf, old_mk, runs, &wanted);
    }
    if std::env::var_os("MF_BENCH_KEEP").is_some() {
        let _ = s.dir.keep();
    }
}

/// A build's binaries and the knowledge base its hooks read.
struct Build {
    mf: PathBuf,
    mk: PathBuf,
    kb: PathBuf,
}

/// Times the `wanted` cases `runs` times, each run of the first build followed by one of each
/// other build; prints p50, p90, max and CPU p50 for each build, and the ratio of the first
/// build's p50 to the second's.
fn table(
    s: &Setup,
    cases: &[(&str, &[&str], &[u8])],
    builds: &[Build],
    runs: usize,
    wanted: &dyn Fn(&str) -> bool,
) {
    eprintln!(
        "{:<36} {:>9} {:>9} {:>9} {:>9}",
        "case", "p50 ms", "p90 ms", "max ms", "CPU p50"
    );
    for &(name, args, input) in cases {
        if !wanted(name) {
            continue;
        }
        let mut times: Vec<Vec<(f64, f64)>> = vec![Vec::new(); builds.len()];
        for _ in 0..runs {
            for (b, t) in builds.iter().zip(&mut times) {
                let bin = if name.starts_with("(mk") {
                    &b.mk
                } else {
                    &b.mf
                };
                t.push(timed_run(bin, &b.kb, s, args, input));
            }
        }
        // Wall p50, and CPU p50 (what the machine's load changes least).
        let row = |label: &str, times: &[(f64, f64)]| -> (f64, f64) {
            let wall = common::sorted(times.iter().map(|t| t.0).collect());
            let cpu = common::sorted(times.iter().map(|t| t.1).collect());
            let p50 = common::quantile(&wall, 0.5);
            let cpu_p50 = common::quantile(&cpu, 0.5);
            eprintln!(
                "{label:<36} {p50:>9.2} {:>9.2} {:>9.2} {cpu_p50:>9.2}",
                common::quantile(&wall, 0.9),
                wall[wall.len() - 1],
            );
            (p50, cpu_p50)
        };
        let p50: Vec<(f64, f64)> = times
            .iter()
            .enumerate()
            .map(|(b, t)| row(if b == 0 { name } else { "  old build" }, t))
            .collect();
        if let [this, old, ..] = p50[..] {
            eprintln!(
                "{:<36} {:>8.2}× {:>28.2}×",
                "  this / old (p50)",
                this.0 / old.0,
                this.1 / old.1
            );
        }
    }
}

/// This build against an old one, like for like whatever their schemas: each build's own
/// `mf extract` makes its knowledge base of the same fixture result files, each build's hooks
/// read their own, and every run of this build is followed by one of the old. An old build
/// whose extraction fails (it cannot be compared on a knowledge base) is timed on `--version`
/// only, and the table says so.
fn compare(
    s: &Setup,
    cases: &[(&str, &[&str], &[u8])],
    old_mf: PathBuf,
    old_mk: PathBuf,
    runs: usize,
    wanted: &dyn Fn(&str) -> bool,
) {
    let corpus = [fixture("results"), fixture("results_aristotle")];
    let this = Build {
        mf: PathBuf::from(env!("CARGO_BIN_EXE_mf")),
        mk: PathBuf::from(env!("CARGO_BIN_EXE_mk")),
        kb: s.dir.path().join("this.db"),
    };
    let old = Build {
        mf: old_mf,
        mk: old_mk,
        kb: s.dir.path().join("old.db"),
    };
    common::extract_kb(&this.mf, &corpus, &this.kb).unwrap_or_else(|e| panic!("{e}"));
    let extracted = common::extract_kb(&old.mf, &corpus, &old.kb);
    // The Stop case captures a closed hole of the session `bench-stop`: each knowledge base
    // journals one.
    for b in [&this, &old] {
        if b.kb.exists() {
            run_with(&b.mf, &b.kb, s, &["hook", "post-tool-use"], &s.close_hole);
        }
    }
    eprintln!(
        "\nthis build against {} (and {}), each on the knowledge base its own `mf extract` made \
         of fixtures/results and fixtures/results_aristotle; {runs} single runs each, \
         alternating; {}",
        old.mf.display(),
        old.mk.display(),
        common::load()
    );
    if let Err(e) = &extracted {
        eprintln!("old build: {e}; so it is timed on --version only");
    }
    let all = |name: &str| wanted(name) && (extracted.is_ok() || name.starts_with('('));
    table(s, cases, &[this, old], runs, &all);
    eprintln!("({})", common::load());
}
