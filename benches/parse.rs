//! Parse throughput on the users' corpus (one core, and all cores as `mf parse` runs: issue
//! 18's bar is 20 MB/s on 2 cores) and on the public projects' corpus.
//!
//! `cargo bench --bench parse`; criterion reports the throughput in MiB/s (≈ 1.05 × MB/s).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use math_forge::lean::walk::{lean_files, IgnoreRules};
use math_forge::lean::{Outline, ParsedFile, Source};

#[path = "common/mod.rs"]
mod common;

fn corpus_texts(dir: std::path::PathBuf) -> Vec<String> {
    let (files, _) = lean_files(&[dir], IgnoreRules::HiddenOnly);
    files
        .iter()
        .filter_map(|f| Source::read(f).ok())
        .map(|s| s.text)
        .collect()
}

fn bench(c: &mut Criterion) {
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let texts = corpus_texts(corpus);
    let bytes: usize = texts.iter().map(String::len).sum();
    let mut group = c.benchmark_group("corpus");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("parse", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| ParsedFile::parse(t.clone()).error_count())
                .sum::<usize>()
        })
    });
    group.bench_function("parse+outline", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| {
                    Outline::of("", &ParsedFile::parse(t.clone()))
                        .declarations
                        .len()
                })
                .sum::<usize>()
        })
    });
    group.bench_function("parse-all-cores", |b| {
        use rayon::prelude::*;
        b.iter(|| {
            texts
                .par_iter()
                .map(|t| ParsedFile::parse(t.clone()).error_count())
                .sum::<usize>()
        })
    });
    group.finish();

    let public = corpus_texts(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus-public"),
    );
    let mut group = c.benchmark_group("corpus-public");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(
        public.iter().map(String::len).sum::<usize>() as u64,
    ));
    group.bench_function("parse", |b| {
        b.iter(|| {
            public
                .iter()
                .map(|t| ParsedFile::parse(t.clone()).error_count())
                .sum::<usize>()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
