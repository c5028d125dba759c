//! `mf_bm25`: FTS5's own BM25, without reading every posting of every query word.
//!
//! FTS5's `bm25()` computes each phrase's IDF from the number of rows that contain it, and
//! counts them by reading the phrase's whole doclist: on 100,000 findings, two common words
//! cost about 2 ms each before a single row is ranked. `mf_bm25` takes the same arguments
//! (a weight per column) and computes the same formula (k1 = 1.2, b = 0.75, the IDF clamped to
//! 1e-6), except for how the row counts are found:
//!
//! - a query of **one phrase** needs none: its IDF multiplies every row's score alike, so the
//!   order is that of `bm25()` exactly; the IDF is taken as 1;
//! - otherwise each phrase's rows are counted as FTS5 does, but only up to [`IDF_SAMPLE`]
//!   rows: a phrase in fewer rows gets its exact count (and exactly `bm25()`'s IDF); a more
//!   common one is counted over the oldest rows and the count extrapolated over the rowid range
//!   (its IDF is then at most ln(N / IDF_SAMPLE), where an error of 10% in the count moves it
//!   by 0.1).
//!
//! Two trailing arguments after the eight weights give the smallest and largest rowid of the
//! table, for the extrapolation.

use std::ffi::{c_int, c_void};

use rusqlite::{ffi, Connection};

/// Rows counted per phrase before the count is extrapolated.
pub const IDF_SAMPLE: i64 = 2_000;

/// Columns of `findings_fts`; the arguments after the weights come after these.
const COLUMNS: c_int = 8;

/// The SQL expression that ranks a `findings_fts` match (lower is better, like `rank`), with
/// the spec's column weights (schema/knowledge.sql: title=10, description=5, problem_id=0,
/// theorem_name=1, theorem_statement=5, proof_technique=3, tags=2, why_failed=3).
pub const RANK_SQL: &str = "mf_bm25(findings_fts, 10.0, 5.0, 0.0, 1.0, 5.0, 3.0, 2.0, 3.0, \
     (SELECT min(id) FROM findings), (SELECT max(id) FROM findings))";

/// Registers `mf_bm25` on `conn` (once per connection).
pub(crate) fn register(conn: &Connection) -> rusqlite::Result<()> {
    // SAFETY: the handle is open for the duration of the call; the statement is finalized
    // before returning, and `fts5(?1)` writes the API pointer into `api` while it steps.
    unsafe {
        let db = conn.handle();
        let mut stmt = std::ptr::null_mut();
        let rc = ffi::sqlite3_prepare_v2(
            db,
            c"SELECT fts5(?1)".as_ptr(),
            -1,
            &mut stmt,
            std::ptr::null_mut(),
        );
        if rc != ffi::SQLITE_OK {
            return Err(failure(rc, "cannot reach the FTS5 API"));
        }
        let mut api: *mut ffi::fts5_api = std::ptr::null_mut();
        ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&raw mut api).cast::<c_void>(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        ffi::sqlite3_step(stmt);
        ffi::sqlite3_finalize(stmt);
        let Some(create) = api
            .as_ref()
            .filter(|a| a.iVersion >= 2)
            .and_then(|a| a.xCreateFunction)
        else {
            return Err(failure(ffi::SQLITE_ERROR, "no FTS5 API"));
        };
        let rc = create(
            api,
            c"mf_bm25".as_ptr(),
            std::ptr::null_mut(),
            Some(mf_bm25),
            None,
        );
        if rc != ffi::SQLITE_OK {
            return Err(failure(rc, "cannot register mf_bm25"));
        }
    }
    Ok(())
}

fn failure(rc: c_int, what: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(ffi::Error::new(rc), Some(what.to_string()))
}

/// Per query: what every row's score needs.
struct Data {
    idf: Vec<f64>,
    avgdl: f64,
    freq: Vec<f64>,
}

unsafe extern "C" fn free_data(p: *mut c_void) {
    // SAFETY: `p` came from `Box::into_raw` in `data`.
    drop(unsafe { Box::from_raw(p.cast::<Data>()) });
}

