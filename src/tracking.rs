//! Read-only, defensive access to the users' tracking.db.
//!
//! tracking.db belongs to the submission pipeline: we open it read-only, run short autocommit
//! reads (so no lock outlives a statement), and never assume a table or column exists. Real
//! databases have more columns than we use and older ones lack some; a missing table or column
//! reads as empty/NULL and leaves a note for the user instead of an error. Nothing here panics
//! or returns an error: at worst [`Tracking`] is unavailable with a note saying why.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

use crate::sql::{int_at, like_contains, problem_key, problem_key_sql, text_at};

/// An opened (or unavailable) tracking.db.
pub struct Tracking {
    path: PathBuf,
    conn: Option<Connection>,
    /// table → its columns (`None`: no such table), read when a table is first asked about:
    /// the hooks open tracking.db on every edit and read one table of it.
    schema: RefCell<HashMap<String, Option<HashSet<String>>>>,
    notes: RefCell<Vec<String>>,
}

/// A row of `false_lemmas`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FalseLemma {
    pub id: Option<i64>,
    pub lemma_name: Option<String>,
    pub false_statement: Option<String>,
    pub false_statement_english: Option<String>,
    pub frontier_id: Option<String>,
    pub counterexample: Option<String>,
    pub why_false: Option<String>,
    pub avoid_pattern: Option<String>,
    pub evidence_level: Option<String>,
    pub impact: Option<String>,
}

/// A row of `submissions`, with the slot parsed from the file name.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Submission {
    pub id: Option<i64>,
    pub uuid: Option<String>,
    pub filename: Option<String>,
    pub problem_id: Option<String>,
    pub status: Option<String>,
    pub sorry_count: Option<i64>,
    pub proven_count: Option<i64>,
    pub created_at: Option<String>,
    pub completed_at: Option<String>,
    pub verified: Option<i64>,
    pub slot: Option<i64>,
}

/// A row of `proven_theorems` joined with its submission.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ProvenTheorem {
    pub id: Option<i64>,
    pub theorem_name: Option<String>,
    pub theorem_type: Option<String>,
    pub statement: Option<String>,
    /// `None` when the column is missing (older schema): completeness unknown.
    pub proof_complete: Option<bool>,
    pub filename: Option<String>,
    pub problem_id: Option<String>,
    pub uuid: Option<String>,
}

/// A row of `failed_approaches`, with the file name of its submission when known.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FailedApproach {
    pub id: Option<i64>,
    pub approach_name: Option<String>,
    pub approach_description: Option<String>,
    pub problem_id: Option<String>,
    pub frontier_id: Option<String>,
    pub submission_uuid: Option<String>,
    pub why_failed: Option<String>,
    pub avoid_pattern: Option<String>,
    pub failure_category: Option<String>,
    pub learned_insight: Option<String>,
    pub filename: Option<String>,
}

/// A row of `candidate_problems`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CandidateProblem {
    pub id: Option<String>,
    pub name: Option<String>,
    pub domain: Option<String>,
    pub status: Option<String>,
    pub submissions_count: Option<i64>,
    pub proven_count: Option<i64>,
    pub false_lemma_count: Option<i64>,
    pub statement: Option<String>,
}

const FALSE_LEMMA_COLS: &[&str] = &[
    "id",
    "lemma_name",
    "false_statement",
    "false_statement_english",
    "frontier_id",
    "counterexample",
    "why_false",
    "avoid_pattern",
    "evidence_level",
    "impact",
];
const SUBMISSION_COLS: &[&str] = &[
    "id",
    "uuid",
    "filename",
    "problem_id",
    "status",
    "sorry_count",
    "proven_count",
    "created_at",
    "completed_at",
    "verified",
];

