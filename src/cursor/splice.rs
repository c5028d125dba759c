//! Putting a proof in place: replace a declaration's proof, or one hole in it.
//!
//! Everything outside the replaced range stays byte for byte (line endings and a byte-order
//! mark included). The result must parse as cleanly as the original, or nothing is written:
//!
//! * a whole proof is only replaced when the current one parses (otherwise where it ends is
//!   a guess of the parser's error recovery);
//! * no ERROR/MISSING node may touch the inserted text, even when the original already had
//!   one touching the replaced text (new errors cannot be told from old ones there, so the
//!   message points at the old error to repair by hand);
//! * the file may not have more ERROR/MISSING nodes than before (errors elsewhere in the
//!   original are tolerated, since they are not the splice's doing, but none may be added);
//! * the declarations must be the same ones, and the target must still contain the inserted
//!   text (a proof that smuggles in a new command, or ends the declaration early, is refused).

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::lean::syntax::{Position, SyntaxError};
use crate::lean::{Outline, ParsedFile, Source, SourceError};

use super::holes::innermost_declaration;
use super::target::{find_declaration, label, TargetError};
use super::text;

/// What to splice where.
#[derive(Debug, Clone)]
pub struct Splice<'a> {
    /// The declaration, as [`find_declaration`] resolves it.
    pub declaration: &'a str,
    /// The proof. For a whole proof: a body starting with `:=`, `|` or `where` is used as
    /// given; one starting with `by` gets `:= ` in front; anything else is taken as tactics when
    /// the old proof was a `by` block (`:= by` and the tactics indented below), else as a term
    /// (`:= ` in front). For a hole: the text replacing the `sorry`/`admit` as it is.
    pub proof: &'a str,
    /// Replace only the N-th hole (1-based, file order) of the declaration.
    pub hole: Option<usize>,
    /// Allow replacing a complete proof (one without `sorry`/`admit`) by one with a hole;
    /// refused otherwise ([`SpliceError::Gutted`]).
    pub allow_sorry: bool,
}

/// A successful splice (not yet written).
#[derive(Debug, Clone)]
pub struct Spliced {
    /// The whole new text (without a byte-order mark).
    pub text: String,
    /// The declaration's full name, or `example at line N`.
    pub declaration: String,
    pub kind: String,
    /// Byte range replaced in the old text, and the range of the inserted text in the new one.
    pub replaced: Range<usize>,
    pub inserted: Range<usize>,
    /// Where the replacement starts.
    pub position: Position,
    /// Lines the replaced text spanned, and lines the inserted text spans.
    pub old_lines: usize,
    pub new_lines: usize,
    /// Holes left in the declaration and in the file.
    pub holes_in_declaration: usize,
    pub holes_in_file: usize,
    /// How the proof was read (for a whole-proof splice).
    pub form: ProofForm,
}

/// How the given proof text was put in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProofForm {
    /// A complete body (`:= …`, `| …` equations or `where …`).
    Body,
    /// A term, or a `by` block, after `:=`.
    Term,
    /// Tactics, put under `:= by`.
    Tactics,
    /// The text of one hole.
    Hole,
}

/// Why a splice was refused.
#[derive(Debug, Clone, thiserror::Error)]
pub enum SpliceError {
    #[error("{0}")]
    Target(#[from] TargetError),
    #[error("the proof text is empty")]
    EmptyProof,
    #[error("{declaration} has no proof to replace (no `:=`, `where` or equations)")]
    NoBody { declaration: String },
    #[error("{declaration} has no `sorry`/`admit` to replace")]
    NoHoles { declaration: String },
    #[error("{declaration} has {count} hole{}; there is no hole {n}", if *.count == 1 { "" } else { "s" })]
    NoSuchHole {
        declaration: String,
        n: usize,
        count: usize,
    },
    #[error("the result does not parse cleanly: {}{}", describe(.errors), preexisting_note(.preexisting))]
    Unparseable {
        /// Positions (in the new text) of the offending ERROR/MISSING nodes, at most five.
        errors: Vec<Position>,
        /// A syntax error the original already had at the replaced text.
        preexisting: Option<Position>,
    },
    #[error("the result does not parse cleanly: {new} syntax errors where the original had {old}")]
    MoreErrors { old: usize, new: usize },
    #[error(
        "the current proof of {declaration} has a syntax error at line {at}, so where it ends is \
         uncertain; repair it by hand or splice its holes with --sorry"
    )]
    BrokenProof { declaration: String, at: Position },
    #[error("the proof changes the file's declarations ({detail}); give only the proof")]
    Restructured { detail: String },
    #[error(
        "{declaration} has a complete proof and this would replace it with one that has \
         sorry/admit; splice a finished proof, or pass --allow-sorry to gut it on purpose"
    )]
    Gutted { declaration: String },
}

