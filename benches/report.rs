//! `mk report` on the knowledge base of the real corpus: the time to write the page (bar: 1 s)
//! and its size (bar: 2 MB, checked; `MF_CORPUS=../shared/corpus-public`, 1,610 problems, is
//! the big campaign it was set on).
//!
//! `cargo bench --bench report`. The corpus (`../shared/corpus`, or `$MF_CORPUS`) is extracted
//! by the real `mf extract --all` into a temporary knowledge.db first. Then 20 single runs of
//! the whole `mk report -o FILE` process (open the database, build the model, render, write
//! the file through a rename) are timed and their p50 and max printed with the page's size,
//! beside the bare start-up of `mk --version` at the same moment (on a shared machine it shows
//! how much of the time is load). Criterion then measures the two halves in process: building
//! the model (`Kb::report`) and rendering it.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use math_forge::kb::{Kb, ReportOptions};

const RUNS: usize = 20;
/// The page's size bar, in bytes.
const PAGE_BAR: u64 = 2_000_000;

fn bin(name: &str) -> PathBuf {
    match name {
        "mf" => PathBuf::from(env!("CARGO_BIN_EXE_mf")),
        _ => PathBuf::from(env!("CARGO_BIN_EXE_mk")),
    }
}

fn knowledge_db(dir: &Path, corpus: &Path) -> PathBuf {
    let db = dir.join("knowledge.db");
    let start = Instant::now();
    let status = Command::new(bin("mf"))
        .args(["extract", "-q", "--db"])
        .arg(&db)
        .arg("--all")
        .arg(corpus)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "mf extract failed on the corpus");
    eprintln!(
        "corpus extracted into {} in {:.1} s",
        db.display(),
        start.elapsed().as_secs_f64()
    );
    db
}

fn timed(mut cmd: Command) -> f64 {
    let start = Instant::now();
    let status = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "{cmd:?} failed");
    start.elapsed().as_secs_f64() * 1e3
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn bench(c: &mut Criterion) {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let db = knowledge_db(dir.path(), &corpus);
    let page = dir.path().join("report.html");

    let mut report: Vec<f64> = Vec::new();
    let mut version: Vec<f64> = Vec::new();
    for _ in 0..RUNS {
        let mut cmd = Command::new(bin("mk"));
        cmd.arg("--db")
            .arg(&db)
            .arg("--tracking")
            .arg(dir.path().join("no-tracking.db"))
            .args(["report", "-o"])
            .arg(&page);
        report.push(timed(cmd));
        let mut cmd = Command::new(bin("mk"));
        cmd.arg("--version");
        version.push(timed(cmd));
    }
    report.sort_by(f64::total_cmp);
    version.sort_by(f64::total_cmp);
    let bytes = std::fs::metadata(&page).unwrap().len();
    eprintln!("\nmk report on the corpus knowledge base, whole process, {RUNS} runs");
    eprintln!("{:<16} {:>8} {:>8}", "", "p50 ms", "max ms");
    eprintln!(
        "{:<16} {:>8.1} {:>8.1}",
        "mk report",
        pct(&report, 0.5),
        report[RUNS - 1]
    );
    eprintln!(
        "{:<16} {:>8.1} {:>8.1}",
        "(mk --version)",
        pct(&version, 0.5),
        version[RUNS - 1]
    );
    eprintln!(
        "page: {bytes} bytes ({:.2} MB; bar {:.0} MB)\n",
        bytes as f64 / 1e6,
        PAGE_BAR as f64 / 1e6
    );
    assert!(
        bytes <= PAGE_BAR,
        "the page is {bytes} bytes, over the bar of {PAGE_BAR}: what does it repeat?"
    );

    let kb = Kb::open_existing(&db).unwrap();
    let opts = ReportOptions::default();
    let model = kb.report(&opts, None).unwrap();
    let mut group = c.benchmark_group("report_corpus");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    group.bench_function("model", |b| b.iter(|| kb.report(&opts, None).unwrap()));
    group.bench_function("render", |b| {
        b.iter(|| math_forge::cli::report::render(&model, "now"))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
