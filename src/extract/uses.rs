//! What a proof is made of, read from its syntax tree: the constants it refers to and its
//! spine (the top-level tactic steps).
//!
//! # Which identifiers are constants
//!
//! Without elaboration a local (`h`, `hx_pos`, `ih`) and a lemma (`mul_pos`) are both
//! identifiers, so a proof's identifier counts as a constant when it is
//! - qualified by a namespace of at least two characters starting with a capital
//!   (`Finset.card_le_card`, `Nat.Prime.two_le`; not `h.le`, `S.card`), or
//! - a declaration of the same file, or
//! - unqualified, contains `_` (`mul_pos`, `sq_nonneg`) and does not look like a hypothesis
//!   (`h_pos`, `hx_lt`, `ih_n`: `h`/`ih`/`H` plus at most two characters before the `_`),
//!
//! and in every case is not a name the declaration binds: its signature's lowercase words, names
//! introduced by `have`/`set`/`let`/`obtain`/`intro`/`rintro`/`choose`/`generalize` (before
//! their `:` or `:=`) and `rcases`/`cases`/`induction` patterns (after `with`). A tactic's own
//! name (its `head`) is never a use. The rules err towards leaving a lemma out rather than
//! indexing a local as one.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::lean::syntax::for_each_descendant;
use crate::lean::{Outline, ParsedFile};

/// One top-level step of a tactic proof: the tactic and the first constant it names that is
/// not a declaration of the same file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    pub head: String,
    pub constant: Option<String>,
}

/// What one declaration's proof is made of.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Proof {
    /// Constants the proof refers to, in order of first use, each once.
    pub uses: Vec<String>,
    /// Top-level tactic steps, in order (empty for a term-mode proof).
    pub spine: Vec<Step>,
    /// For a term-mode proof, the constant the term applies first (`Finset.card_le_card h`).
    pub term_head: Option<String>,
}

/// Tactics whose leading identifiers are names they bind (up to `:`/`:=`).
const BINDING_HEADS: &[&str] = &[
    "have",
    "set",
    "let",
    "obtain",
    "intro",
    "intros",
    "rintro",
    "choose",
    "generalize",
    "suffices",
];
/// Tactics whose identifiers after `with` are names they bind.
const PATTERN_HEADS: &[&str] = &[
    "rcases",
    "cases",
    "cases'",
    "induction",
    "induction'",
    "match",
];

/// The proofs of `outline`'s declarations, by declaration index.
pub fn proofs(file: &ParsedFile, outline: &Outline) -> Vec<Proof> {
    let declared: HashSet<&str> = outline
        .declarations
        .iter()
        .flat_map(|d| [d.name.as_str(), d.full_name.as_str()])
        .filter(|n| !n.is_empty())
        .collect();
    let root = file.root();
    outline
        .declarations
        .iter()
        .map(|decl| match &decl.body {
            Some(body) if !body.is_empty() => {
                let signature: HashSet<&str> = decl
                    .statement
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\'' || c == '.'))
                    .filter(|w| !w.is_empty())
                    .collect();
                match root.descendant_for_byte_range(body.start, body.end) {
                    Some(node) => proof_of(file, node, &declared, &signature, decl),
                    None => Proof::default(),
                }
            }
            _ => Proof::default(),
        })
        .collect()
}

