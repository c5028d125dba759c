//! The session journal: declaration-level events of a Claude Code session, `mf verify`
//! verdicts by content, and the findings a session's capture produced.
//!
//! The hooks append events ([`Kb::journal`]); the Stop and SessionEnd hooks read them back
//! ([`Kb::session_events`]) and store what they derive with [`Kb::store_capture`], which
//! updates the finding an earlier capture of the same (session, file, declaration, kind) made
//! instead of adding another. Every write is one transaction. Hooks must not wait on a busy
//! database: [`Kb::journal`] takes a single try with the connection's busy timeout, which the
//! hooks set short ([`Kb::set_lock_wait`]); what it could not write waits in the spool
//! ([`super::spool`]) for the next open that can.

use std::time::Duration;

use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::Serialize;

use super::error::{AtPath, Result};
use super::model::NewFinding;
use super::write::insert_finding;
use super::{retry_busy, Kb};

/// What happened to a declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A declaration without holes got one (or a new declaration was stated with one).
    HoleOpened,
    /// A declaration with holes has none now.
    HoleClosed,
    /// The proof changed and the hole count did not go to zero, or a complete proof changed.
    ProofRewritten,
    StatementChanged,
    /// A hook denied or blocked an edit (gutted proof, new axiom).
    GateFired,
}

impl EventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::HoleOpened => "hole_opened",
            EventKind::HoleClosed => "hole_closed",
            EventKind::ProofRewritten => "proof_rewritten",
            EventKind::StatementChanged => "statement_changed",
            EventKind::GateFired => "gate_fired",
        }
    }

    fn parse(s: &str) -> Option<EventKind> {
        Some(match s {
            "hole_opened" => EventKind::HoleOpened,
            "hole_closed" => EventKind::HoleClosed,
            "proof_rewritten" => EventKind::ProofRewritten,
            "statement_changed" => EventKind::StatementChanged,
            "gate_fired" => EventKind::GateFired,
            _ => return None,
        })
    }
}

/// One journal entry.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Event {
    pub session_id: String,
    /// Absolute path of the `.lean` file.
    pub file: String,
    /// Full name of the declaration; empty when the event concerns the file.
    pub declaration: String,
    pub kind: Option<EventKind>,
    pub statement: Option<String>,
    /// The declaration's body after the event.
    pub proof: Option<String>,
    pub tactics: Vec<String>,
    pub lemmas: Vec<String>,
    pub technique: Option<String>,
    pub holes: usize,
    /// [`super::content_hash`] of the whole file after the edit.
    pub content_hash: Option<String>,
    pub detail: Option<String>,
    /// `YYYY-MM-DD HH:MM:SS` (UTC), as stored.
    pub at: String,
}

/// Most bytes of a proof kept in the journal.
pub const MAX_PROOF_BYTES: usize = 8 * 1024;

/// Pages the write-ahead log may hold before a hook empties it into the database (256 KiB at
/// the default page size): see [`Kb::fold_long_log`].
pub const HOOK_LOG_PAGES: i64 = 64;

/// What a capture stores: the finding and the key that makes it idempotent.
#[derive(Clone, Debug, PartialEq)]
pub struct Capture {
    pub session_id: String,
    pub file: String,
    pub declaration: String,
    /// `technique`, `failure` or `false_lemma`.
    pub kind: &'static str,
    pub finding: NewFinding,
}

/// How a journaled attempt's `detail` starts when `mf verify` found a Lean error inside it.
pub const REJECTED: &str = "mf verify: Lean rejected it: ";

/// A finding a session capture stored, with where it came from ([`Kb::recent_captures_under`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RecentCapture {
    pub session_id: String,
    pub file: String,
    pub declaration: String,
    /// `technique`, `failure`, `failed_attempts` or `false_lemma`.
    pub kind: String,
    pub finding_id: i64,
    pub description: String,
    pub proof_technique: Option<String>,
    pub confidence: String,
    pub captured_at: String,
}

/// What [`Kb::store_capture`] did with one capture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stored {
    Added(i64),
    /// An earlier capture's finding was brought up to date.
    Updated(i64),
    /// An earlier capture's finding already said exactly this.
    Unchanged(i64),
}

impl Kb {
    /// Sets how long this connection waits for another process's lock (hooks: a fraction of
    /// their budget, so a locked database costs them a spooled journal entry, never a timeout).
    pub fn set_lock_wait(&self, wait: Duration) -> Result<()> {
        self.conn.busy_timeout(wait).at(&self.path)
    }

