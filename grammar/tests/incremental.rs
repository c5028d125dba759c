//! Incremental reparsing gives the tree a fresh parse gives.
//!
//! tree-sitter reuses the subtrees an edit did not touch and restores the external scanner's
//! state from the last external token before the point where it resumes, so everything the
//! scanner decides must follow from that serialized state and the text it reads. These tests
//! edit trees (`Tree::edit` + reparse with the old tree) at every position of sources whose
//! parse depends on what the line above ended with (an operator or `,`, a term-level `let`),
//! and compare each result with a fresh parse of the edited text.

use std::path::Path;
use tree_sitter::{InputEdit, Node, Parser, Point, Tree};

fn parser() -> Parser {
    let mut p = Parser::new();
    p.set_language(&tree_sitter_lean::LANGUAGE.into())
        .expect("the Lean grammar loads");
    p
}

/// The tree with every node's kind, field and byte range (`to_sexp` has no ranges).
fn dump(tree: &Tree) -> String {
    let mut out = String::new();
    let mut cursor = tree.walk();
    let mut depth = 0usize;
    loop {
        let n: Node = cursor.node();
        out.push_str(&format!(
            "{:depth$}{} {:?} {}..{}\n",
            "",
            n.kind(),
            cursor.field_name(),
            n.start_byte(),
            n.end_byte(),
            depth = depth
        ));
        if cursor.goto_first_child() {
            depth += 1;
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
            depth -= 1;
        }
    }
}

fn point_at(text: &[u8], byte: usize) -> Point {
    let before = &text[..byte];
    let row = before.iter().filter(|&&b| b == b'\n').count();
    let col = byte
        - before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |i| i + 1);
    Point::new(row, col)
}

/// Replaces `old_len` bytes at `at` with `insert`, editing `tree` to match; returns the new text.
fn apply(tree: &mut Tree, text: &[u8], at: usize, old_len: usize, insert: &[u8]) -> Vec<u8> {
    let mut new = text[..at].to_vec();
    new.extend_from_slice(insert);
    new.extend_from_slice(&text[at + old_len..]);
    tree.edit(&InputEdit {
        start_byte: at,
        old_end_byte: at + old_len,
        new_end_byte: at + insert.len(),
        start_position: point_at(text, at),
        old_end_position: point_at(text, at + old_len),
        new_end_position: point_at(&new, at + insert.len()),
    });
    new
}

/// Every edit from `edits` at every char boundary of `src` (a step of `stride` bytes): the
/// incremental reparse equals the fresh parse. Returns the number of edits checked.
fn check_edits(name: &str, src: &str, edits: &[(usize, &str)], stride: usize) -> usize {
    let mut p = parser();
    let text = src.as_bytes();
    let base = p.parse(text, None).expect("parses");
    let mut checked = 0;
    for at in (0..=text.len()).step_by(stride) {
        if !src.is_char_boundary(at) {
            continue;
        }
        for &(del, ins) in edits {
            let end = at + del;
            if end > text.len() || !src.is_char_boundary(end) {
                continue;
            }
            let mut old = base.clone();
            let new_text = apply(&mut old, text, at, del, ins.as_bytes());
            let incremental = p.parse(&new_text, Some(&old)).expect("reparses");
            let fresh = p.parse(&new_text, None).expect("parses");
            // (error recovery is a search that reused subtrees may steer elsewhere: of a tree
            // with an error, only that it has one is compared)
            if fresh.root_node().has_error() {
                assert!(
                    incremental.root_node().has_error(),
                    "{name}: the error is lost at {at}"
                );
                checked += 1;
                continue;
            }
            let (a, b) = (dump(&incremental), dump(&fresh));
            assert!(
                a == b,
                "{name}: replacing {del} bytes at {at} by {ins:?} reparses differently\n\
                 text:\n{}\nincremental:\n{a}\nfresh:\n{b}",
                String::from_utf8_lossy(&new_text)
            );
            checked += 1;
        }
    }
    checked
}

const EDITS: &[(usize, &str)] = &[
    (0, " "),
    (0, "\n"),
    (0, " +\n"),
    (0, ",\n"),
    (0, "x"),
    (1, ""),
    (1, "\n"),
    (0, "  let y := 2\n"),
];

