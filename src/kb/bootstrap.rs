//! `mk init --from-tracking`: seeding knowledge.db from tracking.db, idempotently.
//!
//! Rules (spec, "Migration & Bootstrap"): complete proven theorems become `theorem` findings
//! (verified), false lemmas `false_lemma` findings (disproven), failed approaches `failure`
//! findings (high), candidate problems `problems` rows. Improvements over the spec's script:
//! every migrated finding carries `origin = 'tracking:<table>:<id>'`, so a re-run adds nothing
//! and updates rows whose source changed; domains come from the problem's candidate_problems
//! row when there is one (the spec's fixed defaults otherwise); failed approaches also become
//! `failed` strategies so `mk recommend` knows not to suggest them again; unknown problem
//! statuses are mapped instead of silently dropped by a CHECK constraint.

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::error::{AtPath, Result};
use super::model::{domain_alias, Confidence, FindingType, NewFinding, ProblemStatus};
use super::sql::problem_key;
use super::write::insert_finding;
use super::Kb;
use crate::tracking::{slot_of, Tracking};

/// Outcome for one kind of migrated row.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TableCount {
    pub added: usize,
    pub updated: usize,
    pub unchanged: usize,
    /// Rows that cannot become findings (no name, incomplete proof).
    pub skipped: usize,
}

/// What `mk init --from-tracking` did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MigrationReport {
    pub theorems: TableCount,
    pub false_lemmas: TableCount,
    pub failed_approaches: TableCount,
    pub problems: TableCount,
    pub strategies: TableCount,
    /// Missing tables or columns in tracking.db and similar warnings.
    pub notes: Vec<String>,
}

impl MigrationReport {
    /// Rows added across all tables.
    pub fn total_added(&self) -> usize {
        [
            self.theorems,
            self.false_lemmas,
            self.failed_approaches,
            self.problems,
            self.strategies,
        ]
        .iter()
        .map(|c| c.added)
        .sum()
    }
}

