//! The mathematical domain of a file, from its imports and the names its code uses.

use tree_sitter::Node;

use crate::lean::outline::for_each_descendant_where;
use crate::lean::syntax::Occurrences;
use crate::lean::ParsedFile;
#[cfg(test)]
use std::path::Path;

/// Domain ids of the seeded taxonomy, with the Mathlib import prefixes and name components
/// that signal them.
const SIGNALS: &[(&str, &[&str], &[&str])] = &[
    (
        "nt",
        &[
            "Mathlib.NumberTheory",
            "Mathlib.Data.ZMod",
            "Mathlib.RingTheory",
            "Mathlib.FieldTheory",
            "Mathlib.Data.Nat.Prime",
        ],
        &[
            "Prime",
            "ZMod",
            "Coprime",
            "gcd",
            "lcm",
            "padicValNat",
            "factorization",
            "divisors",
            "properDivisors",
            "totient",
            "legendreSym",
            "Squarefree",
            "primeFactors",
            "digits",
            "ModEq",
        ],
    ),
    (
        "algebra",
        &[
            "Mathlib.Algebra",
            "Mathlib.GroupTheory",
            "Mathlib.LinearAlgebra",
        ],
        &[
            "Subgroup",
            "MonoidHom",
            "RingHom",
            "Polynomial",
            "Ideal",
            "Module",
            "Matrix",
            "orderOf",
            "QuotientGroup",
            "MulAction",
        ],
    ),
    (
        "combinatorics",
        &["Mathlib.Combinatorics"],
        &[
            "SimpleGraph",
            "sym2",
            "Sym2",
            "Hypergraph",
            "cliqueFinset",
            "edgeFinset",
            "Adj",
            "chromaticNumber",
            "IsClique",
        ],
    ),
    (
        "analysis",
        &[
            "Mathlib.Analysis",
            "Mathlib.MeasureTheory",
            "Mathlib.Topology",
        ],
        &[
            "Tendsto",
            "deriv",
            "integral",
            "MeasureTheory",
            "Continuous",
            "atTop",
            "Asymptotics",
            "IsBigO",
            "rpow",
            "log",
            "exp",
            "sqrt",
        ],
    ),
];

/// An import naming a domain outweighs many identifiers.
const IMPORT_WEIGHT: usize = 25;

/// The spec's default for this research group when nothing signals a domain.
const DEFAULT_DOMAIN: &str = "nt";

/// Infers the domain id (`nt`, `algebra`, `combinatorics`, `analysis`): the subject
/// classification the file's own attributes state (`@[category research open, AMS 11]`), else
/// its imports and the names its statements and definitions use.
pub fn infer(imports: &[String], file: &ParsedFile) -> &'static str {
    if let Some(stated) = stated_domain(&file.text) {
        return stated;
    }
    let mut scores = [0usize; SIGNALS.len()];
    for import in imports {
        for (i, (_, prefixes, _)) in SIGNALS.iter().enumerate() {
            if prefixes.iter().any(|p| import.starts_with(p)) {
                scores[i] += IMPORT_WEIGHT;
            }
        }
    }
    for (score, n) in scores.iter_mut().zip(identifier_scores(file)) {
        *score += n;
    }
    let best = scores
        .iter()
        .enumerate()
        .max_by_key(|(i, s)| (**s, std::cmp::Reverse(*i)));
    match best {
        Some((i, s)) if *s > 0 => SIGNALS[i].0,
        _ => DEFAULT_DOMAIN,
    }
}

/// The domain a file's `AMS N` attributes state (Formal Conjectures tags each problem with
/// its Mathematics Subject Classification), by majority over the file's attribute lines; `None`
/// when it states none or none that maps to a domain.
fn stated_domain(text: &str) -> Option<&'static str> {
    let mut votes = [0usize; SIGNALS.len()];
    for line in text.lines().filter(|l| l.trim_start().starts_with("@[")) {
        let mut rest = line;
        while let Some(i) = rest.find("AMS") {
            rest = &rest[i + 3..];
            // `AMS 11 05`: every code after the word, up to the next comma or bracket.
            let codes = rest.split([',', ']']).next().unwrap_or("");
            for code in codes.split_whitespace() {
                let Ok(n) = code.parse::<u32>() else { break };
                if let Some(d) = msc_domain(n) {
                    if let Some(i) = SIGNALS.iter().position(|(id, _, _)| *id == d) {
                        votes[i] += 1;
                    }
                }
            }
        }
    }
    let (i, n) = votes
        .iter()
        .enumerate()
        .max_by_key(|(i, n)| (**n, std::cmp::Reverse(*i)))?;
    (*n > 0).then(|| SIGNALS[i].0)
}

/// The domain of a two-digit Mathematics Subject Classification section.
fn msc_domain(code: u32) -> Option<&'static str> {
    match code {
        11 => Some("nt"),
        5 | 52 => Some("combinatorics"),
        6 | 8 | 12..=20 | 22 => Some("algebra"),
        26 | 28 | 30..=35 | 37 | 39..=47 | 49 | 54 | 60 => Some("analysis"),
        _ => None,
    }
}