    /// Leaves the write-ahead log in place when this connection closes, instead of copying it
    /// into the database and deleting it. A hook that appends a few journal rows per edit then
    /// writes (and syncs) no database pages of its own; [`Kb::fold_long_log`] folds the log in
    /// once it is long, in whichever hook gets there.
    ///
    /// SQLite's own automatic checkpoint is turned off for this connection: it would copy the
    /// log into the database but never shorten it. The next process to open the database alone
    /// rebuilds the log's index by reading and checksumming every frame of it, and forgets
    /// that the frames were copied already, so its first write appends instead of starting the
    /// log over: the log grew by every hook's pages for good (13 MB after a few hundred edits,
    /// each hook paying for reading all of it).
    pub fn keep_log_on_close(&self) -> Result<()> {
        self.conn
            .set_db_config(
                rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
                true,
            )
            .at(&self.path)?;
        self.conn
            .pragma_update(None, "wal_autocheckpoint", 0)
            .at(&self.path)
    }

    /// When the write-ahead log holds more than [`HOOK_LOG_PAGES`] pages, copies it into the
    /// database and empties it (`wal_checkpoint(TRUNCATE)`), without waiting: while another
    /// process reads from the log it stays, and a later hook tries again. Returns whether the
    /// log was emptied.
    pub fn fold_long_log(&self) -> Result<bool> {
        let mut wal = self.path.as_os_str().to_owned();
        wal.push("-wal");
        let Ok(meta) = std::fs::metadata(&wal) else {
            return Ok(false);
        };
        let page: i64 = self
            .conn
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .at(&self.path)?;
        // A frame is a page and its 24-byte header, after the log's 32-byte header.
        let frames = meta.len().saturating_sub(32) / (page.max(512) as u64 + 24);
        if frames <= HOOK_LOG_PAGES as u64 {
            return Ok(false);
        }
        self.conn.busy_timeout(Duration::ZERO).at(&self.path)?;
        let busy: i64 = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(0))
            .at(&self.path)?;
        Ok(busy == 0)
    }

    /// Appends events in one transaction, with a single try: a busy database is an error the
    /// caller reports as skipped journaling.
    pub fn journal(&mut self, events: &[Event]) -> Result<()> {
        if events.is_empty() {
            return Ok(());
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .at(&self.path)?;
        for e in events {
            insert_event(&tx, e, None).at(&self.path)?;
        }
        tx.commit().at(&self.path)
    }

    /// A session's events in the order they were written.
    pub fn session_events(&self, session: &str) -> Result<Vec<Event>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT session_id, file, declaration, event, statement, proof, tactics, lemmas,
                        technique, holes, content_hash, detail, at
                 FROM session_events WHERE session_id = ?1 ORDER BY id",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map([session], |r| {
                Ok(Event {
                    session_id: r.get(0)?,
                    file: r.get(1)?,
                    declaration: r.get(2)?,
                    kind: EventKind::parse(&r.get::<_, String>(3)?),
                    statement: r.get(4)?,
                    proof: r.get(5)?,
                    tactics: split(r.get::<_, Option<String>>(6)?),
                    lemmas: split(r.get::<_, Option<String>>(7)?),
                    technique: r.get(8)?,
                    holes: r.get::<_, i64>(9)?.max(0) as usize,
                    content_hash: r.get(10)?,
                    detail: r.get(11)?,
                    at: r.get(12)?,
                })
            })
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }

    /// Records `mf verify`'s verdict (`pass`, `fail`, `not-compiled`) for one file content.
    pub fn record_verification(&mut self, path: &str, hash: &str, verdict: &str) -> Result<()> {
        let db = self.path.clone();
        let conn = &mut self.conn;
        retry_busy(|| record_verification_in(conn, path, hash, verdict, None).at(&db))
    }

    /// Whether `mf verify` passed for exactly this content of `path`.
    pub fn verified(&self, path: &str, hash: &str) -> Result<bool> {
        self.conn
            .prepare_cached(
                "SELECT verdict = 'pass' FROM verifications WHERE path = ?1 AND content_hash = ?2",
            )
            .and_then(|mut s| s.query_row([path, hash], |r| r.get(0)).optional())
            .map(|v| v.unwrap_or(false))
            .at(&self.path)
    }

    /// Marks the journaled attempts on this content of `path` that Lean rejected: each
    /// (declaration, error headline) of `rejected` sets the `detail` of that declaration's
    /// proof events at `hash` to [`REJECTED`] and the headline.
    pub fn mark_rejected(
        &mut self,
        path: &str,
        hash: &str,
        rejected: &[(String, String)],
    ) -> Result<()> {
        if rejected.is_empty() || !self.has_table("session_events")? {
            return Ok(());
        }
        self.write_transaction(|tx, db| {
            for (declaration, headline) in rejected {
                mark_rejected_in(tx, path, hash, declaration, headline).at(db)?;
            }
            Ok(())
        })
    }

    /// The declarations of `path` whose journaled attempt at this content Lean rejected
    /// ([`Kb::mark_rejected`]).
    pub fn rejected_declarations(&self, path: &str, hash: &str) -> Result<Vec<String>> {
        if !self.has_table("session_events")? {
            return Ok(Vec::new());
        }
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT DISTINCT declaration FROM session_events
                 WHERE file = ?1 AND content_hash = ?2 AND substr(detail, 1, length(?3)) = ?3",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map(params![path, hash, REJECTED], |r| r.get(0))
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }

    /// The newest session captures of `.lean` files under directory `dir` (absolute), newest
    /// first, at most `limit`.
    pub fn recent_captures_under(&self, dir: &str, limit: usize) -> Result<Vec<RecentCapture>> {
        if !self.has_table("session_captures")? {
            return Ok(Vec::new());
        }
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT c.session_id, c.file, c.declaration, c.kind, c.finding_id,
                        f.description, f.proof_technique, f.confidence, c.captured_at
                 FROM session_captures c JOIN findings f ON f.id = c.finding_id
                 WHERE substr(c.file, 1, length(?1)) = ?1
                 ORDER BY c.captured_at DESC, c.rowid DESC LIMIT ?2",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map(params![prefix, limit as i64], |r| {
                Ok(RecentCapture {
                    session_id: r.get(0)?,
                    file: r.get(1)?,
                    declaration: r.get(2)?,
                    kind: r.get(3)?,
                    finding_id: r.get(4)?,
                    description: r.get::<_, Option<String>>(5)?.unwrap_or_default(),
                    proof_technique: r.get(6)?,
                    confidence: r.get::<_, Option<String>>(7)?.unwrap_or_default(),
                    captured_at: r.get(8)?,
                })
            })
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }

    /// Removes the findings an earlier capture of `session` stored that the journal no longer
    /// supports (a proof captured at one Stop that `mf verify` failed on later): every capture
    /// of the session whose (file, declaration, kind) is not in `keep`. Returns how many.
    pub fn retract_captures(&mut self, session: &str, keep: &[Capture]) -> Result<usize> {
        self.write_transaction(|tx, db| {
            let stored: Vec<(String, String, String, i64)> = {
                let mut stmt = tx
                    .prepare_cached(
                        "SELECT file, declaration, kind, finding_id FROM session_captures
                         WHERE session_id = ?1",
                    )
                    .at(db)?;
                let rows = stmt
                    .query_map([session], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                    })
                    .at(db)?;
                rows.collect::<rusqlite::Result<_>>().at(db)?
            };
            let mut removed = 0;
            for (file, declaration, kind, id) in stored {
                let kept = keep
                    .iter()
                    .any(|c| c.file == file && c.declaration == declaration && c.kind == kind);
                if !kept {
                    removed += tx
                        .execute("DELETE FROM findings WHERE id = ?1", [id])
                        .at(db)?;
                }
            }
            Ok(removed)
        })
    }

    /// Stores captured findings in one transaction: each (session, file, declaration, kind)
    /// has at most one finding, updated when a later capture says something else.
    pub fn store_capture(&mut self, captures: &[Capture]) -> Result<Vec<Stored>> {
        let domains = self.domain_ids()?;
        self.write_transaction(|tx, db| {
            let mut out = Vec::with_capacity(captures.len());
            for c in captures {
                let f = &c.finding;
                let domain = f
                    .domain_id
                    .as_deref()
                    .filter(|d| domains.iter().any(|k| k == d));
                let earlier: Option<i64> = tx
                    .prepare_cached(
                        "SELECT finding_id FROM session_captures
                         WHERE session_id = ?1 AND file = ?2 AND declaration = ?3 AND kind = ?4",
                    )
                    .and_then(|mut s| {
                        s.query_row(params![c.session_id, c.file, c.declaration, c.kind], |r| {
                            r.get(0)
                        })
                        .optional()
                    })
                    .at(db)?;
                let stored = match earlier {
                    Some(id) => update_capture(tx, id, f).at(db)?,
                    None => {
                        let origin = format!(
                            "session:{}:{}:{}:{}",
                            c.session_id, c.file, c.declaration, c.kind
                        );
                        let id = insert_finding(tx, f, domain, None, Some(&origin)).at(db)?;
                        tx.execute(
                            "INSERT INTO session_captures (session_id, file, declaration, kind, finding_id)
                             VALUES (?1, ?2, ?3, ?4, ?5)",
                            params![c.session_id, c.file, c.declaration, c.kind, id],
                        )
                        .at(db)?;
                        Stored::Added(id)
                    }
                };
                out.push(stored);
            }
            Ok(out)
        })
    }

    /// Whether the session was already asked why its attempts failed (a cheap check before
    /// reading its journal).
    pub fn why_asked(&self, session: &str) -> Result<bool> {
        if !self.has_table("sessions")? {
            return Ok(false);
        }
        self.conn
            .prepare_cached(
                "SELECT count(*) > 0 FROM sessions WHERE id = ?1 AND why_asked_at IS NOT NULL",
            )
            .and_then(|mut s| s.query_row([session], |r| r.get(0)))
            .at(&self.path)
    }

    /// Marks that the session was asked why its attempts failed; `false` when it already was
    /// (the question is asked at most once per session).
    pub fn mark_why_asked(&mut self, session: &str) -> Result<bool> {
        self.write_transaction(|tx, db| {
            tx.execute(
                "INSERT INTO sessions (id) VALUES (?1) ON CONFLICT(id) DO NOTHING",
                [session],
            )
            .at(db)?;
            let changed = tx
                .execute(
                    "UPDATE sessions SET why_asked_at = datetime('now')
                     WHERE id = ?1 AND why_asked_at IS NULL",
                    [session],
                )
                .at(db)?;
            Ok(changed == 1)
        })
    }

    /// Records that these findings were shown to the session (briefing, context).
    pub fn mark_shown(&mut self, session: &str, finding_ids: &[i64]) -> Result<()> {
        if finding_ids.is_empty() {
            return Ok(());
        }
        self.write_transaction(|tx, db| {
            for id in finding_ids {
                tx.execute(
                    "INSERT INTO finding_shown (finding_id, session_id) VALUES (?1, ?2)
                     ON CONFLICT DO NOTHING",
                    params![id, session],
                )
                .at(db)?;
            }
            Ok(())
        })
    }

    /// Marks as used the findings shown to the session whose lemma (theorem name, or its
    /// last component) is one of `lemmas`. Returns how many were newly marked.
    pub fn mark_used(&mut self, session: &str, lemmas: &[String]) -> Result<usize> {
        if lemmas.is_empty() {
            return Ok(0);
        }
        self.write_transaction(|tx, db| {
            let shown: Vec<(i64, Option<String>)> = {
                let mut stmt = tx
                    .prepare_cached(
                        "SELECT u.finding_id, f.theorem_name FROM finding_shown u
                         JOIN findings f ON f.id = u.finding_id
                         WHERE u.session_id = ?1 AND u.used_at IS NULL",
                    )
                    .at(db)?;
                let rows = stmt
                    .query_map([session], |r| Ok((r.get(0)?, r.get(1)?)))
                    .at(db)?;
                rows.collect::<rusqlite::Result<_>>().at(db)?
            };
            let mut marked = 0;
            for (id, name) in shown {
                let Some(name) = name else { continue };
                let last = name.rsplit('.').next().unwrap_or(&name);
                if lemmas.iter().any(|l| l == &name || l == last) {
                    marked += tx
                        .execute(
                            "UPDATE finding_shown SET used_at = datetime('now')
                             WHERE finding_id = ?1 AND session_id = ?2",
                            params![id, session],
                        )
                        .at(db)?;
                }
            }
            Ok(marked)
        })
    }

    /// Sets the session's problem (first one wins: a resumed session keeps it).
    pub fn set_session_problem(&mut self, session: &str, problem: &str) -> Result<()> {
        let db = self.path.clone();
        let conn = &mut self.conn;
        retry_busy(|| {
            conn.execute(
                "INSERT INTO sessions (id, problem_id) VALUES (?1, ?2)
                 ON CONFLICT(id) DO UPDATE SET problem_id = coalesce(sessions.problem_id, excluded.problem_id)",
                params![session, problem],
            )
            .at(&db)
            .map(|_| ())
        })
    }

    /// The problem recorded for a session, if any.
    pub fn session_problem(&self, session: &str) -> Result<Option<String>> {
        if !self.has_table("sessions")? {
            return Ok(None);
        }
        self.conn
            .prepare_cached("SELECT problem_id FROM sessions WHERE id = ?1")
            .and_then(|mut s| {
                s.query_row([session], |r| r.get::<_, Option<String>>(0))
                    .optional()
            })
            .map(Option::flatten)
            .at(&self.path)
    }

    /// Whether a table exists (a read-only database of an older version lacks the journal's).
    pub(crate) fn has_table(&self, name: &str) -> Result<bool> {
        self.conn
            .prepare_cached(
                "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = ?1",
            )
            .and_then(|mut s| s.query_row([name], |r| r.get(0)))
            .at(&self.path)
    }
}

