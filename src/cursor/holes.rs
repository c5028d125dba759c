//! The work list: every `sorry`/`admit` of a file with what an agent needs to fill it.

use std::sync::Arc;

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
    /// From the name to the body, whitespace collapsed; shared by the declaration's holes (a
    /// long statement is not copied once per hole).
    pub statement: Arc<str>,
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
    /// The text up to the proof (`have h : 1 = 1`), whitespace collapsed; shared by the
    /// holes under the same `have`.
    pub text: Arc<str>,
    pub line: usize,
    pub column: usize,
}

/// What the walk needs to know about a node kind, read once per kind id from the grammar: the
/// walk asks it of every node it passes, and a kind's name costs a string check each time.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Other,
    /// `from`, `:=` or `by` (unnamed): a candidate's proof begins there.
    ProofToken,
    /// `by_block`.
    ByBlock,
    /// A named `have` node.
    Have,
    /// An unnamed token of one of [`ENCLOSERS`] (its index).
    EncloserToken(u8),
    /// A named kind whose name holds `have`, `show` or `suffices` (see [`encloser_keyword`]).
    EncloserKind,
    Tactic,
    Declaration,
}

fn class_of(node: Node<'_>) -> Class {
    static CLASSES: std::sync::OnceLock<Vec<Class>> = std::sync::OnceLock::new();
    let classes = CLASSES.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_lean::LANGUAGE.into();
        (0..lang.node_kind_count() as u16)
            .map(|id| {
                let name = lang.node_kind_for_id(id).unwrap_or("");
                let named = lang.node_kind_is_named(id);
                match (named, name) {
                    (false, "from" | ":=" | "by") => Class::ProofToken,
                    (_, "by_block") => Class::ByBlock,
                    (true, "have") => Class::Have,
                    (true, "tactic") => Class::Tactic,
                    (true, "declaration") => Class::Declaration,
                    (false, _) => ENCLOSERS
                        .iter()
                        .position(|k| *k == name)
                        .map_or(Class::Other, |i| Class::EncloserToken(i as u8)),
                    (true, _)
                        if ["have", "show", "suffices"]
                            .iter()
                            .any(|k| name.contains(k)) =>
                    {
                        Class::EncloserKind
                    }
                    _ => Class::Other,
                }
            })
            .collect()
    });
    classes
        .get(node.kind_id() as usize)
        .copied()
        .unwrap_or(Class::Other)
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
///
/// One cursor walk finds every hole's node with its ancestors and, at each level, the
/// term-mode `have`/`show`/`suffices` still open before it; only subtrees that hold a hole
/// are entered. The cost is linear in the file plus, per hole, its depth up to the
/// declaration.
pub fn holes(file: &ParsedFile, outline: &Outline) -> Vec<Hole> {
    let owners = innermost_declarations(&outline.declarations, &outline.sorries);
    let mut totals = vec![0usize; outline.declarations.len()];
    for i in owners.iter().flatten() {
        totals[*i] += 1;
    }
    let found = HoleWalk::run(file, outline);
    let mut per_declaration = vec![0usize; outline.declarations.len()];
    let mut statements: Vec<Option<Arc<str>>> = vec![None; outline.declarations.len()];
    outline
        .sorries
        .iter()
        .zip(owners)
        .zip(found)
        .enumerate()
        .map(|(i, ((s, owner), found))| {
            let declaration = owner.map(|d| {
                per_declaration[d] += 1;
                let decl = &outline.declarations[d];
                HoleOwner {
                    kind: decl.kind.clone(),
                    name: decl.name.clone(),
                    full_name: decl.full_name.clone(),
                    line: decl.line,
                    statement: statements[d]
                        .get_or_insert_with(|| Arc::from(decl.statement.as_str()))
                        .clone(),
                    hole: per_declaration[d],
                    holes: totals[d],
                    in_statement: decl.body.as_ref().is_none_or(|b| s.byte < b.start),
                }
            });
            let (position, under) = found.unwrap_or((HolePosition::Term, None));
            Hole {
                index: i + 1,
                line: s.line,
                column: s.column,
                byte: s.byte,
                keyword: s.keyword,
                position,
                declaration,
                under,
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

/// [`innermost_declaration`] of every hole, in one sweep: declarations sorted by start (the
/// larger first) are pushed as the holes pass them, so the innermost open one is on top.
fn innermost_declarations(
    decls: &[Declaration],
    sorries: &[crate::lean::Sorry],
) -> Vec<Option<usize>> {
    let mut order: Vec<usize> = (0..decls.len()).collect();
    order.sort_by_key(|&i| {
        let d = &decls[i];
        (
            d.span.start,
            std::cmp::Reverse(d.span.len()),
            std::cmp::Reverse(i),
        )
    });
    let mut by_byte: Vec<usize> = (0..sorries.len()).collect();
    by_byte.sort_by_key(|&i| sorries[i].byte);
    let mut owners = vec![None; sorries.len()];
    let mut open: Vec<usize> = Vec::new();
    let mut next = 0;
    for h in by_byte {
        let byte = sorries[h].byte;
        while next < order.len() && decls[order[next]].span.start <= byte {
            let start = decls[order[next]].span.start;
            while open.last().is_some_and(|&o| decls[o].span.end <= start) {
                open.pop();
            }
            open.push(order[next]);
            next += 1;
        }
        while open.last().is_some_and(|&o| !decls[o].span.contains(&byte)) {
            open.pop();
        }
        owners[h] = open.last().copied();
    }
    owners
}

/// A term-mode `have`/`show`/`suffices` among the children of a node, whose proof may still
/// run at a later child.
struct Candidate<'t> {
    node: Node<'t>,
    keyword: &'t str,
    column: usize,
    /// The first `from`/`:=`/`by` after it (where its proof begins).
    proof_begins: Option<usize>,
    /// Where the proof part inside it begins, whatever the hole (see [`Memo`]).
    memo: Memo,
}

/// What an encloser's holes share, found for its first hole and kept for the others: the
/// first proof token inside it (the proof part begins there for every hole after it) and the
/// last [`Enclosing`] built. Without it each hole re-walked its encloser's head and collapsed
/// its text again: work per hole proportional to the head.
#[derive(Default)]
struct Memo {
    proof: std::cell::Cell<Option<Option<usize>>>,
    built: std::cell::RefCell<Option<(usize, Enclosing)>>,
}

impl Memo {
    /// [`proof_start`] of `node` for a hole at `hole`: the first proof token inside it, when
    /// it comes before the hole (a later one never does, since the first one does not).
    fn proof_start(&self, node: Node<'_>, hole: usize) -> Option<usize> {
        let first = match self.proof.get() {
            Some(first) => first,
            None => {
                let first = proof_start(node, usize::MAX);
                self.proof.set(Some(first));
                first
            }
        };
        first.filter(|&p| p < hole)
    }

    /// [`enclosing_at`], built once per `end` (its text is shared, not copied).
    fn enclosing(&self, file: &ParsedFile, node: Node<'_>, keyword: &str, end: usize) -> Enclosing {
        if let Some((at, e)) = &*self.built.borrow() {
            if *at == end {
                return e.clone();
            }
        }
        let e = enclosing_at(file, node, keyword, end);
        *self.built.borrow_mut() = Some((end, e.clone()));
        e
    }
}

/// Where [`HoleWalk::enclosing`] stops when it looks at one level.
#[derive(Clone, Copy)]
enum Found<'f> {
    /// A declaration: no encloser.
    Stop,
    /// The level's last candidate.
    Candidate(usize),
    /// The level's node itself, a `have`/`show`/`suffices` with this keyword.
    Encloser(usize, &'f str),
    /// Nothing at this level: ask the levels above.
    Above,
}

/// One node on the path from the root to the walk's position, with the candidates among the
/// children passed so far; their columns strictly increase, since a candidate hides every
/// earlier one at its column or right of it.
struct Level<'t> {
    node: Node<'t>,
    candidates: Vec<Candidate<'t>>,
    /// `node` is a declaration.
    declaration: bool,
    /// The keyword when `node` is a `have`/`show`/`suffices` step or term.
    encloser: Option<&'t str>,
    /// What the levels above answer ([`Found::Above`] never): they cannot change while this
    /// level is open (a level's candidates change only while it is the innermost), so the
    /// answer is found once when the level opens and a hole's search stops at its own level.
    above: Found<'t>,
    memo: Memo,
    /// The level is an encloser whose proof start is still read from its children as the
    /// walk passes them (see [`HoleWalk::leave`]).
    reads_proof: bool,
}

struct HoleWalk<'f> {
    file: &'f ParsedFile,
    /// (byte, index in the outline's list) of each hole, ascending.
    holes: Vec<(usize, usize)>,
    /// The first of `holes` at or after the start of the node last entered: nodes are
    /// entered in the order of their starts, so the walk's questions about holes cost
    /// amortised constant time (no search, no hashing).
    next: usize,
    /// Start of the node last entered.
    last_start: usize,
    /// First non-whitespace byte of each line, for "starts a line" in constant time.
    first_code: Vec<usize>,
    levels: Vec<Level<'f>>,
    found: Vec<Option<(HolePosition, Option<Enclosing>)>>,
}

impl<'f> HoleWalk<'f> {
    fn run(
        file: &'f ParsedFile,
        outline: &Outline,
    ) -> Vec<Option<(HolePosition, Option<Enclosing>)>> {
        let mut holes: Vec<(usize, usize)> = outline
            .sorries
            .iter()
            .enumerate()
            .map(|(i, s)| (s.byte, i))
            .collect();
        holes.sort_unstable();
        let mut walk = HoleWalk {
            file,
            holes,
            next: 0,
            last_start: 0,
            first_code: first_code_per_line(&file.text),
            levels: Vec::new(),
            found: vec![None; outline.sorries.len()],
        };
        if outline.sorries.is_empty() {
            return walk.found;
        }
        let mut cursor = file.root().walk();
        loop {
            let node = cursor.node();
            walk.enter(node);
            if node.child_count() > 0 && walk.holds_hole(node) && cursor.goto_first_child() {
                walk.open(node);
                continue;
            }
            loop {
                walk.leave(cursor.node());
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return walk.found;
                }
                walk.levels.pop();
            }
        }
    }

    /// Whether a hole begins inside `node`, the node last entered.
    fn holds_hole(&self, node: Node<'_>) -> bool {
        self.holes
            .get(self.next)
            .is_some_and(|&(b, _)| b < node.end_byte())
    }

    /// Moves [`HoleWalk::next`] to the first hole at or after `start`.
    fn seek(&mut self, start: usize) {
        if start < self.last_start {
            // Never in a tree's document order; kept correct all the same.
            self.next = self.holes.partition_point(|&(b, _)| b < start);
        }
        while self.holes.get(self.next).is_some_and(|&(b, _)| b < start) {
            self.next += 1;
        }
        self.last_start = start;
    }

    /// Opens a level for `node`, whose children the walk enters next.
    fn open(&mut self, node: Node<'f>) {
        let above = match self.levels.len().checked_sub(1) {
            None => Found::Stop,
            Some(top) => match self.found_at(top) {
                Found::Above => self.levels[top].above,
                found => found,
            },
        };
        let encloser = encloser_keyword(self.file, node);
        self.levels.push(Level {
            node,
            candidates: Vec::new(),
            declaration: class_of(node) == Class::Declaration,
            encloser,
            above,
            memo: Memo::default(),
            reads_proof: encloser.is_some(),
        });
    }

    /// Whether only whitespace precedes `node` on its line.
    fn starts_line(&self, node: Node<'_>) -> bool {
        self.first_code
            .get(node.start_position().row)
            .is_some_and(|&first| node.start_byte() <= first)
    }

    /// Before `node`'s subtree: a line it starts closes the candidates at or right of its
    /// column; a hole is answered.
    fn enter(&mut self, node: Node<'f>) {
        let start = node.start_byte();
        self.seek(start);
        let starts_line = self.starts_line(node);
        if let Some(level) = self.levels.last_mut() {
            if starts_line {
                let column = node.start_position().column;
                while level.candidates.last().is_some_and(|c| c.column >= column) {
                    level.candidates.pop();
                }
            }
        }
        if self.holes.get(self.next).is_some_and(|&(b, _)| b == start)
            && matches!(node.kind(), "sorry" | "admit")
        {
            // The last of the outline's holes at this byte, as a map from bytes would keep.
            let mut k = self.next;
            while self.holes.get(k + 1).is_some_and(|&(b, _)| b == start) {
                k += 1;
            }
            let i = self.holes[k].1;
            // The innermost such node at the byte wins (it is entered last).
            let enclosing = self.enclosing(node);
            #[cfg(test)]
            assert_eq!(
                enclosing,
                self.enclosing_by_scan(node),
                "{:?}",
                node.start_byte()
            );
            self.found[i] = Some((self.position(node), enclosing));
        }
    }

    /// After `node`'s subtree: it may begin a candidate's proof, or be a candidate itself.
    fn leave(&mut self, node: Node<'f>) {
        let file = self.file;
        let Some(level) = self.levels.last_mut() else {
            return;
        };
        if level.reads_proof {
            // An encloser's proof begins at the first proof token of its subtree in document
            // order ([`proof_start`]). While its children are leaves (a `have` step's name and
            // type words), the walk passing them finds that token without walking the
            // encloser again for its first hole; at a child with children of its own, the
            // encloser is left to [`Memo::proof_start`], as before.
            if starts_proof(node) {
                level.memo.proof.set(Some(Some(node.start_byte())));
                level.reads_proof = false;
            } else if node.child_count() > 0 {
                level.reads_proof = false;
            }
        }
        let keyword = match class_of(node) {
            Class::ProofToken | Class::ByBlock => {
                if let Some(top) = level.candidates.last_mut() {
                    top.proof_begins.get_or_insert(node.start_byte());
                }
                return;
            }
            Class::Have => encloser_keyword(file, node),
            Class::EncloserToken(i) => Some(ENCLOSERS[i as usize]),
            _ => None,
        };
        if let Some(keyword) = keyword {
            let column = node.start_position().column;
            while level.candidates.last().is_some_and(|c| c.column >= column) {
                level.candidates.pop();
            }
            level.candidates.push(Candidate {
                node,
                keyword,
                column,
                proof_begins: None,
                memo: Memo::default(),
            });
        }
    }

    /// A hole is a tactic when it is a whole tactic step.
    fn position(&self, hole: Node<'_>) -> HolePosition {
        match self.levels.last().map(|l| l.node) {
            Some(p) if p.kind() == "tactic" && p.byte_range() == hole.byte_range() => {
                HolePosition::Tactic
            }
            Some(p)
                if p.kind() == "tactic"
                    && head_field().and_then(|f| p.child_by_field_id(f)) == Some(hole) =>
            {
                HolePosition::Tactic
            }
            _ => HolePosition::Term,
        }
    }

    /// What level `i` says about a hole below it.
    fn found_at(&self, i: usize) -> Found<'f> {
        let level = &self.levels[i];
        if level.declaration {
            Found::Stop
        } else if !level.candidates.is_empty() {
            Found::Candidate(i)
        } else if let Some(keyword) = level.encloser {
            Found::Encloser(i, keyword)
        } else {
            Found::Above
        }
    }

    /// The innermost `have`/`show`/`suffices` whose proof contains `hole`, stopping at the
    /// declaration.
    ///
    /// Tactic steps and structured nodes enclose their proof as descendants. In term mode the
    /// grammar keeps terms flat (`show p from e` is a run of siblings, a term `have` node holds
    /// only its head), so at each level the candidates before the path count too: Lean ends a
    /// term `have`'s proof at a line that starts at or left of its keyword's column. The
    /// innermost level is asked; the levels above answered when it opened.
    fn enclosing(&self, hole: Node<'_>) -> Option<Enclosing> {
        let file = self.file;
        let at = hole.start_byte();
        let top = self.levels.len().checked_sub(1)?;
        let found = match self.found_at(top) {
            Found::Above => self.levels[top].above,
            found => found,
        };
        match found {
            Found::Stop | Found::Above => None,
            Found::Candidate(i) => {
                let c = self.levels[i].candidates.last()?;
                let end = if c.node.is_named() {
                    c.memo.proof_start(c.node, at).unwrap_or(c.node.end_byte())
                } else {
                    c.proof_begins.unwrap_or(at)
                };
                Some(c.memo.enclosing(file, c.node, c.keyword, end))
            }
            Found::Encloser(i, keyword) => {
                let level = &self.levels[i];
                let end = level.memo.proof_start(level.node, at).unwrap_or(at);
                Some(level.memo.enclosing(file, level.node, keyword, end))
            }
        }
    }
}

