//! The other `mk` commands end to end: find, failed, strategies, stats, query, record,
//! recommend, and the error messages for missing or broken databases.

mod common;

use common::{build_kb, build_tracking, mk, mk_json, stdout_of};

fn stderr_line(out: &std::process::Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "one line expected: {err:?}"
    );
    err
}

#[test]
fn missing_or_corrupt_db_is_one_line_naming_path_and_fix() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["search", "x"][..],
        &["stats"],
        &["find", "p"],
        &["query", "SELECT 1"],
        &["recommend", "nt"],
    ] {
        let out = mk(dir.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr_line(&out);
        assert!(
            err.contains(".local/share/math-forge/knowledge.db") && err.contains("mk init"),
            "{err}"
        );
        assert!(
            err.contains("the user data directory"),
            "says which rule chose the path: {err}"
        );
    }
    let bogus = dir.path().join("bogus.db");
    std::fs::write(&bogus, "not a database\n".repeat(500)).unwrap();
    let out = mk(dir.path())
        .env("MATH_FORGE_DB", &bogus)
        .args(["search", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_line(&out);
    assert!(
        err.contains("bogus.db")
            && err.contains("not a usable SQLite database")
            && err.contains("mk init"),
        "{err}"
    );
}

#[test]
fn find_shows_the_dashboard_with_tracking() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let tracking = build_tracking(dir.path(), "tracking.sql");
    let args = [
        "find",
        "Erdos 850",
        "--db",
        db.to_str().unwrap(),
        "--tracking",
        tracking.to_str().unwrap(),
    ];
    let r = mk_json(dir.path(), &args);
    assert_eq!(r["problem"]["id"], "erdos_850");
    assert_eq!(r["problem"]["status"], "partial");
    assert_eq!(r["problem"]["submission_count"], 4);
    let types: Vec<(&str, i64)> = r["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["finding_type"].as_str().unwrap(),
                g["total"].as_i64().unwrap(),
            )
        })
        .collect();
    // Theorems are counted as distinct facts (the fixture stores one from 4 files).
    assert_eq!(types, [("theorem", 2), ("technique", 1)]);
    let files: Vec<&str> = r["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["filename"].as_str().unwrap())
        .collect();
    assert_eq!(
        files,
        [
            "slot615_erdos_850_retry_result.lean",
            "slot614_erdos_850_triple_factors_result.lean"
        ]
    );
    assert_eq!(r["submissions"][0]["slot"], 615);

    let text = stdout_of(dir.path(), &args);
    assert!(
        text.starts_with("[PARTIAL] erdos_850 — Erdős 850\n"),
        "{text}"
    );
    assert!(
        text.contains("\n---\nFacts, by type\n  [THEOREM] 2\n"),
        "{text}"
    );
    // Every count says what it counts; none reads "Failed: 0" above a failed strategy.
    assert!(
        text.contains(
            "  Domain: nt | Submissions: 4 | Verified theorem occurrences: 5 | Failure facts: 0\n"
        ),
        "{text}"
    );
    assert!(!text.contains("Failed: "), "{text}");
    assert!(text.contains("Submissions (tracking.db)"), "{text}");

    let r = mk_json(
        dir.path(),
        &[
            "find",
            "tuza_nu4",
            "--db",
            db.to_str().unwrap(),
            "--tracking",
            tracking.to_str().unwrap(),
        ],
    );
    assert_eq!(
        r["false_lemmas"][0]["lemma_name"], "local_cover_le_2",
        "not migrated here, so shown from tracking.db"
    );

    // An unknown id is an error (exit 2) naming the nearest ids.
    let out = mk(dir.path())
        .args(["find", "erdos", "--db", db.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr_line(&out).trim_end(),
        "mk: no problem erdos; nearest: erdos_364, erdos_850"
    );
}

#[test]
fn tracking_absent_or_broken_is_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let junk = dir.path().join("junk.db");
    std::fs::write(&junk, "garbage ".repeat(1000)).unwrap();
    for t in [dir.path().join("nowhere.db"), junk] {
        let out = mk(dir.path())
            .args(["find", "erdos_850", "--db"])
            .arg(&db)
            .arg("--tracking")
            .arg(&t)
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("[PARTIAL] erdos_850"), "{text}");
        assert!(text.contains("note: "), "{text}");
        let out = mk(dir.path())
            .args(["failed", "--db"])
            .arg(&db)
            .arg("--tracking")
            .arg(&t)
            .output()
            .unwrap();
        assert!(out.status.success());
    }
}