impl Tracking {
    /// Opens `path` read-only. Never fails: a missing or unreadable file gives an unavailable
    /// `Tracking` whose [`notes`](Tracking::notes) say why.
    pub fn open(path: &Path) -> Tracking {
        let mut t = Tracking {
            path: path.to_path_buf(),
            conn: None,
            schema: RefCell::default(),
            notes: RefCell::new(Vec::new()),
        };
        if !path.is_file() {
            t.note(format!(
                "tracking.db not found at {}; tracking cross-references skipped",
                path.display()
            ));
            return t;
        }
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = match Connection::open_with_flags(path, flags) {
            Ok(c) => c,
            Err(e) => {
                t.note(format!(
                    "cannot open tracking.db at {}: {e}",
                    path.display()
                ));
                return t;
            }
        };
        // Wait out the pipeline's short write locks rather than failing.
        let _ = conn.busy_timeout(Duration::from_secs(2));
        match check_readable(&conn) {
            Ok(()) => t.conn = Some(conn),
            Err(e) if is_locked(&e) => t.note(format!(
                "tracking.db at {} is locked by another process ({e}); tracking cross-references skipped this time: run again when the pipeline has finished writing",
                path.display()
            )),
            Err(e) => t.note(format!(
                "{} is not a readable SQLite database ({e}); tracking cross-references skipped",
                path.display()
            )),
        }
        t
    }

    /// A tracking.db that is not there and that nobody asked for: unavailable, with no note.
    /// Most users of math-forge have no submission pipeline, and a command that can do
    /// without tracking.db should not mention it every time; one that needs it says so.
    pub fn absent(path: &Path) -> Tracking {
        Tracking {
            path: path.to_path_buf(),
            conn: None,
            schema: RefCell::default(),
            notes: RefCell::new(Vec::new()),
        }
    }

    /// The file this was opened from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the database could be read at all.
    pub fn is_available(&self) -> bool {
        self.conn.is_some()
    }

    /// Warnings gathered so far (missing file, tables, columns), each once.
    pub fn notes(&self) -> Vec<String> {
        self.notes.borrow().clone()
    }

    /// Whether `table` exists (and, with `column`, has that column).
    pub fn has(&self, table: &str, column: Option<&str>) -> bool {
        let Some(conn) = &self.conn else {
            return false;
        };
        let mut schema = self.schema.borrow_mut();
        let columns = schema
            .entry(table.to_string())
            .or_insert_with(|| table_columns(conn, table));
        match (columns, column) {
            (Some(cols), Some(c)) => cols.contains(c),
            (Some(_), None) => true,
            (None, _) => false,
        }
    }

    /// False lemmas whose name, statement, reason, impact or frontier mention `needle`.
    pub fn false_lemmas_matching(&self, needle: Option<&str>, limit: usize) -> Vec<FalseLemma> {
        let Some(cols) = self.select_list("false_lemmas", "fl", FALSE_LEMMA_COLS) else {
            return vec![];
        };
        let search = [
            "lemma_name",
            "why_false",
            "impact",
            "frontier_id",
            "false_statement",
        ];
        let (cond, params) = self.like_any("false_lemmas", "fl", &search, needle);
        let sql = format!("SELECT {cols} FROM false_lemmas fl WHERE {cond} LIMIT {limit}");
        self.rows(&sql, params, false_lemma_from_row)
    }

    /// False lemmas about a problem: frontier id equal (by problem key) or its id mentioned in
    /// the name or impact.
    pub fn false_lemmas_for_problem(&self, problem: &str, limit: usize) -> Vec<FalseLemma> {
        let Some(cols) = self.select_list("false_lemmas", "fl", FALSE_LEMMA_COLS) else {
            return vec![];
        };
        let mut conds = Vec::new();
        if self.has("false_lemmas", Some("frontier_id")) {
            conds.push(format!("{} = ?2", problem_key_sql("fl.frontier_id")));
        }
        for c in ["lemma_name", "impact"] {
            if self.has("false_lemmas", Some(c)) {
                conds.push(format!("fl.{c} LIKE ?1 ESCAPE '\\'"));
            }
        }
        if conds.is_empty() {
            return vec![];
        }
        // Both parameters are referenced whichever columns exist, so the bind count always fits.
        let sql = format!(
            "SELECT {cols} FROM false_lemmas fl WHERE ({}) AND ?1 IS NOT NULL AND ?2 IS NOT NULL LIMIT {limit}",
            conds.join(" OR ")
        );
        let params = vec![like_contains(problem), problem_key(problem)];
        self.rows(&sql, params, false_lemma_from_row)
    }

