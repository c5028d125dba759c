//! Parsing Lean text with the project's tree-sitter grammar.

use std::cell::RefCell;
use std::collections::HashSet;
use std::ops::ControlFlow;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use tree_sitter::{Node, ParseOptions, Parser, Point, Tree, TreeCursor};

thread_local! {
    // A parser is cheap to reuse and not `Sync`; one per rayon worker thread.
    static PARSER: RefCell<Parser> = RefCell::new(new_parser());
}

fn new_parser() -> Parser {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_lean::LANGUAGE.into())
        .expect("the bundled Lean grammar matches the tree-sitter runtime version");
    parser
}

/// Lean text together with its syntax tree.
pub struct ParsedFile {
    pub text: String,
    pub tree: Tree,
    /// The parser exceeded its work budget and was stopped: `tree` is not a tree of `text`
    /// but a one-byte stand-in whose root is an error, so the file counts as one that did
    /// not parse everywhere.
    pub aborted: bool,
    /// Line starts, built on the first position asked.
    lines: OnceLock<LineIndex>,
    /// Where the text did not parse, found on the first question.
    errors: OnceLock<SyntaxErrors>,
}

/// Parser operations allowed per byte of input before a parse is abandoned. Real files need
/// well under one (about 0.2 on the corpus); the budget exists so that a grammar defect can
/// never turn into a hang: work stays linear in the input whatever the text.
const PARSE_OPS_PER_BYTE: u64 = 400;
/// Operations allowed for any file, however small.
const PARSE_OPS_BASE: u64 = 1_000_000;
/// tree-sitter calls the progress callback once per this many operations.
const OPS_PER_PROGRESS_CALL: u64 = 100;

impl ParsedFile {
    /// Parses `text`. Tree-sitter produces a tree with ERROR nodes where the text is not Lean;
    /// only a parse that exceeds its linear work budget is abandoned (see [`ParsedFile::aborted`]).
    pub fn parse(text: String) -> ParsedFile {
        let budget =
            (PARSE_OPS_BASE + PARSE_OPS_PER_BYTE * text.len() as u64) / OPS_PER_PROGRESS_CALL;
        let tree = PARSER.with(|p| {
            let mut parser = p.borrow_mut();
            parser.reset();
            let mut calls = 0u64;
            let mut progress = |_: &tree_sitter::ParseState| {
                calls += 1;
                if calls > budget {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            };
            let bytes = text.as_bytes();
            let mut read = |offset: usize, _: Point| bytes.get(offset..).unwrap_or_default();
            let options = ParseOptions::new().progress_callback(&mut progress);
            let tree = parser.parse_with_options(&mut read, None, Some(options));
            if tree.is_none() {
                parser.reset();
            }
            tree
        });
        match tree {
            Some(tree) => ParsedFile {
                text,
                tree,
                aborted: false,
                lines: OnceLock::new(),
                errors: OnceLock::new(),
            },
            None => {
                // A stand-in tree whose root has an error, so that every check that asks the
                // tree whether the file parsed is told it did not.
                let stand_in = PARSER.with(|p| p.borrow_mut().parse(")", None));
                ParsedFile {
                    text,
                    tree: stand_in.expect("a one-byte text parses within any budget"),
                    aborted: true,
                    lines: OnceLock::new(),
                    errors: OnceLock::new(),
                }
            }
        }
    }

    /// Takes the text and tree apart.
    pub fn into_parts(self) -> (String, Tree) {
        (self.text, self.tree)
    }

    /// The position of byte `byte` (see [`LineIndex`]: ascending requests cost amortised
    /// constant time beyond a binary search).
    pub fn position(&self, byte: usize) -> Position {
        self.lines
            .get_or_init(|| LineIndex::new(&self.text))
            .position(&self.text, byte)
    }

    /// The text of 1-based line `n`, without its line break.
    pub fn line(&self, n: usize) -> Option<&str> {
        let lines = self.lines.get_or_init(|| LineIndex::new(&self.text));
        let start = *lines.starts.get(n.checked_sub(1)?)?;
        let end = lines.starts.get(n).map_or(self.text.len(), |next| next - 1);
        let line = &self.text[start..end];
        Some(line.strip_suffix('\r').unwrap_or(line))
    }

    /// The byte range of the line holding byte `byte`, without its newline.
    pub fn line_span(&self, byte: usize) -> std::ops::Range<usize> {
        let lines = self.lines.get_or_init(|| LineIndex::new(&self.text));
        let k = lines
            .starts
            .partition_point(|&s| s <= byte.min(self.text.len()))
            - 1;
        let end = lines
            .starts
            .get(k + 1)
            .map_or(self.text.len(), |next| next - 1);
        lines.starts[k]..end
    }

    /// Where `node` starts.
    pub fn start_of(&self, node: Node<'_>) -> Position {
        self.position(node.start_byte())
    }

    /// Where `node` ends.
    pub fn end_of(&self, node: Node<'_>) -> Position {
        self.position(node.end_byte())
    }

    /// The root node.
    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// The source text a node covers.
    pub fn text_of(&self, node: Node<'_>) -> &str {
        &self.text[node.byte_range()]
    }

    /// Every place the text did not parse (see [`SyntaxErrors`]), found once by one walk of
    /// the tree and kept: every check that asks whether a file parsed asks this.
    pub fn errors(&self) -> &SyntaxErrors {
        self.errors.get_or_init(|| {
            if self.aborted {
                SyntaxErrors::abandoned(self.text.len())
            } else {
                SyntaxErrors::of(self.root(), &self.text)
            }
        })
    }

    /// Whether any part of the file did not parse: an ERROR node, a MISSING token (hidden
    /// ones included) or an abandoned parse.
    pub fn has_errors(&self) -> bool {
        !self.errors().list.is_empty()
    }

    /// Number of places that did not parse; an abandoned parse counts as one.
    pub fn error_count(&self) -> usize {
        self.errors().list.len()
    }
}

/// The places where a file is not Lean as the grammar reads it, in document order, and the
/// declarations that hold them.
///
/// Found by one walk that enters only the nodes that report an error (`has_error` is cached
/// per node, so clean subtrees are skipped whole). A MISSING token that the grammar hides (a
/// zero-width layout token such as the end of a block) appears in no node walk: it shows only
/// as a node that has an error while none of its children has one, and is reported as that
/// node, at its end. So the list is empty exactly when the tree's root has no error.
#[derive(Debug, Default)]
pub struct SyntaxErrors {
    list: Vec<SyntaxError>,
    /// Ids of the `declaration` nodes (and `user_command` nodes, which the outline may read
    /// as declarations) with an error inside.
    declarations: HashSet<usize>,
}

/// One place that did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub kind: SyntaxErrorKind,
    /// The bytes it covers: empty for a MISSING token.
    pub span: Range<usize>,
    /// The top-level command it is in (the whole text when the root itself is the error).
    pub command: Range<usize>,
}

