//! The one edit the gate lets through although it puts `sorry` where a proof was: the agent
//! takes back its own attempt that Lean rejected.
//!
//! An agent that closed a hole with a proof `mf verify` then failed on must be able to put the
//! hole back; otherwise the gate leaves it a choice between a broken proof that looks complete
//! and `git checkout`. The edit is allowed when both hold:
//! - every declaration the edit puts a hole back into has a Lean error inside it on exactly the
//!   file's current content (`mf verify` marked the journaled attempt, [`Kb::mark_rejected`]),
//!   so what is replaced is no proof Lean accepts;
//! - compared with where the session started (the Stop hook's baseline: SessionStart's snapshot,
//!   else git `HEAD`), the edit guts nothing and adds no axiom: every hole it opens was there
//!   when the session started.
//!
//! Anything that cannot be known (no knowledge base, no verdict, no baseline) keeps the refusal.

use std::path::Path;
use std::time::Duration;

use super::{gate, stop};
use crate::kb::Kb;
use crate::lean::{Outline, ParsedFile};

/// Where the evidence is.
#[derive(Debug, Clone, Copy)]
pub struct Evidence<'a> {
    pub knowledge_db: Option<&'a Path>,
    /// SessionStart's snapshots (`$CLAUDE_PLUGIN_DATA` or the user data dir).
    pub data_dir: Option<&'a Path>,
    pub session: Option<&'a str>,
    /// A connection to `knowledge_db` the caller has open already (PostToolUse journals
    /// through it): asked instead of opening another, which parses the schema again.
    pub kb: Option<&'a Kb>,
}

/// Limit for the git commands that read the session's starting point.
const GIT_TIMEOUT: Duration = Duration::from_millis(1000);

/// Whether going from `before` to `after` in `path` (shown as `name`) only puts back holes the
/// session started with, in place of content `mf verify` failed on.
pub fn allowed(ev: &Evidence, path: &Path, name: &str, before: &str, after: &str) -> bool {
    let opened;
    let kb = match ev.kb {
        Some(kb) => kb,
        None => {
            let Some(db) = ev.knowledge_db.filter(|db| db.is_file()) else {
                return false;
            };
            let Ok(kb) = Kb::open_read_only(db) else {
                return false;
            };
            opened = kb;
            &opened
        }
    };
    let hash = crate::kb::content_hash(before.as_bytes());
    let file = super::files::lexically_normal(path);
    let Ok(rejected) = kb.rejected_declarations(&file.to_string_lossy(), &hash) else {
        return false;
    };
    // Parsing both texts only once Lean rejected something here.
    if rejected.is_empty() {
        return false;
    }
    let reopened = reopened(name, before, after);
    if reopened.is_empty() || !reopened.iter().all(|d| rejected.contains(d)) {
        return false;
    }
    let Some(start) = stop::text_at_session_start(path, ev.data_dir, ev.session, GIT_TIMEOUT)
    else {
        return false;
    };
    gate::check(name, start.as_deref(), after).blocks.is_empty()
}

/// The declarations of `after` with more holes than they had in `before` (or new with holes).
pub fn reopened(name: &str, before: &str, after: &str) -> Vec<String> {
    let outline = |text: &str| {
        let parsed = ParsedFile::parse(text.to_string());
        Outline::of(name, &parsed)
    };
    let (old, new) = (outline(before), outline(after));
    new.declarations
        .iter()
        .filter(|d| {
            let had = old
                .declarations
                .iter()
                .find(|o| o.full_name == d.full_name)
                .map_or(0, |o| o.sorry_count);
            d.sorry_count > had
        })
        .map(|d| d.full_name.clone())
        .collect()
}

/// Whether `after` holds more `sorry`/`admit` words than `before`: the edit may put a hole
/// back (a hint's test; [`reopened`] says which declarations, parsing both texts).
pub fn adds_hole_words(before: &str, after: &str) -> bool {
    let holes = |text: &str| {
        ["sorry", "admit"]
            .iter()
            .map(|w| memchr::memmem::find_iter(text.as_bytes(), w.as_bytes()).count())
            .sum::<usize>()
    };
    holes(after) > holes(before)
}

/// The note the agent reads when such an edit is let through.
pub fn note(name: &str) -> String {
    format!(
        "[math-forge] Allowed: this edit of {name} puts back a hole the file had when the session started, in place of a proof Lean rejected (`mf verify`, or `lake` through Bash). The failed attempt is kept in the knowledge base for the next session."
    )
}

/// The hint a refusal ends with: how to take back one's own rejected attempt.
pub const HINT: &str = "If what you replace is your own attempt of this session and Lean rejects it, check it with Lean first (`mf verify FILE`, or `lake env lean FILE` / `lake build` through Bash): once Lean rejected it, putting back the hole the declaration had when the session started is allowed.";

#[cfg(test)]
mod tests {
    use super::adds_hole_words;

    #[test]
    fn a_hint_for_putting_a_hole_back_needs_a_new_hole_word() {
        assert!(adds_hole_words("by simp", "by sorry"));
        assert!(adds_hole_words("by sorry", "by admit\n  sorry"));
        assert!(!adds_hole_words("by sorry", "by sorry -- kept"));
        assert!(!adds_hole_words("theorem t : p := by simp", "axiom a : p"));
    }
}
