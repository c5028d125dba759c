//! The journal's spool: session events a hook could not write because the knowledge base was
//! busy beyond the hook's wait, read-only or unreadable are kept in a file beside it
//! (`knowledge.db.spool`) and added at the next open that can write ([`Kb::replay_spool`]).
//!
//! The spool is append-only JSON lines, one entry per line (the events of one edit, Lean's
//! rejection of journaled attempts that `mf hook lean-output` could not mark, or a verdict of
//! `mf verify` it could not record), written under an
//! exclusive `flock` and synced, and bounded ([`MAX_SPOOL_BYTES`]). A replay takes the same
//! lock, adds every entry's events and marks in order in one transaction, and empties the file (truncated,
//! never removed: a writer waiting for the lock holds the same inode). It is idempotent: each
//! spooled event carries the time it happened, and one already in the journal (same session,
//! file, content, declaration, event and time: a replay whose emptying did not happen) is not
//! added again.

use std::fs::OpenOptions;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use super::error::{AtPath, Result};
use super::journal::{Event, MAX_PROOF_BYTES};
use super::Kb;

/// Most bytes the spool may hold; an entry that would pass it is refused (and said so).
pub const MAX_SPOOL_BYTES: u64 = 4 * 1024 * 1024;

/// How long a writer or a replay waits for another's lock on the spool.
const SPOOL_LOCK_WAIT: Duration = Duration::from_millis(200);

/// The spool of the knowledge base at `db`: `knowledge.db.spool` (not `-journal`, which SQLite
/// would read as its own rollback journal).
pub fn spool_path(db: &Path) -> PathBuf {
    let mut name = db.file_name().unwrap_or_default().to_os_string();
    name.push(".spool");
    db.with_file_name(name)
}

/// One spooled entry, with when it happened (Unix seconds): the events of one edit, or Lean's
/// rejection of journaled attempts ([`Kb::mark_rejected`]'s arguments).
#[derive(Serialize, Deserialize, Default)]
#[serde(default)]
struct Entry {
    unix: i64,
    events: Vec<Event>,
    rejected: Vec<Rejected>,
    verdicts: Vec<Verdict>,
}

/// `mf verify`'s verdict (`pass`, `fail`, `not-compiled`) on `file` at `content_hash`:
/// [`Kb::record_verification`] to be done.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub file: String,
    pub content_hash: String,
    pub verdict: String,
}

/// Lean rejected the attempt at `declaration` in `file` at `content_hash`: [`Kb::mark_rejected`]
/// to be done.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejected {
    pub file: String,
    pub content_hash: String,
    pub declaration: String,
    /// The first line of Lean's error.
    pub headline: String,
}

/// Appends `events` to the spool of `db`. Err says why they could not be kept.
pub fn spool_events(db: &Path, events: &[Event]) -> std::result::Result<PathBuf, String> {
    let mut events = events.to_vec();
    for e in &mut events {
        if let Some(p) = &e.proof {
            e.proof = Some(super::journal::bounded(p, MAX_PROOF_BYTES).to_string());
        }
    }
    append(
        db,
        Entry {
            events,
            ..Entry::default()
        },
    )
}

/// Appends Lean's rejections of journaled attempts to the spool of `db`, to be marked at the
/// next open that can write, after the events spooled before them.
pub fn spool_rejected(db: &Path, rejected: &[Rejected]) -> std::result::Result<PathBuf, String> {
    append(
        db,
        Entry {
            rejected: rejected.to_vec(),
            ..Entry::default()
        },
    )
}

/// Appends `mf verify`'s verdict, and the attempts its errors reject, to the spool of `db`, to
/// be recorded at the next open that can write (a later verdict on the same content wins).
pub fn spool_verdict(
    db: &Path,
    verdict: Verdict,
    rejected: &[Rejected],
) -> std::result::Result<PathBuf, String> {
    append(
        db,
        Entry {
            verdicts: vec![verdict],
            rejected: rejected.to_vec(),
            ..Entry::default()
        },
    )
}

