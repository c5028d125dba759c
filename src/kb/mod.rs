//! knowledge.db: schema, migrations, writers and queries.
//!
//! Open a [`Kb`] once and keep it: [`Kb::open`] creates or upgrades the database,
//! [`Kb::open_existing`] refuses to create one (what read commands want), and
//! [`Kb::open_read_only`] cannot write at all (what `mk query` wants). Every connection runs in
//! WAL mode with a busy timeout and foreign keys on; writes take the lock up front
//! (`BEGIN IMMEDIATE`) and are retried when another process holds it, so concurrent writers
//! wait for each other instead of failing with "database is locked".
//!
//! Extractors store results with [`Kb::write_batch`] (one transaction per chunk of files, one
//! savepoint per file) after skipping unchanged files with [`Kb::source_hash`] /
//! [`Kb::known_sources`] and [`content_hash`].

mod adhoc;
mod attempts;
mod bootstrap;
mod capture;
mod context;
mod dates;
mod error;
mod facts;
mod forget;
mod identity;
mod journal;
mod legacy;
mod model;
mod paths;
mod queries;
mod recommend;
mod record;
pub mod report;
mod schema;
pub mod search;
mod spool;
mod status;
/// The SQL helpers live below both `kb` and `tracking` (crate::sql); re-exported for `kb`'s modules.
pub use crate::sql;
mod suggest;
mod write;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

pub use adhoc::QueryResult;
pub use attempts::AttemptRecord;
pub use bootstrap::{MigrationReport, TableCount};
pub use capture::{derive_captures, Evidence, FAILURE_ATTEMPTS};
pub use context::{Context, ContextItem, SimilarProblem};
pub use dates::{DateFrom, ResultDate};
pub use error::{KbError, Result};
pub use facts::{fact_key, FactSource};
pub use forget::Forgotten;
pub use identity::ResolvedProblem;
pub use journal::{
    Capture, Event, EventKind, RecentCapture, Stored, HOOK_LOG_PAGES, MAX_PROOF_BYTES, REJECTED,
};
pub use legacy::{adopt_legacy, pending as pending_legacy, Legacy, ADOPTED_MARKER};
pub use model::{
    domain_alias, AttemptCounts, Confidence, Finding, FindingType, NewFinding, Problem,
    ProblemStatus, ProblemUpsert, SourceRecord, StatementRecord, Strategy, StrategyOutcome,
    Variant,
};
pub use paths::{
    data_dir, data_dir_in, how_to_create, init_knowledge_db, init_knowledge_db_in, keep_out_of_git,
    legacy_knowledge_dbs, legacy_knowledge_dbs_in, project_dir, resolve_knowledge_db,
    resolve_knowledge_db_in, resolve_tracking_db, resolve_tracking_db_in, user_knowledge_db,
    user_knowledge_db_in, Reason, Resolved,
};
pub use queries::{
    ApproachOutcomes, Conflict, Count, FailedReport, FindingsOfType, Freshness, ProblemReport,
    SameStatement, Stats, StrategiesReport, TechniqueUse,
};
pub use recommend::{Recommendation, Recommendations, Scope, PRIOR_STRENGTH};
pub use record::{FailureInput, InsightInput, Recorded, StrategyInput};
pub use report::{Report, ReportOptions};
pub use schema::SCHEMA_VERSION;
pub use search::{MatchKind, SearchHit, SearchOptions};
pub use spool::{
    spool_events, spool_path, spool_rejected, spool_verdict, Rejected, Verdict as SpooledVerdict,
    MAX_SPOOL_BYTES,
};
pub use status::{
    problem_standing, standing, BOUNDED_CHECK, BOUNDED_CHECK_OF_OPEN, SKETCH_MAIN, SKETCH_ONLY,
};
pub use write::{content_hash, FactCounts, FileItem, FileOutcome, FileStatus, KnownSource};

use error::AtPath;

/// How long one statement waits for another process's lock before SQLite reports busy.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// An open knowledge base.
pub struct Kb {
    conn: Connection,
    path: PathBuf,
    opened: Opened,
}

/// What opening did to the file (for `mk init`'s report).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Opened {
    /// The schema was created in a new or empty file.
    pub created: bool,
    /// Set when an older schema was migrated: the version it had.
    pub upgraded_from: Option<i64>,
}

impl std::fmt::Debug for Kb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Kb").field("path", &self.path).finish()
    }
}

impl Kb {
    /// Opens `path`, creating the file, its directory and the schema when missing and applying
    /// forward migrations to an older one. Refuses databases that are not knowledge bases.
    pub fn open(path: &Path) -> Result<Kb> {
        measured_wait(|| Kb::open_untimed(path))
    }

