//! `mk recommend`: techniques ranked by how often they worked in a domain.
//!
//! Evidence, per technique (names compared case- and whitespace-insensitively):
//! - `strategies` rows in the domain: `proven` = 1 success (+ earlier attempts as failures),
//!   `partial` = half a success, `failed` = one failure per attempt;
//! - attempts (files Aristotle returned, `attempts` table): `proven` = 1 success, `partial` =
//!   half a success and half a failure, `failed` = 1 failure; the strategies derived from them
//!   (`learned = 'extracted: …'`) are not counted again;
//! - verified `theorem`/`technique` findings of result files that are not attempts: one success
//!   per file.
//!
//! Copies count once: files with the same request uuid or the same content hash (one output
//! found in several folders) are one attempt, or one file.
//!
//! Every recommendation carries its sample size (successes + failures); one without any is
//! shown as "no data", never as a rate.
//!
//! Recorded and migrated failures live in `strategies`, so they are not counted a second time
//! from their `failure` findings.
//!
//! The estimate is the posterior mean of a Beta prior centred on the domain's overall success
//! rate `m` with strength [`PRIOR_STRENGTH`]: `(s + k·m) / (n + k)`. One lucky success moves a
//! technique only part of the way above the base rate, while a long record dominates its prior.

use std::collections::HashMap;

use serde::Serialize;

use super::error::{KbError, Result};
use super::sql::{int_at, normalize_ws, problem_key, problem_key_sql, text_at};
use super::Kb;

/// Pseudo-observations of the prior.
pub const PRIOR_STRENGTH: f64 = 4.0;

/// What the recommendation is for.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Scope {
    Domain { domain: String },
    Problem { problem: String, domain: String },
}

/// One ranked technique.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Recommendation {
    pub technique: String,
    pub successes: f64,
    pub failures: f64,
    /// Posterior mean success probability.
    pub estimate: f64,
    /// Failed attempts of this technique on the problem (problem scope only).
    pub failed_here: i64,
}

/// The ranking, and what was left out because it already failed on the problem.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Recommendations {
    pub scope: Scope,
    /// The domain's overall success rate (Laplace-smoothed), the prior's mean.
    pub prior_mean: f64,
    pub prior_strength: f64,
    pub recommendations: Vec<Recommendation>,
    pub excluded: Vec<Recommendation>,
}

#[derive(Default)]
struct Obs {
    name: String,
    successes: f64,
    failures: f64,
}

