//! The work list: every `sorry`/`admit` of a file with what an agent needs to fill it.

use serde::Serialize;
use tree_sitter::Node;

use crate::lean::outline::collapse_whitespace;
use crate::lean::{Declaration, Outline, ParsedFile};

/// One hole, as `mf sorries --json` prints it (one object per line, plus `path`).
///
/// ```json
/// {"index":1,"line":30,"column":3,"byte":512,"keyword":"sorry","position":"tactic",
///  "declaration":{"kind":"theorem","name":"one_hole","full_name":"Tricky.one_hole","line":29,
///                 "statement":"one_hole (n : ℕ) : n + 0 = n","hole":1,"holes":1,
///                 "in_statement":false},
///  "under":{"keyword":"have","text":"have h : 1 = 1","line":41,"column":3}}
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hole {
    /// 1-based place in the file's list of holes.
    pub index: usize,
    /// 1-based line and column (columns count characters).
    pub line: usize,
    pub column: usize,
    /// Byte offset in the file's text (after a byte-order mark, if any).
    pub byte: usize,
    /// `sorry` or `admit`.
    pub keyword: &'static str,
    /// Whether the hole is a tactic step or a term; a term hole wants a term (`by simp`), a
    /// tactic hole wants tactics (`simp`).
    pub position: HolePosition,
    /// The innermost declaration around the hole (`null` for a hole outside any).
    pub declaration: Option<HoleOwner>,
    /// The innermost `have`/`show`/`suffices` the hole proves, if any.
    pub under: Option<Enclosing>,
}

/// Whether a hole stands for tactics or for a term.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HolePosition {
    Tactic,
    Term,
}

/// The declaration a hole belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HoleOwner {
    pub kind: String,
    /// As written; empty for an anonymous `instance` or an `example`.
    pub name: String,
    /// With its namespaces; empty when anonymous (name it by `line` then).
    pub full_name: String,
    pub line: usize,
    /// From the name to the body, whitespace collapsed.
    pub statement: String,
    /// 1-based index of this hole among the declaration's holes: `mf splice --sorry N`.
    pub hole: usize,
    /// Holes in the declaration.
    pub holes: usize,
    /// The hole is in the statement (as in `answer(sorry)`), not in the proof.
    pub in_statement: bool,
}

/// A `have`, `show` or `suffices` whose proof contains the hole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Enclosing {
    /// The keyword as written (`have`, `haveI`, `show`, `suffices`, …).
    pub keyword: String,
    /// The text up to the proof (`have h : 1 = 1`), whitespace collapsed.
    pub text: String,
    pub line: usize,
    pub column: usize,
}

/// Keywords whose proof the hole may sit under.
const ENCLOSERS: &[&str] = &[
    "have",
    "haveI",
    "have'",
    "show",
    "suffices",
    "sufficesI",
    "replace",
];

/// Every hole of a parsed file, in file order. `outline` must be the file's outline.
pub fn holes(file: &ParsedFile, outline: &Outline) -> Vec<Hole> {
    let mut per_declaration = vec![0usize; outline.declarations.len()];
    let owners: Vec<Option<usize>> = outline
        .sorries
        .iter()
        .map(|s| innermost_declaration(&outline.declarations, s.byte))
        .collect();
    let totals = {
        let mut t = vec![0usize; outline.declarations.len()];
        for i in owners.iter().flatten() {
            t[*i] += 1;
        }
        t
    };
    outline
        .sorries
        .iter()
        .zip(owners)
        .enumerate()
        .map(|(i, (s, owner))| {
            let node = hole_node(file, s.byte);
            let declaration = owner.map(|d| {
                per_declaration[d] += 1;
                let decl = &outline.declarations[d];
                HoleOwner {
                    kind: decl.kind.clone(),
                    name: decl.name.clone(),
                    full_name: decl.full_name.clone(),
                    line: decl.line,
                    statement: decl.statement.clone(),
                    hole: per_declaration[d],
                    holes: totals[d],
                    in_statement: decl.body.as_ref().is_none_or(|b| s.byte < b.start),
                }
            });
            Hole {
                index: i + 1,
                line: s.line,
                column: s.column,
                byte: s.byte,
                keyword: s.keyword,
                position: node.map_or(HolePosition::Term, position_of),
                declaration,
                under: node.and_then(|n| enclosing(file, n)),
            }
        })
        .collect()
}