    fn open_untimed(path: &Path) -> Result<Kb> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| KbError::Io {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut kb = Kb::connect(path, flags)?;
        kb.opened = opened(schema::migrate(&mut kb.conn, path)?);
        Ok(kb)
    }

    /// Opens an existing knowledge base for reading and writing; never creates one.
    ///
    /// Missing, empty, corrupt and foreign files are errors whose message names the path and
    /// the fix (`mk init`). An older schema is migrated forward. Where nothing can be written
    /// (a read-only file or directory) the database is opened read-only instead
    /// ([`Kb::open_read_only`]); a write through it then fails with SQLite's read-only error.
    pub fn open_existing(path: &Path) -> Result<Kb> {
        measured_wait(|| Kb::open_existing_untimed(path))
    }

    fn open_existing_untimed(path: &Path) -> Result<Kb> {
        check_exists(path)?;
        if !writable_in_place(path) {
            // Nothing can be written there (a read-only file or directory): read it as it is.
            return Kb::open_read_only(path);
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut kb = Kb::connect(path, flags)?;
        match schema::inspect(&kb.conn, path)? {
            schema::State::Empty => return Err(missing(path, "the file is empty")),
            schema::State::Foreign => {
                return Err(KbError::Foreign {
                    path: path.to_path_buf(),
                })
            }
            schema::State::Kb(v) if v == SCHEMA_VERSION => {}
            schema::State::Kb(_) => {
                kb.opened = opened(schema::migrate(&mut kb.conn, path)?);
            }
        }
        Ok(kb)
    }

    /// Opens an existing knowledge base so that no statement can change it: the file is opened
    /// read-only, `query_only` is on and ATTACH is disabled. An older schema that reads like
    /// the current one (from `schema::READABLE_FROM` on) is read as it is, not migrated.
    pub fn open_read_only(path: &Path) -> Result<Kb> {
        measured_wait(|| Kb::open_read_only_untimed(path))
    }

    /// Opens an existing knowledge base to read it, as cheaply as possible: read-only
    /// ([`Kb::open_read_only`]) when its schema is current, so that opening neither creates
    /// nor, on closing, checkpoints and removes the WAL files; an older one is opened with
    /// [`Kb::open_existing`], which migrates it where it can be written.
    pub fn open_for_reading(path: &Path) -> Result<Kb> {
        match measured_wait(|| Kb::open_read_only_versioned(path)) {
            Ok((kb, version)) if version == SCHEMA_VERSION => Ok(kb),
            Ok((kb, _)) => {
                drop(kb);
                Kb::open_existing(path)
            }
            Err(KbError::TooOld { .. }) => Kb::open_existing(path),
            Err(e) => Err(e),
        }
    }

    fn open_read_only_untimed(path: &Path) -> Result<Kb> {
        Kb::open_read_only_versioned(path).map(|(kb, _)| kb)
    }

    /// [`Kb::open_read_only`], and the schema version it read.
    fn open_read_only_versioned(path: &Path) -> Result<(Kb, i64)> {
        check_exists(path)?;
        match Kb::open_read_only_as(path, false) {
            // A database in WAL mode needs its -shm/-wal files; where they cannot be created (a
            // read-only directory or file) it is read as immutable: nothing else can be writing.
            Err(e) if e.is_open_failure() && !writable_in_place(path) => {
                Kb::open_read_only_as(path, true)
            }
            other => other,
        }
    }

    fn open_read_only_as(path: &Path, immutable: bool) -> Result<(Kb, i64)> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let kb = if immutable {
            Kb::connect_uri(
                path,
                &immutable_uri(path),
                flags | OpenFlags::SQLITE_OPEN_URI,
            )?
        } else {
            Kb::connect(path, flags)?
        };
        kb.conn.execute_batch("PRAGMA query_only = ON").at(path)?;
        kb.conn
            .set_limit(rusqlite::limits::Limit::SQLITE_LIMIT_ATTACHED, 0)
            .at(path)?;
        match schema::inspect(&kb.conn, path)? {
            schema::State::Empty => Err(missing(path, "the file is empty")),
            schema::State::Foreign => Err(KbError::Foreign {
                path: path.to_path_buf(),
            }),
            schema::State::Kb(v) if v > SCHEMA_VERSION => Err(KbError::TooNew {
                path: path.to_path_buf(),
                found: v,
                supported: SCHEMA_VERSION,
            }),
            schema::State::Kb(v) if v < schema::READABLE_FROM => Err(KbError::TooOld {
                path: path.to_path_buf(),
                found: v,
                supported: SCHEMA_VERSION,
            }),
            schema::State::Kb(v) => Ok((kb, v)),
        }
    }

    fn connect(path: &Path, flags: OpenFlags) -> Result<Kb> {
        Kb::connect_uri(path, &path.to_string_lossy(), flags)
    }

