//! Time on pathological files must stay linear in their size: each file is generated in memory
//! and goes through parse, outline, lint, sorries and the edit hook's check; criterion reports
//! MiB/s, to compare with the `corpus` group (the same steps over a sample of the real corpus,
//! when it is present).
//!
//! `cargo bench --bench pathological` (one case: `cargo bench --bench pathological -- sorries`).
//!
//! - `long-line`: 1 MB, one line of 400 KB (a `simp only [h0, h1, …]` list) among ordinary
//!   theorems;
//! - `sorries`: 50,000 `sorry`s, 50 per theorem, mostly under `have`;
//! - `one-line`: 5,000 declarations on one line;
//! - `nested`: 100,000 nested brackets.
//!
//! The hook's check is [`decide`] on an edit in the middle of the file (a letter inserted into
//! the first identifier after the middle), as `mf hook post-tool-use` runs it after reading the
//! payload.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use math_forge::cursor;
use math_forge::hook::baseline::{Baseline, Origin};
use math_forge::hook::post_tool_use::decide;
use math_forge::lean::walk::{lean_files, IgnoreRules};
use math_forge::lean::{Outline, ParsedFile, Source};
use math_forge::lint::{self, LintConfig};

#[path = "common/mod.rs"]
mod common;

/// 1 MB with one 400 KB line.
fn long_line() -> String {
    let mut out = String::from("import Mathlib\n\ntheorem big : True := by\n  simp only [");
    let mut i = 0;
    while out.len() < 400_000 {
        out.push_str(&format!("h{i}, "));
        i += 1;
    }
    out.push_str("h]\n\n");
    let mut i = 0;
    while out.len() < 1_000_000 {
        out.push_str(&format!(
            "theorem n{i} (a b : Nat) (h : a = b) : b = a := by\n  simp [h]\n\n"
        ));
        i += 1;
    }
    out
}

/// 50,000 holes: 1,000 theorems of 49 `have … := by sorry` and a final `sorry`.
fn sorries() -> String {
    let mut out = String::new();
    for d in 0..1000 {
        out.push_str(&format!("theorem s{d} : True := by\n"));
        for k in 0..49 {
            out.push_str(&format!("  have h{k} : {k} = {k} := by sorry\n"));
        }
        out.push_str("  sorry\n\n");
    }
    out
}

/// 5,000 declarations on one line.
fn one_line() -> String {
    let decls: Vec<String> = (0..5000)
        .map(|i| format!("theorem d{i} : {i} = {i} := rfl"))
        .collect();
    decls.join(" ") + "\n"
}

/// 100,000 nested brackets.
fn nested() -> String {
    let n = 100_000;
    format!("theorem t : P := {}x{}\n", "(".repeat(n), ")".repeat(n))
}

/// The text with a letter inserted into the first identifier at or after its middle.
fn edited(text: &str) -> String {
    let mut at = text.len() / 2;
    while !text.is_char_boundary(at) || !text.as_bytes()[at].is_ascii_alphabetic() {
        at += 1;
    }
    format!("{}q{}", &text[..at], &text[at..])
}

/// Parse, outline, lint and sorries of one text; returns a count so nothing is optimised out.
fn read_all(text: &str) -> usize {
    let parsed = cursor::parse(text);
    let outline = Outline::of("", &parsed);
    let findings = lint::lint("", &parsed, &LintConfig::new());
    let holes = cursor::holes(&parsed, &outline);
    outline.declarations.len() + findings.len() + holes.len()
}

fn cases() -> Vec<(&'static str, String)> {
    vec![
        ("long-line", long_line()),
        ("sorries", sorries()),
        ("one-line", one_line()),
        ("nested", nested()),
    ]
}

/// About 2 MB of the real corpus, file by file: the reference throughput.
fn corpus_sample() -> Vec<String> {
    let (files, _) = lean_files(&[common::corpus_dir()], IgnoreRules::HiddenOnly);
    let mut texts = Vec::new();
    let mut bytes = 0;
    for f in files.iter().step_by(7) {
        if let Ok(s) = Source::read(f) {
            bytes += s.text.len();
            texts.push(s.text);
        }
        if bytes > 2_000_000 {
            break;
        }
    }
    texts
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("pathological");
    group.sample_size(10);
    for (name, text) in cases() {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_with_input(BenchmarkId::new("parse", name), &text, |b, t| {
            b.iter(|| ParsedFile::parse(t.clone()).error_count())
        });
        let parsed = cursor::parse(&text);
        let outline = Outline::of("", &parsed);
        group.bench_with_input(BenchmarkId::new("outline", name), &parsed, |b, p| {
            b.iter(|| Outline::of("", p).declarations.len())
        });
        group.bench_with_input(BenchmarkId::new("lint", name), &parsed, |b, p| {
            b.iter(|| lint::lint("", p, &LintConfig::new()).len())
        });
        group.bench_with_input(BenchmarkId::new("sorries", name), &parsed, |b, p| {
            b.iter(|| cursor::holes(p, &outline).len())
        });
        let before = Baseline::Known {
            texts: vec![text.clone()],
            origin: Origin::ToolResponse,
        };
        let after = edited(&text);
        group.bench_with_input(BenchmarkId::new("hook", name), &after, |b, a| {
            b.iter(|| decide("F.lean", a, &before, &[]).blocks.len())
        });
        group.bench_with_input(BenchmarkId::new("all", name), &text, |b, t| {
            b.iter(|| read_all(t))
        });
    }
    group.finish();

    let sample = corpus_sample();
    if !sample.is_empty() {
        let mut group = c.benchmark_group("corpus");
        group.sample_size(10);
        group.throughput(Throughput::Bytes(
            sample.iter().map(|t| t.len() as u64).sum(),
        ));
        group.bench_function("all", |b| {
            b.iter(|| sample.iter().map(|t| read_all(t)).sum::<usize>())
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
