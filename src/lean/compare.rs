//! Declaration-level comparison of two versions of a Lean file.
//!
//! One engine serves `mf diff` and the PostToolUse hook: both hand over the text and
//! [`Outline`] of an old and a new version and get a [`FileComparison`] back. The engine is pure
//! (no I/O, no parsing): the caller parses, so the hook can reuse trees it already has.
//!
//! Declarations are matched by kind and full name (`lemma` and `theorem` count as one kind);
//! when a key occurs more than once (anonymous `instance`/`example`, or a name a broken file
//! repeats), the n-th occurrence in the old file is matched with the n-th in the new one.
//!
//! The questions the hook asks are one-liners on the result:
//! [`FileComparison::newly_holed`] (a declaration that had proof code and no `sorry`/`admit`
//! now has one: block), [`FileComparison::added_axioms`] (block),
//! [`FileComparison::restated_theorems`] (a theorem's statement changed: advise), and
//! [`FileComparison::blocks`] / [`FileComparison::advises`] combining them. A declaration that is
//! new is never blocked for being stated with `sorry`. A renamed declaration is a removal and an
//! addition; [`FileComparison::removed_proofs`] lists complete proofs that disappeared.

use std::collections::HashMap;
use std::ops::Range;

use serde::Serialize;
use similar::{capture_diff_slices, group_diff_ops, Algorithm, DiffOp};

use super::outline::{Declaration, Outline};

/// Lines of unchanged context around each change in a declaration's hunk. Hunks outside
/// declarations have none: the lines around them are not adjacent in the file.
pub const CONTEXT_LINES: usize = 2;

/// The comparison of an old and a new version of one file.
#[derive(Debug, Clone, Serialize)]
pub struct FileComparison {
    /// Every declaration of either version: new-file order, with each removed declaration
    /// placed where it stood relative to the declarations both versions share.
    pub declarations: Vec<DeclarationDiff>,
    /// Changes to lines that belong to no declaration (imports, `open`, options, comments).
    pub outside: Vec<Hunk>,
    /// `sorry`/`admit` holes in the whole old and new file.
    pub old_holes: usize,
    pub new_holes: usize,
    /// ERROR/MISSING nodes in the old and new syntax tree.
    pub old_errors: usize,
    pub new_errors: usize,
}

/// What happened to one declaration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Added,
    Removed,
    Modified,
    Unchanged,
}

/// One declaration in the old version, the new version, or both.
#[derive(Debug, Clone, Serialize)]
pub struct DeclarationDiff {
    pub status: Status,
    /// The keyword in the new version (the old one if removed).
    pub kind: String,
    /// Full name; empty for an anonymous `instance` or an `example`.
    pub full_name: String,
    /// 1-based occurrence of this kind and name in its file (2 for the second `example`, …).
    pub occurrence: usize,
    pub old: Option<Side>,
    pub new: Option<Side>,
    /// The statement (binders and type, name excluded) differs, whitespace aside.
    pub statement_changed: bool,
    /// The body (`:= …`, `where …` or equations) differs, trailing whitespace and line
    /// endings aside; also true when a body appears or disappears.
    pub proof_changed: bool,
    /// Attributes or modifiers differ.
    pub header_changed: bool,
    /// Line diff of the declaration's text (empty unless modified).
    pub hunks: Vec<Hunk>,
    /// It states a theorem ([`Declaration::is_theorem_like`], in the new version).
    #[serde(skip)]
    pub theorem_like: bool,
}

/// A declaration as it is in one version.
#[derive(Debug, Clone, Serialize)]
pub struct Side {
    pub kind: String,
    /// 1-based first and last line.
    pub line: usize,
    pub end_line: usize,
    /// As in [`Declaration::statement`]: from the name to the body, whitespace collapsed.
    pub statement: String,
    /// `sorry`/`admit` holes inside the declaration.
    pub holes: usize,
    /// Whether it has proof or value code (`:=`, `where` or equations).
    pub has_body: bool,
}