impl Kb {
    /// Ranks techniques for a problem id or a domain (id or alias). For a problem, techniques
    /// already recorded as failed on it are moved to `excluded`.
    pub fn recommend(&self, target: &str, limit: usize) -> Result<Recommendations> {
        let scope = self.scope_of(target)?;
        let domain = match &scope {
            Scope::Domain { domain } | Scope::Problem { domain, .. } => domain.clone(),
        };
        let mut obs: HashMap<String, Obs> = HashMap::new();
        let mut add = |name: &str, s: f64, f: f64| {
            let key = technique_key(name);
            // An attempt whose approach could not be read says nothing about any technique.
            if key.is_empty() || key == technique_key(crate::extract::technique::UNKNOWN_APPROACH) {
                return;
            }
            let o = obs.entry(key).or_insert_with(|| Obs {
                name: normalize_ws(name),
                ..Default::default()
            });
            o.successes += s;
            o.failures += f;
        };
        let strategy_rows = self.rows(
            "SELECT s.approach_name, s.outcome, s.attempts
             FROM strategies s LEFT JOIN problems p ON p.id = s.problem_id
             WHERE coalesce(s.domain_id, p.domain_id) = ?1
               AND coalesce(s.learned, '') NOT LIKE 'extracted:%'",
            [&domain],
            |r| {
                (
                    text_at(r, 0).unwrap_or_default(),
                    text_at(r, 1).unwrap_or_default(),
                    int_at(r, 2).unwrap_or(1).max(1) as f64,
                )
            },
        )?;
        for (name, outcome, attempts) in strategy_rows {
            match outcome.as_str() {
                "proven" => add(&name, 1.0, attempts - 1.0),
                "partial" => add(&name, 0.5, attempts - 0.5),
                "failed" => add(&name, 0.0, attempts),
                _ => {}
            }
        }
        let has_attempts = self.has_facts();
        if has_attempts {
            // Copies of one output (same request uuid or same bytes, found in several
            // folders) are one attempt, with the best outcome any copy has.
            let attempts = self.rows(
                "SELECT approach, sum(best = 2), sum(best = 1), sum(best = 0) FROM (
                    SELECT a.approach, max(CASE a.outcome WHEN 'proven' THEN 2
                                           WHEN 'partial' THEN 1 ELSE 0 END) AS best
                    FROM attempts a JOIN sources s ON s.id = a.source_id
                    LEFT JOIN problems p ON p.id = a.problem_id
                    WHERE coalesce(a.domain_id, p.domain_id) = ?1
                    GROUP BY a.problem_id, a.approach, coalesce(s.aristotle_uuid, s.content_hash))
                 GROUP BY approach",
                [&domain],
                |r| {
                    (
                        text_at(r, 0).unwrap_or_default(),
                        int_at(r, 1).unwrap_or(0) as f64,
                        int_at(r, 2).unwrap_or(0) as f64,
                        int_at(r, 3).unwrap_or(0) as f64,
                    )
                },
            )?;
            for (name, proven, partial, failed) in attempts {
                add(&name, proven + partial / 2.0, failed + partial / 2.0);
            }
        }
        let extracted = self.rows(
            if has_attempts {
                "SELECT min(f.proof_technique),
                        count(DISTINCT coalesce(s.aristotle_uuid, s.content_hash))
                 FROM findings f JOIN sources s ON s.id = f.source_id
                 WHERE f.domain_id = ?1 AND f.proof_technique IS NOT NULL
                   AND f.finding_type IN ('theorem', 'technique') AND f.confidence = 'verified'
                   AND f.source_id NOT IN (SELECT source_id FROM attempts)
                 GROUP BY lower(trim(f.proof_technique))"
            } else {
                "SELECT min(proof_technique), count(DISTINCT source_id)
                 FROM findings
                 WHERE domain_id = ?1 AND source_id IS NOT NULL AND proof_technique IS NOT NULL
                   AND finding_type IN ('theorem', 'technique') AND confidence = 'verified'
                 GROUP BY lower(trim(proof_technique))"
            },
            [&domain],
            |r| {
                (
                    text_at(r, 0).unwrap_or_default(),
                    int_at(r, 1).unwrap_or(0) as f64,
                )
            },
        )?;
        for (name, files) in extracted {
            add(&name, files, 0.0);
        }

        let (s_all, n_all) = obs.values().fold((0.0, 0.0), |(s, n), o| {
            (s + o.successes, n + o.successes + o.failures)
        });
        let prior_mean = (s_all + 1.0) / (n_all + 2.0);
        let failed_here = match &scope {
            Scope::Problem { problem, .. } => self.failed_on(problem)?,
            Scope::Domain { .. } => HashMap::new(),
        };