unsafe extern "C" fn mf_bm25(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_val: c_int,
    ap_val: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 passes a valid API, context and `n_val` argument values.
    unsafe {
        let args: &[*mut ffi::sqlite3_value] = if n_val > 0 && !ap_val.is_null() {
            std::slice::from_raw_parts(ap_val, n_val as usize)
        } else {
            &[]
        };
        match score(&*api, fts, args) {
            Ok(s) => ffi::sqlite3_result_double(ctx, s),
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

fn check(rc: c_int) -> Result<(), c_int> {
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rc)
    }
}

/// `bm25()`'s score of the current row (negated: lower is better).
unsafe fn score(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    args: &[*mut ffi::sqlite3_value],
) -> Result<f64, c_int> {
    const K1: f64 = 1.2;
    const B: f64 = 0.75;
    // SAFETY: every pointer comes from FTS5 for this call.
    unsafe {
        let data = &mut *data(api, fts, args)?;
        data.freq.iter_mut().for_each(|f| *f = 0.0);
        let mut n_inst = 0;
        check(api.xInstCount.ok_or(ffi::SQLITE_ERROR)?(fts, &mut n_inst))?;
        let inst = api.xInst.ok_or(ffi::SQLITE_ERROR)?;
        for i in 0..n_inst {
            let (mut ip, mut ic, mut io) = (0, 0, 0);
            check(inst(fts, i, &mut ip, &mut ic, &mut io))?;
            let w = if ic < COLUMNS && (ic as usize) < args.len() {
                ffi::sqlite3_value_double(args[ic as usize])
            } else {
                1.0
            };
            if let Some(f) = data.freq.get_mut(ip as usize) {
                *f += w;
            }
        }
        let mut n_tok = 0;
        check(api.xColumnSize.ok_or(ffi::SQLITE_ERROR)?(
            fts, -1, &mut n_tok,
        ))?;
        let d = f64::from(n_tok);
        let score: f64 = data
            .idf
            .iter()
            .zip(&data.freq)
            .map(|(idf, f)| idf * (f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * d / data.avgdl)))
            .sum();
        Ok(-score)
    }
}

/// The query's [`Data`], computed on the first row.
unsafe fn data(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    args: &[*mut ffi::sqlite3_value],
) -> Result<*mut Data, c_int> {
    // SAFETY: every pointer comes from FTS5 for this call; the aux data is ours.
    unsafe {
        let get = api.xGetAuxdata.ok_or(ffi::SQLITE_ERROR)?;
        let p = get(fts, 0).cast::<Data>();
        if !p.is_null() {
            return Ok(p);
        }
        let phrases = api.xPhraseCount.ok_or(ffi::SQLITE_ERROR)?(fts).max(0);
        let (mut rows, mut tokens) = (0i64, 0i64);
        check(api.xRowCount.ok_or(ffi::SQLITE_ERROR)?(fts, &mut rows))?;
        check(api.xColumnTotalSize.ok_or(ffi::SQLITE_ERROR)?(
            fts,
            -1,
            &mut tokens,
        ))?;
        let rows = rows.max(1);
        let range = |i: usize| {
            args.get(COLUMNS as usize + i)
                .map(|v| ffi::sqlite3_value_int64(*v))
        };
        let (first, last) = (range(0).unwrap_or(1), range(1).unwrap_or(rows));
        let mut idf = vec![1.0; phrases as usize];
        if phrases > 1 {
            let query = api.xQueryPhrase.ok_or(ffi::SQLITE_ERROR)?;
            for (i, idf) in idf.iter_mut().enumerate() {
                let mut count = Count {
                    hits: 0,
                    last_rowid: 0,
                };
                check(query(
                    fts,
                    i as c_int,
                    (&raw mut count).cast::<c_void>(),
                    Some(count_rows),
                ))?;
                let hits = estimate(count.hits, count.last_rowid, first, last).min(rows);
                *idf = idf_of(rows, hits);
            }
        }
        let data = Box::into_raw(Box::new(Data {
            idf,
            avgdl: tokens as f64 / rows as f64,
            freq: vec![0.0; phrases as usize],
        }));
        let set = api.xSetAuxdata.ok_or(ffi::SQLITE_ERROR)?;
        let rc = set(fts, data.cast::<c_void>(), Some(free_data));
        if rc != ffi::SQLITE_OK {
            // xSetAuxdata calls the destructor itself when it fails.
            return Err(rc);
        }
        Ok(data)
    }
}

/// `bm25()`'s IDF of a phrase in `hits` of `rows` rows.
fn idf_of(rows: i64, hits: i64) -> f64 {
    let idf = ((rows - hits) as f64 + 0.5).ln() - (hits as f64 + 0.5).ln();
    if idf <= 0.0 {
        1e-6
    } else {
        idf
    }
}

/// The rows a phrase is in, from the first `hits` of them (ascending rowid, the last at
/// `last_rowid`): exact below [`IDF_SAMPLE`], else the density so far over the whole range.
fn estimate(hits: i64, last_rowid: i64, first: i64, last: i64) -> i64 {
    if hits < IDF_SAMPLE || last_rowid >= last {
        return hits;
    }
    let seen = (last_rowid - first + 1).max(1) as f64;
    let span = (last - first + 1).max(1) as f64;
    ((hits as f64) * span / seen).round() as i64
}

struct Count {
    hits: i64,
    last_rowid: i64,
}