fn preexisting_note(at: &Option<Position>) -> String {
    match at {
        Some(p) => format!(
            " (the original already has a syntax error there, at line {p}; repair it by hand)"
        ),
        None => String::new(),
    }
}

fn describe(errors: &[Position]) -> String {
    let places: Vec<String> = errors.iter().map(|p| format!("line {p}")).collect();
    format!("syntax error at {}", places.join(", "))
}

/// Splices into `text` (a file's text without its byte-order mark).
pub fn splice_text(text: &str, request: &Splice<'_>) -> Result<Spliced, SpliceError> {
    let parsed = super::parse(text);
    let outline = Outline::of("", &parsed);
    let index = find_declaration(&outline, request.declaration)?;
    let decl = &outline.declarations[index];
    let name = label(decl);
    let lines = text::dedent(request.proof).ok_or(SpliceError::EmptyProof)?;

    let (replaced, replacement, form) = match request.hole {
        Some(n) => {
            let holes: Vec<usize> = outline
                .sorries
                .iter()
                .filter(|s| innermost_declaration(&outline.declarations, s.byte) == Some(index))
                .map(|s| s.byte)
                .collect();
            if holes.is_empty() {
                return Err(SpliceError::NoHoles { declaration: name });
            }
            let Some(&at) = n.checked_sub(1).and_then(|i| holes.get(i)) else {
                return Err(SpliceError::NoSuchHole {
                    declaration: name,
                    n,
                    count: holes.len(),
                });
            };
            let keyword_len = "sorry".len(); // `admit` has the same length
            let eol = text::line_ending_at(text, at);
            let indent = text::column(text, at);
            (
                at..at + keyword_len,
                text::lay_out(&lines, indent, eol),
                ProofForm::Hole,
            )
        }
        None => {
            let body = decl.body.clone().ok_or_else(|| SpliceError::NoBody {
                declaration: name.clone(),
            })?;
            if let Some(at) = first_error_in(&parsed, &body) {
                return Err(SpliceError::BrokenProof {
                    declaration: name,
                    at,
                });
            }
            let eol = text::line_ending_at(text, body.start);
            let indent = if text::begins_line(text, body.start) {
                text::column(text, body.start)
            } else {
                text::indentation(&text[text::line_start(text, decl.span.start)..])
            };
            // Comments after the last token of the proof stay: they may well be about what
            // follows (`sorry -- see below`, a note before the next declaration).
            let body = body.start..code_end(&parsed, &body);
            let old_body = &text[body.clone()];
            let (lines, form) = whole_proof(lines, old_body);
            (body, text::lay_out(&lines, indent, eol), form)
        }
    };

    let mut new_text = String::with_capacity(text.len() + replacement.len());
    new_text.push_str(&text[..replaced.start]);
    new_text.push_str(&replacement);
    new_text.push_str(&text[replaced.end..]);
    let inserted = replaced.start..replaced.start + replacement.len();

    let new_outline = verify(&parsed, &outline, index, &new_text, &replaced, &inserted)?;
    if !request.allow_sorry {
        // The same declaration-by-declaration check as the edit gate (`mf diff`'s engine).
        let c = crate::lean::compare::FileComparison::of(text, &outline, &new_text, &new_outline);
        if let Some(d) = c.newly_holed().first() {
            return Err(SpliceError::Gutted {
                declaration: d.label(),
            });
        }
    }
    let new_decl = &new_outline.declarations[index];
    Ok(Spliced {
        declaration: name,
        kind: decl.kind.clone(),
        position: position_at(text, replaced.start),
        old_lines: line_count(&text[replaced.clone()]),
        new_lines: line_count(&replacement),
        holes_in_declaration: new_decl.sorry_count,
        holes_in_file: new_outline.sorry_count(),
        replaced,
        inserted,
        form,
        text: new_text,
    })
}

