//! Same-file dependencies: which declarations of a file rest on an incomplete one.
//!
//! A declaration is *incomplete* by itself (it has a [`Gap`]) when its own text holds a
//! `sorry`/`admit`/`sorryAx`, it is an `axiom`, it is a theorem without a proof, part of it did
//! not parse (what was not read cannot be vouched for), or the caller says so (e.g. a lemma of
//! a budget-reached output, [`Gap::Partial`]). A declaration is *conditional* when it refers,
//! directly or through other declarations of the file, to an incomplete one: it holds only if
//! the lemmas it waits on do.
//!
//! # References
//!
//! Every `identifier` of a declaration's statement and body counts (names in comments and
//! strings do not). An identifier `t₀.….tₙ` refers to the declaration `F` when, for some `i`,
//! `F`'s full name ends with the whole components `t₀…tᵢ` (how Lean resolves a name written
//! inside `namespace`s, after `open`, or partly qualified; `foo.mp` and `foo.le` are uses of
//! `foo`), or when `tᵢ` (`i > 0`) is the last component of a namespaced `F` (generalized field
//! notation: `hn.foo` may be `Nat.foo`; `tᵢ₋₁` must then be a term's name, which Lean's convention
//! spells without a capital). Without elaboration this over-approximates slightly,
//! which is the safe side: a proof is never called unconditional because a use was missed.
//!
//! Some uses have no name in the text: an incomplete `instance` (or `@[instance]`) is taken as
//! used by every later declaration, an incomplete `@[simp]` lemma by every later declaration
//! whose proof runs a simp-family tactic, and every incomplete declaration by every later one
//! whose proof runs a search tactic (`exact?`, `apply?`, `rw?`, `hint`, …), which may close a
//! goal with any earlier lemma of the file.
//!
//! # Cost
//!
//! One walk over the tree collects identifiers; each is looked up by its components in a hash
//! map. Dependencies propagate through a worklist in document order (Lean declarations refer
//! to earlier ones, so one pass settles everything but `mutual` blocks) with no recursion. Each
//! declaration keeps at most [`MAX_NAMED`] lemmas it waits on (the earliest in the file) and
//! says when there are more, so the work stays linear in the number of references.

use std::collections::{HashMap, VecDeque};

use super::idents::{code_identifiers_where, components};
use super::outline::{Declaration, Outline};
use super::syntax::{Occurrences, ParsedFile};

/// How many lemmas a declaration's [`Waits`] names at most; the rest are counted as "more".
pub const MAX_NAMED: usize = 8;

/// Why a declaration is incomplete by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Gap {
    /// A `sorry`, `admit` or `sorryAx` in its statement or proof.
    Sorry,
    /// An `axiom` declaration.
    Axiom,
    /// A `theorem`/`lemma` with no proof at all.
    MissingProof,
    /// Part of the declaration did not parse.
    ParseError,
    /// The caller's judgement: e.g. a lemma of an output whose checker ran out of budget.
    Partial,
    /// The caller's judgement: the file itself disproves it (Aristotle proved its negation).
    Disproved,
}

impl Gap {
    /// A lowercase word for the gap: `sorry`, `axiom`, `missing_proof`, `parse_error`, `partial`,
    /// `disproved`.
    pub fn as_str(self) -> &'static str {
        match self {
            Gap::Sorry => "sorry",
            Gap::Axiom => "axiom",
            Gap::MissingProof => "missing_proof",
            Gap::ParseError => "parse_error",
            Gap::Partial => "partial",
            Gap::Disproved => "disproved",
        }
    }
}

/// The incomplete declarations one declaration rests on (indices into the outline's
/// `declarations`, in file order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Waits {
    /// At most [`MAX_NAMED`] incomplete declarations, the earliest in the file.
    pub on: Vec<usize>,
    /// There are more than those listed.
    pub more: bool,
}

impl Waits {
    fn is_empty(&self) -> bool {
        self.on.is_empty()
    }

