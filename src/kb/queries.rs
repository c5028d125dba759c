//! Read models behind `mk find`, `mk failed`, `mk strategies` and `mk stats`.

use std::collections::HashSet;

use rusqlite::params;
use serde::Serialize;

use super::error::{AtPath, Result};
use super::model::{Finding, Problem, Strategy};
use super::sql::{int_at, like_contains, normalize_ws, problem_key, problem_key_sql, text_at};
use super::Kb;
use crate::tracking::{FalseLemma, Submission, Tracking};

/// Whether a false lemma's text mentions `keyword` (case-insensitive).
fn mentions(l: &FalseLemma, keyword: Option<&str>) -> bool {
    let Some(k) = keyword.map(str::to_lowercase) else {
        return true;
    };
    [
        &l.lemma_name,
        &l.false_statement,
        &l.why_false,
        &l.avoid_pattern,
        &l.impact,
    ]
    .iter()
    .any(|f| f.as_deref().is_some_and(|t| t.to_lowercase().contains(&k)))
}

fn is_migrated(l: &FalseLemma, migrated: &HashSet<String>) -> bool {
    l.id.is_some_and(|id| migrated.contains(&format!("tracking:false_lemmas:{id}")))
}

/// Findings shown per type on the problem dashboard.
const PER_TYPE: i64 = 10;

/// `mk find`: everything known about one problem.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ProblemReport {
    /// The text asked for.
    pub query: String,
    /// The alias the query was, when it was not a spelling of the problem's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
    /// The problem row whose id matches (ignoring case, spaces, `_` and `-`).
    pub problem: Option<Problem>,
    /// Other problems whose main statement is the same as this one's (the same fingerprint,
    /// [`crate::extract::fingerprint`]): the same mathematics under another id. Linked, never
    /// merged ([`Kb::same_statement`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub same_statement: Vec<SameStatement>,
    /// Statements proven in one file and disproved in another (either side about this
    /// problem): the evidence contradicts itself, so these come first.
    pub conflicts: Vec<Conflict>,
    /// Facts about the problem, by type: totals and the most recent few of each (`facts` in
    /// JSON, the word `mk stats` and `mf extract` count in).
    #[serde(rename = "facts")]
    pub findings: Vec<FindingsOfType>,
    pub strategies: Vec<Strategy>,
    /// From tracking.db.
    pub false_lemmas: Vec<FalseLemma>,
    /// From tracking.db, newest first.
    pub submissions: Vec<Submission>,
    /// Warnings about tracking.db.
    pub notes: Vec<String>,
}

impl ProblemReport {
    /// Whether anything at all was found.
    pub fn is_empty(&self) -> bool {
        self.problem.is_none()
            && self.findings.is_empty()
            && self.strategies.is_empty()
            && self.false_lemmas.is_empty()
            && self.submissions.is_empty()
    }
}

/// A problem whose main statement is the same as another's: the same statement fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SameStatement {
    pub id: String,
    pub status: Option<String>,
    /// The file and theorem of its main statement.
    pub statement_source: String,
    pub statement_theorem: String,
    /// The evidence: always `same statement`.
    pub evidence: &'static str,
}

/// One statement that a theorem finding (`verified` or `high`) proves and a `false_lemma`
/// finding disproves: same theorem name, same statement up to whitespace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Conflict {
    pub theorem_name: String,
    pub statement: String,
    /// The file whose proof claims it, and that proof's confidence.
    pub proven_in: String,
    pub confidence: String,
    /// The file whose disproof refutes it.
    pub disproved_in: String,
}

/// Conflicts listed at most.
const MAX_CONFLICTS: usize = 20;

/// Findings of one type for a problem.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FindingsOfType {
    pub finding_type: String,
    pub total: i64,
    /// Newest first, at most a few.
    pub recent: Vec<Finding>,
}