/// The end of the last token in `range` (a node's range) that is not a comment.
fn code_end(file: &ParsedFile, range: &Range<usize>) -> usize {
    let is_comment = |n: &tree_sitter::Node<'_>| {
        matches!(
            n.kind(),
            "line_comment" | "block_comment" | "doc_comment" | "module_doc"
        )
    };
    let Some(mut node) = file
        .root()
        .descendant_for_byte_range(range.start, range.end)
    else {
        return range.end;
    };
    while node.byte_range() != *range {
        match node.parent() {
            Some(p) if p.start_byte() >= range.start && p.end_byte() <= range.end => node = p,
            _ => return range.end,
        }
    }
    loop {
        let mut cursor = node.walk();
        let last = node
            .children(&mut cursor)
            .filter(|c| !is_comment(c) && c.end_byte() > c.start_byte())
            .last();
        match last {
            Some(child) => node = child,
            None => return node.end_byte(),
        }
    }
}

/// Turns dedented proof lines into body lines for a whole-proof splice.
fn whole_proof(mut lines: Vec<String>, old_body: &str) -> (Vec<String>, ProofForm) {
    let first = lines[0].trim_start();
    let starts_with_word = |w: &str| {
        first.strip_prefix(w).is_some_and(|rest| {
            rest.is_empty() || rest.starts_with(|c: char| c.is_whitespace() || c == '(')
        })
    };
    if first.starts_with(":=") || first.starts_with('|') || starts_with_word("where") {
        return (lines, ProofForm::Body);
    }
    let old_is_tactics = old_body
        .strip_prefix(":=")
        .map(str::trim_start)
        .is_some_and(|rest| {
            rest.strip_prefix("by")
                .is_some_and(|r| r.is_empty() || r.starts_with(char::is_whitespace))
        });
    if starts_with_word("by") || !old_is_tactics {
        lines[0] = format!(":= {}", lines[0].trim_start());
        return (lines, ProofForm::Term);
    }
    let mut body = Vec::with_capacity(lines.len() + 1);
    body.push(":= by".to_string());
    body.extend(
        lines
            .into_iter()
            .map(|l| if l.is_empty() { l } else { format!("  {l}") }),
    );
    (body, ProofForm::Tactics)
}

/// The position of the first parse error overlapping `range`, if any.
fn first_error_in(file: &ParsedFile, range: &Range<usize>) -> Option<Position> {
    touching(file, range)
        .first()
        .map(|e| file.position(e.span.start))
}

/// Parse errors that overlap `range` or sit at its edges (a MISSING token is empty).
fn touching<'f>(file: &'f ParsedFile, range: &Range<usize>) -> Vec<&'f SyntaxError> {
    file.errors()
        .list()
        .iter()
        .filter(|e| e.span.start <= range.end && range.start <= e.span.end)
        .collect()
}

/// Checks that `new_text` parses as cleanly as the original and still has the same
/// declarations, with the target containing the inserted range; returns its outline.
///
fn verify(
    old: &ParsedFile,
    old_outline: &Outline,
    index: usize,
    new_text: &str,
    replaced: &Range<usize>,
    inserted: &Range<usize>,
) -> Result<Outline, SpliceError> {
    let parsed = super::parse(new_text);
    let new_touching = touching(&parsed, inserted);
    if !new_touching.is_empty() {
        let errors = new_touching
            .iter()
            .take(5)
            .map(|e| parsed.position(e.span.start))
            .collect();
        let preexisting = first_error_in(old, replaced);
        return Err(SpliceError::Unparseable {
            errors,
            preexisting,
        });
    }
    let (old_errors, new_errors) = (old.error_count(), parsed.error_count());
    if new_errors > old_errors {
        return Err(SpliceError::MoreErrors {
            old: old_errors,
            new: new_errors,
        });
    }
    let outline = Outline::of("", &parsed);
    let same = |a: &crate::lean::Declaration, b: &crate::lean::Declaration| {
        a.kind == b.kind && a.full_name == b.full_name
    };
    if outline.declarations.len() != old_outline.declarations.len()
        || !outline
            .declarations
            .iter()
            .zip(&old_outline.declarations)
            .all(|(a, b)| same(a, b))
    {
        let detail = format!(
            "{} declarations before, {} after",
            old_outline.declarations.len(),
            outline.declarations.len()
        );
        return Err(SpliceError::Restructured { detail });
    }
    let target = &outline.declarations[index];
    if target.span.start > inserted.start || target.span.end < inserted.end {
        return Err(SpliceError::Restructured {
            detail: format!("the proof does not stay inside {}", label(target)),
        });
    }
    Ok(outline)
}