/// Brings an earlier capture's finding up to date; the update triggers keep both indexes in
/// step.
fn update_capture(tx: &rusqlite::Connection, id: i64, f: &NewFinding) -> rusqlite::Result<Stored> {
    let changed = tx.execute(
        "UPDATE findings SET title = ?2, description = ?3, theorem_statement = ?4,
            proof_technique = ?5, counterexample = ?6, why_failed = ?7, confidence = ?8,
            tags = ?9, notes = ?10, updated_at = datetime('now')
         WHERE id = ?1 AND NOT (title IS ?2 AND description IS ?3 AND theorem_statement IS ?4
            AND proof_technique IS ?5 AND counterexample IS ?6 AND why_failed IS ?7
            AND confidence IS ?8 AND tags IS ?9 AND notes IS ?10)",
        params![
            id,
            f.title,
            f.description,
            f.theorem_statement,
            f.proof_technique,
            f.counterexample,
            f.why_failed,
            f.confidence.as_str(),
            f.tags,
            f.notes,
        ],
    )?;
    Ok(if changed == 0 {
        Stored::Unchanged(id)
    } else {
        Stored::Updated(id)
    })
}

/// Marks the proof events of `declaration` in `path` at `hash` as rejected by Lean.
/// Records a verdict of `mf verify` given at `at` (SQLite's `datetime`; now when `None`). A
/// verdict of the same content given later is kept: a spooled one replayed after it is older.
pub(super) fn record_verification_in(
    conn: &rusqlite::Connection,
    path: &str,
    hash: &str,
    verdict: &str,
    at: Option<&str>,
) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO verifications (path, content_hash, verdict, verified_at)
         VALUES (?1, ?2, ?3, coalesce(?4, datetime('now')))
         ON CONFLICT(path, content_hash) DO UPDATE SET verdict = excluded.verdict,
            verified_at = excluded.verified_at
         WHERE excluded.verified_at >= verifications.verified_at",
        params![path, hash, verdict, at],
    )
    .map(|_| ())
}

