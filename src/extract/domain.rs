//! The mathematical domain of a file, from evidence: the subject classification the file
//! states, else its Mathlib imports, else the names its statements and definitions use. A file
//! that says nothing has no domain (`None`, shown as `unknown`): the knowledge base then takes
//! the domain of the problem's other files, and never a default.

use tree_sitter::Node;

use crate::lean::outline::for_each_descendant_where;
use crate::lean::syntax::Occurrences;
use crate::lean::ParsedFile;
#[cfg(test)]
use std::path::Path;

/// Domain ids of the seeded taxonomy, with the Mathlib import prefixes and name components
/// that signal them. On a tie the earlier entry wins, so the more specific domains
/// (geometry, probability, topology) come before analysis, whose imports they share.
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
            "Mathlib.RepresentationTheory",
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
        "geometry",
        &["Mathlib.Geometry"],
        &[
            "EuclideanGeometry",
            "EuclideanSpace",
            "Collinear",
            "Concyclic",
            "Cospherical",
            "AffineSubspace",
            "circumcenter",
            "orthocenter",
            "oangle",
        ],
    ),
    (
        "probability",
        &["Mathlib.Probability"],
        &[
            "ProbabilityTheory",
            "IsProbabilityMeasure",
            "PMF",
            "IndepFun",
            "iIndepFun",
            "condexp",
        ],
    ),
    (
        "topology",
        &["Mathlib.Topology", "Mathlib.AlgebraicTopology"],
        &[
            "TopologicalSpace",
            "Homeomorph",
            "ConnectedSpace",
            "PathConnectedSpace",
            "CompactSpace",
            "T2Space",
        ],
    ),
    (
        "analysis",
        &["Mathlib.Analysis", "Mathlib.MeasureTheory"],
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

/// What a file's domain rests on, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Evidence {
    /// The file states its subject: `@[category research open, AMS 11]`, `tags := [.Geometry]`.
    Classification,
    /// Its Mathlib imports name a field (`Mathlib.Combinatorics.…`).
    Imports,
    /// The names its statements and definitions use (`SimpleGraph`, `Nat.Prime`).
    Names,
}

impl Evidence {
    /// `classification`, `imports` or `names`: how the knowledge base records it.
    pub fn as_str(self) -> &'static str {
        match self {
            Evidence::Classification => "classification",
            Evidence::Imports => "imports",
            Evidence::Names => "names",
        }
    }

    /// Rank for comparisons in SQL (lower is stronger).
    pub fn rank(self) -> i64 {
        self as i64
    }
}

/// A file's domain and what says so.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Domain {
    pub id: &'static str,
    pub evidence: Evidence,
}

/// Infers the domain id (`nt`, `algebra`, `combinatorics`, `geometry`, `probability`,
/// `topology`, `analysis`): the subject classification the file's own words state
/// (`@[category research open, AMS 11]`, `tags := [.NumberTheory]`), else its imports, else
/// the names its statements and definitions use; `None` when nothing says.
pub fn infer(imports: &[String], file: &ParsedFile) -> Option<Domain> {
    if let Some(id) = stated_domain(&file.text) {
        return Some(Domain {
            id,
            evidence: Evidence::Classification,
        });
    }
    let mut scores = [0usize; SIGNALS.len()];
    for import in imports {
        for (i, (_, prefixes, _)) in SIGNALS.iter().enumerate() {
            if prefixes.iter().any(|p| import_is_under(import, p)) {
                scores[i] += IMPORT_WEIGHT;
            }
        }
    }
    if let Some(id) = best(&scores) {
        return Some(Domain {
            id,
            evidence: Evidence::Imports,
        });
    }
    best(&identifier_scores(file)).map(|id| Domain {
        id,
        evidence: Evidence::Names,
    })
}

