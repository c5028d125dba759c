//! How far parse errors spread: column-0 declarations that ended up inside ERROR nodes.
//!
//! Lean's front end parses a command at a time, so one error costs at most the command it is
//! in. The grammar resumes at every column-0 command; this module measures whether it did:
//! a declaration keyword at the start of a line (after attributes and modifiers) inside an
//! ERROR node, at any depth and outside comments, is a declaration the tree lost
//! (also when it is a `declaration` node there: the commands around it did not parse).

use tree_sitter::Node;

use super::ParsedFile;

/// Declaration keywords counted (the oracle's set: `class inductive` starts with `class`).
const KEYWORDS: &[&str] = &[
    "theorem",
    "lemma",
    "def",
    "abbrev",
    "instance",
    "example",
    "axiom",
    "opaque",
    "structure",
    "class",
    "inductive",
];

const MODIFIERS: &[&str] = &[
    "private",
    "protected",
    "public",
    "noncomputable",
    "partial",
    "unsafe",
    "nonrec",
    "meta",
    "local",
    "scoped",
];

/// Column-0 declarations of one file, and how many of them the tree lost to ERROR nodes.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Containment {
    /// Column-0 declarations: `declaration` nodes that start a line, plus lost ones.
    pub column0_declarations: usize,
    /// Column-0 declaration keywords inside an ERROR node (at any depth, a `declaration` node
    /// there included: the parser could not tell where the commands around it end).
    pub lost_declarations: usize,
}

impl Containment {
    /// Measures `file`. Linear in the file: every byte of an outermost ERROR node is looked
    /// at once, and the tree is walked once without recursion.
    pub fn of(file: &ParsedFile) -> Containment {
        let text = file.text.as_bytes();
        let mut result = Containment::default();
        let mut count = |node: Node<'_>| {
            if node.kind() == "declaration" && starts_line(text, node.start_byte()) {
                result.column0_declarations += 1;
            } else if node.is_error() && !unterminated_comment(file, node) {
                // (An unterminated comment: Lean reads the rest of the file as comment text.)
                let lost = lost_in_error(file, node);
                result.lost_declarations += lost;
                result.column0_declarations += lost;
            }
        };
        let root = file.root();
        count(root);
        // ERROR subtrees are handled whole; a declaration holds no other column-0
        // declaration, unless an error hides in it.
        let enter = |n: Node<'_>| !n.is_error() && (n.kind() != "declaration" || n.has_error());
        if enter(root) {
            super::syntax::for_each_descendant_where(&mut root.walk(), enter, count);
        }
        result
    }
}

/// The grammar's ERROR for a block comment that never closes: the comment's own text.
fn unterminated_comment(file: &ParsedFile, error: Node<'_>) -> bool {
    error.named_child_count() == 0 && file.text[error.byte_range()].starts_with("/-")
}

fn starts_line(text: &[u8], byte: usize) -> bool {
    byte == 0 || text.get(byte - 1) == Some(&b'\n')
}

/// Column-0 declaration keywords inside the ERROR node `error` (at any depth below it), outside
/// comments.
fn lost_in_error(file: &ParsedFile, error: Node<'_>) -> usize {
    let text = file.text.as_bytes();
    let range = error.byte_range();
    let mut lost = 0;
    let mut line_start = range.start;
    if !starts_line(text, line_start) {
        line_start = match memchr::memchr(b'\n', &text[line_start..range.end]) {
            Some(i) => line_start + i + 1,
            None => return 0,
        };
    }
    while line_start < range.end {
        if let Some(keyword_at) = declaration_keyword(text, line_start, range.end) {
            if !inside_comment(error, keyword_at) {
                lost += 1;
            }
        }
        line_start = match memchr::memchr(b'\n', &text[line_start..range.end]) {
            Some(i) => line_start + i + 1,
            None => break,
        };
    }
    lost
}

