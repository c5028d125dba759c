//! Turning one file's outline and Aristotle's verdicts into knowledge-base findings.
//!
//! The rules are the spec's extractor's (a finding per proven theorem/lemma, a technique
//! finding for a sorry-free file, a failure finding for a file with more than 2 sorries, the
//! problem row upserted), read from the syntax tree, plus findings for Aristotle's verdicts,
//! bounded by what the file's [`Origin`] lets it claim:
//!
//! - a theorem is `verified` only in a finished Aristotle output that compiled clean; in an
//!   output that stopped early (budget reached) it is `high` at most, elsewhere `medium` at
//!   most; one that rests on an incomplete lemma of the file is *conditional*: confidence
//!   `low`, its title says `conditional on LEMMA` and its notes start `conditional; waits on:`
//!   with every lemma it waits on and why (the schema's confidence values are fixed by a CHECK
//!   constraint, so the fact lives in the title and notes);
//! - only attempts yield failures; an input yields what was asked (its holes) instead;
//! - a problem is `proven` only by a clean, finished output with at least one verified theorem
//!   (an empty file proves nothing); a file that attempts nothing leaves the status alone.

use std::collections::BTreeMap;

use crate::kb::{
    Confidence, FindingType, NewFinding, ProblemStatus, ProblemUpsert, StatementRecord,
};
use crate::lean::depends::Dependencies;
use crate::lean::{Declaration, Outline};

use super::origin::Origin;
use super::statements::{self, is_variant};
use super::technique;
use super::verdict::{Verdict, VerdictKind};

/// The technique of a proof that names neither a lemma nor a tactic.
const TERM_MODE: &str = "term-mode proof";

/// The label used most often; on a tie the latest (closest to the main proof).
fn most_common<'a>(labels: impl Iterator<Item = &'a str>) -> Option<String> {
    let labels: Vec<&str> = labels.collect();
    // From the last: on a tie the first seen is the latest.
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for label in labels.into_iter().rev() {
        match counts.iter_mut().find(|(l, _)| *l == label) {
            Some((_, n)) => *n += 1,
            None => counts.push((label, 1)),
        }
    }
    let mut best: Option<(&str, usize)> = None;
    for (label, n) in counts {
        if best.is_none_or(|(_, b)| n > b) {
            best = Some((label, n));
        }
    }
    best.map(|(l, _)| l.to_string())
}

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
    /// The file's own domain, when its evidence says one ([`super::domain::infer`]).
    pub domain: Option<&'static str>,
    pub verdicts: &'a [Verdict],
    /// What kind of file it is: what its findings may claim.
    pub origin: Origin,
    /// Which declarations rest on an incomplete one of the file.
    pub dependencies: &'a Dependencies,
    /// Uses and spine of each declaration's proof, by index (empty when not computed).
    pub proofs: &'a [super::uses::Proof],
    /// Digest of the same-file definitions each declaration's statement names, by index
    /// ([`super::definitions::digests`]; empty when not computed).
    pub definitions: &'a [Option<String>],
    /// In a collection, the claims named after a problem other than the file's own, by
    /// declaration index ([`crate::problem::Identity::stated`]): their facts, holes and
    /// statements are that problem's.
    pub stated: &'a [(usize, String)],
    /// The claims that state a case of the file's problem, by declaration index
    /// ([`crate::problem::Context::states_case_of`]): variants of it, never its statement.
    pub cases: &'a [usize],
}

impl FileFacts<'_> {
    /// The problem declaration `index` is about when it is not the file's.
    fn stated_problem(&self, index: usize) -> Option<&str> {
        self.stated
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, id)| id.as_str())
    }

    /// The problem of declaration `index`: the one it states in a collection, else the
    /// file's.
    fn problem_of(&self, index: usize) -> Option<String> {
        self.stated_problem(index)
            .or(self.problem_id)
            .map(str::to_string)
    }
}

/// How the title of the file-level failure of an attempt (too many holes) begins: the one
/// failure that carries the attempt's approach.
pub const FILE_FAILURE: &str = "Failed attempt: ";

/// The word that marks a conditional theorem in its title and notes.
pub const CONDITIONAL: &str = "conditional";

/// How a waited-on lemma the same file disproves is named in notes.
pub const DISPROVED: &str = "disproved";

/// Holes listed by name in an input's "what was asked" finding.
const HOLES_LISTED: usize = 20;

