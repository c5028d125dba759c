//! `mk query`: one read-only SQL statement, rows returned as JSON values.

use std::ops::ControlFlow;

use rusqlite::types::ValueRef;
use serde::Serialize;

use super::error::{AtPath, KbError, Result};
use super::Kb;

/// Column names and rows of an ad-hoc query.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QueryResult {
    pub columns: Vec<String>,
    pub rows: Vec<Vec<serde_json::Value>>,
}

impl Kb {
    /// Runs one statement that cannot write, collecting every row. Writes are refused before
    /// running (the statement must be read-only per SQLite), and a connection from
    /// [`Kb::open_read_only`] adds a second wall: the file is opened read-only with
    /// `query_only` on.
    pub fn query_read_only(&self, sql: &str) -> Result<QueryResult> {
        let mut result = QueryResult {
            columns: Vec::new(),
            rows: Vec::new(),
        };
        let (columns, _) = self.query_rows(sql, None, |_, row| {
            result.rows.push(row);
            Ok::<_, KbError>(ControlFlow::Continue(()))
        })?;
        result.columns = columns;
        Ok(result)
    }

    /// [`Kb::query_read_only`], streaming: `row` gets the column names and each row as it is
    /// read (at most `limit` of them), so memory does not grow with the result. `row` stops the
    /// query early by answering [`ControlFlow::Break`]; an error it returns (a closed output)
    /// ends the query with that error. Returns the column names and the number of rows given.
    pub fn query_rows<E: From<KbError>>(
        &self,
        sql: &str,
        limit: Option<usize>,
        mut row: impl FnMut(
            &[String],
            Vec<serde_json::Value>,
        ) -> std::result::Result<ControlFlow<()>, E>,
    ) -> std::result::Result<(Vec<String>, usize), E> {
        if sql.trim().trim_matches(';').trim().is_empty() {
            return Err(KbError::Invalid(
                "give one SQL statement, e.g. mk query \"SELECT count(*) FROM findings\"".into(),
            )
            .into());
        }
        let mut stmt = match self.conn.prepare(sql) {
            Ok(s) => s,
            Err(rusqlite::Error::MultipleStatement) => {
                return Err(
                    KbError::Invalid("mk query runs one statement at a time".into()).into(),
                );
            }
            Err(e) => return Err(KbError::sqlite(&self.path, e).into()),
        };
        if !stmt.readonly() {
            return Err(KbError::NotReadOnly {
                detail: "this statement would change the database".into(),
            }
            .into());
        }
        let names: Vec<String> = stmt.column_names().map(str::to_string).collect();
        let n = names.len();
        let mut given = 0;
        let mut cursor = stmt.query([]).at(&self.path)?;
        while limit.is_none_or(|l| given < l) {
            let Some(r) = cursor.next().at(&self.path)? else {
                break;
            };
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                out.push(match r.get_ref(i).at(&self.path)? {
                    ValueRef::Null => serde_json::Value::Null,
                    ValueRef::Integer(v) => v.into(),
                    ValueRef::Real(v) => {
                        serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into)
                    }
                    ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned().into(),
                    ValueRef::Blob(b) => format!("<blob {} bytes>", b.len()).into(),
                });
            }
            given += 1;
            if row(&names, out)?.is_break() {
                break;
            }
        }
        drop(cursor);
        Ok((names, given))
    }
}
