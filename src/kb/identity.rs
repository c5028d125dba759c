//! Problem ids in the knowledge base: the one lookup every command and MCP tool uses (an id,
//! an alias or any spelling of a scheme, in any case, with any separators), the one answer to
//! an unknown id, the aliases extraction stores, and the move of what was recorded by hand
//! under an id whose files all went to another one.

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use super::error::{AtPath, KbError, Result};
use super::sql::{problem_key, problem_key_sql, text_at};
use super::Kb;

/// Suggestions an unknown id is answered with, at most.
const NEAREST: usize = 5;

/// A problem id found for what the user typed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ResolvedProblem {
    /// The id as the knowledge base spells it.
    pub id: String,
    /// The alias that led to it, when the query was not a spelling of the id itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alias: Option<String>,
}

impl Kb {
    /// The problem `query` names: a known id (case, spaces, `_` and `-` ignored), else an alias
    /// (`ErdosProblems/975`, an id whose files moved), else the canonical id of a scheme
    /// spelling (`Erdős Problem 975` → `erdos_975`) when that one is known. `None` when the
    /// knowledge base knows no such problem.
    pub fn resolve_problem(&self, query: &str) -> Result<Option<ResolvedProblem>> {
        let query = query.trim();
        if let Some(found) = self.resolve_key(&problem_key(query))? {
            return Ok(Some(found));
        }
        match crate::problem::canonical(query) {
            Some(id) if problem_key(&id) != problem_key(query) => Ok(self
                .resolve_key(&problem_key(&id))?
                .map(|found| ResolvedProblem {
                    alias: found.alias.or_else(|| Some(query.to_string())),
                    ..found
                })),
            _ => Ok(None),
        }
    }

    /// [`Kb::resolve_problem`], with an unknown id answered by [`Kb::unknown_problem`].
    pub fn require_problem(&self, query: &str) -> Result<ResolvedProblem> {
        match self.resolve_problem(query)? {
            Some(found) => Ok(found),
            None => Err(self.unknown_problem(query, None)?),
        }
    }

    /// The answer to an unknown problem id, the same from every command: `no problem X` with
    /// the nearest known ids and aliases. `note` says what else the command takes.
    pub fn unknown_problem(&self, query: &str, note: Option<String>) -> Result<KbError> {
        Ok(KbError::UnknownProblem {
            query: query.trim().to_string(),
            nearest: self.nearest_problem_names(query, NEAREST)?,
            note,
        })
    }

    fn resolve_key(&self, key: &str) -> Result<Option<ResolvedProblem>> {
        if key.is_empty() {
            return Ok(None);
        }
        // An id with a problem row, else one findings or strategies carry (tracking.db's
        // frontiers, hand records), else an alias.
        for (table, column) in [
            ("problems", "id"),
            ("findings", "problem_id"),
            ("strategies", "problem_id"),
        ] {
            let sql = format!(
                "SELECT {column} FROM {table} WHERE {} = ?1 ORDER BY {column} LIMIT 1",
                problem_key_sql(column)
            );
            let found: Option<String> = self
                .conn
                .prepare_cached(&sql)
                .and_then(|mut s| s.query_row([key], |r| r.get(0)).optional())
                .at(&self.path)?;
            if let Some(id) = found {
                return Ok(Some(ResolvedProblem { id, alias: None }));
            }
        }
        if !self.has_table("problem_aliases")? {
            return Ok(None);
        }
        self.conn
            .prepare_cached("SELECT problem_id, alias FROM problem_aliases WHERE alias_key = ?1")
            .and_then(|mut s| {
                s.query_row([key], |r| {
                    Ok(ResolvedProblem {
                        id: r.get(0)?,
                        alias: Some(r.get(1)?),
                    })
                })
                .optional()
            })
            .at(&self.path)
    }

    /// The known ids and aliases closest to `query` (aliases as `alias → id`), closest first.
    pub fn nearest_problem_names(&self, query: &str, limit: usize) -> Result<Vec<String>> {
        // The ids near what a scheme reads the query as (`ErdosProblems/97` → `erdos_97`)
        // first, then those near the query as typed.
        let mut names = match crate::problem::canonical(query) {
            Some(id) => self.closest_problem_ids(&id, limit)?,
            None => Vec::new(),
        };
        for id in self.closest_problem_ids(query, limit)? {
            if !names.contains(&id) {
                names.push(id);
            }
        }
        if self.has_table("problem_aliases")? {
            let aliases = self.rows(
                "SELECT alias, problem_id FROM problem_aliases LIMIT 50000",
                [],
                |r| {
                    (
                        text_at(r, 0).unwrap_or_default(),
                        text_at(r, 1).unwrap_or_default(),
                    )
                },
            )?;
            let alias_names: Vec<String> = aliases.iter().map(|(a, _)| a.clone()).collect();
            for alias in super::suggest::closest(&problem_key(query), alias_names, limit) {
                if let Some((_, id)) = aliases.iter().find(|(a, _)| *a == alias) {
                    if !names.contains(id) {
                        names.push(format!("{alias} → {id}"));
                    }
                }
            }
        }
        names.truncate(limit);
        Ok(names)
    }

