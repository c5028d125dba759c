//! Turning one file's outline and Aristotle's verdicts into knowledge-base findings.
//!
//! The rules are the spec's extractor's (a finding per proven theorem/lemma, a technique
//! finding for a sorry-free file, a failure finding for a file with more than 2 sorries, the
//! problem row upserted), read from the syntax tree, plus findings for Aristotle's verdicts.

use std::collections::BTreeMap;

use crate::kb::{Confidence, FindingType, NewFinding, ProblemStatus, ProblemUpsert};
use crate::lean::{Declaration, Outline};

use super::technique;
use super::verdict::{Verdict, VerdictKind};

/// More sorries than this and the spec calls the attempt a failure.
const FAILED_FILE_SORRIES: usize = 2;
/// Imports listed in a finding (`import Mathlib` alone is the common case).
const IMPORTS_LISTED: usize = 10;
/// How much of a statement goes into a description.
const DESCRIPTION_STATEMENT_CHARS: usize = 200;
/// Disproofs and Lean errors are kept whole up to this size.
const MAX_EVIDENCE_CHARS: usize = 8000;

/// What the findings generator needs to know about the file besides its outline.
pub struct FileFacts<'a> {
    pub text: &'a str,
    pub file_name: &'a str,
    pub slot: Option<i64>,
    pub problem_id: Option<&'a str>,
    pub domain: &'static str,
    pub verdicts: &'a [Verdict],
}

