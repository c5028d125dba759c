//! Storing extracted files: sources plus their findings, one file all-or-nothing.

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};
use serde::Serialize;

use super::error::{AtPath, KbError, Result};
use super::model::{Confidence, FindingType, NewFinding, ProblemUpsert, SourceRecord};
use super::{domain_alias, retry_busy, Kb};

/// Files per transaction in [`Kb::write_batch`]: large enough to amortize the commit, small
/// enough that other writers are not kept waiting for long.
const CHUNK: usize = 256;

/// Hex blake3 digest of a file's bytes, the `sources.content_hash` every writer must use.
pub fn content_hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// One extracted file: its source row, its findings and optionally its problem.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct FileItem {
    pub source: SourceRecord,
    pub findings: Vec<NewFinding>,
    pub problem: Option<ProblemUpsert>,
    /// The attempt the file made on its problem, when it is an attempt (an Aristotle output).
    pub attempt: Option<super::AttemptRecord>,
    /// Other spellings of the file's problem met in its name and path, stored as aliases.
    pub aliases: Vec<String>,
    /// Problems the file states besides its own (a collection's theorems, each named after its
    /// problem): their statements are stored under them, and the file counts for none of
    /// them as a submission or an attempt.
    pub stated: Vec<ProblemUpsert>,
}

/// What happened to one file in [`Kb::write_batch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    /// A path not seen before.
    Added,
    /// A known path with new content: its old findings were removed, the new ones stored.
    Replaced,
    /// A known path with the same content hash: nothing was written.
    Unchanged,
    /// Nothing of this file was written (see [`FileOutcome::error`]); the others were.
    Failed,
    /// Found under a directory but not Lean text (binary, compressed, not UTF-8): not read,
    /// and no failure (`mf extract` reports it so; the writer never returns it).
    Skipped,
}

/// The sizes of the knowledge base in the words every command uses: a **fact** is one thing
/// known (a theorem with its statement, a failure, a false lemma, an insight: a `findings`
/// row); an **occurrence** is a fact in one file (a theorem proven in 12 files is one fact
/// with 12 occurrences).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FactCounts {
    pub facts: i64,
    pub occurrences: i64,
    /// Files extracted (`sources`).
    pub files: i64,
}

/// A file already in knowledge.db, as [`Kb::known_sources`] lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KnownSource {
    pub content_hash: String,
    pub slot: Option<i64>,
    pub problem_id: Option<String>,
    /// The request uuid stored for it (tracking.db may name its problem).
    pub aristotle_uuid: Option<String>,
    /// What decided its problem ([`SourceRecord::problem_evidence`]).
    pub problem_evidence: Option<String>,
    /// The names it defines ([`SourceRecord::definitions`]); `None` when an extractor before
    /// they were stored wrote the row.
    pub definitions: Option<Vec<String>>,
    /// The version of the extractor that stored its findings ([`SourceRecord::extractor`]).
    pub extractor: i64,
    /// Findings stored for it.
    pub findings: usize,
}

/// Per-file result of [`Kb::write_batch`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileOutcome {
    pub path: String,
    pub status: FileStatus,
    /// Occurrences stored for the file: one per fact it states (a fact stated twice in it
    /// occurs once).
    pub findings_added: usize,
    /// Occurrences of the file's previous version taken off.
    pub findings_removed: usize,
    /// Why the file failed, one line.
    pub error: Option<String>,
}

impl Kb {
    /// The stored content hash of `path`, to skip unchanged files before parsing them.
    pub fn source_hash(&self, path: &str) -> Result<Option<String>> {
        self.conn
            .prepare_cached("SELECT content_hash FROM sources WHERE path = ?1")
            .and_then(|mut s| s.query_row([path], |r| r.get(0)).optional())
            .at(&self.path)
    }