/// A unified-diff hunk with file line numbers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hunk {
    /// First old line (1-based) and number of old lines; for an empty range, the line before.
    pub old_start: usize,
    pub old_lines: usize,
    pub new_start: usize,
    pub new_lines: usize,
    /// Lines prefixed with `' '` (context), `'-'` (old only) or `'+'` (new only), without
    /// line terminators.
    pub lines: Vec<String>,
}

impl Hunk {
    /// The `@@ -a,b +c,d @@` header line.
    pub fn header(&self) -> String {
        format!(
            "@@ -{},{} +{},{} @@",
            self.old_start, self.old_lines, self.new_start, self.new_lines
        )
    }
}

impl DeclarationDiff {
    /// Holes in the old version (0 if the declaration is new).
    pub fn old_holes(&self) -> usize {
        self.old.as_ref().map_or(0, |s| s.holes)
    }

    /// Holes in the new version (0 if the declaration was removed).
    pub fn new_holes(&self) -> usize {
        self.new.as_ref().map_or(0, |s| s.holes)
    }

    /// How many more holes the new version has (0 if it has fewer).
    pub fn holes_introduced(&self) -> usize {
        self.new_holes().saturating_sub(self.old_holes())
    }

    /// How many fewer holes the new version has (0 if it has more).
    pub fn holes_closed(&self) -> usize {
        self.old_holes().saturating_sub(self.new_holes())
    }

    /// The declaration existed with proof code and no hole, and now has a hole: the edit
    /// replaced (part of) a proof with `sorry`/`admit`.
    pub fn is_newly_holed(&self) -> bool {
        match (&self.old, &self.new) {
            (Some(old), Some(new)) => old.has_body && old.holes == 0 && new.holes > 0,
            _ => false,
        }
    }

    /// An `axiom` that the old version did not have.
    pub fn is_added_axiom(&self) -> bool {
        self.status == Status::Added && self.kind == "axiom"
    }

    /// A theorem (or lemma) present in both versions whose statement changed.
    pub fn is_restated_theorem(&self) -> bool {
        self.statement_changed && self.theorem_like
    }

    /// How to show it to a person: `theorem Ns.foo`, or just `example` when anonymous.
    pub fn label(&self) -> String {
        if self.full_name.is_empty() {
            self.kind.clone()
        } else {
            format!("{} {}", self.kind, self.full_name)
        }
    }
}

impl FileComparison {
    /// Compares two versions. Each outline must have been read from the text given with it
    /// (declaration spans index into that text).
    pub fn of(old_text: &str, old: &Outline, new_text: &str, new: &Outline) -> FileComparison {
        let (old_keys, new_keys) = (keys(&old.declarations), keys(&new.declarations));
        let pairs = match_declarations(&old_keys, &new_keys);
        // Line tables are built once: per declaration they would make a comparison quadratic.
        let tables = (LineTable::new(old_text), LineTable::new(new_text));
        let mut declarations = Vec::with_capacity(pairs.len());
        for (o, n) in pairs {
            let old_decl = o.map(|i| (&old.declarations[i], old_keys[i].2));
            let new_decl = n.map(|i| (&new.declarations[i], new_keys[i].2));
            declarations.push(diff_declaration(&tables, old_decl, new_decl));
        }
        FileComparison {
            declarations,
            outside: outside_hunks(old_text, old, new_text, new),
            old_holes: old.sorry_count(),
            new_holes: new.sorry_count(),
            old_errors: old.error_nodes,
            new_errors: new.error_nodes,
        }
    }

    /// Declarations that were added, removed or modified.
    pub fn changed(&self) -> impl Iterator<Item = &DeclarationDiff> {
        self.declarations
            .iter()
            .filter(|d| d.status != Status::Unchanged)
    }

    /// Whether anything differs at all (declarations or the lines between them).
    pub fn is_identical(&self) -> bool {
        self.changed().next().is_none() && self.outside.is_empty()
    }