impl Kb {
    /// Copies tracking.db's knowledge into this database (see the module docs for the rules).
    /// Safe to run again: nothing is duplicated. All of it is one transaction.
    pub fn migrate_from_tracking(&mut self, tracking: &Tracking) -> Result<MigrationReport> {
        let theorems = tracking.proven_theorems();
        let lemmas = tracking.all_false_lemmas();
        let failures = tracking.failed_approaches();
        let candidates = tracking.candidate_problems();
        let known = self.domain_ids()?;
        let domain_of = |raw: Option<&str>| -> Option<String> {
            let a = domain_alias(raw?)?;
            known.iter().any(|k| k == a).then(|| a.to_string())
        };
        // problem key → domain, from candidate_problems.
        let problem_domains: HashMap<String, String> = candidates
            .iter()
            .filter_map(|c| {
                Some((
                    problem_key(c.id.as_deref()?),
                    domain_of(c.domain.as_deref())?,
                ))
            })
            .collect();
        let problem_domain =
            |p: Option<&str>| p.and_then(|p| problem_domains.get(&problem_key(p)).cloned());

        let mut report = self.write_transaction(|tx, path| {
            let mut r = MigrationReport::default();

            for t in &theorems {
                let (Some(id), Some(name)) = (t.id, non_empty(&t.theorem_name)) else {
                    r.theorems.skipped += 1;
                    continue;
                };
                if t.proof_complete == Some(false) {
                    r.theorems.skipped += 1;
                    continue;
                }
                let kind = non_empty(&t.theorem_type).unwrap_or("theorem");
                let problem = non_empty(&t.problem_id);
                let f = NewFinding {
                    finding_type: FindingType::Theorem,
                    domain_id: Some(problem_domain(problem).unwrap_or_else(|| "nt".into())),
                    title: format!("{name} ({kind})"),
                    description: format!(
                        "Proven {kind}: {}",
                        non_empty(&t.statement).unwrap_or(name)
                    ),
                    problem_id: problem.map(str::to_string),
                    source_slot: t.filename.as_deref().and_then(slot_of),
                    source_submission_uuid: t.uuid.clone(),
                    source_file: t.filename.clone(),
                    theorem_name: Some(name.to_string()),
                    theorem_statement: t.statement.clone(),
                    // Without a proof_complete column completeness is unknown: not verified.
                    confidence: if t.proof_complete == Some(true) {
                        Confidence::Verified
                    } else {
                        Confidence::Medium
                    },
                    tags: Some("migrated".into()),
                    ..NewFinding::default()
                };
                upsert_migrated(
                    tx,
                    &f,
                    &format!("tracking:proven_theorems:{id}"),
                    &mut r.theorems,
                )
                .at(path)?;
            }

            for l in &lemmas {
                let (Some(id), Some(name)) = (l.id, non_empty(&l.lemma_name)) else {
                    r.false_lemmas.skipped += 1;
                    continue;
                };
                let frontier = non_empty(&l.frontier_id);
                let evidence = non_empty(&l.evidence_level);
                let f = NewFinding {
                    finding_type: FindingType::FalseLemma,
                    domain_id: Some(
                        problem_domain(frontier).unwrap_or_else(|| "combinatorics".into()),
                    ),
                    title: format!("FALSE: {name}"),
                    description: format!(
                        "Disproven: {}",
                        non_empty(&l.false_statement_english)
                            .or(non_empty(&l.false_statement))
                            .unwrap_or(name)
                    ),
                    problem_id: frontier.map(str::to_string),
                    theorem_name: Some(name.to_string()),
                    theorem_statement: l.false_statement.clone(),
                    counterexample: l.counterexample.clone(),
                    why_failed: l.why_false.clone(),
                    avoid_pattern: l.avoid_pattern.clone(),
                    confidence: Confidence::Disproven,
                    tags: Some(match evidence {
                        Some(e) => format!("false_lemma,{e},migrated"),
                        None => "false_lemma,migrated".into(),
                    }),
                    notes: l.impact.clone(),
                    ..NewFinding::default()
                };
                upsert_migrated(
                    tx,
                    &f,
                    &format!("tracking:false_lemmas:{id}"),
                    &mut r.false_lemmas,
                )
                .at(path)?;
            }

            for a in &failures {
                let (Some(id), Some(name)) = (a.id, non_empty(&a.approach_name)) else {
                    r.failed_approaches.skipped += 1;
                    continue;
                };
                let problem = non_empty(&a.problem_id).or(non_empty(&a.frontier_id));
                let domain = problem_domain(problem);
                let slot = a.filename.as_deref().and_then(slot_of);
                let f = NewFinding {
                    finding_type: FindingType::Failure,
                    domain_id: domain.clone(),
                    title: format!("FAILED: {name}"),
                    description: non_empty(&a.approach_description)
                        .or(non_empty(&a.why_failed))
                        .unwrap_or(name)
                        .to_string(),
                    problem_id: problem.map(str::to_string),
                    source_slot: slot,
                    source_submission_uuid: a.submission_uuid.clone(),
                    proof_technique: Some(name.to_string()),
                    why_failed: a.why_failed.clone(),
                    avoid_pattern: a.avoid_pattern.clone(),
                    confidence: Confidence::High,
                    tags: Some(format!(
                        "failure,{},migrated",
                        non_empty(&a.failure_category).unwrap_or("unknown")
                    )),
                    notes: a.learned_insight.clone(),
                    ..NewFinding::default()
                };
                upsert_migrated(
                    tx,
                    &f,
                    &format!("tracking:failed_approaches:{id}"),
                    &mut r.failed_approaches,
                )
                .at(path)?;
                if let Some(problem) = problem {
                    let n = tx
                        .execute(
                            "INSERT INTO strategies (problem_id, problem_name, domain_id, approach_name,
                                approach_description, outcome, submission_slot, submission_uuid, learned)
                             VALUES (?1, ?1, ?2, ?3, ?4, 'failed', ?5, ?6, ?7)
                             ON CONFLICT(problem_id, approach_name) DO NOTHING",
                            params![
                                problem, domain, name, a.approach_description, slot, a.submission_uuid,
                                a.learned_insight.as_ref().or(a.why_failed.as_ref())
                            ],
                        )
                        .at(path)?;
                    if n == 1 {
                        r.strategies.added += 1
                    } else {
                        r.strategies.unchanged += 1
                    }
                }
            }

            for c in &candidates {
                let Some(id) = non_empty(&c.id) else {
                    r.problems.skipped += 1;
                    continue;
                };
                let n = tx
                    .execute(
                        "INSERT INTO problems (id, name, domain_id, status, submission_count, proven_count, failed_count, statement,
                             domain_evidence, statement_source, recorded_status)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,
                             CASE WHEN ?3 IS NOT NULL THEN 'tracking' END,
                             CASE WHEN ?8 IS NOT NULL THEN 'tracking.db' END, ?4)
                         ON CONFLICT(id) DO NOTHING",
                        params![
                            id,
                            non_empty(&c.name).unwrap_or(id),
                            // No domain is unknown, never a default.
                            domain_of(c.domain.as_deref()),
                            map_status(c.status.as_deref()).as_str(),
                            c.submissions_count.unwrap_or(0),
                            c.proven_count.unwrap_or(0),
                            c.false_lemma_count.unwrap_or(0),
                            c.statement,
                        ],
                    )
                    .at(path)?;
                if n == 1 {
                    r.problems.added += 1
                } else {
                    r.problems.unchanged += 1;
                    // tracking.db's word on a problem the knowledge base already had (from files,
                    // a hand record, or a knowledge base made before it was kept apart) is
                    // recorded with it: at least what was recorded before, as `mk record` does.
                    let rank = |column: &str| {
                        format!(
                            "CASE {column} WHEN 'in_flight' THEN 1 WHEN 'partial' THEN 2
                                 WHEN 'proven' THEN 3 WHEN 'false' THEN 4 ELSE 0 END"
                        )
                    };
                    tx.execute(
                        &format!(
                            "UPDATE problems SET recorded_status = ?2
                             WHERE id = ?1 AND (recorded_status IS NULL OR {} > {})",
                            rank("?2"),
                            rank("recorded_status")
                        ),
                        params![id, map_status(c.status.as_deref()).as_str()],
                    )
                    .at(path)?;
                }
            }
            // What the knowledge base says of each problem follows from tracking.db's word
            // and the files together.
            super::status::settle(tx).at(path)?;
            Ok(r)
        })?;
        report.notes = tracking.notes();
        Ok(report)
    }
}

