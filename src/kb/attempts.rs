//! Attempts: what each file Aristotle returned tried on its problem and how it came out, and
//! the `strategies` rows derived from them.
//!
//! A file's attempt is replaced when the file is re-extracted, so counts follow the files
//! stored, never the number of runs; copies of one output (same request uuid or same content
//! hash) are one attempt. The derived strategy of (problem, approach) says how
//! many attempts there were and its best outcome; rows recorded by `mk record` are left alone.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::model::StrategyOutcome;

/// The attempt a stored file made (see [`super::FileItem::attempt`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttemptRecord {
    pub problem_id: String,
    /// The technique the attempt's main proof took (its spine), proven or not.
    pub approach: String,
    /// `proven`, `partial` or `failed`.
    pub outcome: StrategyOutcome,
}

/// Marks strategy rows this module derives (and may rewrite).
const EXTRACTED: &str = "extracted:";

/// Stores `attempt` as the attempt of `source_id` (or removes the source's attempt) and
/// refreshes the strategies it touches.
pub(crate) fn store(
    conn: &Connection,
    source_id: i64,
    attempt: Option<&AttemptRecord>,
    domain: Option<&str>,
) -> rusqlite::Result<()> {
    let old: Option<(String, String)> = conn
        .prepare_cached("SELECT problem_id, approach FROM attempts WHERE source_id = ?1")?
        .query_row([source_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    conn.prepare_cached("DELETE FROM attempts WHERE source_id = ?1")?
        .execute([source_id])?;
    if let Some(a) = attempt {
        conn.prepare_cached(
            "INSERT INTO attempts (source_id, problem_id, domain_id, approach, outcome)
             VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![
            source_id,
            a.problem_id,
            domain,
            a.approach,
            a.outcome.as_str()
        ])?;
        refresh(conn, &a.problem_id, &a.approach, domain)?;
    }
    if let Some((problem, approach)) = old {
        if attempt.is_none_or(|a| a.problem_id != problem || a.approach != approach) {
            refresh(conn, &problem, &approach, None)?;
        }
    }
    Ok(())
}

/// Rewrites the derived strategy of (problem, approach) from its attempts.
pub(crate) fn refresh(
    conn: &Connection,
    problem: &str,
    approach: &str,
    domain: Option<&str>,
) -> rusqlite::Result<()> {
    let (n, proven, partial, failed): (i64, i64, i64, i64) = conn
        .prepare_cached(
            "SELECT count(*), coalesce(sum(best = 2), 0), coalesce(sum(best = 1), 0),
                    coalesce(sum(best = 0), 0)
             FROM (SELECT max(CASE a.outcome WHEN 'proven' THEN 2 WHEN 'partial' THEN 1 ELSE 0 END) AS best
                   FROM attempts a JOIN sources s ON s.id = a.source_id
                   WHERE a.problem_id = ?1 AND a.approach = ?2
                   GROUP BY coalesce(s.aristotle_uuid, s.content_hash))",
        )?
        .query_row(params![problem, approach], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })?;
    if n == 0 {
        conn.prepare_cached(
            "DELETE FROM strategies WHERE problem_id = ?1 AND approach_name = ?2 AND learned LIKE 'extracted:%'",
        )?
        .execute(params![problem, approach])?;
        return Ok(());
    }
    let outcome = if proven > 0 {
        "proven"
    } else if partial > 0 {
        "partial"
    } else {
        "failed"
    };
    let learned =
        format!("{EXTRACTED} {proven} proven, {partial} partial, {failed} failed of {n} attempts");
    conn.prepare_cached(
        "INSERT INTO strategies (problem_id, problem_name, domain_id, approach_name, outcome, attempts, learned)
         VALUES (?1, ?1, ?3, ?2, ?4, ?5, ?6)
         ON CONFLICT(problem_id, approach_name) DO UPDATE SET
            outcome = excluded.outcome, attempts = excluded.attempts, learned = excluded.learned,
            domain_id = coalesce(strategies.domain_id, excluded.domain_id),
            last_attempted = datetime('now')
         WHERE strategies.learned LIKE 'extracted:%'",
    )?
    .execute(params![problem, approach, domain, outcome, n, learned])?;
    Ok(())
}