#[test]
fn failed_lists_failures_and_unmigrated_false_lemmas() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let tracking = build_tracking(dir.path(), "tracking.sql");
    let r = mk_json(
        dir.path(),
        &[
            "failed",
            "pigeonhole",
            "--db",
            db.to_str().unwrap(),
            "--tracking",
            tracking.to_str().unwrap(),
        ],
    );
    let titles: Vec<&str> = r["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Failed attempt: slot700 (5 sorry)"]);
    let r = mk_json(
        dir.path(),
        &[
            "failed",
            "cover",
            "--db",
            db.to_str().unwrap(),
            "--tracking",
            tracking.to_str().unwrap(),
        ],
    );
    assert_eq!(r["facts"][0]["title"], "FALSE: local_cover_le_2");
    assert_eq!(
        r["tracking_false_lemmas"][0]["lemma_name"],
        "local_cover_le_2"
    );
    // After migration the tracking copy is no longer listed twice.
    mk(dir.path())
        .args(["init", "--db"])
        .arg(&db)
        .arg("--from-tracking")
        .arg(&tracking)
        .assert()
        .success();
    let r = mk_json(
        dir.path(),
        &[
            "failed",
            "cover",
            "--db",
            db.to_str().unwrap(),
            "--tracking",
            tracking.to_str().unwrap(),
        ],
    );
    assert_eq!(r["tracking_false_lemmas"], serde_json::json!([]));
}

#[test]
fn strategies_by_domain() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let r = mk_json(
        dir.path(),
        &["strategies", "combinatorics", "--db", db.to_str().unwrap()],
    );
    assert_eq!(r["domain"], "combinatorics");
    let t = &r["techniques"][0];
    assert_eq!(t["technique"], "injection counting");
    assert_eq!(t["count"], 4);
    assert_eq!(t["slots"], serde_json::json!([614, 615, 620, 633]));
    let out = mk(dir.path())
        // (geometry joined the taxonomy in schema version 7; this domain is unknown.)
        .args(["strategies", "astrology", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_line(&out).contains("unknown domain 'astrology'"));
}

