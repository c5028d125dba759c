//! Errors of the knowledge base, each one line that names the file and what to do.

use std::path::PathBuf;

/// Every way a knowledge-base operation can fail.
///
/// `Display` is a single line meant for the terminal: it names the path involved and, where
/// there is one, the command that fixes it.
#[derive(Debug, thiserror::Error)]
pub enum KbError {
    /// The database file does not exist. `fix` is the command that makes this very file
    /// ([`super::paths::how_to_create`] where the rule that chose it is known).
    #[error("no knowledge base at {path} ({reason}); {fix}")]
    Missing {
        path: PathBuf,
        reason: String,
        fix: String,
    },

    /// The file exists but is not an SQLite database (corrupt, truncated, or some other file).
    #[error(
        "{path} is not a usable SQLite database ({detail}); move it aside and run `mk init` to rebuild it"
    )]
    NotADatabase { path: PathBuf, detail: String },

    /// A valid SQLite database that holds other tables and no knowledge base.
    #[error(
        "{path} is an SQLite database but not a math-forge knowledge base (is it tracking.db?); point --db at knowledge.db, or run `mk init --db NEW_PATH`"
    )]
    Foreign { path: PathBuf },

    /// Written by a newer math-forge.
    #[error(
        "{path} has schema version {found}, newer than this mk understands ({supported}); upgrade math-forge"
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    /// Opened read-only but the schema is older than this build expects.
    #[error(
        "{path} has schema version {found}, older than {supported}; run `mk init` to upgrade it"
    )]
    TooOld {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    /// Another process held the write lock longer than the busy timeout and all retries.
    #[error("{path} is locked by another process{waited}; try again", waited = waited_phrase(*waited_ms))]
    Locked {
        path: PathBuf,
        /// How long this process waited, measured; `None` when it was not.
        waited_ms: Option<u64>,
    },

    /// The SQL given to `mk query` would change the database.
    #[error("refused: `mk query` runs read-only statements only (SELECT, WITH, EXPLAIN, read-only PRAGMA); {detail}")]
    NotReadOnly { detail: String },

    /// A value given by the user or caller failed validation.
    #[error("{0}")]
    Invalid(String),

    /// A problem id (or alias) the knowledge base does not know. Every command that takes a
    /// problem id answers an unknown one with this error (exit status 2).
    #[error("no problem {query}{}{}", nearest_phrase(nearest), note.as_deref().map(|n| format!("; {n}")).unwrap_or_default())]
    UnknownProblem {
        query: String,
        /// The closest known ids and aliases (`Erdos975 → erdos_975`), closest first.
        nearest: Vec<String>,
        /// What else the command would have taken, or how to start a new problem.
        note: Option<String>,
    },

    /// Creating the directory that holds the database failed.
    #[error("cannot create directory {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// Any other SQLite error, with the file it happened on.
    #[error("database error on {path}: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
}

/// Result alias for knowledge-base operations.
pub type Result<T, E = KbError> = std::result::Result<T, E>;

impl KbError {
    /// Classifies a raw SQLite error that happened on `path`.
    pub(crate) fn sqlite(path: &std::path::Path, source: rusqlite::Error) -> KbError {
        use rusqlite::ErrorCode;
        let path = path.to_path_buf();
        match source.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) | Some(ErrorCode::DatabaseCorrupt) => {
                KbError::NotADatabase {
                    path,
                    detail: first_line(&source.to_string()),
                }
            }
            Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => KbError::Locked {
                path,
                waited_ms: None,
            },
            _ => KbError::Sqlite { path, source },
        }
    }

    /// True when SQLite could not open or read the file as it is (no permission to create the
    /// WAL's side files, a read-only file): what an immutable read-only open can get around.
    pub(crate) fn is_open_failure(&self) -> bool {
        use rusqlite::ErrorCode;
        match self {
            KbError::Sqlite { source, .. } => matches!(
                source.sqlite_error_code(),
                Some(ErrorCode::CannotOpen) | Some(ErrorCode::ReadOnly)
            ),
            _ => false,
        }
    }

    /// True when retrying the same transaction later may succeed.
    pub fn is_busy(&self) -> bool {
        matches!(self, KbError::Locked { .. })
    }
}

fn nearest_phrase(nearest: &[String]) -> String {
    if nearest.is_empty() {
        String::new()
    } else {
        format!("; nearest: {}", nearest.join(", "))
    }
}

fn waited_phrase(waited_ms: Option<u64>) -> String {
    waited_ms.map_or(String::new(), |ms| format!(" (still busy after {ms} ms)"))
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or_default().to_string()
}

/// Extension to attach the database path to rusqlite results.
pub(crate) trait AtPath<T> {
    fn at(self, path: &std::path::Path) -> Result<T>;
}

impl<T> AtPath<T> for rusqlite::Result<T> {
    fn at(self, path: &std::path::Path) -> Result<T> {
        self.map_err(|e| KbError::sqlite(path, e))
    }
}
