//! `mk search`: full-text BM25 over prose plus identifier matching, with duplicates collapsed.
//!
//! Ranking, best first:
//! 1. **exact**: the whole query equals a theorem name (also `Finset.card_le_card` for
//!    `card_le_card`), a technique name, or a problem id compared by [`problem_key`];
//!    then **uses**: the proofs that use the constant the query names (`Finset.card_le_card`,
//!    or `card_le_card` for it), from `finding_uses`;
//! 2. **identifier**: the whole query is a substring of one of those names (trigram index);
//! 3. **text**: BM25 over `findings_fts` with the spec's column weights ([`rank`]: FTS5's own
//!    formula, with the word counts behind its IDF sampled rather than read in full).
//!
//! Within a tier, findings that also match the text query come first, by BM25. At equal
//! relevance the more trustworthy finding comes first (verified, high, medium, low:
//! [`Confidence::trust_rank`]), then the newer result (the date its file states, else the
//! file's modification time), never the order of extraction. Findings that state the same
//! thing (same type, name and whitespace-normalized statement) are shown once, with the other
//! slots listed.

pub mod query;
pub mod rank;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use serde::Serialize;

use super::dates::ResultDate;
use super::error::{AtPath, Result};
use super::model::{Confidence, Finding, FindingType};
use super::sql::{normalize_ws, problem_key, problem_key_sql};
use super::Kb;
pub use query::ParsedQuery;

/// Filters and size of a search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchOptions {
    /// Number of results (after collapsing duplicates).
    pub limit: usize,
    /// Only this `domains.id`.
    pub domain: Option<String>,
    /// Only this finding type.
    pub finding_type: Option<FindingType>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            limit: 5,
            domain: None,
            finding_type: None,
        }
    }
}

/// How a hit matched the query.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchKind {
    Exact,
    /// The proof uses the constant the query names.
    Uses,
    Identifier,
    Text,
}

/// One search result: a finding, its relevance and where else the same statement appears.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SearchHit {
    #[serde(flatten)]
    pub finding: Finding,
    /// BM25 relevance (higher is better); 0 for findings matched by identifier only. Comparable
    /// within one search only (a one-word query leaves out the word's IDF; see [`rank`]).
    pub score: f64,
    #[serde(rename = "match")]
    pub match_kind: MatchKind,
    /// Other slots where the same statement was stored, ascending.
    pub also_in_slots: Vec<i64>,
    /// How many other findings were collapsed into this one.
    pub duplicates: usize,
    /// The constant the proof uses that the query named (uses matches only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uses: Option<String>,
    /// When the result was produced (see [`ResultDate`]), not when it was extracted.
    pub result_date: Option<ResultDate>,
}

/// Candidates fetched per kind of match (at least 20 per requested result, so that collapsed
/// duplicates still leave enough distinct results).
const POOL: usize = 100;
/// Most matching findings BM25 ranks per query (the newest ones); see `text_candidates`.
pub const RANK_CAP: usize = 500;

struct Candidate {
    id: i64,
    /// The finding's row: read with the match for names and ids; for text matches only when
    /// the ranking needs it (see [`Kb::rank_and_group`]). Boxed: a search handles hundreds of
    /// candidates, and inline rows made their vectors, map and sort buffer large allocations
    /// of their own (each first touch of fresh memory is a page fault).
    finding: Option<Box<Finding>>,
    kind: MatchKind,
    /// For identifier matches, how close the name is to the query (lower is closer).
    closeness: (u8, usize),
    /// BM25 as FTS5 reports it (lower is better), when the text query matched.
    bm25: Option<f64>,
    /// The used constant that matched (uses matches).
    used: Option<String>,
}

