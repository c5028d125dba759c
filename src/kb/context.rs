//! `mk context PROBLEM`: what an agent needs before an attempt, in one call (issue 17).
//!
//! Sections: the problem (statement, status), established facts (theorem findings and
//! recorded facts/constraints, with their sources), failed approaches and false lemmas with
//! why, techniques ranked by observed success ([`Kb::recommend`]), and problems of the same
//! domain with their outcomes. Findings rank by relevance (the problem's own, by confidence),
//! then by observed usefulness (times a later proof of a session used them), and near-copies
//! are dropped (same normalized title or theorem name).

use std::collections::HashSet;

use rusqlite::params;
use serde::Serialize;

use super::error::Result;
use super::model::{Finding, Problem};
use super::recommend::Recommendation;
use super::sql::{int_at, problem_key, problem_key_sql};
use super::Kb;

/// One finding as context shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContextItem {
    pub id: i64,
    pub finding_type: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub theorem_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub technique: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<String>,
    /// Where it came from: the result file, or the session that captured it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Sessions in which a later proof used it after it was shown.
    pub used: i64,
}

/// A similar problem and how it went: one whose proofs use constants this problem's proofs
/// use (most shared first), else one of the same domain.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimilarProblem {
    pub id: String,
    pub name: String,
    pub status: Option<String>,
    pub proven_count: i64,
    pub failed_count: i64,
    /// How many constants its proofs share with this problem's (0: same domain only).
    pub shared_constants: i64,
}

/// What [`Kb::context`] returns.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Context {
    pub query: String,
    pub problem: Option<Problem>,
    pub facts: Vec<ContextItem>,
    pub failed_approaches: Vec<ContextItem>,
    pub false_lemmas: Vec<ContextItem>,
    pub techniques: Vec<Recommendation>,
    pub similar_problems: Vec<SimilarProblem>,
}

impl Context {
    /// Every finding id shown (for usage feedback).
    pub fn finding_ids(&self) -> Vec<i64> {
        self.facts
            .iter()
            .chain(&self.failed_approaches)
            .chain(&self.false_lemmas)
            .map(|i| i.id)
            .collect()
    }

    /// Nothing is known about the problem.
    pub fn is_empty(&self) -> bool {
        self.problem.is_none()
            && self.facts.is_empty()
            && self.failed_approaches.is_empty()
            && self.false_lemmas.is_empty()
    }
}

/// Which findings each section takes.
const FACTS: &str = "(finding_type = 'theorem' OR (finding_type = 'insight' AND
    (',' || coalesce(tags, '') || ',' LIKE '%,fact,%' OR ',' || coalesce(tags, '') || ',' LIKE '%,constraint,%')))";
const FAILED: &str = "finding_type = 'failure'";
const FALSE: &str = "finding_type = 'false_lemma'";

impl Kb {
    /// The context for `problem` (an id, an alias or any spelling of one), each section at
    /// most `limit` entries. An unknown problem is
    /// [`KbError::UnknownProblem`](super::KbError::UnknownProblem).
    pub fn context(&self, problem: &str, limit: usize) -> Result<Context> {
        let query = problem.trim().to_string();
        let id = self.require_problem(&query)?.id;
        let key = problem_key(&id);
        let problem = self
            .rows(
                &format!(
                    "SELECT {} FROM problems WHERE {} = ?1 ORDER BY id LIMIT 1",
                    Problem::COLUMNS,
                    problem_key_sql("id")
                ),
                params![key],
                Problem::from_row,
            )?
            .into_iter()
            .next();
        let techniques = self
            .recommend(&id, limit)
            .map(|r| r.recommendations)
            .unwrap_or_default();
        let domain = problem.as_ref().and_then(|p| p.domain_id.clone());
        let similar_problems = self.similar_problems(&key, domain.as_deref(), limit)?;
        Ok(Context {
            facts: self.context_items(&key, FACTS, limit)?,
            failed_approaches: self.context_items(&key, FAILED, limit)?,
            false_lemmas: self.context_items(&key, FALSE, limit)?,
            query,
            problem,
            techniques,
            similar_problems,
        })
    }