/// `waits on: a (sorry), b (disproved)[, …]`: the lemmas a conditional proof rests on, a
/// lemma the same file disproves (`disproved`, by index) said so.
fn waits_note(deps: &Dependencies, index: usize, disproved: &[usize]) -> Option<String> {
    let waits = deps.waits(index)?;
    let mut note = waits
        .on
        .iter()
        .zip(deps.waits_on(index))
        .map(|(j, (name, gap))| {
            let why = if disproved.contains(j) {
                DISPROVED
            } else {
                gap.as_str()
            };
            format!("{name} ({why})")
        })
        .collect::<Vec<_>>()
        .join(", ");
    if waits.more {
        note.push_str(", …");
    }
    Some(format!("waits on: {note}"))
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
    // Aristotle could not process the file at all: Lean rejected it, nothing in it was checked.
    let processing_error = outline
        .header
        .as_ref()
        .and_then(|h| h.processing_error.as_deref());
    // Aristotle met an error of its own and gave no Lean errors: Lean did not reject the file,
    // but nothing in it was checked (an unchecked attempt).
    let internal_error = outline
        .header
        .as_ref()
        .and_then(|h| h.internal_error.as_deref());
    // Verified means nothing in the file could hide a gap: no hole, no axiom, no code Aristotle
    // could not load or process, and a tree without errors (an error could hide a `sorry`).
    let is_proven = sorries == 0
        && axioms == 0
        && load_failures == 0
        && processing_error.is_none()
        && internal_error.is_none()
        && outline.error_nodes == 0;
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
        domain_id: facts.domain.map(str::to_string),
        problem_id: facts.problem_id.map(str::to_string),
        source_slot: facts.slot,
        mathlib_imports: imports,
        ..NewFinding::default()
    };

    let mut findings = Vec::new();
    let mut proven_tactics = BTreeMap::new();
    let mut verified_theorems = 0usize;
    // Aristotle compiled the file (it may have stopped early, or left holes elsewhere; or it is
    // a file of the project Aristotle built and returned), so a sorry-free theorem that rests
    // on no hole was checked.
    let compiled = facts.origin.is_attempt()
        && load_failures == 0
        && processing_error.is_none()
        && internal_error.is_none()
        && outline.error_nodes == 0;
    let disproved = statements::disproved(facts.verdicts);
    // The file calls what it states open: a finite check in it settles no open question.
    let open_in_words = statements::calls_itself_open(outline, facts.text);
    for (index, decl) in outline.declarations.iter().enumerate() {
        let judged = facts.verdicts.iter().any(|v| v.declaration == Some(index));
        // Lean rejected the file Aristotle returned: a declaration in it may not even
        // elaborate, so it is no theorem (the failure finding says what happened).
        if !is_provable(decl) || decl.sorry_count > 0 || judged || processing_error.is_some() {
            continue;
        }
        let waits = waits_note(facts.dependencies, index, &disproved);
        let waited = facts.dependencies.waits_on(index);
        // The lemma named in the title: one the file disproves first, else the first.
        let conditional_on = facts
            .dependencies
            .waits(index)
            .map(|w| w.on.iter().zip(&waited))
            .and_then(|mut pairs| {
                let all: Vec<_> = pairs.by_ref().collect();
                all.iter()
                    .find(|(j, _)| disproved.contains(j))
                    .or(all.first())
                    .map(|(j, (n, _))| (n.to_string(), disproved.contains(j)))
            });
        let confidence = if waits.is_some() {
            Confidence::Low
        } else if facts.dependencies.gap(index).is_some() {
            // Part of it did not parse: what was not read is not vouched for.
            Confidence::Low
        } else if facts.origin.checked() && is_proven {
            Confidence::Verified
        } else if compiled {
            // Aristotle compiled it, but the file around it is not clean or did not finish.
            Confidence::High
        } else {
            Confidence::Medium
        };
        verified_theorems += usize::from(confidence == Confidence::Verified);
        let bounded = statements::is_bounded_check(decl).then(|| {
            let open = open_in_words || statements::literature_status(decl) == Some("open");
            if open {
                crate::kb::BOUNDED_CHECK_OF_OPEN.to_string()
            } else {
                crate::kb::BOUNDED_CHECK.to_string()
            }
        });
        let notes = [
            waits.map(|w| format!("{CONDITIONAL}; {w}")),
            bounded,
            (!is_proven).then(|| format!("sorry={sorries}")),
            (!facts.origin.checked()).then(|| format!("origin={}", facts.origin.as_str())),
            internal_error.map(|_| "unchecked: aristotle_internal_error".to_string()),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>();
        technique::merge(&mut proven_tactics, &decl.tactics);
        let proof = facts.proofs.get(index);
        let technique = technique::of_declaration(proof, &decl.tactics)
            .or_else(|| decl.tactics.is_empty().then(|| TERM_MODE.to_string()));
        findings.push(NewFinding {
            finding_type: FindingType::Theorem,
            title: match &conditional_on {
                Some((lemma, true)) => format!(
                    "{} ({}, {CONDITIONAL} on {lemma}, which this file disproves)",
                    display_name(decl),
                    decl.kind
                ),
                Some((lemma, false)) => format!(
                    "{} ({}, {CONDITIONAL} on {lemma})",
                    display_name(decl),
                    decl.kind
                ),
                None => format!("{} ({})", display_name(decl), decl.kind),
            },
            description: format!(
                "{} {} from {origin}: {}",
                if conditional_on.is_some() {
                    "Conditionally proven"
                } else {
                    "Proven"
                },
                decl.kind,
                truncate(&decl.statement, DESCRIPTION_STATEMENT_CHARS)
            ),
            theorem_name: Some(display_name(decl).to_string()),
            theorem_statement: Some(decl.statement.clone()),
            proof_technique: technique,
            proof_lines: Some((decl.end_line + 1 - decl.line) as i64),
            confidence,
            tags: facts.domain.map(str::to_string),
            uses: proof.map(|p| p.uses.clone()).unwrap_or_default(),
            definitions: facts.definitions.get(index).cloned().flatten(),
            // The spec's near-miss view reads the file's hole count from here (`sorry=N`).
            notes: (!notes.is_empty()).then(|| notes.join("; ")),
            problem_id: facts.problem_of(index),
            ..base.clone()
        });
    }

    // The file's technique is its main (last) proof's when that is informative, else the most
    // common informative label of its complete proofs (a `native_decide` spine included), else
    // the main proof's generic one; never whatever tactic the file uses most.
    let labels: Vec<&str> = findings
        .iter()
        .filter(|f| f.finding_type == FindingType::Theorem)
        .filter_map(|f| f.proof_technique.as_deref())
        .filter(|t| *t != TERM_MODE)
        .collect();
    let file_technique = findings
        .iter()
        .rev()
        .find(|f| f.finding_type == FindingType::Theorem)
        .and_then(|f| f.proof_technique.clone())
        .filter(|t| !technique::is_generic(t))
        .or_else(|| most_common(labels.iter().copied().filter(|t| !technique::is_generic(t))))
        .or_else(|| most_common(labels.iter().copied()))
        .or_else(|| technique::without_incidental(&proven_tactics));
    // A file proves something only when a checker vouches for it and it holds a theorem.
    let is_proven = is_proven && facts.origin.checked() && verified_theorems > 0;
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
                tags: Some(tags(facts.domain, "technique")),
                ..base.clone()
            });
        }
    }

    if !facts.origin.is_attempt() && sorries > 0 {
        findings.extend(asked(outline, facts, &origin, &base));
    }

    if facts.origin.is_attempt() && sorries > FAILED_FILE_SORRIES {
        findings.push(NewFinding {
            finding_type: FindingType::Failure,
            title: format!("{FILE_FAILURE}{origin} ({sorries} sorry)"),
            description: format!(
                "Aristotle attempt on {} in {origin} resulted in {sorries} sorry gaps out of {} declarations.",
                facts.problem_id.unwrap_or("(unknown problem)"),
                outline.declarations.len()
            ),
            why_failed: Some(format!("{sorries} sorry remaining")),
            confidence: Confidence::High,
            tags: Some(tags(facts.domain, "failure")),
            ..base.clone()
        });
    }

    if let Some(lean_error) = processing_error {
        findings.push(NewFinding {
            finding_type: FindingType::Failure,
            title: format!("Aristotle could not process this file ({origin})"),
            description: format!(
                "Aristotle encountered an error processing {origin} for {}: Lean rejected the \
                 file, so none of its {} declarations was checked.",
                facts.problem_id.unwrap_or("(unknown problem)"),
                outline.declarations.len()
            ),
            why_failed: Some(format!(
                "Aristotle encountered an error processing this file: {}",
                truncate(lean_error, MAX_EVIDENCE_CHARS)
            )),
            confidence: Confidence::High,
            tags: Some(tags(facts.domain, "failure,aristotle")),
            ..base.clone()
        });
    }

    if let Some(words) = internal_error {
        findings.push(NewFinding {
            finding_type: FindingType::Failure,
            title: format!("Aristotle reported an internal error ({origin})"),
            description: format!(
                "Aristotle reported an internal error processing {origin} for {} and gave no \
                 Lean errors: nothing was checked, so none of its {} declarations is verified.",
                facts.problem_id.unwrap_or("(unknown problem)"),
                outline.declarations.len()
            ),
            why_failed: Some(format!(
                "Aristotle reported an internal error and gave no Lean errors (nothing was \
                 checked): {}",
                truncate(words, MAX_EVIDENCE_CHARS)
            )),
            confidence: Confidence::High,
            tags: Some(tags(facts.domain, "failure,aristotle")),
            ..base.clone()
        });
    }

    // A disproof counts only where Lean accepted the code before it: after a load failure (or
    // in a file Aristotle could not process) it refutes what Lean made of broken code, not the
    // statement as written.
    for verdict in facts.verdicts {
        let decl = verdict.declaration.map(|i| &outline.declarations[i]);
        // A verdict about one declaration fails that declaration's own proof, not the file's.
        let technique = verdict.declaration.and_then(|i| {
            technique::of_declaration(facts.proofs.get(i), &outline.declarations[i].tactics)
        });
        let loaded = processing_error.is_none()
            && super::verdict::loaded_before(facts.verdicts, verdict.span.start);
        let mut finding = verdict_finding(verdict, decl, &origin, facts.domain, &base, loaded);
        if finding.finding_type == FindingType::Failure {
            finding.proof_technique = technique;
        }
        if let Some(i) = verdict.declaration {
            finding.problem_id = facts.problem_of(i);
        }
        findings.push(finding);
    }

    let proves_something = findings
        .iter()
        .any(|f| f.finding_type == FindingType::Theorem && f.confidence != Confidence::Low);
    let problem = facts.problem_id.map(|id| ProblemUpsert {
        id: id.to_string(),
        domain_id: facts.domain.map(str::to_string),
        // Only an attempt says anything about the problem's status; an input or an unknown
        // file states or uses it. What it proves says it, never how few holes it left.
        status: facts.origin.is_attempt().then_some(if is_proven {
            ProblemStatus::Proven
        } else if proves_something {
            ProblemStatus::Partial
        } else {
            ProblemStatus::Open
        }),
        statements: stated(outline, facts, id),
        ..ProblemUpsert::default()
    });
    let problem = problem.map(|mut p| {
        // The problem's statement is its main theorem's (never a variant's).
        p.statement = p
            .statements
            .iter()
            .find(|s| !s.variant)
            .map(|s| s.statement.clone());
        p
    });
    (findings, problem)
}

