//! Small SQL helpers shared by the knowledge base and the tracking.db reader: lenient value
//! reading, LIKE escaping and the problem-key expression. They sit below both so that
//! `kb` may use `tracking` without `tracking` knowing `kb`.

use rusqlite::types::ValueRef;
use rusqlite::Row;

/// SQL for the problem key of column `col`: lowercase, without spaces, `_` and `-`.
///
/// Must stay textually equivalent to the expression indexes in schema/knowledge.sql
/// (`idx_*_problem_key`) so that SQLite uses them.
pub fn problem_key_sql(col: &str) -> String {
    format!("lower(replace(replace(replace({col}, ' ', ''), '_', ''), '-', ''))")
}

/// The key users' problem ids are compared by: `Erdos-850`, `erdos 850` and `erdos_850` agree.
///
/// Matches [`problem_key_sql`] exactly: SQLite's `lower()` folds ASCII only.
pub fn problem_key(s: &str) -> String {
    s.chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Escapes `%`, `_` and `\` for `LIKE … ESCAPE '\'`, wrapping the text in `%…%`.
pub fn like_contains(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('%');
    for c in s.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// Reads any SQLite value as text; a column declared TEXT may hold anything in old databases.
pub fn text_at(row: &Row<'_>, idx: usize) -> Option<String> {
    match row.get_ref(idx).ok()? {
        ValueRef::Null => None,
        ValueRef::Integer(i) => Some(i.to_string()),
        ValueRef::Real(f) => Some(f.to_string()),
        ValueRef::Text(t) => Some(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Some(String::from_utf8_lossy(b).into_owned()),
    }
}

/// Reads any SQLite value as an integer when it plausibly is one (`'614'` counts, `'x'` does not).
pub fn int_at(row: &Row<'_>, idx: usize) -> Option<i64> {
    match row.get_ref(idx).ok()? {
        ValueRef::Integer(i) => Some(i),
        ValueRef::Real(f) if f.is_finite() => Some(f as i64),
        ValueRef::Text(t) => std::str::from_utf8(t).ok()?.trim().parse().ok(),
        _ => None,
    }
}

/// [`int_at`] for `query_map` closures.
pub(crate) fn int_at_opt(row: &Row<'_>, idx: usize) -> rusqlite::Result<Option<i64>> {
    Ok(int_at(row, idx))
}

/// Collapses whitespace runs to single spaces and trims: statements that differ only in layout
/// are the same statement.
pub fn normalize_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problem_key_matches_sql() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        for id in [
            "Erdos_850",
            "erdos-850",
            "ERDOS 850",
            "ft_p3_Q71",
            "Ünïcode_x",
        ] {
            let sql: String = conn
                .query_row(&format!("SELECT {}", problem_key_sql("?1")), [id], |r| {
                    r.get(0)
                })
                .unwrap();
            assert_eq!(sql, problem_key(id), "{id}");
        }
    }

    #[test]
    fn like_escaping() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        let hit = |hay: &str, needle: &str| -> bool {
            conn.query_row(
                "SELECT ?1 LIKE ?2 ESCAPE '\\'",
                [hay, &like_contains(needle)],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert!(hit("erdos_850", "s_8"));
        assert!(!hit("erdosX850", "s_8"));
        assert!(!hit("abc", "%"));
        assert!(hit("100%", "0%"));
        assert!(hit(r"a\b", r"\"));
    }
}
