//! `mk query`: one read-only SQL statement, rows returned as JSON values.

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
    /// Runs one statement that cannot write. Writes are refused before running (the statement
    /// must be read-only per SQLite), and a connection from [`Kb::open_read_only`] adds a second
    /// wall: the file is opened read-only with `query_only` on.
    pub fn query_read_only(&self, sql: &str) -> Result<QueryResult> {
        if sql.trim().trim_matches(';').trim().is_empty() {
            return Err(KbError::Invalid(
                "give one SQL statement, e.g. mk query \"SELECT count(*) FROM findings\"".into(),
            ));
        }
        let mut stmt = match self.conn.prepare(sql) {
            Ok(s) => s,
            Err(rusqlite::Error::MultipleStatement) => {
                return Err(KbError::Invalid(
                    "mk query runs one statement at a time".into(),
                ));
            }
            Err(e) => return Err(KbError::sqlite(&self.path, e)),
        };
        if !stmt.readonly() {
            return Err(KbError::NotReadOnly {
                detail: "this statement would change the database".into(),
            });
        }
        let columns: Vec<String> = stmt.column_names().map(str::to_string).collect();
        let n = columns.len();
        let mut rows = Vec::new();
        let mut cursor = stmt.query([]).at(&self.path)?;
        while let Some(row) = cursor.next().at(&self.path)? {
            let mut out = Vec::with_capacity(n);
            for i in 0..n {
                out.push(match row.get_ref(i).at(&self.path)? {
                    ValueRef::Null => serde_json::Value::Null,
                    ValueRef::Integer(v) => v.into(),
                    ValueRef::Real(v) => {
                        serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into)
                    }
                    ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned().into(),
                    ValueRef::Blob(b) => format!("<blob {} bytes>", b.len()).into(),
                });
            }
            rows.push(out);
        }
        Ok(QueryResult { columns, rows })
    }
}
