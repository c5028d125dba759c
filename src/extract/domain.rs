//! The mathematical domain of a file, from evidence: the subject classification the file
//! states, else its Mathlib imports, else the Mathlib names its statements use (never the
//! names the file or its project defines). A file that says nothing, or whose evidence ties,
//! has no domain (`None`, shown as `unknown`): the knowledge base then takes the domain of the
//! problem's other files, and never a default.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::lean::outline::Outline;
use crate::lean::syntax::Occurrences;
use crate::lean::ParsedFile;
#[cfg(test)]
use std::path::Path;

/// Domain ids of the seeded taxonomy, with the Mathlib import prefixes and name components
/// that signal them. The order is no evidence: a tie decides nothing.
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
/// (`@[category research open, AMS 11]`, `tags := [.NumberTheory]`), else its Mathlib imports,
/// else the Mathlib names its statements use; `None` when nothing says, or when the evidence
/// ties: imports that name two fields equally leave the choice between those two to the names,
/// and names that tie decide nothing.
pub fn infer(outline: &Outline, file: &ParsedFile) -> Option<Domain> {
    if let Some(id) = stated_domain(&file.text) {
        return Some(Domain {
            id,
            evidence: Evidence::Classification,
        });
    }
    let mut imported = [0usize; SIGNALS.len()];
    for import in &outline.imports {
        for (i, (_, prefixes, _)) in SIGNALS.iter().enumerate() {
            if prefixes.iter().any(|p| import_is_under(import, p)) {
                imported[i] += 1;
            }
        }
    }
    let tied = leaders(&imported);
    if let [i] = tied[..] {
        return Some(Domain {
            id: SIGNALS[i].0,
            evidence: Evidence::Imports,
        });
    }
    let mut names = identifier_scores(&outline.imports, outline, file);
    if !tied.is_empty() {
        // The imports narrowed the field to the tied ones.
        for (i, score) in names.iter_mut().enumerate() {
            if !tied.contains(&i) {
                *score = 0;
            }
        }
    }
    match leaders(&names)[..] {
        [i] => Some(Domain {
            id: SIGNALS[i].0,
            evidence: Evidence::Names,
        }),
        _ => None,
    }
}

/// `Mathlib.Topology.Basic` is under `Mathlib.Topology`; `Mathlib.TopologyX` is not.
fn import_is_under(import: &str, prefix: &str) -> bool {
    import
        .strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
}

/// The indices of the domains with the highest positive score: none when every score is
/// zero, several on a tie.
fn leaders(scores: &[usize]) -> Vec<usize> {
    let max = scores.iter().copied().max().unwrap_or(0);
    if max == 0 {
        return Vec::new();
    }
    (0..scores.len()).filter(|&i| scores[i] == max).collect()
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
    // Both readings look for a word on some lines: a text without it anywhere (most files)
    // is not cut into lines, nor searched line by line.
    let ams_lines = text
        .contains("AMS")
        .then(|| text.lines().filter(|l| l.trim_start().starts_with("@[")));
    for line in ams_lines.into_iter().flatten() {
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
    if votes.is_empty() && text.contains("tags := ") {
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

/// Per domain of [`SIGNALS`], how many components of Mathlib identifiers in the file's
/// statements are among its names.
///
/// Statements say what a file is about: the signatures of its declarations (binders, types,
/// the fields of its structures), and the values of its definitions that another statement
/// uses (`def solutions := {p | p.Prime ∧ …}` behind `theorem : solutions.Infinite`).
/// Implementations do not (proofs, tactic blocks, instances, definitions no statement uses):
/// they name whatever a construction needs, such as the `ZMod 2` behind a project's own
/// `abbrev Z2`. And only Mathlib's names are subject evidence: a name
/// the file declares itself (a declaration, a structure's field, a constructor), an identifier
/// qualified by one, and one under the root of a non-Mathlib import (the project's own
/// namespace) are not, whatever they are called (ConNF's own `deriv` is no derivative).
fn identifier_scores(
    imports: &[String],
    outline: &Outline,
    file: &ParsedFile,
) -> [usize; SIGNALS.len()] {
    let kinds = node_kinds();
    // An identifier with a signalling component contains that name, so a subtree whose text
    // holds no signal name has nothing to count and is skipped whole.
    let hits = Occurrences::of(signal_names(), &file.text);
    let stated = stated_words(outline, &file.text);
    // One cursor walk that keeps the path from the root: `Node::parent` walks down from the
    // root every time it is asked, and each identifier wants its parent and grandparent.
    let root = file.root();
    let mut cursor = root.walk();
    let mut seen = Vec::new();
    let mut ancestors = vec![root];
    if cursor.goto_first_child() {
        'walk: loop {
            let node = cursor.node();
            let parent = ancestors[ancestors.len() - 1];
            if node.kind_id() == kinds.identifier {
                let grandparent = ancestors.len().checked_sub(2).map(|i| ancestors[i]);
                seen.push(Seen {
                    node,
                    parent,
                    grandparent,
                });
            }
            if node.child_count() > 0
                && hits.any_in(node.byte_range())
                && kinds.is_statement(node, parent, file, &stated)
                && cursor.goto_first_child()
            {
                ancestors.push(node);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    break 'walk;
                }
                ancestors.pop();
                if ancestors.is_empty() {
                    break 'walk;
                }
            }
        }
    }
    score_identifiers(imports, outline, file, seen)
}

/// An identifier met by [`identifier_scores`]'s walk, with its parent and grandparent.
struct Seen<'t> {
    node: Node<'t>,
    parent: Node<'t>,
    grandparent: Option<Node<'t>>,
}