/// `Mathlib.Topology.Basic` is under `Mathlib.Topology`; `Mathlib.TopologyX` is not.
fn import_is_under(import: &str, prefix: &str) -> bool {
    import
        .strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// The domain with the highest positive score (the earlier one on a tie).
fn best(scores: &[usize]) -> Option<&'static str> {
    let (i, s) = scores
        .iter()
        .enumerate()
        .max_by_key(|(i, s)| (**s, std::cmp::Reverse(*i)))?;
    (*s > 0).then(|| SIGNALS[i].0)
}

/// The domain a file's own classification states: the `AMS N` codes of its attributes
/// (Formal Conjectures tags each problem with its Mathematics Subject Classification), else the
/// subjects of a `tags := [.NumberTheory, …]` list (compfiles' problem files), by majority over
/// the file, the first named on a tie; `None` when it states none that maps to a domain.
fn stated_domain(text: &str) -> Option<&'static str> {
    let mut votes: Vec<(&'static str, usize)> = Vec::new();
    fn vote(votes: &mut Vec<(&'static str, usize)>, d: &'static str) {
        match votes.iter_mut().find(|(id, _)| *id == d) {
            Some((_, n)) => *n += 1,
            None => votes.push((d, 1)),
        }
    }
    for line in text.lines().filter(|l| l.trim_start().starts_with("@[")) {
        let mut rest = line;
        while let Some(i) = rest.find("AMS") {
            rest = &rest[i + 3..];
            // `AMS 11 05`: every code after the word, up to the next comma or bracket.
            let codes = rest.split([',', ']']).next().unwrap_or("");
            for code in codes.split_whitespace() {
                let Ok(n) = code.parse::<u32>() else { break };
                if let Some(d) = msc_domain(n) {
                    vote(&mut votes, d);
                }
            }
        }
    }
    if votes.is_empty() {
        for line in text.lines() {
            let Some((_, list)) = line.split_once("tags := ") else {
                continue;
            };
            let list = list.trim_start().trim_start_matches('#');
            let Some(list) = list.strip_prefix('[') else {
                continue;
            };
            let list = list.split(']').next().unwrap_or("");
            for tag in list.split(',') {
                if let Some(d) = tag.trim().strip_prefix('.').and_then(subject_domain) {
                    vote(&mut votes, d);
                }
            }
        }
    }
    let max = votes.iter().map(|(_, n)| *n).max()?;
    votes.iter().find(|(_, n)| *n == max).map(|(d, _)| *d)
}

/// The domain of a subject tag (`NumberTheory`, `Geometry`, `Inequality`, …).
fn subject_domain(tag: &str) -> Option<&'static str> {
    match tag {
        "NumberTheory" => Some("nt"),
        // Competition mathematics files inequalities under algebra.
        "Algebra" | "Inequality" => Some("algebra"),
        "Combinatorics" => Some("combinatorics"),
        "Geometry" => Some("geometry"),
        "Probability" => Some("probability"),
        "Topology" => Some("topology"),
        "Analysis" | "Calculus" => Some("analysis"),
        _ => None,
    }
}