/// What went wrong at a [`SyntaxError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SyntaxErrorKind {
    /// Text the grammar could not read (an ERROR node).
    Unparsed,
    /// A block comment that never closes: Lean reads the rest of the file as its text.
    UnclosedComment,
    /// A doc comment that nothing after it takes (`end`, `open`, another doc comment, the end
    /// of the file): Lean expects a declaration there.
    OrphanDocComment,
    /// A token the parser had to assume (a MISSING node), by its kind (`)`, `identifier`).
    Missing(String),
    /// A hidden token the parser had to assume (the end of a layout block or of a command)
    /// inside a node of this kind.
    Incomplete(String),
    /// The parse went over its work budget and was stopped.
    Abandoned,
}

/// Whether `node` is the scanner's error for whole doc comments that no declaration follows:
/// an ERROR of one token from a `/--` to a `-/` that closes it (Lean rejects such a doc
/// comment; its text is still a comment of the file's author).
pub(crate) fn is_orphan_doc_comment(node: Node<'_>, text: &str) -> bool {
    node.is_error() && node.named_child_count() == 0 && {
        let comment = &text[node.byte_range()];
        comment.starts_with("/--") && comment_closes(comment)
    }
}

/// Whether a block comment's text (from its `/-`) closes, counting nested `/-` as Lean does.
/// (An unterminated comment's token runs to the end of the file without closing; an error
/// node may hold several orphan doc comments in a row.)
fn comment_closes(comment: &str) -> bool {
    let bytes = comment.as_bytes();
    let (mut depth, mut i) = (0usize, 0usize);
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'/', b'-') => {
                depth += 1;
                i += 2;
            }
            (b'-', b'/') if depth > 0 => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return true;
                }
            }
            _ => i += 1,
        }
    }
    false
}