/// The name components the file's statements use, apart from each declaration's own name,
/// and, through the definitions they name, what those definitions' values use in turn: a
/// definition named here is one a statement rests on.
fn stated_words<'a>(outline: &'a Outline, text: &'a str) -> HashSet<&'a str> {
    fn words<'a>(text: &'a str, own: &str, into: &mut Vec<&'a str>) {
        let is_word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '\'' | '!' | '?' | '.');
        for token in text.split(|c: char| !is_word(c)) {
            into.extend(token.split('.').filter(|w| !w.is_empty() && *w != own));
        }
    }
    let short = |d: &'a crate::lean::Declaration| d.name.rsplit('.').next().unwrap_or("");
    let mut pending = Vec::new();
    for d in &outline.declarations {
        let rest = d
            .statement
            .strip_prefix(d.name.as_str())
            .unwrap_or(&d.statement);
        words(rest, short(d), &mut pending);
    }
    let mut definitions: std::collections::HashMap<&str, Vec<&crate::lean::Declaration>> =
        std::collections::HashMap::new();
    for d in outline.declarations.iter().filter(|d| !d.theorem_like) {
        definitions.entry(short(d)).or_default().push(d);
    }
    let mut stated = HashSet::new();
    // Each definition's value is read once, when a statement or a value read first names it.
    while let Some(word) = pending.pop() {
        if !stated.insert(word) {
            continue;
        }
        for d in definitions.get(word).into_iter().flatten() {
            if let Some(body) = d.body.clone().and_then(|b| text.get(b)) {
                words(body, word, &mut pending);
            }
        }
    }
    stated
}

/// Scores identifier nodes met outside implementations (see [`identifier_scores`]).
fn score_identifiers(
    imports: &[String],
    outline: &Outline,
    file: &ParsedFile,
    identifiers: Vec<Seen<'_>>,
) -> [usize; SIGNALS.len()] {
    let kinds = node_kinds();
    let mut own: HashSet<&str> = outline
        .declarations
        .iter()
        .filter_map(|d| d.name.rsplit('.').next())
        .filter(|n| !n.is_empty())
        .collect();
    let mut used = Vec::new();
    for seen in identifiers {
        let text = file.text_of(seen.node);
        if kinds.declares(&seen) {
            own.insert(text);
        } else {
            let opened = seen.parent.kind_id() == kinds.open;
            used.push((text, opened));
        }
    }
    let foreign_roots: Vec<&str> = imports
        .iter()
        .filter_map(|i| i.split('.').next())
        .filter(|root| *root != "Mathlib")
        .collect();
    // What the statements name, else (when they name nothing) the namespaces the file opens:
    // an `open` prepares names, often as boilerplate, and says less than a statement.
    let mut scores = [[0usize; SIGNALS.len()]; 2];
    for (text, opened) in used {
        let root = text.split('.').next().unwrap_or("");
        if own.contains(root) || foreign_roots.contains(&root) {
            continue;
        }
        for component in text.split('.').filter(|c| !own.contains(c)) {
            for (i, (_, _, names)) in SIGNALS.iter().enumerate() {
                if names.contains(&component) {
                    scores[usize::from(opened)][i] += 1;
                }
            }
        }
    }
    let [stated, opened] = scores;
    if stated.iter().any(|&n| n > 0) {
        stated
    } else {
        opened
    }
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
    /// Implementations (tactic blocks, instances' fields) and imports, whose module names are
    /// no names a statement uses.
    implementations: [u16; 3],
    open: u16,
    /// The bodies of definitions and proofs by terms or equations.
    values: [u16; 2],
    field: u16,
    structure_body: u16,
    constructor: u16,
    constructor_name: u16,
}