    /// Submissions for a problem (problem id by key, or mentioned in the file name), newest first.
    pub fn submissions_for_problem(&self, problem: &str, limit: usize) -> Vec<Submission> {
        let Some(cols) = self.select_list("submissions", "s", SUBMISSION_COLS) else {
            return vec![];
        };
        let mut conds = Vec::new();
        if self.has("submissions", Some("problem_id")) {
            conds.push(format!("{} = ?2", problem_key_sql("s.problem_id")));
            conds.push("s.problem_id LIKE ?1 ESCAPE '\\'".to_string());
        }
        if self.has("submissions", Some("filename")) {
            conds.push("s.filename LIKE ?1 ESCAPE '\\'".to_string());
        }
        if conds.is_empty() {
            return vec![];
        }
        let order = if self.has("submissions", Some("created_at")) {
            "s.created_at DESC"
        } else {
            "s.rowid DESC"
        };
        let sql = format!(
            "SELECT {cols} FROM submissions s WHERE ({}) AND ?1 IS NOT NULL AND ?2 IS NOT NULL ORDER BY {order} LIMIT {limit}",
            conds.join(" OR ")
        );
        self.rows(
            &sql,
            vec![like_contains(problem), problem_key(problem)],
            submission_from_row,
        )
    }

    /// Every false lemma (for migration).
    pub fn all_false_lemmas(&self) -> Vec<FalseLemma> {
        self.false_lemmas_matching(None, usize::MAX >> 2)
    }

    /// Every proven theorem with its submission's file name, problem and uuid (for migration).
    pub fn proven_theorems(&self) -> Vec<ProvenTheorem> {
        if !self.require("proven_theorems") {
            return vec![];
        }
        let pt = |c: &str| self.expr("proven_theorems", "pt", c);
        let joined = self.has("submissions", Some("id"))
            && self.has("proven_theorems", Some("submission_id"));
        let s = |c: &str| {
            if joined {
                self.expr("submissions", "s", c)
            } else {
                "NULL".to_string()
            }
        };
        let join = if joined {
            "LEFT JOIN submissions s ON pt.submission_id = s.id"
        } else {
            ""
        };
        let sql = format!(
            "SELECT {}, {}, {}, {}, {}, {}, {}, {}, {} FROM proven_theorems pt {join} ORDER BY pt.rowid",
            self.id_expr("proven_theorems", "pt"),
            pt("theorem_name"),
            pt("theorem_type"),
            pt("statement"),
            pt("proof_complete"),
            s("filename"),
            s("problem_id"),
            s("uuid"),
            if self.has("proven_theorems", Some("proof_complete")) { "1" } else { "0" },
        );
        self.rows(&sql, Vec::new(), |r| ProvenTheorem {
            id: int_at(r, 0),
            theorem_name: text_at(r, 1),
            theorem_type: text_at(r, 2),
            statement: text_at(r, 3),
            proof_complete: (int_at(r, 8) == Some(1)).then(|| int_at(r, 4) == Some(1)),
            filename: text_at(r, 5),
            problem_id: text_at(r, 6),
            uuid: text_at(r, 7),
        })
    }