/// Sources whose parse hangs on the end of the line above.
const SOURCES: &[(&str, &str)] = &[
    (
        "operator then #word",
        "theorem b : (#x : T) =\n    #x := rfl\n#check b\ndef s : String := \"a\" ++\n\"b\"\nproblem p : True := trivial\n",
    ),
    (
        "comma then column 0",
        "def l : List Nat := [1,\n2]\n#check l\nexample : f a ≤\n#B * c := h\n#eval 1 #check a\n",
    ),
    (
        "term-level let",
        "def f (n : Nat) : Nat :=\n  let x := n + 1\n  let y := x\nx * y\n\nproblem p : True := trivial\ndef g : Nat :=\n  have h := 1\n  h\nproblem q : True := trivial\n",
    ),
    (
        "tactic block operator",
        "theorem t : a := by\n  all_goals have h : a ∧\n    b := by omega\n  simp at h ⊢\n#check t\n",
    ),
];

#[test]
fn incremental_reparse_equals_fresh_parse() {
    let mut total = 0;
    for (name, src) in SOURCES {
        total += check_edits(name, src, EDITS, 1);
    }
    assert!(total > 1000, "only {total} edits were checked");
}

/// Chained edits: each reparse starts from the tree of the one before (states restored from
/// trees that were themselves reparsed).
#[test]
fn chained_edits_reparse_like_fresh_parses() {
    let mut p = parser();
    for (name, src) in SOURCES {
        let mut text = src.as_bytes().to_vec();
        let mut tree = p.parse(&text, None).expect("parses");
        // a deterministic walk over the text: insert an operator line end, delete, insert a word
        let mut at = 7usize;
        for step in 0..60 {
            at = (at * 31 + 17) % (text.len() + 1);
            while at > 0 && std::str::from_utf8(&text[..at]).is_err() {
                at -= 1;
            }
            let (del, ins): (usize, &[u8]) = match step % 4 {
                0 => (0, b" +\n"),
                1 => (usize::from(at < text.len() && text[at].is_ascii()), b""),
                2 => (0, b"\n#check x\n"),
                _ => (0, b"\n  let z := 1\n"),
            };
            let new_text = apply(&mut tree, &text, at, del, ins);
            let incremental = p.parse(&new_text, Some(&tree)).expect("reparses");
            let fresh = p.parse(&new_text, None).expect("parses");
            assert_eq!(
                incremental.root_node().has_error(),
                fresh.root_node().has_error(),
                "{name}, step {step}"
            );
            if fresh.root_node().has_error() {
                text = new_text;
                tree = fresh;
                continue;
            }
            assert_eq!(
                dump(&incremental),
                dump(&fresh),
                "{name}, step {step}: text:\n{}",
                String::from_utf8_lossy(&new_text)
            );
            text = new_text;
            tree = incremental;
        }
    }
}

/// The same on real files (`../shared`), at every line start: skipped visibly without them.
#[test]
fn incremental_reparse_on_corpus_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus-public");
    let Ok(projects) = std::fs::read_dir(&root) else {
        eprintln!(
            "SKIPPED: {} is missing (incremental reparsing on real files)",
            root.display()
        );
        return;
    };
    let mut files: Vec<_> = projects
        .flatten()
        .flat_map(|p| walk(&p.path()))
        .filter(|f| {
            std::fs::read_to_string(f)
                .map(|t| t.contains(" +\n") || t.contains(",\n#") || t.contains("\n  let "))
                .unwrap_or(false)
        })
        .collect();
    files.sort();
    let mut checked = 0;
    for f in files.iter().step_by((files.len() / 12).max(1)).take(12) {
        let src = std::fs::read_to_string(f).unwrap();
        if src.len() > 20_000 {
            continue;
        }
        let stride = (src.len() / 150).max(1);
        checked += check_edits(
            &f.display().to_string(),
            &src,
            &[(0, " +\n"), (1, "")],
            stride,
        );
    }
    assert!(checked > 0, "no corpus file was checked");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "lean") {
                out.push(p);
            }
        }
    }
    out
}
