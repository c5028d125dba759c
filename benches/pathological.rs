//! Time on pathological files stays linear in their size: each generated file goes through
//! parse, outline, lint, sorries and the edit hook's check, and its CPU time per MB is divided
//! by that of an ordinary file: a ~2 MB sample of the real corpus, file by file, measured in
//! the same run between the pathological files' measurements. The bar: every ratio at most 3.
//!
//! `cargo bench --bench pathological` (`-- nested-have` for files whose name holds that).
//! `MF_BENCH_RUNS` (default 5): each figure is the best of that many runs (CPU time of the
//! measuring thread: the machine's load inflates a run, never shortens it). `MF_BENCH_STAGES`
//! (e.g. `sorries,lint`): only those stages, the others shown as `-` (for profiling one
//! stage). Skipped (saying so) without `../shared/corpus`.
//!
//! - `long-line`: 1 MB, one line of 400 KB (a `simp only [h0, h1, …]` list) among ordinary
//!   theorems;
//! - `tactic-line`: one tactic line of 300 KB (`norm_num [h] <;> simp …; rw […] at h; …`);
//! - `sorry-line`: 50,000 `sorry`s on one line (`refine ⟨sorry, sorry, …⟩`);
//! - `sorries`: 50,000 `sorry`s, 50 per theorem, mostly under `have`;
//! - `one-line`: 5,000 declarations on one line;
//! - `nested`: 100,000 nested brackets;
//! - `nested-have`: 8,000 term-mode `have … := sorry` nested in one another;
//! - `nested-by-have`: 8,000 `have … := by` nested on one line, a `sorry` at the bottom;
//! - `unclosed`: 25,000 unclosed mixed brackets `( [ { ⟨` in a proof, then a theorem;
//! - `unclosed-lines`: 25,000 lines each opening a bracket it never closes.
//!
//! The hook's check is [`decide`] on an edit in the middle of the file (a letter inserted into
//! the first identifier after the middle), as `mf hook post-tool-use` runs it after reading the
//! payload; it includes parsing (the other stages start from a parsed file).

use std::time::Duration;

use math_forge::cursor;
use math_forge::hook::baseline::{Baseline, Origin};
use math_forge::hook::decide::{decide, decide_with, Parse};
use math_forge::lean::walk::{lean_files, IgnoreRules};
use math_forge::lean::{Outline, ParsedFile, Source};
use math_forge::lint::{self, LintConfig};

#[path = "common/mod.rs"]
mod common;

/// The bar: a pathological file costs at most this many times an ordinary one, per MB.
const BAR: f64 = 3.0;

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

/// One 300 KB line of tactics.
fn tactic_line() -> String {
    let mut out =
        String::from("import Mathlib\n\ntheorem big (a b : Nat) (h0 : a = b) : b = a := by\n  ");
    let mut i = 0;
    while out.len() < 300_000 {
        out.push_str(&format!(
            "norm_num [h{}] <;> (try simp only [h0, Nat.add_comm] at *); rw [h0] at h{}; ",
            i % 7,
            i % 5
        ));
        i += 1;
    }
    out.push_str("exact h0.symm\n");
    out
}

/// 50,000 holes on one line.
fn sorry_line() -> String {
    format!(
        "theorem big : True ∧ True := by\n  refine ⟨{}⟩\n",
        vec!["sorry"; 50_000].join(", ")
    )
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

/// 8,000 term-mode `have`s, each the body of the one before, each proved by `sorry`.
fn nested_have() -> String {
    let mut out = String::from("theorem t : True :=\n");
    for k in 0..8000 {
        out.push_str(&format!("  have h{k} : {k} = {k} := sorry\n"));
    }
    out.push_str("  trivial\n");
    out
}

/// 8,000 `have … := by` nested on one line, the innermost proved by `sorry`.
fn nested_by_have() -> String {
    let mut out = String::from("theorem t : True := by\n  ");
    for k in 0..8000 {
        out.push_str(&format!("have h{k} : {k} = {k} := by "));
    }
    out.push_str("sorry\n  trivial\n");
    out
}

/// 25,000 unclosed brackets of four kinds, pseudo-random, in one proof; a theorem after it.
fn unclosed() -> String {
    let mut out = String::from("theorem t (x : Nat) : x = x := by\n  exact ");
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for k in 0..25_000 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        out.push(['(', '[', '{', '⟨'][(seed % 4) as usize]);
        if k % 3 == 0 {
            out.push_str("x ");
        }
    }
    out.push_str("\n\ntheorem u : 1 = 1 := rfl\n");
    out
}

