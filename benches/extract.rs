//! `mf extract --all ../shared/corpus` into a fresh knowledge.db, whole process, wall time.
//! The bar: at most 3 s on 2 cores.
//!
//! `cargo bench --bench extract`

use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

#[path = "common/mod.rs"]
mod common;

fn bench(c: &mut Criterion) {
    let corpus = common::corpus_dir();
    let mut group = c.benchmark_group("extract");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(40));
    group.bench_function("corpus_fresh_db", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let dir = tempfile::tempdir().unwrap();
                let db = dir.path().join("knowledge.db");
                let start = Instant::now();
                let out = Command::new(env!("CARGO_BIN_EXE_mf"))
                    .arg("extract")
                    .arg("--db")
                    .arg(&db)
                    .arg("--all")
                    .arg(&corpus)
                    .output()
                    .unwrap();
                total += start.elapsed();
                // Exit 1 is expected: the corpus holds gzip files saved as .lean.
                assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