fn proof_of<'t>(
    file: &ParsedFile,
    body: Node<'t>,
    declared: &HashSet<&str>,
    signature: &HashSet<&str>,
    decl: &crate::lean::Declaration,
) -> Proof {
    let text = |n: Node<'_>| file.text_of(n);
    // Names the proof binds, and every identifier in order (with whether it is a tactic head).
    let mut bound: HashSet<String> = HashSet::new();
    let mut idents: Vec<(Node<'t>, bool)> = Vec::new();
    let mut tactics: Vec<Node<'t>> = Vec::new();
    let mut cursor = body.walk();
    let mut visit = |n: Node<'t>| match n.kind() {
        "identifier" => {
            let is_head = n
                .parent()
                .and_then(|p| p.child_by_field_name("head"))
                .is_some_and(|h| h.id() == n.id());
            idents.push((n, is_head));
        }
        "tactic" => tactics.push(n),
        _ => {}
    };
    visit(body);
    for_each_descendant(&mut cursor, &mut visit);
    for t in &tactics {
        let Some(head) = t.child_by_field_name("head").map(text) else {
            continue;
        };
        let whole = text(*t);
        let start = t.start_byte();
        let range = if BINDING_HEADS.contains(&head) {
            let end = [":=", " : ", "←"]
                .iter()
                .filter_map(|p| whole.find(p))
                .min()
                .unwrap_or(whole.len());
            Some(start..start + end)
        } else if PATTERN_HEADS.contains(&head) {
            whole.find(" with ").map(|w| start + w..t.end_byte())
        } else {
            None
        };
        if let Some(range) = range {
            for (n, is_head) in &idents {
                if !is_head && range.contains(&n.start_byte()) && n.end_byte() <= t.end_byte() {
                    bound.insert(text(*n).to_string());
                }
            }
        }
    }
    let is_use = |name: &str| {
        let first = name.split('.').next().unwrap_or(name);
        name != decl.name
            && name != decl.full_name
            && !bound.contains(name)
            && !bound.contains(first)
            // The signature names types too (`Finset ℕ`): only its lowercase words are binders.
            && (!signature.contains(first) || first.starts_with(char::is_uppercase))
            && is_constant(name, declared)
    };
    // A key lemma names a reusable technique: a lemma of the same file is the file's own
    // structure, so the spine looks past it (it stays a use, and searchable).
    let is_key = |name: &str| is_use(name) && !declared.contains(name);
    let mut uses: Vec<String> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for (n, is_head) in &idents {
        let name = constant_name(text(*n));
        if !is_head && is_use(name) && seen.insert(name) {
            uses.push(name.to_string());
        }
    }
    let top_level = top_level_tactics(body);
    let spine = top_level
        .iter()
        .map(|t| Step {
            head: t
                .child_by_field_name("head")
                .map(|h| text(h).to_string())
                .unwrap_or_default(),
            constant: idents
                .iter()
                .filter(|(n, h)| {
                    !h && n.start_byte() >= t.start_byte() && n.end_byte() <= t.end_byte()
                })
                .map(|(n, _)| constant_name(text(*n)))
                .find(|name| is_key(name))
                .map(str::to_string),
        })
        .collect();
    let term_head = if top_level.is_empty() && !has_by_block(body) {
        idents
            .iter()
            .map(|(n, _)| constant_name(text(*n)))
            .find(|name| is_key(name))
            .map(str::to_string)
    } else {
        None
    };
    Proof {
        uses,
        spine,
        term_head,
    }
}

/// The constant an identifier names: without `@` and without numeric projections
/// (`Classical.not_not.1` → `Classical.not_not`).
fn constant_name(token: &str) -> &str {
    let mut name = token.trim_start_matches('@');
    while let Some((head, last)) = name.rsplit_once('.') {
        if last.is_empty() || !last.chars().all(|c| c.is_ascii_digit()) {
            break;
        }
        name = head;
    }
    name
}

/// Whether `name` looks like a constant rather than a local (see the module documentation).
fn is_constant(name: &str, declared: &HashSet<&str>) -> bool {
    if !name.starts_with(char::is_alphabetic) {
        return false; // `_`, `_root_` leftovers, numbers
    }
    if declared.contains(name) {
        return true;
    }
    match name.split_once('.') {
        Some((first, _)) => {
            first.chars().count() >= 2 && first.chars().next().is_some_and(char::is_uppercase)
        }
        None => name.contains('_') && !looks_like_hypothesis(name),
    }
}