/// What the file states of its problem `problem` ([`statements::of_file`]): an input's main
/// statement follows from what it asks; any other file's from its own words. A claim named
/// after another problem is never a statement of this one: not what it asks (an input's last
/// hole may be the next problem's), nor any other.
fn stated(outline: &Outline, facts: &FileFacts<'_>, problem: &str) -> Vec<StatementRecord> {
    let asking = Asking::of(facts);
    let of_another = |d: &Declaration| {
        crate::problem::evidence::named_after(display_name(d))
            .is_some_and(|id| crate::sql::problem_key(&id) != crate::sql::problem_key(problem))
    };
    let asked = (facts.origin == Origin::Input)
        .then(|| asked_target(outline, &asking))
        .flatten()
        .filter(|t| !of_another(t))
        .and_then(|t| outline.declarations.iter().position(|d| std::ptr::eq(d, t)));
    // A file that asks nothing and attempts nothing (a sketch without a hole, a hand-written
    // file) states the theorem it would ask: found by the same rules among all its theorems.
    // (An output is no evidence of what its sketch asked: it may prove a lemma of a bigger
    // problem the sketch's name names.)
    let sketch = (asked.is_none() && matches!(facts.origin, Origin::Input | Origin::Other))
        .then(|| target_among(outline, &asking, Among::Claims))
        .flatten()
        .and_then(|t| outline.declarations.iter().position(|d| std::ptr::eq(d, t)));
    let named = named_targets(outline, facts.text);
    // `of_file` leaves out the declarations it is given as disproved; the claims this file
    // states of other problems are left out the same way.
    let mut excluded = statements::disproved(facts.verdicts);
    excluded.extend(facts.stated.iter().map(|(i, _)| *i));
    let mut records = statements::of_file(
        outline,
        facts
            .file_name
            .strip_suffix(".lean")
            .unwrap_or(facts.file_name),
        problem,
        asked,
        sketch,
        &named,
        &excluded,
        facts.cases,
    );
    // A main statement's fingerprint: what links problems stating the same mathematics.
    for r in records.iter_mut().filter(|r| !r.variant) {
        r.fingerprint = outline
            .declarations
            .iter()
            .position(|d| display_name(d) == r.theorem_name)
            .and_then(|i| super::fingerprint::of_declaration(outline, facts.text, i));
    }
    records
}

