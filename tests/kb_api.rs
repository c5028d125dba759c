//! The knowledge-base API the extractor uses: batch writes, change detection, index
//! consistency, concurrency, and opening bad files.

mod common;

use std::path::Path;

use math_forge::kb::{
    content_hash, Confidence, FailureInput, FileItem, FileStatus, FindingType, Kb, KbError,
    NewFinding, ProblemStatus, ProblemUpsert, SearchOptions, SourceRecord,
};

fn item(path: &str, content: &str, theorems: &[&str]) -> FileItem {
    FileItem {
        source: SourceRecord {
            path: path.into(),
            content_hash: content_hash(content.as_bytes()),
            size_bytes: content.len() as u64,
            slot: Some(900),
            problem_id: Some("demo_1".into()),
            ..Default::default()
        },
        findings: theorems
            .iter()
            .map(|t| NewFinding {
                finding_type: FindingType::Theorem,
                domain_id: Some("number-theory".into()),
                title: format!("{t} (theorem)"),
                description: format!("Proven theorem {t}"),
                theorem_name: Some(t.to_string()),
                confidence: Confidence::Verified,
                ..Default::default()
            })
            .collect(),
        problem: Some(ProblemUpsert {
            id: "demo_1".into(),
            status: Some(ProblemStatus::Partial),
            ..Default::default()
        }),
        attempt: None,
        aliases: Vec::new(),
        stated: Vec::new(),
    }
}

fn problem_counts(kb: &Kb) -> (i64, i64, String) {
    kb.connection()
        .query_row(
            "SELECT submission_count, proven_count, status FROM problems WHERE id = 'demo_1'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap()
}

#[test]
fn added_unchanged_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let mut kb = Kb::open(&dir.path().join("k.db")).unwrap();
    let out = kb
        .write_batch([
            item("a.lean", "v1", &["alpha_one", "alpha_two"]),
            item("b.lean", "v1", &["beta"]),
        ])
        .unwrap();
    assert_eq!(
        out.iter()
            .map(|o| (o.status, o.findings_added))
            .collect::<Vec<_>>(),
        [(FileStatus::Added, 2), (FileStatus::Added, 1)]
    );
    assert_eq!(problem_counts(&kb), (2, 3, "partial".into()));
    assert_eq!(kb.source_hash("a.lean").unwrap(), Some(content_hash(b"v1")));
    assert_eq!(kb.source_hash("zzz.lean").unwrap(), None);
    let known = kb.known_sources().unwrap();
    assert_eq!(known.len(), 2);
    assert_eq!(known["a.lean"].content_hash, content_hash(b"v1"));
    assert_eq!((known["a.lean"].findings, known["b.lean"].findings), (2, 1));

    let out = kb
        .write_batch([item("a.lean", "v1", &["alpha_one", "alpha_two"])])
        .unwrap();
    assert_eq!(out[0].status, FileStatus::Unchanged);
    assert_eq!(out[0].findings_added, 0);
    assert_eq!(kb.finding_count().unwrap(), 3);

    let out = kb
        .write_batch([item("a.lean", "v2", &["alpha_three"])])
        .unwrap();
    assert_eq!(
        (
            out[0].status,
            out[0].findings_added,
            out[0].findings_removed
        ),
        (FileStatus::Replaced, 1, 2)
    );
    assert_eq!(kb.finding_count().unwrap(), 2);
    // Re-extraction is not a new submission; the proven counter follows the findings.
    assert_eq!(problem_counts(&kb), (2, 2, "partial".into()));
    kb.check_indexes().unwrap();
    let hits = kb.search("alpha_one", &SearchOptions::default()).unwrap();
    assert!(hits.is_empty(), "old findings left both indexes: {hits:?}");
    let hits = kb.search("alpha_thr", &SearchOptions::default()).unwrap();
    assert_eq!(hits[0].finding.theorem_name.as_deref(), Some("alpha_three"));
    assert_eq!(
        hits[0].finding.domain_id.as_deref(),
        Some("nt"),
        "domain alias resolved"
    );
    assert_eq!(
        hits[0].finding.source_file.as_deref(),
        Some("a.lean"),
        "provenance from the source"
    );
    assert_eq!(hits[0].finding.source_slot, Some(900));

    assert_eq!(kb.remove_source("a.lean").unwrap(), 1);
    assert_eq!(kb.source_hash("a.lean").unwrap(), None);
    kb.check_indexes().unwrap();
}