    /// Opens `target` (a path, or a `file:` URI with `SQLITE_OPEN_URI`); `path` names it in
    /// errors.
    fn connect_uri(path: &Path, target: &str, flags: OpenFlags) -> Result<Kb> {
        let conn = if flags.contains(OpenFlags::SQLITE_OPEN_URI) {
            Connection::open_with_flags(target, flags)
        } else {
            Connection::open_with_flags(path, flags)
        }
        .at(path)?;
        conn.busy_timeout(busy_timeout()).at(path)?;
        // Plans that do not depend on the values bound (the query planner stability
        // guarantee). Without it SQLite marks a statement whose plan a bound value might
        // change and compiles it again on its first run: four of a search's statements were
        // compiled twice (2% of a search's instructions), and the writer's were compiled
        // again some hundred times per extraction (1.4% of its instructions). Results never
        // depend on the plan.
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
            true,
        )
        .at(path)?;
        // The writer alone runs some sixty distinct statements per chunk of files; with
        // rusqlite's default of 16 cached ones each was compiled again, triggers and all.
        conn.set_prepared_statement_cache_capacity(128);
        // foreign_keys is per connection; synchronous=NORMAL is durable enough in WAL mode for a
        // derived database and much faster for batched writes. temp_store=MEMORY keeps
        // statement journals (every INSERT into `findings` has one, because of its triggers)
        // in memory instead of spilling them to a temporary file; it holds no durable data.
        conn.execute_batch(
            "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA temp_store = MEMORY;",
        )
        .at(path)?;
        // `mk search`'s ranking function (FTS5's BM25 without a full count per word).
        search::rank::register(&conn).at(path)?;
        Ok(Kb {
            conn,
            path: path.to_path_buf(),
            opened: Opened::default(),
        })
    }

    /// Whether opening created or upgraded the schema.
    pub fn opened(&self) -> Opened {
        self.opened
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The underlying connection, for read queries this module does not provide.
    /// Writes should go through the typed writers so that both search indexes stay in sync.
    pub fn connection(&self) -> &Connection {
        &self.conn
    }

    /// What to tell someone who asks an empty knowledge base (no fact, no problem) anything,
    /// so that "no hits" or "no problem X" is not read as "nothing matched": it is empty, and
    /// how to fill it. None when it holds anything.
    pub fn empty_note(&self) -> Result<Option<String>> {
        let (facts, problems): (i64, i64) = self
            .conn
            .query_row(
                "SELECT (SELECT count(*) FROM findings), (SELECT count(*) FROM problems)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .at(&self.path)?;
        Ok((facts == 0 && problems == 0).then(|| {
            format!(
                "the knowledge base {} is empty: fill it with `mf extract --all RESULTS_DIR` \
                 (or migrate tracking.db with `mk init --from-tracking PATH`)",
                self.path.display()
            )
        }))
    }

    /// `e`, and when it is an unknown problem asked of an empty knowledge base, that the
    /// knowledge base is empty and how to fill it (there is no nearest id to offer).
    pub fn explain_unknown(&self, e: KbError) -> KbError {
        match e {
            KbError::UnknownProblem {
                query,
                nearest,
                note,
            } if nearest.is_empty() => {
                let note = match (note, self.empty_note().ok().flatten()) {
                    (Some(n), Some(empty)) => Some(format!("{n}; {empty}")),
                    (n, empty) => n.or(empty),
                };
                KbError::UnknownProblem {
                    query,
                    nearest,
                    note,
                }
            }
            other => other,
        }
    }

    /// `PRAGMA user_version` of the open database.
    pub fn schema_version(&self) -> Result<i64> {
        schema::user_version(&self.conn, &self.path)
    }

    /// Checks that both full-text indexes agree with `findings` (FTS5 `integrity-check`).
    pub fn check_indexes(&self) -> Result<()> {
        self.conn
            .execute_batch(
                "INSERT INTO findings_fts(findings_fts, rank) VALUES ('integrity-check', 1);
                 INSERT INTO findings_ident(findings_ident, rank) VALUES ('integrity-check', 1);",
            )
            .at(&self.path)
    }

    /// Resolves a domain given by a user or an extractor to a `domains.id`: an id in the table
    /// or an alias of [`domain_alias`]. The error lists the known domains.
    pub fn domain_id(&self, given: &str) -> Result<String> {
        let known = self.domain_ids()?;
        let t = given.trim();
        if let Some(k) = known.iter().find(|k| k.eq_ignore_ascii_case(t)) {
            return Ok(k.clone());
        }
        if let Some(a) = domain_alias(t).filter(|a| known.iter().any(|k| k == a)) {
            return Ok(a.to_string());
        }
        Err(KbError::Invalid(format!(
            "unknown domain '{given}' (known: {}; aliases like number_theory work too)",
            known.join(", ")
        )))
    }

    /// Every `domains.id`, sorted.
    pub fn domain_ids(&self) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id FROM domains ORDER BY id")
            .at(&self.path)?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }
}