/// If the line at `start` begins with attributes and modifiers followed by a declaration
/// keyword, the keyword's byte offset.
fn declaration_keyword(text: &[u8], start: usize, end: usize) -> Option<usize> {
    let mut i = start;
    loop {
        while i < end && (text[i] == b' ' || text[i] == b'\t') {
            i += 1;
        }
        if text[i..end].starts_with(b"@[") {
            // Attributes end at the matching `]`, on this line or a later one.
            let mut depth = 0usize;
            while i < end {
                match text[i] {
                    b'[' => depth += 1,
                    b']' => {
                        depth -= 1;
                        if depth == 0 {
                            i += 1;
                            break;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            while i < end && text[i].is_ascii_whitespace() {
                i += 1;
            }
            continue;
        }
        let word_end = i + text[i..end]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        let word = std::str::from_utf8(&text[i..word_end]).ok()?;
        if MODIFIERS.contains(&word) {
            i = word_end;
            continue;
        }
        let followed_by_space = text.get(word_end).is_none_or(|b| b.is_ascii_whitespace());
        return (KEYWORDS.contains(&word) && followed_by_space).then_some(i);
    }
}

/// Whether the keyword at `keyword_at` is inside a comment below `error`. Anything else inside
/// an ERROR node is lost, a `declaration` node there included (the parser could not tell where
/// the commands around it begin and end), and a string too: inside an ERROR node the quotes may
/// pair up out of phase (`<span class="name">` in a term) and hide code.
fn inside_comment(error: Node<'_>, keyword_at: usize) -> bool {
    error
        .descendant_for_byte_range(keyword_at, keyword_at + 1)
        .is_some_and(|node| {
            matches!(
                node.kind(),
                "line_comment" | "block_comment" | "doc_comment" | "module_doc" | "exit_tail"
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measure(text: &str) -> Containment {
        Containment::of(&ParsedFile::parse(text.to_string()))
    }

    #[test]
    fn clean_file_loses_nothing() {
        let c = measure("theorem a : True := trivial\n\n@[simp]\nlemma b : True := trivial\n");
        assert_eq!(
            c,
            Containment {
                column0_declarations: 2,
                lost_declarations: 0
            }
        );
    }

    #[test]
    fn keywords_in_comments_are_not_declarations() {
        let c = measure("/-\ntheorem x : True := trivial\n-/\ntheorem a : True := trivial\n");
        assert_eq!(c.column0_declarations, 1);
        assert_eq!(c.lost_declarations, 0);
    }

    #[test]
    fn an_unclosed_comment_holds_no_declarations() {
        // Lean reads the rest of the file as a comment that never closes.
        let c = measure("/- a /- b -/\ntheorem x : True := trivial\nlemma y : True := trivial\n");
        assert_eq!(c, Containment::default());
    }

    #[test]
    fn declarations_after_a_broken_one_are_kept() {
        let c = measure(
            "theorem a : ∀' ψ ➝ ∃' φ ➝ ψ := h (\ninstance : Foo := x\nnamespace N\ntheorem b : True := trivial\n",
        );
        assert_eq!(c.lost_declarations, 0, "{c:?}");
        assert_eq!(c.column0_declarations, 3, "{c:?}");
    }

    #[test]
    fn declaration_nodes_inside_an_error_node_are_lost() {
        // a `mutual` block that never ends: its declarations end up inside one ERROR node
        let c = measure(concat!(
            "theorem kept : True := trivial\n\nmutual\n",
            "theorem a : True := trivial\ntheorem b : True := trivial\n",
            "namespace After\nend After\n"
        ));
        assert_eq!(c.lost_declarations, 2, "{c:?}");
        assert_eq!(c.column0_declarations, 3, "{c:?}");
    }

    #[test]
    fn keyword_lines_are_read_past_attributes_and_modifiers() {
        fn line(t: &str) -> Option<&str> {
            declaration_keyword(t.as_bytes(), 0, t.len()).map(|i| &t[i..])
        }
        assert_eq!(
            line("@[simp, norm_num]\nprivate lemma x : P"),
            Some("lemma x : P")
        );
        assert_eq!(line("noncomputable def f := 1"), Some("def f := 1"));
        assert_eq!(line("class inductive C"), Some("class inductive C"));
        assert_eq!(line("theorems x"), None);
        assert_eq!(line("  exact foo"), None);
        assert_eq!(line("@[simp"), None);
    }
}
