//! The mathematical domain of a file, from its imports and the names its code uses.

use crate::lean::ParsedFile;

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

/// Infers the domain id (`nt`, `algebra`, `combinatorics`, `analysis`).
pub fn infer(imports: &[String], file: &ParsedFile) -> &'static str {
    let mut scores = [0usize; SIGNALS.len()];
    for import in imports {
        for (i, (_, prefixes, _)) in SIGNALS.iter().enumerate() {
            if prefixes.iter().any(|p| import.starts_with(p)) {
                scores[i] += IMPORT_WEIGHT;
            }
        }
    }
    let kinds = node_kinds();
    // A cursor walk costs hundreds of instructions per node; enter only the nodes whose text
    // holds a signal name somewhere, found first in one pass over the text.
    let occurrences: Vec<usize> = signal_finder()
        .find_overlapping_iter(file.text.as_str())
        .map(|m| m.start())
        .collect();
    let holds_signal = |node: tree_sitter::Node<'_>| {
        let range = node.byte_range();
        let i = occurrences.partition_point(|&p| p < range.start);
        occurrences.get(i).is_some_and(|&p| p < range.end)
    };
    // Statements and definitions say what a file is about; tactic proofs mostly name general
    // lemmas, so `by` blocks are skipped.
    let enter =
        |node: tree_sitter::Node<'_>| node.kind_id() != kinds.by_block && holds_signal(node);
    let mut cursor = file.root().walk();
    crate::lean::outline::for_each_descendant_where(&mut cursor, enter, |node| {
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
    let best = scores
        .iter()
        .enumerate()
        .max_by_key(|(i, s)| (**s, std::cmp::Reverse(*i)));
    match best {
        Some((i, s)) if *s > 0 => SIGNALS[i].0,
        _ => DEFAULT_DOMAIN,
    }
}

/// Finds every signal name in a text, overlapping matches included.
fn signal_finder() -> &'static aho_corasick::AhoCorasick {
    static FINDER: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    FINDER.get_or_init(|| {
        let names = SIGNALS.iter().flat_map(|(_, _, names)| names.iter());
        aho_corasick::AhoCorasick::new(names).expect("signal names are plain strings")
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
