//! Per-thread CPU accounting for `mf extract`, printed to stderr when `MF_EXTRACT_PROFILE` is
//! set: where the run's CPU goes (the writer thread, parsing, the rest of the workers' work).
//! Wall time on a shared machine says little; per-thread CPU time compares runs.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// CPU time of the calling thread, in nanoseconds.
pub fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Whether profiling was asked for.
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os("MF_EXTRACT_PROFILE").is_some())
}

/// A CPU-time account summed over threads.
pub struct Account {
    pub name: &'static str,
    ns: AtomicU64,
}

impl Account {
    pub const fn new(name: &'static str) -> Account {
        Account {
            name,
            ns: AtomicU64::new(0),
        }
    }

    pub fn add(&self, ns: u64) {
        self.ns.fetch_add(ns, Ordering::Relaxed);
    }

    pub fn take(&self) -> u64 {
        self.ns.swap(0, Ordering::Relaxed)
    }
}

/// Runs `f`, charging the calling thread's CPU time to `account` when profiling.
pub fn charge<T>(account: &Account, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let start = thread_cpu_ns();
    let out = f();
    account.add(thread_cpu_ns().saturating_sub(start));
    out
}

pub static WRITER: Account = Account::new("writer thread");
pub static PREPARE: Account = Account::new("workers: prepare (all)");
pub static PARSE: Account = Account::new("workers: tree-sitter parse");
pub static OUTLINE: Account = Account::new("workers: outline");
pub static DOMAIN: Account = Account::new("workers: domain");
pub static FINDINGS: Account = Account::new("workers: verdicts, findings");
pub static DROP_TREE: Account = Account::new("workers: freeing the syntax tree");

/// Prints every account to stderr (and resets them).
pub fn report() {
    if !enabled() {
        return;
    }
    let secs = |ns: u64| ns as f64 / 1e9;
    let mut parts = 0;
    for a in [
        &WRITER, &PREPARE, &PARSE, &OUTLINE, &DOMAIN, &FINDINGS, &DROP_TREE,
    ] {
        let ns = a.take();
        if !std::ptr::eq(a, &WRITER) && !std::ptr::eq(a, &PREPARE) {
            parts += ns;
        } else if std::ptr::eq(a, &PREPARE) {
            parts = parts.wrapping_sub(ns);
        }
        let _ = writeln!(
            std::io::stderr(),
            "profile: {:<34} {:>8.3} s",
            a.name,
            secs(ns)
        );
    }
    let _ = writeln!(
        std::io::stderr(),
        "profile: {:<34} {:>8.3} s",
        "workers: rest (read, hash, …)",
        secs(parts.wrapping_neg())
    );
}