impl Kinds {
    /// Whether the subtree at `node` is read (see [`identifier_scores`]): not an
    /// implementation, and a value only of a definition another statement names (`stated`).
    fn is_statement(
        &self,
        node: Node<'_>,
        parent: Node<'_>,
        file: &ParsedFile,
        stated: &HashSet<&str>,
    ) -> bool {
        let kind = node.kind_id();
        if self.implementations.contains(&kind) {
            return false;
        }
        if !self.values.contains(&kind) {
            return true;
        }
        parent
            .child_by_field_name("name")
            .and_then(|name| file.text_of(name).rsplit('.').next())
            .is_some_and(|name| stated.contains(name))
    }

    /// Whether an identifier is a name a structure or an inductive type declares: a field's
    /// (the identifiers before its `:`) or a constructor's.
    fn declares(&self, seen: &Seen<'_>) -> bool {
        let (node, parent) = (seen.node, seen.parent);
        let kind = parent.kind_id();
        if kind == self.constructor_name {
            return true;
        }
        if kind == self.constructor {
            return parent.child_by_field_name("name") == Some(node);
        }
        if kind == self.field && seen.grandparent.map(|p| p.kind_id()) == Some(self.structure_body)
        {
            let mut prev = node.prev_sibling();
            while let Some(p) = prev {
                if p.kind_id() != self.identifier {
                    return false;
                }
                prev = p.prev_sibling();
            }
            return true;
        }
        false
    }
}