/// Per domain of [`SIGNALS`], how many components of identifiers outside tactic blocks are
/// among its names.
fn identifier_scores(file: &ParsedFile) -> [usize; SIGNALS.len()] {
    let mut scores = [0usize; SIGNALS.len()];
    let kinds = node_kinds();
    // An identifier with a signalling component contains that name, so a subtree whose text
    // holds no signal name has nothing to count and is skipped whole. Statements and
    // definitions say what a file is about; tactic proofs mostly name general lemmas, and
    // skipping them halves the walk.
    let hits = Occurrences::of(signal_names(), &file.text);
    let enter = |node: Node<'_>| node.kind_id() != kinds.by_block && hits.any_in(node.byte_range());
    let mut cursor = file.root().walk();
    for_each_descendant_where(&mut cursor, enter, |node| {
        if node.kind_id() != kinds.identifier {
            return;
        }
        for component in file.text_of(node).split('.') {
            for (i, (_, _, names)) in SIGNALS.iter().enumerate() {
                if names.contains(&component) {
                    scores[i] += 1;
                }
            }
        }
    });
    scores
}

/// Finds every signal name.
fn signal_names() -> &'static aho_corasick::AhoCorasick {
    static NAMES: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        aho_corasick::AhoCorasick::new(SIGNALS.iter().flat_map(|(_, _, names)| names.iter()))
            .expect("the signal names build an automaton")
    })
}

struct Kinds {
    identifier: u16,
    by_block: u16,
}

fn node_kinds() -> &'static Kinds {
    static KINDS: std::sync::OnceLock<Kinds> = std::sync::OnceLock::new();
    KINDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_lean::LANGUAGE.into();
        Kinds {
            identifier: lang.id_for_node_kind("identifier", true),
            by_block: lang.id_for_node_kind("by_block", true),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stated_subject_classification_decides_the_domain() {
        let parse = |s: &str| ParsedFile::parse(s.to_string());
        // Analysis words, but the file says number theory (AMS 11).
        let nt = "import Mathlib\nopen Filter\n\n@[category research open, AMS 11]\n\
                  theorem t : Tendsto (fun n : ℕ => (n : ℝ)) atTop atTop ∧ Continuous id := sorry\n";
        assert_eq!(infer(&[], &parse(nt)), "nt");
        let comb =
            "@[category research solved, AMS 5]\ntheorem t : Tendsto f atTop atTop := sorry\n";
        assert_eq!(infer(&[], &parse(comb)), "combinatorics");
        // A mention of AMS outside an attribute states nothing.
        let prose = "-- see AMS 11 notes\ntheorem t : Tendsto f atTop atTop := sorry\n";
        assert_eq!(infer(&[], &parse(prose)), "analysis");
    }

    /// The scores of a walk over every node outside tactic blocks, without skipping.
    fn scores_of_full_walk(file: &ParsedFile) -> Vec<usize> {
        let kinds = node_kinds();
        let mut scores = vec![0; SIGNALS.len()];
        let mut cursor = file.root().walk();
        'walk: loop {
            let node = cursor.node();
            if node.kind_id() == kinds.identifier {
                for component in file.text_of(node).split('.') {
                    for (i, (_, _, names)) in SIGNALS.iter().enumerate() {
                        scores[i] += usize::from(names.contains(&component));
                    }
                }
            }
            if node.kind_id() != kinds.by_block && cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
        scores
    }

    /// The winner the full walk picks.
    fn full_walk_domain(file: &ParsedFile) -> &'static str {
        let scores = scores_of_full_walk(file);
        match scores
            .iter()
            .enumerate()
            .max_by_key(|(i, s)| (**s, std::cmp::Reverse(*i)))
        {
            Some((i, s)) if *s > 0 => SIGNALS[i].0,
            _ => DEFAULT_DOMAIN,
        }
    }

    #[test]
    fn skipping_subtrees_without_signal_names_changes_nothing() {
        let mut texts = vec![
            "theorem t (G : SimpleGraph V) (h : G.Adj a b) : G.Adj b a := by simp [Nat.Prime]"
                .to_string(),
            "-- Tendsto deriv exp log\ndef f (n : ℕ) : ℕ := n.gcd 4 + Nat.totient n\n/- Prime Prime -/"
                .to_string(),
            "lemma l : Continuous (fun x : ℝ => Real.exp x) := by exact continuous_exp".to_string(),
            "example : \"Prime ZMod\" = \"\" := rfl".to_string(),
            "theorem plain : 1 + 1 = 2 := rfl".to_string(),
        ];
        let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/results");
        for entry in std::fs::read_dir(results).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "lean") {
                texts.push(std::fs::read_to_string(path).unwrap());
            }
        }
        for text in texts {
            let file = ParsedFile::parse(text.clone());
            assert_eq!(
                identifier_scores(&file).to_vec(),
                scores_of_full_walk(&file),
                "{text}"
            );
            assert_eq!(infer(&[], &file), full_walk_domain(&file), "{text}");
        }
    }

    #[test]
    fn only_identifiers_outside_tactic_blocks_count() {
        let file = ParsedFile::parse(
            "-- SimpleGraph SimpleGraph\ntheorem t (n : ℕ) (h : Nat.Prime n) : n ≠ 0 := by\n  \
             exact (SimpleGraph.Adj) (SimpleGraph.IsClique)"
                .to_string(),
        );
        assert_eq!(infer(&[], &file), "nt");
        let none = ParsedFile::parse("theorem t : True := trivial".to_string());
        assert_eq!(infer(&[], &none), DEFAULT_DOMAIN);
        let imported = ParsedFile::parse("theorem t : True := trivial".to_string());
        assert_eq!(
            infer(
                &["Mathlib.Combinatorics.SimpleGraph".to_string()],
                &imported
            ),
            "combinatorics"
        );
    }
}