/// Whether this process could create files beside `path` and write `path` itself.
fn writable_in_place(path: &Path) -> bool {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    access_w(dir) && access_w(path)
}

fn access_w(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::CString::new(path.as_os_str().as_bytes())
        // SAFETY: a valid NUL-terminated path.
        .is_ok_and(|c| unsafe { libc::access(c.as_ptr(), libc::W_OK) } == 0)
}

/// `file:PATH?immutable=1`, with the bytes a URI reserves percent-encoded.
fn immutable_uri(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut uri = String::from("file:");
    for &b in absolute.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri.push_str("?immutable=1");
    uri
}

fn opened(m: schema::Migrated) -> Opened {
    match m {
        schema::Migrated::Current => Opened::default(),
        schema::Migrated::Created => Opened {
            created: true,
            upgraded_from: None,
        },
        schema::Migrated::Upgraded(v) => Opened {
            created: false,
            upgraded_from: Some(v),
        },
    }
}

fn missing(path: &Path, reason: &str) -> KbError {
    KbError::Missing {
        path: path.to_path_buf(),
        reason: reason.to_string(),
        fix: "run `mk init` to create it".to_string(),
    }
}

fn check_exists(path: &Path) -> Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(()),
        Ok(_) => Err(KbError::NotADatabase {
            path: path.to_path_buf(),
            detail: "it is a directory".into(),
        }),
        Err(_) => Err(missing(path, "file not found")),
    }
}

/// Runs a write transaction again while another process holds the lock past the busy timeout,
/// for as long as [`busy_timeout`] allows in all. The closure must be a whole transaction:
/// nothing of a failed try is committed. A final "locked" error says how long it waited.
pub(crate) fn retry_busy<T>(mut f: impl FnMut() -> Result<T>) -> Result<T> {
    const TRIES: u32 = 6;
    let start = std::time::Instant::now();
    let budget = busy_timeout();
    let mut tries = 0;
    loop {
        match f() {
            Err(e) if e.is_busy() && tries + 1 < TRIES && start.elapsed() < budget => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(25 * u64::from(tries)));
            }
            Err(KbError::Locked { path, .. }) => {
                return Err(KbError::Locked {
                    path,
                    waited_ms: Some(start.elapsed().as_millis() as u64),
                })
            }
            other => return other,
        }
    }
}

/// Runs `body` as one IMMEDIATE write transaction on `conn`, committed when it returns `Ok`
/// and run again whole while another process holds the lock ([`retry_busy`]). `body` gets the
/// transaction and the database's path, for its errors.
pub(crate) fn write_transaction<T>(
    conn: &mut Connection,
    path: &Path,
    mut body: impl FnMut(&rusqlite::Transaction<'_>, &Path) -> Result<T>,
) -> Result<T> {
    retry_busy(|| {
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .at(path)?;
        let out = body(&tx, path)?;
        tx.commit().at(path)?;
        Ok(out)
    })
}

impl Kb {
    /// [`write_transaction`] on this knowledge base.
    pub(crate) fn write_transaction<T>(
        &mut self,
        body: impl FnMut(&rusqlite::Transaction<'_>, &Path) -> Result<T>,
    ) -> Result<T> {
        write_transaction(&mut self.conn, &self.path, body)
    }
}

/// Runs `f`; a "locked" error it returns says how long it took (the time spent waiting for
/// the lock, all but a few microseconds).
fn measured_wait<T>(f: impl FnOnce() -> Result<T>) -> Result<T> {
    let start = std::time::Instant::now();
    match f() {
        Err(KbError::Locked {
            path,
            waited_ms: None,
        }) => Err(KbError::Locked {
            path,
            waited_ms: Some(start.elapsed().as_millis() as u64),
        }),
        other => other,
    }
}

/// How long this process waits for another's lock on knowledge.db, in milliseconds.
static BUSY_TIMEOUT_MS: std::sync::atomic::AtomicU64 =
    std::sync::atomic::AtomicU64::new(BUSY_TIMEOUT.as_millis() as u64);

/// How long a connection waits for another process's lock ([`BUSY_TIMEOUT`] unless
/// [`set_busy_timeout`] said otherwise), and how long a write retries in all.
pub fn busy_timeout() -> Duration {
    Duration::from_millis(BUSY_TIMEOUT_MS.load(std::sync::atomic::Ordering::Relaxed))
}

/// Sets [`busy_timeout`] for connections opened from now on: a hook with a deadline waits less
/// than the default.
pub fn set_busy_timeout(timeout: Duration) {
    BUSY_TIMEOUT_MS.store(
        timeout.as_millis() as u64,
        std::sync::atomic::Ordering::Relaxed,
    );
}