    /// Every stored source by path, for extractors that scan thousands of files: a file whose
    /// hash is unchanged is skipped, and its findings are reported as kept.
    pub fn known_sources(&self) -> Result<HashMap<String, KnownSource>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT path, content_hash, slot, problem_id, extractor, aristotle_uuid, problem_evidence, \
                 definitions, \
                 (SELECT COUNT(*) FROM findings WHERE findings.source_id = sources.id AND fact_key IS NULL) \
                 + (SELECT COUNT(*) FROM finding_sources WHERE finding_sources.source_id = sources.id) \
                 FROM sources",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    KnownSource {
                        content_hash: r.get(1)?,
                        slot: r.get(2)?,
                        problem_id: r.get(3)?,
                        extractor: r.get(4)?,
                        aristotle_uuid: r.get(5)?,
                        problem_evidence: r.get(6)?,
                        definitions: r
                            .get::<_, Option<String>>(7)?
                            .map(|d| d.lines().map(str::to_string).collect()),
                        findings: r.get::<_, i64>(8)?.max(0) as usize,
                    },
                ))
            })
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }

    /// Stores extracted files. Each file is all-or-nothing (a savepoint per file) and files are
    /// committed in transactions of a few hundred, retried when another writer holds the lock.
    ///
    /// For each file: the same path with the same `content_hash`, slot and problem id is
    /// [`FileStatus::Unchanged`]; a known path with a new hash (or a corrected slot or problem
    /// id) has its old findings deleted and the new ones inserted ([`FileStatus::Replaced`]);
    /// a new path is [`FileStatus::Added`]. A file whose findings are invalid (unknown domain,
    /// empty title, …) is [`FileStatus::Failed`] and the batch goes on. Findings inherit `source_file`, `source_slot`, `problem_id` and
    /// `source_submission_uuid` from the source when they leave them `None`. When a
    /// [`ProblemUpsert`] is given, the problem is created or merged and its counters move by
    /// what this file added or replaced.
    ///
    /// Both full-text indexes are updated inside the same transaction: the new findings of a
    /// chunk are indexed in bulk just before it commits (see `Pending`).
    pub fn write_batch(
        &mut self,
        items: impl IntoIterator<Item = FileItem>,
    ) -> Result<Vec<FileOutcome>> {
        let domains = self.domain_ids()?;
        // A bulk writer touches the same index and FTS pages again and again: keep them cached
        // (up to 64 MiB, allocated only as pages are used) instead of spilling and rereading.
        self.conn
            .execute_batch("PRAGMA cache_size = -65536")
            .at(&self.path)?;
        let mut outcomes = Vec::new();
        let mut iter = items.into_iter().peekable();
        while iter.peek().is_some() {
            let chunk: Vec<FileItem> = iter.by_ref().take(CHUNK).collect();
            let checked: Vec<Result<Domains>> = chunk
                .iter()
                .map(|item| check_item(item, &domains))
                .collect();
            let path = self.path.clone();
            let conn = &mut self.conn;
            let chunk_outcomes = retry_busy(|| {
                // A constraint only SQLite sees fails the fast attempt as a whole; the chunk is
                // then written again with a savepoint per file, so that only that file fails.
                match write_chunk(conn, &chunk, &checked, false) {
                    Err(e) if is_data_error(&e) => write_chunk(conn, &chunk, &checked, true),
                    other => other,
                }
                .at(&path)
            })?;
            outcomes.extend(chunk_outcomes);
        }
        Ok(outcomes)
    }

    /// How many facts (`findings` rows) and occurrences (a fact in one file: a
    /// `finding_sources` row, or a finding that is no fact of several files and has a file)
    /// the knowledge base holds. Facts recorded by hand have no occurrence.
    pub fn fact_counts(&self) -> Result<FactCounts> {
        let occurrences = if self.has_facts() {
            "(SELECT count(*) FROM finding_sources)
             + (SELECT count(*) FROM findings WHERE fact_key IS NULL AND source_id IS NOT NULL)"
        } else {
            "(SELECT count(*) FROM findings WHERE source_id IS NOT NULL)"
        };
        self.conn
            .query_row(
                &format!(
                    "SELECT (SELECT count(*) FROM findings), {occurrences},
                            (SELECT count(*) FROM sources)"
                ),
                [],
                |r| {
                    Ok(FactCounts {
                        facts: r.get(0)?,
                        occurrences: r.get(1)?,
                        files: r.get(2)?,
                    })
                },
            )
            .at(&self.path)
    }

    /// Deletes a source and its findings (a result file that no longer exists).
    /// Returns how many occurrences were removed; 0 when the path was unknown.
    pub fn remove_source(&mut self, source_path: &str) -> Result<usize> {
        self.write_transaction(|tx, path| {
            let removed = forget_source(tx, source_path)
                .at(path)?
                .map_or(0, |f| f.occurrences);
            Ok(removed)
        })
    }

    /// Inserts one finding outside any source (recorded by hand, or migrated).
    pub fn insert_finding(&mut self, finding: &NewFinding) -> Result<i64> {
        let domains = self.domain_ids()?;
        let domain = check_finding(finding, &domains)?;
        self.write_transaction(|tx, path| {
            let id = insert_finding(tx, finding, domain.as_deref(), None, None).at(path)?;
            Ok(id)
        })
    }
}

