//! Schema versioning: `PRAGMA user_version` plus forward-only migrations applied on open.

use std::path::Path;

use rusqlite::Connection;

use super::error::{AtPath, KbError, Result};

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: i64 = 12;

/// The oldest version read-only connections accept without a migration: every query reads
/// versions 1 and 2 alike (version 2 changed only how writers index new findings), and version
/// 3's occurrence and uses tables are consulted only where they exist ([`super::Kb::has_facts`]).
pub(crate) const READABLE_FROM: i64 = 1;

/// One forward step: run `sql`, then set `user_version = version`.
struct Migration {
    version: i64,
    sql: &'static str,
    /// Work SQL cannot do (normalizing text), run after `sql` in the same transaction.
    after: Option<fn(&Connection) -> rusqlite::Result<()>>,
}

/// In order. Version 1 is the whole initial schema; later steps live in
/// schema/migrations/NNN_name.sql and are appended here.
const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        sql: include_str!("../../schema/knowledge.sql"),
        after: None,
    },
    Migration {
        version: 2,
        sql: include_str!("../../schema/migrations/002_deferred_fts.sql"),
        after: None,
    },
    // Facts (one row per theorem), what proofs use, attempts.
    Migration {
        version: 3,
        sql: include_str!("../../schema/migrations/003_facts.sql"),
        after: Some(super::facts::merge_duplicates),
    },
    // The session journal (what agents did in a session) and verify verdicts.
    Migration {
        version: 4,
        sql: include_str!("../../schema/migrations/004_session_journal.sql"),
        after: None,
    },
    // What each file says of a fact (its own title, notes, technique), and which extractor
    // read each file.
    Migration {
        version: 5,
        sql: include_str!("../../schema/migrations/005_occurrences.sql"),
        after: None,
    },
    // Each file's own date (stated in its header, else its modification time).
    Migration {
        version: 6,
        sql: include_str!("../../schema/migrations/006_result_dates.sql"),
        after: None,
    },
    // What the knowledge base says about a problem, from evidence: domains of files and
    // problems, statements and variants, the literature's status apart from ours.
    Migration {
        version: 7,
        sql: include_str!("../../schema/migrations/007_problem_status.sql"),
        after: None,
    },
    // Problem identity: aliases of problem ids, and the evidence that decided each source's
    // problem.
    Migration {
        version: 8,
        sql: include_str!("../../schema/migrations/008_problem_identity.sql"),
        after: None,
    },
    // A problem's status is recomputed from its evidence: what tracking.db or a person gave is
    // kept apart from what the files show.
    Migration {
        version: 9,
        sql: include_str!("../../schema/migrations/009_recorded_status.sql"),
        after: None,
    },
    // The names each file defines, for a run of some files to judge identity by the stored
    // files' definitions without reading them again.
    Migration {
        version: 10,
        sql: include_str!("../../schema/migrations/010_source_definitions.sql"),
        after: None,
    },
    // Each statement's fingerprint, by which problems stating the same mathematics are
    // linked.
    Migration {
        version: 11,
        sql: include_str!("../../schema/migrations/011_statement_fingerprint.sql"),
        after: Some(add_fingerprint),
    },
    // The journal's events of one file's content, by index (what a refused edit asks).
    Migration {
        version: 12,
        sql: include_str!("../../schema/migrations/012_session_events_by_content.sql"),
        after: None,
    },
];

/// Migration 11's column, added only where it is missing: a database copied from a newer
/// build, or rewound to an older version by hand, may hold it already (SQLite has no
/// `ADD COLUMN IF NOT EXISTS`).
fn add_fingerprint(conn: &Connection) -> rusqlite::Result<()> {
    let has: i64 = conn.query_row(
        "SELECT count(*) FROM pragma_table_info('problem_statements') WHERE name = 'fingerprint'",
        [],
        |r| r.get(0),
    )?;
    if has == 0 {
        conn.execute_batch("ALTER TABLE problem_statements ADD COLUMN fingerprint TEXT;")?;
    }
    conn.execute_batch(
        "CREATE INDEX IF NOT EXISTS idx_problem_statements_fingerprint
             ON problem_statements(fingerprint) WHERE fingerprint IS NOT NULL;",
    )
}

/// What [`inspect`] found in an open database.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum State {
    /// No tables at all (a new or empty file).
    Empty,
    /// A knowledge base at this version (0 = created by the pre-Rust tooling).
    Kb(i64),
    /// Tables, but no `findings`: someone else's database.
    Foreign,
}

pub(crate) fn user_version(conn: &Connection, path: &Path) -> Result<i64> {
    conn.query_row("PRAGMA user_version", [], |r| r.get(0))
        .at(path)
}