impl SyntaxError {
    /// A short description: `syntax error`, `missing )`, ….
    pub fn describe(&self) -> String {
        match &self.kind {
            SyntaxErrorKind::Unparsed => "syntax error".into(),
            // Lean nests `/-` in comments: quoted `'/--'` opens a level too.
            SyntaxErrorKind::UnclosedComment => {
                "comment never closed (a `/-` inside it opens another)".into()
            }
            SyntaxErrorKind::OrphanDocComment => {
                "doc comment that no declaration follows (a doc comment belongs to one)".into()
            }
            SyntaxErrorKind::Missing(kind) => format!("missing {kind}"),
            SyntaxErrorKind::Incomplete(kind) => {
                format!("unfinished {kind} (the parser had to assume the end of a block here)")
            }
            SyntaxErrorKind::Abandoned => {
                "parse stopped: the file went over the parser's work budget".into()
            }
        }
    }
}

impl SyntaxErrors {
    fn abandoned(len: usize) -> SyntaxErrors {
        SyntaxErrors {
            list: vec![SyntaxError {
                kind: SyntaxErrorKind::Abandoned,
                span: 0..len,
                command: 0..len,
            }],
            declarations: HashSet::new(),
        }
    }

    /// The one walk: depth-first with a cursor and an explicit stack (a tree can be as deep
    /// as the file is long), only into nodes that have an error.
    fn of<'t>(root: Node<'t>, text: &str) -> SyntaxErrors {
        let mut out = SyntaxErrors::default();
        if !root.has_error() {
            return out;
        }
        // The top-level command holding a node, given the nodes entered above it.
        let command_of = |node: Node<'t>, above: &[(Node<'t>, bool)]| match above {
            [] => root.byte_range(),
            [_] => node.byte_range(),
            [_, top, ..] => top.0.byte_range(),
        };
        // An ERROR or MISSING node as an error.
        let error_at = |node: Node<'t>, above: &[(Node<'t>, bool)]| {
            let kind = if node.is_missing() {
                SyntaxErrorKind::Missing(node.kind().to_string())
            } else if !node.is_error() {
                return None;
            } else if is_orphan_doc_comment(node, text) {
                SyntaxErrorKind::OrphanDocComment
            } else if node.named_child_count() == 0 && text[node.byte_range()].starts_with("/-") {
                // The scanner's unterminated comment: one token from its `/-` to the end.
                SyntaxErrorKind::UnclosedComment
            } else {
                SyntaxErrorKind::Unparsed
            };
            let span = if node.is_missing() {
                node.start_byte()..node.start_byte()
            } else {
                node.byte_range()
            };
            Some(SyntaxError {
                kind,
                span,
                command: command_of(node, above),
            })
        };
        // The nodes entered, each with whether a child of it has an error.
        let mut stack: Vec<(Node<'t>, bool)> = Vec::new();
        let mut cursor = root.walk();
        let mut node = root;
        'visit: loop {
            // `node`, where the cursor is, has an error.
            if let Some(parent) = stack.last_mut() {
                parent.1 = true;
            }
            out.list.extend(error_at(node, &stack));
            if matches!(node.kind(), "declaration" | "user_command") {
                out.declarations.insert(node.id());
            }
            stack.push((node, false));
            let mut more = cursor.goto_first_child();
            let mut at_child = more;
            loop {
                // The next child of the stack's top that has an error.
                while more {
                    let child = cursor.node();
                    if child.has_error() {
                        node = child;
                        continue 'visit;
                    }
                    // An unexpected character is an ERROR leaf that costs nothing by itself
                    // (only the ERROR node around it does).
                    if child.is_error() {
                        out.list.extend(error_at(child, &stack));
                    }
                    more = cursor.goto_next_sibling();
                }
                if at_child {
                    cursor.goto_parent();
                }
                let (done, child_has_error) = stack.pop().expect("the walk stays below the root");
                if !child_has_error && !done.is_error() && !done.is_missing() {
                    let at = done.end_byte();
                    out.list.push(SyntaxError {
                        kind: SyntaxErrorKind::Incomplete(done.kind().to_string()),
                        span: at..at,
                        command: command_of(done, &stack),
                    });
                }
                if stack.is_empty() {
                    break 'visit;
                }
                more = cursor.goto_next_sibling();
                at_child = true;
            }
        }
        // A hidden token is reported when its node is left, after the errors before it.
        out.list.sort_by_key(|e| (e.span.start, e.span.end));
        out
    }

    /// Every error, in document order.
    pub fn list(&self) -> &[SyntaxError] {
        &self.list
    }

    /// The first error, if any.
    pub fn first(&self) -> Option<&SyntaxError> {
        self.list.first()
    }

    /// Whether the `declaration` (or `user_command`) node `node` has an error inside.
    pub fn in_declaration(&self, node: Node<'_>) -> bool {
        self.declarations.contains(&node.id())
    }
}

/// Calls `f` on every node below the cursor's node (not the node itself), in document order.
pub(crate) fn for_each_descendant<'t>(cursor: &mut TreeCursor<'t>, f: impl FnMut(Node<'t>)) {
    for_each_descendant_where(cursor, |_| true, f)
}