    /// The problem's findings matching `filter`, best first, near-copies dropped.
    /// Problems whose proofs use the constants this problem's proofs use, most shared first
    /// (the same domain breaks ties), then problems of the same domain.
    fn similar_problems(
        &self,
        key: &str,
        domain: Option<&str>,
        limit: usize,
    ) -> Result<Vec<SimilarProblem>> {
        let map = |r: &rusqlite::Row<'_>| SimilarProblem {
            id: r.get(0).unwrap_or_default(),
            name: r.get(1).unwrap_or_default(),
            status: r.get(2).ok().flatten(),
            proven_count: int_at(r, 3).unwrap_or(0),
            failed_count: int_at(r, 4).unwrap_or(0),
            shared_constants: int_at(r, 5).unwrap_or(0),
        };
        let mut out = Vec::new();
        if self.has_table("finding_uses")? {
            let pkey = problem_key_sql("s.problem_id");
            out = self.rows(
                &format!(
                    "WITH mine AS (
                         SELECT DISTINCT u.name FROM finding_uses u
                         JOIN finding_sources fs ON fs.finding_id = u.finding_id
                         JOIN sources s ON s.id = fs.source_id
                         WHERE s.problem_id IS NOT NULL AND {pkey} = ?1)
                     SELECT p.id, p.name, p.status, p.proven_count, p.failed_count,
                            count(DISTINCT u.name) AS shared
                     FROM mine JOIN finding_uses u ON u.name = mine.name
                     JOIN finding_sources fs ON fs.finding_id = u.finding_id
                     JOIN sources s ON s.id = fs.source_id
                     JOIN problems p ON p.id = s.problem_id
                     WHERE {} != ?1
                     GROUP BY p.id
                     ORDER BY shared DESC, (p.domain_id IS ?2) DESC, p.proven_count DESC, p.id
                     LIMIT ?3",
                    problem_key_sql("p.id")
                ),
                params![key, domain, limit as i64],
                map,
            )?;
        }
        if out.len() < limit {
            if let Some(domain) = domain {
                let more = self.rows(
                    &format!(
                        "SELECT id, name, status, proven_count, failed_count, 0 FROM problems
                         WHERE domain_id = ?1 AND {} != ?2
                         ORDER BY proven_count DESC, submission_count DESC, id LIMIT ?3",
                        problem_key_sql("id")
                    ),
                    params![domain, key, limit as i64],
                    map,
                )?;
                for p in more {
                    if out.len() == limit {
                        break;
                    }
                    if !out.iter().any(|o: &SimilarProblem| o.id == p.id) {
                        out.push(p);
                    }
                }
            }
        }
        Ok(out)
    }

    fn context_items(&self, key: &str, filter: &str, limit: usize) -> Result<Vec<ContextItem>> {
        let used = if self.has_table("finding_shown")? {
            "(SELECT count(*) FROM finding_shown u WHERE u.finding_id = f.id AND u.used_at IS NOT NULL)"
        } else {
            "0"
        };
        let sql = format!(
            "SELECT {cols}, {used} FROM findings f INDEXED BY idx_findings_problem_key
             WHERE {pkey} = ?1 AND {filter}
             ORDER BY CASE f.confidence WHEN 'verified' THEN 0 WHEN 'high' THEN 1 WHEN 'medium' THEN 2
                      WHEN 'low' THEN 3 ELSE 4 END, f.created_at DESC, f.id DESC
             LIMIT ?2",
            cols = Finding::columns("f."),
            pkey = problem_key_sql("f.problem_id"),
        );
        let n = Finding::columns("").split(',').count();
        // Read a few times more than shown so that dropping near-copies still fills the list.
        let mut rows = self.rows(&sql, params![key, (limit * 4) as i64], |r| {
            (Finding::from_row(r, 0), int_at(r, n).unwrap_or(0))
        })?;
        // Relevance first (the order above), then usefulness within a confidence level.
        rows.sort_by_key(|(f, used)| (rank(f.confidence.as_deref()), -used));
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for (f, used) in rows {
            let title = normalized(&f.title);
            let name = f.theorem_name.clone().map(|n| format!("name:{n}"));
            if seen.contains(&title) || name.as_ref().is_some_and(|n| seen.contains(n)) {
                continue;
            }
            seen.insert(title);
            seen.extend(name);
            out.push(ContextItem {
                id: f.id,
                source: f.source_file.clone().or_else(|| {
                    f.notes
                        .as_deref()
                        .filter(|n| n.starts_with("session "))
                        .map(str::to_string)
                }),
                why: f.why_failed.clone().or_else(|| {
                    (f.finding_type != "theorem" && f.finding_type != "insight")
                        .then(|| f.description.clone())
                }),
                finding_type: f.finding_type,
                title: f.title,
                theorem_name: f.theorem_name,
                statement: f.theorem_statement,
                technique: f.proof_technique,
                confidence: f.confidence,
                used,
            });
            if out.len() == limit {
                break;
            }
        }
        Ok(out)
    }
}

fn rank(confidence: Option<&str>) -> u8 {
    match confidence {
        Some("verified") => 0,
        Some("high") => 1,
        Some("medium") => 2,
        Some("low") => 3,
        _ => 4,
    }
}

/// A title with digits and case gone and whitespace collapsed: `Attempt 3 failed` and
/// `attempt 4 failed` are near-copies.
fn normalized(title: &str) -> String {
    title
        .chars()
        .filter(|c| !c.is_ascii_digit())
        .flat_map(char::to_lowercase)
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