/// Writes a chunk of files in one IMMEDIATE transaction and commits it.
///
/// Without `isolate`, files go straight into the transaction and the first error ends it
/// (rolled back). With `isolate`, each file gets a savepoint and a constraint error fails only
/// that file. Savepoints are kept off the fast path because FTS5 writes its pending index data
/// to disk as a new segment whenever one opens.
fn write_chunk(
    conn: &mut Connection,
    chunk: &[FileItem],
    checked: &[Result<Domains>],
    isolate: bool,
) -> rusqlite::Result<Vec<FileOutcome>> {
    let mut tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut pending = Pending::start(&tx)?;
    let mut out = Vec::with_capacity(chunk.len());
    for (item, checked) in chunk.iter().zip(checked) {
        if !isolate {
            out.push(write_file(&tx, item, checked, &mut pending)?);
            continue;
        }
        let before = pending;
        let sp = tx.savepoint()?;
        let written = write_file(&sp, item, checked, &mut pending)
            .and_then(|outcome| pending.flush_staged(&sp).map(|()| outcome));
        match written {
            Ok(outcome) => {
                sp.commit()?;
                out.push(outcome);
            }
            Err(e) if is_data_error(&e) => {
                drop(sp); // rolls back this file, staged rows and index rows included
                pending = before;
                out.push(FileOutcome {
                    path: item.source.path.clone(),
                    status: FileStatus::Failed,
                    findings_added: 0,
                    findings_removed: 0,
                    error: Some(e.to_string()),
                });
            }
            Err(e) => return Err(e),
        }
    }
    pending.finish(&tx)?;
    tx.commit()?;
    Ok(out)
}

/// The findings of one write transaction, inserted and indexed in bulk.
///
/// Findings are first staged in a temporary table and then moved into `findings` with one
/// INSERT … SELECT: `findings` has triggers, so each INSERT into it runs under a statement
/// journal that copies every page it touches, and one statement for a whole chunk copies each
/// page once instead of once per finding.
///
/// A row in `findings_fts_deferred`, visible only inside this transaction, switches the insert
/// triggers off (schema/migrations/002_deferred_fts.sql); every finding whose id is above
/// `indexed` is then added to both full-text indexes by one INSERT … SELECT each. Both steps
/// run before any statement that reads, deletes or updates findings of a source (the delete
/// and update triggers expect indexed rows) and before the commit. AUTOINCREMENT ids only grow
/// and the transaction holds the write lock, so the findings above the mark are exactly the
/// ones this transaction inserted.
#[derive(Clone, Copy)]
struct Pending {
    /// Every finding with an id up to this is in both indexes.
    indexed: i64,
    /// Rows wait in `temp.findings_staged`.
    staged: bool,
    /// Findings above `indexed` exist.
    unindexed: bool,
}

impl Pending {
    fn start(conn: &Connection) -> rusqlite::Result<Pending> {
        conn.prepare_cached(&format!(
            "CREATE TEMP TABLE IF NOT EXISTS findings_staged ({FINDING_COLUMNS})"
        ))?
        .execute([])?;
        conn.prepare_cached("DELETE FROM temp.findings_staged")?
            .execute([])?;
        conn.prepare_cached(
            "CREATE INDEX IF NOT EXISTS temp.findings_staged_fact ON findings_staged(fact_key)",
        )?
        .execute([])?;
        super::facts::start_staging(conn)?;
        conn.prepare_cached("INSERT OR REPLACE INTO findings_fts_deferred (id) VALUES (1)")?
            .execute([])?;
        let indexed = conn
            .prepare_cached("SELECT coalesce(max(id), 0) FROM findings")?
            .query_row([], |r| r.get(0))?;
        Ok(Pending {
            indexed,
            staged: false,
            unindexed: false,
        })
    }