/// Like [`for_each_descendant`], but below a node only where `enter` says so.
pub(crate) fn for_each_descendant_where<'t>(
    cursor: &mut TreeCursor<'t>,
    mut enter: impl FnMut(Node<'t>) -> bool,
    mut f: impl FnMut(Node<'t>),
) {
    if !cursor.goto_first_child() {
        return;
    }
    let mut depth = 1usize;
    loop {
        let node = cursor.node();
        f(node);
        if node.child_count() > 0 && enter(node) && cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            depth -= 1;
            if depth == 0 {
                return;
            }
        }
    }
}

/// The tokens (leaves) below `node` in document order, comments and other extras excluded.
pub fn tokens(node: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    loop {
        let n = cursor.node();
        if !n.is_extra() {
            if n.child_count() == 0 {
                out.push(n);
            } else if cursor.goto_first_child() {
                continue;
            }
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

/// A 1-based line and column (columns count characters, not bytes). Computed by
/// [`ParsedFile::position`] from a line index, never by counting from the file's start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// Line starts of a text, found once: a byte's [`Position`] then costs a binary search plus
/// counting the characters between it and the last position asked on the same line, so a
/// walk that asks in ascending order is linear even on a file that is one long line.
pub struct LineIndex {
    starts: Vec<usize>,
    /// The last byte asked (high half) and its 0-based column in characters (low half).
    last: AtomicU64,
}

impl LineIndex {
    /// Indexes `text` (one pass).
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex {
            starts,
            last: AtomicU64::new(0),
        }
    }

    /// The position of byte `byte` of `text`, the text this index was built from (clamped
    /// to it; a byte inside a character counts as that character).
    pub fn position(&self, text: &str, byte: usize) -> Position {
        let byte = byte.min(text.len());
        let line = self.starts.partition_point(|&s| s <= byte) - 1;
        let line_start = self.starts[line];
        let last = self.last.load(Ordering::Relaxed);
        let (last_byte, last_column) = ((last >> 32) as usize, (last & 0xffff_ffff) as usize);
        let (from, column) = if last_byte >= line_start && last_byte <= byte {
            (last_byte, last_column)
        } else {
            (line_start, 0)
        };
        let column = column + count_chars(&text.as_bytes()[from..byte]);
        // Sources are under 4 GiB (`MAX_SOURCE_BYTES`), so both halves fit.
        if byte <= u32::MAX as usize && column <= u32::MAX as usize {
            self.last
                .store(((byte as u64) << 32) | column as u64, Ordering::Relaxed);
        }
        Position {
            line: line + 1,
            column: column + 1,
        }
    }
}

/// Characters in a UTF-8 byte slice: every byte that does not continue a character.
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

impl std::fmt::Display for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Where any of a set of strings begins in a text, ascending: lets a tree walk skip a subtree
/// whose text holds none of them without visiting its nodes (a cursor step costs hundreds of
/// instructions, a binary search a few).
#[derive(Default)]
pub(crate) struct Occurrences {
    starts: Vec<usize>,
}

impl Occurrences {
    /// Every match of `finder` in `text`, overlapping ones included.
    pub(crate) fn of(finder: &aho_corasick::AhoCorasick, text: &str) -> Occurrences {
        let mut starts: Vec<usize> = finder
            .find_overlapping_iter(text)
            .map(|m| m.start())
            .collect();
        // Overlapping matches come in the order of their ends.
        starts.sort_unstable();
        Occurrences { starts }
    }

    /// Every occurrence of each of a few `needles` in `text`: one vectorised search per
    /// needle, which beats an automaton when the needles are short and frequent.
    pub(crate) fn of_each(needles: &[&str], text: &str) -> Occurrences {
        let mut starts: Vec<usize> = needles
            .iter()
            .flat_map(|n| memchr::memmem::find_iter(text.as_bytes(), n.as_bytes()))
            .collect();
        // One ascending run per needle: the stable sort merges runs (the unstable one sorts
        // from scratch, a cost that shows on a file of 50,000 holes).
        starts.sort();
        Occurrences { starts }
    }

    /// An occurrence at every byte: a walk guided by it skips nothing.
    #[cfg(test)]
    pub(crate) fn everywhere(len: usize) -> Occurrences {
        Occurrences {
            starts: (0..len).collect(),
        }
    }

    /// Whether an occurrence begins inside `range`.
    pub(crate) fn any_in(&self, range: std::ops::Range<usize>) -> bool {
        let i = self.starts.partition_point(|&p| p < range.start);
        self.starts.get(i).is_some_and(|&p| p < range.end)
    }

    /// Every start, ascending.
    pub(crate) fn starts(&self) -> &[usize] {
        &self.starts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `do` block cut short by a keyword in the middle of a line: the tree's only error is
    /// the end of the block the parser had to assume, a hidden zero-width token.
    const HIDDEN_MISSING: &str =
        "def shout (x : String) : IO Unit := do\n  IO.println x\n    is notation for x\n";

    #[test]
    fn a_hidden_missing_token_is_an_error() {
        let file = ParsedFile::parse(HIDDEN_MISSING.to_string());
        let sexp = file.root().to_sexp();
        assert!(
            sexp.contains("(MISSING _layout_end)") && !sexp.contains("ERROR"),
            "the fixture must keep exercising a hidden MISSING token alone: {sexp}"
        );
        assert!(file.root().has_error());
        assert!(file.has_errors());
        let errors = file.errors().list();
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(
            errors[0].kind,
            SyntaxErrorKind::Incomplete("do_block".to_string())
        );
        // At the end of the block: after `is`, where `notation` cut it short.
        let at = file.position(errors[0].span.start);
        assert_eq!((at.line, at.column), (3, 7));
        assert_eq!(
            errors[0].command,
            0..file.text.find("\n    is").unwrap() + 7
        );
    }

    #[test]
    fn the_walk_agrees_with_the_root_on_every_kind_of_error() {
        for text in [
            "theorem a : True := trivial\n",
            "theorem t : True := by\n  exact (foo\n",
            "def f := do\n  pure x notation y\n",
            "/- never closed\ntheorem x : True := trivial\n",
            HIDDEN_MISSING,
            ")",
        ] {
            let file = ParsedFile::parse(text.to_string());
            assert_eq!(
                file.has_errors(),
                file.root().has_error(),
                "{text:?}: {:?}",
                file.errors()
            );
        }
        let unclosed = ParsedFile::parse("/- a /- b -/\ntheorem x : True := trivial\n".into());
        assert_eq!(
            unclosed.errors().list()[0].kind,
            SyntaxErrorKind::UnclosedComment
        );
        let orphan = ParsedFile::parse("/-- a doc -/\n/- a -/\nend\n".into());
        assert_eq!(
            orphan.errors().list()[0].kind,
            SyntaxErrorKind::OrphanDocComment
        );
        let unclosed_doc = ParsedFile::parse("/-- a /- b -/\nend\n".into());
        assert_eq!(
            unclosed_doc.errors().list()[0].kind,
            SyntaxErrorKind::UnclosedComment
        );
        let missing = ParsedFile::parse("theorem t : True := by\n  exact (foo\n".into());
        assert_eq!(
            missing.errors().list()[0].kind,
            SyntaxErrorKind::Missing(")".into())
        );
        assert_eq!(missing.errors().list()[0].describe(), "missing )");
    }

    #[test]
    fn declarations_holding_an_error_are_known_by_id() {
        let file =
            ParsedFile::parse(HIDDEN_MISSING.to_string() + "\ntheorem fine : True := trivial\n");
        let root = file.root();
        let mut cursor = root.walk();
        let declarations: Vec<Node<'_>> = root
            .named_children(&mut cursor)
            .filter(|n| n.kind() == "declaration")
            .collect();
        assert_eq!(declarations.len(), 2);
        assert!(file.errors().in_declaration(declarations[0]));
        assert!(!file.errors().in_declaration(declarations[1]));
    }

    #[test]
    fn positions_count_characters_in_any_order() {
        let file = ParsedFile::parse("ab\nαβγ x\n\nlast".to_string());
        let at = |b: usize| {
            let p = file.position(b);
            (p.line, p.column)
        };
        // Ascending, then back within a line, then an earlier line: the cache never misleads.
        assert_eq!(at(0), (1, 1));
        assert_eq!(at(3), (2, 1));
        assert_eq!(at(9), (2, 4)); // after three 2-byte characters and before the space
        assert_eq!(at(5), (2, 2));
        assert_eq!(at(1), (1, 2));
        assert_eq!(at(11), (2, 6)); // the line break ends line 2
        assert_eq!(at(12), (3, 1));
        assert_eq!(at(13), (4, 1));
        assert_eq!(at(99), (4, 5)); // clamped to the end
        assert_eq!(file.line(2), Some("αβγ x"));
        assert_eq!(file.line(3), Some(""));
        assert_eq!(file.line(5), None);
        assert_eq!(file.line_span(4), 3..11);
    }
}
