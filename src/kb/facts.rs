//! One row per fact: extracted theorems deduplicated by name and normalized statement, each
//! keeping every file it occurs in (`finding_sources`), plus the constants its proof uses
//! (`finding_uses`).
//!
//! # The normalized statement
//!
//! A fact is identified by [`fact_key`]: the theorem's full name and its statement (the
//! declaration signature the outline gives, binders included) with whitespace runs collapsed,
//! and, when the statement names definitions of its own file, a digest of those definitions
//! (`NewFinding::definitions`): `A.card = 3` about `def A : Finset (Fin 10)` is not the fact
//! `A.card = 3` about another file's `def A : Finset (Fin 9)`.
//! Binder names are kept: renaming binders would need elaboration to do soundly, and two
//! statements that differ only in binder names are then stored twice, which never merges two
//! different facts (truth over volume). Layout (line breaks, indentation) never separates
//! copies of one file.
//!
//! # Invariants
//!
//! - At most one `findings` row per `fact_key` (a unique index).
//! - A fact lives as long as one occurrence does; its `confidence` is the best any occurrence
//!   supports, and `source_id` names one of its occurrences.

use rusqlite::{params, Connection};
use serde::Serialize;

use super::error::{AtPath, Result};
use super::sql::{int_at, normalize_ws, text_at};
use super::Kb;

/// The identity of a theorem fact: full name, whitespace-collapsed statement and, when the
/// statement names definitions of its own file, their digest (`NewFinding::definitions`).
pub fn fact_key(name: &str, statement: &str, definitions: Option<&str>) -> String {
    let key = format!("{}\u{1f}{}", name.trim(), normalize_ws(statement));
    match definitions {
        Some(digest) => format!("{key}\u{1f}{digest}"),
        None => key,
    }
}

/// The last dot-separated component of a constant, `«»` quoting removed.
pub(crate) fn short_name(name: &str) -> &str {
    let last = name.rsplit('.').next().unwrap_or(name);
    last.strip_prefix('«')
        .and_then(|p| p.strip_suffix('»'))
        .unwrap_or(last)
}

/// One file a fact occurs in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FactSource {
    pub path: String,
    pub slot: Option<i64>,
    pub uuid: Option<String>,
    pub problem_id: Option<String>,
    /// What this file supports (a fact's own confidence is the best of these).
    pub confidence: Option<String>,
}

/// SQL ordering confidences best first.
const CONFIDENCE_RANK: &str = "CASE {} WHEN 'verified' THEN 0 WHEN 'high' THEN 1 \
     WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END";

/// The best confidence among a fact's occurrences (NULL without any).
fn best_confidence() -> String {
    let rank = CONFIDENCE_RANK.replace("{}", "fs.confidence");
    format!(
        "(SELECT fs.confidence FROM finding_sources fs WHERE fs.finding_id = findings.id \
          ORDER BY {rank} LIMIT 1)"
    )
}

/// `SET` clause giving a fact the best confidence of its occurrences (and dropping the
/// near-miss note once some file verifies it).
fn best_confidence_set() -> String {
    let best = best_confidence();
    format!(
        "confidence = coalesce({best}, confidence),
         notes = CASE WHEN {best} = 'verified' THEN NULL ELSE notes END"
    )
}

impl Kb {
    /// Whether the schema has facts' occurrences and uses (version 3 on). A read-only
    /// connection to an older file reads without them.
    pub(crate) fn has_facts(&self) -> bool {
        self.schema_version().is_ok_and(|v| v >= 3)
    }

    /// The files a finding occurs in (a fact's every occurrence; for any other finding, its
    /// one source), by path.
    pub fn fact_sources(&self, finding_id: i64) -> Result<Vec<FactSource>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT s.path, s.slot, s.aristotle_uuid, s.problem_id, fs.confidence
                 FROM finding_sources fs JOIN sources s ON s.id = fs.source_id
                 WHERE fs.finding_id = ?1
                 UNION
                 SELECT s.path, s.slot, s.aristotle_uuid, s.problem_id, f.confidence
                 FROM findings f JOIN sources s ON s.id = f.source_id
                 WHERE f.id = ?1 AND f.fact_key IS NULL
                 ORDER BY 1",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map([finding_id], |r| {
                Ok(FactSource {
                    path: text_at(r, 0).unwrap_or_default(),
                    slot: int_at(r, 1),
                    uuid: text_at(r, 2),
                    problem_id: text_at(r, 3),
                    confidence: text_at(r, 4),
                })
            })
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }

    /// The constants a finding's proof uses, sorted.
    pub fn fact_uses(&self, finding_id: i64) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT name FROM finding_uses WHERE finding_id = ?1 ORDER BY name")
            .at(&self.path)?;
        let rows = stmt
            .query_map([finding_id], |r| r.get::<_, String>(0))
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }
}

