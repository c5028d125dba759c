//! `mk context PROBLEM`: what an agent needs before an attempt, in one call (issue 17).
//!
//! Sections: the problem (statement, status), established facts (theorem findings and
//! recorded facts/constraints, with their sources), failed approaches and false lemmas with
//! why, techniques ranked by observed success ([`Kb::recommend`]), and problems of the same
//! domain with their outcomes. Findings rank by importance (recorded constraints, then
//! recorded facts, then the problem's extracted findings by confidence), then by observed
//! usefulness (times a later proof of a session used them), and near-copies are dropped (same
//! normalized title or theorem name): a section cut to its limit keeps what matters most.

use std::collections::{HashMap, HashSet};

use rusqlite::params;
use serde::Serialize;

use super::error::Result;
use super::model::{Confidence, Finding, Problem};
use super::recommend::Recommendation;
use super::sql::{int_at, problem_key, problem_key_sql, text_at};
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
pub(super) const FACTS: &str = "(finding_type = 'theorem' OR (finding_type = 'insight' AND
    (',' || coalesce(tags, '') || ',' LIKE '%,fact,%' OR ',' || coalesce(tags, '') || ',' LIKE '%,constraint,%')))";
pub(super) const FAILED: &str = "finding_type = 'failure'";
pub(super) const FALSE: &str = "finding_type = 'false_lemma'";