/// The domain of a two-digit Mathematics Subject Classification section.
fn msc_domain(code: u32) -> Option<&'static str> {
    match code {
        11 => Some("nt"),
        5 => Some("combinatorics"),
        6 | 8 | 12..=20 | 22 => Some("algebra"),
        51..=53 => Some("geometry"),
        54 | 55 | 57 => Some("topology"),
        60 | 62 => Some("probability"),
        26 | 28 | 30..=35 | 37 | 39..=47 | 49 | 58 => Some("analysis"),
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

    fn id(imports: &[&str], text: &str) -> Option<&'static str> {
        let imports: Vec<String> = imports.iter().map(|s| s.to_string()).collect();
        infer(&imports, &ParsedFile::parse(text.to_string())).map(|d| d.id)
    }

    #[test]
    fn a_stated_subject_classification_decides_the_domain() {
        let parse = |s: &str| ParsedFile::parse(s.to_string());
        // Analysis words, but the file says number theory (AMS 11).
        let nt = "import Mathlib\nopen Filter\n\n@[category research open, AMS 11]\n\
                  theorem t : Tendsto (fun n : ℕ => (n : ℝ)) atTop atTop ∧ Continuous id := sorry\n";
        assert_eq!(
            infer(&[], &parse(nt)),
            Some(Domain {
                id: "nt",
                evidence: Evidence::Classification
            })
        );
        let comb =
            "@[category research solved, AMS 5]\ntheorem t : Tendsto f atTop atTop := sorry\n";
        assert_eq!(id(&[], comb), Some("combinatorics"));
        // Discrete geometry (52) is geometry; the first code listed wins a tie.
        let geo = "@[category research open, AMS 52 5]\ntheorem t : True := sorry\n";
        assert_eq!(id(&[], geo), Some("geometry"));
        // A mention of AMS outside an attribute states nothing.
        let prose = "-- see AMS 11 notes\ntheorem t : Tendsto f atTop atTop := sorry\n";
        assert_eq!(id(&[], prose), Some("analysis"));
        // A problem file's subject tags classify it, before its imports.
        let tagged =
            "problem_file {\n  tags := [.Geometry, .Algebra],\n}\n\ntheorem t : True := trivial\n";
        assert_eq!(
            id(&["Mathlib.Algebra.Order.Field.Basic"], tagged),
            Some("geometry")
        );
        let inequality = "problem_file { tags := [.Inequality] }\n";
        assert_eq!(id(&[], inequality), Some("algebra"));
    }

    /// Imports say what a file is about before the names it uses; each field Mathlib has a
    /// folder for is read, the more specific one first on a tie.
    #[test]
    fn imports_name_the_field() {
        let graphs = "theorem t (G : SimpleGraph V) (h : G.Adj a b) : G.Adj b a := sorry\n";
        assert_eq!(
            infer(
                &["Mathlib.Geometry.Euclidean.Triangle".to_string()],
                &ParsedFile::parse(graphs.to_string())
            ),
            Some(Domain {
                id: "geometry",
                evidence: Evidence::Imports
            })
        );
        let plain = "theorem t : True := trivial\n";
        assert_eq!(
            id(&["Mathlib.Probability.Notation"], plain),
            Some("probability")
        );
        assert_eq!(id(&["Mathlib.Topology.Basic"], plain), Some("topology"));
        assert_eq!(
            id(
                &[
                    "Mathlib.Geometry.Euclidean.Basic",
                    "Mathlib.Analysis.InnerProductSpace.Basic"
                ],
                plain
            ),
            Some("geometry")
        );
        assert_eq!(
            id(&["Mathlib.Combinatorics.SimpleGraph.Basic"], plain),
            Some("combinatorics")
        );
        // A whole component, not a prefix of one.
        assert_eq!(id(&["Mathlib.TopologyX"], plain), None);
        // Names only when the imports say nothing.
        assert_eq!(
            infer(
                &["Mathlib".to_string()],
                &ParsedFile::parse(graphs.to_string())
            ),
            Some(Domain {
                id: "combinatorics",
                evidence: Evidence::Names
            })
        );
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
            let full = scores_of_full_walk(&file);
            assert_eq!(identifier_scores(&file).to_vec(), full, "{text}");
            if stated_domain(&file.text).is_none() {
                assert_eq!(id(&[], &text), best(&full), "{text}");
            }
        }
    }

    /// Where nothing says, the domain is unknown: never a default.
    #[test]
    fn only_identifiers_outside_tactic_blocks_count() {
        let text =
            "-- SimpleGraph SimpleGraph\ntheorem t (n : ℕ) (h : Nat.Prime n) : n ≠ 0 := by\n  \
             exact (SimpleGraph.Adj) (SimpleGraph.IsClique)";
        assert_eq!(id(&[], text), Some("nt"));
        assert_eq!(id(&["Mathlib"], "theorem t : True := trivial"), None);
        assert_eq!(
            id(
                &["Mathlib.Combinatorics.SimpleGraph"],
                "theorem t : True := trivial"
            ),
            Some("combinatorics")
        );
    }
}