    /// Adds `other`'s lemmas (and `extra`, if any) keeping the earliest [`MAX_NAMED`]; whether
    /// anything changed.
    fn absorb(&mut self, other: &Waits, extra: Option<usize>) -> bool {
        let mut merged: Vec<usize> = Vec::with_capacity(self.on.len() + other.on.len() + 1);
        merged.extend_from_slice(&self.on);
        merged.extend_from_slice(&other.on);
        merged.extend(extra);
        merged.sort_unstable();
        merged.dedup();
        let mut more = self.more || other.more;
        if merged.len() > MAX_NAMED {
            merged.truncate(MAX_NAMED);
            more = true;
        }
        let changed = merged != self.on || more != self.more;
        self.on = merged;
        self.more = more;
        changed
    }
}

/// For every declaration of one file: its own gap and the incomplete declarations it rests on.
#[derive(Debug, Clone, Default)]
pub struct Dependencies {
    gaps: Vec<Option<Gap>>,
    waits: Vec<Waits>,
    names: Vec<String>,
}

impl Dependencies {
    /// The dependencies of `outline`'s declarations (`outline` must be read from `file`).
    pub fn of(file: &ParsedFile, outline: &Outline) -> Dependencies {
        Dependencies::with_gaps(file, outline, |_| None)
    }

    /// As [`Dependencies::of`], with `extra` marking further declarations incomplete (a hook
    /// for what the file alone does not show, such as [`Gap::Partial`]). A gap the text shows
    /// takes precedence over the caller's.
    pub fn with_gaps(
        file: &ParsedFile,
        outline: &Outline,
        extra: impl Fn(&Declaration) -> Option<Gap>,
    ) -> Dependencies {
        let decls = &outline.declarations;
        let mut gaps: Vec<Option<Gap>> = decls.iter().map(|d| own_gap(d).or(extra(d))).collect();
        // Without a gap nothing waits on anything, and only a `sorryAx` in the text could add
        // one: such a file needs no walk for its references.
        let waits = if gaps.iter().all(Option::is_none)
            && memchr::memmem::find(file.text.as_bytes(), b"sorryAx").is_none()
        {
            vec![Waits::default(); decls.len()]
        } else {
            let uses = references(file, decls, &mut gaps);
            propagate(decls, &gaps, &uses)
        };
        Dependencies {
            gaps,
            waits,
            names: decls.iter().map(display_name).collect(),
        }
    }

    /// The gap of declaration `i` itself, if it is incomplete.
    pub fn gap(&self, i: usize) -> Option<Gap> {
        self.gaps.get(i).copied().flatten()
    }

    /// The incomplete declarations that declaration `i` rests on (not itself).
    pub fn waits(&self, i: usize) -> Option<&Waits> {
        self.waits.get(i).filter(|w| !w.is_empty())
    }

    /// Whether declaration `i` rests on an incomplete declaration of the file.
    pub fn is_conditional(&self, i: usize) -> bool {
        self.waits(i).is_some()
    }