    /// Every failed approach, with its submission's file name when the uuid is known.
    pub fn failed_approaches(&self) -> Vec<FailedApproach> {
        if !self.require("failed_approaches") {
            return vec![];
        }
        let fa = |c: &str| self.expr("failed_approaches", "fa", c);
        let joined = self.has("submissions", Some("uuid"))
            && self.has("submissions", Some("filename"))
            && self.has("failed_approaches", Some("submission_uuid"));
        let filename = if joined {
            "(SELECT s.filename FROM submissions s WHERE s.uuid = fa.submission_uuid LIMIT 1)"
        } else {
            "NULL"
        };
        let sql = format!(
            "SELECT {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {filename} FROM failed_approaches fa ORDER BY fa.rowid",
            self.id_expr("failed_approaches", "fa"),
            fa("approach_name"),
            fa("approach_description"),
            fa("problem_id"),
            fa("frontier_id"),
            fa("submission_uuid"),
            fa("why_failed"),
            fa("avoid_pattern"),
            fa("failure_category"),
            fa("learned_insight"),
        );
        self.rows(&sql, Vec::new(), |r| FailedApproach {
            id: int_at(r, 0),
            approach_name: text_at(r, 1),
            approach_description: text_at(r, 2),
            problem_id: text_at(r, 3),
            frontier_id: text_at(r, 4),
            submission_uuid: text_at(r, 5),
            why_failed: text_at(r, 6),
            avoid_pattern: text_at(r, 7),
            failure_category: text_at(r, 8),
            learned_insight: text_at(r, 9),
            filename: text_at(r, 10),
        })
    }

    /// When each submission's result came back: request uuid → `completed_at`
    /// (`YYYY-MM-DD HH:MM:SS`), for submissions that have both. Empty (with a note) when the
    /// table or a column is missing.
    pub fn completion_dates(&self) -> HashMap<String, String> {
        if !self.require("submissions") {
            return HashMap::new();
        }
        for column in ["uuid", "completed_at"] {
            if !self.has("submissions", Some(column)) {
                self.note(format!(
                    "{} table submissions has no column {column} (older schema?); attempts are dated by extraction time",
                    self.path.display()
                ));
                return HashMap::new();
            }
        }
        self.rows(
            "SELECT uuid, completed_at FROM submissions
             WHERE uuid IS NOT NULL AND completed_at IS NOT NULL",
            Vec::new(),
            |r| Some((text_at(r, 0)?, text_at(r, 1)?)),
        )
        .into_iter()
        .flatten()
        .collect()
    }

    /// Each submission's request uuid and the problem it was made for, as tracking.db spells
    /// it: the strongest evidence of a returned file's problem.
    pub fn submission_problems(&self) -> Vec<(String, String)> {
        if !self.has("submissions", Some("uuid")) || !self.has("submissions", Some("problem_id")) {
            return vec![];
        }
        self.rows(
            "SELECT s.uuid, s.problem_id FROM submissions s
             WHERE s.uuid IS NOT NULL AND trim(s.uuid) != ''
               AND s.problem_id IS NOT NULL AND trim(s.problem_id) != ''",
            Vec::new(),
            |r| {
                (
                    text_at(r, 0).unwrap_or_default(),
                    text_at(r, 1).unwrap_or_default(),
                )
            },
        )
        .into_iter()
        .map(|(u, p)| (u.trim().to_string(), p.trim().to_string()))
        .collect()
    }

    /// The files each submission names (`output_file`, the result as the pipeline stored it,
    /// and `filename`, the file submitted) with its problem: the evidence of the problem of a
    /// file that carries no request uuid. Missing columns read as empty (with a note).
    pub fn submission_files(&self) -> Vec<(String, String)> {
        if !self.has("submissions", Some("problem_id")) {
            return vec![];
        }
        let mut out = Vec::new();
        for column in ["output_file", "filename"] {
            if !self.has("submissions", Some(column)) {
                continue;
            }
            let sql = format!(
                "SELECT s.\"{column}\", s.problem_id FROM submissions s
                 WHERE s.\"{column}\" IS NOT NULL AND trim(s.\"{column}\") != ''
                   AND s.problem_id IS NOT NULL AND trim(s.problem_id) != ''"
            );
            out.extend(
                self.rows(&sql, Vec::new(), |r| Some((text_at(r, 0)?, text_at(r, 1)?)))
                    .into_iter()
                    .flatten(),
            );
        }
        out
    }