#[test]
fn an_invalid_file_fails_alone_and_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let mut kb = Kb::open(&dir.path().join("k.db")).unwrap();
    let mut bad_domain = item("bad.lean", "x", &["good_one", "bad_one"]);
    // (topology joined the taxonomy in schema version 7: an unknown domain is another word.)
    bad_domain.findings[1].domain_id = Some("astrology".into());
    let mut empty_title = item("empty.lean", "x", &["t"]);
    empty_title.findings[0].title = "  ".into();
    let out = kb
        .write_batch([
            item("ok.lean", "x", &["fine"]),
            bad_domain,
            empty_title,
            item("ok2.lean", "y", &["fine2"]),
        ])
        .unwrap();
    let statuses: Vec<FileStatus> = out.iter().map(|o| o.status).collect();
    assert_eq!(
        statuses,
        [
            FileStatus::Added,
            FileStatus::Failed,
            FileStatus::Failed,
            FileStatus::Added
        ]
    );
    assert!(
        out[1]
            .error
            .as_deref()
            .unwrap()
            .contains("unknown domain 'astrology'"),
        "{:?}",
        out[1].error
    );
    assert!(out[2].error.as_deref().unwrap().contains("non-empty title"));
    assert_eq!(kb.source_hash("bad.lean").unwrap(), None, "no partial file");
    assert_eq!(kb.finding_count().unwrap(), 2);
    kb.check_indexes().unwrap();
}

