//! Where `mf lint` gets the names of false lemmas: tracking.db, found as every math-forge tool
//! finds it (`--tracking`, `$MATH_FORGE_TRACKING_DB`, `$CLAUDE_PROJECT_DIR/submissions/…`,
//! `./submissions/tracking.db` here or above) and read through [`crate::tracking`]. A database
//! or table that is not there means no names, with a note saying so; only a file named with
//! `--tracking` must exist.

use std::path::{Path, PathBuf};

use crate::kb::{resolve_tracking_db, Reason};
use crate::tracking::Tracking;

/// The false lemmas found, and a note for the user when none could be read.
#[derive(Debug, Clone, Default)]
pub struct FalseLemmas {
    pub names: Vec<String>,
    pub note: Option<String>,
}

/// Why an explicitly named tracking.db could not be used.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {reason}")]
pub struct TrackingError {
    pub path: PathBuf,
    pub reason: String,
}

/// Loads the false-lemma names. `explicit` is the `--tracking` argument; `wanted` says the
/// rule was asked for (`--deny false-lemma-reference`). A missing tracking.db is an error when
/// named with `--tracking`, a note when `$MATH_FORGE_TRACKING_DB` names it or the rule was
/// asked for, and otherwise no news: most projects have no tracking.db, and the rule then has
/// nothing to look for.
pub fn load(explicit: Option<&Path>, wanted: bool) -> Result<FalseLemmas, TrackingError> {
    let resolved = resolve_tracking_db(explicit);
    let shown = shown_path(&resolved.path);
    if !resolved.path.is_file() {
        if resolved.reason == Reason::Flag {
            return Err(TrackingError {
                path: resolved.path,
                reason: "no such file".into(),
            });
        }
        let asked = wanted || matches!(resolved.reason, Reason::Env(_));
        return Ok(FalseLemmas {
            names: Vec::new(),
            note: asked
                .then(|| format!("no tracking.db at {shown}; false-lemma references not checked")),
        });
    }
    let tracking = Tracking::open(&resolved.path);
    let mut names: Vec<String> = tracking
        .all_false_lemmas()
        .into_iter()
        .filter_map(|lemma| lemma.lemma_name)
        .map(|name| name.trim().to_string())
        .filter(|name| !name.is_empty())
        .collect();
    names.sort();
    names.dedup();
    let unreadable = !tracking.is_available() || !tracking.has("false_lemmas", Some("lemma_name"));
    let note = unreadable.then(|| {
        let why = tracking.notes().join("; ");
        format!("{why}; false-lemma references not checked")
    });
    Ok(FalseLemmas { names, note })
}

/// The path relative to the current directory when it is below it, as the user would write it.
fn shown_path(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| PathBuf::from(path))
        .display()
        .to_string()
}