    /// Stages a finding of source `source_id`; returns its fact key (computed once here: it
    /// normalizes the whole statement).
    fn stage(
        &mut self,
        conn: &Connection,
        f: &NewFinding,
        domain: Option<&str>,
        source: (i64, &SourceRecord),
    ) -> rusqlite::Result<Option<String>> {
        static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
        let sql = SQL.get_or_init(|| {
            format!(
                "INSERT INTO temp.findings_staged ({FINDING_COLUMNS}) VALUES ({FINDING_VALUES})"
            )
        });
        let key = source_fact_key(f, true);
        execute_finding(conn, sql, f, domain, Some(source), None, key.as_deref())?;
        if let Some(key) = &key {
            super::facts::stage_uses(conn, key, &f.uses)?;
        }
        self.staged = true;
        Ok(key)
    }

    /// Moves the staged findings into `findings`.
    fn flush_staged(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        if !self.staged {
            return Ok(());
        }
        super::facts::flush_staged(conn, FINDING_COLUMNS)?;
        conn.prepare_cached("DELETE FROM temp.findings_staged")?
            .execute([])?;
        self.staged = false;
        self.unindexed = true;
        Ok(())
    }

    /// Moves the staged findings into `findings`, indexes every new finding, and then shows
    /// each fact whose occurrences changed with what its best file says of it.
    fn flush(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        self.flush_staged(conn)?;
        if self.unindexed {
            self.index(conn)?;
        }
        super::facts::refresh_touched(conn)?;
        Ok(())
    }

    /// Adds every finding above the mark to both full-text indexes.
    fn index(&mut self, conn: &Connection) -> rusqlite::Result<()> {
        conn.prepare_cached(
            "INSERT INTO findings_fts(rowid, title, description, theorem_name, theorem_statement, proof_technique, tags, why_failed)
             SELECT id, title, description, theorem_name, theorem_statement, proof_technique, tags, why_failed
             FROM findings WHERE id > ?1 ORDER BY id",
        )?
        .execute([self.indexed])?;
        conn.prepare_cached(
            "INSERT INTO findings_ident(rowid, theorem_name, problem_id, proof_technique)
             SELECT id, theorem_name, problem_id, proof_technique
             FROM findings WHERE id > ?1 ORDER BY id",
        )?
        .execute([self.indexed])?;
        self.indexed = conn
            .prepare_cached("SELECT coalesce(max(id), 0) FROM findings")?
            .query_row([], |r| r.get(0))?;
        self.unindexed = false;
        Ok(())
    }

    /// Writes and indexes what is left and switches the insert triggers back on.
    fn finish(mut self, conn: &Connection) -> rusqlite::Result<()> {
        self.flush(conn)?;
        conn.prepare_cached("DELETE FROM findings_fts_deferred")?
            .execute([])?;
        Ok(())
    }
}

/// A file's defined names as `sources.definitions` holds them: one per line. A name never
/// holds a line break (Lean identifiers cannot), so the lines give the names back.
fn stored_definitions(src: &SourceRecord) -> String {
    src.definitions.join("\n")
}

