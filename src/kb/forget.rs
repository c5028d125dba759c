//! `mk forget`: taking files' facts off the knowledge base, when the files were extracted by
//! mistake (a tutorial's fixtures into the real knowledge base) or no longer exist.
//!
//! A file is forgotten whole, in one transaction with the others named: its occurrences go (a
//! fact that occurs in no other file goes with them; one that does is shown with the best
//! remaining file), its attempt and the strategy derived from it, its share of its problem's
//! counters, and its `sources` row. A problem that is left with no evidence at all (no file,
//! fact, strategy or attempt names it) goes too; one migrated from tracking.db comes back with
//! `mk init --from-tracking`. The full-text indexes follow every delete (triggers), and a
//! proven problem that lost its verified proof is `partial` again.

use std::collections::BTreeSet;

use serde::Serialize;

use super::error::{AtPath, Result};
use super::sql::{problem_key, problem_key_sql};
use super::write::{forget_source, FactCounts};
use super::Kb;

/// What [`Kb::forget`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Forgotten {
    /// The stored files taken off, by path.
    pub files: Vec<String>,
    /// Their occurrences removed.
    pub occurrences_removed: usize,
    /// Problems left without any evidence, removed.
    pub problems_removed: Vec<String>,
    /// The knowledge base before and after.
    pub before: FactCounts,
    pub after: FactCounts,
}

impl Kb {
    /// The stored files `path` names: the file itself, or every stored file below it when it
    /// is a directory (or was one: its files may be gone). Paths are compared as stored
    /// (canonical, see `extract::source_key`).
    pub fn stored_files_under(&self, path: &str) -> Result<Vec<String>> {
        let dir = format!("{}/", path.trim_end_matches('/'));
        // A range on the unique index: every path that starts with `dir`.
        let mut upper = dir.clone();
        upper.pop();
        upper.push('0'); // the character after '/'
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT path FROM sources WHERE path = ?1 OR (path >= ?2 AND path < ?3)
                 ORDER BY path",
            )
            .at(&self.path)?;
        let rows = stmt
            .query_map([path, &dir, &upper], |r| r.get::<_, String>(0))
            .at(&self.path)?;
        rows.collect::<rusqlite::Result<_>>().at(&self.path)
    }

    /// Stored files that no longer exist where they were extracted from (a path that cannot
    /// be checked, say in a directory that cannot be read, is kept).
    pub fn missing_files(&self) -> Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT path FROM sources ORDER BY path")
            .at(&self.path)?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .at(&self.path)?;
        let mut out = Vec::new();
        for path in rows {
            let path = path.at(&self.path)?;
            if matches!(
                std::fs::symlink_metadata(&path),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound
            ) {
                out.push(path);
            }
        }
        Ok(out)
    }

    /// Takes the stored files `paths` off the knowledge base, all in one transaction (see the
    /// module documentation). Paths that are not stored are ignored.
    pub fn forget(&mut self, paths: &[String]) -> Result<Forgotten> {
        let before = self.fact_counts()?;
        let mut report = self.write_transaction(|tx, db| {
            let mut report = Forgotten::default();
            let mut problems = BTreeSet::new();
            for path in paths {
                if let Some(gone) = forget_source(tx, path).at(db)? {
                    report.files.push(path.clone());
                    report.occurrences_removed += gone.occurrences;
                    problems.extend(gone.problem);
                }
            }
            for problem in problems {
                let key = problem_key(&problem);
                let evidence: bool = tx
                    .query_row(
                        &format!(
                            "SELECT EXISTS (SELECT 1 FROM sources WHERE {s} = ?1)
                                 OR EXISTS (SELECT 1 FROM findings WHERE {f} = ?1)
                                 OR EXISTS (SELECT 1 FROM strategies WHERE {g} = ?1)
                                 OR EXISTS (SELECT 1 FROM attempts WHERE {a} = ?1)",
                            s = problem_key_sql("problem_id"),
                            f = problem_key_sql("problem_id"),
                            g = problem_key_sql("problem_id"),
                            a = problem_key_sql("problem_id"),
                        ),
                        [&key],
                        |r| r.get(0),
                    )
                    .at(db)?;
                if !evidence {
                    tx.execute("DELETE FROM problems WHERE id = ?1", [&problem])
                        .at(db)?;
                    report.problems_removed.push(problem);
                }
            }
            Ok(report)
        })?;
        self.settle_problem_status()?;
        report.before = before;
        report.after = self.fact_counts()?;
        Ok(report)
    }
}