#[test]
fn stats_says_which_paths_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    std::fs::create_dir(dir.path().join("submissions")).unwrap();
    let t = build_tracking(dir.path(), "tracking_old.sql");
    std::fs::rename(&t, dir.path().join("submissions/tracking.db")).unwrap();
    let out = mk(dir.path())
        .env("MATH_FORGE_DB", &db)
        .env("CLAUDE_PROJECT_DIR", dir.path())
        .args(["stats", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["knowledge_db"]["why"], "from $MATH_FORGE_DB");
    assert_eq!(r["tracking_db"]["why"], "under $CLAUDE_PROJECT_DIR");
    assert_eq!(r["tracking_db"]["available"], true);
    assert_eq!(
        r["tracking_db"]["tables"]["false_lemmas"],
        serde_json::Value::Null
    );
    assert_eq!(r["tracking_db"]["tables"]["submissions"], 2);
    // 14 findings in the fixture; 4 copies of one theorem are one fact.
    assert_eq!(r["facts"], 11);
    // …and every occurrence counted, in the same words as `mf extract`'s summary.
    assert_eq!(r["occurrences"], 14);
    assert_eq!(r["freshness"]["files"], 8);
    let by_type: Vec<(String, i64)> = r["by_type"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["key"].as_str().unwrap().to_string(),
                c["count"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(by_type[0], ("theorem".to_string(), 7));

    let out = mk(dir.path())
        .env("MATH_FORGE_DB", &db)
        .arg("stats")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let schema = format!(
        "from $MATH_FORGE_DB | schema v{}",
        math_forge::kb::SCHEMA_VERSION
    );
    assert!(text.contains(&schema), "{text}");
    assert!(
        text.contains(
            "tracking.db tables: submissions 2 | proven_theorems 2 | false_lemmas (missing)"
        ),
        "{text}"
    );
}

#[test]
fn query_is_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let r = mk_json(dir.path(), &["query", "--db", db.to_str().unwrap(), "SELECT finding_type AS t, count(*) AS n FROM findings GROUP BY 1 ORDER BY 2 DESC LIMIT 1"]);
    // 10 theorem findings in the fixture, 7 distinct facts.
    assert_eq!(r, serde_json::json!([{"t": "theorem", "n": 7}]));
    let text = stdout_of(
        dir.path(),
        &[
            "query",
            "--db",
            db.to_str().unwrap(),
            "SELECT id, name FROM domains ORDER BY id LIMIT 2",
        ],
    );
    assert_eq!(
        text,
        "id        name\nalgebra   Algebra\nanalysis  Analysis\n(2 rows)\n"
    );
    for sql in [
        "DELETE FROM findings",
        "UPDATE findings SET title = ''",
        "DROP TABLE sources",
        "INSERT INTO domains VALUES ('x','y','z')",
    ] {
        let out = mk(dir.path())
            .args(["query", "--db"])
            .arg(&db)
            .arg(sql)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{sql}");
        assert!(
            stderr_line(&out).contains("refused: `mk query` runs read-only statements only"),
            "{sql}"
        );
    }
    let out = mk(dir.path())
        .args(["query", "--db"])
        .arg(&db)
        .arg("SELEC nonsense")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr_line(&out).contains("syntax error"));
    assert_eq!(
        mk_json(
            dir.path(),
            &[
                "query",
                "--db",
                db.to_str().unwrap(),
                "SELECT count(*) AS n FROM findings"
            ]
        )[0]["n"],
        11
    );
}