/// The index of the smallest declaration whose span contains `byte`.
pub(crate) fn innermost_declaration(decls: &[Declaration], byte: usize) -> Option<usize> {
    decls
        .iter()
        .enumerate()
        .filter(|(_, d)| d.span.contains(&byte))
        .min_by_key(|(_, d)| d.span.len())
        .map(|(i, _)| i)
}

/// The `sorry`/`admit` leaf starting at `byte`.
fn hole_node(file: &ParsedFile, byte: usize) -> Option<Node<'_>> {
    let mut node = file.root().descendant_for_byte_range(byte, byte + 1)?;
    loop {
        if matches!(node.kind(), "sorry" | "admit") && node.start_byte() == byte {
            return Some(node);
        }
        node = node.parent()?;
        if node.start_byte() != byte {
            return None;
        }
    }
}

/// A hole is a tactic when it is a whole tactic step.
fn position_of(hole: Node<'_>) -> HolePosition {
    match hole.parent() {
        Some(p) if p.kind() == "tactic" && p.byte_range() == hole.byte_range() => {
            HolePosition::Tactic
        }
        Some(p) if p.kind() == "tactic" && p.child_by_field_name("head") == Some(hole) => {
            HolePosition::Tactic
        }
        _ => HolePosition::Term,
    }
}

/// The keyword a node stands for when it is a `have`/`show`/`suffices` step or term.
fn encloser_keyword<'f>(file: &'f ParsedFile, node: Node<'_>) -> Option<&'f str> {
    let first_word = |n: Node<'_>| -> &'f str {
        let text = &file.text[n.byte_range()];
        let end = text
            .find(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '_'))
            .unwrap_or(text.len());
        &text[..end]
    };
    if node.kind() == "tactic" {
        let head = node.child_by_field_name("head")?;
        let word = &file.text[head.byte_range()];
        return ENCLOSERS.contains(&word).then_some(word);
    }
    let kind = node.kind();
    if ["have", "show", "suffices"]
        .iter()
        .any(|k| kind.contains(k))
    {
        let word = first_word(node);
        return ENCLOSERS.contains(&word).then_some(word);
    }
    None
}

/// The innermost `have`/`show`/`suffices` whose proof contains `hole`, stopping at the
/// declaration.
///
/// Tactic steps and structured nodes enclose their proof as descendants. In term mode the
/// grammar keeps terms flat (`show p from e` is a run of siblings, a term `have` node holds only
/// its head), so at each level the siblings before the path are read too.
fn enclosing(file: &ParsedFile, hole: Node<'_>) -> Option<Enclosing> {
    let mut child = hole;
    while let Some(parent) = child.parent() {
        if parent.kind() == "declaration" {
            return None;
        }
        if let Some(found) = flat_encloser(file, child, hole.start_byte()) {
            return Some(found);
        }
        if let Some(keyword) = encloser_keyword(file, parent) {
            let end = proof_start(parent, hole.start_byte()).unwrap_or(hole.start_byte());
            return Some(enclosing_at(file, parent, keyword, end));
        }
        child = parent;
    }
    None
}

fn enclosing_at(file: &ParsedFile, node: Node<'_>, keyword: &str, end: usize) -> Enclosing {
    let end = end.max(node.start_byte());
    let text = collapse_whitespace(&file.text[node.start_byte()..end]);
    let pos = file.start_of(node);
    Enclosing {
        keyword: keyword.to_string(),
        text,
        line: pos.line,
        column: pos.column,
    }
}

/// A term-mode `have`/`show`/`suffices` among the siblings before `child` whose proof still
/// runs at `child`: Lean ends that proof at a line that starts at or left of the keyword's
/// column (`have h : p := v` then `body` on the next line), so such a line closes it.
fn flat_encloser(file: &ParsedFile, child: Node<'_>, hole: usize) -> Option<Enclosing> {
    let mut leftmost_line_start = usize::MAX;
    let mut proof_begins: Option<usize> = None;
    let mut node = child;
    loop {
        if starts_line(&file.text, node) {
            leftmost_line_start = leftmost_line_start.min(node.start_position().column);
        }
        node = node.prev_sibling()?;
        let kind = node.kind();
        if !node.is_named() && matches!(kind, "from" | ":=" | "by") || kind == "by_block" {
            proof_begins = Some(node.start_byte());
        }
        let keyword = if node.is_named() {
            (kind == "have")
                .then(|| encloser_keyword(file, node))
                .flatten()
        } else {
            ENCLOSERS.iter().copied().find(|k| *k == kind)
        };
        let Some(keyword) = keyword else { continue };
        if leftmost_line_start <= node.start_position().column {
            proof_begins = None;
            continue; // a later line at this column or left of it ended this one's proof
        }
        let end = if node.is_named() {
            proof_start(node, hole).unwrap_or(node.end_byte())
        } else {
            proof_begins.unwrap_or(hole)
        };
        return Some(enclosing_at(file, node, keyword, end));
    }
}