/// Writes one file. Validation errors (`checked`) fail only this file; SQLite errors are
/// returned, for [`write_chunk`] to decide.
fn write_file(
    conn: &Connection,
    item: &FileItem,
    checked: &Result<Domains>,
    pending: &mut Pending,
) -> rusqlite::Result<FileOutcome> {
    let src = &item.source;
    let mut out = FileOutcome {
        path: src.path.clone(),
        status: FileStatus::Failed,
        findings_added: 0,
        findings_removed: 0,
        error: None,
    };
    // (id, content hash, slot, problem id, extractor) of the stored version.
    type Stored = (i64, String, Option<i64>, Option<String>, i64);
    let existing: Option<Stored> = conn
        .prepare_cached(
            "SELECT id, content_hash, slot, problem_id, extractor FROM sources WHERE path = ?1",
        )?
        .query_row([&src.path], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .optional()?;
    if let Some((_, hash, slot, problem, extractor)) = &existing {
        if *hash == src.content_hash
            && *slot == src.slot
            && *problem == src.problem_id
            && *extractor == src.extractor
        {
            out.status = FileStatus::Unchanged;
            return Ok(out);
        }
    }
    // The file changed problems (from one, or from none): it leaves the old one, if any, and
    // counts as a new submission of the new one.
    let changed_problem = matches!(&existing, Some((_, _, _, old, _)) if *old != src.problem_id);
    let moved_from = match &existing {
        Some((_, _, _, old, _)) if changed_problem => old.clone(),
        _ => None,
    };
    let (finding_domains, problem_domain) = match checked {
        Ok(v) => v,
        Err(e) => {
            out.error = Some(e.to_string());
            return Ok(out);
        }
    };
    let (source_id, old_counts) = match existing {
        Some((id, ..)) => {
            // This source's findings may still be staged (the same path twice in a batch),
            // and the delete trigger removes index entries, which must exist.
            pending.flush(conn)?;
            let old = file_counts(conn, id)?;
            out.findings_removed = super::facts::detach_source(conn, id)?;
            conn.prepare_cached(
                "UPDATE sources SET content_hash = ?2, size_bytes = ?3, slot = ?4, problem_id = ?5,
                    aristotle_uuid = ?6, lean_version = ?7, mathlib_version = ?8,
                    parse_error_count = ?9, sorry_count = ?10, axiom_count = ?11,
                    extractor = ?12, extracted_at = datetime('now'),
                    result_date = coalesce(datetime(?13), datetime(?14, 'unixepoch')),
                    result_date_from = CASE WHEN datetime(?13) IS NOT NULL THEN 'stated'
                        WHEN ?14 IS NOT NULL THEN 'modified' END,
                    domain_id = ?15, domain_evidence = ?16, problem_evidence = ?17,
                    definitions = ?18
                 WHERE id = ?1",
            )?
            .execute(params![
                id,
                src.content_hash,
                src.size_bytes as i64,
                src.slot,
                src.problem_id,
                src.aristotle_uuid,
                src.lean_version,
                src.mathlib_version,
                src.parse_error_count,
                src.sorry_count,
                src.axiom_count,
                src.extractor,
                src.stated_date,
                src.modified,
                src.domain_id,
                src.domain_evidence,
                src.problem_evidence,
                stored_definitions(src)
            ])?;
            out.status = FileStatus::Replaced;
            (id, old)
        }
        None => {
            conn.prepare_cached(
                "INSERT INTO sources (path, content_hash, size_bytes, slot, problem_id, aristotle_uuid,
                    lean_version, mathlib_version, parse_error_count, sorry_count, axiom_count,
                    extractor, result_date, result_date_from, domain_id, domain_evidence,
                    problem_evidence, definitions)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12,
                    coalesce(datetime(?13), datetime(?14, 'unixepoch')),
                    CASE WHEN datetime(?13) IS NOT NULL THEN 'stated'
                         WHEN ?14 IS NOT NULL THEN 'modified' END,
                    ?15, ?16, ?17, ?18)",
            )?
            .execute(params![
                src.path, src.content_hash, src.size_bytes as i64, src.slot, src.problem_id,
                src.aristotle_uuid, src.lean_version, src.mathlib_version,
                src.parse_error_count, src.sorry_count, src.axiom_count, src.extractor,
                src.stated_date, src.modified, src.domain_id, src.domain_evidence,
                src.problem_evidence, stored_definitions(src)
            ])?;
            out.status = FileStatus::Added;
            (conn.last_insert_rowid(), (0, 0))
        }
    };
    // Occurrences: a fact stated twice in one file occurs in it once.
    let mut facts = std::collections::HashSet::new();
    for (f, domain) in item.findings.iter().zip(finding_domains) {
        let key = pending.stage(conn, f, domain.as_deref(), (source_id, src))?;
        if key.is_none_or(|key| facts.insert(key)) {
            out.findings_added += 1;
        }
    }
    super::attempts::store(
        conn,
        source_id,
        item.attempt.as_ref(),
        problem_domain.as_deref(),
    )?;
    let mut old_counts = old_counts;
    let mut added = i64::from(out.status == FileStatus::Added);
    if let Some(old_problem) = &moved_from {
        leave_problem(conn, old_problem, old_counts)?;
        super::identity::note_move(conn, old_problem, src.problem_id.as_deref())?;
    }
    if changed_problem {
        (old_counts, added) = ((0, 0), 1);
    }
    store_statements(conn, source_id, item.problem.iter().chain(&item.stated))?;
    if let Some(problem) = &src.problem_id {
        super::identity::store_aliases(conn, problem, &item.aliases, "spelling")?;
    }
    if let Some(p) = &item.problem {
        let new_counts = count_new(&item.findings);
        upsert_problem(
            conn,
            p,
            problem_domain.as_deref(),
            added,
            new_counts,
            old_counts,
        )?;
    }
    // The problems a collection states: known, with their statements; no submission of theirs.
    for p in &item.stated {
        upsert_problem(conn, p, None, 0, (0, 0), (0, 0))?;
    }
    Ok(out)
}

