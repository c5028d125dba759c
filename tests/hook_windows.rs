//! The PostToolUse hook parses only the commands around an edit (`hook::window`). On edits
//! of the real corpus, that must decide exactly what parsing the whole files decides.
//!
//! Every 10th readable corpus file gets six edits (its first, middle and last complete proof
//! replaced by `sorry`, an axiom inserted, a statement changed, `sorry` written into a
//! comment) and a pretend false lemma (a name the file uses); the decisions with windows and
//! with whole files must be equal.

mod common;

use math_forge::hook::baseline::{Baseline, Origin};
use math_forge::hook::decide::{decide_with, Decision, Parse};
use math_forge::hook::window::{self, Layout};
use math_forge::lean::walk::{lean_files, IgnoreRules};
use math_forge::lean::{Outline, Source};
use math_forge::tracking::FalseLemma;

use common::corpora::Corpus;

/// Edited versions of `text`, each with a label.
fn edits(text: &str) -> Vec<(&'static str, String)> {
    let file = math_forge::cursor::parse(text);
    let outline = Outline::of("", &file);
    let proofs: Vec<_> = outline
        .declarations
        .iter()
        .filter(|d| matches!(d.kind.as_str(), "theorem" | "lemma") && d.sorry_count == 0)
        .filter(|d| d.body.is_some() && !d.name.is_empty())
        .collect();
    let Some(d) = proofs.get(proofs.len() / 2) else {
        return Vec::new();
    };
    let body = d.body.clone().unwrap();
    let mut out = Vec::new();
    // The first and last proofs too: windows at the ends of the file.
    for (label, p) in [
        ("hole first", proofs[0]),
        ("hole", *d),
        ("hole last", proofs[proofs.len() - 1]),
    ] {
        let b = p.body.clone().unwrap();
        out.push((
            label,
            format!("{}:= by\n  sorry{}", &text[..b.start], &text[p.span.end..]),
        ));
    }
    out.push((
        "axiom",
        format!(
            "{}\n\naxiom hook_window_axiom : False{}",
            &text[..d.span.end],
            &text[d.span.end..]
        ),
    ));
    if let Some(at) = text[d.span.clone()].find(d.name.as_str()) {
        let at = d.span.start + at + d.name.len();
        out.push((
            "restate",
            format!("{} (hook_window : True){}", &text[..at], &text[at..]),
        ));
    }
    let line_end = text[body.start..]
        .find('\n')
        .map_or(text.len(), |i| body.start + i);
    out.push((
        "comment",
        format!("{} -- sorry{}", &text[..line_end], &text[line_end..]),
    ));
    out
}

#[test]
fn windows_decide_like_whole_files_on_the_corpus() {
    let Some(dir) = Corpus::Results.dir() else {
        return;
    };
    let (files, _) = lean_files(&[dir], IgnoreRules::HiddenOnly);
    let (mut compared, mut windowed, mut blocked) = (0usize, 0usize, 0usize);
    let mut mismatches: Vec<String> = Vec::new();
    for path in files.iter().step_by(10) {
        let Ok(source) = Source::read(path) else {
            continue;
        };
        let before = source.text;
        let lemma_name = Outline::of("", &math_forge::cursor::parse(&before))
            .declarations
            .iter()
            .map(|d| d.name.clone())
            .find(|n| !n.is_empty() && !n.contains('.'));
        let lemmas: Vec<FalseLemma> = lemma_name
            .into_iter()
            .map(|n| FalseLemma {
                lemma_name: Some(n),
                ..Default::default()
            })
            .collect();
        for (label, after) in edits(&before) {
            let baseline = Baseline::Known {
                texts: vec![before.clone()],
                origin: Origin::ToolResponse,
            };
            let fast: Decision = decide_with("f.lean", &after, &baseline, &lemmas, Parse::Windows);
            let slow: Decision = decide_with("f.lean", &after, &baseline, &lemmas, Parse::Whole);
            compared += 1;
            blocked += usize::from(!slow.blocks.is_empty());
            let (lo, ln) = (Layout::of(&before), Layout::of(&after));
            if let Some((o, n)) = window::change_windows(&before, &lo, &after, &ln) {
                if window::parse("f", &before, &lo, o).is_some()
                    && window::parse("f", &after, &ln, n).is_some()
                {
                    windowed += 1;
                }
            }
            if fast != slow {
                mismatches.push(format!(
                    "{} ({label}):\n  windows: {fast:?}\n  whole:   {slow:?}",
                    path.display()
                ));
            }
        }
    }
    eprintln!("{compared} edits compared, {windowed} through windows, {blocked} blocked");
    assert!(compared > 900, "only {compared} edits compared");
    assert!(
        mismatches.is_empty(),
        "{} of {compared} edits decided differently:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(5)].join("\n")
    );
    // The fast path is the common one, and the edits are ones the hook blocks.
    assert!(
        windowed * 10 >= compared * 9,
        "windows used for only {windowed} of {compared}"
    );
    assert!(
        blocked * 2 >= compared,
        "only {blocked} of {compared} blocked"
    );
}