/// `h_pos`, `hx_lt`, `hab_le`, `ih_n`, `H_1`: a hypothesis name, not a lemma.
fn looks_like_hypothesis(name: &str) -> bool {
    let prefix = name.split('_').next().unwrap_or(name);
    let rest = prefix
        .strip_prefix("ih")
        .or_else(|| prefix.strip_prefix('h'))
        .or_else(|| prefix.strip_prefix('H'));
    rest.is_some_and(|r| r.chars().count() <= 2)
}

/// The tactics of the proof's outermost `by` block (through `·` focusing blocks, not into
/// nested `by`s of `have`s).
fn top_level_tactics(body: Node<'_>) -> Vec<Node<'_>> {
    let Some(block) = first_by_block(body) else {
        return Vec::new();
    };
    let mut cursor = block.walk();
    block
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "tactic")
        .collect()
}

/// The first `by_block` at or below `body`, searched breadth-first a few levels deep (the
/// proof's own `by` sits right under the declaration's value).
fn first_by_block(body: Node<'_>) -> Option<Node<'_>> {
    let mut level = vec![body];
    for _ in 0..4 {
        if let Some(b) = level.iter().find(|n| n.kind() == "by_block") {
            return Some(*b);
        }
        let mut next = Vec::new();
        for n in &level {
            let mut cursor = n.walk();
            next.extend(n.named_children(&mut cursor));
        }
        level = next;
    }
    None
}

fn has_by_block(body: Node<'_>) -> bool {
    first_by_block(body).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proofs_of(src: &str) -> Vec<Proof> {
        let file = ParsedFile::parse(src.to_string());
        let outline = Outline::of("t.lean", &file);
        proofs(&file, &outline)
    }

    #[test]
    fn qualified_and_underscored_constants_are_uses_locals_are_not() {
        let p = &proofs_of(
            "theorem foo (s t : Finset ℕ) (h_sub : s ⊆ t) : s.card ≤ t.card := by\n  \
             have h2 : 1 ≤ 2 := by decide\n  \
             have key_step : s.card ≤ t.card := Finset.card_le_card h_sub\n  \
             exact le_trans key_step (le_refl _)\n",
        )[0];
        assert_eq!(p.uses, vec!["Finset.card_le_card", "le_trans", "le_refl"]);
        let heads: Vec<&str> = p.spine.iter().map(|s| s.head.as_str()).collect();
        assert_eq!(heads, vec!["have", "have", "exact"]);
        assert_eq!(p.spine[2].constant.as_deref(), Some("le_trans"));
    }

    #[test]
    fn same_file_lemmas_and_term_proofs() {
        let ps = proofs_of(
            "lemma aux (n : ℕ) : n ≤ n + 1 := Nat.le_succ n\n\n\
             theorem main (n : ℕ) (h : 2 ≤ n) : n ≤ n + 1 := aux n\n",
        );
        assert_eq!(ps[0].uses, vec!["Nat.le_succ"]);
        assert_eq!(ps[0].term_head.as_deref(), Some("Nat.le_succ"));
        assert_eq!(ps[1].uses, vec!["aux"]);
        assert_eq!(ps[1].term_head, None, "a same-file lemma is no key lemma");
        assert!(ps[1].spine.is_empty());
    }

    #[test]
    fn hypothesis_names_are_not_lemmas() {
        assert!(looks_like_hypothesis("h_pos"));
        assert!(looks_like_hypothesis("hx_lt"));
        assert!(looks_like_hypothesis("ih_n"));
        assert!(!looks_like_hypothesis("half_pos"));
        assert!(!looks_like_hypothesis("mul_pos"));
        let none = HashSet::new();
        assert!(!is_constant("S.card", &none));
        assert!(!is_constant("h.le", &none));
        assert!(is_constant("Nat.Prime.two_le", &none));
        assert_eq!(constant_name("@Classical.not_not.1"), "Classical.not_not");
        assert_eq!(constant_name("foo.2.1"), "foo");
    }
}