        let mut ranked: Vec<Recommendation> = obs
            .into_iter()
            .map(|(key, o)| Recommendation {
                estimate: (o.successes + PRIOR_STRENGTH * prior_mean)
                    / (o.successes + o.failures + PRIOR_STRENGTH),
                technique: o.name,
                successes: o.successes,
                failures: o.failures,
                failed_here: failed_here.get(&key).copied().unwrap_or(0),
            })
            .collect();
        // Failed here but never seen in the domain still belongs in `excluded`.
        for (key, (name, n)) in self.failed_names(&failed_here, &scope)? {
            if !ranked.iter().any(|r| technique_key(&r.technique) == key) {
                ranked.push(Recommendation {
                    technique: name,
                    successes: 0.0,
                    failures: 0.0,
                    estimate: prior_mean,
                    failed_here: n,
                });
            }
        }
        ranked.sort_by(|a, b| {
            b.estimate
                .total_cmp(&a.estimate)
                .then_with(|| (b.successes + b.failures).total_cmp(&(a.successes + a.failures)))
                .then_with(|| a.technique.cmp(&b.technique))
        });
        let (excluded, mut recommendations): (Vec<_>, Vec<_>) =
            ranked.into_iter().partition(|r| r.failed_here > 0);
        recommendations.truncate(limit.max(1));
        Ok(Recommendations {
            scope,
            prior_mean,
            prior_strength: PRIOR_STRENGTH,
            recommendations,
            excluded,
        })
    }

    fn scope_of(&self, target: &str) -> Result<Scope> {
        let target = target.trim();
        if target.is_empty() {
            return Err(KbError::Invalid(
                "give a problem id or a domain to recommend for".into(),
            ));
        }
        if let Ok(domain) = self.domain_id(target) {
            return Ok(Scope::Domain { domain });
        }
        let Some(resolved) = self.resolve_problem(target)? else {
            return Err(self.unknown_problem(
                target,
                Some(format!(
                    "nor is it a domain ({})",
                    self.domain_ids()?.join(", ")
                )),
            )?);
        };
        let key = problem_key(&resolved.id);
        // The problem's own domain, else the commonest domain of its findings and strategies.
        let found = self.rows(
            &format!(
                "SELECT id, domain_id FROM (
                    SELECT id, domain_id, 0 AS pri, 1 AS n FROM problems WHERE {pk} = ?1
                    UNION ALL
                    SELECT problem_id, domain_id, 1, count(*) FROM findings INDEXED BY idx_findings_problem_key WHERE {fk} = ?1 GROUP BY problem_id, domain_id
                    UNION ALL
                    SELECT problem_id, domain_id, 2, count(*) FROM strategies WHERE {sk} = ?1 GROUP BY problem_id, domain_id)
                 ORDER BY domain_id IS NULL, pri, n DESC LIMIT 1",
                pk = problem_key_sql("id"),
                fk = problem_key_sql("problem_id"),
                sk = problem_key_sql("problem_id"),
            ),
            [&key],
            |r| (text_at(r, 0).unwrap_or_default(), text_at(r, 1)),
        )?;
        match found.into_iter().next() {
            Some((problem, Some(domain))) => Ok(Scope::Problem { problem, domain }),
            Some((problem, None)) => Err(KbError::Invalid(format!(
                "the domain of problem '{problem}' is unknown; run `mk recommend DOMAIN` (known: {})",
                self.domain_ids()?.join(", ")
            ))),
            None => Err(KbError::Invalid(format!(
                "the domain of problem '{}' is unknown; run `mk recommend DOMAIN` (known: {})",
                resolved.id,
                self.domain_ids()?.join(", ")
            ))),
        }
    }

    /// technique key → failed attempts on this problem (strategies and failure findings).
    fn failed_on(&self, problem: &str) -> Result<HashMap<String, i64>> {
        let key = problem_key(problem);
        let rows = self.rows(
            &format!(
                "SELECT approach_name, max(attempts, 1) FROM strategies WHERE {} = ?1 AND outcome = 'failed'
                   AND coalesce(learned, '') NOT LIKE 'extracted:%'
                 UNION ALL
                 SELECT proof_technique, 1 FROM findings INDEXED BY idx_findings_problem_key
                 WHERE {} = ?1 AND finding_type = 'failure' AND proof_technique IS NOT NULL
                   AND source_id IS NOT NULL",
                problem_key_sql("problem_id"),
                problem_key_sql("problem_id")
            ),
            [&key],
            |r| (text_at(r, 0).unwrap_or_default(), int_at(r, 1).unwrap_or(1)),
        )?;
        let mut out: HashMap<String, i64> = HashMap::new();
        for (name, n) in rows {
            *out.entry(technique_key(&name)).or_default() += n;
        }
        out.remove(&technique_key(crate::extract::technique::UNKNOWN_APPROACH));
        Ok(out)
    }

    /// Display names for failed-here techniques.
    fn failed_names(
        &self,
        failed: &HashMap<String, i64>,
        scope: &Scope,
    ) -> Result<Vec<(String, (String, i64))>> {
        let Scope::Problem { problem, .. } = scope else {
            return Ok(vec![]);
        };
        let names = self.rows(
            &format!(
                "SELECT approach_name FROM strategies WHERE {} = ?1 AND outcome = 'failed'
                 UNION SELECT proof_technique FROM findings INDEXED BY idx_findings_problem_key
                 WHERE {} = ?1 AND finding_type = 'failure' AND proof_technique IS NOT NULL AND source_id IS NOT NULL",
                problem_key_sql("problem_id"),
                problem_key_sql("problem_id")
            ),
            [problem_key(problem)],
            |r| text_at(r, 0).unwrap_or_default(),
        )?;
        let mut out: Vec<(String, (String, i64))> = Vec::new();
        for name in names {
            let key = technique_key(&name);
            if let Some(n) = failed.get(&key) {
                if !out.iter().any(|(k, _)| *k == key) {
                    out.push((key, (normalize_ws(&name), *n)));
                }
            }
        }
        Ok(out)
    }
}

/// Techniques are the same when they differ only in case and spacing.
fn technique_key(name: &str) -> String {
    normalize_ws(name).to_lowercase()
}
