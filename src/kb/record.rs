//! `mk record`: writing down what an attempt taught, validated before anything is stored.

use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::error::{AtPath, KbError, Result};
use super::model::{Confidence, FindingType, NewFinding, StrategyOutcome};
use super::write::{insert_finding, resolve_domain};
use super::Kb;

const MAX_ID: usize = 200;
const MAX_TEXT: usize = 20_000;

/// An approach that failed on a problem, and why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FailureInput {
    pub problem: String,
    pub approach: String,
    /// Why it failed (required: a failure without a reason teaches nothing).
    pub why: String,
    /// What not to repeat.
    pub avoid: Option<String>,
    pub description: Option<String>,
    pub category: Option<String>,
    pub domain: Option<String>,
    pub slot: Option<i64>,
    pub uuid: Option<String>,
    /// The problem is new: record it even though the knowledge base does not know it.
    pub new_problem: bool,
}

/// The outcome of an approach on a problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrategyInput {
    pub problem: String,
    pub approach: String,
    pub outcome: StrategyOutcome,
    pub learned: Option<String>,
    pub description: Option<String>,
    pub domain: Option<String>,
    pub slot: Option<i64>,
    pub uuid: Option<String>,
    /// The problem is new: record it even though the knowledge base does not know it.
    pub new_problem: bool,
}

/// A free-standing observation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InsightInput {
    pub title: String,
    pub text: String,
    pub problem: Option<String>,
    pub domain: Option<String>,
    pub tags: Option<String>,
    /// The problem is new: record it even though the knowledge base does not know it.
    pub new_problem: bool,
}

/// What `mk record` stored.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Recorded {
    pub finding_id: Option<i64>,
    pub strategy_id: Option<i64>,
    /// The problem id as stored (an existing spelling is reused: `Erdos-850` → `erdos_850`).
    pub problem_id: Option<String>,
    pub domain_id: Option<String>,
    /// Attempts of this approach on this problem so far.
    pub attempts: Option<i64>,
    pub outcome: Option<StrategyOutcome>,
}

impl Kb {
    /// Records a failed approach: a `failure` finding plus the strategy row marked `failed`
    /// (attempts counted), so `mk recommend` stops suggesting it for this problem.
    pub fn record_failure(&mut self, input: &FailureInput) -> Result<Recorded> {
        let problem = ident("problem id", &input.problem)?;
        let approach = ident("approach", &input.approach)?;
        let why = text("--why", Some(&input.why))?.ok_or_else(|| {
            KbError::Invalid("say why it failed: --why \"…\" must not be empty".into())
        })?;
        let avoid = text("--avoid", input.avoid.as_deref())?;
        let description = text("--description", input.description.as_deref())?;
        let category = text("--category", input.category.as_deref())?;
        let uuid = text("--uuid", input.uuid.as_deref())?;
        check_slot(input.slot)?;
        let problem = self.canonical_problem_id(&problem, input.new_problem)?;
        let domain = self.domain_for(&problem, input.domain.as_deref())?;
        let finding = NewFinding {
            finding_type: FindingType::Failure,
            domain_id: domain.clone(),
            title: format!("FAILED: {approach}"),
            description: description.unwrap_or_else(|| why.clone()),
            problem_id: Some(problem.clone()),
            source_slot: input.slot,
            source_submission_uuid: uuid.clone(),
            proof_technique: Some(approach.clone()),
            why_failed: Some(why.clone()),
            avoid_pattern: avoid,
            confidence: Confidence::High,
            tags: Some(format!(
                "failure,{},recorded",
                category.as_deref().unwrap_or("unknown")
            )),
            ..NewFinding::default()
        };
        let attempt = Attempt {
            problem: &problem,
            approach: &approach,
            outcome: StrategyOutcome::Failed,
            description: None,
            learned: Some(&why),
            domain: domain.as_deref(),
            slot: input.slot,
            uuid: uuid.as_deref(),
        };
        self.store(Some(&finding), Some(&attempt), 0, 1)
    }

    /// Records how an approach did on a problem (creates or updates its strategy row).
    pub fn record_strategy(&mut self, input: &StrategyInput) -> Result<Recorded> {
        let problem = ident("problem id", &input.problem)?;
        let approach = ident("approach", &input.approach)?;
        let learned = text("--learned", input.learned.as_deref())?;
        let description = text("--description", input.description.as_deref())?;
        let uuid = text("--uuid", input.uuid.as_deref())?;
        check_slot(input.slot)?;
        let problem = self.canonical_problem_id(&problem, input.new_problem)?;
        let domain = self.domain_for(&problem, input.domain.as_deref())?;
        let attempt = Attempt {
            problem: &problem,
            approach: &approach,
            outcome: input.outcome,
            description: description.as_deref(),
            learned: learned.as_deref(),
            domain: domain.as_deref(),
            slot: input.slot,
            uuid: uuid.as_deref(),
        };
        self.store(None, Some(&attempt), 0, 0)
    }