fn append(db: &Path, mut entry: Entry) -> std::result::Result<PathBuf, String> {
    let path = spool_path(db);
    entry.unix = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let mut line = serde_json::to_string(&entry).map_err(|e| e.to_string())?;
    line.push('\n');
    let mut file = OpenOptions::new()
        .append(true)
        .create(true)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    crate::files::flock_within(&file, &path, SPOOL_LOCK_WAIT).map_err(|e| e.to_string())?;
    let size = file
        .metadata()
        .map_err(|e| format!("{}: {e}", path.display()))?
        .len();
    if size + line.len() as u64 > MAX_SPOOL_BYTES {
        return Err(format!(
            "{}: full ({size} bytes, limit {MAX_SPOOL_BYTES}); the next hook or `mf verify` that can write the knowledge base empties it",
            path.display()
        ));
    }
    // One write of the whole line: O_APPEND puts it after every other writer's.
    file.write_all(line.as_bytes())
        .and_then(|()| file.sync_data())
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

impl Kb {
    /// Adds the events spooled beside this knowledge base ([`spool_events`]) to the journal, in
    /// one transaction, and empties the spool. Returns how many events were added (those
    /// already there are skipped). No spool, or an empty one, costs one `stat`.
    pub fn replay_spool(&mut self) -> Result<usize> {
        let path = spool_path(&self.path);
        match std::fs::metadata(&path) {
            Ok(m) if m.len() > 0 => {}
            _ => return Ok(0),
        }
        let db = self.path.clone();
        let io = |e: std::io::Error| super::KbError::Invalid(format!("{}: {e}", path.display()));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .map_err(io)?;
        if crate::files::flock_within(&file, &path, SPOOL_LOCK_WAIT).is_err() {
            // Another process is replaying or appending: it, or the next open, will do it.
            return Ok(0);
        }
        let mut bytes = Vec::new();
        (&file)
            .take(MAX_SPOOL_BYTES + 1024 * 1024)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        let entries: Vec<Entry> = String::from_utf8_lossy(&bytes)
            .lines()
            // A line cut short by a crash while it was written is no entry.
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let mut added = 0;
        if !entries.is_empty() {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .at(&db)?;
            for entry in &entries {
                let at: String = tx
                    .query_row("SELECT datetime(?1, 'unixepoch')", [entry.unix], |r| {
                        r.get(0)
                    })
                    .at(&db)?;
                for e in &entry.events {
                    let Some(kind) = e.kind else { continue };
                    let present = tx
                        .query_row(
                            "SELECT 1 FROM session_events
                             WHERE file = ?1 AND content_hash IS ?2 AND session_id = ?3
                               AND declaration = ?4 AND event = ?5 AND at = ?6",
                            params![
                                e.file,
                                e.content_hash,
                                e.session_id,
                                e.declaration,
                                kind.as_str(),
                                at
                            ],
                            |_| Ok(()),
                        )
                        .optional()
                        .at(&db)?
                        .is_some();
                    if present {
                        continue;
                    }
                    super::journal::insert_event(&tx, e, Some(&at)).at(&db)?;
                    added += 1;
                }
                for v in &entry.verdicts {
                    super::journal::record_verification_in(
                        &tx,
                        &v.file,
                        &v.content_hash,
                        &v.verdict,
                        Some(&at),
                    )
                    .at(&db)?;
                }
                // Marking again what is marked changes nothing: idempotent as it is.
                for r in &entry.rejected {
                    super::journal::mark_rejected_in(
                        &tx,
                        &r.file,
                        &r.content_hash,
                        &r.declaration,
                        &r.headline,
                    )
                    .at(&db)?;
                }
            }
            tx.commit().at(&db)?;
        }
        file.set_len(0).map_err(io)?;
        let _ = file.sync_data();
        Ok(added)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kb::EventKind;

    fn event(decl: &str) -> Event {
        Event {
            session_id: "s".into(),
            file: "/p/a.lean".into(),
            declaration: decl.into(),
            kind: Some(EventKind::HoleClosed),
            content_hash: Some("h".into()),
            ..Event::default()
        }
    }

    /// The spool is bounded: an entry that would pass the limit is refused, saying so, and what
    /// is there stays.
    #[test]
    fn a_full_spool_refuses_the_entry() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("knowledge.db");
        let spool = spool_path(&db);
        std::fs::write(&spool, vec![b'\n'; MAX_SPOOL_BYTES as usize - 10]).unwrap();
        let e = spool_events(&db, &[event("t")]).unwrap_err();
        assert!(
            e.contains("full") && e.contains("knowledge.db.spool"),
            "{e}"
        );
        assert_eq!(
            std::fs::metadata(&spool).unwrap().len(),
            MAX_SPOOL_BYTES - 10
        );
    }

    /// A verdict `mf verify` could not record is recorded at the next replay; one given
    /// earlier than the verdict already recorded on the same content does not replace it.
    #[test]
    fn a_spooled_verdict_is_recorded_unless_a_later_one_is() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("knowledge.db");
        let mut kb = Kb::open(&db).unwrap();
        let verdict = |file: &str, verdict: &str| Verdict {
            file: file.into(),
            content_hash: "h".into(),
            verdict: verdict.into(),
        };
        spool_verdict(&db, verdict("/p/a.lean", "pass"), &[]).unwrap();
        assert!(!kb.verified("/p/a.lean", "h").unwrap());
        kb.replay_spool().unwrap();
        assert!(kb.verified("/p/a.lean", "h").unwrap());
        // An old entry (1970) says otherwise: the later verdict stays.
        kb.record_verification("/p/b.lean", "h", "pass").unwrap();
        let old = Entry {
            unix: 1,
            verdicts: vec![verdict("/p/b.lean", "not-compiled")],
            ..Entry::default()
        };
        std::fs::write(
            spool_path(&db),
            format!("{}\n", serde_json::to_string(&old).unwrap()),
        )
        .unwrap();
        kb.replay_spool().unwrap();
        assert!(kb.verified("/p/b.lean", "h").unwrap());
        assert_eq!(std::fs::metadata(spool_path(&db)).unwrap().len(), 0);
    }

    /// A line cut short (a crash while it was written) is skipped; the entries before it are
    /// added, and the spool is emptied.
    #[test]
    fn a_torn_line_is_no_entry() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("knowledge.db");
        let mut kb = Kb::open(&db).unwrap();
        spool_events(&db, &[event("t")]).unwrap();
        let mut f = OpenOptions::new()
            .append(true)
            .open(spool_path(&db))
            .unwrap();
        f.write_all(br#"{"unix":1,"events":[{"session_id":"s","fi"#)
            .unwrap();
        assert_eq!(kb.replay_spool().unwrap(), 1);
        assert_eq!(std::fs::metadata(spool_path(&db)).unwrap().len(), 0);
        let got: Vec<String> = kb
            .session_events("s")
            .unwrap()
            .into_iter()
            .map(|e| e.declaration)
            .collect();
        assert_eq!(got, ["t"]);
        assert_eq!(kb.replay_spool().unwrap(), 0);
    }
}