/// 25,000 lines of a proof, each opening a bracket it never closes.
fn unclosed_lines() -> String {
    let mut out = String::from("theorem t (x : Nat) : x = x := by\n");
    for k in 0..25_000 {
        let bracket = ['(', '[', '{', '⟨'][k % 4];
        if k % 2 == 0 {
            out.push_str(&format!("  {bracket} x\n"));
        } else {
            out.push_str(&format!("  exact {bracket}\n"));
        }
    }
    out.push_str("\ntheorem u : 1 = 1 := rfl\n");
    out
}

fn cases() -> Vec<(&'static str, String)> {
    vec![
        ("long-line", long_line()),
        ("tactic-line", tactic_line()),
        ("sorry-line", sorry_line()),
        ("sorries", sorries()),
        ("one-line", one_line()),
        ("nested", nested()),
        ("nested-have", nested_have()),
        ("nested-by-have", nested_by_have()),
        ("unclosed", unclosed()),
        ("unclosed-lines", unclosed_lines()),
    ]
}

/// The text with a letter inserted into the first identifier at or after its middle.
fn edited(text: &str) -> String {
    let mut at = text.len() / 2;
    while at < text.len()
        && (!text.is_char_boundary(at) || !text.as_bytes()[at].is_ascii_alphabetic())
    {
        at += 1;
    }
    format!("{}q{}", &text[..at], &text[at..])
}