/// The problems a collection states besides its own ([`FileFacts::stated`]), each with its
/// statements: the first claim named after it (not a `.variants.` one) its main statement,
/// the others variants; ranked below what a file about that one problem states
/// ([`COLLECTION_RANK`]). A claim the file disproves states nothing.
pub fn stated_elsewhere(outline: &Outline, facts: &FileFacts<'_>) -> Vec<ProblemUpsert> {
    let disproved = statements::disproved(facts.verdicts);
    let mut out: Vec<ProblemUpsert> = Vec::new();
    for (index, id) in facts.stated {
        let Some(decl) = outline.declarations.get(*index) else {
            continue;
        };
        if disproved.contains(index) {
            continue;
        }
        let at = match out.iter().position(|p| p.id == *id) {
            Some(at) => at,
            None => {
                out.push(ProblemUpsert {
                    id: id.clone(),
                    ..ProblemUpsert::default()
                });
                out.len() - 1
            }
        };
        let problem = &mut out[at];
        let variant = is_variant(decl) || problem.statements.iter().any(|st| !st.variant);
        problem.statements.push(StatementRecord {
            theorem_name: display_name(decl).to_string(),
            statement: decl.statement.clone(),
            variant,
            rank: COLLECTION_RANK,
            literature: statements::literature_status(decl).map(str::to_string),
            fingerprint: (!variant)
                .then(|| super::fingerprint::of_declaration(outline, facts.text, *index))
                .flatten(),
        });
        if !variant {
            problem.statement = Some(decl.statement.clone());
        }
    }
    out
}

/// The rank ([`StatementRecord::rank`]) of a statement a collection gives of one of its
/// problems: below what a file about that problem alone states (0 asked, 1 named by its own
/// words, 2 named after the problem), so such a file's statement is preferred; above a
/// sketch's unnamed main theorem ([`crate::kb::SKETCH_MAIN`]), since it is named after its
/// problem.
pub const COLLECTION_RANK: i64 = 3;

/// What an input asks: its holes, by declaration, as an insight (an input attempts nothing, so
/// its holes are the question, not a failure). In a collection, the holes of the claims it
/// states of other problems are asked of those problems, one insight for each.
fn asked(
    outline: &Outline,
    facts: &FileFacts<'_>,
    origin: &str,
    base: &NewFinding,
) -> Vec<NewFinding> {
    let mut out = Vec::new();
    let holes: Vec<(usize, &Declaration)> = outline
        .declarations
        .iter()
        .enumerate()
        .filter(|(_, d)| d.sorry_count > 0)
        .collect();
    let own: Vec<&Declaration> = holes
        .iter()
        .filter(|(i, _)| facts.stated_problem(*i).is_none())
        .map(|(_, d)| *d)
        .collect();
    if !own.is_empty() {
        let target = asked_target(outline, &Asking::of(facts));
        // A file of one problem asks every hole it has (holes outside any declaration too).
        let count = if facts.stated.is_empty() {
            outline.sorry_count()
        } else {
            own.iter().map(|d| d.sorry_count).sum()
        };
        out.push(asked_finding(
            (&own, count),
            target,
            facts.problem_id,
            facts,
            origin,
            base,
        ));
    }
    let mut others: Vec<(&str, Vec<&Declaration>)> = Vec::new();
    for (i, d) in &holes {
        let Some(problem) = facts.stated_problem(*i) else {
            continue;
        };
        match others.iter_mut().find(|(p, _)| *p == problem) {
            Some((_, ds)) => ds.push(d),
            None => others.push((problem, vec![d])),
        }
    }
    for (problem, holes) in others {
        let count = holes.iter().map(|d| d.sorry_count).sum();
        let last = holes.last().copied();
        let mut finding = asked_finding((&holes, count), last, Some(problem), facts, origin, base);
        finding.problem_id = Some(problem.to_string());
        out.push(finding);
    }
    out
}

/// The insight listing `holes` of an input (`count` holes in all), asked of `problem`, with
/// `target` the theorem it asks.
fn asked_finding(
    (holes, count): (&[&Declaration], usize),
    target: Option<&Declaration>,
    problem: Option<&str>,
    facts: &FileFacts<'_>,
    origin: &str,
    base: &NewFinding,
) -> NewFinding {
    let mut listed = holes
        .iter()
        .take(HOLES_LISTED)
        .map(|d| format!("{} ({} sorry)", display_name(d), d.sorry_count))
        .collect::<Vec<_>>()
        .join(", ");
    if holes.len() > HOLES_LISTED {
        listed.push_str(", …");
    }
    NewFinding {
        finding_type: FindingType::Insight,
        title: format!(
            "Asked: {count} hole{} in {origin}",
            if count == 1 { "" } else { "s" }
        ),
        description: format!(
            "Input for {}: holes to fill: {listed}",
            problem.unwrap_or("(unknown problem)")
        ),
        theorem_name: target
            .or(holes.last().copied())
            .map(|d| display_name(d).to_string()),
        theorem_statement: target.map(|d| d.statement.clone()),
        confidence: Confidence::High,
        tags: Some(tags(facts.domain, "input")),
        notes: Some(format!("origin={}; sorry={count}", facts.origin.as_str())),
        ..base.clone()
    }
}

/// What [`asked_target`] reads besides the outline.
struct Asking<'a> {
    text: &'a str,
    file_name: &'a str,
    /// The problem the file's name gives (`tuza_nu2`).
    problem_id: Option<&'a str>,
    /// Which declarations rest on incomplete ones (the file's holes).
    dependencies: Option<&'a Dependencies>,
    /// Aristotle's verdicts: a declaration the file disproves is never what it asks.
    verdicts: &'a [Verdict],
    /// Claims of other problems (a collection's), never what the file asks of its own.
    stated: &'a [(usize, String)],
}

impl<'a> Asking<'a> {
    fn of(facts: &'a FileFacts<'a>) -> Asking<'a> {
        Asking {
            text: facts.text,
            file_name: facts.file_name,
            problem_id: facts.problem_id,
            dependencies: Some(facts.dependencies),
            verdicts: facts.verdicts,
            stated: facts.stated,
        }
    }
}

/// The statement an input asks to prove: its [`asked_target`]'s.
#[cfg(test)]
fn asked_statement(outline: &Outline, asking: &Asking<'_>) -> Option<String> {
    asked_target(outline, asking).map(|d| d.statement.clone())
}