fn non_empty(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// Inserts a migrated finding, or updates it in place when its tracking row changed.
fn upsert_migrated(
    conn: &rusqlite::Connection,
    f: &NewFinding,
    origin: &str,
    count: &mut TableCount,
) -> rusqlite::Result<()> {
    let existing: Option<i64> = conn
        .prepare_cached("SELECT id FROM findings WHERE origin = ?1")?
        .query_row([origin], |r| r.get(0))
        .optional()?;
    let Some(id) = existing else {
        insert_finding(conn, f, f.domain_id.as_deref(), None, Some(origin))?;
        count.added += 1;
        return Ok(());
    };
    let changed = conn
        .prepare_cached(
            "UPDATE findings SET domain_id = ?2, title = ?3, description = ?4, problem_id = ?5,
                source_slot = ?6, source_submission_uuid = ?7, source_file = ?8, theorem_name = ?9,
                theorem_statement = ?10, proof_technique = ?11, counterexample = ?12, why_failed = ?13,
                avoid_pattern = ?14, confidence = ?15, tags = ?16, notes = ?17, updated_at = datetime('now')
             WHERE id = ?1 AND (domain_id IS NOT ?2 OR title IS NOT ?3 OR description IS NOT ?4
                OR problem_id IS NOT ?5 OR source_slot IS NOT ?6 OR source_submission_uuid IS NOT ?7
                OR source_file IS NOT ?8 OR theorem_name IS NOT ?9 OR theorem_statement IS NOT ?10
                OR proof_technique IS NOT ?11 OR counterexample IS NOT ?12 OR why_failed IS NOT ?13
                OR avoid_pattern IS NOT ?14 OR confidence IS NOT ?15 OR tags IS NOT ?16 OR notes IS NOT ?17)",
        )?
        .execute(params![
            id, f.domain_id, f.title, f.description, f.problem_id, f.source_slot,
            f.source_submission_uuid, f.source_file, f.theorem_name, f.theorem_statement,
            f.proof_technique, f.counterexample, f.why_failed, f.avoid_pattern,
            f.confidence.as_str(), f.tags, f.notes
        ])?;
    if changed > 0 {
        count.updated += 1
    } else {
        count.unchanged += 1
    }
    Ok(())
}

/// tracking.db's free-form problem statuses, mapped onto the `problems.status` CHECK set.
fn map_status(s: Option<&str>) -> ProblemStatus {
    let t = s
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase()
        .replace(['-', ' '], "_");
    match t.as_str() {
        "proven" | "solved" | "done" | "closed" | "complete" | "completed" | "verified" => {
            ProblemStatus::Proven
        }
        "partial" | "partially_proven" | "compiled_partial" | "compiled_advance" => {
            ProblemStatus::Partial
        }
        "false" | "disproven" | "refuted" => ProblemStatus::False,
        "in_flight" | "submitted" | "running" | "active" | "in_progress" => ProblemStatus::InFlight,
        _ => ProblemStatus::Open,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_onto_the_check_set() {
        assert_eq!(map_status(Some("Solved")), ProblemStatus::Proven);
        assert_eq!(map_status(Some("in-progress")), ProblemStatus::InFlight);
        assert_eq!(map_status(Some("disproven")), ProblemStatus::False);
        assert_eq!(map_status(Some("whatever")), ProblemStatus::Open);
        assert_eq!(map_status(None), ProblemStatus::Open);
    }
}