#[test]
fn record_validates_and_stores() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let d = db.to_str().unwrap();
    let r = mk_json(
        dir.path(),
        &[
            "record",
            "failure",
            "--db",
            d,
            "--problem",
            "Erdos-364",
            "--approach",
            "pigeonhole mod 8",
            "--why",
            "only 8 classes for 9 constraints",
            "--avoid",
            "small moduli",
            "--slot",
            "710",
        ],
    );
    assert_eq!(r["problem_id"], "erdos_364", "existing spelling reused");
    assert_eq!(r["domain_id"], "nt", "domain taken from the problem");
    assert_eq!(r["attempts"], 1);
    let again = mk_json(
        dir.path(),
        &[
            "record",
            "failure",
            "--db",
            d,
            "--problem",
            "erdos_364",
            "--approach",
            "pigeonhole mod 8",
            "--why",
            "still too weak",
        ],
    );
    assert_eq!(again["attempts"], 2);
    assert_eq!(again["strategy_id"], r["strategy_id"]);
    let hits = mk_json(dir.path(), &["search", "--db", d, "only 8 classes"]);
    assert_eq!(hits[0]["why_failed"], "only 8 classes for 9 constraints");

    let text = stdout_of(
        dir.path(),
        &[
            "record",
            "strategy",
            "--db",
            d,
            "--problem",
            "erdos_364",
            "--approach",
            "Pell equations",
            "--outcome",
            "partial",
            "--learned",
            "gives infinitely many pairs",
        ],
    );
    assert!(
        text.starts_with("Recorded strategy (partial) on erdos_364: strategy #"),
        "{text}"
    );
    let text = stdout_of(
        dir.path(),
        &[
            "record",
            "insight",
            "--db",
            d,
            "--title",
            "Powerful pairs come from Pell",
            "--text",
            "x^2 - 8y^2 = 1 gives consecutive powerful numbers",
            "--domain",
            "nt",
        ],
    );
    assert!(text.starts_with("Recorded insight: fact #"), "{text}");

    for (args, expect) in [
        (
            &[
                "record",
                "failure",
                "--problem",
                "p",
                "--approach",
                "a",
                "--why",
                "  ",
            ][..],
            "say why it failed",
        ),
        (
            &[
                "record",
                "failure",
                "--problem",
                " ",
                "--approach",
                "a",
                "--why",
                "w",
            ],
            "problem id must not be empty",
        ),
        (
            &[
                "record",
                "failure",
                "--problem",
                "p",
                "--approach",
                "a",
                "--why",
                "w",
                "--domain",
                "astro",
                "--new-problem",
            ],
            "unknown domain 'astro'",
        ),
        (
            &[
                "record",
                "failure",
                "--problem",
                "p",
                "--approach",
                "a",
                "--why",
                "w",
                "--slot=-3",
            ],
            "--slot must be a slot number",
        ),
        (
            &[
                "record",
                "failure",
                "--problem",
                "p\nq",
                "--approach",
                "a",
                "--why",
                "w",
            ],
            "single line",
        ),
    ] {
        let out = mk(dir.path())
            .args(args)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr_line(&out).contains(expect),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // clap rejects what it can: missing flags and unknown outcomes, exit 2.
    let out = mk(dir.path())
        .args([
            "record",
            "strategy",
            "--problem",
            "p",
            "--approach",
            "a",
            "--outcome",
            "won",
            "--db",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(
        "unknown outcome 'won' (expected one of: proven, partial, failed, in_flight, untried)"
    ));
    let out = mk(dir.path())
        .args([
            "record",
            "failure",
            "--problem",
            "p",
            "--approach",
            "a",
            "--db",
        ])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--why"));
}

#[test]
fn recommend_shrinks_lucky_successes_and_skips_failed_approaches() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let d = db.to_str().unwrap();
    let record = |problem: &str, approach: &str, outcome: &str| {
        mk(dir.path())
            .args([
                "record",
                "strategy",
                "--db",
                d,
                "--domain",
                "nt",
                "--problem",
                problem,
                "--approach",
                approach,
                "--outcome",
                outcome,
                "--new-problem",
            ])
            .assert()
            .success();
    };
    for i in 0..6 {
        record(&format!("nt_{i}"), "Induction", "proven");
    }
    record("nt_6", "induction", "failed");
    record("nt_7", "induction ", "failed");
    record("nt_8", "lucky trick", "proven");
    for i in 0..6 {
        record(&format!("nt_{i}"), "brute force", "failed");
    }
    mk(dir.path())
        .args([
            "record",
            "failure",
            "--db",
            d,
            "--problem",
            "nt_9",
            "--new-problem",
            "--domain",
            "nt",
            "--approach",
            "Induction",
            "--why",
            "no base case",
        ])
        .assert()
        .success();

    let r = mk_json(dir.path(), &["recommend", "number_theory", "--db", d]);
    assert_eq!(
        r["scope"],
        serde_json::json!({"kind": "domain", "domain": "nt"})
    );
    let order: Vec<&str> = r["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["technique"].as_str().unwrap())
        .collect();
    // Extracted: induction (slot 614, nt), native_decide is medium so not a success, QR + Euler (702).
    let pos = |t: &str| {
        order
            .iter()
            .position(|x| x.eq_ignore_ascii_case(t))
            .unwrap_or_else(|| panic!("{t} not in {order:?}"))
    };
    assert!(
        pos("induction") < pos("lucky trick"),
        "7 of 10 beats 1 of 1: {order:?}"
    );
    assert!(pos("lucky trick") < pos("brute force"), "{order:?}");
    let induction = &r["recommendations"][pos("induction")];
    assert_eq!(induction["successes"], 7.0, "6 recorded + 1 extracted file");
    assert_eq!(induction["failures"], 3.0);
    assert_eq!(r["excluded"], serde_json::json!([]));

    let r = mk_json(dir.path(), &["recommend", "nt-9", "--db", d]);
    assert_eq!(
        r["scope"],
        serde_json::json!({"kind": "problem", "problem": "nt_9", "domain": "nt"})
    );
    let excluded: Vec<&str> = r["excluded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["technique"].as_str().unwrap())
        .collect();
    assert_eq!(excluded.len(), 1);
    assert!(excluded[0].eq_ignore_ascii_case("induction"));
    assert!(!r["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .any(|x| x["technique"]
            .as_str()
            .unwrap()
            .eq_ignore_ascii_case("induction")));

    let text = stdout_of(dir.path(), &["recommend", "nt_9", "--db", d]);
    assert!(
        text.contains("Already failed here (not recommended)\n  - Induction (1 failed attempt)"),
        "{text}"
    );

    let out = mk(dir.path())
        .args(["recommend", "nonexistent_problem", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let line = stderr_line(&out);
    assert!(
        line.starts_with("mk: no problem nonexistent_problem")
            && line.contains("; nor is it a domain (algebra, "),
        "{line}"
    );
    // A near miss names the closest known ids, the same way from every command.
    for args in [
        &["recommend", "erdos_805"][..],
        &["find", "erdos_805"],
        &["context", "erdos_805"],
        &["failed", "--problem", "erdos_805"],
    ] {
        let out = mk(dir.path())
            .args(args)
            .arg("--db")
            .arg(&db)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            stderr_line(&out).starts_with("mk: no problem erdos_805; nearest: erdos_850"),
            "{args:?}: {}",
            stderr_line(&out)
        );
    }
    let out = mk(dir.path())
        .args(["find", "erdos 805", "--json", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let error: serde_json::Value =
        serde_json::from_str(String::from_utf8_lossy(&out.stderr).trim()).unwrap();
    assert_eq!(error["error"], "no problem erdos 805; nearest: erdos_850");
}

#[test]
fn help_without_a_database() {
    let dir = tempfile::tempdir().unwrap();
    for args in [&[][..], &["help"], &["--help"]] {
        let text = stdout_of(dir.path(), args);
        assert!(
            text.contains("Usage: mk")
                && text.contains("recommend")
                && text.contains("$MATH_FORGE_DB"),
            "{args:?}: {text}"
        );
    }
    let text = stdout_of(dir.path(), &["help", "search"]);
    assert!(
        text.contains("--domain") && text.contains("--type"),
        "{text}"
    );
    assert!(
        !dir.path().join(".math-forge").exists(),
        "help creates nothing"
    );
}

/// A recorded constraint (and fact) is the problem's own word: `mk context` shows it first,
/// within its default limit, however many extracted theorems the problem has.
#[test]
fn context_shows_recorded_constraints_and_facts_first() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("knowledge.db");
    // Names differ in letters: titles that differ only in digits are near-copies, shown once.
    let lemmas: Vec<(String, Option<String>, String)> = (0..12u8)
        .map(|i| (i, char::from(b'a' + i)))
        .map(|(i, c)| {
            let name = format!("lemma_{c}");
            (
                name.clone(),
                Some(name),
                format!("lemma_{c} : {i} ≤ {i} + 1"),
            )
        })
        .collect();
    write_demo_theorems(&db, &lemmas);
    let db = db.to_str().unwrap();
    for (kind, text) in [
        ("constraint", "n must be odd"),
        ("fact", "the sum is bounded by 2n"),
    ] {
        stdout_of(
            dir.path(),
            &[
                "record",
                kind,
                "--db",
                db,
                "--problem",
                "demo_problem",
                "--text",
                text,
            ],
        );
    }
    let text = stdout_of(dir.path(), &["context", "demo_problem", "--db", db]);
    let facts = text
        .split("Established facts:\n")
        .nth(1)
        .unwrap_or_default();
    let lines: Vec<&str> = facts.lines().take(2).collect();
    assert!(
        lines[0].starts_with("- constraint: n must be odd")
            && lines[1].starts_with("- fact: the sum is bounded by 2n"),
        "{text}"
    );
    let r = mk_json(dir.path(), &["context", "demo_problem", "--db", db]);
    assert_eq!(r["facts"].as_array().unwrap().len(), 8, "{r}");
    assert_eq!(r["facts"][0]["title"], "constraint: n must be odd");
}

/// A tracking.db nobody pointed at is no news; one that was named but is missing is said
/// once.
#[test]
fn a_missing_tracking_db_is_noted_only_when_named_and_once() {
    let dir = tempfile::tempdir().unwrap();
    let db = build_kb(dir.path());
    let db = db.to_str().unwrap();
    for args in [
        &["find", "erdos_850", "--db", db][..],
        &["failed", "--db", db],
        &["stats", "--db", db],
    ] {
        let out = mk(dir.path())
            .args(args)
            .env("CLAUDE_PROJECT_DIR", dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        let all = String::from_utf8_lossy(&out.stdout).to_string()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(!all.contains("note:"), "{args:?}: {all}");
    }
    let out = mk(dir.path())
        .args(["find", "erdos_850", "--db", db, "--tracking", "nope.db"])
        .output()
        .unwrap();
    let all = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        all.matches("tracking.db not found at nope.db").count(),
        1,
        "{all}"
    );
}

/// A newcomer's first `mk` before any knowledge base exists: the error names the command that
/// makes that very file (a bare `mk init` makes the folder's own, not the user-level one the
/// rule fell to; a `--db` path needs `--db` again), and following it works.
#[test]
fn a_missing_knowledge_base_names_the_command_that_makes_that_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = mk(dir.path()).args(["stats"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_line(&out);
    assert!(
        err.contains("`mf extract --all RESULTS_DIR`") && err.contains("`mk init --user`"),
        "{err}"
    );
    assert!(mk(dir.path())
        .args(["init", "--user"])
        .output()
        .unwrap()
        .status
        .success());
    let stats = mk_json(dir.path(), &["stats"]);
    assert!(
        stats
            .to_string()
            .contains(".local/share/math-forge/knowledge.db"),
        "mk init --user made the file the error named: {stats}"
    );

    let db = dir.path().join("elsewhere/k.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    let db_arg = db.to_str().unwrap();
    let out = mk(dir.path())
        .args(["--db", db_arg, "search", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_line(&out);
    assert!(
        err.contains(&format!("`mk init --db {db_arg}`"))
            && err.contains(&format!("`mf extract --db {db_arg} --all RESULTS_DIR`")),
        "{err}"
    );
    assert!(mk(dir.path())
        .args(["init", "--db", db_arg])
        .output()
        .unwrap()
        .status
        .success());
    assert!(db.is_file());
}

/// An unknown problem asked of an empty knowledge base says it is empty and how to fill it
/// (there is no nearest id to offer), from every command that takes a problem.
#[test]
fn an_unknown_problem_in_an_empty_knowledge_base_says_it_is_empty() {
    let dir = tempfile::tempdir().unwrap();
    assert!(mk(dir.path())
        .args(["init"])
        .output()
        .unwrap()
        .status
        .success());
    for args in [
        &["find", "erdos_850"][..],
        &["context", "erdos_850"],
        &["failed", "--problem", "erdos_850"],
        &[
            "record",
            "failure",
            "--problem",
            "erdos_850",
            "--approach",
            "a",
            "--why",
            "w",
        ],
    ] {
        let out = mk(dir.path()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr_line(&out);
        assert!(
            err.starts_with("mk: no problem erdos_850")
                && err
                    .contains("knowledge.db is empty: fill it with `mf extract --all RESULTS_DIR`"),
            "{args:?}: {err}"
        );
    }
    // A knowledge base with problems offers the nearest ids instead.
    let db = common::build_kb(dir.path());
    let out = mk(dir.path())
        .args(["--db", db.to_str().unwrap(), "find", "erdos_851"])
        .output()
        .unwrap();
    let err = stderr_line(&out);
    assert!(!err.contains("is empty"), "{err}");
}

/// `mk init` in the home folder warns that it makes the home folder a project (every folder
/// below it would read that knowledge base), and names `mk init --user`; elsewhere it says
/// nothing of the kind.
#[test]
fn mk_init_in_the_home_folder_warns_it_makes_home_a_project() {
    let home = tempfile::tempdir().unwrap();
    let out = mk(home.path()).args(["init"]).output().unwrap();
    assert!(out.status.success());
    let err = stderr_line(&out);
    assert!(
        err.starts_with("mk: warning: this makes your home folder a project")
            && err.contains("`mk init --user`"),
        "{err}"
    );
    let project = home.path().join("project");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::remove_dir_all(home.path().join(".math-forge")).unwrap();
    let out = mk(&project)
        .env("HOME", home.path())
        .args(["init"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(project.join(".math-forge/knowledge.db").is_file());
}

/// `mk context -n N` lists N entries whenever the problem has N that are no near-copies of
/// each other, however many near-copies come first in its order (it used to read 4×N rows
/// and stop there).
#[test]
fn context_fills_its_limit_past_a_run_of_near_copies() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("knowledge.db");
    // Written first, so listed last among equals: two distinct lemmas, then 20 whose titles
    // differ only in digits (near-copies of each other).
    let lemmas: Vec<(String, Option<String>, String)> = ["alpha", "beta"]
        .iter()
        .map(|s| format!("lemma_{s}"))
        .chain((0..20).map(|i| format!("copy_{i}")))
        .map(|name| (name.clone(), None, format!("{name} : 1 ≤ 2")))
        .collect();
    write_demo_theorems(&db, &lemmas);
    let db = db.to_str().unwrap();
    let r = mk_json(
        dir.path(),
        &["context", "demo_problem", "--db", db, "-n", "3"],
    );
    let titles: Vec<&str> = r["facts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles.len(), 3, "{r}");
    assert!(titles.contains(&"lemma_alpha (theorem)"), "{r}");
    assert!(titles.contains(&"lemma_beta (theorem)"), "{r}");
}

/// Writes into `db` one result file of problem `demo_problem` per (title stem, theorem name,
/// statement), each with one verified theorem titled `STEM (theorem)`, in this order.
fn write_demo_theorems(db: &std::path::Path, lemmas: &[(String, Option<String>, String)]) {
    use math_forge::kb::SourceRecord;
    use math_forge::kb::{content_hash, Confidence, FileItem, FindingType, Kb, NewFinding};
    let mut kb = Kb::open(db).unwrap();
    let items = lemmas
        .iter()
        .enumerate()
        .map(|(i, (stem, name, statement))| FileItem {
            source: SourceRecord {
                path: format!("/r/slot{i}_demo_result.lean"),
                content_hash: content_hash(statement.as_bytes()),
                problem_id: Some("demo_problem".into()),
                ..Default::default()
            },
            findings: vec![NewFinding {
                finding_type: FindingType::Theorem,
                title: format!("{stem} (theorem)"),
                description: "a proven lemma".into(),
                problem_id: Some("demo_problem".into()),
                theorem_name: name.clone(),
                theorem_statement: Some(statement.clone()),
                confidence: Confidence::Verified,
                ..Default::default()
            }],
            ..Default::default()
        });
    kb.write_batch(items).unwrap();
}