/// The theorem an input asks to prove, among its theorems and lemmas with a hole or proven only
/// through one: the one the file names by its leading comment (a line ending `: NAME`, as in
/// `Erdős Problem #409: erdos_409.termination`); else the one whose name ends the file's stem
/// and holds its problem's id (`erdos_903.variants.maximal_solution`); else the one named after
/// the file's problem (`tuza_nu2` in `tuza_nu2_dichotomy.lean`); else the one whose name ends
/// the file's stem (dots read as
/// underscores: `erdos_14_erdos_14a.lean` → `erdos_14a`, the longest such name); else the last
/// one whose name holds the whole stem as words (`exists_optimal_minmax` in
/// `optimal_minmax.lean`); else the last hole the file calls its main or key theorem (a comment
/// or docstring between it and the declaration before it: `/-- KEY THEOREM: … -/`,
/// `/-! ### Main Theorem -/`); else, among its holes only, the last one that is not a
/// `.variants.` one (a file stating many variants of a problem puts its target first); else the
/// last hole (the main theorem comes after its lemmas). A `PROOF SKETCH for NAME` comment says
/// how to prove NAME, which may be a helper lemma, not what the file asks.
fn asked_target<'o>(outline: &'o Outline, asking: &Asking<'_>) -> Option<&'o Declaration> {
    target_among(outline, asking, Among::Holes)
}

/// What [`target_among`] chooses from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Among {
    /// An input's holes and the theorems it proves only through them: what it asks.
    Holes,
    /// Every theorem and lemma: what a sketch without a hole would ask.
    Claims,
}

/// [`asked_target`]'s rules, applied to the holes of the file or to all its claims.
fn target_among<'o>(
    outline: &'o Outline,
    asking: &Asking<'_>,
    among: Among,
) -> Option<&'o Declaration> {
    let (text, file_name) = (asking.text, asking.file_name);
    let mut disproved = statements::disproved(asking.verdicts);
    disproved.extend(asking.stated.iter().map(|(i, _)| *i));
    let is_disproved = |d: &Declaration| {
        disproved
            .iter()
            .any(|&i| std::ptr::eq(&outline.declarations[i], d))
    };
    let is_claim = |d: &Declaration| d.is_theorem_like() && !is_disproved(d);
    let is_hole = |d: &Declaration| is_claim(d) && (among == Among::Claims || d.sorry_count > 0);
    let holes: Vec<&Declaration> = outline.declarations.iter().filter(|d| is_hole(d)).collect();
    // What the file may name as its question: its holes, and the theorems it proves only
    // through them (`erdos_593 … := by constructor …` resting on two sorried helpers).
    let holes_and_asked: Vec<&Declaration> = outline
        .declarations
        .iter()
        .enumerate()
        .filter(|(i, d)| {
            is_hole(d)
                || (is_claim(d)
                    && asking
                        .dependencies
                        .is_some_and(|deps| deps.is_conditional(*i)))
        })
        .map(|(_, d)| d)
        .collect();
    let named = named_targets(outline, text);
    let by_comment = holes_and_asked
        .iter()
        .rev()
        .find(|d| named.iter().any(|n| names(d, n)));
    // The theorem named after the problem (`tuza_nu2` in `tuza_nu2_dichotomy.lean`), in any
    // spelling of it (`Erdos850` for erdos_850).
    let by_problem = || {
        let problem = asking.problem_id?;
        holes_and_asked.iter().rev().copied().find(|d| {
            names(d, problem)
                || crate::problem::named_after_problem(display_name(d), problem)
                    == Some(crate::problem::NamedAfter::Exactly)
        })
    };
    let stem = file_name.strip_suffix(".lean").unwrap_or(file_name);
    let by_stem = || {
        holes_and_asked
            .iter()
            .rev()
            .filter_map(|d| Some((stem_match(d, stem)?, *d)))
            .max_by_key(|(len, _)| *len)
            .map(|(_, d)| d)
    };
    // A name that holds the whole stem as words (`exists_optimal_minmax` in
    // `optimal_minmax.lean`).
    let containing_stem = || {
        let words: Vec<&str> = stem.split('_').filter(|w| !w.is_empty()).collect();
        holes_and_asked.iter().rev().copied().find(|d| {
            let name = display_name(d).replace('.', "_");
            let own: Vec<&str> = name.split('_').collect();
            !words.is_empty() && own.windows(words.len()).any(|w| w == words.as_slice())
        })
    };
    // A hole the file calls its main or key theorem, in the comments right before it (not in
    // the file's leading comment, which speaks of the whole file). Only a hole: a "main
    // theorem" the file proves, even through holes, is an answer, not the question.
    let leading_end = leading_comment(outline, text).map_or(0, |c| c.span.end);
    let marked_main = || {
        let mut indexed = outline.declarations.iter().enumerate().rev();
        indexed
            .find(|(index, d)| {
                if !is_hole(d) {
                    return false;
                }
                let before = index
                    .checked_sub(1)
                    .map_or(0, |i| outline.declarations[i].span.end)
                    .max(leading_end);
                let name_at = text
                    .get(d.span.clone())
                    .and_then(|t| t.find(d.name.as_str()))
                    .map_or(d.span.start, |i| d.span.start + i);
                text.get(before.min(name_at)..name_at)
                    .is_some_and(calls_itself_main)
            })
            .map(|(_, d)| d)
    };
    // A name the stem ends with that also holds the problem's id is the file's own question
    // about the problem (`erdos_903.variants.maximal_solution` in
    // `erdos_903_erdos_903_variants_maximal_solution.lean`): more precise than the problem.
    let by_stem_on_problem = || {
        let problem = asking.problem_id?;
        by_stem().filter(|d| display_name(d).replace('.', "_").contains(problem))
    };
    by_comment
        .copied()
        .or_else(by_stem_on_problem)
        .or_else(by_problem)
        .or_else(by_stem)
        .or_else(containing_stem)
        .or_else(marked_main)
        .or_else(|| holes.iter().rev().find(|d| !is_variant(d)).copied())
        .or_else(|| holes.last().copied())
}

/// The file's leading comment: its first comment, with nothing but blank space before it.
fn leading_comment<'o>(
    outline: &'o Outline,
    text: &str,
) -> Option<&'o crate::lean::outline::Comment> {
    outline.comments.first().filter(|c| {
        text.get(..c.span.start)
            .is_some_and(|t| t.trim().is_empty())
    })
}