    /// Records an insight finding.
    pub fn record_insight(&mut self, input: &InsightInput) -> Result<Recorded> {
        let title = ident("title", &input.title)?;
        let body = text("text", Some(&input.text))?
            .ok_or_else(|| KbError::Invalid("an insight needs its text".into()))?;
        let tags = text("--tags", input.tags.as_deref())?;
        let problem = match input.problem.as_deref() {
            Some(p) => {
                Some(self.canonical_problem_id(&ident("problem id", p)?, input.new_problem)?)
            }
            None => None,
        };
        let domain = match (&problem, input.domain.as_deref()) {
            (Some(p), d) => self.domain_for(p, d)?,
            (None, Some(d)) => Some(resolve_domain(d, &self.domain_ids()?)?),
            (None, None) => None,
        };
        let finding = NewFinding {
            finding_type: FindingType::Insight,
            domain_id: domain,
            title,
            description: body,
            problem_id: problem,
            tags: Some(tags.map_or_else(|| "recorded".to_string(), |t| format!("{t},recorded"))),
            ..NewFinding::default()
        };
        self.store(Some(&finding), None, 0, 0)
    }

    /// The problem id a record goes under: the known problem `given` names (an id in any
    /// spelling, or an alias: [`Kb::resolve_problem`]), so that `Erdos-850` and `erdos_850`
    /// are one problem. An unknown id is refused ([`super::KbError::UnknownProblem`]) unless
    /// `new` says it is a new problem; a new one is spelled canonically when a naming scheme
    /// reads it (`Erdos975` → `erdos_975`, kept as an alias).
    fn canonical_problem_id(&mut self, given: &str, new: bool) -> Result<String> {
        if let Some(found) = self.resolve_problem(given)? {
            return Ok(found.id);
        }
        if !new {
            return Err(self.unknown_problem(
                given,
                Some(
                    "if it is a new problem, say so: --new-problem (MCP: new_problem: true)".into(),
                ),
            )?);
        }
        let id = crate::problem::canonical(given).unwrap_or_else(|| given.to_string());
        if id != given && self.has_table("problem_aliases")? {
            super::identity::store_aliases(&self.conn, &id, &[given.to_string()], "recorded")
                .at(&self.path)?;
        }
        Ok(id)
    }

    /// The given domain (validated), else the problem's recorded domain.
    fn domain_for(&self, problem: &str, given: Option<&str>) -> Result<Option<String>> {
        if let Some(d) = given {
            return Ok(Some(resolve_domain(d, &self.domain_ids()?)?));
        }
        self.conn
            .prepare_cached("SELECT domain_id FROM problems WHERE id = ?1")
            .and_then(|mut s| {
                s.query_row([problem], |r| r.get::<_, Option<String>>(0))
                    .optional()
            })
            .map(Option::flatten)
            .at(&self.path)
    }

    fn store(
        &mut self,
        finding: Option<&NewFinding>,
        attempt: Option<&Attempt<'_>>,
        proven: i64,
        failed: i64,
    ) -> Result<Recorded> {
        self.write_transaction(|tx, path| {
            let mut rec = Recorded::default();
            if let Some(f) = finding {
                rec.finding_id =
                    Some(insert_finding(tx, f, f.domain_id.as_deref(), None, None).at(path)?);
                rec.problem_id = f.problem_id.clone();
                rec.domain_id = f.domain_id.clone();
            }
            if let Some(a) = attempt {
                let (id, attempts) = upsert_strategy(tx, a, rec.finding_id).at(path)?;
                rec.strategy_id = Some(id);
                rec.attempts = Some(attempts);
                rec.outcome = Some(a.outcome);
                rec.problem_id = Some(a.problem.to_string());
                rec.domain_id = a.domain.map(str::to_string);
            }
            if let Some(p) = &rec.problem_id {
                let status = attempt.and_then(|a| match a.outcome {
                    StrategyOutcome::Proven => Some("proven"),
                    StrategyOutcome::Partial => Some("partial"),
                    StrategyOutcome::InFlight => Some("in_flight"),
                    _ => None,
                });
                // What a person records is kept apart from what the files show
                // (`recorded_status`, at least what was recorded before); ours follows from both.
                tx.execute(
                    "INSERT INTO problems (id, name, domain_id, status, proven_count, failed_count,
                         domain_evidence, recorded_status)
                     VALUES (?1, ?1, ?2, coalesce(?3, 'open'), ?4, ?5,
                         CASE WHEN ?2 IS NOT NULL THEN 'recorded' END, ?3)
                     ON CONFLICT(id) DO UPDATE SET
                        domain_evidence = CASE WHEN problems.domain_id IS NULL AND excluded.domain_id IS NOT NULL
                            THEN 'recorded' ELSE problems.domain_evidence END,
                        domain_id = coalesce(problems.domain_id, excluded.domain_id),
                        recorded_status = CASE
                            WHEN ?3 IS NULL OR problems.recorded_status = 'false' THEN problems.recorded_status
                            WHEN ?3 = 'proven' THEN 'proven'
                            WHEN ?3 = 'partial' AND coalesce(problems.recorded_status, 'open') IN ('open', 'in_flight') THEN 'partial'
                            WHEN ?3 = 'in_flight' AND coalesce(problems.recorded_status, 'open') = 'open' THEN 'in_flight'
                            ELSE problems.recorded_status END,
                        proven_count = coalesce(problems.proven_count, 0) + ?4,
                        failed_count = coalesce(problems.failed_count, 0) + ?5,
                        updated_at = datetime('now')",
                    params![p, rec.domain_id, status, proven, failed],
                )
                .at(path)?;
                super::status::settle_problem(tx, p).at(path)?;
            }
            Ok(rec)
        })
    }
}

