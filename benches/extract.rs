//! Extraction against parsing, in one run: `mf extract --all ../shared/corpus` into a fresh
//! knowledge.db, and `mf parse --stats ../shared/corpus`, whole processes, run alternately.
//! The figure is extract time / parse time (the bar: at most 1.5), by wall time and by CPU
//! time (user + system of the process: what the machine's load changes least).
//!
//! `cargo bench --bench extract`. `MF_BENCH_RUNS` (default 5) runs of each. With
//! `MF_BENCH_OLD_MF=/path/to/old/mf`, that build's parse and extract run in the same rotation
//! and the table compares the two builds too. Skipped (saying so) without `../shared/corpus`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "common/mod.rs"]
mod common;

/// One timed process: wall and CPU time.
#[derive(Clone, Copy)]
struct Timing {
    wall: Duration,
    cpu: Duration,
}

fn timed(cmd: &mut Command) -> Timing {
    let cpu = common::children_cpu();
    let start = Instant::now();
    let out = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run mf");
    let wall = start.elapsed();
    // Exit 1 is expected: the corpus holds gzip files saved as .lean.
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Timing {
        wall,
        cpu: common::children_cpu() - cpu,
    }
}

fn parse(mf: &Path, corpus: &Path) -> Timing {
    timed(Command::new(mf).args(["parse", "--stats"]).arg(corpus))
}

fn extract(mf: &Path, corpus: &Path) -> Timing {
    let dir = tempfile::tempdir().unwrap();
    timed(
        Command::new(mf)
            .arg("extract")
            .arg("--db")
            .arg(dir.path().join("knowledge.db"))
            .arg("--all")
            .arg(corpus),
    )
}

/// Medians of the wall and CPU seconds.
fn medians(t: &[Timing]) -> (f64, f64) {
    let wall = common::sorted(t.iter().map(|t| t.wall.as_secs_f64()).collect());
    let cpu = common::sorted(t.iter().map(|t| t.cpu.as_secs_f64()).collect());
    (common::quantile(&wall, 0.5), common::quantile(&cpu, 0.5))
}

fn main() {
    // `cargo bench` passes `--bench`; a filter that names another benchmark skips this one.
    if std::env::args()
        .skip(1)
        .any(|a| !a.starts_with('-') && !"extract".contains(a.as_str()))
    {
        return;
    }
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let runs = common::runs(5);
    let mut builds: Vec<(&str, PathBuf)> = vec![("this build", env!("CARGO_BIN_EXE_mf").into())];
    if let Some(old) = common::old_binary("MF_BENCH_OLD_MF") {
        builds.push(("old build", old));
    }
    eprintln!(
        "extract vs parse on {}: {runs} runs each, alternating; {}",
        corpus.display(),
        common::load()
    );
    let mut times: Vec<(Vec<Timing>, Vec<Timing>)> = vec![(Vec::new(), Vec::new()); builds.len()];
    for _ in 0..runs {
        for ((_, mf), (p, e)) in builds.iter().zip(&mut times) {
            p.push(parse(mf, &corpus));
            e.push(extract(mf, &corpus));
        }
    }
    eprintln!(
        "{:<12} {:>14} {:>14} {:>12} {:>13} {:>15} {:>11}",
        "build",
        "parse wall s",
        "extract wall s",
        "ratio wall",
        "parse CPU s",
        "extract CPU s",
        "ratio CPU"
    );
    let mut first = None;
    for ((name, mf), (p, e)) in builds.iter().zip(&times) {
        let (pw, pc) = medians(p);
        let (ew, ec) = medians(e);
        eprintln!(
            "{name:<12} {pw:>14.3} {ew:>14.3} {:>11.2}× {pc:>13.3} {ec:>15.3} {:>10.2}×   ({})",
            ew / pw,
            ec / pc,
            mf.display()
        );
        match first {
            None => first = Some((pw, ew, pc, ec)),
            Some((pw0, ew0, pc0, ec0)) => eprintln!(
                "{:<12} {:>13.2}× {:>13.2}× {:>12} {:>12.2}× {:>14.2}×",
                "this / old",
                pw0 / pw,
                ew0 / ew,
                "",
                pc0 / pc,
                ec0 / ec
            ),
        }
    }
    eprintln!(
        "(medians; the bar: extract at most 1.5 × parse; {})",
        common::load()
    );
}