/// A Write that creates a file (no earlier text) is judged on the commands holding `sorry`,
/// `admit` or `axiom` only. On real files of every corpus (results, public projects,
/// metaprograms: opaque text), as they are and with an axiom, a parse error, a hole and
/// escape words in comments and strings added, the decision and the journal's events must be
/// those of parsing the whole file.
#[test]
fn new_files_decide_and_journal_like_whole_files() {
    use math_forge::hook::decide::decide_journaled;
    let mut files = Vec::new();
    for corpus in [Corpus::Results, Corpus::Public, Corpus::Meta] {
        let Some(dir) = corpus.dir() else {
            continue;
        };
        let (found, _) = lean_files(&[dir], IgnoreRules::HiddenOnly);
        files.extend(found.into_iter().step_by(11));
    }
    if files.is_empty() {
        return;
    }
    let additions = [
        "",
        "\n\naxiom hook_new_axiom : False\n",
        "\n\ntheorem hook_new_broken : True := by\n  exact ( [ sorry\n",
        "\n\ntheorem hook_new_hole (n : Nat) : n = n := by\n  have h := Nat.le_refl n\n  sorry\n",
        "\n\n-- sorry admit axiom\n/- sorry -/\ndef hook_new_s : String := \"axiom sorry\"\n",
    ];
    let baseline = Baseline::Known {
        texts: vec![String::new()],
        origin: Origin::Nothing,
    };
    let (mut compared, mut events, mut blocked) = (0usize, 0usize, 0usize);
    let mut mismatches: Vec<String> = Vec::new();
    for path in &files {
        let Ok(source) = Source::read(path) else {
            continue;
        };
        if source.text.len() > 300_000 {
            continue;
        }
        for (k, add) in additions.iter().enumerate() {
            // A change in the middle too: a parse error between two commands.
            let text = if k == 2 {
                let mut mid = source.text.len() / 2;
                while !source.text.is_char_boundary(mid) {
                    mid -= 1;
                }
                let cut = source.text[mid..].find("\ntheorem ").map(|i| mid + i + 1);
                match cut {
                    Some(c) => format!("{}{add}\n{}", &source.text[..c], &source.text[c..]),
                    None => format!("{}{add}", source.text),
                }
            } else {
                format!("{}{add}", source.text)
            };
            let fast = decide_journaled("f.lean", &text, &baseline, &[], Parse::Windows, true);
            let slow = decide_journaled("f.lean", &text, &baseline, &[], Parse::Whole, true);
            compared += 1;
            events += slow.1.len();
            blocked += usize::from(!slow.0.blocks.is_empty());
            if fast != slow {
                mismatches.push(format!(
                    "{} (+{k}):\n  windows: {:?}\n  whole:   {:?}",
                    path.display(),
                    fast,
                    slow
                ));
            }
        }
    }
    eprintln!("{compared} new files compared, {events} events, {blocked} blocked");
    assert!(compared > 100, "only {compared} new files compared");
    assert!(
        mismatches.is_empty(),
        "{} of {compared} new files decided differently:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(3)].join("\n")
    );
    assert!(
        events > 0 && blocked > 0,
        "{events} events, {blocked} blocked"
    );
}