struct Attempt<'a> {
    problem: &'a str,
    approach: &'a str,
    outcome: StrategyOutcome,
    description: Option<&'a str>,
    learned: Option<&'a str>,
    domain: Option<&'a str>,
    slot: Option<i64>,
    uuid: Option<&'a str>,
}

/// Creates or updates the (problem, approach) strategy. Proven, partial and failed outcomes
/// count as attempts; in-flight and untried do not. Returns (id, attempts).
fn upsert_strategy(
    conn: &rusqlite::Connection,
    a: &Attempt<'_>,
    finding_id: Option<i64>,
) -> rusqlite::Result<(i64, i64)> {
    let counts = i64::from(matches!(
        a.outcome,
        StrategyOutcome::Proven | StrategyOutcome::Partial | StrategyOutcome::Failed
    ));
    conn.query_row(
        "INSERT INTO strategies (problem_id, problem_name, domain_id, approach_name, approach_description,
            outcome, submission_slot, submission_uuid, finding_ids, attempts, learned)
         VALUES (?1, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT(problem_id, approach_name) DO UPDATE SET
            outcome = excluded.outcome,
            domain_id = coalesce(excluded.domain_id, strategies.domain_id),
            approach_description = coalesce(excluded.approach_description, strategies.approach_description),
            submission_slot = coalesce(excluded.submission_slot, strategies.submission_slot),
            submission_uuid = coalesce(excluded.submission_uuid, strategies.submission_uuid),
            finding_ids = CASE WHEN excluded.finding_ids IS NULL THEN strategies.finding_ids
                               WHEN strategies.finding_ids IS NULL OR strategies.finding_ids = '' THEN excluded.finding_ids
                               ELSE strategies.finding_ids || ',' || excluded.finding_ids END,
            attempts = coalesce(strategies.attempts, 0) + ?9,
            learned = coalesce(excluded.learned, strategies.learned),
            last_attempted = datetime('now')
         RETURNING id, attempts",
        params![
            a.problem,
            a.domain,
            a.approach,
            a.description,
            a.outcome.as_str(),
            a.slot,
            a.uuid,
            finding_id.map(|i| i.to_string()),
            counts,
            a.learned,
        ],
        |r| Ok((r.get(0)?, r.get::<_, Option<i64>>(1)?.unwrap_or(0))),
    )
}

/// A short, single-line identifier (problem id, approach, title).
fn ident(what: &str, s: &str) -> Result<String> {
    let t = s.trim();
    if t.is_empty() {
        return Err(KbError::Invalid(format!("{what} must not be empty")));
    }
    if t.chars().any(char::is_control) {
        return Err(KbError::Invalid(format!(
            "{what} must be a single line without control characters"
        )));
    }
    if t.chars().count() > MAX_ID {
        return Err(KbError::Invalid(format!(
            "{what} is longer than {MAX_ID} characters"
        )));
    }
    Ok(t.to_string())
}

/// Optional free text: trimmed, empty means absent, NUL refused, length bounded.
fn text(what: &str, s: Option<&str>) -> Result<Option<String>> {
    let Some(t) = s.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(None);
    };
    if t.contains('\0') {
        return Err(KbError::Invalid(format!("{what} contains a NUL byte")));
    }
    if t.chars().count() > MAX_TEXT {
        return Err(KbError::Invalid(format!(
            "{what} is longer than {MAX_TEXT} characters"
        )));
    }
    Ok(Some(t.to_string()))
}

fn check_slot(slot: Option<i64>) -> Result<()> {
    match slot {
        Some(s) if s < 0 => Err(KbError::Invalid(format!(
            "--slot must be a slot number ≥ 0, not {s}"
        ))),
        _ => Ok(()),
    }
}