fn node_kinds() -> &'static Kinds {
    static KINDS: std::sync::OnceLock<Kinds> = std::sync::OnceLock::new();
    KINDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_lean::LANGUAGE.into();
        let id = |kind: &str| lang.id_for_node_kind(kind, true);
        Kinds {
            identifier: id("identifier"),
            implementations: [id("by_block"), id("where_fields"), id("import")],
            open: id("open"),
            values: [id("value"), id("equations")],
            field: id("field"),
            structure_body: id("structure_body"),
            constructor: id("constructor"),
            constructor_name: id("constructor_name"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The domain of `text` read as a file with these imports.
    fn domain(imports: &[&str], text: &str) -> Option<Domain> {
        let file = ParsedFile::parse(text.to_string());
        let mut outline = Outline::of("t.lean", &file);
        outline.imports = imports.iter().map(|s| s.to_string()).collect();
        infer(&outline, &file)
    }

    fn id(imports: &[&str], text: &str) -> Option<&'static str> {
        domain(imports, text).map(|d| d.id)
    }

    #[test]
    fn a_stated_subject_classification_decides_the_domain() {
        // Analysis words, but the file says number theory (AMS 11).
        let nt = "import Mathlib\nopen Filter\n\n@[category research open, AMS 11]\n\
                  theorem t : Tendsto (fun n : ℕ => (n : ℝ)) atTop atTop ∧ Continuous id := sorry\n";
        assert_eq!(
            domain(&[], nt),
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
            domain(&["Mathlib.Geometry.Euclidean.Triangle"], graphs),
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
            id(&["Mathlib.Combinatorics.SimpleGraph.Basic"], plain),
            Some("combinatorics")
        );
        // A whole component, not a prefix of one.
        assert_eq!(id(&["Mathlib.TopologyX"], plain), None);
        // Names only when the imports say nothing.
        assert_eq!(
            domain(&["Mathlib"], graphs),
            Some(Domain {
                id: "combinatorics",
                evidence: Evidence::Names
            })
        );
    }

    /// The scores of a walk over every node outside implementations, without skipping.
    fn scores_of_full_walk(outline: &Outline, file: &ParsedFile) -> Vec<usize> {
        let kinds = node_kinds();
        let stated = stated_words(outline, &file.text);
        let mut identifiers = Vec::new();
        let mut cursor = file.root().walk();
        'walk: loop {
            let node = cursor.node();
            // Each node asks for its parent here, independently of the walk's path.
            if let (true, Some(parent)) = (node.kind_id() == kinds.identifier, node.parent()) {
                identifiers.push(Seen {
                    node,
                    parent,
                    grandparent: parent.parent(),
                });
            }
            let statement = node
                .parent()
                .is_none_or(|p| kinds.is_statement(node, p, file, &stated));
            if statement && cursor.goto_first_child() {
                continue;
            }
            while !cursor.goto_next_sibling() {
                if !cursor.goto_parent() {
                    break 'walk;
                }
            }
        }
        score_identifiers(&outline.imports, outline, file, identifiers).to_vec()
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
            let outline = Outline::of("t.lean", &file);
            let full = scores_of_full_walk(&outline, &file);
            let scores = identifier_scores(&outline.imports, &outline, &file);
            assert_eq!(scores.to_vec(), full, "{text}");
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

    /// The domain of a fixture of `fixtures/domain`, read with its own imports.
    fn fixture(name: &str) -> Option<Domain> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/domain")
            .join(name);
        let file = ParsedFile::parse(std::fs::read_to_string(path).unwrap());
        infer(&Outline::of(name, &file), &file)
    }

    /// A name the file declares itself (a field, a structure, a constructor, an abbreviation),
    /// one qualified by it or by the project's own namespace, and what proofs and the values
    /// of definitions no statement uses name are no subject evidence.
    #[test]
    fn the_files_own_names_are_no_evidence() {
        assert_eq!(fixture("own_names.lean"), None);
        // The same shape using Mathlib's `deriv` in its statements is analysis.
        assert_eq!(
            fixture("mathlib_names.lean"),
            Some(Domain {
                id: "analysis",
                evidence: Evidence::Names
            })
        );
        // Each exclusion alone.
        assert_eq!(
            id(&[], "theorem t (x : ℝ) : deriv f x = 0 := sorry"),
            Some("analysis")
        );
        let field =
            "structure S where\n  deriv : ℕ\ntheorem t (s : S) : s.deriv = deriv s := sorry";
        assert_eq!(id(&[], field), None);
        let ctor = "inductive T\n  | Prime\ntheorem t : T.Prime = T.Prime := rfl";
        assert_eq!(id(&[], ctor), None);
        let qualified = "class Derivative (X : Type) where\n  d : X\n\
                         theorem t : Derivative.deriv = 0 := sorry";
        assert_eq!(id(&[], qualified), None);
        assert_eq!(
            id(&["Proj.Base"], "theorem t : Proj.Prime 2 := sorry"),
            None
        );
        assert_eq!(
            id(&["Proj.Base"], "theorem t : Nat.Prime 2 := sorry"),
            Some("nt")
        );
        // A definition's value speaks through the statements that use it.
        let unused = "abbrev Z2 : Type := ZMod 2\ntheorem t (x : Fin 2) : x = x := rfl";
        assert_eq!(id(&[], unused), None);
        let used = "abbrev Z2 : Type := ZMod 2\ntheorem t (x : Z2) : x = x := rfl";
        assert_eq!(id(&[], used), Some("nt"));
        let set = "def S : Set ℕ := {p | Nat.Prime p}\ntheorem t : S.Infinite := sorry";
        assert_eq!(id(&[], set), Some("nt"));
        // Through definitions that the definitions a statement names use.
        let chain = "def D (n : ℕ) : Finset ℕ := {d ∈ Finset.range n | d.Coprime n}\n\
                     def P (n : ℕ) : Prop := (D n).card = 2\ntheorem t : P 3 := sorry";
        assert_eq!(id(&[], chain), Some("nt"));
        assert_eq!(id(&[], "theorem t : 2 = 2 := Nat.Prime.two_le"), None);
        assert_eq!(id(&[], "theorem t (x : ZMod 2) : x = x := rfl"), Some("nt"));
        // Opening a namespace says less than a statement, and something where they say
        // nothing.
        let opened =
            "open Matrix MeasureTheory\ntheorem t (p : ℕ) (h : Nat.Prime p) : p = p := rfl";
        assert_eq!(id(&[], opened), Some("nt"));
        let only = "open EuclideanGeometry\ntheorem t (A B : P) : dist A B = dist B A := sorry";
        assert_eq!(id(&[], only), Some("geometry"));
        let instance = "instance : D ℕ where\n  deriv n := n\ntheorem t : True := trivial";
        assert_eq!(id(&[], instance), None);
    }

    /// Ties are no evidence: imports that name two fields equally leave the choice between
    /// them to the names, and a tie that nothing breaks says unknown, never a table's order.
    #[test]
    fn ties_are_broken_by_evidence_or_not_at_all() {
        assert_eq!(
            fixture("import_tie.lean"),
            Some(Domain {
                id: "analysis",
                evidence: Evidence::Names
            })
        );
        assert_eq!(fixture("import_tie_unresolved.lean"), None);
        assert_eq!(fixture("names_tie.lean"), None);
        let plain = "theorem t : True := trivial\n";
        let geometry = [
            "Mathlib.Geometry.Euclidean.Basic",
            "Mathlib.Analysis.InnerProductSpace.Basic",
        ];
        assert_eq!(id(&geometry, plain), None);
        let triangle =
            "theorem t (A B C : EuclideanSpace ℝ (Fin 2)) : Collinear ℝ {A, B, C} := sorry";
        assert_eq!(id(&geometry, triangle), Some("geometry"));
        // More imports of one field is no tie.
        assert_eq!(
            id(
                &[
                    "Mathlib.Topology.Basic",
                    "Mathlib.Topology.Order",
                    "Mathlib.Analysis.Normed.Basic"
                ],
                plain
            ),
            Some("topology")
        );
    }
}
