//! Fuzzing parse → outline → lint → sorries → splice on generated Lean-like text: keywords,
//! brackets, `sorry`/`admit`, comments, strings, newlines and indentation, CRLF, unicode and
//! NUL, cut and joined at random.
//!
//! The suite runs a short seeded run (`MF_FUZZ_CASES`, default 500 cases, seed `MF_FUZZ_SEED`,
//! default fixed). The long run is the same test with more cases and a random seed, in release:
//! `MF_FUZZ_CASES=100000 MF_FUZZ_SEED=random cargo test --release --test fuzz` (see README).
//!
//! Properties: nothing panics; every hole `mf sorries` lists is a `sorry`/`admit` in the text,
//! as many as the outline counts; lint positions are inside the file; a splice either fails
//! with a one-line error or replaces one hole (the file has fewer), and putting the hole back
//! restores the original text byte for byte.

use math_forge::cursor::{self, Splice};
use math_forge::lean::Outline;
use math_forge::lint::{self, LintConfig};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngSeed, TestCaseError, TestRunner};

/// Pieces of Lean and of what breaks it.
const FRAGMENTS: &[&str] = &[
    "theorem",
    "lemma",
    "def",
    "example",
    "axiom",
    "instance",
    "namespace",
    "section",
    "end",
    "open",
    "variable",
    "by",
    ":=",
    ":",
    "sorry",
    "admit",
    "have",
    "show",
    "from",
    "suffices",
    "fun",
    "=>",
    "|",
    "match",
    "with",
    "calc",
    "exact",
    "simp",
    "rfl",
    "intro",
    "cases",
    "·",
    "<;>",
    ";",
    ",",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "⟨",
    "⟩",
    "a",
    "h₁",
    "x'",
    "ℕ",
    "∀",
    "→",
    "α",
    "«n m»",
    "Foo.bar",
    "1",
    "0",
    "+",
    "=",
    "--",
    " -- c\n",
    "/-",
    "-/",
    "/-- d -/",
    "\"",
    "\"s\"",
    "'c'",
    "\n",
    "\r\n",
    "\n  ",
    "\n    ",
    " ",
    "  ",
    "\t",
    "\0",
    "@[simp]",
    "#eval",
    "native_decide",
    "set_option",
    "maxHeartbeats",
    "where",
    "deriving",
    "λ",
];

/// A declaration header that gives the fuzz something to splice into.
fn header() -> impl Strategy<Value = String> {
    (0usize..4, 0u32..1000).prop_map(|(k, n)| match k {
        0 => format!("\ntheorem t{n} : {n} = {n} := by\n  "),
        1 => format!("\nlemma l{n} (h : p) : q :=\n  "),
        2 => format!("\ndef d{n} : Nat := "),
        _ => format!("\nnamespace N{n}\ntheorem u{n} : True := by\n  sorry\nend N{n}\n"),
    })
}

/// Lean-like text: declarations with fragment soup between and inside them.
fn lean_like() -> impl Strategy<Value = String> {
    let chunk = (
        header(),
        prop::collection::vec(prop::sample::select(FRAGMENTS), 0..24),
    )
        .prop_map(|(h, soup)| {
            let mut s = h;
            for f in soup {
                s.push_str(f);
                s.push(' ');
            }
            s
        });
    prop::collection::vec(chunk, 1..6).prop_map(|chunks| chunks.concat())
}

fn check(text: &str) -> Result<(), TestCaseError> {
    let parsed = cursor::parse(text);
    let outline = Outline::of("F.lean", &parsed);
    let holes = cursor::holes(&parsed, &outline);
    prop_assert_eq!(holes.len(), outline.sorries.len());
    for h in &holes {
        let at = &parsed.text[h.byte..];
        prop_assert!(
            at.starts_with(h.keyword),
            "hole {} at {} is {:?}",
            h.index,
            h.byte,
            &at[..at.len().min(10)]
        );
    }
    let lines = text.split('\n').count();
    for f in lint::lint("F.lean", &parsed, &LintConfig::new()) {
        prop_assert!(
            f.line >= 1 && f.line <= lines,
            "{f:?} outside {lines} lines"
        );
        prop_assert!(f.end_line >= f.line, "{f:?}");
    }
    // Splice the first hole of each named declaration that has one, and put it back.
    for decl in outline.declarations.iter().filter(|d| d.sorry_count > 0) {
        if decl.full_name.is_empty() {
            continue;
        }
        let request = Splice {
            declaration: &decl.full_name,
            proof: "rfl",
            hole: Some(1),
            allow_sorry: false,
        };
        match cursor::splice_text(&parsed.text, &request) {
            Err(e) => {
                let message = e.to_string();
                prop_assert!(!message.contains('\n'), "{message}");
            }
            Ok(spliced) => {
                let new = &spliced.text;
                prop_assert_eq!(&new[spliced.inserted.clone()], "rfl");
                let removed = &parsed.text[spliced.replaced.clone()];
                prop_assert!(removed == "sorry" || removed == "admit", "{removed:?}");
                let restored = format!(
                    "{}{}{}",
                    &new[..spliced.inserted.start],
                    removed,
                    &new[spliced.inserted.end..]
                );
                prop_assert_eq!(&restored, &parsed.text);
                let reparsed = cursor::parse(new);
                let after = Outline::of("F.lean", &reparsed);
                // The replaced hole is gone. How many holes remain is left open: on text
                // that does not parse, the grammar may read a neighbour differently next to
                // `rfl` than next to `sorry` (`sorry admit` is two holes, `rfl admit` one
                // application).
                prop_assert!(
                    !after
                        .sorries
                        .iter()
                        .any(|h| h.byte == spliced.inserted.start),
                    "a hole is still at {}",
                    spliced.inserted.start
                );
                if !parsed.root().has_error() && !reparsed.root().has_error() {
                    prop_assert_eq!(after.sorries.len() + 1, outline.sorries.len());
                }
            }
        }
    }
    Ok(())
}

fn config() -> Config {
    let cases = std::env::var("MF_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(500);
    let seed = match std::env::var("MF_FUZZ_SEED").ok().as_deref() {
        Some("random") => RngSeed::Random,
        Some(s) => RngSeed::Fixed(s.parse().expect("MF_FUZZ_SEED: a number or `random`")),
        None => RngSeed::Fixed(0x6d66_2d66_757a_7a21),
    };
    Config {
        cases,
        rng_seed: seed,
        failure_persistence: None,
        ..Config::default()
    }
}

#[test]
fn parse_outline_lint_sorries_splice_round_trip() {
    let mut runner = TestRunner::new(config());
    let result = runner.run(&lean_like(), |text| check(&text));
    if let Err(e) = result {
        panic!("{e}");
    }
}

/// The generator does produce what the properties are about: holes, splices, parse errors.
#[test]
fn the_generator_covers_holes_and_parse_errors() {
    let mut runner = TestRunner::new(Config {
        rng_seed: RngSeed::Fixed(7),
        ..Config::default()
    });
    let strategy = lean_like();
    let (mut holes, mut broken) = (0, 0);
    for _ in 0..100 {
        let text = strategy.new_tree(&mut runner).unwrap().current();
        let parsed = cursor::parse(&text);
        holes += Outline::of("", &parsed).sorries.len();
        broken += usize::from(parsed.root().has_error());
    }
    assert!(holes > 50, "{holes} holes in 100 texts");
    assert!(broken > 20, "{broken} of 100 texts with parse errors");
}
