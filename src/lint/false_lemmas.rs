//! Where `mf lint` gets the names of false lemmas: the one seam to tracking.db.
//!
//! TODO(lead): use `crate::tracking` once it is merged; this reads the table directly.
//!
//! The database is found at `--tracking PATH`, else `$MATH_FORGE_TRACKING_DB`, else
//! `./submissions/tracking.db`. It is opened read-only. A database or table that is not there
//! (or not readable) means no names, with a note saying so; only a file named with
//! `--tracking` must exist.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

/// The environment variable naming tracking.db.
pub const ENV_VAR: &str = "MATH_FORGE_TRACKING_DB";

/// Where tracking.db is looked for when nothing names it.
pub const DEFAULT_PATH: &str = "submissions/tracking.db";

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

/// Loads the false-lemma names. `explicit` is the `--tracking` argument.
pub fn load(explicit: Option<&Path>) -> Result<FalseLemmas, TrackingError> {
    let (path, named) = match (explicit, std::env::var_os(ENV_VAR)) {
        (Some(p), _) => (p.to_path_buf(), true),
        (None, Some(p)) if !p.is_empty() => (PathBuf::from(p), false),
        _ => (PathBuf::from(DEFAULT_PATH), false),
    };
    if !path.is_file() {
        if named {
            return Err(TrackingError {
                path,
                reason: "no such file".into(),
            });
        }
        return Ok(FalseLemmas {
            names: Vec::new(),
            note: Some(format!(
                "no tracking.db at {}; false-lemma references not checked",
                path.display()
            )),
        });
    }
    Ok(match read_names(&path) {
        Ok(names) => FalseLemmas { names, note: None },
        Err(e) => FalseLemmas {
            names: Vec::new(),
            note: Some(format!(
                "{}: {e}; false-lemma references not checked",
                path.display()
            )),
        },
    })
}

fn read_names(path: &Path) -> rusqlite::Result<Vec<String>> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    let mut stmt = conn.prepare("SELECT lemma_name FROM false_lemmas")?;
    let rows = stmt.query_map([], |row| row.get::<_, Option<String>>(0))?;
    let mut names = Vec::new();
    for name in rows {
        if let Some(name) = name? {
            let name = name.trim();
            if !name.is_empty() {
                names.push(name.to_string());
            }
        }
    }
    Ok(names)
}
