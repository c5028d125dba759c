//! Shared by the benchmarks: where the real corpus is, CPU clocks, percentiles, the machine's
//! load, and the earlier build to compare with.
//!
//! Every benchmark states ratios measured in one run (this build against a reference measured
//! between its own runs, or against an earlier build run alternately), so that a regression
//! shows whatever the machine's load.
#![allow(dead_code)] // each bench uses part of it

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

/// `../shared/corpus` beside the project, or `$MF_CORPUS`; `None` (and a line saying the
/// benchmark is skipped) when it is not there: a clone without `../shared` still runs.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("MF_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    if dir.is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: corpus not found at {} (set MF_CORPUS to a folder of .lean files)",
            dir.display()
        );
        None
    }
}

/// An earlier build's binary to run alternately with this one: `$MF_BENCH_OLD_MF` (for `mf`)
/// or `$MF_BENCH_OLD_MK` (for `mk`).
pub fn old_binary(var: &str) -> Option<PathBuf> {
    let path = PathBuf::from(std::env::var_os(var)?);
    if path.is_file() {
        Some(path)
    } else {
        eprintln!(
            "{var}={} is no file; comparing with nothing",
            path.display()
        );
        None
    }
}

/// Runs per measurement: `$MF_BENCH_RUNS`, else `default`.
pub fn runs(default: usize) -> usize {
    std::env::var("MF_BENCH_RUNS")
        .ok()
        .and_then(|s| s.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(default)
}

/// CPU time (user + system) of this process's waited-for children so far.
pub fn children_cpu() -> Duration {
    rusage_cpu(libc::RUSAGE_CHILDREN)
}

/// CPU time of the calling thread so far.
pub fn thread_cpu() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for the duration of the call.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

fn rusage_cpu(who: libc::c_int) -> Duration {
    // SAFETY: an all-zero rusage is a valid value to be overwritten.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` is valid for the duration of the call.
    unsafe { libc::getrusage(who, &mut usage) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// The machine's load averages (1, 5, 15 minutes) and core count, for the report.
pub fn load() -> String {
    let avg = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let avg: Vec<&str> = avg.split_whitespace().take(3).collect();
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!("load average {} on {cores} cores", avg.join(" "))
}

/// The `q` quantile of `sorted` (nearest rank).
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

/// `values` sorted, for [`quantile`].
pub fn sorted(mut values: Vec<f64>) -> Vec<f64> {
    values.sort_by(f64::total_cmp);
    values
}

/// Milliseconds of a duration.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The binary called `name` (`mf` or `mk`) beside `bin`, keeping any suffix of `bin`'s own
/// name (`/old/mk-c9cc806` → `/old/mf-c9cc806`): an old build's two binaries travel together.
pub fn sibling(bin: &Path, name: &str) -> PathBuf {
    match bin.file_name().and_then(|n| n.to_str()) {
        Some(n) if n.starts_with("mf") || n.starts_with("mk") => {
            bin.with_file_name(format!("{name}{}", &n[2..]))
        }
        _ => bin.with_file_name(name),
    }
}

/// Builds a knowledge base at `db` the way a user does, with `mf`'s own `mf extract --all`
/// of `dirs`: a build compared with another reads a knowledge base its own extraction wrote,
/// whatever the schema of either. Err says why, with the command's last error line.
pub fn extract_kb(mf: &Path, dirs: &[PathBuf], db: &Path) -> Result<Duration, String> {
    let start = std::time::Instant::now();
    let out = Command::new(mf)
        .args(["extract", "-q", "--db"])
        .arg(db)
        .arg("--all")
        .args(dirs)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("{}: {e}", mf.display()))?;
    if out.status.success() {
        Ok(start.elapsed())
    } else {
        let err = String::from_utf8_lossy(&out.stderr);
        Err(format!(
            "`{} extract --all {}` failed: {}",
            mf.display(),
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(" "),
            err.lines().last().unwrap_or("no message")
        ))
    }
}