/// About 2 MB of the real corpus, file by file: the ordinary files.
fn corpus_sample(dir: std::path::PathBuf) -> Vec<String> {
    let (files, _) = lean_files(&[dir], IgnoreRules::HiddenOnly);
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

/// A set of files ready for every stage.
struct Input {
    texts: Vec<String>,
    parsed: Vec<ParsedFile>,
    outlines: Vec<Outline>,
    edits: Vec<(String, Baseline)>,
    bytes: usize,
}

impl Input {
    fn new(texts: Vec<String>) -> Input {
        let parsed: Vec<ParsedFile> = texts.iter().map(|t| cursor::parse(t)).collect();
        let outlines = parsed.iter().map(|p| Outline::of("", p)).collect();
        let edits = texts
            .iter()
            .map(|t| {
                let before = Baseline::Known {
                    texts: vec![t.clone()],
                    origin: Origin::ToolResponse,
                };
                (edited(t), before)
            })
            .collect();
        Input {
            bytes: texts.iter().map(String::len).sum(),
            texts,
            parsed,
            outlines,
            edits,
        }
    }

    /// CPU time of one run of `stage` over every file.
    fn run(&self, stage: Stage) -> Duration {
        let start = common::thread_cpu();
        let mut n = 0usize;
        match stage {
            Stage::Parse => {
                for t in &self.texts {
                    n += ParsedFile::parse(t.clone()).error_count();
                }
            }
            Stage::Outline => {
                for p in &self.parsed {
                    n += Outline::of("", p).declarations.len();
                }
            }
            Stage::Lint => {
                for p in &self.parsed {
                    n += lint::lint("", p, &LintConfig::new()).len();
                }
            }
            Stage::Sorries => {
                for (p, o) in self.parsed.iter().zip(&self.outlines) {
                    n += cursor::holes(p, o).len();
                }
            }
            Stage::OutlineCommand => {
                for t in &self.texts {
                    let p = ParsedFile::parse(t.clone());
                    n += Outline::of("", &p).declarations.len();
                }
            }
            Stage::LintCommand => {
                for t in &self.texts {
                    let p = ParsedFile::parse(t.clone());
                    n += lint::lint("", &p, &LintConfig::new()).len();
                }
            }
            Stage::SorriesCommand => {
                for t in &self.texts {
                    let p = ParsedFile::parse(t.clone());
                    let o = Outline::of("", &p);
                    n += cursor::holes(&p, &o).len();
                }
            }
            Stage::Hook => {
                for (after, before) in &self.edits {
                    n += decide("F.lean", after, before, &[]).blocks.len();
                }
            }
            Stage::HookWhole => {
                for (after, before) in &self.edits {
                    n += decide_with("F.lean", after, before, &[], Parse::Whole)
                        .blocks
                        .len();
                }
            }
        }
        let spent = common::thread_cpu() - start;
        std::hint::black_box(n);
        spent
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Stage {
    Parse,
    Outline,
    Lint,
    Sorries,
    Hook,
    /// The hook's check reading whole files (the reference for files it cannot cut).
    HookWhole,
    /// What `mf outline`, `mf lint` and `mf sorries` do with a file: parse it, then the stage.
    OutlineCommand,
    LintCommand,
    SorriesCommand,
}

const STAGES: [(Stage, &str); 5] = [
    (Stage::Parse, "parse"),
    (Stage::Outline, "outline"),
    (Stage::Lint, "lint"),
    (Stage::Sorries, "sorries"),
    (Stage::Hook, "hook"),
];

/// The commands a user runs on a file, each from its text as the CLI does (the issue's
/// measure: `mf sorries` on a file, not the hole search alone). `mf parse` and the hook are the
/// `parse` and `hook` stages above, which already start from the text.
const COMMANDS: [(Stage, &str); 3] = [
    (Stage::OutlineCommand, "mf outline"),
    (Stage::LintCommand, "mf lint"),
    (Stage::SorriesCommand, "mf sorries"),
];

fn ms_per_mb(d: Duration, bytes: usize) -> f64 {
    common::ms(d) / (bytes as f64 / 1e6)
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let Some(corpus) = common::corpus_dir() else {
        return;
    };
    let cases: Vec<(&str, String)> = cases()
        .into_iter()
        .filter(|(name, _)| {
            filter.is_empty()
                || filter
                    .iter()
                    .any(|f| name.contains(f.as_str()) || "pathological".contains(f.as_str()))
        })
        .collect();
    if cases.is_empty() {
        return;
    }
    let runs = common::runs(5);
    let chosen: Option<Vec<String>> = std::env::var("MF_BENCH_STAGES")
        .ok()
        .map(|s| s.split(',').map(|x| x.trim().to_string()).collect());
    let measured = |name: &str| chosen.as_ref().is_none_or(|c| c.iter().any(|x| x == name));
    let reference = Input::new(corpus_sample(corpus));
    let files: Vec<(&str, Input)> = cases
        .into_iter()
        .map(|(name, text)| (name, Input::new(vec![text])))
        .collect();
    eprintln!(
        "pathological files: CPU ms per MB, best of {runs} runs, against a sample of the corpus \
         ({} files, {:.2} MB) measured between them; {}",
        reference.texts.len(),
        reference.bytes as f64 / 1e6,
        common::load()
    );
    // The hook parses only the commands around an edit, which a pathological file (one long
    // line, one deep term) often does not allow: its check then reads the whole file, and the
    // corpus's whole-file check is the like-for-like reference, shown beside.
    let mut whole = Duration::MAX;
    for _ in 0..if measured("hook") { runs } else { 0 } {
        whole = whole.min(reference.run(Stage::HookWhole));
    }
    // best[stage][0] is the reference; best[stage][1 + i] file i.
    let mut best = vec![vec![Duration::MAX; files.len() + 1]; STAGES.len()];
    for (s, (stage, name)) in STAGES.iter().enumerate() {
        if !measured(name) {
            continue;
        }
        for _ in 0..runs {
            best[s][0] = best[s][0].min(reference.run(*stage));
            for (i, (_, input)) in files.iter().enumerate() {
                best[s][i + 1] = best[s][i + 1].min(input.run(*stage));
            }
        }
    }
    let mut header = format!("{:<16} {:>8}", "file", "MB");
    for (_, name) in STAGES {
        header.push_str(&format!(" {name:>17}"));
    }
    header.push_str(&format!(" {:>17}", "hook/whole-file"));
    eprintln!("{header}");
    let mut line = format!(
        "{:<16} {:>8.2}",
        "corpus sample",
        reference.bytes as f64 / 1e6
    );
    for d in best.iter().map(|stage| stage[0]).chain([whole]) {
        if d == Duration::MAX {
            line.push_str(&format!(" {:>17}", "-"));
        } else {
            line.push_str(&format!(" {:>10.1} ms/MB", ms_per_mb(d, reference.bytes)));
        }
    }
    eprintln!("{line}");
    let mut within = 0;
    let mut within_whole = 0;
    let mut hooks_within = 0;
    let mut total = 0;
    let mut worst: (f64, String) = (0.0, String::new());
    for (i, (name, input)) in files.iter().enumerate() {
        let mut line = format!("{name:<16} {:>8.2}", input.bytes as f64 / 1e6);
        for (s, (_, stage)) in STAGES.iter().enumerate() {
            if !measured(stage) {
                line.push_str(&format!(" {:>17}", "-"));
                continue;
            }
            let ratio =
                ms_per_mb(best[s][i + 1], input.bytes) / ms_per_mb(best[s][0], reference.bytes);
            total += 1;
            if ratio <= BAR {
                within += 1;
                if *stage == "hook" {
                    hooks_within += 1;
                }
            }
            if ratio > worst.0 {
                worst = (ratio, format!("{name} {stage}"));
            }
            let mark = if ratio <= BAR { ' ' } else { '!' };
            line.push_str(&format!(
                " {:>8.1} {:>6.2}×{mark}",
                ms_per_mb(best[s][i + 1], input.bytes),
                ratio
            ));
        }
        if !measured("hook") {
            line.push_str(&format!(" {:>17}", "-"));
            eprintln!("{line}");
            continue;
        }
        let hook = best[STAGES.len() - 1][i + 1];
        let ratio = ms_per_mb(hook, input.bytes) / ms_per_mb(whole, reference.bytes);
        if ratio <= BAR {
            within_whole += 1;
        }
        let mark = if ratio <= BAR { ' ' } else { '!' };
        line.push_str(&format!(" {:>17}", format!("{ratio:.2}×{mark}")));
        eprintln!("{line}");
    }
    eprintln!(
        "within {BAR}× of the corpus per MB: {within} of {total} (files × stages); worst {:.2}× \
         ({}); with the hook against the corpus's whole-file check: {} of {total}; ! marks a \
         ratio over the bar; {}",
        worst.0,
        worst.1,
        within - hooks_within + within_whole,
        common::load()
    );

    // The same files through the commands, each from the text: the bar as the issue measures
    // it (parse and the hook from the table above).
    let mut best_cmd = vec![vec![Duration::MAX; files.len() + 1]; COMMANDS.len()];
    for (c, (stage, name)) in COMMANDS.iter().enumerate() {
        if !measured(name.trim_start_matches("mf ")) {
            continue;
        }
        for _ in 0..runs {
            best_cmd[c][0] = best_cmd[c][0].min(reference.run(*stage));
            for (i, (_, input)) in files.iter().enumerate() {
                best_cmd[c][i + 1] = best_cmd[c][i + 1].min(input.run(*stage));
            }
        }
    }
    // Per file: parse, the three commands, the hook; a figure not measured is None.
    let columns: Vec<(&str, &Vec<Duration>)> = [("mf parse", &best[0])]
        .into_iter()
        .chain(COMMANDS.iter().zip(&best_cmd).map(|((_, n), b)| (*n, b)))
        .chain([("hook", &best[STAGES.len() - 1])])
        .collect();
    let mut header = format!("{:<16} {:>8}", "command", "MB");
    for (name, _) in &columns {
        header.push_str(&format!(" {name:>17}"));
    }
    eprintln!("{header}");
    let (mut within, mut total) = (0, 0);
    let mut worst: (f64, String) = (0.0, String::new());
    for (i, (file, input)) in files.iter().enumerate() {
        let mut line = format!("{file:<16} {:>8.2}", input.bytes as f64 / 1e6);
        for (name, b) in &columns {
            if b[0] == Duration::MAX || b[i + 1] == Duration::MAX {
                line.push_str(&format!(" {:>17}", "-"));
                continue;
            }
            let ratio = ms_per_mb(b[i + 1], input.bytes) / ms_per_mb(b[0], reference.bytes);
            total += 1;
            if ratio <= BAR {
                within += 1;
            }
            if ratio > worst.0 {
                worst = (ratio, format!("{file} {name}"));
            }
            let mark = if ratio <= BAR { ' ' } else { '!' };
            line.push_str(&format!(" {:>16}", format!("{ratio:.2}×{mark}")));
        }
        eprintln!("{line}");
    }
    eprintln!(
        "commands within {BAR}× of the corpus per MB: {within} of {total} (files × commands); \
         worst {:.2}× ({}); {}",
        worst.0,
        worst.1,
        common::load()
    );
}
