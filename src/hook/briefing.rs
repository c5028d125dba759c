//! SessionStart: the ~300-token briefing from tracking.db and knowledge.db.
//!
//! What the spec's `context-loader.sh` promised, line for line: queue in flight and slots open,
//! results ready to fetch, recent proven results, the top near-miss, the KB's size and newest
//! finding, a staleness note, numbered action items and a usage hint; plus the false lemmas
//! tracking.db knows, so no session starts without them. Every part that cannot be read is
//! left out or says so in a few words; the briefing itself never fails.

use rusqlite::params;

use super::clip;
use crate::kb::report::Day;
use crate::kb::Kb;
use crate::tracking::{Submission, Tracking};

/// Aristotle's default number of concurrent submissions.
pub const DEFAULT_SLOTS: i64 = 5;
/// Completed results older than this are no longer "ready to fetch" (they need a status run).
const READY_HOURS: i64 = 48;
const RECENT_DAYS: i64 = 7;
/// A near-miss proves more than this many theorems with a single hole.
const NEAR_MISS_MIN_PROVEN: i64 = 5;
/// A briefing after this many hours without a submission says the data may be stale.
const STALE_HOURS: i64 = 6;

/// What the briefing is made from.
pub struct Sources<'a> {
    /// `None`: no tracking.db was found (the path is in `tracking_note`).
    pub tracking: Option<&'a Tracking>,
    pub tracking_note: Option<String>,
    /// `Err`: why knowledge.db could not be opened.
    pub kb: Result<&'a Kb, String>,
    /// Unix seconds.
    pub now: i64,
    pub slots: i64,
}

/// The briefing text.
pub fn briefing(s: &Sources<'_>) -> String {
    let mut out = format!("[math-forge] Session briefing ({})\n", iso_minute(s.now));
    let mut actions: Vec<String> = Vec::new();
    let mut stale = None;

    match s.tracking.filter(|t| t.is_available()) {
        Some(t) => {
            let in_flight = t.in_flight_count();
            let open = in_flight.map(|n| (s.slots - n).max(0));
            match (in_flight, open) {
                (Some(n), Some(open)) => out.push_str(&format!(
                    "\nQUEUE: {n} in flight, {open} of {} slots open",
                    s.slots
                )),
                _ => out.push_str("\nQUEUE: unknown (tracking.db has no submission status)"),
            }
            let ready = t.ready_to_fetch(s.now, READY_HOURS, 5);
            if !ready.is_empty() {
                let list = slot_list(&ready);
                out.push_str(&format!("\nREADY TO FETCH: {list}"));
                actions.push(format!("Fetch ready results: {list}"));
            }
            let proven = t.recent_proven(s.now, RECENT_DAYS, 3);
            if !proven.is_empty() {
                let list: Vec<String> = proven
                    .iter()
                    .map(|p| {
                        format!(
                            "{} ({} theorems)",
                            described(p),
                            p.proven_count.unwrap_or(0)
                        )
                    })
                    .collect();
                out.push_str(&format!("\nRECENT PROVEN: {}", list.join(", ")));
            }
            if let Some(m) = t.top_near_miss(NEAR_MISS_MIN_PROVEN) {
                let what = format!(
                    "{} ({} sorry, {} proven)",
                    described(&m),
                    m.sorry_count.unwrap_or(1),
                    m.proven_count.unwrap_or(0)
                );
                out.push_str(&format!("\nTOP NEAR-MISS: {what}"));
                actions.push(format!("Close near-miss: {what}"));
            }
            let false_lemmas = t.all_false_lemmas();
            let names: Vec<&str> = false_lemmas
                .iter()
                .rev()
                .filter_map(|l| {
                    l.lemma_name
                        .as_deref()
                        .map(str::trim)
                        .filter(|n| !n.is_empty())
                })
                .take(3)
                .collect();
            if !false_lemmas.is_empty() {
                let newest = if names.is_empty() {
                    String::new()
                } else {
                    format!(" (newest: {})", names.join(", "))
                };
                out.push_str(&format!(
                    "\nFALSE LEMMAS: {}{newest}; never build on them (`mk failed <name>`)",
                    false_lemmas.len()
                ));
            }
            if let Some(open) = open.filter(|n| *n > 0) {
                actions.push(format!("{open} slots open for new submissions"));
            }
            if let Some((_, hours)) = t.last_submitted(s.now).filter(|(_, h)| *h > STALE_HOURS) {
                stale = Some(format!(
                    "NOTE: last submission was {hours}h ago; tracking data may be stale."
                ));
            }
        }
        None => {
            let why = s.tracking_note.as_deref().unwrap_or("no tracking.db");
            out.push_str(&format!("\nQUEUE: unknown ({})", clip(why, 120)));
        }
    }

    match &s.kb {
        Ok(kb) => out.push_str(&format!("\n{}", kb_line(kb, s.now))),
        Err(why) => out.push_str(&format!("\nKB: unavailable ({})", clip(why, 160))),
    }

    if !actions.is_empty() {
        out.push_str("\n\nACTION ITEMS:");
        for (i, a) in actions.iter().enumerate() {
            out.push_str(&format!("\n{}. {a}", i + 1));
        }
    }
    if let Some(note) = stale {
        out.push_str(&format!("\n\n{note}"));
    }
    out.push_str(
        "\n\nUse `mk search <query>` for KB queries, `mk find <problem>` for one problem, \
         `mk failed <keyword>` before retrying an approach.",
    );
    out
}

