//! Parsing Lean text with the project's tree-sitter grammar.

use std::cell::RefCell;

use tree_sitter::{Node, Parser, Point, Tree};

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
}

impl ParsedFile {
    /// Parses `text`. Tree-sitter always produces a tree (with ERROR nodes where the text is
    /// not Lean), so this cannot fail.
    pub fn parse(text: String) -> ParsedFile {
        let tree = PARSER.with(|p| {
            let mut parser = p.borrow_mut();
            parser.reset();
            parser.parse(&text, None)
        });
        // `parse` only returns None with a timeout or cancellation flag, neither of which is set.
        let tree = tree.expect("parsing without a timeout always yields a tree");
        ParsedFile { text, tree }
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

    /// Number of ERROR and MISSING nodes.
    pub fn error_count(&self) -> usize {
        if self.root().has_error() {
            self.error_nodes().len()
        } else {
            0
        }
    }
}

/// Depth-first, with an explicit cursor rather than recursion: a tree can be as deep as the
/// file is long, and the walk must not overflow the stack.
fn collect_errors<'t>(root: Node<'t>, out: &mut Vec<Node<'t>>) {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            out.push(node);
        }
        // Descend only where an error hides: `has_error` is cached per node, so this skips
        // clean subtrees entirely.
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
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

/// A 1-based line and column (columns count characters, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

impl Position {
    /// The position of a tree-sitter point in `text`.
    pub fn of(text: &str, point: Point, byte: usize) -> Position {
        let line_start = byte - point.column;
        let column = text
            .get(line_start..byte)
            .map_or(point.column, |s| s.chars().count());
        Position {
            line: point.row + 1,
            column: column + 1,
        }
    }

    /// The start of `node` in `text`.
    pub fn start_of(text: &str, node: Node<'_>) -> Position {
        Position::of(text, node.start_position(), node.start_byte())
    }

    /// The end of `node` in `text`.
    pub fn end_of(text: &str, node: Node<'_>) -> Position {
        Position::of(text, node.end_position(), node.end_byte())
    }
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