impl Kb {
    /// The context for `problem` (an id, an alias or any spelling of one), each section at
    /// most `limit` entries. An unknown problem is
    /// [`KbError::UnknownProblem`](super::KbError::UnknownProblem).
    pub fn context(&self, problem: &str, limit: usize) -> Result<Context> {
        let query = problem.trim().to_string();
        let id = self.require_problem(&query)?.id;
        let key = problem_key(&id);
        let problem = self.problem_by_key(&key)?;
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

    /// [`Kb::context`]'s similar problems for every problem key in `keys` at once, by the same
    /// rule and in the same order as one call per problem would give them (the report needs
    /// them for hundreds of problems, where a query each would take seconds). `domains` maps
    /// each key to the domain of its problem row.
    pub(super) fn similar_problems_of(
        &self,
        keys: &[(String, Option<String>)],
        limit: usize,
    ) -> Result<HashMap<String, Vec<SimilarProblem>>> {
        struct Row {
            p: SimilarProblem,
            key: String,
            domain: Option<String>,
            submissions: i64,
        }
        let rows = self.rows(
            "SELECT id, name, status, proven_count, failed_count, domain_id, submission_count
             FROM problems",
            [],
            |r| Row {
                key: problem_key(&r.get::<_, String>(0).unwrap_or_default()),
                p: SimilarProblem {
                    id: r.get(0).unwrap_or_default(),
                    name: r.get(1).unwrap_or_default(),
                    status: r.get(2).ok().flatten(),
                    proven_count: int_at(r, 3).unwrap_or(0),
                    failed_count: int_at(r, 4).unwrap_or(0),
                    shared_constants: 0,
                },
                domain: r.get(5).ok().flatten(),
                submissions: int_at(r, 6).unwrap_or(0),
            },
        )?;
        // Constants used by the proofs of each source problem id (exact), as dense numbers.
        let mut names: HashMap<String, u32> = HashMap::new();
        let mut by_problem: HashMap<String, Vec<u32>> = HashMap::new();
        if self.has_table("finding_uses")? {
            let uses = self.rows(
                "SELECT DISTINCT s.problem_id, u.name FROM finding_uses u
                 JOIN finding_sources fs ON fs.finding_id = u.finding_id
                 JOIN sources s ON s.id = fs.source_id
                 WHERE s.problem_id IS NOT NULL",
                [],
                |r| {
                    (
                        r.get::<_, String>(0).unwrap_or_default(),
                        r.get::<_, String>(1).unwrap_or_default(),
                    )
                },
            )?;
            for (problem, name) in uses {
                let next = names.len() as u32;
                let n = *names.entry(name).or_insert(next);
                by_problem.entry(problem).or_default().push(n);
            }
        }
        let mut by_key: HashMap<String, Vec<u32>> = HashMap::new();
        for (problem, n) in &by_problem {
            by_key
                .entry(problem_key(problem))
                .or_default()
                .extend_from_slice(n);
        }
        // constant → the problem rows (by index) whose own sources use it.
        let mut users: Vec<Vec<usize>> = vec![Vec::new(); names.len()];
        for (i, row) in rows.iter().enumerate() {
            for &n in by_problem.get(&row.p.id).map_or(&[][..], Vec::as_slice) {
                users[n as usize].push(i);
            }
        }
        // Same-domain fallback order: most proven, most submitted, id.
        let mut fallback: Vec<usize> = (0..rows.len()).collect();
        fallback.sort_by(|&a, &b| {
            let (a, b) = (&rows[a], &rows[b]);
            b.p.proven_count
                .cmp(&a.p.proven_count)
                .then(b.submissions.cmp(&a.submissions))
                .then_with(|| a.p.id.cmp(&b.p.id))
        });
        let mut shared = vec![0u32; rows.len()];
        let mut out = HashMap::new();
        for (key, domain) in keys {
            // The constants of every source whose problem has this key.
            let mut mine: Vec<u32> = by_key.get(key).cloned().unwrap_or_default();
            mine.sort_unstable();
            mine.dedup();
            let mut touched = Vec::new();
            for n in mine {
                for &i in &users[n as usize] {
                    if shared[i] == 0 {
                        touched.push(i);
                    }
                    shared[i] += 1;
                }
            }
            let mut found: Vec<(usize, u32)> = touched
                .iter()
                .map(|&i| (i, std::mem::take(&mut shared[i])))
                .filter(|&(i, _)| rows[i].key != *key)
                .collect();
            found.sort_by(|&(a, sa), &(b, sb)| {
                let same = |i: usize| rows[i].domain == *domain;
                sb.cmp(&sa)
                    .then(same(b).cmp(&same(a)))
                    .then(rows[b].p.proven_count.cmp(&rows[a].p.proven_count))
                    .then_with(|| rows[a].p.id.cmp(&rows[b].p.id))
            });
            found.truncate(limit);
            let mut similar: Vec<SimilarProblem> = found
                .into_iter()
                .map(|(i, n)| SimilarProblem {
                    shared_constants: i64::from(n),
                    ..rows[i].p.clone()
                })
                .collect();
            if let Some(domain) = domain {
                for &i in &fallback {
                    if similar.len() >= limit {
                        break;
                    }
                    let row = &rows[i];
                    if row.domain.as_deref() == Some(domain)
                        && row.key != *key
                        && !similar.iter().any(|s| s.id == row.p.id)
                    {
                        similar.push(row.p.clone());
                    }
                }
            }
            out.insert(key.clone(), similar);
        }
        Ok(out)
    }

    /// The problem's findings matching `filter` (one of this module's section filters), best
    /// first, near-copies dropped: one section of [`Kb::context`].
    /// How many entries [`Kb::context_items`] lists with no limit, for every problem key and
    /// list at once (by key and list: 0 facts, 1 failed approaches, 2 false lemmas): the same
    /// findings in the same order, near-copies dropped by the same rule, reading only what that
    /// rule needs (the report counts every problem's lists, where a query each took a tenth of a
    /// second on a campaign of 1,600 problems).
    pub(super) fn context_counts(&self) -> Result<HashMap<(String, u8), usize>> {
        let used = if self.has_table("finding_shown")? {
            "(SELECT count(*) FROM finding_shown u WHERE u.finding_id = f.id AND u.used_at IS NOT NULL)"
        } else {
            "0"
        };
        // The findings about each problem, as `problem_findings_from` gives them for one: its
        // own, and those occurring in its files.
        let occurring = if self.has_facts() {
            format!(
                " UNION SELECT {}, fs.finding_id FROM sources s
                 JOIN finding_sources fs ON fs.source_id = s.id WHERE s.problem_id IS NOT NULL",
                problem_key_sql("s.problem_id")
            )
        } else {
            String::new()
        };
        let sql = format!(
            "WITH of_problem(problem_key, finding) AS (
               SELECT {pk}, id FROM findings WHERE problem_id IS NOT NULL{occurring})
             SELECT * FROM (
               SELECT of_problem.problem_key,
                      CASE WHEN {FACTS} THEN 0 WHEN {FAILED} THEN 1 WHEN {FALSE} THEN 2 END AS list,
                      {importance} AS importance, {used}, f.title, f.theorem_name,
                      f.created_at, f.id
               FROM of_problem CROSS JOIN findings f ON f.id = of_problem.finding)
             WHERE list IS NOT NULL
             ORDER BY 1, 2, 3, created_at DESC, id DESC",
            pk = problem_key_sql("problem_id"),
            importance = importance_sql("f."),
        );
        let rows = self.rows(&sql, [], |r| {
            (
                (
                    text_at(r, 0).unwrap_or_default(),
                    int_at(r, 1).unwrap_or(0) as u8,
                ),
                int_at(r, 2).unwrap_or(0),
                int_at(r, 3).unwrap_or(0),
                text_at(r, 4).unwrap_or_default(),
                text_at(r, 5),
            )
        })?;
        let mut out = HashMap::new();
        let mut rest = rows.as_slice();
        while let Some(first) = rest.first() {
            let n = rest.iter().take_while(|r| r.0 == first.0).count();
            let (group, next) = rest.split_at(n);
            rest = next;
            let mut group: Vec<_> = group.iter().collect();
            group.sort_by_key(|(_, importance, used, _, _)| (*importance, -used));
            let mut seen = NearCopies::default();
            let listed = group
                .iter()
                .filter(|(_, _, _, title, name)| seen.admit(title, name.as_deref()))
                .count();
            out.insert(first.0.clone(), listed);
        }
        Ok(out)
    }