impl Kb {
    /// Searches findings; any text is accepted (see [`query`]). An empty result is not an
    /// error; use [`Kb::finding_count`] to tell an empty knowledge base from no match.
    pub fn search(&self, text: &str, opts: &SearchOptions) -> Result<Vec<SearchHit>> {
        // One read transaction for the dozen statements of a search: they all see one snapshot
        // (a writer committing meanwhile cannot split a page between two states), and the WAL
        // and file locks are taken once rather than per statement (~270 fcntl calls before).
        // Dropped at the end, it only ends the read.
        let _snapshot = if self.conn.is_autocommit() {
            Some(self.conn.unchecked_transaction().at(&self.path)?)
        } else {
            None
        };
        // The schema version, read once per search (the snapshot keeps it from changing): it
        // was read again by every helper that asks whether a table or column exists.
        let version = self.schema_version()?;
        let facts = version >= 3;
        let parsed = ParsedQuery::parse(text);
        let (words, prefixed) = (parsed.to_fts5_words(), parsed.to_fts5());
        let ident = query::identifier_candidate(text);
        let filters = Filters {
            domain: opts.domain.clone(),
            kind: opts.finding_type.map(|t| t.as_str().to_string()),
        };
        let limit = opts.limit.max(1);
        let pool = POOL.max(limit * 20);
        let mut cands = Vec::with_capacity(4 * pool);
        if let Some(id) = &ident {
            self.exact_candidates(id, &filters, pool, &mut cands)?;
            // Exact matches that already fill the page outrank every other kind of match: the
            // uses and substrings of the name would only be read to be dropped. (A
            // `Namespace.name` found by substring is exact too, but sorts after the names equal
            // to the query.)
            let exact: HashSet<String> = cands
                .iter()
                .filter_map(|c| c.finding.as_deref().map(group_key))
                .collect();
            if exact.len() < limit {
                self.use_candidates(id, &filters, pool, facts, &mut cands)?;
                self.identifier_candidates(id, &filters, pool, &mut cands)?;
            }
        }
        // Names and problem ids that already fill the page make BM25 moot: it would only order
        // them among themselves, and its IDF pass reads every posting of every query word.
        let named: HashSet<String> = cands
            .iter()
            .filter_map(|c| c.finding.as_deref().map(group_key))
            .collect();
        let words = words.filter(|_| named.len() < limit);
        // Whole words first; prefixes only when whole words do not fill the pool (a user who
        // typed a complete common word does not pay for expanding it).
        if let Some(q) = &words {
            let mut found = Vec::new();
            let full = self.text_candidates(q, &filters, pool, &mut found)? == pool;
            match &prefixed {
                Some(p) if !full && p != q => {
                    self.text_candidates(p, &filters, pool, &mut cands)?;
                }
                _ => cands.extend(found),
            }
        }
        self.rank_and_group(cands, limit, facts, version >= 6)
    }

    /// Whether no finding is stored (cheaper than counting).
    pub fn is_empty(&self) -> Result<bool> {
        self.conn
            .query_row("SELECT NOT EXISTS (SELECT 1 FROM findings)", [], |r| {
                r.get(0)
            })
            .at(&self.path)
    }

    /// Number of findings stored.
    pub fn finding_count(&self) -> Result<i64> {
        self.conn
            .query_row("SELECT count(*) FROM findings", [], |r| r.get(0))
            .at(&self.path)
    }