    /// Moves what was recorded by hand under a problem id whose files all went to one other id
    /// in this run (a newer extractor reading them again): hand-recorded findings and
    /// strategies, session problems, the problem row's statement and counters. The old id
    /// becomes an alias of the new one, so it keeps finding them. An id whose files went to
    /// several problems keeps its records (nothing recorded by hand is lost) and is dropped
    /// only when nothing was recorded on it; an id tracking.db fixed is never moved. Returns
    /// how many ids moved.
    pub fn settle_moved_problems(&mut self) -> Result<usize> {
        self.write_transaction(|tx, db| {
            let moved = settle_moves(tx).at(db)?;
            Ok(moved)
        })
    }
}

/// Remembers, for [`Kb::settle_moved_problems`], that a file of problem `old` now belongs to
/// `new` (inside the writer's transaction; kept until the run settles it).
pub(crate) fn note_move(conn: &Connection, old: &str, new: Option<&str>) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "CREATE TEMP TABLE IF NOT EXISTS problem_moves (old TEXT NOT NULL, new TEXT)",
    )?
    .execute([])?;
    conn.prepare_cached("INSERT INTO temp.problem_moves (old, new) VALUES (?1, ?2)")?
        .execute(params![old, new])?;
    Ok(())
}

/// Stores `aliases` of `problem` (first come keeps a key; an alias equal to an id is none).
pub(crate) fn store_aliases(
    conn: &Connection,
    problem: &str,
    aliases: &[String],
    origin: &str,
) -> rusqlite::Result<()> {
    let own = problem_key(problem);
    for alias in aliases {
        let key = problem_key(alias);
        if key.is_empty() || key == own {
            continue;
        }
        conn.prepare_cached(
            "INSERT OR IGNORE INTO problem_aliases (alias_key, alias, problem_id, origin)
             VALUES (?1, ?2, ?3, ?4)",
        )?
        .execute(params![key, alias, problem, origin])?;
    }
    Ok(())
}