#[test]
fn concurrent_writers_neither_fail_nor_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.db");
    Kb::open(&path).unwrap();
    let writers: Vec<_> = (0..3)
        .map(|w| {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut kb = Kb::open(&path).unwrap();
                for round in 0..5 {
                    let items: Vec<FileItem> = (0..60)
                        .map(|i| {
                            item(
                                &format!("w{w}/r{round}/f{i}.lean"),
                                &format!("{w}-{round}-{i}"),
                                &["t_a", "t_b"],
                            )
                        })
                        .collect();
                    let out = kb.write_batch(items).unwrap();
                    assert!(out.iter().all(|o| o.status == FileStatus::Added));
                    kb.record_failure(&FailureInput {
                        problem: "demo_1".into(),
                        approach: format!("approach {w}"),
                        why: "too slow".into(),
                        ..Default::default()
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    for w in writers {
        w.join().unwrap();
    }
    let kb = Kb::open_existing(&path).unwrap();
    assert_eq!(kb.finding_count().unwrap(), 3 * 5 * 60 * 2 + 3 * 5);
    assert_eq!(problem_counts(&kb).0, 3 * 5 * 60);
    let attempts: i64 = kb
        .connection()
        .query_row(
            "SELECT sum(attempts) FROM strategies WHERE problem_id = 'demo_1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(attempts, 15);
    kb.check_indexes().unwrap();
    let ok: String = kb
        .connection()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
}

#[test]
fn a_writer_waits_for_another_process_lock() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.db");
    let mut kb = Kb::open(&path).unwrap();
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE; INSERT INTO sources (path, content_hash, size_bytes) VALUES ('held', 'h', 0);").unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        holder.execute_batch("COMMIT").unwrap();
    });
    let out = kb.write_batch([item("x.lean", "x", &["x"])]).unwrap();
    assert_eq!(out[0].status, FileStatus::Added);
    release.join().unwrap();
    assert_eq!(kb.known_sources().unwrap().len(), 2);
}

fn err_of(r: Result<Kb, KbError>) -> KbError {
    r.expect_err("expected an error")
}

#[test]
fn opening_bad_files_explains_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);

    let e = err_of(Kb::open_existing(&p("missing.db")));
    assert!(matches!(e, KbError::Missing { .. }));
    let msg = e.to_string();
    assert!(
        msg.contains("missing.db") && msg.contains("mk init") && !msg.contains('\n'),
        "{msg}"
    );

    std::fs::write(
        p("text.db"),
        "SQLite format 3? no, just a text file pretending\n".repeat(200),
    )
    .unwrap();
    for e in [
        err_of(Kb::open_existing(&p("text.db"))),
        err_of(Kb::open(&p("text.db"))),
        err_of(Kb::open_read_only(&p("text.db"))),
    ] {
        let msg = e.to_string();
        assert!(matches!(e, KbError::NotADatabase { .. }), "{msg}");
        assert!(
            msg.contains("text.db") && msg.contains("mk init") && !msg.contains('\n'),
            "{msg}"
        );
    }

    // A real database that is not ours (tracking.db by mistake) is never modified.
    let tracking = common::build_tracking(dir.path(), "tracking.sql");
    let before = std::fs::read(&tracking).unwrap();
    for e in [
        err_of(Kb::open(&tracking)),
        err_of(Kb::open_existing(&tracking)),
    ] {
        assert!(matches!(e, KbError::Foreign { .. }), "{e}");
        assert!(e.to_string().contains("tracking.db"));
    }
    assert_eq!(std::fs::read(&tracking).unwrap(), before);

    Kb::open(&p("new.db")).unwrap();
    rusqlite::Connection::open(p("new.db"))
        .unwrap()
        .execute_batch("PRAGMA user_version = 99")
        .unwrap();
    let e = err_of(Kb::open_existing(&p("new.db")));
    assert!(matches!(e, KbError::TooNew { found: 99, .. }), "{e}");
    assert!(e.to_string().contains("upgrade math-forge"));

    std::fs::write(p("empty.db"), "").unwrap();
    assert!(matches!(
        err_of(Kb::open_existing(&p("empty.db"))),
        KbError::Missing { .. }
    ));
    Kb::open(&p("empty.db")).unwrap();
    Kb::open_existing(&p("empty.db")).unwrap();

    assert!(matches!(
        err_of(Kb::open_existing(dir.path())),
        KbError::NotADatabase { .. }
    ));

    // A truncated database: the header survives, the pages do not.
    let good = p("trunc.db");
    let mut kb = Kb::open(&good).unwrap();
    kb.write_batch(common::corpus()).unwrap();
    drop(kb);
    let bytes = std::fs::read(&good).unwrap();
    let wal = p("trunc.db-wal");
    if wal.exists() {
        std::fs::remove_file(&wal).unwrap();
    }
    std::fs::write(&good, &bytes[..bytes.len().min(4096 + 100)]).unwrap();
    match Kb::open_existing(&good)
        .and_then(|kb| kb.search("erdos", &SearchOptions::default()).map(|_| kb))
    {
        Ok(_) => {}
        Err(e) => assert!(!e.to_string().contains('\n'), "{e}"),
    }
}

#[test]
fn read_only_connection_refuses_every_write() {
    let dir = tempfile::tempdir().unwrap();
    let db = common::build_kb(dir.path());
    let kb = Kb::open_read_only(&db).unwrap();
    for sql in [
        "DELETE FROM findings",
        "INSERT INTO domains (id, name) VALUES ('x', 'x')",
        "UPDATE findings SET title = 'x'",
        "DROP TABLE findings",
        "CREATE TABLE t (x)",
        "PRAGMA user_version = 7",
        "VACUUM",
        "REPLACE INTO domains (id, name) VALUES ('nt', 'x')",
        "WITH x AS (SELECT 1) DELETE FROM findings",
    ] {
        let e = kb.query_read_only(sql).expect_err(sql);
        assert!(
            matches!(e, KbError::NotReadOnly { .. } | KbError::Sqlite { .. }),
            "{sql}: {e}"
        );
    }
    let attach = format!(
        "ATTACH DATABASE '{}' AS other",
        dir.path().join("other.db").display()
    );
    assert!(kb.query_read_only(&attach).is_err());
    assert!(!dir.path().join("other.db").exists());
    assert!(matches!(
        kb.query_read_only("SELECT 1; DELETE FROM findings"),
        Err(KbError::Invalid(_))
    ));
    let r = kb
        .query_read_only("SELECT count(*) AS n FROM findings")
        .unwrap();
    assert_eq!(r.columns, ["n"]);
    // 14 findings in the fixture, of which 4 copies of one theorem are one fact.
    assert_eq!(r.rows, [[serde_json::json!(11)]]);
    drop(kb);
    assert_eq!(Kb::open_existing(&db).unwrap().finding_count().unwrap(), 11);
}