    /// Every candidate problem.
    pub fn candidate_problems(&self) -> Vec<CandidateProblem> {
        let cols = [
            "id",
            "name",
            "domain",
            "status",
            "submissions_count",
            "proven_count",
            "false_lemma_count",
            "statement",
        ];
        let Some(list) = self.select_list("candidate_problems", "cp", &cols) else {
            return vec![];
        };
        let sql = format!("SELECT {list} FROM candidate_problems cp ORDER BY cp.rowid");
        self.rows(&sql, Vec::new(), |r| CandidateProblem {
            id: text_at(r, 0),
            name: text_at(r, 1),
            domain: text_at(r, 2),
            status: text_at(r, 3),
            submissions_count: int_at(r, 4),
            proven_count: int_at(r, 5),
            false_lemma_count: int_at(r, 6),
            statement: text_at(r, 7),
        })
    }

    /// Row counts of the tables we read, for `mk stats` (`None` = table missing).
    pub fn table_counts(&self) -> Vec<(String, Option<i64>)> {
        [
            "submissions",
            "proven_theorems",
            "false_lemmas",
            "failed_approaches",
            "candidate_problems",
        ]
        .iter()
        .map(|t| {
            let n = if self.has(t, None) {
                self.rows(&format!("SELECT count(*) FROM \"{t}\""), Vec::new(), |r| {
                    int_at(r, 0)
                })
                .into_iter()
                .next()
                .flatten()
            } else {
                None
            };
            (t.to_string(), n)
        })
        .collect()
    }

    fn note(&self, msg: String) {
        let mut notes = self.notes.borrow_mut();
        if !notes.contains(&msg) {
            notes.push(msg);
        }
    }

    /// Whether a table is there to read; notes its absence once.
    fn require(&self, table: &str) -> bool {
        if self.conn.is_none() {
            return false;
        }
        if !self.has(table, None) {
            self.note(format!(
                "{} has no table {table} (older schema?); treated as empty",
                self.path.display()
            ));
            return false;
        }
        true
    }

    /// `alias.column`, or `NULL` (noted) when the column is missing. Column names come only
    /// from this module's constants, never from user input.
    fn expr(&self, table: &str, alias: &str, column: &str) -> String {
        if self.has(table, Some(column)) {
            format!("{alias}.\"{column}\"")
        } else {
            if self.has(table, None) {
                self.note(format!(
                    "{} table {table} has no column {column} (older schema?); treated as empty",
                    self.path.display()
                ));
            }
            "NULL".to_string()
        }
    }

    /// `id` when the table has one, else the rowid every ordinary table has.
    fn id_expr(&self, table: &str, alias: &str) -> String {
        if self.has(table, Some("id")) {
            format!("{alias}.id")
        } else {
            format!("{alias}.rowid")
        }
    }

    fn select_list(&self, table: &str, alias: &str, cols: &[&str]) -> Option<String> {
        if !self.require(table) {
            return None;
        }
        Some(
            cols.iter()
                .map(|c| {
                    if *c == "id" {
                        self.id_expr(table, alias)
                    } else {
                        self.expr(table, alias, c)
                    }
                })
                .collect::<Vec<_>>()
                .join(", "),
        )
    }

    /// `(c1 LIKE ?1 OR c2 LIKE ?1 …)` over the columns that exist; `1` without a needle.
    fn like_any(
        &self,
        table: &str,
        alias: &str,
        cols: &[&str],
        needle: Option<&str>,
    ) -> (String, Vec<String>) {
        let Some(needle) = needle.filter(|n| !n.trim().is_empty()) else {
            return ("1".to_string(), Vec::new());
        };
        let conds: Vec<String> = cols
            .iter()
            .filter(|c| self.has(table, Some(c)))
            .map(|c| format!("{alias}.\"{c}\" LIKE ?1 ESCAPE '\\'"))
            .collect();
        if conds.is_empty() {
            return ("0".to_string(), Vec::new());
        }
        (
            format!("({})", conds.join(" OR ")),
            vec![like_contains(needle.trim())],
        )
    }