/// Creates the temporary tables a bulk write stages facts' uses in.
pub(crate) fn start_staging(conn: &Connection) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "CREATE TEMP TABLE IF NOT EXISTS uses_staged (fact_key TEXT NOT NULL, name TEXT NOT NULL, short TEXT NOT NULL)",
    )?
    .execute([])?;
    conn.prepare_cached("DELETE FROM temp.uses_staged")?
        .execute([])?;
    start_touching(conn)
}

/// Creates (empty) the temporary list of facts whose occurrences changed in this transaction.
fn start_touching(conn: &Connection) -> rusqlite::Result<()> {
    create_touched(conn)?;
    conn.prepare_cached("DELETE FROM temp.facts_touched")?
        .execute([])?;
    Ok(())
}

/// The temporary list of facts to refresh ([`refresh_touched`]), created if missing.
fn create_touched(conn: &Connection) -> rusqlite::Result<()> {
    conn.prepare_cached("CREATE TEMP TABLE IF NOT EXISTS facts_touched (id INTEGER PRIMARY KEY)")?
        .execute([])?;
    Ok(())
}

/// Gives every fact whose occurrences changed in this transaction the title, description,
/// notes, technique, proof length and problem of the occurrence it is shown with (its `source_id`,
/// the file that vouches for it best): a fact never says "conditional on X", or names a
/// proof's technique, on the word of a file other than the one it names, and a fact whose file
/// is about no problem (a library module) is about none. The problem is the file's, unless the
/// file states the theorem of another problem (a collection's theorem named after its problem,
/// a `problem_statements` row of another problem): then it is that one's. Occurrences stored
/// before schema version 5 carry no such text and leave the fact as it is.
///
/// The title, description and technique are indexed: every touched row must be in the
/// full-text indexes already (the update trigger replaces their entries).
pub(crate) fn refresh_touched(conn: &Connection) -> rusqlite::Result<usize> {
    const PROBLEM: &str = "coalesce((SELECT ps.problem_id FROM problem_statements ps
                    WHERE ps.source_id = s.id AND ps.theorem_name = findings.theorem_name
                      AND ps.problem_id IS NOT s.problem_id LIMIT 1), s.problem_id)";
    let changed = conn
        .prepare_cached(&format!(
            "UPDATE findings SET (title, description, notes, proof_technique, proof_lines, problem_id) =
                (SELECT fs.title, fs.description, fs.notes, fs.proof_technique, fs.proof_lines,
                        {PROBLEM}
                 FROM finding_sources fs JOIN sources s ON s.id = fs.source_id
                 WHERE fs.finding_id = findings.id AND fs.source_id = findings.source_id)
             WHERE id IN (SELECT id FROM temp.facts_touched)
               AND EXISTS (SELECT 1 FROM finding_sources fs JOIN sources s ON s.id = fs.source_id
                   WHERE fs.finding_id = findings.id AND fs.source_id = findings.source_id
                     AND fs.title IS NOT NULL
                     AND (fs.title IS NOT findings.title
                          OR fs.description IS NOT findings.description
                          OR fs.notes IS NOT findings.notes
                          OR fs.proof_technique IS NOT findings.proof_technique
                          OR fs.proof_lines IS NOT findings.proof_lines
                          OR {PROBLEM} IS NOT findings.problem_id))"
        ))?
        .execute([])?;
    conn.prepare_cached("DELETE FROM temp.facts_touched")?
        .execute([])?;
    Ok(changed)
}

/// Stages the constants a fact's proof uses.
pub(crate) fn stage_uses(conn: &Connection, key: &str, uses: &[String]) -> rusqlite::Result<()> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO temp.uses_staged (fact_key, name, short) VALUES (?1, ?2, ?3)",
    )?;
    for name in uses {
        stmt.execute(params![key, name, short_name(name)])?;
    }
    Ok(())
}