#[cfg(test)]
impl HoleWalk<'_> {
    /// [`HoleWalk::enclosing`] found by asking every level up to the declaration and walking
    /// the encloser for each hole: the plain reading it must agree with.
    fn enclosing_by_scan(&self, hole: Node<'_>) -> Option<Enclosing> {
        let file = self.file;
        let at = hole.start_byte();
        for level in self.levels.iter().rev() {
            let parent = level.node;
            if parent.kind() == "declaration" {
                return None;
            }
            if let Some(c) = level.candidates.last() {
                let end = if c.node.is_named() {
                    proof_start(c.node, at).unwrap_or(c.node.end_byte())
                } else {
                    c.proof_begins.unwrap_or(at)
                };
                return Some(enclosing_at(file, c.node, c.keyword, end));
            }
            if let Some(keyword) = encloser_keyword(file, parent) {
                let end = proof_start(parent, at).unwrap_or(at);
                return Some(enclosing_at(file, parent, keyword, end));
            }
        }
        None
    }
}

/// The byte of the first non-whitespace character of each line (the line's end when blank).
fn first_code_per_line(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let mut at = 0;
    for line in text.split('\n') {
        let indent = line.len() - line.trim_start().len();
        out.push(at + indent);
        at += line.len() + 1;
    }
    out
}