    /// Runs a read; any error becomes a note and an empty result.
    fn rows<T>(
        &self,
        sql: &str,
        params: Vec<String>,
        map: impl Fn(&rusqlite::Row<'_>) -> T,
    ) -> Vec<T> {
        let Some(conn) = &self.conn else {
            return vec![];
        };
        let run = || -> rusqlite::Result<Vec<T>> {
            let mut stmt = conn.prepare(sql)?;
            let rows = stmt.query_map(rusqlite::params_from_iter(params.iter()), |r| Ok(map(r)))?;
            rows.collect()
        };
        match run() {
            Ok(v) => v,
            Err(e) => {
                self.note(format!("reading {} failed: {e}", self.path.display()));
                vec![]
            }
        }
    }
}

/// Statuses of a submission whose result came back (what a near-miss can be).
const RESULT_STATUSES: &str =
    "'completed', 'compiled_partial', 'compiled_advance', 'compiled_no_advance'";

/// The queue as the session briefing shows it. Times are compared as SQLite text
/// (`YYYY-MM-DD HH:MM:SS`, UTC) against cutoffs computed from `now` (Unix seconds), so the
/// caller decides what "now" is.
impl Tracking {
    /// Submissions in flight (`submitted` or `running`); `None` when that cannot be read.
    pub fn in_flight_count(&self) -> Option<i64> {
        if !self.require("submissions") || !self.has("submissions", Some("status")) {
            return None;
        }
        let sql = "SELECT count(*) FROM submissions WHERE status IN ('submitted', 'running')";
        self.rows(sql, Vec::new(), |r| int_at(r, 0))
            .into_iter()
            .next()
            .flatten()
    }

    /// Completed submissions not yet verified that finished in the last `hours`, newest first.
    pub fn ready_to_fetch(&self, now: i64, hours: i64, limit: usize) -> Vec<Submission> {
        let Some(cols) = self.select_list("submissions", "s", SUBMISSION_COLS) else {
            return vec![];
        };
        if !self.has("submissions", Some("status"))
            || !self.has("submissions", Some("completed_at"))
        {
            return vec![];
        }
        let verified = self.expr("submissions", "s", "verified");
        let sql = format!(
            "SELECT {cols} FROM submissions s
             WHERE s.status = 'completed' AND {verified} IS NULL
               AND s.completed_at > datetime(CAST(?1 AS INTEGER), 'unixepoch', ?2)
             ORDER BY s.completed_at DESC LIMIT {limit}"
        );
        self.rows(
            &sql,
            vec![now.to_string(), format!("-{hours} hours")],
            submission_from_row,
        )
    }

    /// Verified submissions without a hole that completed in the last `days`, newest first.
    pub fn recent_proven(&self, now: i64, days: i64, limit: usize) -> Vec<Submission> {
        let Some(cols) = self.select_list("submissions", "s", SUBMISSION_COLS) else {
            return vec![];
        };
        let needed = ["verified", "sorry_count", "completed_at"];
        if !needed.iter().all(|c| self.has("submissions", Some(c))) {
            return vec![];
        }
        let sql = format!(
            "SELECT {cols} FROM submissions s
             WHERE s.verified = 1 AND s.sorry_count = 0
               AND s.completed_at > datetime(CAST(?1 AS INTEGER), 'unixepoch', ?2)
             ORDER BY s.completed_at DESC LIMIT {limit}"
        );
        self.rows(
            &sql,
            vec![now.to_string(), format!("-{days} days")],
            submission_from_row,
        )
    }

