//! The lemma spec check: the file proves the spec's statement, not a weaker one.
//!
//! A spec is the proof oracle's lemma JSON. Only two fields are read: the name (`lemma_name`
//! or `name`) and the Lean signature (`suggested_signature`, `lean_signature` or
//! `signature`); others are ignored. The signature may be a whole declaration
//! (`theorem foo (n : ℕ) : n + 0 = n`, with or without `:= …`) or only what follows the name
//! (`(n : ℕ) : n + 0 = n`).
//!
//! The statement is compared token by token (the grammar's leaves from after the name up to
//! the `:=`, comments excluded), which is whitespace-insensitive without merging `a b` into
//! `ab`. The declaration must be a `theorem` or `lemma`, and the same text must mean the same
//! statement: Lean must not add section variables to it as hypotheses (see
//! [`super::variables`]), and no notation, macro or instance may be declared before it (a local
//! `instance : LE ℕ := ⟨fun _ _ => True⟩` makes `n + 1 ≤ n` provable). Other changes of context
//! (`open`, options) are not checked.

use std::path::Path;

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use super::{Check, Reason};
use crate::lean::idents::components;
use crate::lean::syntax::tokens;
use crate::lean::{Outline, ParsedFile};

/// Declaration keywords a proved lemma may use.
const PROOF_KINDS: &[&str] = &["theorem", "lemma"];

/// A lemma spec: the name to find and the statement it must have.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Spec {
    #[serde(alias = "lemma_name")]
    pub name: String,
    #[serde(alias = "suggested_signature", alias = "lean_signature")]
    pub signature: String,
}

/// Why a spec file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    #[error("{path}: cannot read spec: {reason}")]
    Read { path: String, reason: String },
    #[error("{path}: not a lemma spec: {reason}")]
    Invalid { path: String, reason: String },
}

/// A spec is one lemma's name and signature; anything larger is not one.
const MAX_SPEC_BYTES: u64 = 1024 * 1024;

impl Spec {
    /// Reads a spec JSON file (a regular file of at most 1 MiB).
    pub fn load(path: &Path) -> Result<Spec, SpecError> {
        let shown = path.display().to_string();
        let bytes =
            crate::files::read_regular(path, MAX_SPEC_BYTES).map_err(|e| SpecError::Read {
                path: shown.clone(),
                reason: e.reason(),
            })?;
        let spec: Spec = serde_json::from_slice(&bytes).map_err(|e| SpecError::Invalid {
            path: shown.clone(),
            reason: e.to_string(),
        })?;
        if spec.name.trim().is_empty() || spec.signature.trim().is_empty() {
            return Err(SpecError::Invalid {
                path: shown,
                reason: "the name and the signature must not be empty".into(),
            });
        }
        Ok(spec)
    }
}

/// What the spec check found.
#[derive(Debug, Clone, Serialize)]
pub struct SpecCheck {
    /// The spec's name.
    pub name: String,
    /// Full name of the declaration found for it.
    pub declaration: Option<String>,
    pub line: Option<usize>,
    /// The spec's statement, tokens joined by single spaces.
    pub expected: Option<String>,
    /// The declaration's statement, the same way.
    pub found: Option<String>,
    /// Whether the declaration exists and states exactly the spec's statement.
    pub matches: bool,
}

/// Checks `file` (whose outline is `outline`) against `spec`; every problem becomes a reason.
pub fn check(spec: &Spec, file: &ParsedFile, outline: &Outline) -> (SpecCheck, Vec<Reason>) {
    let mut result = SpecCheck {
        name: spec.name.clone(),
        declaration: None,
        line: None,
        expected: None,
        found: None,
        matches: false,
    };
    let mut reasons = Vec::new();
    let mut fail = |line: Option<usize>, message: String| {
        reasons.push(Reason {
            check: Check::Spec,
            message,
            line,
            column: None,
        })
    };

    let expected = spec_statement(spec);
    result.expected = expected.clone();
    if expected.is_none() {
        fail(
            None,
            format!(
                "the spec's signature for `{}` is not a Lean statement mf can read",
                spec.name
            ),
        );
    }

    // The exact full name if the file declares it, else any name that ends with the spec's
    // (`foo` is `Ns.foo` inside `namespace Ns`).
    let name = spec.name.trim();
    let wanted = components(name);
    let mut found: Vec<_> = outline
        .declarations
        .iter()
        .filter(|d| d.full_name == name)
        .collect();
    if found.is_empty() {
        found = outline
            .declarations
            .iter()
            .filter(|d| components(&d.full_name).ends_with(&wanted))
            .collect();
    }
    let decl = match found.as_slice() {
        [] => {
            fail(
                None,
                format!("no declaration named `{}` in the file", spec.name),
            );
            return (result, reasons);
        }
        [one] => *one,
        [first, ..] => {
            let lines: Vec<String> = found.iter().map(|d| d.line.to_string()).collect();
            fail(
                Some(first.line),
                format!(
                    "`{}` is declared {} times (lines {})",
                    spec.name,
                    found.len(),
                    lines.join(", ")
                ),
            );
            return (result, reasons);
        }
    };
    result.declaration = Some(decl.full_name.clone());
    result.line = Some(decl.line);

    if !PROOF_KINDS.contains(&decl.kind.as_str()) {
        fail(
            Some(decl.line),
            format!(
                "`{}` is a `{}`, not a theorem or lemma",
                decl.full_name, decl.kind
            ),
        );
    }
    let Some(node) = declaration_node(file, decl.span.start, decl.span.end) else {
        fail(
            Some(decl.line),
            "cannot locate the declaration in the tree".into(),
        );
        return (result, reasons);
    };
    let found_statement = statement(file, node);
    result.found = found_statement.clone();
    if let (Some(expected), Some(found)) = (&expected, &found_statement) {
        if expected != found {
            fail(
                Some(decl.line),
                format!(
                    "the statement of `{}` differs from the spec:\n  spec: {expected}\n  file: {found}",
                    decl.full_name
                ),
            );
        }
    }
    for added in super::variables::added_hypotheses(file, node) {
        fail(
            Some(added.line),
            format!(
                "`{}` (line {}) would become a hypothesis of `{}`, so Lean would check a weaker \
                 statement than the text shows; state the theorem without section variables",
                added.text, added.line, decl.full_name
            ),
        );
    }
    for (line, text) in meaning_changers(file, node) {
        fail(
            Some(line),
            format!(
                "`{text}` (line {line}) can change what the statement of `{}` means without \
                 changing its text; the spec check cannot vouch for it",
                decl.full_name
            ),
        );
    }
    result.matches = reasons.is_empty();
    (result, reasons)
}

