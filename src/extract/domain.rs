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
    let identifier = tree_sitter_lean_identifier_kind();
    let mut cursor = file.root().walk();
    loop {
        let node = cursor.node();
        if node.kind_id() == identifier {
            let name = file.text_of(node);
            for component in name.split('.') {
                for (i, (_, _, names)) in SIGNALS.iter().enumerate() {
                    if names.contains(&component) {
                        scores[i] += 1;
                    }
                }
            }
        }
        if cursor.goto_first_child() || cursor.goto_next_sibling() {
            continue;
        }
        let mut done = false;
        loop {
            if !cursor.goto_parent() {
                done = true;
                break;
            }
            if cursor.goto_next_sibling() {
                break;
            }
        }
        if done {
            break;
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

fn tree_sitter_lean_identifier_kind() -> u16 {
    static ID: std::sync::OnceLock<u16> = std::sync::OnceLock::new();
    *ID.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_lean::LANGUAGE.into();
        lang.id_for_node_kind("identifier", true)
    })
}
