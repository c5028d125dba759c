//! Aristotle's verdicts: the comments it writes above declarations it could not prove.
//!
//! ```text
//! /- Aristotle failed to find a proof. -/
//! /- Aristotle found this block to be false. Here is a proof of the negation: … -/
//! /- Aristotle failed to load this code into its environment. … (Lean's error) -/
//! /- Aristotle took a wrong turn (reason code: 9). … -/
//! /- Aristotle ran out of time. -/
//! ```

use std::ops::Range;

use crate::lean::outline::{code_text, CommentKind, Outline};

/// What Aristotle said about a declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VerdictKind {
    /// "failed to find a proof".
    NoProof,
    /// "found this block to be false"; the comment carries the negation and its proof.
    False { negation: String },
    /// "failed to load this code into its environment"; the comment carries Lean's error.
    LoadFailure { lean_error: String },
    /// "took a wrong turn", with the reason code when given.
    WrongTurn { reason_code: Option<u32> },
    /// "ran out of time".
    OutOfTime,
}

/// A verdict comment and the declaration it is about.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub kind: VerdictKind,
    /// Byte range of the comment.
    pub span: Range<usize>,
    /// Index into `outline.declarations`: the declaration the comment sits in, else the next one.
    pub declaration: Option<usize>,
}

const PREFIX: &str = "/- Aristotle ";

/// Whether Aristotle loaded the code up to byte `at`: no verdict before it says it "failed to
/// load this code", and none says so of the file as a whole. Lean elaborates in order, so a
/// declaration is checked in the environment of the code before it; what comes after a load
/// failure was checked against code Lean did not accept (an unknown name becomes an
/// auto-bound variable), so a proof or disproof there is no evidence about the statement as
/// written.
pub fn loaded_before(verdicts: &[Verdict], at: usize) -> bool {
    !verdicts.iter().any(|v| {
        matches!(v.kind, VerdictKind::LoadFailure { .. })
            && (v.declaration.is_none() || v.span.start < at)
    })
}

/// Every verdict comment of a file, attached to its declaration. A verdict repeated for the
/// same declaration (a file that went through Aristotle twice keeps both comments) is kept
/// once: it is one fact, not two.
pub fn verdicts(text: &str, outline: &Outline) -> Vec<Verdict> {
    let mut found: Vec<Verdict> = Vec::new();
    for c in outline
        .comments
        .iter()
        .filter(|c| c.kind == CommentKind::Block)
    {
        let Some(kind) = text.get(c.span.clone()).and_then(classify) else {
            continue;
        };
        let declaration = attach(outline, text, &c.span);
        if found
            .iter()
            .any(|v| v.declaration == declaration && v.kind == kind)
        {
            continue;
        }
        found.push(Verdict {
            kind,
            declaration,
            span: c.span.clone(),
        });
    }
    found
}

/// The declaration a verdict is about: the one it sits in, else the next one, provided only
/// comments and `set_option … in` / `open … in` prefixes come between. A verdict followed by
/// other commands (`set_option …`, `open …`, `variable …`) is about the file, as Aristotle's
/// "Unexpected axioms were added during verification" is.
fn attach(outline: &Outline, text: &str, span: &Range<usize>) -> Option<usize> {
    let decls = &outline.declarations;
    if let Some(inside) = decls
        .iter()
        .position(|d| d.span.start <= span.start && span.end <= d.span.end)
    {
        return Some(inside);
    }
    let next = decls.iter().position(|d| d.span.start >= span.end)?;
    let between = span.end..decls[next].span.start;
    let comments = outline
        .comments
        .iter()
        .map(|c| c.span.clone())
        .filter(|c| between.start <= c.start && c.end <= between.end);
    only_declaration_prefixes(&code_text(text, between.clone(), comments)).then_some(next)
}

/// Whether `code` is nothing but prefixes that belong to the declaration after them.
fn only_declaration_prefixes(code: &str) -> bool {
    let mut words = code.split_whitespace();
    while let Some(first) = words.next() {
        if first != "set_option" && first != "open" {
            return false;
        }
        if !words.by_ref().any(|w| w == "in") {
            return false;
        }
    }
    true
}