fn settle_moves(tx: &Connection) -> rusqlite::Result<usize> {
    let has_moves: bool = tx.query_row(
        "SELECT count(*) > 0 FROM sqlite_temp_schema WHERE name = 'problem_moves'",
        [],
        |r| r.get(0),
    )?;
    if !has_moves {
        return Ok(0);
    }
    let olds: Vec<String> = {
        let mut stmt = tx.prepare("SELECT DISTINCT old FROM temp.problem_moves ORDER BY old")?;
        let rows = stmt.query_map([], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut moved = 0;
    for old in olds {
        let still_has_files: bool = tx.query_row(
            "SELECT count(*) > 0 FROM sources WHERE problem_id = ?1",
            [&old],
            |r| r.get(0),
        )?;
        let fixed_by_tracking: bool = tx.query_row(
            "SELECT count(*) > 0 FROM findings WHERE problem_id = ?1 AND origin LIKE 'tracking:%'",
            [&old],
            |r| r.get(0),
        )?;
        if still_has_files || fixed_by_tracking {
            continue;
        }
        let targets: Vec<String> = {
            let mut stmt = tx.prepare_cached(
                "SELECT DISTINCT new FROM temp.problem_moves WHERE old = ?1 AND new IS NOT NULL",
            )?;
            let rows = stmt.query_map([&old], |r| r.get(0))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        match targets.as_slice() {
            [new] if problem_key(new) != problem_key(&old) => {
                move_records(tx, &old, new)?;
                moved += 1;
            }
            _ if !has_records(tx, &old)? => {
                tx.execute("DELETE FROM problems WHERE id = ?1", [&old])?;
            }
            _ => {}
        }
    }
    // An alias is no alias of an id that has files again.
    tx.execute(
        &format!(
            "DELETE FROM problem_aliases WHERE origin = 'moved' AND alias_key IN (
                 SELECT {} FROM sources WHERE problem_id IS NOT NULL)",
            problem_key_sql("problem_id")
        ),
        [],
    )?;
    tx.execute("DELETE FROM temp.problem_moves", [])?;
    Ok(moved)
}

/// Whether anything not made from files is kept under `id`: hand-recorded or captured
/// findings, recorded strategies, sessions.
fn has_records(tx: &Connection, id: &str) -> rusqlite::Result<bool> {
    tx.query_row(
        "SELECT EXISTS (SELECT 1 FROM findings WHERE problem_id = ?1 AND source_id IS NULL)
             OR EXISTS (SELECT 1 FROM strategies WHERE problem_id = ?1
                        AND coalesce(learned, '') NOT LIKE 'extracted:%')
             OR EXISTS (SELECT 1 FROM sessions WHERE problem_id = ?1)",
        [id],
        |r| r.get(0),
    )
}

/// Moves everything recorded under `old` to `new` and makes `old` an alias of `new`.
fn move_records(tx: &Connection, old: &str, new: &str) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE findings SET problem_id = ?2 WHERE problem_id = ?1 AND source_id IS NULL",
        params![old, new],
    )?;
    // Strategies: a (problem, approach) pair the new id already has absorbs the old row.
    tx.execute(
        "UPDATE strategies AS n SET
            attempts = coalesce(n.attempts, 0) + coalesce(o.attempts, 0),
            finding_ids = CASE WHEN o.finding_ids IS NULL OR o.finding_ids = '' THEN n.finding_ids
                               WHEN n.finding_ids IS NULL OR n.finding_ids = '' THEN o.finding_ids
                               ELSE n.finding_ids || ',' || o.finding_ids END,
            learned = coalesce(n.learned, o.learned),
            outcome = CASE WHEN 'proven' IN (n.outcome, o.outcome) THEN 'proven'
                           WHEN 'partial' IN (n.outcome, o.outcome) THEN 'partial'
                           ELSE n.outcome END
         FROM strategies AS o
         WHERE o.problem_id = ?1 AND n.problem_id = ?2 AND n.approach_name = o.approach_name
           AND coalesce(o.learned, '') NOT LIKE 'extracted:%'",
        params![old, new],
    )?;
    tx.execute(
        "DELETE FROM strategies WHERE problem_id = ?1 AND (
            coalesce(learned, '') LIKE 'extracted:%'
            OR approach_name IN (SELECT approach_name FROM strategies WHERE problem_id = ?2))",
        params![old, new],
    )?;
    tx.execute(
        "UPDATE strategies SET problem_id = ?2,
            problem_name = CASE WHEN problem_name = ?1 THEN ?2 ELSE problem_name END
         WHERE problem_id = ?1",
        params![old, new],
    )?;
    tx.execute(
        "UPDATE sessions SET problem_id = ?2 WHERE problem_id = ?1",
        params![old, new],
    )?;
    // The problem row: the new one keeps its own, takes what only the old one had.
    tx.execute(
        "INSERT INTO problems (id, name, domain_id, status, statement, best_result, recorded_status)
         SELECT ?2, ?2, domain_id, status, statement, best_result, recorded_status
         FROM problems WHERE id = ?1
         ON CONFLICT(id) DO UPDATE SET
            domain_id = coalesce(problems.domain_id, excluded.domain_id),
            statement = coalesce(problems.statement, excluded.statement),
            best_result = coalesce(problems.best_result, excluded.best_result),
            recorded_status = CASE
                WHEN problems.recorded_status IS NULL
                  OR CASE excluded.recorded_status WHEN 'in_flight' THEN 1 WHEN 'partial' THEN 2
                         WHEN 'proven' THEN 3 WHEN 'false' THEN 4 ELSE 0 END
                   > CASE problems.recorded_status WHEN 'in_flight' THEN 1 WHEN 'partial' THEN 2
                         WHEN 'proven' THEN 3 WHEN 'false' THEN 4 ELSE 0 END
                THEN excluded.recorded_status ELSE problems.recorded_status END,
            updated_at = datetime('now')",
        params![old, new],
    )?;
    tx.execute(
        "UPDATE problems SET
            proven_count = coalesce(proven_count, 0)
                + coalesce((SELECT max(proven_count, 0) FROM problems WHERE id = ?1), 0),
            failed_count = coalesce(failed_count, 0)
                + coalesce((SELECT max(failed_count, 0) FROM problems WHERE id = ?1), 0)
         WHERE id = ?2",
        params![old, new],
    )?;
    tx.execute("DELETE FROM problems WHERE id = ?1", [old])?;
    tx.execute(
        "UPDATE problem_aliases SET problem_id = ?2 WHERE problem_id = ?1",
        params![old, new],
    )?;
    tx.execute(
        "INSERT OR REPLACE INTO problem_aliases (alias_key, alias, problem_id, origin)
         VALUES (?1, ?2, ?3, 'moved')",
        params![problem_key(old), old, new],
    )?;
    Ok(())
}
