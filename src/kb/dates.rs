//! When a finding's result was produced: the date its file states, else the file's
//! modification time (both read at extraction, `sources.result_date`), else when the file was
//! extracted; a finding recorded by hand is dated when it was recorded.

use std::collections::HashMap;

use serde::Serialize;

use super::error::{AtPath, Result};
use super::model::Finding;
use super::Kb;

/// How a result's date is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DateFrom {
    /// The file's leading comment states it (`Generated: 2026-01-04T16:15:34`).
    Stated,
    /// The file's modification time when it was extracted.
    Modified,
    /// When the file was extracted (stored before files' own dates were kept).
    Extracted,
    /// When the finding was recorded (`mk record`, a session capture): it has no file.
    Recorded,
}

/// A result's date (UTC, `YYYY-MM-DD HH:MM:SS`) and how it is known.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ResultDate {
    pub date: String,
    pub from: DateFrom,
}

impl Kb {
    /// The date of each finding's result, by finding id: the date of the file the finding is
    /// shown with (`source_id`: for a fact, the file that vouches for it best).
    pub fn result_dates<'a>(
        &self,
        findings: impl IntoIterator<Item = &'a Finding>,
    ) -> Result<HashMap<i64, ResultDate>> {
        let dated = self.dated_sources()?;
        let mut out = HashMap::new();
        for f in findings {
            if let Some(date) = self.result_date(f, dated)? {
                out.insert(f.id, date);
            }
        }
        Ok(out)
    }

    /// Whether `sources` has the files' own dates (schema version 6 on).
    pub(crate) fn dated_sources(&self) -> Result<bool> {
        Ok(self.schema_version()? >= 6)
    }

    /// One finding's [`ResultDate`]; `dated` is [`Kb::dated_sources`].
    pub(crate) fn result_date(&self, f: &Finding, dated: bool) -> Result<Option<ResultDate>> {
        let sql = if dated {
            "SELECT result_date, result_date_from, extracted_at FROM sources WHERE id = ?1"
        } else {
            "SELECT NULL, NULL, extracted_at FROM sources WHERE id = ?1"
        };
        let row: Option<(Option<String>, Option<String>, Option<String>)> = match f.source_id {
            Some(id) => {
                use rusqlite::OptionalExtension;
                let mut stmt = self.conn.prepare_cached(sql).at(&self.path)?;
                stmt.query_row([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                    .optional()
                    .at(&self.path)?
            }
            None => None,
        };
        Ok(match row {
            Some((Some(date), from, _)) => Some(ResultDate {
                date,
                from: if from.as_deref() == Some("stated") {
                    DateFrom::Stated
                } else {
                    DateFrom::Modified
                },
            }),
            Some((None, _, Some(extracted))) => Some(ResultDate {
                date: extracted,
                from: DateFrom::Extracted,
            }),
            _ => f.created_at.clone().map(|date| ResultDate {
                date,
                from: DateFrom::Recorded,
            }),
        })
    }
}