fn position_at(text: &str, byte: usize) -> Position {
    Position {
        line: 1 + text[..byte].matches('\n').count(),
        column: 1 + text::column(text, byte),
    }
}

fn line_count(s: &str) -> usize {
    1 + s.matches('\n').count()
}

/// Why `mf splice` could not splice into a file.
#[derive(Debug, thiserror::Error)]
pub enum FileSpliceError {
    #[error("{0}")]
    Source(#[from] SourceError),
    #[error("{path}: splice refused, file left untouched: {error}")]
    Refused { path: PathBuf, error: SpliceError },
    /// The caller's check refused the result.
    #[error("{path}: splice refused, file left untouched: {reason}")]
    Denied { path: PathBuf, reason: String },
    #[error("{path}: cannot write: {reason}; file left untouched")]
    Write { path: PathBuf, reason: String },
}

/// Splices into the file at `path` and, unless `dry_run`, writes the result: under an
/// advisory lock held from the read to the write, so concurrent splices of one file apply one
/// after the other, and only if the file still holds what was read ([`crate::files`]).
/// Returns the splice and the file's source as it was.
pub fn splice_file(
    path: &Path,
    request: &Splice<'_>,
    dry_run: bool,
) -> Result<(Source, Spliced), FileSpliceError> {
    splice_file_checked(path, request, dry_run, &|_, _| Ok(()))
}

/// [`splice_file`], with `check(old text, new text)` asked before anything is written (under the
/// lock): an `Err` refuses the splice with its reason ([`FileSpliceError::Denied`]).
pub fn splice_file_checked(
    path: &Path,
    request: &Splice<'_>,
    dry_run: bool,
    check: &dyn Fn(&str, &str) -> Result<(), String>,
) -> Result<(Source, Spliced), FileSpliceError> {
    let denied = |reason: String| FileSpliceError::Denied {
        path: path.to_path_buf(),
        reason,
    };
    if dry_run {
        let source = Source::read(path)?;
        let spliced =
            splice_text(&source.text, request).map_err(|error| FileSpliceError::Refused {
                path: path.to_path_buf(),
                error,
            })?;
        check(&source.text, &spliced.text).map_err(denied)?;
        return Ok((source, spliced));
    }
    let write_error = |e: crate::files::FileError| match e {
        crate::files::FileError::Missing { .. } | crate::files::FileError::NotRegular { .. } => {
            FileSpliceError::Source(SourceError::Io {
                path: path.to_path_buf(),
                reason: e.reason(),
            })
        }
        e => FileSpliceError::Write {
            path: path.to_path_buf(),
            reason: e.reason(),
        },
    };
    let locked =
        crate::files::lock(path, crate::lean::source::MAX_SOURCE_BYTES).map_err(write_error)?;
    let source = Source::from_bytes(path, locked.bytes.clone())?;
    let spliced = splice_text(&source.text, request).map_err(|error| FileSpliceError::Refused {
        path: path.to_path_buf(),
        error,
    })?;
    check(&source.text, &spliced.text).map_err(denied)?;
    let mut bytes = Vec::with_capacity(spliced.text.len() + 3);
    if source.had_bom {
        bytes.extend_from_slice("\u{feff}".as_bytes());
    }
    bytes.extend_from_slice(spliced.text.as_bytes());
    locked.replace(path, &bytes).map_err(write_error)?;
    Ok((source, spliced))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &[&str]) -> Vec<String> {
        s.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn whole_proof_forms() {
        let tactic_body = ":= by\n  sorry";
        let (body, form) = whole_proof(lines(&["simp", "ring"]), tactic_body);
        assert_eq!(
            (body, form),
            (lines(&[":= by", "  simp", "  ring"]), ProofForm::Tactics)
        );
        let (body, form) = whole_proof(lines(&["by", "  simp"]), tactic_body);
        assert_eq!((body, form), (lines(&[":= by", "  simp"]), ProofForm::Term));
        let (body, form) = whole_proof(lines(&["rfl"]), ":= sorry");
        assert_eq!((body, form), (lines(&[":= rfl"]), ProofForm::Term));
        let (body, form) = whole_proof(lines(&["| 0 => 1", "| _ => 2"]), tactic_body);
        assert_eq!(form, ProofForm::Body);
        assert_eq!(body, lines(&["| 0 => 1", "| _ => 2"]));
        let (_, form) = whole_proof(lines(&["where", "  x := 1"]), ":= sorry");
        assert_eq!(form, ProofForm::Body);
        // `byContra` is a word of its own, not `by`.
        let (body, form) = whole_proof(lines(&["byContra h"]), tactic_body);
        assert_eq!(
            (body, form),
            (lines(&[":= by", "  byContra h"]), ProofForm::Tactics)
        );
    }

    #[test]
    fn a_refusing_check_leaves_the_file_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("A.lean");
        let text = "theorem a : True := by\n  sorry\n";
        std::fs::write(&path, text).unwrap();
        let request = Splice {
            declaration: "a",
            proof: "trivial",
            hole: None,
            allow_sorry: false,
        };
        let seen = std::cell::RefCell::new(None);
        let check = |before: &str, after: &str| {
            *seen.borrow_mut() = Some((before.to_string(), after.to_string()));
            Err("no, by policy".to_string())
        };
        for dry_run in [true, false] {
            let e = splice_file_checked(&path, &request, dry_run, &check).unwrap_err();
            assert!(matches!(e, FileSpliceError::Denied { .. }), "{e}");
            assert!(
                e.to_string()
                    .ends_with("file left untouched: no, by policy"),
                "{e}"
            );
            assert_eq!(
                seen.borrow().clone().unwrap(),
                (
                    text.to_string(),
                    "theorem a : True := by\n  trivial\n".to_string()
                )
            );
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
    }

    #[test]
    fn gutting_a_complete_proof_needs_allow_sorry() {
        let text = "theorem a : True := by\n  trivial\n";
        let request = |allow_sorry| Splice {
            declaration: "a",
            proof: "sorry",
            hole: None,
            allow_sorry,
        };
        let e = splice_text(text, &request(false)).unwrap_err();
        assert!(matches!(e, SpliceError::Gutted { .. }), "{e}");
        assert!(
            e.to_string().starts_with("theorem a has a complete proof"),
            "{e}"
        );
        let done = splice_text(text, &request(true)).unwrap();
        assert_eq!(done.text, "theorem a : True := by\n  sorry\n");
        // Replacing a proof that already had a hole by another with a hole is not gutting.
        let holed = "theorem a : True := by\n  sorry\n";
        let again = Splice {
            proof: "exact sorry",
            ..request(false)
        };
        assert!(splice_text(holed, &again).is_ok());
    }

    #[test]
    fn an_axiom_has_no_proof_to_replace() {
        let e = splice_text(
            "axiom a : False\n",
            &Splice {
                declaration: "a",
                proof: "trivial",
                hole: None,
                allow_sorry: false,
            },
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "a has no proof to replace (no `:=`, `where` or equations)"
        );
    }

    #[test]
    fn a_proof_that_opens_a_new_declaration_is_refused() {
        let e = splice_text(
            "theorem a : True := sorry\n\ntheorem b : True := trivial\n",
            &Splice {
                declaration: "a",
                proof: "trivial\n\ntheorem c : False := sorry",
                hole: None,
                allow_sorry: false,
            },
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "the proof changes the file's declarations (2 declarations before, 3 after); give only the proof"
        );
    }

    #[test]
    fn the_result_reports_what_was_replaced() {
        let text = "theorem a : True ∧ True := by\r\n  constructor\r\n  · sorry\r\n  · sorry\r\n";
        let done = splice_text(
            text,
            &Splice {
                declaration: "a",
                proof: "trivial",
                hole: Some(2),
                allow_sorry: false,
            },
        )
        .unwrap();
        assert_eq!(
            done.text,
            "theorem a : True ∧ True := by\r\n  constructor\r\n  · sorry\r\n  · trivial\r\n"
        );
        assert_eq!(done.position, Position { line: 4, column: 5 });
        assert_eq!(done.replaced, 65..70);
        assert_eq!(done.inserted, 65..72);
        assert_eq!((done.holes_in_declaration, done.holes_in_file), (1, 1));
        assert_eq!(done.form, ProofForm::Hole);
    }
}
