//! What the edit hooks write to the session journal: declaration-level events read off the
//! comparison PostToolUse already made ([`crate::lean::compare`]), so journaling costs no
//! second parse.
//!
//! An event carries the declaration's statement, its body after the edit (bounded), the
//! tactics that start its proof steps, the lemma-like names its body uses and its primary
//! technique; the Stop hook's capture ([`crate::kb::derive_captures`]) needs nothing else.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use super::by_line::{declaration_at, ByLine};
use crate::kb::{Event, EventKind, Kb};
use crate::lean::compare::{FileComparison, Status};
use crate::lean::{idents, Declaration, Outline, ParsedFile};

/// How long a hook waits for another writer's lock before it spools the journal entry.
pub const LOCK_WAIT: Duration = Duration::from_millis(250);

/// The events of one edit, without session, file or hash (the caller knows those).
pub fn events(c: &FileComparison, new_file: &ParsedFile, new: &Outline) -> Vec<Event> {
    let declarations = ByLine::of(&new.declarations, |d| d.line);
    // The declarations with events, and what happened to each.
    let mut changed = Vec::new();
    for d in &c.declarations {
        let Some(side) = d.new.as_ref() else { continue };
        if d.full_name.is_empty() || !side.has_body {
            continue;
        }
        let kinds: Vec<EventKind> = match d.status {
            Status::Added if side.holes > 0 => vec![EventKind::HoleOpened],
            Status::Modified => {
                let old_holes = d.old.as_ref().map_or(0, |o| o.holes);
                let mut k = Vec::new();
                if d.statement_changed {
                    k.push(EventKind::StatementChanged);
                }
                if d.proof_changed {
                    k.push(match (old_holes > 0, side.holes > 0) {
                        (true, false) => EventKind::HoleClosed,
                        (false, true) => EventKind::HoleOpened,
                        _ => EventKind::ProofRewritten,
                    });
                }
                k
            }
            _ => Vec::new(),
        };
        if kinds.is_empty() {
            continue;
        }
        let Some(decl) = declaration_at(&declarations, side.line, &d.full_name) else {
            continue;
        };
        changed.push((d, side, kinds, decl));
    }
    if changed.is_empty() {
        return Vec::new();
    }
    // The code identifiers of those bodies, in document order, read in one walk that enters
    // only the nodes overlapping them (a new file's every declaration is added: its whole tree
    // was walked where a third of it has events).
    let bodies =
        crate::lean::merge_ranges(changed.iter().filter_map(|(.., decl)| decl.body.clone()));
    let identifiers: Vec<std::ops::Range<usize>> =
        idents::code_identifiers_where(new_file, |n| overlaps(&bodies, n.byte_range()))
            .iter()
            .map(|n| n.byte_range())
            .collect();
    let mut out = Vec::new();
    for (d, side, kinds, decl) in changed {
        let proof = decl
            .body
            .clone()
            .and_then(|r| new_file.text.get(r))
            .map(|b| b.split_whitespace().collect::<Vec<_>>().join(" "));
        let lemmas = lemmas_used(new_file, &identifiers, decl);
        for kind in kinds {
            out.push(Event {
                declaration: d.full_name.clone(),
                kind: Some(kind),
                statement: Some(side.statement.clone()),
                proof: proof.clone(),
                // A hole is not an approach.
                tactics: decl
                    .tactics
                    .keys()
                    .filter(|t| !matches!(t.as_str(), "sorry" | "admit"))
                    .cloned()
                    .collect(),
                lemmas: lemmas.clone(),
                technique: crate::extract::technique::primary(&decl.tactics),
                holes: side.holes,
                ..Event::default()
            });
        }
    }
    out
}

/// Whether `r` overlaps one of `disjoint` (ascending, disjoint).
fn overlaps(disjoint: &[std::ops::Range<usize>], r: std::ops::Range<usize>) -> bool {
    let k = disjoint.partition_point(|d| d.end <= r.start);
    disjoint.get(k).is_some_and(|d| d.start < r.end)
}

/// Most names kept per body.
const MAX_LEMMAS: usize = 24;

/// Library-looking names the body of `decl` uses: code identifiers with a `_` or `.` in them
/// (`sq_nonneg`, `Nat.succ_le`) that are neither bound in the statement (hypotheses such as
/// `h_pos`) nor tactic names (`norm_num` in a nested `by`).
fn lemmas_used(
    file: &ParsedFile,
    identifiers: &[std::ops::Range<usize>],
    decl: &Declaration,
) -> Vec<String> {
    let Some(body) = decl.body.clone() else {
        return Vec::new();
    };
    let bound: BTreeSet<&str> = decl
        .statement
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.' || c == '\''))
        .collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let first = identifiers.partition_point(|r| r.start < body.start);
    for r in identifiers[first..]
        .iter()
        .take_while(|r| r.end <= body.end)
    {
        let r = r.clone();
        let Some(name) = file.text.get(r) else {
            continue;
        };
        let lemma_like = (name.contains('_') || name.contains('.'))
            && name.chars().next().is_some_and(char::is_alphabetic);
        let tactic = decl.tactics.contains_key(name);
        if lemma_like && !tactic && !bound.contains(name) && seen.insert(name) {
            out.push(name.to_string());
            if out.len() == MAX_LEMMAS {
                break;
            }
        }
    }
    out
}