/// Reads a block comment's text (delimiters included); `None` unless it is a verdict.
pub fn classify(comment: &str) -> Option<VerdictKind> {
    let rest = comment.strip_prefix(PREFIX)?;
    let inner = rest.strip_suffix("-/").unwrap_or(rest);
    let (first_line, after) = inner.split_once('\n').unwrap_or((inner, ""));
    let after = after.trim().to_string();
    if first_line.starts_with("failed to find a proof") {
        Some(VerdictKind::NoProof)
    } else if first_line.starts_with("found this block to be false") {
        Some(VerdictKind::False { negation: after })
    } else if first_line.starts_with("failed to load this code") {
        Some(VerdictKind::LoadFailure { lean_error: after })
    } else if let Some(r) = first_line.strip_prefix("took a wrong turn") {
        let reason_code = r
            .split_once("reason code:")
            .and_then(|(_, n)| n.trim_start().split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse().ok());
        Some(VerdictKind::WrongTurn { reason_code })
    } else if first_line.starts_with("ran out of time") {
        Some(VerdictKind::OutOfTime)
    } else {
        None
    }
}

impl VerdictKind {
    /// Short human description, used in finding titles and `why_failed`.
    pub fn summary(&self) -> String {
        match self {
            VerdictKind::NoProof => "Aristotle failed to find a proof".into(),
            VerdictKind::False { .. } => "Aristotle found this statement to be false".into(),
            VerdictKind::LoadFailure { .. } => "Aristotle failed to load this code".into(),
            VerdictKind::WrongTurn {
                reason_code: Some(c),
            } => {
                format!("Aristotle took a wrong turn (reason code {c})")
            }
            VerdictKind::WrongTurn { reason_code: None } => "Aristotle took a wrong turn".into(),
            VerdictKind::OutOfTime => "Aristotle ran out of time".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_each_verdict() {
        assert_eq!(
            classify("/- Aristotle failed to find a proof. -/"),
            Some(VerdictKind::NoProof)
        );
        assert_eq!(
            classify("/- Aristotle ran out of time. -/"),
            Some(VerdictKind::OutOfTime)
        );
        assert_eq!(
            classify("/- Aristotle took a wrong turn (reason code: 9). Please try again. -/"),
            Some(VerdictKind::WrongTurn {
                reason_code: Some(9)
            })
        );
        assert_eq!(
            classify(
                "/- Aristotle failed to load this code into its environment. Double check.\n\n\
                 Unknown identifier `foo`\n-/"
            ),
            Some(VerdictKind::LoadFailure {
                lean_error: "Unknown identifier `foo`".into()
            })
        );
        let negation =
            "/- Aristotle found this block to be false. Here is a proof of the negation:\n\n\
                        theorem neg : ¬ P := by\n  decide\n-/";
        assert_eq!(
            classify(negation),
            Some(VerdictKind::False {
                negation: "theorem neg : ¬ P := by\n  decide".into()
            })
        );
    }

    fn outline_of(text: &str) -> Outline {
        Outline::of("", &crate::lean::ParsedFile::parse(text.to_string()))
    }

    #[test]
    fn a_verdict_is_about_the_declaration_after_it_or_about_the_file() {
        let text = "/- Aristotle failed to find a proof. -/\n\
                    /- A note of the author. -/\n\
                    set_option maxHeartbeats 400000 in\n\
                    theorem a : True := by\n  sorry\n\n\
                    /- Aristotle failed to load this code into its environment. Double check.\n\n\
                    Unexpected axioms were added during verification: ['ax']-/\n\
                    set_option maxHeartbeats 400000\n\n\
                    open Finset\n\n\
                    theorem b : True := trivial\n";
        let outline = outline_of(text);
        let found = verdicts(text, &outline);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].declaration, Some(0));
        assert_eq!(found[1].declaration, None);
    }

    #[test]
    fn other_comments_are_not_verdicts() {
        assert_eq!(classify("/- Aristotle was helpful here -/"), None);
        assert_eq!(classify("/-- Aristotle failed to find a proof. -/"), None);
        assert_eq!(classify("-- Aristotle failed to find a proof."), None);
    }
}