    /// Declarations that had proof code and no hole and now have one (hook: block).
    pub fn newly_holed(&self) -> Vec<&DeclarationDiff> {
        self.declarations
            .iter()
            .filter(|d| d.is_newly_holed())
            .collect()
    }

    /// `axiom` declarations that are new (hook: block).
    pub fn added_axioms(&self) -> Vec<&DeclarationDiff> {
        self.declarations
            .iter()
            .filter(|d| d.is_added_axiom())
            .collect()
    }

    /// Theorems present in both versions whose statement changed (hook: advise).
    pub fn restated_theorems(&self) -> Vec<&DeclarationDiff> {
        self.declarations
            .iter()
            .filter(|d| d.is_restated_theorem())
            .collect()
    }

    /// Declarations that had a complete proof (a body without holes) and are gone, renamed
    /// ones included (a rename is a removal and an addition).
    pub fn removed_proofs(&self) -> Vec<&DeclarationDiff> {
        self.declarations
            .iter()
            .filter(|d| d.status == Status::Removed)
            .filter(|d| d.old.as_ref().is_some_and(|o| o.has_body && o.holes == 0))
            .collect()
    }

    /// The edit must be blocked: a proof was replaced by a hole, or an axiom was added.
    pub fn blocks(&self) -> bool {
        self.declarations
            .iter()
            .any(|d| d.is_newly_holed() || d.is_added_axiom())
    }

    /// The edit deserves advice: a theorem's statement changed.
    pub fn advises(&self) -> bool {
        self.declarations.iter().any(|d| d.is_restated_theorem())
    }

    /// Counts of (added, removed, modified) declarations.
    pub fn counts(&self) -> (usize, usize, usize) {
        let count = |s: Status| self.declarations.iter().filter(|d| d.status == s).count();
        (
            count(Status::Added),
            count(Status::Removed),
            count(Status::Modified),
        )
    }
}

/// `lemma` is `theorem` under another keyword; everything else matches only itself.
fn kind_class(kind: &str) -> &str {
    match kind {
        "lemma" => "theorem",
        other => other,
    }
}

type Key<'a> = (&'a str, &'a str, usize);

/// Keys (kind class, full name, occurrence) of each declaration, in order.
fn keys(decls: &[Declaration]) -> Vec<Key<'_>> {
    let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
    decls
        .iter()
        .map(|d| {
            let base = (kind_class(&d.kind), d.full_name.as_str());
            let n = seen.entry(base).or_insert(0);
            *n += 1;
            (base.0, base.1, *n)
        })
        .collect()
}

/// Pairs old and new declaration indices: new-file order, with unmatched old declarations
/// emitted just before the first new declaration matched to a later old one.
fn match_declarations(
    old_keys: &[Key<'_>],
    new_keys: &[Key<'_>],
) -> Vec<(Option<usize>, Option<usize>)> {
    let old_index: HashMap<Key<'_>, usize> =
        old_keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let new_matched: Vec<Option<usize>> =
        new_keys.iter().map(|k| old_index.get(k).copied()).collect();
    let mut old_used = vec![false; old_keys.len()];
    for o in new_matched.iter().flatten() {
        old_used[*o] = true;
    }
    let mut pairs = Vec::with_capacity(old_keys.len().max(new_keys.len()));
    let mut next_removed = 0;
    for (n, matched) in new_matched.iter().enumerate() {
        if let Some(o) = *matched {
            while next_removed < o {
                if !old_used[next_removed] {
                    pairs.push((Some(next_removed), None));
                }
                next_removed += 1;
            }
            next_removed = next_removed.max(o + 1);
        }
        pairs.push((*matched, Some(n)));
    }
    for (o, used) in old_used.iter().enumerate().skip(next_removed) {
        if !used {
            pairs.push((Some(o), None));
        }
    }
    pairs
}

fn side(d: &Declaration) -> Side {
    Side {
        kind: d.kind.clone(),
        line: d.line,
        end_line: d.end_line,
        statement: d.statement.clone(),
        holes: d.sorry_count,
        has_body: d.has_body(),
    }
}

/// The statement without the leading name, so that moving a declaration into a namespace
/// (`Ns.foo` becoming `foo`) is not a change of statement.
fn signature(d: &Declaration) -> &str {
    d.statement
        .strip_prefix(d.name.as_str())
        .unwrap_or(&d.statement)
        .trim_start()
}

/// Text with line endings and trailing whitespace of each line ignored.
fn normalized_lines(text: &str) -> Vec<&str> {
    text.lines().map(str::trim_end).collect()
}

fn body_text<'t>(text: &'t str, d: &Declaration) -> Option<&'t str> {
    d.body.as_ref().and_then(|b| text.get(b.clone()))
}