    pub(super) fn context_items(
        &self,
        key: &str,
        filter: &str,
        limit: usize,
    ) -> Result<Vec<ContextItem>> {
        let used = if self.has_table("finding_shown")? {
            "(SELECT count(*) FROM finding_shown u WHERE u.finding_id = f.id AND u.used_at IS NOT NULL)"
        } else {
            "0"
        };
        // The order is the list's own (importance, then use, then the newest), so a window of
        // it holds the first entries of the whole list.
        let sql = format!(
            "SELECT {cols}, {used} AS used FROM {of_problem}
             WHERE {filter}
             ORDER BY {importance}, used DESC, f.created_at DESC, f.id DESC
             LIMIT ?2",
            cols = Finding::columns("f."),
            of_problem = self.problem_findings_from("f"),
            importance = importance_sql("f."),
        );
        let n = Finding::columns("").split(',').count();
        // Read a few times more than shown so that dropping near-copies still fills the list,
        // and more again while near-copies leave it short of `limit` and there is more to read.
        let mut window = limit.saturating_mul(4).max(1);
        let mut rows = loop {
            let rows = self.rows(&sql, params![key, window as i64], |r| {
                (Finding::from_row(r, 0), int_at(r, n).unwrap_or(0))
            })?;
            if rows.len() < window || admitted(&rows) >= limit {
                break rows;
            }
            window = window.saturating_mul(4);
        };
        // Importance first (the order above), then usefulness within a level.
        rows.sort_by_key(|(f, used)| (importance(f), -used));
        let mut seen = NearCopies::default();
        let mut out = Vec::new();
        for (f, used) in rows {
            if !seen.admit(&f.title, f.theorem_name.as_deref()) {
                continue;
            }
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

/// How many of `rows` (in the list's order) a list admits: those no near-copy of one before.
fn admitted(rows: &[(Finding, i64)]) -> usize {
    let mut seen = NearCopies::default();
    rows.iter()
        .filter(|(f, _)| seen.admit(&f.title, f.theorem_name.as_deref()))
        .count()
}

/// How important a finding is before an attempt, most first: what someone recorded as a
/// constraint of the problem (0), then as a fact of it (1), both the problem's own word that
/// no extraction repeats; then extracted findings by trust ([`Confidence::trust_rank`]).
/// The entries a list of `mk context` has admitted: a near-copy of one (the same title up to
/// digits, case and spacing, or the same theorem name) is not listed again.
#[derive(Default)]
struct NearCopies(HashSet<String>);

impl NearCopies {
    /// Whether an entry titled `title` declaring `name` is no near-copy of one admitted before;
    /// if so it is admitted.
    fn admit(&mut self, title: &str, name: Option<&str>) -> bool {
        let title = normalized(title);
        let name = name.map(|n| format!("name:{n}"));
        if self.0.contains(&title) || name.as_ref().is_some_and(|n| self.0.contains(n)) {
            return false;
        }
        self.0.insert(title);
        self.0.extend(name);
        true
    }
}

fn importance(f: &Finding) -> u8 {
    let recorded = (f.finding_type == "insight")
        .then(|| recorded_kind(f.tags.as_deref()))
        .flatten();
    match recorded {
        Some("constraint") => 0,
        Some(_) => 1,
        None => 2 + Confidence::trust_rank(f.confidence.as_deref()),
    }
}

/// `constraint` or `fact` when the tags mark a recorded one (`mk record constraint|fact`).
fn recorded_kind(tags: Option<&str>) -> Option<&'static str> {
    let tags: Vec<&str> = tags?.split(',').map(str::trim).collect();
    ["constraint", "fact"]
        .into_iter()
        .find(|kind| tags.contains(kind))
}

/// [`importance`] in SQL, for columns prefixed with `p`.
fn importance_sql(p: &str) -> String {
    let tags = format!("',' || replace(coalesce({p}tags, ''), ' ', '') || ','");
    format!(
        "CASE WHEN {p}finding_type = 'insight' AND {tags} LIKE '%,constraint,%' THEN 0
              WHEN {p}finding_type = 'insight' AND {tags} LIKE '%,fact,%' THEN 1
              ELSE 2 + {} END",
        Confidence::trust_rank_sql(&format!("{p}confidence"))
    )
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