/// What journaling an edit produced: a note for stderr, and the request to record why failed
/// attempts failed when this edit brought the session over the threshold.
#[derive(Debug, Default)]
pub struct Journaled {
    pub note: Option<String>,
    pub ask_why: Option<String>,
}

/// Appends an edit's events (and a `gate_fired` event when the hook blocked) to the journal
/// of `db`, after the entries spooled earlier. A missing knowledge base skips journaling
/// silently; one busy beyond [`LOCK_WAIT`], read-only or unreadable gets the entry in its
/// spool ([`crate::kb::spool_events`]), with a note: the hook's answer never waits on it.
pub fn write(
    db: &Path,
    session: &str,
    file: &Path,
    content: &str,
    events: Vec<Event>,
    blocked: Option<&str>,
) -> Journaled {
    write_with(db, None, session, file, content, events, blocked)
}

/// [`write`] through `opened`, a connection to `db` ([`Kb::open_existing`]) the hook has
/// open already, when it has one: each open parses the schema again.
pub fn write_with(
    db: &Path,
    opened: Option<Kb>,
    session: &str,
    file: &Path,
    content: &str,
    mut events: Vec<Event>,
    blocked: Option<&str>,
) -> Journaled {
    if let Some(reason) = blocked {
        events.push(Event {
            kind: Some(EventKind::GateFired),
            detail: Some(super::clip(reason, 300)),
            ..Event::default()
        });
    }
    if events.is_empty() || !db.is_file() {
        // Nothing happened, or no knowledge base (never initialized): nothing to say.
        return Journaled::default();
    }
    let file = super::files::lexically_normal(file)
        .to_string_lossy()
        .into_owned();
    let hash = crate::kb::content_hash(content.as_bytes());
    for e in &mut events {
        e.session_id = session.to_string();
        e.file = file.clone();
        e.content_hash = Some(hash.clone());
    }
    let opened = match opened {
        Some(kb) => Ok(kb),
        None => Kb::open_existing(db),
    };
    let written = opened.and_then(|mut kb| {
        kb.set_lock_wait(LOCK_WAIT)?;
        kb.keep_log_on_close()?;
        kb.journal(&events)?;
        Ok(kb)
    });
    let mut kb = match written {
        Ok(kb) => kb,
        // Busy beyond the wait, read-only or unreadable: the events are kept beside it and
        // added at the next open that can write ([`crate::kb::spool_events`]).
        Err(e) => {
            let note = match crate::kb::spool_events(db, &events) {
                Ok(spool) => format!(
                    "{e}; the journal entry is kept in {} and added to it at its next open",
                    spool.display()
                ),
                Err(why) => format!("{e}; journal entry lost: {why}"),
            };
            return Journaled {
                note: Some(note),
                ask_why: None,
            };
        }
    };
    // Entries an earlier hook spooled, now that it can be written (after this one: the
    // journal reads by session and file, and each spooled event keeps its own time).
    let replayed = kb.replay_spool();
    let result = (|| {
        let closed: Vec<String> = events
            .iter()
            .filter(|e| e.kind == Some(EventKind::HoleClosed))
            .flat_map(|e| e.lemmas.iter().cloned())
            .collect();
        kb.mark_used(session, &closed)?;
        // Keeps the log short for the next hook; the rows are written either way, and a log
        // that could not be emptied now is emptied by a later hook.
        let _ = kb.fold_long_log();
        kb.set_lock_wait(LOCK_WAIT)
    })();
    let replay_note = replayed
        .err()
        .map(|e| format!("{e}; the spooled journal entries wait for the next open"));
    let (note, ask_why) = match result {
        Err(e) => (
            Some(format!("{e}; journal written, session notes skipped")),
            None,
        ),
        // A blocked edit already tells the agent what to do; the request waits for the next.
        Ok(()) if blocked.is_some() => (None, None),
        Ok(()) => match super::capture::ask_during_session(&mut kb, session, &events) {
            Ok(ask_why) => (None, ask_why),
            Err(e) => (Some(e), None),
        },
    };
    Journaled {
        note: note.or(replay_note),
        ask_why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The identifiers read only inside the changed bodies give each event the lemmas the
    /// whole file's identifiers give.
    #[test]
    fn lemmas_from_the_changed_bodies_alone() {
        let old =
            "theorem a (h_x : 0 < 1) : True := by\n  have := Nat.succ_le_of_lt h_x\n  trivial\n\n\
                   theorem b : 1 = 1 := by\n  exact Eq.refl_self 1\n\n\
                   theorem c : 2 = 2 := by\n  simp [two_mul_self]\n";
        let new =
            "theorem a (h_x : 0 < 1) : True := by\n  have := Nat.succ_le_of_lt h_x\n  sorry\n\n\
                   theorem b : 1 = 1 := by\n  exact Eq.refl_self 1\n\n\
                   theorem c : 2 = 2 := by\n  rw [mul_comm_two, add_zero_x]\n\n\
                   theorem d : 3 = 3 := by\n  exact foo_bar.baz\n  sorry\n";
        let (of, nf) = (
            ParsedFile::parse(old.to_string()),
            ParsedFile::parse(new.to_string()),
        );
        let (oo, no) = (Outline::of("x.lean", &of), Outline::of("x.lean", &nf));
        let c = FileComparison::of(old, &oo, new, &no);
        let got = events(&c, &nf, &no);
        let all: Vec<std::ops::Range<usize>> = idents::code_identifiers(&nf)
            .iter()
            .map(|n| n.byte_range())
            .collect();
        let names: Vec<&str> = got.iter().map(|e| e.declaration.as_str()).collect();
        assert_eq!(names, ["a", "c", "d"]);
        for e in &got {
            let decl = no
                .declarations
                .iter()
                .find(|d| d.full_name == e.declaration)
                .unwrap();
            assert_eq!(e.lemmas, lemmas_used(&nf, &all, decl), "{}", e.declaration);
        }
        assert_eq!(got[0].lemmas, ["Nat.succ_le_of_lt"]);
        assert_eq!(got[1].lemmas, ["mul_comm_two", "add_zero_x"]);
        assert_eq!(got[2].lemmas, ["foo_bar.baz"]);
    }

    /// Each event reads its own declaration, found by line and full name: same names in
    /// other namespaces, and several declarations on one line.
    #[test]
    fn each_event_reads_its_own_declaration() {
        let new = "namespace A\ntheorem t : 1 = 1 := by\n  simp\n  sorry\nend A\n\
                   namespace B\ntheorem t : 2 = 2 := by\n  omega\n  sorry\nend B\n\
                   theorem x : 3 = 3 := by sorry\ntheorem y : 4 = 4 := by decide; sorry\n";
        let (of, nf) = (
            ParsedFile::parse(String::new()),
            ParsedFile::parse(new.into()),
        );
        let (oo, no) = (Outline::of("x.lean", &of), Outline::of("x.lean", &nf));
        let c = FileComparison::of("", &oo, new, &no);
        let got: Vec<(String, Vec<String>, String)> = events(&c, &nf, &no)
            .into_iter()
            .map(|e| (e.declaration, e.tactics, e.statement.unwrap_or_default()))
            .collect();
        let want = |d: &str, t: &[&str], s: &str| {
            (
                d.to_string(),
                t.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
                s.to_string(),
            )
        };
        assert_eq!(
            got,
            [
                want("A.t", &["simp"], "t : 1 = 1"),
                want("B.t", &["omega"], "t : 2 = 2"),
                want("x", &[], "x : 3 = 3"),
                want("y", &["decide"], "y : 4 = 4"),
            ]
        );
    }

    #[test]
    fn ranges_merge_and_overlap() {
        let d = crate::lean::merge_ranges([5..9, 0..2, 8..12, 12..13, 20..20]);
        assert_eq!(d, [0..2, 5..13, 20..20]);
        assert!(overlaps(&d, 1..3));
        assert!(!overlaps(&d, 2..5));
        assert!(overlaps(&d, 12..30));
        assert!(!overlaps(&d, 13..20));
    }

    /// Each write opens its own connection, as each hook is its own process: the log stays
    /// short however many edits are journaled, and no row is lost to the emptying.
    #[test]
    fn the_log_stays_short_across_hooks() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("knowledge.db");
        drop(Kb::open(&db).unwrap());
        let wal = dir.path().join("knowledge.db-wal");
        let file = dir.path().join("a.lean");
        let mut longest = 0;
        for i in 0..300 {
            let j = write(
                &db,
                "s1",
                &file,
                &format!("theorem t{i} : True := sorry"),
                Vec::new(),
                Some("- a proof was replaced by sorry"),
            );
            assert!(j.note.is_none(), "{:?}", j.note);
            longest = longest.max(std::fs::metadata(&wal).map_or(0, |m| m.len()));
        }
        let kb = Kb::open_existing(&db).unwrap();
        let page: i64 = kb
            .connection()
            .query_row("PRAGMA page_size", [], |r| r.get(0))
            .unwrap();
        // The limit, and the pages of the one transaction that crossed it.
        let bound = 32 + (crate::kb::HOOK_LOG_PAGES as u64 + 16) * (page as u64 + 24);
        assert!(
            longest <= bound,
            "log reached {longest} bytes (bound {bound})"
        );
        let rows: i64 = kb
            .connection()
            .query_row(
                "SELECT count(*) FROM session_events WHERE event = 'gate_fired'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(rows, 300);
    }
}