fn diff_declaration(
    (old_table, new_table): &(LineTable<'_>, LineTable<'_>),
    old: Option<(&Declaration, usize)>,
    new: Option<(&Declaration, usize)>,
) -> DeclarationDiff {
    let (old_text, new_text) = (old_table.text, new_table.text);
    let (first, occurrence) = new.or(old).expect("a pair has at least one side");
    let mut diff = DeclarationDiff {
        status: Status::Unchanged,
        kind: first.kind.clone(),
        full_name: first.full_name.clone(),
        occurrence,
        old: old.map(|(d, _)| side(d)),
        new: new.map(|(d, _)| side(d)),
        statement_changed: false,
        proof_changed: false,
        header_changed: false,
        hunks: Vec::new(),
        theorem_like: first.is_theorem_like(),
    };
    let (Some((o, _)), Some((n, _))) = (old, new) else {
        diff.status = if new.is_some() {
            Status::Added
        } else {
            Status::Removed
        };
        return diff;
    };
    diff.statement_changed = signature(o) != signature(n);
    diff.proof_changed = match (body_text(old_text, o), body_text(new_text, n)) {
        (Some(a), Some(b)) => normalized_lines(a) != normalized_lines(b),
        (None, None) => false,
        _ => true,
    };
    diff.header_changed = o.attributes != n.attributes || o.modifiers != n.modifiers;
    // Byte-equal lines have no hunks; only a declaration whose lines differ is diffed. A
    // declaration that shares a line with other code (`theorem a … theorem b …` on one line)
    // is compared by its own text: a change of its neighbour is not its change, and comparing
    // the shared line once per declaration would cost the line's length each time.
    let shared = shares_a_line(old_text, &o.span) || shares_a_line(new_text, &n.span);
    let differs = if shared {
        old_text.get(o.span.clone()) != new_text.get(n.span.clone())
    } else {
        let old_region = old_text.get(old_table.line_region(&o.span));
        old_region.is_none() || old_region != new_text.get(new_table.line_region(&n.span))
    };
    if differs {
        let old_lines = old_table.span_lines(&o.span);
        let new_lines = new_table.span_lines(&n.span);
        diff.hunks = hunks(&old_lines, &new_lines, CONTEXT_LINES);
    }
    if !diff.hunks.is_empty() || o.kind != n.kind {
        diff.status = Status::Modified;
    }
    diff
}

/// Whether code other than `span`'s stands on its first or last line. Only the whitespace
/// next to the span is read, so over all declarations this reads each byte at most twice.
fn shares_a_line(text: &str, span: &Range<usize>) -> bool {
    let b = text.as_bytes();
    let before = b[..span.start.min(b.len())]
        .iter()
        .rev()
        .find(|c| !matches!(c, b' ' | b'\t' | b'\r'));
    let rest = &b[span.end.min(b.len())..];
    let after = rest
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t' | b'\r'))
        .map(|k| &rest[k..]);
    // A comment that ends the line belongs with the code before it.
    let code_after = after.is_some_and(|r| !r.starts_with(b"\n") && !r.starts_with(b"--"));
    before.is_some_and(|&c| c != b'\n') || code_after
}

/// A numbered line of a file, without its terminator and trailing whitespace.
#[derive(Clone, Copy)]
struct Line<'t> {
    number: usize,
    text: &'t str,
}