/// `mk failed`: failed approaches and false lemmas.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FailedReport {
    pub keyword: Option<String>,
    /// The problem asked about, as the knowledge base spells it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// `failure` and `false_lemma` facts, newest first (`facts` in JSON).
    #[serde(rename = "facts")]
    pub findings: Vec<Finding>,
    /// tracking.db false lemmas not (yet) migrated into knowledge.db.
    pub tracking_false_lemmas: Vec<FalseLemma>,
    pub notes: Vec<String>,
}

/// `mk strategies`: what worked, by frequency, and how recorded approaches fared.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StrategiesReport {
    pub domain: Option<String>,
    pub techniques: Vec<TechniqueUse>,
    pub approaches: Vec<ApproachOutcomes>,
}

/// A proof technique of verified theorems.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TechniqueUse {
    pub technique: String,
    pub domain_id: Option<String>,
    pub count: i64,
    /// Distinct slots, ascending.
    pub slots: Vec<i64>,
}

/// Outcomes of one approach across problems (`strategies` table).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ApproachOutcomes {
    pub approach: String,
    pub proven: i64,
    pub partial: i64,
    pub failed: i64,
    pub in_flight: i64,
    pub untried: i64,
    pub problems: i64,
}

/// A labelled count (`key` is `None` for NULL).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Count {
    pub key: Option<String>,
    pub count: i64,
}

/// How recent the knowledge is.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Freshness {
    /// When the newest fact was stored.
    pub latest_fact: Option<String>,
    pub latest_extraction: Option<String>,
    /// Facts stored in the last 7 days.
    pub facts_last_7_days: i64,
    /// Files extracted.
    pub files: i64,
}

/// `mk stats`, in the words of [`super::FactCounts`]: `facts` (one per theorem, failure,
/// false lemma, insight), `occurrences` (a fact in one file); `by_type`, `by_domain` and
/// `by_confidence` count facts.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    pub schema_version: i64,
    pub facts: i64,
    pub occurrences: i64,
    pub by_type: Vec<Count>,
    pub by_domain: Vec<Count>,
    pub by_confidence: Vec<Count>,
    pub freshness: Freshness,
    pub strategy_outcomes: Vec<Count>,
    pub problems: i64,
    pub problems_by_status: Vec<Count>,
    /// Problems by status that nothing but their files' sketch names names
    /// ([`super::Problem::named_by_sketch_only`]): part of `problems_by_status`, their status
    /// no mathematics' their files state.
    pub named_by_sketch_only_by_status: Vec<Count>,
}

impl Kb {
    /// The problem dashboard. `query` is an id, an alias or any spelling of one
    /// ([`Kb::resolve_problem`]); `tracking` adds false lemmas and submissions when available.
    /// A problem neither the knowledge base nor tracking.db knows is
    /// [`KbError::UnknownProblem`](super::KbError::UnknownProblem).
    pub fn find_problem(&self, query: &str, tracking: Option<&Tracking>) -> Result<ProblemReport> {
        let query = query.trim();
        let resolved = self.resolve_problem(query)?;
        let id = resolved.as_ref().map_or(query, |r| r.id.as_str());
        let key = problem_key(id);
        let mut report = ProblemReport {
            query: query.to_string(),
            alias: resolved.as_ref().and_then(|r| r.alias.clone()),
            ..Default::default()
        };

        report.problem = self.problem_by_key(&key)?;
        if let Some(p) = &report.problem {
            report.same_statement = self.same_statement(&p.id)?;
        }

        let sql = format!(
            "SELECT finding_type, total, {cols} FROM (
                SELECT f.*, count(*) OVER (PARTITION BY f.finding_type) AS total,
                       row_number() OVER (PARTITION BY f.finding_type ORDER BY f.created_at DESC, f.id DESC) AS n
                FROM {of_problem})
             WHERE n <= ?2
             ORDER BY CASE finding_type WHEN 'theorem' THEN 0 WHEN 'false_lemma' THEN 1 WHEN 'failure' THEN 2
                      WHEN 'technique' THEN 3 ELSE 4 END, finding_type, n",
            cols = Finding::columns(""),
            of_problem = self.problem_findings_from("f"),
        );
        let rows = self.rows(&sql, params![key, PER_TYPE], |r| {
            (
                text_at(r, 0).unwrap_or_default(),
                int_at(r, 1).unwrap_or(0),
                Finding::from_row(r, 2),
            )
        })?;
        for (kind, total, finding) in rows {
            match report.findings.last_mut() {
                Some(g) if g.finding_type == kind => g.recent.push(finding),
                _ => report.findings.push(FindingsOfType {
                    finding_type: kind,
                    total,
                    recent: vec![finding],
                }),
            }
        }