#[test]
fn schema_file_is_the_embedded_one() {
    // The embedded schema is what a new database gets; user_version marks it.
    let dir = tempfile::tempdir().unwrap();
    let kb = Kb::open(&dir.path().join("k.db")).unwrap();
    assert_eq!(kb.schema_version().unwrap(), math_forge::kb::SCHEMA_VERSION);
    let journal: String = kb
        .connection()
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(journal, "wal");
    let fk: i64 = kb
        .connection()
        .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
        .unwrap();
    assert_eq!(fk, 1);
    let sql =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/knowledge.sql"))
            .unwrap();
    for object in [
        "findings_fts",
        "findings_ident",
        "sources",
        "v_problem_dashboard",
        "v_near_miss_findings",
        "queue_cache",
    ] {
        assert!(sql.contains(object));
        let n: i64 = kb
            .connection()
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE name = ?1",
                [object],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(n, 1, "{object}");
    }
}

/// Both indexes agree with `findings` and no writer left the insert triggers switched off.
fn assert_indexed(kb: &Kb) {
    kb.check_indexes().unwrap();
    let deferred: i64 = kb
        .connection()
        .query_row("SELECT count(*) FROM findings_fts_deferred", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(deferred, 0, "the insert triggers were left off");
}

fn names_found(kb: &Kb, query: &str) -> Vec<String> {
    let mut names: Vec<String> = kb
        .search(query, &SearchOptions::default())
        .unwrap()
        .into_iter()
        .filter_map(|h| h.finding.theorem_name)
        .collect();
    names.sort();
    names
}

#[test]
fn a_file_only_sqlite_rejects_fails_alone_and_the_rest_is_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let mut kb = Kb::open(&dir.path().join("k.db")).unwrap();
    kb.write_batch([item("kept.lean", "v1", &["kept_old"])])
        .unwrap();
    // A size that is negative as an SQLite integer passes validation in Rust and fails the
    // table's CHECK constraint: only SQLite sees it, in the middle of the batch.
    let mut rejected = item("rejected.lean", "r", &["rejected_thm"]);
    rejected.source.size_bytes = u64::MAX;
    let out = kb
        .write_batch([
            item("first.lean", "f", &["first_thm"]),
            rejected,
            // Replaces a file of an earlier batch, and then one of this batch.
            item("kept.lean", "v2", &["kept_new"]),
            item("first.lean", "f2", &["first_again"]),
            item("last.lean", "l", &["last_thm"]),
        ])
        .unwrap();
    let statuses: Vec<FileStatus> = out.iter().map(|o| o.status).collect();
    assert_eq!(
        statuses,
        [
            FileStatus::Added,
            FileStatus::Failed,
            FileStatus::Replaced,
            FileStatus::Replaced,
            FileStatus::Added
        ]
    );
    assert!(
        out[1].error.as_deref().unwrap().contains("CHECK"),
        "{:?}",
        out[1].error
    );
    assert_eq!(kb.source_hash("rejected.lean").unwrap(), None);
    assert_eq!(kb.finding_count().unwrap(), 3);
    assert_indexed(&kb);
    for (query, names) in [
        ("kept_new", vec!["kept_new"]),
        ("first_again", vec!["first_again"]),
        ("last_thm", vec!["last_thm"]),
        ("kept_old", vec![]),
        ("first_thm", vec![]),
        ("rejected_thm", vec![]),
    ] {
        assert_eq!(names_found(&kb, query), names, "{query}");
    }
}

