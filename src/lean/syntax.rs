//! Parsing Lean text with the project's tree-sitter grammar.

use std::cell::RefCell;
use std::ops::ControlFlow;
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

    /// Every ERROR and MISSING node, in document order.
    pub fn error_nodes(&self) -> Vec<Node<'_>> {
        let mut errors = Vec::new();
        let root = self.root();
        if !root.has_error() {
            return errors;
        }
        collect_errors(root, &mut errors);
        errors
    }

    /// Number of ERROR and MISSING nodes; an abandoned parse counts as one error.
    pub fn error_count(&self) -> usize {
        if self.aborted {
            1
        } else if self.root().has_error() {
            self.error_nodes().len()
        } else {
            0
        }
    }
}

/// Depth-first, with an explicit cursor rather than recursion (a tree can be as deep as the
/// file is long); only into subtrees where an error hides: `has_error` is cached per node, so
/// clean subtrees are skipped entirely.
fn collect_errors<'t>(root: Node<'t>, out: &mut Vec<Node<'t>>) {
    let mut keep = |node: Node<'t>| {
        if node.is_error() || node.is_missing() {
            out.push(node);
        }
    };
    keep(root);
    for_each_descendant_where(&mut root.walk(), |n| n.has_error(), keep);
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
        starts.sort_unstable();
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