/// The spec's statement as tokens, or `None` when its signature does not parse.
fn spec_statement(spec: &Spec) -> Option<String> {
    let sig = spec.signature.trim();
    let as_written = sig.to_string();
    let after_name = format!("theorem {} {sig}", spec.name.trim());
    for text in [as_written, after_name] {
        for suffix in ["", "\n:= sorry"] {
            let parsed = ParsedFile::parse(format!("{text}{suffix}"));
            if parsed.error_count() > 0 {
                continue;
            }
            let root = parsed.root();
            let mut cursor = root.walk();
            let first = root
                .named_children(&mut cursor)
                .find(|n| n.kind() == "declaration");
            if let Some(decl) = first {
                let complete = decl.child_by_field_name("kind").is_some()
                    && decl.child_by_field_name("name").is_some()
                    && decl.child_by_field_name("body").is_some();
                if complete {
                    return statement(&parsed, decl);
                }
            }
        }
    }
    None
}

/// The tokens between a declaration's name and its body, joined by single spaces.
fn statement(file: &ParsedFile, decl: Node<'_>) -> Option<String> {
    let name = decl.child_by_field_name("name")?;
    let end = decl
        .child_by_field_name("body")
        .map_or(decl.end_byte(), |b| b.start_byte());
    let words: Vec<&str> = tokens(decl)
        .into_iter()
        .filter(|t| t.start_byte() >= name.end_byte() && t.end_byte() <= end)
        .map(|t| file.text_of(t))
        .collect();
    Some(words.join(" "))
}

/// The `declaration` node spanning exactly `start..end`.
fn declaration_node(file: &ParsedFile, start: usize, end: usize) -> Option<Node<'_>> {
    let mut node = file.root().descendant_for_byte_range(start, end)?;
    loop {
        if node.kind() == "declaration" && node.byte_range() == (start..end) {
            return Some(node);
        }
        node = node.parent()?;
    }
}

/// Commands before `decl` that can change what its statement means while its text stays the
/// same: notation, macros and other syntax extensions, and instances (`instance`,
/// `@[instance]`, `attribute [instance]`). Line and first line of text of each.
fn meaning_changers(file: &ParsedFile, decl: Node<'_>) -> Vec<(usize, String)> {
    let is_instance_attribute =
        |a: Node<'_>| file.text_of(a).split_whitespace().any(|w| w == "instance");
    let has_instance_attribute = |n: Node<'_>| {
        let mut cursor = n.walk();
        let attributes: Vec<Node<'_>> = match n.kind() {
            "attribute_command" => n.named_children(&mut cursor).collect(),
            _ => n
                .child_by_field_name("attributes")
                .map(|a| a.named_children(&mut cursor).collect())
                .unwrap_or_default(),
        };
        attributes
            .into_iter()
            .any(|a| a.kind() == "attribute" && is_instance_attribute(a))
    };
    let mut found = Vec::new();
    let mut cursor = file.root().walk();
    crate::lean::outline::for_each_descendant(&mut cursor, |n| {
        if n.end_byte() > decl.start_byte() {
            return;
        }
        let changes = match n.kind() {
            "syntax_command" => true,
            "declaration" => {
                n.child_by_field_name("kind")
                    .is_some_and(|k| file.text_of(k) == "instance")
                    || has_instance_attribute(n)
            }
            "attribute_command" => has_instance_attribute(n),
            _ => false,
        };
        if changes {
            let first = file.text_of(n).lines().next().unwrap_or("");
            let mut text = crate::lean::outline::collapse_whitespace(first);
            if text.chars().count() > 60 {
                text = text.chars().take(59).collect::<String>() + "…";
            }
            found.push((n.start_position().row + 1, text));
        }
    });
    found
}