        report.conflicts = self.conflicts(&key)?;

        let sql = format!(
            "SELECT {} FROM strategies WHERE {} = ?1
             ORDER BY CASE outcome WHEN 'proven' THEN 0 WHEN 'partial' THEN 1 WHEN 'in_flight' THEN 2
                      WHEN 'failed' THEN 3 ELSE 4 END, last_attempted DESC",
            Strategy::COLUMNS,
            problem_key_sql("problem_id")
        );
        report.strategies = self.rows(&sql, params![key], Strategy::from_row)?;

        if let Some(t) = tracking {
            let migrated = self.migrated_false_lemmas()?;
            report.false_lemmas = t
                .false_lemmas_for_problem(id, 20)
                .into_iter()
                .filter(|l| !is_migrated(l, &migrated))
                .collect();
            report.submissions = t.submissions_for_problem(id, 10);
            report.notes = t.notes();
        }
        if report.is_empty() {
            return Err(self.unknown_problem(query, None)?);
        }
        Ok(report)
    }

    /// The other problems whose main statement (the file and theorem `problems` names as its
    /// statement) has the same fingerprint as problem `id`'s: the same mathematics spelled as
    /// another problem (a campaign's several ids, one benchmark in two projects). Ids stay
    /// apart: each keeps its files, attempts and status, and a tracking.db id is never renamed;
    /// this is the link between them. Empty before schema 11's fingerprints exist.
    pub fn same_statement(&self, id: &str) -> Result<Vec<SameStatement>> {
        Ok(self
            .same_statements(Some(id))?
            .into_iter()
            .map(|(_, same)| same)
            .collect())
    }

    /// [`Kb::same_statement`] of problem `id`, or of every problem (`None`): pairs of a problem
    /// and another whose main statement has the same fingerprint, by problem and then by the
    /// other's id. One query for both, so `mk find` and `mk report` link the same problems.
    pub fn same_statements(&self, id: Option<&str>) -> Result<Vec<(String, SameStatement)>> {
        let has_fingerprints: bool = self
            .conn
            .query_row(
                "SELECT count(*) FROM pragma_table_info('problem_statements')
                 WHERE name = 'fingerprint'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .at(&self.path)?
            > 0;
        if !has_fingerprints {
            return Ok(Vec::new());
        }
        self.rows(
            "WITH main AS (
                SELECT p.id, p.status, p.statement_source, p.statement_theorem, ps.fingerprint
                FROM problems p
                JOIN sources s ON s.path = p.statement_source
                JOIN problem_statements ps ON ps.source_id = s.id AND ps.problem_id = p.id
                     AND ps.theorem_name = p.statement_theorem AND ps.variant = 0
                WHERE ps.fingerprint IS NOT NULL)
             SELECT DISTINCT m.id, o.id, o.status, o.statement_source, o.statement_theorem
             FROM main m JOIN main o ON o.fingerprint = m.fingerprint AND o.id <> m.id
             WHERE ?1 IS NULL OR m.id = ?1
             ORDER BY m.id, o.id",
            params![id],
            |r| {
                (
                    text_at(r, 0).unwrap_or_default(),
                    SameStatement {
                        id: text_at(r, 1).unwrap_or_default(),
                        status: text_at(r, 2),
                        statement_source: text_at(r, 3).unwrap_or_default(),
                        statement_theorem: text_at(r, 4).unwrap_or_default(),
                        evidence: "same statement",
                    },
                )
            },
        )
    }

    /// SQL `FROM` items giving alias `f` the findings about the problem whose key is `?1`: by
    /// their own problem id, or because one of the files they occur in belongs to that problem
    /// (a fact found in files of several problems is listed under each). The ids come first
    /// (CROSS JOIN keeps that order), so a filter on the finding's type never makes SQLite scan
    /// every finding of that type.
    pub(crate) fn problem_findings_from(&self, f: &str) -> String {
        let own = format!(
            "SELECT id FROM findings INDEXED BY idx_findings_problem_key WHERE {} = ?1",
            problem_key_sql("problem_id")
        );
        let ids = if self.has_facts() {
            format!(
                "{own} UNION SELECT fs.finding_id FROM sources s
                 JOIN finding_sources fs ON fs.source_id = s.id
                 WHERE s.problem_id IN (SELECT id FROM problems WHERE {} = ?1)",
                problem_key_sql("id")
            )
        } else {
            own
        };
        format!("({ids}) AS of_problem CROSS JOIN findings {f} ON {f}.id = of_problem.id")
    }

    /// Proofs contradicted by disproofs of the same statement, where either side is about the
    /// problem with key `key`. Each side is found through its problem index, its counterpart
    /// through the theorem-name index; statements are compared up to whitespace.
    fn conflicts(&self, key: &str) -> Result<Vec<Conflict>> {
        let sql = format!(
            "SELECT t.theorem_name, t.theorem_statement, f.theorem_statement, t.source_file,
                    t.confidence, f.source_file
             FROM findings f INDEXED BY idx_findings_problem_key
             JOIN findings t ON t.theorem_name = f.theorem_name COLLATE NOCASE
             WHERE {fkey} = ?1 AND f.finding_type = 'false_lemma'
               AND t.finding_type = 'theorem' AND t.confidence IN ('verified', 'high')
             UNION
             SELECT t.theorem_name, t.theorem_statement, f.theorem_statement, t.source_file,
                    t.confidence, f.source_file
             FROM findings t INDEXED BY idx_findings_problem_key
             JOIN findings f ON f.theorem_name = t.theorem_name COLLATE NOCASE
             WHERE {tkey} = ?1 AND t.finding_type = 'theorem' AND t.confidence IN ('verified', 'high')
               AND f.finding_type = 'false_lemma'
             LIMIT 1000",
            fkey = problem_key_sql("f.problem_id"),
            tkey = problem_key_sql("t.problem_id"),
        );
        let rows = self.rows(&sql, params![key], |r| {
            (
                text_at(r, 0).unwrap_or_default(),
                text_at(r, 1).unwrap_or_default(),
                text_at(r, 2).unwrap_or_default(),
                text_at(r, 3).unwrap_or_default(),
                text_at(r, 4).unwrap_or_default(),
                text_at(r, 5).unwrap_or_default(),
            )
        })?;
        let mut conflicts: Vec<Conflict> = rows
            .into_iter()
            .filter(|(_, proven, disproved, ..)| normalize_ws(proven) == normalize_ws(disproved))
            .map(
                |(name, statement, _, proven_in, confidence, disproved_in)| Conflict {
                    theorem_name: name,
                    statement,
                    proven_in,
                    confidence,
                    disproved_in,
                },
            )
            .collect();
        conflicts.sort_by(|a, b| {
            (&a.theorem_name, &a.proven_in, &a.disproved_in).cmp(&(
                &b.theorem_name,
                &b.proven_in,
                &b.disproved_in,
            ))
        });
        conflicts.truncate(MAX_CONFLICTS);
        Ok(conflicts)
    }

    /// Failed approaches and false lemmas, optionally containing `keyword` in the title,
    /// reason, avoid pattern, name or problem id, and optionally of one `problem` (an id, an
    /// alias or any spelling of one; unknown: [`KbError::UnknownProblem`](super::KbError::UnknownProblem)).
    pub fn failed(
        &self,
        problem: Option<&str>,
        keyword: Option<&str>,
        limit: usize,
        tracking: Option<&Tracking>,
    ) -> Result<FailedReport> {
        let keyword = keyword.map(str::trim).filter(|k| !k.is_empty());
        let problem = match problem.map(str::trim).filter(|p| !p.is_empty()) {
            Some(p) => Some(self.require_problem(p)?.id),
            None => None,
        };
        let sql = format!(
            "SELECT {} FROM findings
             WHERE finding_type IN ('failure', 'false_lemma')
               AND (?1 IS NULL OR title LIKE ?1 ESCAPE '\\' OR why_failed LIKE ?1 ESCAPE '\\'
                    OR avoid_pattern LIKE ?1 ESCAPE '\\' OR theorem_name LIKE ?1 ESCAPE '\\'
                    OR problem_id LIKE ?1 ESCAPE '\\')
               AND (?3 IS NULL OR {} = ?3)
             ORDER BY created_at DESC, id DESC LIMIT ?2",
            Finding::columns(""),
            problem_key_sql("problem_id")
        );
        let pattern = keyword.map(like_contains);
        let key = problem.as_deref().map(problem_key);
        let findings = self.rows(&sql, params![pattern, limit as i64, key], |r| {
            Finding::from_row(r, 0)
        })?;
        let mut report = FailedReport {
            keyword: keyword.map(str::to_string),
            problem: problem.clone(),
            findings,
            ..Default::default()
        };
        if let Some(t) = tracking {
            let migrated = self.migrated_false_lemmas()?;
            let lemmas = match &problem {
                Some(p) => t.false_lemmas_for_problem(p, limit),
                None => t.false_lemmas_matching(keyword, limit),
            };
            report.tracking_false_lemmas = lemmas
                .into_iter()
                .filter(|l| !is_migrated(l, &migrated))
                .filter(|l| keyword.is_none() || problem.is_none() || mentions(l, keyword))
                .collect();
            report.notes = t.notes();
        }
        Ok(report)
    }

    /// Proven techniques by frequency and approach outcomes, optionally in one domain
    /// (a `domains.id`; resolve user input with [`Kb::domain_id`] first).
    pub fn strategies(&self, domain: Option<&str>, limit: usize) -> Result<StrategiesReport> {
        // A fact counts once per file that verifies it (its occurrences), as before facts.
        let sql = if self.has_facts() {
            "SELECT f.proof_technique, f.domain_id, count(*) AS n,
                    group_concat(DISTINCT coalesce(s.slot, f.source_slot))
             FROM findings f LEFT JOIN finding_sources fs ON fs.finding_id = f.id
             LEFT JOIN sources s ON s.id = fs.source_id
             WHERE f.finding_type = 'theorem' AND coalesce(fs.confidence, f.confidence) = 'verified'
               AND f.proof_technique IS NOT NULL AND (?1 IS NULL OR f.domain_id = ?1)
             GROUP BY f.proof_technique, f.domain_id ORDER BY n DESC, f.proof_technique LIMIT ?2"
        } else {
            "SELECT proof_technique, domain_id, count(*) AS n, group_concat(DISTINCT source_slot)
             FROM findings
             WHERE finding_type = 'theorem' AND confidence = 'verified' AND proof_technique IS NOT NULL
               AND (?1 IS NULL OR domain_id = ?1)
             GROUP BY proof_technique, domain_id ORDER BY n DESC, proof_technique LIMIT ?2"
        };
        let techniques = self.rows(sql, params![domain, limit as i64], |r| {
            let mut slots: Vec<i64> = text_at(r, 3)
                .unwrap_or_default()
                .split(',')
                .filter_map(|s| s.trim().parse().ok())
                .collect();
            slots.sort_unstable();
            TechniqueUse {
                technique: text_at(r, 0).unwrap_or_default(),
                domain_id: text_at(r, 1),
                count: int_at(r, 2).unwrap_or(0),
                slots,
            }
        })?;
        let approaches = self.rows(
            "SELECT s.approach_name,
                    sum(s.outcome = 'proven'), sum(s.outcome = 'partial'), sum(s.outcome = 'failed'),
                    sum(s.outcome = 'in_flight'), sum(s.outcome = 'untried'), count(DISTINCT s.problem_id)
             FROM strategies s LEFT JOIN problems p ON p.id = s.problem_id
             WHERE ?1 IS NULL OR coalesce(s.domain_id, p.domain_id) = ?1
             GROUP BY s.approach_name
             ORDER BY 2 DESC, 3 DESC, 4 ASC, s.approach_name LIMIT ?2",
            params![domain, limit as i64],
            |r| ApproachOutcomes {
                approach: text_at(r, 0).unwrap_or_default(),
                proven: int_at(r, 1).unwrap_or(0),
                partial: int_at(r, 2).unwrap_or(0),
                failed: int_at(r, 3).unwrap_or(0),
                in_flight: int_at(r, 4).unwrap_or(0),
                untried: int_at(r, 5).unwrap_or(0),
                problems: int_at(r, 6).unwrap_or(0),
            },
        )?;
        Ok(StrategiesReport {
            domain: domain.map(str::to_string),
            techniques,
            approaches,
        })
    }

    /// Counts for the dashboard.
    pub fn stats(&self) -> Result<Stats> {
        let count = |sql: &str| -> Result<Vec<Count>> {
            self.rows(sql, [], |r| Count {
                key: text_at(r, 0),
                count: int_at(r, 1).unwrap_or(0),
            })
        };
        let one = |sql: &str| -> Result<i64> {
            Ok(self
                .rows(sql, [], |r| int_at(r, 0).unwrap_or(0))?
                .into_iter()
                .next()
                .unwrap_or(0))
        };
        let text = |sql: &str| -> Result<Option<String>> {
            Ok(self
                .rows(sql, [], |r| text_at(r, 0))?
                .into_iter()
                .next()
                .flatten())
        };
        let sizes = self.fact_counts()?;
        Ok(Stats {
            schema_version: self.schema_version()?,
            facts: sizes.facts,
            occurrences: sizes.occurrences,
            by_type: count(
                "SELECT finding_type, count(*) FROM findings GROUP BY 1 ORDER BY 2 DESC, 1",
            )?,
            by_domain: count(
                "SELECT domain_id, count(*) FROM findings GROUP BY 1 ORDER BY 2 DESC, 1",
            )?,
            by_confidence: count(
                "SELECT confidence, count(*) FROM findings GROUP BY 1 ORDER BY 2 DESC, 1",
            )?,
            freshness: Freshness {
                latest_fact: text("SELECT max(created_at) FROM findings")?,
                latest_extraction: text("SELECT max(extracted_at) FROM sources")?,
                facts_last_7_days: one(
                    "SELECT count(*) FROM findings WHERE created_at >= datetime('now', '-7 days')",
                )?,
                files: sizes.files,
            },
            strategy_outcomes: count(
                "SELECT outcome, count(*) FROM strategies GROUP BY 1 ORDER BY 2 DESC, 1",
            )?,
            problems: one("SELECT count(*) FROM problems")?,
            problems_by_status: count(
                "SELECT status, count(*) FROM problems GROUP BY 1 ORDER BY 2 DESC, 1",
            )?,
            named_by_sketch_only_by_status: if self.schema_version()? >= 8 {
                count(&format!(
                    "SELECT status, count(*) FROM problems p WHERE {}
                     GROUP BY 1 ORDER BY 2 DESC, 1",
                    super::status::SKETCH_ONLY_SQL
                ))?
            } else {
                Vec::new()
            },
        })
    }

    /// Origins of false lemmas already migrated, so tracking.db's copy is not shown twice.
    fn migrated_false_lemmas(&self) -> Result<HashSet<String>> {
        Ok(self
            .rows(
                "SELECT origin FROM findings WHERE origin LIKE 'tracking:false\\_lemmas:%' ESCAPE '\\'",
                [],
                |r| text_at(r, 0).unwrap_or_default(),
            )?
            .into_iter()
            .collect())
    }

    pub(crate) fn rows<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        map: impl Fn(&rusqlite::Row<'_>) -> T,
    ) -> Result<Vec<T>> {
        let mut stmt = self.conn.prepare_cached(sql).at(&self.path)?;
        let rows = stmt.query_map(params, |r| Ok(map(r))).at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }
}