#[test]
fn findings_written_outside_write_batch_are_still_indexed_by_the_triggers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.db");
    let mut kb = Kb::open(&path).unwrap();
    kb.write_batch([item("a.lean", "a", &["from_batch"])])
        .unwrap();
    // Another program writing with plain SQL, e.g. sqlite3 by hand.
    let other = rusqlite::Connection::open(&path).unwrap();
    other
        .execute_batch(
            "INSERT INTO findings (finding_type, domain_id, title, description, theorem_name)
             VALUES ('theorem', 'nt', 'Hand written (theorem)', 'typed in by hand', 'hand_written_thm');",
        )
        .unwrap();
    kb.record_failure(&FailureInput {
        problem: "demo_1".into(),
        approach: "pigeonhole".into(),
        why: "bound too weak".into(),
        ..Default::default()
    })
    .unwrap();
    assert_indexed(&kb);
    assert_eq!(names_found(&kb, "hand_written_thm"), ["hand_written_thm"]);
    assert_eq!(names_found(&kb, "from_batch"), ["from_batch"]);
    let hits = kb
        .search("bound too weak", &SearchOptions::default())
        .unwrap();
    assert!(!hits.is_empty());
}

#[test]
fn a_version_1_database_is_upgraded_in_place_and_keeps_its_data() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("k.db");
    {
        // knowledge.db as version 1 of the schema created it, with data its writers stored.
        let v1 = rusqlite::Connection::open(&path).unwrap();
        let schema = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/knowledge.sql"),
        )
        .unwrap();
        v1.execute_batch("PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;")
            .unwrap();
        v1.execute_batch(&format!("BEGIN; {schema} PRAGMA user_version = 1; COMMIT;"))
            .unwrap();
        v1.execute_batch(
            "INSERT INTO sources (id, path, content_hash, size_bytes, slot, problem_id)
                 VALUES (1, 'old.lean', 'h1', 10, 614, 'erdos_850');
             INSERT INTO findings (finding_type, domain_id, title, description, problem_id,
                 source_slot, theorem_name, proof_technique, confidence, source_id)
                 VALUES ('theorem', 'nt', 'prime_triple_bound (theorem)', 'Proven theorem about prime triples',
                         'erdos_850', 614, 'Erdos850.prime_triple_bound', 'omega', 'verified', 1),
                        ('failure', 'nt', 'Failed attempt: slot614', 'pigeonhole did not close it',
                         'erdos_850', 614, NULL, NULL, 'high', 1);",
        )
        .unwrap();
    }
    // Readers (hooks, mk query) read it as it is, before anything upgrades it.
    let reader = Kb::open_read_only(&path).unwrap();
    assert_eq!(reader.schema_version().unwrap(), 1);
    assert_eq!(
        names_found(&reader, "triple_bou"),
        ["Erdos850.prime_triple_bound"]
    );
    drop(reader);
    let mut kb = Kb::open(&path).unwrap();
    assert_eq!(kb.opened().upgraded_from, Some(1));
    assert_eq!(kb.schema_version().unwrap(), math_forge::kb::SCHEMA_VERSION);
    assert_eq!(kb.finding_count().unwrap(), 2);
    assert_indexed(&kb);
    // Words, identifier substrings and the exact name still find the old findings.
    assert_eq!(
        names_found(&kb, "prime triples"),
        ["Erdos850.prime_triple_bound"]
    );
    assert_eq!(
        names_found(&kb, "triple_bou"),
        ["Erdos850.prime_triple_bound"]
    );
    let hits = kb.search("pigeonhole", &SearchOptions::default()).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].finding.finding_type, "failure");

    // The upgraded database takes new files, replaces old ones and stays consistent.
    let mut changed = item("old.lean", "h2", &["replacement_thm"]);
    changed.source.content_hash = "h2".into();
    let out = kb
        .write_batch([changed, item("new.lean", "n", &["brand_new_thm"])])
        .unwrap();
    assert_eq!(
        out.iter()
            .map(|o| (o.status, o.findings_added, o.findings_removed))
            .collect::<Vec<_>>(),
        [(FileStatus::Replaced, 1, 2), (FileStatus::Added, 1, 0)]
    );
    assert_indexed(&kb);
    assert!(names_found(&kb, "prime triples").is_empty());
    assert_eq!(names_found(&kb, "replacement_thm"), ["replacement_thm"]);
    assert_eq!(names_found(&kb, "brand_new"), ["brand_new_thm"]);
    drop(kb);
    // Opening again changes nothing.
    let kb = Kb::open(&path).unwrap();
    assert_eq!(kb.opened().upgraded_from, None);
    assert_eq!(kb.finding_count().unwrap(), 2);
}

