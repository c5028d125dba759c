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
    let mut cursor = file.root().walk();
    'walk: loop {
        let node = cursor.node();
        if node.kind_id() == kinds.identifier {
            let name = file.text_of(node);
            for component in name.split('.') {
                for (i, (_, _, names)) in SIGNALS.iter().enumerate() {
                    if names.contains(&component) {
                        scores[i] += 1;
                    }
                }
            }
        }
        // Statements and definitions say what a file is about; tactic proofs mostly name
        // general lemmas, and skipping them halves the walk.
        if node.kind_id() != kinds.by_block && cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
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