/// Start offsets of every line of a text.
struct LineTable<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> LineTable<'t> {
    fn new(text: &'t str) -> LineTable<'t> {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        if starts.last() == Some(&text.len()) && !text.is_empty() {
            starts.pop();
        }
        LineTable { text, starts }
    }

    /// 0-based index of the line containing `byte`.
    fn line_of(&self, byte: usize) -> usize {
        self.starts
            .partition_point(|&s| s <= byte)
            .saturating_sub(1)
    }

    fn line(&self, index: usize) -> Line<'t> {
        let start = self.starts[index];
        let end = self
            .starts
            .get(index + 1)
            .copied()
            .unwrap_or(self.text.len());
        Line {
            number: index + 1,
            text: self.text[start..end].trim_end(),
        }
    }

    fn len(&self) -> usize {
        if self.text.is_empty() {
            0
        } else {
            self.starts.len()
        }
    }

    /// The byte range of the whole lines a byte range touches (terminators included).
    fn line_region(&self, span: &Range<usize>) -> Range<usize> {
        if self.len() == 0 {
            return 0..0;
        }
        let first = self.line_of(span.start);
        let last = self.line_of(span.end.saturating_sub(1).max(span.start));
        let end = self
            .starts
            .get(last + 1)
            .copied()
            .unwrap_or(self.text.len());
        self.starts[first]..end
    }

    /// The whole lines a byte range touches.
    fn span_lines(&self, span: &Range<usize>) -> Vec<Line<'t>> {
        if self.len() == 0 {
            return Vec::new();
        }
        let first = self.line_of(span.start);
        let last = self.line_of(span.end.saturating_sub(1).max(span.start));
        (first..=last).map(|i| self.line(i)).collect()
    }
}

/// Diffs the non-blank lines no declaration touches (blank lines between declarations are
/// layout, not content).
fn outside_hunks(old_text: &str, old: &Outline, new_text: &str, new: &Outline) -> Vec<Hunk> {
    fn outside<'t>(text: &'t str, outline: &Outline) -> Vec<Line<'t>> {
        let table = LineTable::new(text);
        let mut inside = vec![false; table.len()];
        for d in &outline.declarations {
            for line in table.span_lines(&d.span) {
                inside[line.number - 1] = true;
            }
        }
        (0..table.len())
            .filter(|&i| !inside[i])
            .map(|i| table.line(i))
            .filter(|l| !l.text.is_empty())
            .collect()
    }
    hunks(&outside(old_text, old), &outside(new_text, new), 0)
}

/// Unified-diff hunks between two line sequences, numbered by their file line numbers.
fn hunks(old: &[Line<'_>], new: &[Line<'_>], context: usize) -> Vec<Hunk> {
    let old_texts: Vec<&str> = old.iter().map(|l| l.text).collect();
    let new_texts: Vec<&str> = new.iter().map(|l| l.text).collect();
    let ops = capture_diff_slices(Algorithm::Myers, &old_texts, &new_texts);
    let mut out = Vec::new();
    for group in group_diff_ops(ops, context) {
        if group.iter().all(|op| matches!(op, DiffOp::Equal { .. })) {
            continue;
        }
        let mut lines = Vec::new();
        let (mut old_range, mut new_range): (Option<Range<usize>>, Option<Range<usize>>) =
            (None, None);
        let widen = |r: &mut Option<Range<usize>>, add: Range<usize>| {
            if add.is_empty() {
                return;
            }
            *r = Some(match r.take() {
                None => add,
                Some(r) => r.start.min(add.start)..r.end.max(add.end),
            });
        };
        let mut old_anchor = None;
        let mut new_anchor = None;
        for op in &group {
            let (o, n) = (op.old_range(), op.new_range());
            old_anchor.get_or_insert(o.start);
            new_anchor.get_or_insert(n.start);
            widen(&mut old_range, o.clone());
            widen(&mut new_range, n.clone());
            match op {
                DiffOp::Equal { .. } => {
                    lines.extend(o.map(|i| format!(" {}", old_texts[i])));
                }
                DiffOp::Delete { .. } => {
                    lines.extend(o.map(|i| format!("-{}", old_texts[i])));
                }
                DiffOp::Insert { .. } => {
                    lines.extend(n.map(|i| format!("+{}", new_texts[i])));
                }
                DiffOp::Replace { .. } => {
                    lines.extend(o.map(|i| format!("-{}", old_texts[i])));
                    lines.extend(n.map(|i| format!("+{}", new_texts[i])));
                }
            }
        }
        let (old_start, old_lines) = file_range(old, old_range, old_anchor.unwrap_or(0));
        let (new_start, new_lines) = file_range(new, new_range, new_anchor.unwrap_or(0));
        out.push(Hunk {
            old_start,
            old_lines,
            new_start,
            new_lines,
            lines,
        });
    }
    out
}