#[test]
fn search_ranks_a_finding_agents_used_above_an_equally_relevant_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut kb = Kb::open(&dir.path().join("k.db")).unwrap();
    // Two theorems the query matches alike (same words, same length).
    kb.write_batch(vec![item(
        "/r/a.lean",
        "a",
        &["zeta_bound_alpha", "zeta_bound_omega"],
    )])
    .unwrap();
    let names = |kb: &Kb| -> Vec<String> {
        kb.search("zeta bound", &SearchOptions::default())
            .unwrap()
            .into_iter()
            .map(|h| h.finding.theorem_name.unwrap())
            .collect()
    };
    let before = names(&kb);
    assert_eq!(before.len(), 2, "{before:?}");
    // Shown to a session, the one ranked second is then used by a proof of that session.
    let second = before[1].clone();
    let ids: Vec<i64> = kb
        .search("zeta bound", &SearchOptions::default())
        .unwrap()
        .iter()
        .map(|h| h.finding.id)
        .collect();
    kb.mark_shown("s1", &ids).unwrap();
    assert_eq!(
        kb.mark_used("s1", std::slice::from_ref(&second)).unwrap(),
        1
    );
    assert_eq!(names(&kb)[0], second);
}

#[test]
fn open_for_reading_reads_a_current_database_read_only_and_upgrades_an_older_one() {
    let dir = tempfile::tempdir().unwrap();
    // Current: nothing can be written through it, and searching works.
    let current = dir.path().join("current.db");
    let mut kb = Kb::open(&current).unwrap();
    kb.write_batch(vec![item("a.lean", "x", &["alpha_one"])])
        .unwrap();
    drop(kb);
    let reader = Kb::open_for_reading(&current).unwrap();
    assert!(reader
        .connection()
        .execute("DELETE FROM findings", [])
        .is_err());
    assert_eq!(names_found(&reader, "alpha_one"), ["alpha_one"]);
    drop(reader);
    // Older (version 1): upgraded in place, as every read command did before.
    let old = dir.path().join("old.db");
    {
        let v1 = rusqlite::Connection::open(&old).unwrap();
        let schema = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/knowledge.sql"),
        )
        .unwrap();
        v1.execute_batch(&format!("BEGIN; {schema} PRAGMA user_version = 1; COMMIT;"))
            .unwrap();
    }
    let kb = Kb::open_for_reading(&old).unwrap();
    assert_eq!(kb.schema_version().unwrap(), math_forge::kb::SCHEMA_VERSION);
}

#[test]
fn substring_matches_beyond_the_pool_are_the_newest() {
    // 120 names contain the query; the identifier pass keeps the newest 100 (ids 21..120), so
    // the shortest names it could return, zz_common_sub_0 … _9, are too old to be among them.
    let dir = tempfile::tempdir().unwrap();
    let mut kb = Kb::open(&dir.path().join("k.db")).unwrap();
    let names: Vec<String> = (0..120).map(|i| format!("zz_common_sub_{i}")).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    kb.write_batch(vec![item("many.lean", "many", &names)])
        .unwrap();
    let hits = kb.search("common_sub", &SearchOptions::default()).unwrap();
    let top = hits[0].finding.theorem_name.clone().unwrap();
    let n: usize = top.rsplit('_').next().unwrap().parse().unwrap();
    assert!((20..100).contains(&n), "top hit {top}");
}