/// `KB: 512 facts; newest: "…" (3 days ago)`, or how to fill an empty KB.
fn kb_line(kb: &Kb, now: i64) -> String {
    let count = match kb.finding_count() {
        Ok(n) => n,
        Err(e) => return format!("KB: unreadable ({})", clip(&e.to_string(), 160)),
    };
    if count == 0 {
        return "KB: empty (`mf extract --all RESULTS_DIR` adds result files; `mk init --from-tracking PATH` migrates tracking.db)"
            .into();
    }
    let newest = kb
        .connection()
        .query_row(
            "SELECT title, CAST((julianday(datetime(?1, 'unixepoch')) - julianday(created_at)) * 24 AS INTEGER)
             FROM findings ORDER BY created_at DESC, id DESC LIMIT 1",
            params![now],
            |r| Ok((r.get::<_, Option<String>>(0)?, r.get::<_, Option<i64>>(1)?)),
        )
        .ok();
    let mut line = format!("KB: {count} {}", if count == 1 { "fact" } else { "facts" });
    if let Some((Some(title), hours)) = newest {
        line.push_str(&format!("; newest: \"{}\"", clip(&title, 90)));
        if let Some(h) = hours.filter(|h| *h >= 0) {
            line.push_str(&format!(" ({})", ago(h)));
        }
    }
    line
}

fn ago(hours: i64) -> String {
    match hours {
        0 => "within the hour".into(),
        1..=47 => format!("{hours}h ago"),
        _ => format!("{} days ago", hours / 24),
    }
}

/// `slot615, slot702` (the file name when there is no slot number).
fn slot_list(subs: &[Submission]) -> String {
    subs.iter().map(label).collect::<Vec<_>>().join(", ")
}

fn label(s: &Submission) -> String {
    match (s.slot, &s.filename) {
        (Some(n), _) => format!("slot{n}"),
        (None, Some(f)) => clip(f, 60),
        (None, None) => format!("submission {}", s.id.unwrap_or(0)),
    }
}

/// `slot614 erdos_850`: the label and the problem, when known.
fn described(s: &Submission) -> String {
    match s
        .problem_id
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        Some(p) if s.slot.is_some() => format!("{} {}", label(s), clip(p, 40)),
        _ => label(s),
    }
}

/// `2025-03-10T12:00Z` for Unix seconds.
pub fn iso_minute(unix: i64) -> String {
    let secs = unix.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}Z",
        Day::of_unix(unix),
        secs / 3600,
        secs % 3600 / 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_dates() {
        assert_eq!(iso_minute(0), "1970-01-01T00:00Z");
        assert_eq!(iso_minute(951_868_800 + 3_660), "2000-03-01T01:01Z");
        assert_eq!(iso_minute(1_709_164_800), "2024-02-29T00:00Z");
    }

    #[test]
    fn ages() {
        assert_eq!(ago(0), "within the hour");
        assert_eq!(ago(30), "30h ago");
        assert_eq!(ago(24 * 9 + 5), "9 days ago");
    }
}