unsafe extern "C" fn count_rows(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    user: *mut c_void,
) -> c_int {
    // SAFETY: `user` is the `Count` passed to xQueryPhrase, alive for its duration.
    unsafe {
        let count = &mut *user.cast::<Count>();
        count.hits += 1;
        if let Some(rowid) = (*api).xRowid {
            count.last_rowid = rowid(fts);
        }
        if count.hits >= IDF_SAMPLE {
            // Stops the scan; xQueryPhrase then returns SQLITE_OK.
            ffi::SQLITE_DONE
        } else {
            ffi::SQLITE_OK
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `findings_fts` shaped like the real one (eight columns, the third unindexed), with
    /// `rows` documents: every one has "common", every 7th "seven", every 50th "rare".
    fn table(rows: i64) -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        register(&conn).unwrap();
        conn.execute_batch(
            "CREATE TABLE findings (id INTEGER PRIMARY KEY);
             CREATE VIRTUAL TABLE findings_fts USING fts5(title, description, problem_id UNINDEXED,
                 theorem_name, theorem_statement, proof_technique, tags, why_failed,
                 tokenize='porter unicode61');",
        )
        .unwrap();
        let tx = conn.unchecked_transaction().unwrap();
        for id in 1..=rows {
            let mut words = vec!["common"];
            if id % 7 == 0 {
                words.push("seven");
            }
            if id % 50 == 0 {
                words.push("rare");
            }
            let filler = "word ".repeat((id % 13) as usize);
            tx.execute("INSERT INTO findings (id) VALUES (?1)", [id])
                .unwrap();
            tx.execute(
                "INSERT INTO findings_fts (rowid, title, description, problem_id, theorem_name,
                 theorem_statement, proof_technique, tags, why_failed)
                 VALUES (?1, ?2, ?3, 'p', '', ?4, '', '', '')",
                rusqlite::params![
                    id,
                    words[(id % words.len() as i64) as usize],
                    format!("{} {filler}", words.join(" ")),
                    if id % 3 == 0 {
                        words.join(" ")
                    } else {
                        String::new()
                    },
                ],
            )
            .unwrap();
        }
        tx.commit().unwrap();
        conn
    }

    /// (rowid, bm25(), mf_bm25()) of every row matching `query`.
    fn both(conn: &Connection, query: &str) -> Vec<(i64, f64, f64)> {
        let sql = format!(
            "SELECT rowid, bm25(findings_fts, 10.0, 5.0, 0.0, 1.0, 5.0, 3.0, 2.0, 3.0), {RANK_SQL}
             FROM findings_fts WHERE findings_fts MATCH ?1 ORDER BY rowid"
        );
        let mut stmt = conn.prepare(&sql).unwrap();
        let rows = stmt
            .query_map([query], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap();
        rows.map(Result::unwrap).collect()
    }

    #[test]
    fn equals_bm25_when_every_phrase_is_in_fewer_rows_than_the_sample() {
        let conn = table(1_000);
        for query in [
            r#""seven" OR "rare""#,
            r#""seven" AND "rare""#,
            r#""common" AND "seven" NOT "rare""#,
        ] {
            let rows = both(&conn, query);
            assert!(!rows.is_empty(), "{query}");
            for (id, fts5, ours) in rows {
                assert!(
                    (fts5 - ours).abs() < 1e-9,
                    "{query}: row {id}: bm25 {fts5}, mf_bm25 {ours}"
                );
            }
        }
    }

    #[test]
    fn one_phrase_orders_rows_as_bm25_does() {
        let conn = table(1_000);
        for query in [r#""seven""#, r#""common seven""#, r#""sev"*"#] {
            let rows = both(&conn, query);
            assert!(rows.len() > 10, "{query}");
            // Scores differ by the phrase's IDF alone: one constant ratio, so the same order.
            let ratio = rows[0].1 / rows[0].2;
            for (id, fts5, ours) in &rows {
                assert!((fts5 / ours - ratio).abs() < 1e-9, "{query}: row {id}");
            }
        }
    }

    #[test]
    fn common_phrases_get_an_idf_close_to_bm25s() {
        // "common" and "seven" are in more rows than the sample: their counts are extrapolated.
        let conn = table(14 * IDF_SAMPLE);
        let rows = both(&conn, r#""seven" AND "rare""#);
        assert!(!rows.is_empty());
        for (id, fts5, ours) in rows {
            assert!(
                (fts5 - ours).abs() < 0.01 * fts5.abs(),
                "row {id}: bm25 {fts5}, mf_bm25 {ours}"
            );
        }
    }

    #[test]
    fn idf_matches_fts5() {
        // log((N - n + 0.5) / (n + 0.5)), clamped.
        assert!((idf_of(100, 10) - (90.5f64 / 10.5).ln()).abs() < 1e-12);
        assert_eq!(idf_of(100, 60), 1e-6);
    }

    #[test]
    fn estimate_is_exact_below_the_sample() {
        assert_eq!(estimate(1_999, 50_000, 1, 100_000), 1_999);
        // Reached the end of the table: every row was counted.
        assert_eq!(estimate(IDF_SAMPLE, 100_000, 1, 100_000), IDF_SAMPLE);
        // 2,000 rows in the first 10,000 of 100,000: about 20,000.
        assert_eq!(estimate(IDF_SAMPLE, 10_000, 1, 100_000), 20_000);
    }
}