    /// The returned result closest to done: one hole, more than `min_proven` proven, not aimed
    /// at a false lemma; most proven first.
    pub fn top_near_miss(&self, min_proven: i64) -> Option<Submission> {
        let cols = self.select_list("submissions", "s", SUBMISSION_COLS)?;
        let needed = ["status", "sorry_count", "proven_count"];
        if !needed.iter().all(|c| self.has("submissions", Some(c))) {
            return None;
        }
        let not_false = if self.has("submission_false_lemma_targets", Some("submission_id")) {
            format!(
                "AND {} NOT IN (SELECT submission_id FROM submission_false_lemma_targets
                                WHERE submission_id IS NOT NULL)",
                self.id_expr("submissions", "s")
            )
        } else {
            String::new()
        };
        let order = if self.has("submissions", Some("completed_at")) {
            ", s.completed_at DESC"
        } else {
            ""
        };
        let sql = format!(
            "SELECT {cols} FROM submissions s
             WHERE s.status IN ({RESULT_STATUSES}) AND s.sorry_count = 1
               AND s.proven_count > CAST(?1 AS INTEGER) {not_false}
             ORDER BY s.proven_count DESC{order} LIMIT 1"
        );
        self.rows(&sql, vec![min_proven.to_string()], submission_from_row)
            .into_iter()
            .next()
    }

    /// The newest `submitted_at` and how many whole hours before `now` it was.
    pub fn last_submitted(&self, now: i64) -> Option<(String, i64)> {
        if !self.require("submissions") || !self.has("submissions", Some("submitted_at")) {
            return None;
        }
        let sql = "SELECT max(submitted_at),
                          CAST((julianday(datetime(CAST(?1 AS INTEGER), 'unixepoch')) - julianday(max(submitted_at))) * 24 AS INTEGER)
                   FROM submissions WHERE submitted_at IS NOT NULL";
        self.rows(sql, vec![now.to_string()], |r| {
            Some((text_at(r, 0)?, int_at(r, 1)?))
        })
        .into_iter()
        .next()
        .flatten()
    }
}