/// Columns every knowledge base's `findings` table has had, the bash tooling's included: a
/// `findings` table without them belongs to some other program.
const FINDINGS_SIGNATURE: &[&str] = &["finding_type", "title", "description", "problem_id"];

/// Reads the version and looks at the tables to tell new, ours and foreign apart: a database
/// is ours only when its `findings` table has our columns (and, from version 1 on, our
/// `sources` table exists), so someone else's database is never migrated or written.
pub(crate) fn inspect(conn: &Connection, path: &Path) -> Result<State> {
    let version = user_version(conn, path)?;
    let (tables, has_findings, has_sources): (i64, bool, bool) = conn
        .query_row(
            "SELECT count(*), coalesce(sum(name = 'findings'), 0) > 0, coalesce(sum(name = 'sources'), 0) > 0 FROM sqlite_schema WHERE type = 'table'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .at(path)?;
    if tables == 0 {
        // A database of ours always has tables; a version without them is someone else's.
        return Ok(if version == 0 {
            State::Empty
        } else {
            State::Foreign
        });
    }
    if !has_findings {
        return Ok(State::Foreign);
    }
    let columns = table_columns(conn, "findings").at(path)?;
    let ours = FINDINGS_SIGNATURE
        .iter()
        .all(|c| columns.iter().any(|have| have == c));
    if !ours || (version >= 1 && !has_sources) {
        return Ok(State::Foreign);
    }
    Ok(State::Kb(version))
}

/// Brings the database to [`SCHEMA_VERSION`].
///
/// Each step runs in its own IMMEDIATE transaction and re-reads the version inside it, so two
/// processes opening a new database at once apply every step exactly once.
pub(crate) fn migrate(conn: &mut Connection, path: &Path) -> Result<Migrated> {
    let (start, legacy) = match inspect(conn, path)? {
        State::Foreign => {
            return Err(KbError::Foreign {
                path: path.to_path_buf(),
            })
        }
        State::Empty => (0, false),
        State::Kb(v) => (v, v == 0),
    };
    if start > SCHEMA_VERSION {
        return Err(KbError::TooNew {
            path: path.to_path_buf(),
            found: start,
            supported: SCHEMA_VERSION,
        });
    }
    if start == SCHEMA_VERSION {
        return Ok(Migrated::Current);
    }
    // journal_mode is persistent and cannot change inside a transaction.
    let _: String = conn
        .query_row("PRAGMA journal_mode=WAL", [], |r| r.get(0))
        .at(path)?;
    for m in MIGRATIONS {
        super::write_transaction(conn, path, |tx, path| {
            let current = user_version(tx, path)?;
            if current >= m.version {
                return Ok(());
            }
            if m.version == 1 {
                adopt_legacy(tx, path)?;
            }
            tx.execute_batch(m.sql).at(path)?;
            if let Some(after) = m.after {
                after(tx).at(path)?;
            }
            if m.version == 1 {
                // Index rows that existed before the identifier index did (adopted databases).
                tx.execute_batch("INSERT INTO findings_ident(findings_ident) VALUES ('rebuild');")
                    .at(path)?;
            }
            tx.execute_batch(&format!("PRAGMA user_version = {}", m.version))
                .at(path)
        })?;
    }
    Ok(if start == 0 && !legacy {
        Migrated::Created
    } else {
        Migrated::Upgraded(start)
    })
}

/// What [`migrate`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Migrated {
    Current,
    Created,
    /// From this version (0 = a database of the pre-Rust tooling).
    Upgraded(i64),
}

/// A database made by the bash + sqlite3 tooling has the spec's tables but lacks the columns
/// version 1 added; `CREATE TABLE IF NOT EXISTS` would not add them.
fn adopt_legacy(conn: &Connection, path: &Path) -> Result<()> {
    let has_findings: bool = conn
        .query_row(
            "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = 'findings'",
            [],
            |r| r.get(0),
        )
        .at(path)?;
    if !has_findings {
        return Ok(());
    }
    let cols = table_columns(conn, "findings").at(path)?;
    if !cols.iter().any(|c| c == "source_id") {
        conn.execute_batch(
            "ALTER TABLE findings ADD COLUMN source_id INTEGER REFERENCES sources(id) ON DELETE CASCADE",
        )
        .at(path)?;
    }
    if !cols.iter().any(|c| c == "origin") {
        conn.execute_batch("ALTER TABLE findings ADD COLUMN origin TEXT")
            .at(path)?;
    }
    Ok(())
}

/// Column names of `table` (empty when the table does not exist).
pub(crate) fn table_columns(conn: &Connection, table: &str) -> rusqlite::Result<Vec<String>> {
    let mut stmt = conn.prepare("SELECT name FROM pragma_table_info(?1)")?;
    let rows = stmt.query_map([table], |r| r.get::<_, String>(0))?;
    rows.collect()
}