/// What [`forget_source`] took off.
pub(super) struct ForgottenSource {
    /// Its occurrences (facts left with none are deleted with them).
    pub occurrences: usize,
    /// Its problem, whose counters no longer include it.
    pub problem: Option<String>,
}

/// Takes the stored file `source_path` off the knowledge base inside the caller's transaction:
/// its attempt (and the strategy derived from it), its occurrences (a fact left with none
/// goes; one shown with this file is shown with another), its share of its problem's
/// counters, and its `sources` row. `None` when the path is not stored.
pub(super) fn forget_source(
    conn: &Connection,
    source_path: &str,
) -> rusqlite::Result<Option<ForgottenSource>> {
    let Some((id, problem)): Option<(i64, Option<String>)> = conn
        .prepare_cached("SELECT id, problem_id FROM sources WHERE path = ?1")?
        .query_row([source_path], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?
    else {
        return Ok(None);
    };
    let counts = file_counts(conn, id)?;
    super::attempts::store(conn, id, None, None)?;
    let occurrences = super::facts::detach_source(conn, id)?;
    super::facts::refresh_touched(conn)?;
    if let Some(problem) = &problem {
        leave_problem(conn, problem, counts)?;
    }
    conn.prepare_cached("DELETE FROM sources WHERE id = ?1")?
        .execute([id])?;
    Ok(Some(ForgottenSource {
        occurrences,
        problem,
    }))
}

/// Replaces what a source states of its problems ([`super::StatementRecord`]): of its own,
/// and of those a collection states besides.
fn store_statements<'a>(
    conn: &Connection,
    source_id: i64,
    problems: impl Iterator<Item = &'a ProblemUpsert>,
) -> rusqlite::Result<()> {
    conn.prepare_cached("DELETE FROM problem_statements WHERE source_id = ?1")?
        .execute([source_id])?;
    let mut insert = conn.prepare_cached(
        "INSERT OR IGNORE INTO problem_statements
            (source_id, problem_id, theorem_name, statement, variant, rank, literature,
             fingerprint)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?;
    for p in problems {
        for st in &p.statements {
            insert.execute(params![
                source_id,
                p.id.trim(),
                st.theorem_name,
                st.statement,
                st.variant,
                st.rank,
                st.literature,
                st.fingerprint
            ])?;
        }
    }
    Ok(())
}

/// Constraint violations and the like belong to one file; everything else to the batch.
fn is_data_error(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::ConstraintViolation)
            | Some(rusqlite::ErrorCode::TooBig)
            | Some(rusqlite::ErrorCode::TypeMismatch)
    )
}

type Domains = (Vec<Option<String>>, Option<String>);