/// The findings of a file and the problem row it updates.
pub fn generate(
    outline: &Outline,
    facts: &FileFacts<'_>,
) -> (Vec<NewFinding>, Option<ProblemUpsert>) {
    let sorries = outline.sorry_count();
    let axioms = outline.axioms.len();
    let load_failures = facts
        .verdicts
        .iter()
        .filter(|v| matches!(v.kind, VerdictKind::LoadFailure { .. }))
        .count();
    // Verified means nothing in the file could hide a gap: no hole, no axiom, no code Aristotle
    // could not load, and a tree without errors (an error could hide a `sorry`).
    let is_proven = sorries == 0 && axioms == 0 && load_failures == 0 && outline.error_nodes == 0;
    let imports = outline
        .imports
        .iter()
        .take(IMPORTS_LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    let imports = (!imports.is_empty()).then_some(imports);
    let origin = match facts.slot {
        Some(slot) => format!("slot{slot}"),
        None => facts.file_name.to_string(),
    };
    let base = NewFinding {
        domain_id: Some(facts.domain.to_string()),
        problem_id: facts.problem_id.map(str::to_string),
        source_slot: facts.slot,
        mathlib_imports: imports,
        ..NewFinding::default()
    };

    let mut findings = Vec::new();
    let mut proven_tactics = BTreeMap::new();
    for (index, decl) in outline.declarations.iter().enumerate() {
        let judged = facts.verdicts.iter().any(|v| v.declaration == Some(index));
        if !is_provable(decl) || decl.sorry_count > 0 || judged {
            continue;
        }
        technique::merge(&mut proven_tactics, &decl.tactics);
        let technique = technique::primary(&decl.tactics).or_else(|| {
            decl.tactics
                .is_empty()
                .then(|| "term-mode proof".to_string())
        });
        findings.push(NewFinding {
            finding_type: FindingType::Theorem,
            title: format!("{} ({})", display_name(decl), decl.kind),
            description: format!(
                "Proven {} from {origin}: {}",
                decl.kind,
                truncate(&decl.statement, DESCRIPTION_STATEMENT_CHARS)
            ),
            theorem_name: Some(display_name(decl).to_string()),
            theorem_statement: Some(decl.statement.clone()),
            proof_technique: technique,
            proof_lines: Some((decl.end_line + 1 - decl.line) as i64),
            confidence: if is_proven {
                Confidence::Verified
            } else {
                Confidence::Medium
            },
            tags: Some(facts.domain.to_string()),
            // The spec's near-miss view reads the file's hole count from here.
            notes: (!is_proven).then(|| format!("sorry={sorries}")),
            ..base.clone()
        });
    }

    let file_technique = technique::primary(&proven_tactics);
    if is_proven {
        if let Some(technique) = &file_technique {
            let tactic_names: Vec<&str> = proven_tactics.keys().map(String::as_str).collect();
            findings.push(NewFinding {
                finding_type: FindingType::Technique,
                title: format!("Technique: {technique} ({origin})"),
                description: format!(
                    "Proof technique '{technique}' used successfully in {origin} for problem {}. \
                     Tactics: {}. Key imports: {}.",
                    facts.problem_id.unwrap_or("(unknown)"),
                    tactic_names.join(", "),
                    outline
                        .imports
                        .iter()
                        .take(5)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                proof_technique: Some(technique.clone()),
                proof_lines: Some(facts.text.lines().count() as i64),
                confidence: Confidence::Verified,
                tags: Some(format!("{},technique", facts.domain)),
                ..base.clone()
            });
        }
    }

    if sorries > FAILED_FILE_SORRIES {
        findings.push(NewFinding {
            finding_type: FindingType::Failure,
            title: format!("Failed attempt: {origin} ({sorries} sorry)"),
            description: format!(
                "Aristotle attempt on {} in {origin} resulted in {sorries} sorry gaps out of {} declarations.",
                facts.problem_id.unwrap_or("(unknown problem)"),
                outline.declarations.len()
            ),
            why_failed: Some(format!("{sorries} sorry remaining")),
            confidence: Confidence::High,
            tags: Some(format!("{},failure", facts.domain)),
            ..base.clone()
        });
    }

    for verdict in facts.verdicts {
        let decl = verdict.declaration.map(|i| &outline.declarations[i]);
        findings.push(verdict_finding(verdict, decl, &origin, facts.domain, &base));
    }

    let problem = facts.problem_id.map(|id| ProblemUpsert {
        id: id.to_string(),
        domain_id: Some(facts.domain.to_string()),
        status: Some(if sorries > FAILED_FILE_SORRIES {
            ProblemStatus::Open
        } else if is_proven {
            ProblemStatus::Proven
        } else {
            ProblemStatus::Partial
        }),
        ..ProblemUpsert::default()
    });
    (findings, problem)
}

fn verdict_finding(
    verdict: &Verdict,
    decl: Option<&Declaration>,
    origin: &str,
    domain: &str,
    base: &NewFinding,
) -> NewFinding {
    let name = decl.map(display_name).unwrap_or("(code)");
    let theorem_name = decl.map(|d| display_name(d).to_string());
    let theorem_statement = decl.map(|d| d.statement.clone());
    match &verdict.kind {
        VerdictKind::False { negation } => {
            let negation_statement = negation_statement(negation);
            NewFinding {
                finding_type: FindingType::FalseLemma,
                title: format!("False: {name} ({origin})"),
                description: format!(
                    "Aristotle proved the negation of {name}: {}{}",
                    decl.map_or("", |d| d.statement.as_str()),
                    negation_statement
                        .as_deref()
                        .map(|s| format!(". Negation: {s}"))
                        .unwrap_or_default()
                ),
                theorem_name,
                theorem_statement,
                counterexample: Some(truncate(negation, MAX_EVIDENCE_CHARS)),
                why_failed: Some("the statement is false: Aristotle proved its negation".into()),
                avoid_pattern: Some(format!("Do not try to prove {name}; it is false as stated")),
                confidence: Confidence::Disproven,
                tags: Some(format!("{domain},false_lemma,aristotle")),
                ..base.clone()
            }
        }
        kind => {
            let why = match kind {
                VerdictKind::LoadFailure { lean_error } if !lean_error.is_empty() => {
                    format!(
                        "{}: {}",
                        kind.summary(),
                        truncate(lean_error, MAX_EVIDENCE_CHARS)
                    )
                }
                _ => kind.summary(),
            };
            NewFinding {
                finding_type: FindingType::Failure,
                title: format!("{}: {name} ({origin})", kind.summary()),
                description: format!(
                    "{} for {name} in {origin}{}",
                    kind.summary(),
                    decl.map(|d| format!(
                        ": {}",
                        truncate(&d.statement, DESCRIPTION_STATEMENT_CHARS)
                    ))
                    .unwrap_or_default()
                ),
                theorem_name,
                theorem_statement,
                why_failed: Some(why),
                confidence: Confidence::High,
                tags: Some(format!("{domain},failure,aristotle")),
                ..base.clone()
            }
        }
    }
}

/// The statement of the last theorem in a disproof: Aristotle states the negation last,
/// after whatever counterexample definitions it needs.
fn negation_statement(negation: &str) -> Option<String> {
    let parsed = crate::lean::ParsedFile::parse(negation.to_string());
    let outline = Outline::of("", &parsed);
    outline
        .declarations
        .iter()
        .rev()
        .find(|d| is_provable(d))
        .map(|d| d.statement.clone())
}

fn is_provable(decl: &Declaration) -> bool {
    matches!(decl.kind.as_str(), "theorem" | "lemma") && decl.has_body()
}

fn display_name(decl: &Declaration) -> &str {
    if decl.full_name.is_empty() {
        &decl.name
    } else {
        &decl.full_name
    }
}

fn truncate(s: &str, max_chars: usize) -> String {
    match s.char_indices().nth(max_chars) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}