    /// The names (full names; `example@LINE`-style for anonymous ones) of the lemmas
    /// declaration `i` waits on, with each one's gap.
    pub fn waits_on(&self, i: usize) -> Vec<(&str, Gap)> {
        self.waits(i)
            .map(|w| {
                w.on.iter()
                    .filter_map(|&j| Some((self.names[j].as_str(), self.gap(j)?)))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The name a waited-on declaration is reported by: its full name, else `kind@line`.
fn display_name(d: &Declaration) -> String {
    if d.full_name.is_empty() {
        format!("{}@{}", d.kind, d.line)
    } else {
        d.full_name.clone()
    }
}

/// What a declaration's own text shows.
fn own_gap(d: &Declaration) -> Option<Gap> {
    if d.kind == "axiom" {
        Some(Gap::Axiom)
    } else if d.sorry_count > 0 {
        Some(Gap::Sorry)
    } else if d.parse_error {
        Some(Gap::ParseError)
    } else if !d.has_body() && d.is_theorem_like() {
        Some(Gap::MissingProof)
    } else {
        None
    }
}

/// Tactics that use the simp set without naming its lemmas.
const SIMP_FAMILY: &[&str] = &[
    "simp",
    "simp_all",
    "simpa",
    "simp?",
    "simp_all?",
    "dsimp",
    "norm_num",
    "field_simp",
    "aesop",
    "simp_arith",
    "positivity",
];

/// Tactics that search the environment for a lemma and may use any earlier declaration.
const SEARCH_TACTICS: &[&str] = &[
    "exact?",
    "apply?",
    "rw?",
    "rw_search",
    "hint",
    "library_search",
    "aesop?",
    "observe",
    "observe?",
];

/// For each declaration, the other declarations it refers to (sorted, deduplicated). Marks a
/// declaration holding the identifier `sorryAx` as a [`Gap::Sorry`].
fn references(
    file: &ParsedFile,
    decls: &[Declaration],
    gaps: &mut [Option<Gap>],
) -> Vec<Vec<usize>> {
    // Last component → declarations with that last component.
    let mut by_last: HashMap<&str, Vec<usize>> = HashMap::new();
    let full: Vec<Vec<&str>> = decls
        .iter()
        .map(|d| components(&d.full_name).into_iter().map(unquote).collect())
        .collect();
    for (i, parts) in full.iter().enumerate() {
        if let Some(last) = parts.last() {
            by_last.entry(last).or_default().push(i);
        }
    }
    // Declarations in file order by start (the outline's order; sorted here to be certain).
    let mut order: Vec<usize> = (0..decls.len()).collect();
    order.sort_by_key(|&i| decls[i].span.start);

    let mut uses: Vec<Vec<usize>> = vec![Vec::new(); decls.len()];
    let mut at = 0; // position in `order`
                    // An identifier that refers to a declaration holds its last component (or `sorryAx`) in
                    // its text: subtrees whose text holds none of them are skipped whole.
    let names = aho_corasick::AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
        .build(by_last.keys().copied().chain(["sorryAx"]))
        .expect("declaration names build an automaton");
    let hits = Occurrences::of(&names, &file.text);
    for node in code_identifiers_where(file, |n| hits.any_in(n.byte_range())) {
        let byte = node.start_byte();
        while at < order.len() && decls[order[at]].span.end <= byte {
            at += 1;
        }
        let Some(&owner) = order.get(at) else { break };
        if decls[owner].span.start > byte {
            continue;
        }
        let token = file.text_of(node);
        let token = token.strip_prefix('@').unwrap_or(token);
        let token = token.strip_prefix("_root_.").unwrap_or(token);
        let parts: Vec<&str> = components(token).into_iter().map(unquote).collect();
        if parts.first() == Some(&"sorryAx") {
            gaps[owner] = gaps[owner].or(Some(Gap::Sorry));
        }
        for (k, part) in parts.iter().enumerate() {
            let Some(candidates) = by_last.get(part) else {
                continue;
            };
            let before = &parts[..k];
            for &c in candidates {
                let qualifier = &full[c][..full[c].len() - 1];
                let resolved = qualifier.ends_with(before);
                // `h.foo` on a term `h` (Lean names terms in lowerCamel/snake case, types and
                // namespaces in UpperCamelCase): a use of some `T.foo`.
                let field_notation = k > 0
                    && !qualifier.is_empty()
                    && !parts[k - 1].starts_with(|c: char| c.is_uppercase());
                if (resolved || field_notation) && c != owner {
                    uses[owner].push(c);
                }
            }
        }
    }
    // Uses without a name: incomplete instances and simp lemmas declared earlier.
    let mut instances: Vec<usize> = Vec::new();
    let mut simp_lemmas: Vec<usize> = Vec::new();
    let mut incomplete: Vec<usize> = Vec::new();
    for &i in &order {
        let d = &decls[i];
        uses[i].extend(instances.iter().copied());
        if d.tactics.keys().any(|t| SIMP_FAMILY.contains(&t.as_str())) {
            uses[i].extend(simp_lemmas.iter().copied());
        }
        // A search may find any earlier lemma: the proof rests on every incomplete one (the
        // earliest [`MAX_NAMED`] are named; more are counted by `propagate`).
        if d.tactics
            .keys()
            .any(|t| SEARCH_TACTICS.contains(&t.as_str()))
        {
            uses[i].extend(incomplete.iter().take(MAX_NAMED + 1).copied());
        }
        if gaps[i].is_some() {
            incomplete.push(i);
            let attrs = |name: &str| d.attributes.iter().any(|a| attr_names(a, name));
            if d.kind.ends_with("instance") || attrs("instance") {
                instances.push(i);
            }
            if attrs("simp") {
                simp_lemmas.push(i);
            }
        }
    }
    for u in &mut uses {
        u.sort_unstable();
        u.dedup();
    }
    uses
}

/// Whether the attribute text `attr` (e.g. `simp`, `simp, norm_cast`, `local simp`) applies
/// the attribute `name`.
fn attr_names(attr: &str, name: &str) -> bool {
    attr.split([',', ' '])
        .map(str::trim)
        .any(|w| w == name || w.strip_prefix("scoped ").is_some_and(|w| w == name))
}

fn unquote(p: &str) -> &str {
    p.strip_prefix('«')
        .and_then(|p| p.strip_suffix('»'))
        .unwrap_or(p)
}

/// The incomplete declarations each declaration reaches through `uses`, by a worklist in
/// document order (users are revisited only when what they use changed).
fn propagate(decls: &[Declaration], gaps: &[Option<Gap>], uses: &[Vec<usize>]) -> Vec<Waits> {
    let n = decls.len();
    let mut used_by: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (user, used) in uses.iter().enumerate() {
        for &u in used {
            used_by[u].push(user);
        }
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| decls[i].span.start);
    let mut queued = vec![true; n];
    let mut queue: VecDeque<usize> = order.into();
    let mut waits: Vec<Waits> = vec![Waits::default(); n];
    while let Some(d) = queue.pop_front() {
        queued[d] = false;
        let mut next = waits[d].clone();
        let mut changed = false;
        for &e in &uses[d] {
            let extra = gaps[e].is_some().then_some(e);
            changed |= next.absorb(&waits[e], extra);
        }
        // A declaration never waits on itself (a mutual cycle back to it).
        if next.on.contains(&d) {
            next.on.retain(|&x| x != d);
        }
        if changed && next != waits[d] {
            waits[d] = next;
            for &user in &used_by[d] {
                if !queued[user] {
                    queued[user] = true;
                    queue.push_back(user);
                }
            }
        }
    }
    waits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deps(src: &str) -> (Outline, Dependencies) {
        let file = ParsedFile::parse(src.to_string());
        let outline = Outline::of("t.lean", &file);
        let deps = Dependencies::of(&file, &outline);
        (outline, deps)
    }

    fn waits_of(src: &str, name: &str) -> Vec<String> {
        let (outline, deps) = deps(src);
        let i = outline
            .declarations
            .iter()
            .position(|d| d.full_name == name)
            .unwrap_or_else(|| panic!("{name} not declared"));
        deps.waits_on(i)
            .into_iter()
            .map(|(n, g)| format!("{n}:{}", g.as_str()))
            .collect()
    }

    #[test]
    fn direct_and_transitive_sorry() {
        let src = "lemma a : 1 = 1 := by sorry\n\nlemma b : 2 = 2 := by\n  have := a\n  rfl\n\ntheorem c : 3 = 3 := by\n  have := b\n  rfl\n\ntheorem d : 4 = 4 := rfl\n";
        assert_eq!(waits_of(src, "b"), ["a:sorry"]);
        assert_eq!(waits_of(src, "c"), ["a:sorry"]);
        assert!(waits_of(src, "d").is_empty());
        assert!(
            waits_of(src, "a").is_empty(),
            "a is incomplete, not conditional"
        );
        let (_, deps) = deps(src);
        assert_eq!(deps.gap(0), Some(Gap::Sorry));
        assert!(deps.is_conditional(2) && !deps.is_conditional(3));
    }

    #[test]
    fn axioms_and_comments() {
        let src = "axiom big : ∀ n : Nat, n < 5\n\ntheorem uses : 3 < 5 := big 3\n\n-- big is mentioned here only\ntheorem clean : True := by\n  -- big\n  trivial\n";
        assert_eq!(waits_of(src, "uses"), ["big:axiom"]);
        assert!(waits_of(src, "clean").is_empty());
    }

    #[test]
    fn namespaces_projections_and_whole_components() {
        let src = "namespace Ns\n\nlemma key (n : Nat) : n ≤ n + 1 := by sorry\n\ntheorem inside : 1 ≤ 2 := key 1\n\nend Ns\n\ntheorem outside : 1 ≤ 2 := (Ns.key 1).trans le_rfl\n\ntheorem opened : 1 ≤ 2 := by\n  exact Ns.key.mp\n\ntheorem similar (key_bar : Nat) : True := by\n  have := key_bar\n  trivial\n\ntheorem other : True := Other.key\n";
        assert_eq!(waits_of(src, "Ns.inside"), ["Ns.key:sorry"]);
        assert_eq!(waits_of(src, "outside"), ["Ns.key:sorry"]);
        assert_eq!(waits_of(src, "opened"), ["Ns.key:sorry"]);
        assert!(
            waits_of(src, "similar").is_empty(),
            "key_bar is another name"
        );
        assert!(waits_of(src, "other").is_empty(), "Other.key is not Ns.key");
    }

    #[test]
    fn defs_with_holes_and_sorry_ax() {
        let src = "def f (n : Nat) : Nat := sorry\n\ntheorem about_f : f 0 = f 0 := rfl\n\ntheorem raw : False := sorryAx False\n\ntheorem via_raw : False := raw\n";
        assert_eq!(waits_of(src, "about_f"), ["f:sorry"]);
        let (_, d) = deps(src);
        assert_eq!(d.gap(2), Some(Gap::Sorry), "sorryAx is a hole");
        assert_eq!(waits_of(src, "via_raw"), ["raw:sorry"]);
    }

    #[test]
    fn implicit_instances_and_simp_lemmas() {
        let src = "instance : Inhabited Nat := sorry\n\n@[simp] lemma s (n : Nat) : n + 0 = n := by sorry\n\ntheorem t (n : Nat) : n + 0 = n := by simp\n\ntheorem u : True := trivial\n";
        assert_eq!(waits_of(src, "t"), ["instance@1:sorry", "s:sorry"]);
        assert_eq!(waits_of(src, "u"), ["instance@1:sorry"]);
    }

    #[test]
    fn a_search_tactic_may_use_any_earlier_incomplete_lemma() {
        let src = "lemma a : 1 = 1 := by sorry\n\nlemma b : 2 = 2 := rfl\n\n\
                   theorem c : 3 = 3 := by\n  exact?\n\n\
                   theorem d : 4 = 4 := by\n  first | apply? | rfl\n\n\
                   lemma e : 5 = 5 := by sorry\n\n\
                   theorem f : 6 = 6 := by\n  rfl\n";
        assert_eq!(waits_of(src, "c"), ["a:sorry"]);
        assert_eq!(waits_of(src, "d"), ["a:sorry"]);
        // Only earlier lemmas, and only for a proof that searches.
        assert!(waits_of(src, "f").is_empty());
        assert!(waits_of(src, "b").is_empty());
    }

    #[test]
    fn mutual_blocks_and_partial_hook() {
        let src = "mutual\ntheorem ev : True := od\ntheorem od : True := by sorry\nend\n\ntheorem p : True := trivial\n\ntheorem q : True := p\n";
        assert_eq!(waits_of(src, "ev"), ["od:sorry"]);
        let file = ParsedFile::parse(src.to_string());
        let outline = Outline::of("t.lean", &file);
        let d = Dependencies::with_gaps(&file, &outline, |d| {
            (d.name == "p" || d.name == "od").then_some(Gap::Partial)
        });
        let q = outline
            .declarations
            .iter()
            .position(|d| d.name == "q")
            .unwrap();
        assert_eq!(d.waits_on(q), [("p", Gap::Partial)]);
        let od = outline
            .declarations
            .iter()
            .position(|d| d.name == "od")
            .unwrap();
        assert_eq!(d.gap(od), Some(Gap::Sorry), "the text's gap wins");
    }

    #[test]
    fn long_chains_stay_linear_and_capped() {
        let mut src = String::new();
        for i in 0..20 {
            src.push_str(&format!("lemma h{i} : True := by sorry\n\n"));
        }
        src.push_str("lemma l0 : True := h0\n\n");
        for i in 1..5000 {
            let prev = i - 1;
            let hole = i % 20;
            src.push_str(&format!(
                "lemma l{i} : True := by\n  have := l{prev}\n  exact h{hole}\n\n"
            ));
        }
        let start = std::time::Instant::now();
        let (outline, d) = deps(&src);
        let last = outline.declarations.len() - 1;
        let w = d.waits(last).unwrap();
        assert_eq!(w.on.len(), MAX_NAMED);
        assert!(w.more);
        assert_eq!(d.waits_on(last)[0], ("h0", Gap::Sorry));
        assert!(start.elapsed().as_secs() < 20);
    }
}