fn check_item(item: &FileItem, domains: &[String]) -> Result<Domains> {
    if item.source.path.trim().is_empty() {
        return Err(KbError::Invalid("source path is empty".into()));
    }
    if item.source.content_hash.trim().is_empty() {
        return Err(KbError::Invalid(format!(
            "{}: content_hash is empty",
            item.source.path
        )));
    }
    let finding_domains = item
        .findings
        .iter()
        .map(|f| check_finding(f, domains))
        .collect::<Result<Vec<_>>>()?;
    if item.stated.iter().any(|p| p.id.trim().is_empty()) {
        return Err(KbError::Invalid("problem id is empty".into()));
    }
    let problem_domain = match &item.problem {
        Some(p) if p.id.trim().is_empty() => {
            return Err(KbError::Invalid("problem id is empty".into()));
        }
        Some(p) => p
            .domain_id
            .as_deref()
            .map(|d| resolve_domain(d, domains))
            .transpose()?,
        None => None,
    };
    Ok((finding_domains, problem_domain))
}

/// Validates a finding; returns its resolved domain.
pub(crate) fn check_finding(f: &NewFinding, domains: &[String]) -> Result<Option<String>> {
    if f.title.trim().is_empty() {
        return Err(KbError::Invalid("a fact needs a non-empty title".into()));
    }
    f.domain_id
        .as_deref()
        .map(|d| resolve_domain(d, domains))
        .transpose()
}

pub(crate) fn resolve_domain(given: &str, domains: &[String]) -> Result<String> {
    let t = given.trim();
    if let Some(k) = domains.iter().find(|k| k.eq_ignore_ascii_case(t)) {
        return Ok(k.clone());
    }
    match domain_alias(t) {
        Some(a) if domains.iter().any(|k| k == a) => Ok(a.to_string()),
        _ => Err(KbError::Invalid(format!(
            "unknown domain '{given}' (known: {})",
            domains.join(", ")
        ))),
    }
}

/// The columns a new finding is written with, in [`execute_finding`]'s parameter order.
const FINDING_COLUMNS: &str = "finding_type, domain_id, title, description, problem_id,
    source_slot, source_submission_uuid, source_file, theorem_name, theorem_statement,
    proof_technique, mathlib_imports, proof_lines, counterexample, why_failed,
    avoid_pattern, confidence, tags, notes, source_id, origin, fact_key";
const FINDING_VALUES: &str =
    "?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22";

/// Inserts a finding; `source` fills provenance the finding leaves empty.
pub(crate) fn insert_finding(
    conn: &Connection,
    f: &NewFinding,
    domain: Option<&str>,
    source: Option<(i64, &SourceRecord)>,
    origin: Option<&str>,
) -> rusqlite::Result<i64> {
    static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let sql = SQL.get_or_init(|| {
        format!("INSERT INTO findings ({FINDING_COLUMNS}) VALUES ({FINDING_VALUES})")
    });
    let key = source_fact_key(f, source.is_some());
    execute_finding(conn, sql, f, domain, source, origin, key.as_deref())?;
    Ok(conn.last_insert_rowid())
}

/// Runs `sql`, an INSERT of [`FINDING_COLUMNS`], for one finding whose fact key
/// ([`source_fact_key`]) is `fact_key`.
fn execute_finding<'a>(
    conn: &Connection,
    sql: &str,
    f: &'a NewFinding,
    domain: Option<&str>,
    source: Option<(i64, &'a SourceRecord)>,
    origin: Option<&str>,
    fact_key: Option<&str>,
) -> rusqlite::Result<()> {
    let (source_id, src) = match source {
        Some((id, s)) => (Some(id), Some(s)),
        None => (None, None),
    };
    let or_src = |own: &'a Option<String>, from: fn(&SourceRecord) -> &Option<String>| {
        own.as_deref()
            .or_else(|| src.and_then(|s| from(s).as_deref()))
    };
    let source_file = f
        .source_file
        .as_deref()
        .or_else(|| src.map(|s| s.path.as_str()));
    let slot = f.source_slot.or_else(|| src.and_then(|s| s.slot));
    conn.prepare_cached(sql)?.execute(params![
        f.finding_type.as_str(),
        domain,
        f.title,
        f.description,
        or_src(&f.problem_id, |s| &s.problem_id),
        slot,
        or_src(&f.source_submission_uuid, |s| &s.aristotle_uuid),
        source_file,
        f.theorem_name,
        f.theorem_statement,
        f.proof_technique,
        f.mathlib_imports,
        f.proof_lines,
        f.counterexample,
        f.why_failed,
        f.avoid_pattern,
        f.confidence.as_str(),
        f.tags,
        f.notes,
        source_id,
        origin,
        fact_key,
    ])?;
    Ok(())
}