    /// Equality on names and on the problem key. Each lookup is forced onto its index: with
    /// `ORDER BY id` and a LIMIT the planner may otherwise prefer scanning the whole table in id
    /// order, which is fast only when the value exists.
    ///
    /// LIMITs in these statements are written into the SQL, not bound: SQLite compiles a
    /// statement again when a value is bound to a `LIMIT ?` (to plan with the number), so each
    /// was compiled twice.
    fn exact_candidates(
        &self,
        ident: &str,
        f: &Filters,
        pool: usize,
        out: &mut Vec<Candidate>,
    ) -> Result<()> {
        let key = problem_key(ident);
        let sql = format!(
            "SELECT {cols} FROM (
                SELECT id FROM (SELECT id FROM findings INDEXED BY idx_findings_theorem_name
                                WHERE theorem_name = ?1 COLLATE NOCASE ORDER BY {trust}, id DESC LIMIT {pool})
                UNION SELECT id FROM (SELECT id FROM findings INDEXED BY idx_findings_technique
                                WHERE proof_technique = ?1 COLLATE NOCASE ORDER BY {trust}, id DESC LIMIT {pool})
                UNION SELECT id FROM (SELECT id FROM findings INDEXED BY idx_findings_problem_key
                                WHERE {pkey} = ?2 ORDER BY {trust}, id DESC LIMIT {pool})) u
             CROSS JOIN findings f ON f.id = u.id
             WHERE (?3 IS NULL OR f.domain_id = ?3) AND (?4 IS NULL OR f.finding_type = ?4)",
            cols = Finding::columns("f."),
            pkey = problem_key_sql("problem_id"),
            trust = Confidence::trust_rank_sql("confidence"),
        );
        let key = (!key.is_empty()).then_some(key);
        let mut stmt = self.conn.prepare_cached(&sql).at(&self.path)?;
        let rows = stmt
            .query_map(rusqlite::params![ident, key, f.domain, f.kind], |r| {
                Ok(Finding::from_row(r, 0))
            })
            .at(&self.path)?;
        for finding in rows {
            let finding = finding.at(&self.path)?;
            out.push(Candidate {
                id: finding.id,
                finding: Some(Box::new(finding)),
                kind: MatchKind::Exact,
                closeness: (0, 0),
                bm25: None,
                used: None,
            });
        }
        Ok(())
    }

    /// Findings whose proofs use the constant `ident` names: the same last component, and
    /// qualifiers that agree on their common tail (`card_le_card` and `Finset.card_le_card`
    /// both find a use written either way).
    fn use_candidates(
        &self,
        ident: &str,
        f: &Filters,
        pool: usize,
        facts: bool,
        out: &mut Vec<Candidate>,
    ) -> Result<()> {
        let ident = ident.trim().trim_start_matches('@');
        let short = super::facts::short_name(ident);
        if short.is_empty() || ident.contains(char::is_whitespace) || !facts {
            return Ok(());
        }
        let sql = format!(
            "SELECT u.name, {cols} FROM finding_uses u INDEXED BY idx_finding_uses_short
             JOIN findings f ON f.id = u.finding_id
             WHERE u.short = ?1 COLLATE NOCASE
               AND (?2 IS NULL OR f.domain_id = ?2) AND (?3 IS NULL OR f.finding_type = ?3)
             ORDER BY {trust}, u.finding_id DESC LIMIT {limit}",
            cols = Finding::columns("f."),
            trust = Confidence::trust_rank_sql("f.confidence"),
            limit = pool * 4,
        );
        let mut stmt = self.conn.prepare_cached(&sql).at(&self.path)?;
        let rows = stmt
            .query_map(rusqlite::params![short, f.domain, f.kind], |r| {
                Ok((r.get::<_, String>(0)?, Finding::from_row(r, 1)))
            })
            .at(&self.path)?;
        let wanted: Vec<String> = ident.split('.').map(str::to_lowercase).collect();
        let mut taken = 0;
        for row in rows {
            let (name, finding) = row.at(&self.path)?;
            let have: Vec<String> = name.split('.').map(str::to_lowercase).collect();
            let agree = wanted
                .iter()
                .rev()
                .zip(have.iter().rev())
                .all(|(a, b)| a == b);
            if !agree {
                continue;
            }
            out.push(Candidate {
                id: finding.id,
                finding: Some(Box::new(finding)),
                kind: MatchKind::Uses,
                // The use written exactly as asked first.
                closeness: (u8::from(!name.eq_ignore_ascii_case(ident)), 0),
                bm25: None,
                used: Some(name),
            });
            taken += 1;
            if taken == pool {
                break;
            }
        }
        Ok(())
    }

    /// Substring matches in names. Also promotes `Namespace.name` to exact for query `name`.
    fn identifier_candidates(
        &self,
        ident: &str,
        f: &Filters,
        pool: usize,
        out: &mut Vec<Candidate>,
    ) -> Result<()> {
        // Trigrams need three characters; identifiers contain no spaces.
        if ident.chars().count() < 3 || ident.contains(char::is_whitespace) {
            return Ok(());
        }
        // The newest `pool` matches. FTS5 reads doclists backwards about half as fast as
        // forwards, so the matches are first read forwards, one more than `pool`: a name with
        // no more matches than that (most names of any length) has them all, the same set.
        let matches = |order: &str, limit: usize| -> Result<Vec<Finding>> {
            let sql = format!(
                "SELECT {cols} FROM findings_ident JOIN findings f ON f.id = findings_ident.rowid
                 WHERE findings_ident MATCH ?1
                   AND (?2 IS NULL OR f.domain_id = ?2) AND (?3 IS NULL OR f.finding_type = ?3)
                 ORDER BY findings_ident.rowid {order} LIMIT {limit}",
                cols = Finding::columns("f."),
            );
            let mut stmt = self.conn.prepare_cached(&sql).at(&self.path)?;
            let rows = stmt
                .query_map(
                    rusqlite::params![query::quote(ident), f.domain, f.kind],
                    |r| Ok(Finding::from_row(r, 0)),
                )
                .at(&self.path)?;
            rows.collect::<rusqlite::Result<Vec<_>>>().at(&self.path)
        };
        let rows = if f.domain.is_none() && f.kind.is_none() {
            // Without filters the index alone tells whether there are more than `pool`; rows
            // are read only for the matches kept (a common name read 101 rows to drop them).
            let sql = format!(
                "SELECT rowid FROM findings_ident WHERE findings_ident MATCH ?1
                 ORDER BY rowid ASC LIMIT {}",
                pool + 1
            );
            let mut stmt = self.conn.prepare_cached(&sql).at(&self.path)?;
            let ids = stmt
                .query_map([query::quote(ident)], |r| r.get::<_, i64>(0))
                .at(&self.path)?
                .collect::<rusqlite::Result<Vec<i64>>>()
                .at(&self.path)?;
            if ids.len() > pool {
                matches("DESC", pool)?
            } else {
                ids.into_iter()
                    .filter_map(|id| self.finding_row(id).transpose())
                    .collect::<Result<Vec<_>>>()?
            }
        } else {
            let rows = matches("ASC", pool + 1)?;
            if rows.len() > pool {
                matches("DESC", pool)?
            } else {
                rows
            }
        };
        let suffix = format!(".{}", ident.to_lowercase());
        for finding in rows {
            let namespaced = finding
                .theorem_name
                .as_deref()
                .is_some_and(|n| n.to_lowercase().ends_with(&suffix));
            let kind = if namespaced {
                MatchKind::Exact
            } else {
                MatchKind::Identifier
            };
            let closeness = closeness(&finding, &ident.to_lowercase());
            out.push(Candidate {
                id: finding.id,
                finding: Some(Box::new(finding)),
                kind,
                closeness,
                bm25: None,
                used: None,
            });
        }
        Ok(())
    }

    /// BM25 candidates, best first. Returns how many were returned (== `pool`: there may be more).
    ///
    /// Ranking costs a few microseconds per matching row, so a query matching most of a large
    /// knowledge base would take hundreds of milliseconds. BM25 therefore ranks at most the
    /// newest [`RANK_CAP`] matching findings (FTS5 streams matches newest first and stops);
    /// narrower queries (more words, a phrase, `--type`, `--domain`) reach further back.
    fn text_candidates(
        &self,
        fts: &str,
        f: &Filters,
        pool: usize,
        out: &mut Vec<Candidate>,
    ) -> Result<usize> {
        // The join to `findings` is only needed to filter. Rows are not read here: of the
        // `pool` best, ranking reads those it shows and those it must tell apart by trust or
        // date (equal scores); each is a page of `findings` of its own.
        let cap = RANK_CAP.max(pool);
        let matches = if f.domain.is_none() && f.kind.is_none() {
            format!(
                "SELECT rowid AS id, {rank} AS score FROM findings_fts
                 WHERE findings_fts MATCH ?1 AND ?2 IS NULL AND ?3 IS NULL
                 ORDER BY rowid DESC LIMIT {cap}",
                rank = rank::RANK_SQL
            )
        } else {
            format!(
                "SELECT findings_fts.rowid AS id, {rank} AS score
                 FROM findings_fts JOIN findings f ON f.id = findings_fts.rowid
                 WHERE findings_fts MATCH ?1
                   AND (?2 IS NULL OR f.domain_id = ?2) AND (?3 IS NULL OR f.finding_type = ?3)
                 ORDER BY findings_fts.rowid DESC LIMIT {cap}",
                rank = rank::RANK_SQL
            )
        };
        let sql = format!(
            "SELECT c.score, c.id FROM (SELECT id, score FROM ({matches}) ORDER BY score LIMIT {pool}) c
             ORDER BY c.score"
        );
        let mut stmt = self.conn.prepare_cached(&sql).at(&self.path)?;
        let rows = stmt
            .query_map(rusqlite::params![fts, f.domain, f.kind], |r| {
                Ok((r.get::<_, f64>(0)?, r.get::<_, i64>(1)?))
            })
            .at(&self.path)?;
        let mut n = 0;
        for row in rows {
            let (rank, id) = row.at(&self.path)?;
            out.push(Candidate {
                id,
                finding: None,
                kind: MatchKind::Text,
                closeness: (0, 0),
                bm25: Some(rank),
                used: None,
            });
            n += 1;
        }
        Ok(n)
    }

    fn rank_and_group(
        &self,
        cands: Vec<Candidate>,
        limit: usize,
        facts: bool,
        dated: bool,
    ) -> Result<Vec<SearchHit>> {
        // Merge by id: best kind, and the text score wherever the text query matched. (An index
        // per id rather than a map of candidates: the map's growth was a series of large
        // allocations, each fresh memory.)
        let mut at: HashMap<i64, usize> = HashMap::with_capacity(cands.len());
        let mut all: Vec<Candidate> = Vec::with_capacity(cands.len());
        for c in cands {
            match at.get(&c.id) {
                Some(&i) => {
                    let e = &mut all[i];
                    if c.kind < e.kind {
                        e.kind = c.kind;
                        e.closeness = c.closeness;
                    }
                    e.used = e.used.take().or(c.used);
                    e.bm25 = e.bm25.or(c.bm25);
                    if e.finding.is_none() {
                        e.finding = c.finding;
                    }
                }
                None => {
                    at.insert(c.id, all.len());
                    all.push(c);
                }
            }
        }
        let used = self.times_used(all.iter().map(|c| c.id))?;
        // Dates only break ties of relevance and trust, and are shown for the `limit` hits: each
        // is read when first needed (a lookup in `sources` per candidate was a tenth of a
        // search).
        let dates: RefCell<HashMap<i64, Option<ResultDate>>> = RefCell::new(HashMap::new());
        let failed: RefCell<Option<super::KbError>> = RefCell::new(None);
        // Rows of text matches read so far (None: no such finding; the match is dropped, as
        // the join to `findings` dropped it).
        let rows: RefCell<HashMap<i64, Option<Finding>>> = RefCell::new(HashMap::new());
        // Reads a text match's row into `rows` the first time the order needs it. The sort
        // then borrows it: a copy of the row per comparison was a tenth of a phrase search.
        let load = |c: &Candidate| {
            if c.finding.is_some() || rows.borrow().contains_key(&c.id) {
                return;
            }
            let f = self.finding_row(c.id).unwrap_or_else(|e| {
                failed.borrow_mut().get_or_insert(e);
                None
            });
            rows.borrow_mut().insert(c.id, f);
        };
        let date_of = |f: &Finding| -> Option<ResultDate> {
            if let Some(d) = dates.borrow().get(&f.id) {
                return d.clone();
            }
            let d = self.result_date(f, dated).unwrap_or_else(|e| {
                failed.borrow_mut().get_or_insert(e);
                None
            });
            dates.borrow_mut().insert(f.id, d.clone());
            d
        };
        let trust = |c: &Candidate| match &c.finding {
            Some(f) => Confidence::trust_rank(f.confidence.as_deref()),
            None => {
                load(c);
                let rows = rows.borrow();
                let row = rows.get(&c.id).and_then(Option::as_ref);
                Confidence::trust_rank(row.and_then(|f| f.confidence.as_deref()))
            }
        };
        let date = |c: &Candidate| match &c.finding {
            Some(f) => date_of(f).map(|d| d.date),
            None => {
                load(c);
                let rows = rows.borrow();
                let row = rows.get(&c.id).and_then(Option::as_ref);
                row.and_then(date_of).map(|d| d.date)
            }
        };
        // Relevance first, then observed usefulness: a finding agents used after it was shown
        // to them (hook journal) weighs up to half again its text score, never a match tier.
        let weighted = |c: &Candidate| {
            c.bm25.map(|r| {
                let times = used.get(&c.id).copied().unwrap_or(0).min(10);
                r * (1.0 + 0.05 * times as f64)
            })
        };
        all.sort_by(|a, b| {
            a.kind
                .cmp(&b.kind)
                .then_with(|| a.closeness.cmp(&b.closeness))
                .then_with(|| match (weighted(a), weighted(b)) {
                    (Some(x), Some(y)) => x.total_cmp(&y),
                    (Some(_), None) => std::cmp::Ordering::Less,
                    (None, Some(_)) => std::cmp::Ordering::Greater,
                    // Only matches by name or id lack a text score, and their rows are read.
                    (None, None) => type_order(a.finding.as_deref())
                        .cmp(&type_order(b.finding.as_deref()))
                        .then_with(|| {
                            let times = |c: &Candidate| used.get(&c.id).copied();
                            times(b).cmp(&times(a))
                        }),
                })
                // Equal relevance: the more trustworthy, then the newer result; the id only
                // makes the order total.
                .then_with(|| trust(a).cmp(&trust(b)))
                .then_with(|| date(b).cmp(&date(a)))
                .then_with(|| b.id.cmp(&a.id))
        });
        if let Some(e) = failed.borrow_mut().take() {
            return Err(e);
        }

        let mut seen: HashSet<String> = HashSet::new();
        let mut hits = Vec::new();
        let mut probes = Probes::new();
        for mut c in all {
            let finding = match c.finding.take() {
                Some(f) => Some(*f),
                None => match rows.borrow_mut().remove(&c.id) {
                    Some(f) => f,
                    None => self.finding_row(c.id)?,
                },
            };
            let Some(finding) = finding else { continue };
            let key = group_key(&finding);
            if !seen.insert(key.clone()) {
                continue;
            }
            let (also_in_slots, duplicates) = self.siblings(&finding, &key, facts, &mut probes)?;
            let result_date = date_of(&finding);
            if let Some(e) = failed.borrow_mut().take() {
                return Err(e);
            }
            hits.push(SearchHit {
                score: c.bm25.map(|r| -r).unwrap_or(0.0),
                match_kind: c.kind,
                also_in_slots,
                duplicates,
                uses: c.used,
                result_date,
                finding,
            });
            if hits.len() == limit {
                break;
            }
        }
        Ok(hits)
    }

    /// One finding's row by id (None when there is none).
    fn finding_row(&self, id: i64) -> Result<Option<Finding>> {
        use rusqlite::OptionalExtension;
        // Built once: a search reads dozens of rows by id, and the statement cache is keyed
        // by the text.
        static SQL: LazyLock<String> = LazyLock::new(|| {
            format!(
                "SELECT {} FROM findings WHERE id = ?1",
                Finding::columns("")
            )
        });
        self.conn
            .prepare_cached(&SQL)
            .and_then(|mut s| {
                s.query_row([id], |r| Ok(Finding::from_row(r, 0)))
                    .optional()
            })
            .at(&self.path)
    }

    /// How many sessions used each of `ids` after it was shown to them (`finding_shown`);
    /// empty on a knowledge base without the session journal.
    fn times_used(&self, ids: impl Iterator<Item = i64>) -> Result<HashMap<i64, i64>> {
        let mut out = HashMap::new();
        if !self.has_table("finding_shown")? {
            return Ok(out);
        }
        // Most knowledge bases have no use recorded at all: one look instead of one per id.
        let any: bool = self
            .conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM finding_shown WHERE used_at IS NOT NULL)")
            .and_then(|mut s| s.query_row([], |r| r.get(0)))
            .at(&self.path)?;
        if !any {
            return Ok(out);
        }
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT count(*) FROM finding_shown WHERE finding_id = ?1 AND used_at IS NOT NULL",
            )
            .at(&self.path)?;
        for id in ids {
            let n: i64 = stmt.query_row([id], |r| r.get(0)).at(&self.path)?;
            if n > 0 {
                out.insert(id, n);
            }
        }
        Ok(out)
    }

    /// Other findings stating the same thing: their slots (ascending, without the
    /// representative's own) and their number. `probes` keeps the findings read per name (or
    /// title) for the other hits of the same search: results with one name but different
    /// statements would each read them all again.
    fn siblings(
        &self,
        f: &Finding,
        key: &str,
        facts: bool,
        probes: &mut Probes,
    ) -> Result<(Vec<i64>, usize)> {
        let mut slots = Vec::new();
        let mut dups = 0;
        // A fact's other occurrences.
        let occ_sql = if facts {
            "SELECT s.slot FROM finding_sources fs JOIN sources s ON s.id = fs.source_id
             WHERE fs.finding_id = ?1 AND fs.source_id IS NOT coalesce(?2, -1)"
        } else {
            "SELECT NULL WHERE ?1 IS NULL AND ?2 IS NULL"
        };
        let mut occ = self.conn.prepare_cached(occ_sql).at(&self.path)?;
        let occurrences = occ
            .query_map(rusqlite::params![f.id, f.source_id], |r| {
                super::sql::int_at_opt(r, 0)
            })
            .at(&self.path)?;
        for slot in occurrences {
            dups += 1;
            if let Some(s) = slot.at(&self.path)?.filter(|s| Some(*s) != f.source_slot) {
                slots.push(s);
            }
        }
        let probe_key = match &f.theorem_name {
            // `COLLATE NOCASE` folds ASCII letters only.
            Some(name) => (true, name.to_ascii_lowercase(), f.finding_type.clone()),
            None => (false, f.title.clone(), f.finding_type.clone()),
        };
        if !probes.contains_key(&probe_key) {
            let rows = self.probe_rows(f)?;
            probes.insert(probe_key.clone(), rows);
        }
        for (probe_key, id, slot) in &probes[&probe_key] {
            if *id == f.id || probe_key != key {
                continue;
            }
            dups += 1;
            if let Some(s) = slot.filter(|s| Some(*s) != f.source_slot) {
                slots.push(s);
            }
        }
        slots.sort_unstable();
        slots.dedup();
        Ok((slots, dups))
    }

    /// The group key, id and slot of every finding of `f`'s type with its name (or title).
    fn probe_rows(&self, f: &Finding) -> Result<Vec<(String, i64, Option<i64>)>> {
        let (sql, value) = match &f.theorem_name {
            Some(name) => (
                "SELECT id, finding_type, title, description, theorem_name, theorem_statement, source_slot
                 FROM findings INDEXED BY idx_findings_theorem_name
                 WHERE theorem_name = ?1 COLLATE NOCASE AND finding_type = ?2 LIMIT 5000",
                name,
            ),
            None => (
                "SELECT id, finding_type, title, description, theorem_name, theorem_statement, source_slot
                 FROM findings INDEXED BY idx_findings_title WHERE title = ?1 AND finding_type = ?2 LIMIT 5000",
                &f.title,
            ),
        };
        let mut stmt = self.conn.prepare_cached(sql).at(&self.path)?;
        let rows = stmt
            .query_map([value, &f.finding_type], |r| {
                let probe = Finding {
                    id: r.get(0)?,
                    finding_type: super::sql::text_at(r, 1).unwrap_or_default(),
                    title: super::sql::text_at(r, 2).unwrap_or_default(),
                    description: super::sql::text_at(r, 3).unwrap_or_default(),
                    theorem_name: super::sql::text_at(r, 4),
                    theorem_statement: super::sql::text_at(r, 5),
                    source_slot: super::sql::int_at(r, 6),
                    ..Finding::default()
                };
                Ok(probe)
            })
            .at(&self.path)?;
        rows.map(|probe| {
            let probe = probe.at(&self.path)?;
            Ok((group_key(&probe), probe.id, probe.source_slot))
        })
        .collect()
    }
}