/// The id of the `head` field (a tactic's first word), looked up once.
fn head_field() -> Option<u16> {
    static HEAD: std::sync::OnceLock<Option<u16>> = std::sync::OnceLock::new();
    *HEAD.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_lean::LANGUAGE.into();
        lang.field_id_for_name("head").map(|f| f.get())
    })
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
    let class = class_of(node);
    if class == Class::Tactic {
        let head = node.child_by_field_id(head_field()?)?;
        let word = &file.text[head.byte_range()];
        return ENCLOSERS.contains(&word).then_some(word);
    }
    if matches!(class, Class::Have | Class::EncloserKind) {
        let word = first_word(node);
        return ENCLOSERS.contains(&word).then_some(word);
    }
    None
}

fn enclosing_at(file: &ParsedFile, node: Node<'_>, keyword: &str, end: usize) -> Enclosing {
    let end = end.max(node.start_byte());
    let text = Arc::from(collapse_whitespace(&file.text[node.start_byte()..end]));
    let pos = file.start_of(node);
    Enclosing {
        keyword: keyword.to_string(),
        text,
        line: pos.line,
        column: pos.column,
    }
}

/// Whether a node begins the proof part of the `have`/`show`/`suffices` around it: a `:=`,
/// `from`, `by`, `by` block or `|`. Read once per kind id.
fn starts_proof(node: Node<'_>) -> bool {
    static STARTS: std::sync::OnceLock<Vec<bool>> = std::sync::OnceLock::new();
    let starts = STARTS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_lean::LANGUAGE.into();
        (0..lang.node_kind_count() as u16)
            .map(|id| {
                let name = lang.node_kind_for_id(id).unwrap_or("");
                matches!(name, ":=" | "from" | "by" | "by_block" | "|")
                    || name.ends_with("by_block")
            })
            .collect()
    });
    starts
        .get(node.kind_id() as usize)
        .copied()
        .unwrap_or(false)
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
        if n != node && starts_proof(n) {
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
        h.under.as_ref().map(|u| &*u.text)
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

    /// Many holes under one encloser, and in term-mode `have`s nested as deep as the file is
    /// long: each hole's encloser is found without asking every level above it or walking the
    /// encloser again, and is the one the plain reading finds (asserted for every hole in
    /// test builds, see `enclosing_by_scan`).
    #[test]
    fn holes_share_what_their_encloser_found() {
        // A hole in the `have`'s type (its text stops at the hole), then holes in its proof.
        let text = "theorem t : True := by\n  have h : (sorry : Nat) = 1 := by\n    refine ⟨sorry, sorry, sorry⟩\n  trivial\n";
        let hs = holes_of(text);
        assert_eq!(
            hs.iter().map(under).collect::<Vec<_>>(),
            vec![
                Some("have h : ("),
                Some("have h : (sorry : Nat) = 1"),
                Some("have h : (sorry : Nat) = 1"),
                Some("have h : (sorry : Nat) = 1"),
            ]
        );
        let mut nested = String::from("theorem t : True :=\n");
        for k in 0..300 {
            nested.push_str(&format!("  have h{k} : {k} = {k} := sorry\n"));
        }
        nested.push_str("  trivial\n");
        let hs = holes_of(&nested);
        assert_eq!(hs.len(), 300);
        for (k, h) in hs.iter().enumerate() {
            assert_eq!(under(h), Some(format!("have h{k} : {k} = {k}").as_str()));
            assert_eq!(h.position, HolePosition::Term);
        }
        let mut by_haves = String::from("theorem t : True := by\n  ");
        for k in 0..300 {
            by_haves.push_str(&format!("have h{k} : {k} = {k} := by "));
        }
        by_haves.push_str("sorry\n  trivial\n");
        let hs = holes_of(&by_haves);
        assert_eq!(hs.len(), 1);
        assert_eq!(under(&hs[0]), Some("have h299 : 299 = 299"));
        assert_eq!(hs[0].position, HolePosition::Tactic);
    }

    /// A long statement and a long `have` over many holes: each hole reports them whole, and
    /// they are shared among the holes, not copied once per hole.
    #[test]
    fn many_holes_share_a_long_statement_and_encloser() {
        let terms: Vec<String> = (0..500).map(|k| format!("{k} = {k}")).collect();
        let statement = terms.join(" ∧ ");
        let text = format!(
            "theorem big : {statement} := by\n  have h : {statement} := by\n    refine ⟨{}⟩\n  exact h\n",
            vec!["sorry"; 500].join(", ")
        );
        let hs = holes_of(&text);
        assert_eq!(hs.len(), 500);
        let first = hs[0].declaration.as_ref().unwrap();
        assert_eq!(&*first.statement, format!("big : {statement}").as_str());
        let under = hs[0].under.as_ref().unwrap();
        assert_eq!(&*under.text, format!("have h : {statement}").as_str());
        for h in &hs {
            let d = h.declaration.as_ref().unwrap();
            assert!(Arc::ptr_eq(&d.statement, &first.statement));
            assert!(Arc::ptr_eq(&h.under.as_ref().unwrap().text, &under.text));
        }
        // Serialized as plain strings, as before.
        let json = serde_json::to_value(&hs[0]).unwrap();
        assert_eq!(json["under"]["text"], format!("have h : {statement}"));
        assert_eq!(
            json["declaration"]["statement"],
            format!("big : {statement}")
        );
    }

    /// Holes found by the walk on every fixture and a part of the real corpus, each checked
    /// against the plain reading (in test builds `enter` asserts it for every hole).
    #[test]
    fn every_hole_agrees_with_the_plain_reading() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut dirs = vec![root.join("fixtures")];
        let corpus = root.join("../shared/corpus");
        if corpus.is_dir() {
            dirs.push(corpus);
        } else {
            eprintln!("SKIPPED the corpus part: {} not found", corpus.display());
        }
        let (files, _) =
            crate::lean::walk::lean_files(&dirs, crate::lean::walk::IgnoreRules::HiddenOnly);
        let mut holes_seen = 0;
        for f in files.iter().step_by(4) {
            let Ok(source) = crate::lean::Source::read(f) else {
                continue;
            };
            holes_seen += holes_of(&source.text).len();
        }
        eprintln!(
            "{holes_seen} holes in {} files checked",
            files.len().div_ceil(4)
        );
        assert!(holes_seen > 0, "no holes in the fixtures");
    }

    #[test]
    fn a_hole_outside_any_declaration_has_no_owner() {
        let hs = holes_of("#check (sorry : Nat)\n");
        assert_eq!(hs.len(), 1);
        assert_eq!(hs[0].declaration, None);
        assert_eq!((hs[0].line, hs[0].column), (1, 9));
    }
}