/// Names a file's leading comment gives as its target: a line that ends in `: NAME` (one
/// identifier).
fn named_targets(outline: &Outline, text: &str) -> Vec<String> {
    let is_ident = |s: &str| {
        !s.is_empty()
            && s.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '\'' | '!' | '?'))
            && !s.starts_with('.')
    };
    let mut named = Vec::new();
    if let Some(first) = leading_comment(outline, text) {
        for line in text.get(first.span.clone()).unwrap_or("").lines() {
            let line = line.trim().trim_end_matches("-/").trim();
            if let Some((head, name)) = line.rsplit_once(": ") {
                let name = name.trim();
                if is_ident(name) {
                    named.push(name.to_string());
                } else if calls_main(name) {
                    // `3. tuza_nu_le_3: Final theorem`: the name before the colon.
                    if let Some(name) = head.split_whitespace().last().filter(|n| is_ident(n)) {
                        named.push(name.to_string());
                    }
                }
            }
        }
    }
    named
}

/// Whether the words after a name's colon call it the file's main or final theorem
/// (`Final theorem`, `the main result.`), not describe a step.
fn calls_main(words: &str) -> bool {
    let words = words
        .trim()
        .trim_end_matches(['.', '!', ')'])
        .to_lowercase();
    let words = words.strip_prefix("the ").unwrap_or(&words);
    let (adjective, noun) = words.split_once(' ').unwrap_or((words, ""));
    matches!(adjective, "main" | "final")
        && matches!(noun, "theorem" | "result" | "statement" | "goal")
}

/// Whether `decl` is the declaration `named`: its full name, or its last components.
fn names(decl: &Declaration, named: &str) -> bool {
    let full = display_name(decl);
    full == named || decl.name == named || full.ends_with(&format!(".{named}"))
}

/// How many components of `decl`'s full name, read with underscores for dots, end the file
/// stem (at an underscore or the stem's start); `None` when none do.
fn stem_match(decl: &Declaration, stem: &str) -> Option<usize> {
    let parts: Vec<&str> = display_name(decl).split('.').collect();
    (1..=parts.len())
        .rev()
        .find(|&k| {
            let tail = parts[parts.len() - k..].join("_");
            stem == tail || stem.ends_with(&format!("_{tail}"))
        })
        .map(|k| parts[parts.len() - k..].join("_").len())
}

/// Whether the text before a declaration (its comments and docstring) calls it the file's
/// main or key theorem.
fn calls_itself_main(before: &str) -> bool {
    let lower = before.to_lowercase();
    ["main theorem", "key theorem", "main result"]
        .iter()
        .any(|m| lower.contains(m))
}

fn verdict_finding(
    verdict: &Verdict,
    decl: Option<&Declaration>,
    origin: &str,
    domain: Option<&str>,
    base: &NewFinding,
    loaded: bool,
) -> NewFinding {
    let name = decl.map(display_name).unwrap_or("(code)");
    let theorem_name = decl.map(|d| display_name(d).to_string());
    let theorem_statement = decl.map(|d| d.statement.clone());
    match &verdict.kind {
        VerdictKind::False { negation } if !loaded => NewFinding {
            finding_type: FindingType::Failure,
            title: format!("Unchecked disproof: {name} ({origin}, the file did not load)"),
            description: format!(
                "Aristotle claimed a proof of the negation of {name} in {origin}, but it could \
                 not load the file: the negation is about code Lean did not accept, not about \
                 the statement as written"
            ),
            theorem_name,
            theorem_statement,
            counterexample: Some(truncate(negation, MAX_EVIDENCE_CHARS)),
            why_failed: Some(
                "Aristotle failed to load this file; its disproof of this block checked \
                 nothing"
                    .into(),
            ),
            confidence: Confidence::Low,
            tags: Some(tags(domain, "failure,aristotle")),
            ..base.clone()
        },
        VerdictKind::False { negation } => {
            let negation_statement = negation_statement(negation, decl);
            NewFinding {
                finding_type: FindingType::FalseLemma,
                title: format!("False: {name} ({origin})"),
                // The negation first: the claim is in `theorem_statement`, and listings cut
                // descriptions short.
                description: match (&negation_statement, decl) {
                    (Some(negation), _) => {
                        format!("Aristotle proved the negation of {name}: {negation}")
                    }
                    (None, Some(d)) => {
                        format!("Aristotle proved the negation of {name}: {}", d.statement)
                    }
                    (None, None) => "Aristotle found this block to be false".to_string(),
                },
                theorem_name,
                theorem_statement,
                counterexample: Some(truncate(negation, MAX_EVIDENCE_CHARS)),
                why_failed: Some("the statement is false: Aristotle proved its negation".into()),
                avoid_pattern: Some(format!("Do not try to prove {name}; it is false as stated")),
                confidence: Confidence::Disproven,
                tags: Some(tags(domain, "false_lemma,aristotle")),
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
                // A verdict about no declaration in particular is about the file.
                title: match decl {
                    Some(_) => format!("{}: {name} ({origin})", kind.summary()),
                    None => format!("{} ({origin})", kind.summary()),
                },
                description: format!(
                    "{} for {} in {origin}{}",
                    kind.summary(),
                    if decl.is_some() { name } else { "the file" },
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
                tags: Some(tags(domain, "failure,aristotle")),
                ..base.clone()
            }
        }
    }
}

/// What Aristotle proved instead of the claim. A disproof ends by restating the claim itself
/// with a `negate_state` proof, so its last theorem is the claim, not the negation: take the
/// theorem that states a negation (`foo_false : ¬ (…)`) when there is one, else negate the
/// claim, `¬ (∀ binders, type)`.
fn negation_statement(disproof: &str, claim: Option<&Declaration>) -> Option<String> {
    let parsed = crate::lean::ParsedFile::parse(disproof.to_string());
    let outline = Outline::of("", &parsed);
    let stated = outline.declarations.iter().rev().find(|d| {
        is_provable(d)
            && signature_parts(&d.statement, &d.name).is_some_and(|(_, ty)| ty.starts_with('¬'))
    });
    if let Some(d) = stated {
        return Some(d.statement.clone());
    }
    let claim = claim?;
    let (binders, ty) = signature_parts(&claim.statement, &claim.name)?;
    Some(if binders.is_empty() {
        format!("¬ ({ty})")
    } else {
        format!("¬ (∀ {binders}, {ty})")
    })
}

/// A statement `name binders : type` split into its binders and its type, at the first `:`
/// outside brackets.
fn signature_parts<'s>(statement: &'s str, name: &str) -> Option<(&'s str, &'s str)> {
    let rest = statement.strip_prefix(name).unwrap_or(statement);
    let mut depth = 0usize;
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '(' | '[' | '{' | '⟨' | '⦃' => depth += 1,
            ')' | ']' | '}' | '⟩' | '⦄' => depth = depth.saturating_sub(1),
            ':' if depth == 0 => {
                if matches!(chars.peek(), Some((_, ':' | '='))) {
                    chars.next();
                    continue;
                }
                return Some((rest[..i].trim(), rest[i + 1..].trim()));
            }
            _ => {}
        }
    }
    None
}