/// Whether `node` is the first thing on its line.
fn starts_line(text: &str, node: Node<'_>) -> bool {
    let start = node.start_byte();
    let line_start = start - node.start_position().column;
    text[line_start..start].chars().all(char::is_whitespace)
}

/// Where the proof part of a `have`/`show`/`suffices` node begins: the first `:=`, `from`,
/// `by` block or `|` alternative inside it that comes before the hole.
fn proof_start(node: Node<'_>, hole: usize) -> Option<usize> {
    let mut cursor = node.walk();
    let mut stack = vec![node];
    let mut best: Option<usize> = None;
    while let Some(n) = stack.pop() {
        if n.start_byte() >= hole || best.is_some_and(|b| n.start_byte() >= b) {
            continue;
        }
        let starts_proof = n != node
            && (matches!(n.kind(), ":=" | "from" | "by" | "by_block" | "|")
                || n.kind().ends_with("by_block"));
        if starts_proof {
            best = Some(best.map_or(n.start_byte(), |b| b.min(n.start_byte())));
            continue;
        }
        let children: Vec<Node<'_>> = n.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holes_of(text: &str) -> Vec<Hole> {
        let file = crate::cursor::parse(text);
        let outline = Outline::of("t.lean", &file);
        holes(&file, &outline)
    }

    fn under(h: &Hole) -> Option<&str> {
        h.under.as_ref().map(|u| u.text.as_str())
    }

    #[test]
    fn the_innermost_have_wins_and_let_is_not_one() {
        let text = "theorem t : True := by\n  have outer : 1 = 1 := by\n    have inner : 2 = 2 := by\n      sorry\n    sorry\n  let x := (sorry : Nat)\n  trivial\n";
        let hs = holes_of(text);
        let found: Vec<(usize, Option<&str>, HolePosition)> =
            hs.iter().map(|h| (h.line, under(h), h.position)).collect();
        assert_eq!(
            found,
            vec![
                (4, Some("have inner : 2 = 2"), HolePosition::Tactic),
                (5, Some("have outer : 1 = 1"), HolePosition::Tactic),
                (6, None, HolePosition::Term),
            ]
        );
    }

    #[test]
    fn term_mode_have_and_show() {
        let text =
            "theorem t (p : Prop) (hp : p) : p :=\n  have h : p := sorry\n  show p from sorry\n";
        let hs = holes_of(text);
        let found: Vec<(usize, Option<&str>)> = hs.iter().map(|h| (h.line, under(h))).collect();
        assert_eq!(found, vec![(2, Some("have h : p")), (3, Some("show p"))]);
        assert_eq!(hs[1].under.as_ref().unwrap().keyword, "show");
        assert_eq!(hs[1].under.as_ref().unwrap().column, 3);
    }

    #[test]
    fn a_term_have_encloses_its_value_not_the_lines_after_it() {
        let after = holes_of("theorem t (p : Prop) (hp : p) : p :=\n  have h : p := hp\n  sorry\n");
        assert_eq!(after.iter().map(under).collect::<Vec<_>>(), vec![None]);
        let inside = holes_of(
            "theorem t (p q : Prop) (hp : p) : p :=\n  have h : q :=\n    foo sorry\n  hp\n",
        );
        assert_eq!(
            inside.iter().map(under).collect::<Vec<_>>(),
            vec![Some("have h : q")]
        );
    }

    #[test]
    fn a_hole_outside_any_declaration_has_no_owner() {
        let hs = holes_of("#check (sorry : Nat)\n");
        assert_eq!(hs.len(), 1);
        assert_eq!(hs[0].declaration, None);
        assert_eq!((hs[0].line, hs[0].column), (1, 9));
    }
}
