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

/// A problem of the same domain and how it went.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SimilarProblem {
    pub id: String,
    pub name: String,
    pub status: Option<String>,
    pub proven_count: i64,
    pub failed_count: i64,
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
    /// The context for `problem`, each section at most `limit` entries.
    pub fn context(&self, problem: &str, limit: usize) -> Result<Context> {
        let query = problem.trim().to_string();
        let key = problem_key(&query);
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
            .recommend(&query, limit)
            .map(|r| r.recommendations)
            .unwrap_or_default();
        let similar_problems = match problem.as_ref().and_then(|p| p.domain_id.clone()) {
            Some(domain) => self.rows(
                &format!(
                    "SELECT id, name, status, proven_count, failed_count FROM problems
                     WHERE domain_id = ?1 AND {} != ?2
                     ORDER BY proven_count DESC, submission_count DESC, id LIMIT ?3",
                    problem_key_sql("id")
                ),
                params![domain, key, limit as i64],
                |r| SimilarProblem {
                    id: r.get(0).unwrap_or_default(),
                    name: r.get(1).unwrap_or_default(),
                    status: r.get(2).ok().flatten(),
                    proven_count: int_at(r, 3).unwrap_or(0),
                    failed_count: int_at(r, 4).unwrap_or(0),
                },
            )?,
            None => Vec::new(),
        };
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