/// Moves staged findings (temp.findings_staged, whose columns include `fact_key` and
/// `source_id`) into `findings`: a fact already stored, or staged twice, gains an occurrence
/// instead of a second row; other findings are inserted as they are. `columns` is the staged
/// column list.
pub(crate) fn flush_staged(conn: &Connection, columns: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(&format!(
        "INSERT INTO findings ({columns})
         SELECT {columns} FROM temp.findings_staged s
         WHERE s.fact_key IS NULL
            OR (s.rowid = (SELECT min(s2.rowid) FROM temp.findings_staged s2 WHERE s2.fact_key = s.fact_key)
                AND NOT EXISTS (SELECT 1 FROM findings f WHERE f.fact_key = s.fact_key))
         ORDER BY s.rowid"
    ))?
    .execute([])?;
    // Each occurrence keeps what its own file says of the fact.
    conn.prepare_cached(
        "INSERT OR IGNORE INTO finding_sources (finding_id, source_id, confidence, title,
             description, notes, proof_technique, proof_lines)
         SELECT f.id, s.source_id, s.confidence, s.title, s.description, s.notes,
             s.proof_technique, s.proof_lines
         FROM temp.findings_staged s JOIN findings f ON f.fact_key = s.fact_key
         WHERE s.fact_key IS NOT NULL AND s.source_id IS NOT NULL",
    )?
    .execute([])?;
    conn.prepare_cached(
        "INSERT OR IGNORE INTO temp.facts_touched (id)
         SELECT f.id FROM findings f
         WHERE f.fact_key IN (SELECT fact_key FROM temp.findings_staged WHERE fact_key IS NOT NULL)",
    )?
    .execute([])?;
    // A fact is shown with the file that vouches for it best: when a staged occurrence
    // supports more than the fact's current file, the fact names that file. Only unindexed
    // columns change here (the full-text triggers stay quiet); what that file says of the
    // fact (title, technique, …) follows in [`refresh_touched`], once every row is indexed.
    let staged_rank = CONFIDENCE_RANK.replace("{}", "s.confidence");
    let fact_rank = CONFIDENCE_RANK.replace("{}", "findings.confidence");
    conn.prepare_cached(&format!(
        "UPDATE findings SET (source_id, source_file, source_slot, source_submission_uuid) =
            (SELECT s.source_id, s.source_file, s.source_slot, s.source_submission_uuid
             FROM temp.findings_staged s WHERE s.fact_key = findings.fact_key
             ORDER BY {staged_rank}, s.rowid LIMIT 1)
         WHERE fact_key IN (SELECT fact_key FROM temp.findings_staged WHERE fact_key IS NOT NULL)
           AND (SELECT min({staged_rank}) FROM temp.findings_staged s
                WHERE s.fact_key = findings.fact_key) < {fact_rank}"
    ))?
    .execute([])?;
    // Only facts whose confidence or note changes are written: most staged facts are new and
    // already carry their one occurrence's confidence. The test reads the best rank with
    // min() (each rank names one confidence) instead of sorting the occurrences per fact.
    let best_rank = format!(
        "(SELECT min({}) FROM finding_sources fs WHERE fs.finding_id = findings.id)",
        CONFIDENCE_RANK.replace("{}", "fs.confidence")
    );
    conn.prepare_cached(&format!(
        "UPDATE findings SET {set}
         WHERE fact_key IN (SELECT fact_key FROM temp.findings_staged WHERE fact_key IS NOT NULL)
           AND (confidence IS NOT coalesce(CASE {best_rank} WHEN 0 THEN 'verified'
                    WHEN 1 THEN 'high' WHEN 2 THEN 'medium' WHEN 3 THEN 'low'
                    ELSE {best} END, confidence)
                OR (notes IS NOT NULL AND {best_rank} = 0))",
        set = best_confidence_set(),
        best = best_confidence(),
    ))?
    .execute([])?;
    conn.prepare_cached(
        "INSERT OR IGNORE INTO finding_uses (finding_id, name, short)
         SELECT f.id, u.name, u.short FROM temp.uses_staged u JOIN findings f ON f.fact_key = u.fact_key",
    )?
    .execute([])?;
    conn.prepare_cached("DELETE FROM temp.uses_staged")?
        .execute([])?;
    Ok(())
}