/// (first file line, count) of a range of indices into `lines`; an empty range is reported as
/// the file line before it with count 0, as unified diffs do.
fn file_range(lines: &[Line<'_>], range: Option<Range<usize>>, anchor: usize) -> (usize, usize) {
    match range {
        Some(r) => (lines[r.start].number, r.len()),
        None if anchor == 0 => (lines.first().map_or(0, |l| l.number.saturating_sub(1)), 0),
        None => (lines[anchor - 1].number, 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// A declaration read from `text` by hand: `decl_text` must occur in `text`, and the body
    /// starts at the first `:=` (or `|`) in it.
    fn decl(text: &str, kind: &str, name: &str, full: &str, decl_text: &str) -> Declaration {
        let start = text.find(decl_text).expect("declaration text occurs");
        let end = start + decl_text.len();
        let body_start = decl_text
            .find(":=")
            .or_else(|| decl_text.find("\n  |"))
            .map(|i| start + i);
        let name_start = if name.is_empty() {
            start + decl_text.find(kind).unwrap() + kind.len()
        } else {
            start + decl_text.find(name).unwrap()
        };
        let statement =
            crate::lean::outline::collapse_whitespace(&text[name_start..body_start.unwrap_or(end)]);
        let holes = text[start..end].matches("sorry").count();
        Declaration {
            kind: kind.into(),
            name: name.into(),
            full_name: full.into(),
            line: 1 + text[..start].matches('\n').count(),
            end_line: 1 + text[..end].matches('\n').count(),
            modifiers: Vec::new(),
            attributes: Vec::new(),
            statement,
            sorry_count: holes,
            tactics: BTreeMap::new(),
            parse_error: false,
            span: start..end,
            body: body_start.map(|b| b..end),
            user_command: false,
            theorem_like: matches!(kind, "theorem" | "lemma"),
            typed: true,
        }
    }

    fn outline(decls: Vec<Declaration>) -> Outline {
        Outline {
            path: "t.lean".into(),
            declarations: decls,
            ..Outline::default()
        }
    }

    const OLD: &str = "import Mathlib\n\ntheorem a : 1 = 1 := by\n  rfl\n\nlemma b (n : Nat) : n = n := by\n  sorry\n\ndef c : Nat := 3\n";

    fn old_outline() -> Outline {
        outline(vec![
            decl(OLD, "theorem", "a", "a", "theorem a : 1 = 1 := by\n  rfl"),
            decl(
                OLD,
                "lemma",
                "b",
                "b",
                "lemma b (n : Nat) : n = n := by\n  sorry",
            ),
            decl(OLD, "def", "c", "c", "def c : Nat := 3"),
        ])
    }

    fn compare_with(new_text: &str, new: Vec<Declaration>) -> FileComparison {
        FileComparison::of(OLD, &old_outline(), new_text, &outline(new))
    }

    #[test]
    fn identical_files_have_no_changes() {
        let c = FileComparison::of(OLD, &old_outline(), OLD, &old_outline());
        assert!(c.is_identical());
        assert_eq!(c.counts(), (0, 0, 0));
        assert!(!c.blocks() && !c.advises());
    }

    #[test]
    fn replacing_a_proof_with_sorry_blocks() {
        let new = OLD.replace("  rfl", "  sorry");
        let c = compare_with(
            &new,
            vec![
                decl(
                    &new,
                    "theorem",
                    "a",
                    "a",
                    "theorem a : 1 = 1 := by\n  sorry",
                ),
                decl(
                    &new,
                    "lemma",
                    "b",
                    "b",
                    "lemma b (n : Nat) : n = n := by\n  sorry",
                ),
                decl(&new, "def", "c", "c", "def c : Nat := 3"),
            ],
        );
        let holed: Vec<&str> = c
            .newly_holed()
            .iter()
            .map(|d| d.full_name.as_str())
            .collect();
        assert_eq!(holed, vec!["a"]);
        assert!(c.blocks());
        assert!(!c.advises());
        assert!(c.removed_proofs().is_empty());
        let a = &c.declarations[0];
        assert_eq!(a.status, Status::Modified);
        assert!(a.proof_changed && !a.statement_changed);
        assert_eq!((a.holes_introduced(), a.holes_closed()), (1, 0));
        assert_eq!(
            a.hunks,
            vec![Hunk {
                old_start: 3,
                old_lines: 2,
                new_start: 3,
                new_lines: 2,
                lines: vec![
                    " theorem a : 1 = 1 := by".into(),
                    "-  rfl".into(),
                    "+  sorry".into()
                ],
            }]
        );
    }

    #[test]
    fn closing_a_hole_is_progress_not_a_block() {
        let new = OLD.replace("  sorry", "  rfl");
        let c = compare_with(
            &new,
            vec![
                decl(&new, "theorem", "a", "a", "theorem a : 1 = 1 := by\n  rfl"),
                decl(
                    &new,
                    "lemma",
                    "b",
                    "b",
                    "lemma b (n : Nat) : n = n := by\n  rfl",
                ),
                decl(&new, "def", "c", "c", "def c : Nat := 3"),
            ],
        );
        assert!(!c.blocks());
        let b = &c.declarations[1];
        assert_eq!(
            (b.status, b.holes_closed(), b.holes_introduced()),
            (Status::Modified, 1, 0)
        );
    }

    #[test]
    fn new_declaration_stated_with_sorry_is_allowed_but_a_new_axiom_blocks() {
        let new = format!("{OLD}\ntheorem d : 2 = 2 := by\n  sorry\n\naxiom cheat : False\n");
        let mut decls = old_outline().declarations;
        decls.push(decl(
            &new,
            "theorem",
            "d",
            "d",
            "theorem d : 2 = 2 := by\n  sorry",
        ));
        decls.push(decl(&new, "axiom", "cheat", "cheat", "axiom cheat : False"));
        let c = compare_with(&new, decls);
        assert!(c.newly_holed().is_empty());
        let axioms: Vec<&str> = c
            .added_axioms()
            .iter()
            .map(|d| d.full_name.as_str())
            .collect();
        assert_eq!(axioms, vec!["cheat"]);
        assert!(c.blocks());
        assert_eq!(c.counts(), (2, 0, 0));
        assert_eq!(c.new_holes, 0, "outline sorries were not filled in by hand");
    }

    #[test]
    fn changed_statement_advises_and_lemma_matches_theorem() {
        let new = OLD.replace(
            "lemma b (n : Nat) : n = n",
            "theorem b (n : Nat) : n + 0 = n",
        );
        let c = compare_with(
            &new,
            vec![
                decl(&new, "theorem", "a", "a", "theorem a : 1 = 1 := by\n  rfl"),
                decl(
                    &new,
                    "theorem",
                    "b",
                    "b",
                    "theorem b (n : Nat) : n + 0 = n := by\n  sorry",
                ),
                decl(&new, "def", "c", "c", "def c : Nat := 3"),
            ],
        );
        assert!(c.advises() && !c.blocks());
        let b = &c.declarations[1];
        assert_eq!(b.status, Status::Modified);
        assert!(b.statement_changed && !b.proof_changed);
        assert_eq!(c.counts(), (0, 0, 1));
    }

    #[test]
    fn removed_declarations_keep_their_place() {
        let new = "import Mathlib\n\ntheorem a : 1 = 1 := by\n  rfl\n\ndef c : Nat := 3\n\ndef e : Nat := 4\n";
        let c = compare_with(
            new,
            vec![
                decl(new, "theorem", "a", "a", "theorem a : 1 = 1 := by\n  rfl"),
                decl(new, "def", "c", "c", "def c : Nat := 3"),
                decl(new, "def", "e", "e", "def e : Nat := 4"),
            ],
        );
        let removed: Vec<&str> = c
            .removed_proofs()
            .iter()
            .map(|d| d.full_name.as_str())
            .collect();
        assert_eq!(
            removed,
            Vec::<&str>::new(),
            "b had a hole, so it was no complete proof"
        );
        let order: Vec<(&str, Status)> = c
            .declarations
            .iter()
            .map(|d| (d.full_name.as_str(), d.status))
            .collect();
        assert_eq!(
            order,
            vec![
                ("a", Status::Unchanged),
                ("b", Status::Removed),
                ("c", Status::Unchanged),
                ("e", Status::Added),
            ]
        );
        assert!(c.outside.is_empty(), "{:?}", c.outside);
    }

    #[test]
    fn anonymous_declarations_match_by_order() {
        let old = "example : 1 = 1 := rfl\n\nexample : 2 = 2 := sorry\n";
        let new = "example : 1 = 1 := rfl\n\nexample : 2 = 2 := rfl\n";
        let o = outline(vec![
            decl(old, "example", "", "", "example : 1 = 1 := rfl"),
            decl(old, "example", "", "", "example : 2 = 2 := sorry"),
        ]);
        let n = outline(vec![
            decl(new, "example", "", "", "example : 1 = 1 := rfl"),
            decl(new, "example", "", "", "example : 2 = 2 := rfl"),
        ]);
        let c = FileComparison::of(old, &o, new, &n);
        let summary: Vec<(usize, Status, usize)> = c
            .declarations
            .iter()
            .map(|d| (d.occurrence, d.status, d.holes_closed()))
            .collect();
        assert_eq!(
            summary,
            vec![(1, Status::Unchanged, 0), (2, Status::Modified, 1)]
        );
    }

    #[test]
    fn line_endings_and_trailing_spaces_are_not_changes() {
        let crlf = OLD.replace('\n', "\r\n").replace("rfl", "rfl  ");
        let decls = vec![
            decl(
                &crlf,
                "theorem",
                "a",
                "a",
                "theorem a : 1 = 1 := by\r\n  rfl  ",
            ),
            decl(
                &crlf,
                "lemma",
                "b",
                "b",
                "lemma b (n : Nat) : n = n := by\r\n  sorry",
            ),
            decl(&crlf, "def", "c", "c", "def c : Nat := 3"),
        ];
        let c = compare_with(&crlf, decls);
        assert!(c.is_identical(), "{:#?}", c.changed().collect::<Vec<_>>());
    }

    #[test]
    fn changes_between_declarations_are_reported() {
        let new = OLD.replace(
            "import Mathlib\n",
            "import Mathlib\nset_option maxHeartbeats 0\n",
        );
        let o = old_outline();
        let shifted: Vec<Declaration> = vec![
            decl(&new, "theorem", "a", "a", "theorem a : 1 = 1 := by\n  rfl"),
            decl(
                &new,
                "lemma",
                "b",
                "b",
                "lemma b (n : Nat) : n = n := by\n  sorry",
            ),
            decl(&new, "def", "c", "c", "def c : Nat := 3"),
        ];
        let c = FileComparison::of(OLD, &o, &new, &outline(shifted));
        assert_eq!(c.changed().count(), 0);
        assert_eq!(
            c.outside,
            vec![Hunk {
                old_start: 1,
                old_lines: 0,
                new_start: 2,
                new_lines: 1,
                lines: vec!["+set_option maxHeartbeats 0".into()],
            }]
        );
    }
}