/// A finding's tags: its domain, when known, then `rest`.
fn tags(domain: Option<&str>, rest: &str) -> String {
    match domain {
        Some(d) => format!("{d},{rest}"),
        None => rest.to_string(),
    }
}

fn is_provable(decl: &Declaration) -> bool {
    decl.is_theorem_like() && decl.has_body()
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

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(name: &str, statement: &str) -> Declaration {
        Declaration {
            kind: "lemma".into(),
            name: name.into(),
            full_name: name.into(),
            line: 1,
            end_line: 1,
            modifiers: Vec::new(),
            attributes: Vec::new(),
            statement: statement.into(),
            sorry_count: 0,
            tactics: BTreeMap::new(),
            parse_error: false,
            span: 0..1,
            body: Some(0..1),
            user_command: false,
            theorem_like: true,
            typed: true,
        }
    }

    /// The target of an input: named by its comments, else by its file name, else its last
    /// sorried theorem that is not a variant, else its last sorried one.
    #[test]
    fn an_input_asks_for_the_theorem_it_names() {
        let target = |file: &str| {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/asked")
                .join(file);
            let text = std::fs::read_to_string(path).unwrap();
            let parsed = crate::lean::ParsedFile::parse(text.clone());
            let outline = Outline::of(file, &parsed);
            let dependencies = Dependencies::of(&parsed, &outline);
            let naming = crate::problem::naming::from_path(std::path::Path::new(file));
            let asking = Asking {
                text: &text,
                file_name: file,
                problem_id: naming.problem_id.as_deref(),
                dependencies: Some(&dependencies),
                verdicts: &[],
                stated: &[],
            };
            let statement = asked_statement(&outline, &asking);
            let decl = asked_target(&outline, &asking).map(|d| d.full_name.clone());
            assert_eq!(
                statement,
                asked_target(&outline, &asking).map(|d| d.statement.clone())
            );
            decl.unwrap_or_default()
        };
        assert_eq!(
            target("erdos_901_erdos_901_termination.lean"),
            "Erdos901.erdos_901.termination"
        );
        assert_eq!(target("erdos_902_erdos_902.lean"), "Erdos902.erdos_902");
        assert_eq!(
            target("erdos_903_erdos_903_variants_maximal_solution.lean"),
            "Erdos903.erdos_903.variants.maximal_solution"
        );
        assert_eq!(target("slot904_variants_only.lean"), "foo.variants.b");
        // The problem row and the "Asked" insight state the named target.
        let file = "erdos_901_erdos_901_termination.lean";
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/asked");
        let text = std::fs::read_to_string(path.join(file)).unwrap();
        let parsed = crate::lean::ParsedFile::parse(text.clone());
        let outline = Outline::of(file, &parsed);
        let facts = FileFacts {
            text: &text,
            file_name: file,
            slot: None,
            problem_id: Some("erdos_901"),
            domain: Some("nt"),
            verdicts: &[],
            origin: Origin::of(&path.join(file), &outline),
            dependencies: &Dependencies::of(&parsed, &outline),
            proofs: &[],
            definitions: &[],
            stated: &[],
            cases: &[],
        };
        let (findings, problem) = generate(&outline, &facts);
        let wanted = "erdos_901.termination (n : ℕ) (hn : 0 < n) : ∃ k, n ≤ k";
        assert_eq!(problem.unwrap().statement.as_deref(), Some(wanted));
        let asked = findings
            .iter()
            .find(|f| f.finding_type == FindingType::Insight)
            .unwrap();
        assert_eq!(asked.theorem_statement.as_deref(), Some(wanted));
        assert_eq!(
            asked.theorem_name.as_deref(),
            Some("Erdos901.erdos_901.termination")
        );
        // The theorem named after the problem, proven here only through sorried helpers.
        assert_eq!(target("erdos910_enhanced.lean"), "erdos_910");
        // A "main theorem" the file proves (through a hole) is an answer, not the question.
        assert_eq!(target("erdos911_proven_main.lean"), "limit_statement");
        // Named after the problem, before a name that ends the file's stem.
        assert_eq!(target("tuza_nu9_dichotomy.lean"), "tuza_nu9");
        // A sketch of a helper lemma does not make it the target; the main theorem is.
        assert_eq!(target("slot907_helper_sketch.lean"), "main_bound");
        // The file's key theorem, before a later corollary.
        assert_eq!(target("slot908_key_theorem.lean"), "share_bound");
        // The leading comment speaks of the file, not of its first declaration.
        assert_eq!(target("slot909_header_main_result.lean"), "second_bound");
        // A name that holds the file's stem, before a later side question.
        assert_eq!(target("optimal_pairing.lean"), "exists_optimal_pairing");
        // A sketch's own lemmas named in its comment are not its target: the last one is.
        assert_eq!(
            target("slot905_two_edges_cover.lean"),
            "two_edges_cover_X_externals"
        );
    }

    /// Aristotle's internal error without Lean errors: an unchecked attempt, not a file Lean
    /// rejected. Its complete theorems are kept at `medium` at most, and the failure says no
    /// Lean errors were given.
    #[test]
    fn an_internal_error_leaves_an_unchecked_attempt() {
        let file = "slot906_simple_cover_result.lean";
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/unchecked")
            .join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let parsed = crate::lean::ParsedFile::parse(text.clone());
        let outline = Outline::of(file, &parsed);
        let facts = FileFacts {
            text: &text,
            file_name: file,
            slot: Some(906),
            problem_id: Some("cover"),
            domain: Some("combinatorics"),
            verdicts: &[],
            origin: Origin::of(&path, &outline),
            dependencies: &Dependencies::of(&parsed, &outline),
            proofs: &[],
            definitions: &[],
            stated: &[],
            cases: &[],
        };
        let (findings, problem) = generate(&outline, &facts);
        let theorems: Vec<(&str, Confidence)> = findings
            .iter()
            .filter(|f| f.finding_type == FindingType::Theorem)
            .map(|f| (f.theorem_name.as_deref().unwrap(), f.confidence))
            .collect();
        assert_eq!(
            theorems,
            [
                ("two_eq", Confidence::Medium),
                ("cover_bound", Confidence::Medium)
            ]
        );
        let failures: Vec<&NewFinding> = findings
            .iter()
            .filter(|f| f.finding_type == FindingType::Failure)
            .collect();
        assert_eq!(failures.len(), 1, "{failures:?}");
        let why = failures[0].why_failed.as_deref().unwrap();
        assert!(
            why.starts_with(
                "Aristotle reported an internal error and gave no Lean errors (nothing was checked)"
            ),
            "{why}"
        );
        assert!(!failures[0].description.contains("Lean rejected"));
        assert!(
            !findings.iter().any(|f| f.confidence == Confidence::Verified
                || f.confidence == Confidence::High && f.finding_type == FindingType::Theorem)
        );
        assert_ne!(problem.unwrap().status, Some(ProblemStatus::Proven));
    }

    #[test]
    fn the_stated_negation_wins_over_the_restated_claim() {
        let disproof = "def w : ℕ := 6\n\n\
            theorem sum_le_false : ¬ (∀ (n : ℕ), n ≤ 5) := by\n  push_neg\n  exact ⟨6, by decide⟩\n\n\
            lemma sum_le (n : ℕ) : n ≤ 5 := by\n  negate_state\n  exact ⟨6, by decide⟩";
        let c = claim("sum_le", "sum_le (n : ℕ) : n ≤ 5");
        assert_eq!(
            negation_statement(disproof, Some(&c)).as_deref(),
            Some("sum_le_false : ¬ (∀ (n : ℕ), n ≤ 5)")
        );
    }

    #[test]
    fn without_a_stated_negation_the_claim_is_negated() {
        let disproof =
            "lemma sum_le (n : ℕ) (h : ∀ m : ℕ, m ≤ n) : n ≤ 5 := by\n  negate_state\n  omega";
        let c = claim("sum_le", "sum_le (n : ℕ) (h : ∀ m : ℕ, m ≤ n) : n ≤ 5");
        assert_eq!(
            negation_statement(disproof, Some(&c)).as_deref(),
            Some("¬ (∀ (n : ℕ) (h : ∀ m : ℕ, m ≤ n), n ≤ 5)")
        );
        let bare = claim("five", "five : (5 : ℕ) = 6");
        assert_eq!(
            negation_statement("", Some(&bare)).as_deref(),
            Some("¬ ((5 : ℕ) = 6)")
        );
        assert_eq!(negation_statement("", None), None);
    }

    #[test]
    fn signatures_split_at_the_first_colon_outside_brackets() {
        assert_eq!(
            signature_parts("f {α : Type} [Fintype α] (s : Finset α) : s.card ≤ 3", "f"),
            Some(("{α : Type} [Fintype α] (s : Finset α)", "s.card ≤ 3"))
        );
        assert_eq!(
            signature_parts("g (l : List ℕ) : l = 1 :: l", "g"),
            Some(("(l : List ℕ)", "l = 1 :: l"))
        );
        assert_eq!(signature_parts("h", "h"), None);
    }

    /// The technique finding of a clean output: the main proof's technique when informative,
    /// else the most common informative label of its complete proofs (`native_decide` too).
    #[test]
    fn a_term_mode_main_proof_takes_the_file_s_common_technique() {
        let header = "/-\nThis file was generated by Aristotle.\n\n\
                      Lean version: leanprover/lean4:v4.24.0\n\
                      This project request had uuid: 0a0a0a0a-0000-4000-8000-000000000999\n-/\n\n\
                      import Mathlib\n\n";
        let technique_of = |body: &str| {
            let text = format!("{header}{body}");
            let file = "slot999_patterns_result.lean";
            let parsed = crate::lean::ParsedFile::parse(text.clone());
            let outline = Outline::of(file, &parsed);
            let proofs = super::super::uses::proofs(&parsed, &outline);
            let facts = FileFacts {
                text: &text,
                file_name: file,
                slot: Some(999),
                problem_id: Some("patterns"),
                domain: Some("combinatorics"),
                verdicts: &[],
                origin: Origin::of(std::path::Path::new(file), &outline),
                dependencies: &Dependencies::of(&parsed, &outline),
                proofs: &proofs,
                definitions: &[],
                stated: &[],
                cases: &[],
            };
            let (findings, _) = generate(&outline, &facts);
            findings
                .iter()
                .find(|f| f.finding_type == FindingType::Technique)
                .and_then(|f| f.proof_technique.clone())
        };
        let body = "def cover : Finset ℕ := {1, 2}\n\n\
                    lemma cover_card : cover.card ≤ 8 := by native_decide\n\n\
                    lemma cover_hits : 1 ∈ cover := by native_decide\n\n\
                    theorem tau_le_8 : ∃ C : Finset ℕ, C.card ≤ 8 ∧ 1 ∈ C :=\n  \
                    ⟨cover, cover_card, cover_hits⟩\n\n\
                    theorem all_le_8 : (∃ C : Finset ℕ, C.card ≤ 8 ∧ 1 ∈ C) ∧ 1 ∈ cover :=\n  \
                    ⟨tau_le_8, cover_hits⟩\n";
        assert_eq!(
            technique_of(body).as_deref(),
            Some("finite computation (native_decide)")
        );
        // An informative main proof names the file.
        let body = "lemma small : (3 : ℕ) ≤ 8 := by native_decide\n\n\
                    theorem main (n : ℕ) (h : n ≤ 3) : n ≤ 8 := by\n  omega\n";
        assert_eq!(
            technique_of(body).as_deref(),
            Some("linear arithmetic (omega)")
        );
    }
}