pub(super) fn mark_rejected_in(
    tx: &rusqlite::Transaction,
    path: &str,
    hash: &str,
    declaration: &str,
    headline: &str,
) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE session_events SET detail = ?4
         WHERE file = ?1 AND content_hash = ?2 AND declaration = ?3
           AND event IN ('hole_closed', 'proof_rewritten', 'hole_opened')",
        params![path, hash, declaration, format!("{REJECTED}{headline}")],
    )?;
    Ok(())
}

/// Inserts one event (none for an event of no kind); `at` is when it happened, if not now.
pub(super) fn insert_event(
    tx: &rusqlite::Transaction,
    e: &Event,
    at: Option<&str>,
) -> rusqlite::Result<()> {
    let Some(kind) = e.kind else { return Ok(()) };
    let mut stmt = tx.prepare_cached(
        "INSERT INTO session_events (session_id, file, declaration, event, statement,
            proof, tactics, lemmas, technique, holes, content_hash, detail, at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, COALESCE(?13, datetime('now')))",
    )?;
    stmt.execute(params![
        e.session_id,
        e.file,
        e.declaration,
        kind.as_str(),
        e.statement,
        e.proof.as_deref().map(|p| bounded(p, MAX_PROOF_BYTES)),
        joined(&e.tactics),
        joined(&e.lemmas),
        e.technique,
        e.holes as i64,
        e.content_hash,
        e.detail,
        at,
    ])?;
    Ok(())
}

fn joined(items: &[String]) -> Option<String> {
    (!items.is_empty()).then(|| items.join(","))
}

fn split(s: Option<String>) -> Vec<String> {
    s.map(|s| {
        s.split(',')
            .filter(|p| !p.is_empty())
            .map(str::to_string)
            .collect()
    })
    .unwrap_or_default()
}

/// At most `max` bytes of `s`, cut at a character boundary.
pub(super) fn bounded(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