/// The fact key of a theorem extracted from a file; findings recorded or migrated by hand are
/// not deduplicated.
fn source_fact_key(f: &NewFinding, from_file: bool) -> Option<String> {
    if !from_file || f.finding_type != FindingType::Theorem {
        return None;
    }
    Some(super::facts::fact_key(
        f.theorem_name.as_deref()?,
        f.theorem_statement.as_deref()?,
        f.definitions.as_deref(),
    ))
}

/// (verified theorems, failures) of a stored source: what its problem's counters include.
fn file_counts(conn: &Connection, source_id: i64) -> rusqlite::Result<(i64, i64)> {
    conn.prepare_cached(
        "SELECT coalesce(sum(finding_type = 'theorem' AND confidence = 'verified' AND fact_key IS NULL), 0)
                + (SELECT count(*) FROM finding_sources WHERE source_id = ?1 AND confidence = 'verified'),
                coalesce(sum(finding_type = 'failure'), 0)
         FROM findings WHERE source_id = ?1",
    )?
    .query_row([source_id], |r| Ok((r.get(0)?, r.get(1)?)))
}

fn count_new(findings: &[NewFinding]) -> (i64, i64) {
    let proven = findings
        .iter()
        .filter(|f| f.finding_type == FindingType::Theorem && f.confidence == Confidence::Verified)
        .count() as i64;
    let failed = findings
        .iter()
        .filter(|f| f.finding_type == FindingType::Failure)
        .count() as i64;
    (proven, failed)
}

/// SQL rank of a problem status: the status only moves up, and `false` is final.
const STATUS_RANK: &str = "CASE {} WHEN 'in_flight' THEN 1 WHEN 'partial' THEN 2 WHEN 'proven' THEN 3 WHEN 'false' THEN 4 ELSE 0 END";

/// Takes one submission, with its verified theorems and failures, off a problem's counters.
fn leave_problem(conn: &Connection, id: &str, counts: (i64, i64)) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE problems SET
            submission_count = max(0, coalesce(submission_count, 0) - 1),
            proven_count = max(0, coalesce(proven_count, 0) - ?2),
            failed_count = max(0, coalesce(failed_count, 0) - ?3),
            updated_at = datetime('now')
         WHERE id = ?1",
    )?
    .execute(params![id, counts.0, counts.1])?;
    Ok(())
}

fn upsert_problem(
    conn: &Connection,
    p: &ProblemUpsert,
    domain: Option<&str>,
    added: i64,
    new: (i64, i64),
    old: (i64, i64),
) -> rusqlite::Result<()> {
    static SQL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let sql = SQL.get_or_init(|| {
        let rank_new = STATUS_RANK.replace("{}", "excluded.status");
        let rank_old = STATUS_RANK.replace("{}", "problems.status");
        format!(
        "INSERT INTO problems (id, name, domain_id, status, submission_count, proven_count, failed_count, statement, best_result)
         VALUES (?1, ?2, ?3, coalesce(?4, 'open'), ?5, max(?6, 0), max(?7, 0), ?8, ?9)
         ON CONFLICT(id) DO UPDATE SET
            domain_id = coalesce(problems.domain_id, excluded.domain_id),
            status = CASE WHEN ?4 IS NOT NULL AND {rank_new} > {rank_old} THEN excluded.status ELSE problems.status END,
            submission_count = coalesce(problems.submission_count, 0) + ?5,
            proven_count = max(0, coalesce(problems.proven_count, 0) + ?6),
            failed_count = max(0, coalesce(problems.failed_count, 0) + ?7),
            statement = coalesce(problems.statement, excluded.statement),
            best_result = coalesce(excluded.best_result, problems.best_result),
            updated_at = datetime('now')"
        )
    });
    conn.prepare_cached(sql)?.execute(params![
        p.id.trim(),
        p.name.clone().unwrap_or_else(|| p.id.trim().to_string()),
        domain,
        p.status.map(|s| s.as_str()),
        added,
        new.0 - old.0,
        new.1 - old.1,
        p.statement,
        p.best_result,
    ])?;
    Ok(())
}