/// Takes a source's findings off the knowledge base: its occurrences of facts (a fact left
/// with none is deleted, one that named this file names another) and its other findings.
/// Returns how many were removed. Every affected row must already be indexed.
pub(crate) fn detach_source(conn: &Connection, source_id: i64) -> rusqlite::Result<usize> {
    conn.prepare_cached("CREATE TEMP TABLE IF NOT EXISTS detached (id INTEGER PRIMARY KEY)")?
        .execute([])?;
    conn.prepare_cached("DELETE FROM temp.detached")?
        .execute([])?;
    conn.prepare_cached(
        "INSERT OR IGNORE INTO temp.detached SELECT finding_id FROM finding_sources WHERE source_id = ?1",
    )?
    .execute([source_id])?;
    // The facts that stay are shown with another file: [`refresh_touched`] gives them its text.
    create_touched(conn)?;
    conn.prepare_cached("INSERT OR IGNORE INTO temp.facts_touched SELECT id FROM temp.detached")?
        .execute([])?;
    let occurrences = conn
        .prepare_cached("DELETE FROM finding_sources WHERE source_id = ?1")?
        .execute([source_id])?;
    conn.prepare_cached(
        "DELETE FROM findings WHERE id IN (SELECT id FROM temp.detached)
           AND NOT EXISTS (SELECT 1 FROM finding_sources fs WHERE fs.finding_id = findings.id)",
    )?
    .execute([])?;
    // Facts that named this file now name the remaining occurrence that vouches best.
    conn.prepare_cached(
        &format!("UPDATE findings SET source_id = (SELECT fs.source_id FROM finding_sources fs WHERE fs.finding_id = findings.id
                                     ORDER BY {}, fs.source_id LIMIT 1)
         WHERE id IN (SELECT id FROM temp.detached) AND source_id = ?1", CONFIDENCE_RANK.replace("{}", "fs.confidence")),
    )?
    .execute([source_id])?;
    conn.prepare_cached(&format!(
        "UPDATE findings SET {},
            source_file = (SELECT path FROM sources WHERE id = findings.source_id),
            source_slot = (SELECT slot FROM sources WHERE id = findings.source_id),
            source_submission_uuid = coalesce((SELECT aristotle_uuid FROM sources WHERE id = findings.source_id), source_submission_uuid)
         WHERE id IN (SELECT id FROM temp.detached)",
        best_confidence_set()
    ))?
    .execute([])?;
    let others = conn
        .prepare_cached("DELETE FROM findings WHERE source_id = ?1")?
        .execute([source_id])?;
    Ok(occurrences + others)
}

/// Migration step of schema version 3: gives every extracted theorem its `fact_key`, merges
/// rows of the same fact into the oldest (their sources kept as occurrences) and sets each
/// fact's confidence to the best of its occurrences.
pub(crate) fn merge_duplicates(conn: &Connection) -> rusqlite::Result<()> {
    type Row = (i64, String, String, i64, Option<String>);
    let rows: Vec<Row> = {
        let mut stmt = conn.prepare(
            "SELECT id, theorem_name, theorem_statement, source_id, confidence FROM findings
             WHERE finding_type = 'theorem' AND source_id IS NOT NULL
               AND theorem_name IS NOT NULL AND theorem_statement IS NOT NULL
             ORDER BY id",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut keeper: std::collections::HashMap<String, i64> = std::collections::HashMap::new();
    let mut occurrence = conn.prepare(
        "INSERT OR IGNORE INTO finding_sources (finding_id, source_id, confidence) VALUES (?1, ?2, ?3)",
    )?;
    let mut set_key = conn.prepare("UPDATE findings SET fact_key = ?2 WHERE id = ?1")?;
    let mut delete = conn.prepare("DELETE FROM findings WHERE id = ?1")?;
    for (id, name, statement, source, confidence) in rows {
        // Rows stored before the digest existed: their definitions are unknown.
        let key = fact_key(&name, &statement, None);
        let kept = *keeper.entry(key.clone()).or_insert(id);
        occurrence.execute(params![kept, source, confidence])?;
        if kept == id {
            set_key.execute(params![id, key])?;
        } else {
            delete.execute([id])?;
        }
    }
    conn.execute_batch(&format!(
        "UPDATE findings SET {} WHERE fact_key IS NOT NULL",
        best_confidence_set()
    ))?;
    Ok(())
}