/// Whether `e` says another connection holds a lock (busy or locked), not that the file is
/// no database.
fn is_locked(e: &rusqlite::Error) -> bool {
    matches!(
        e,
        rusqlite::Error::SqliteFailure(f, _)
            if matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// Whether `conn` reads as an SQLite database (its schema loads).
fn check_readable(conn: &Connection) -> rusqlite::Result<()> {
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |_| Ok(()))
}

/// The columns of table or view `table`, `None` when there is none of that name (in any
/// letter case, as SQL names it).
fn table_columns(conn: &Connection, table: &str) -> Option<HashSet<String>> {
    let mut stmt = conn
        .prepare("SELECT name FROM pragma_table_info(?1)")
        .ok()?;
    let columns: HashSet<String> = stmt
        .query_map([table], |r| r.get(0))
        .ok()?
        .collect::<rusqlite::Result<_>>()
        .ok()?;
    (!columns.is_empty()).then_some(columns)
}

fn false_lemma_from_row(r: &rusqlite::Row<'_>) -> FalseLemma {
    FalseLemma {
        id: int_at(r, 0),
        lemma_name: text_at(r, 1),
        false_statement: text_at(r, 2),
        false_statement_english: text_at(r, 3),
        frontier_id: text_at(r, 4),
        counterexample: text_at(r, 5),
        why_false: text_at(r, 6),
        avoid_pattern: text_at(r, 7),
        evidence_level: text_at(r, 8),
        impact: text_at(r, 9),
    }
}

fn submission_from_row(r: &rusqlite::Row<'_>) -> Submission {
    let filename = text_at(r, 2);
    Submission {
        id: int_at(r, 0),
        uuid: text_at(r, 1),
        slot: filename.as_deref().and_then(slot_of),
        filename,
        problem_id: text_at(r, 3),
        status: text_at(r, 4),
        sorry_count: int_at(r, 5),
        proven_count: int_at(r, 6),
        created_at: text_at(r, 7),
        completed_at: text_at(r, 8),
        verified: int_at(r, 9),
    }
}

/// The slot number in a result file name: `slot614_erdos_850_result.lean` → 614.
pub fn slot_of(filename: &str) -> Option<i64> {
    let mut rest = filename;
    while let Some(i) = rest.find("slot") {
        let after = &rest[i + 4..];
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() {
            return digits.parse().ok();
        }
        rest = after;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_from_file_names() {
        assert_eq!(slot_of("slot614_erdos_850_result.lean"), Some(614));
        assert_eq!(slot_of("results/slotted_slot7.lean"), Some(7));
        assert_eq!(slot_of("erdos.lean"), None);
        assert_eq!(slot_of("slot"), None);
    }

    #[test]
    fn missing_file_is_a_note_not_an_error() {
        let t = Tracking::open(Path::new("/nonexistent/tracking.db"));
        assert!(!t.is_available());
        assert!(t.proven_theorems().is_empty());
        assert!(t.notes()[0].contains("not found"), "{:?}", t.notes());
    }

    #[test]
    fn a_locked_database_is_a_note_saying_locked() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("tracking.db");
        let writer = Connection::open(&p).unwrap();
        writer
            .execute_batch(
                "CREATE TABLE submissions (id INTEGER PRIMARY KEY, uuid TEXT, problem_id TEXT);
                 BEGIN EXCLUSIVE; INSERT INTO submissions VALUES (1, 'u', 'p');",
            )
            .unwrap();
        let t = Tracking::open(&p);
        assert!(!t.is_available());
        assert!(t.submission_problems().is_empty());
        assert!(
            t.notes()[0].contains("is locked by another process"),
            "{:?}",
            t.notes()
        );
        writer.execute_batch("COMMIT").unwrap();
        let t = Tracking::open(&p);
        assert_eq!(
            t.submission_problems(),
            [("u".to_string(), "p".to_string())]
        );
        // Opened read-only: it never takes the pipeline's write lock.
        let conn = t.conn.as_ref().unwrap();
        assert!(conn
            .execute("INSERT INTO submissions VALUES (2, 'v', 'q')", [])
            .is_err());
    }

    #[test]
    fn submissions_name_their_files_and_problems_defensively() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("tracking.db");
        let c = Connection::open(&p).unwrap();
        c.execute_batch(
            "CREATE TABLE submissions (id INTEGER PRIMARY KEY, uuid TEXT UNIQUE, filename TEXT,
                 problem_id TEXT, status TEXT, output_file TEXT);
             INSERT INTO submissions VALUES
               (1, ' AAAA-1 ', 'slot1_x.lean', ' erdos_1 ', 'completed', 'results/slot1_x_result.lean'),
               (2, 'bbbb-2', '', 'erdos_2', 'draft', NULL),
               (3, 'cccc-3', 'slot3.lean', '  ', 'running', 'results/slot3.lean');",
        )
        .unwrap();
        drop(c);
        let t = Tracking::open(&p);
        // Ids and problems trimmed; a blank problem is none.
        assert_eq!(
            t.submission_problems(),
            [
                ("AAAA-1".to_string(), "erdos_1".to_string()),
                ("bbbb-2".to_string(), "erdos_2".to_string())
            ]
        );
        let mut files = t.submission_files();
        files.sort();
        assert_eq!(
            files,
            [
                (
                    "results/slot1_x_result.lean".to_string(),
                    " erdos_1 ".to_string()
                ),
                ("slot1_x.lean".to_string(), " erdos_1 ".to_string()),
            ]
        );
        // An older schema without the columns: empty, no error.
        let old = dir.path().join("old.db");
        let c = Connection::open(&old).unwrap();
        c.execute_batch("CREATE TABLE submissions (id INTEGER PRIMARY KEY, uuid TEXT);")
            .unwrap();
        drop(c);
        let t = Tracking::open(&old);
        assert!(t.submission_files().is_empty());
        assert!(t.submission_problems().is_empty());
        assert!(t.in_flight_count().is_none());
    }

    #[test]
    fn text_file_is_a_note_not_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("tracking.db");
        std::fs::write(&p, "this is not a database, just text\n".repeat(100)).unwrap();
        let t = Tracking::open(&p);
        assert!(!t.is_available());
        assert!(t.submissions_for_problem("x", 5).is_empty());
        assert!(
            t.notes()[0].contains("not a readable SQLite database"),
            "{:?}",
            t.notes()
        );
    }
}