/// Findings read by [`Kb::probe_rows`], by (by name, name in ASCII lowercase or title, type).
type Probes = HashMap<(bool, String, String), Vec<(String, i64, Option<i64>)>>;

struct Filters {
    domain: Option<String>,
    kind: Option<String>,
}

/// Same type, same name (or title), same statement (or description) up to whitespace.
fn group_key(f: &Finding) -> String {
    let name = f.theorem_name.as_deref().unwrap_or(&f.title);
    let body = f.theorem_statement.as_deref().unwrap_or(&f.description);
    format!(
        "{}\u{1}{}\u{1}{}",
        f.finding_type,
        name.to_lowercase(),
        normalize_ws(body)
    )
}

/// How well a name containing `query` (lowercase) fits it: names where the query starts a
/// name component (`card_le` in `Finset.card_le_card`) first, then shorter names.
fn closeness(f: &Finding, query: &str) -> (u8, usize) {
    [&f.theorem_name, &f.problem_id, &f.proof_technique]
        .into_iter()
        .flatten()
        .filter_map(|name| {
            let lower = name.to_lowercase();
            let at = lower.find(query)?;
            let boundary = at == 0 || lower[..at].ends_with(['.', '_', ' ']);
            Some((u8::from(!boundary), name.chars().count()))
        })
        .min()
        .unwrap_or((2, usize::MAX))
}

/// Among equally matched identifier hits, what a user most likely wants first.
fn type_order(f: Option<&Finding>) -> u8 {
    match f.and_then(Finding::kind) {
        Some(FindingType::Theorem) => 0,
        Some(FindingType::FalseLemma) => 1,
        Some(FindingType::Failure) => 2,
        Some(FindingType::Technique) => 3,
        _ => 4,
    }
}
