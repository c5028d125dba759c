//! `mk init`: schema creation and the idempotent migration from tracking.db.

mod common;

use common::{build_tracking, mk, mk_json};
use math_forge::kb::Kb;

#[test]
fn migrates_tracking_db_by_the_spec_rules() {
    let dir = tempfile::tempdir().unwrap();
    let tracking = build_tracking(dir.path(), "tracking.sql");
    let db = dir.path().join("kb/knowledge.db");
    let r = mk_json(
        dir.path(),
        &[
            "init",
            "--db",
            db.to_str().unwrap(),
            "--from-tracking",
            tracking.to_str().unwrap(),
        ],
    );
    assert_eq!(r["created"], true);
    assert_eq!(r["schema_version"], math_forge::kb::SCHEMA_VERSION);
    let m = &r["migration"];
    // 7 proven_theorems: id 3 is incomplete and id 6 has no name.
    assert_eq!(
        m["theorems"],
        serde_json::json!({"added": 5, "updated": 0, "unchanged": 0, "skipped": 2})
    );
    assert_eq!(m["false_lemmas"]["added"], 3);
    // Approach 4 has an empty name.
    assert_eq!(
        m["failed_approaches"],
        serde_json::json!({"added": 3, "updated": 0, "unchanged": 0, "skipped": 1})
    );
    assert_eq!(m["strategies"]["added"], 3);
    assert_eq!(m["problems"]["added"], 6);

    let kb = Kb::open_existing(&db).unwrap();
    let q = |sql: &str| kb.query_read_only(sql).unwrap().rows;
    // Slot from the file name, uuid from the submission, domain refined from candidate_problems.
    let row = &q("SELECT source_slot, source_submission_uuid, domain_id, confidence, title, tags FROM findings WHERE theorem_name = 'erdos_850_triple_factors'")[0];
    assert_eq!(row[0], 614);
    assert_eq!(row[1], "0b7c2d5e-0001-4f00-9000-000000000614");
    assert_eq!(row[2], "nt");
    assert_eq!(row[3], "verified");
    assert_eq!(row[4], "erdos_850_triple_factors (theorem)");
    assert_eq!(row[5], "migrated");
    let row = &q("SELECT domain_id, problem_id, confidence, tags, counterexample FROM findings WHERE title = 'FALSE: local_cover_le_2'")[0];
    assert_eq!(
        row[..4],
        [
            "combinatorics",
            "tuza_nu4",
            "disproven",
            "false_lemma,aristotle_verified,migrated"
        ]
        .map(serde_json::Value::from)
    );
    assert_eq!(row[4], "K4 with a pendant triangle");
    // Failure linked to its submission's slot through the uuid; problem from frontier_id.
    let row = &q("SELECT source_slot, problem_id, tags, notes FROM findings WHERE title = 'FAILED: local cover induction'")[0];
    assert_eq!(row[0], 701);
    assert_eq!(row[1], "tuza_nu4");
    assert_eq!(row[2], "failure,false_lemma,migrated");
    // Unknown statuses are mapped, not dropped; a domain the taxonomy lacks ('set theory') is
    // unknown, never a default (issue 29).
    let rows = q("SELECT id, status, coalesce(domain_id, 'unknown') FROM problems ORDER BY id");
    let by_id: std::collections::HashMap<String, (String, String)> = rows
        .iter()
        .map(|r| {
            (
                r[0].as_str().unwrap().into(),
                (r[1].as_str().unwrap().into(), r[2].as_str().unwrap().into()),
            )
        })
        .collect();
    assert_eq!(by_id["erdos_364"], ("in_flight".into(), "nt".into()));
    assert_eq!(by_id["ft_p3"], ("proven".into(), "nt".into()));
    assert_eq!(by_id["kurepa"], ("open".into(), "unknown".into()));
    assert_eq!(by_id["putnam_2019_a1"], ("open".into(), "algebra".into()));
    kb.check_indexes().unwrap();
}

#[test]
fn a_second_run_adds_nothing_and_a_changed_row_is_updated() {
    let dir = tempfile::tempdir().unwrap();
    let tracking = build_tracking(dir.path(), "tracking.sql");
    let args = ["init", "--from-tracking", tracking.to_str().unwrap()];
    let first = mk_json(dir.path(), &args);
    // `mk init` makes the project's knowledge base, which every tool then finds from here.
    let project_kb = dir.path().join(".math-forge/knowledge.db");
    assert_eq!(first["knowledge_db"], project_kb.to_str().unwrap());
    assert!(!common::user_kb(dir.path()).exists());
    let count = |dir: &std::path::Path| -> i64 {
        let kb = Kb::open_existing(&dir.join(".math-forge/knowledge.db")).unwrap();
        kb.finding_count().unwrap()
    };
    let n = count(dir.path());
    assert_eq!(n, 11);

    let again = mk_json(dir.path(), &args);
    assert_eq!(again["created"], false);
    for table in [
        "theorems",
        "false_lemmas",
        "failed_approaches",
        "strategies",
        "problems",
    ] {
        assert_eq!(again["migration"][table]["added"], 0, "{table}: {again:#}");
        assert_eq!(
            again["migration"][table]["unchanged"], first["migration"][table]["added"],
            "{table}"
        );
    }
    assert_eq!(count(dir.path()), n);

    // The pipeline corrects a false lemma's explanation: the finding follows, nothing is added.
    let conn = rusqlite::Connection::open(&tracking).unwrap();
    conn.execute(
        "UPDATE false_lemmas SET why_false = 'needs 3 edges in K4 plus a triangle' WHERE id = 1",
        [],
    )
    .unwrap();
    drop(conn);
    let third = mk_json(dir.path(), &args);
    assert_eq!(third["migration"]["false_lemmas"]["updated"], 1);
    assert_eq!(third["migration"]["false_lemmas"]["added"], 0);
    assert_eq!(count(dir.path()), n);
    let hits = mk_json(dir.path(), &["search", "plus", "triangle"]);
    assert_eq!(
        hits[0]["title"], "FALSE: local_cover_le_2",
        "the FTS index follows updates"
    );

    // The text report says so.
    let text = common::stdout_of(dir.path(), &args);
    assert!(text.contains("Total: 0 added"), "{text}");
}

#[test]
fn older_tracking_schema_gives_notes_not_errors() {
    let dir = tempfile::tempdir().unwrap();
    let tracking = build_tracking(dir.path(), "tracking_old.sql");
    let r = mk_json(
        dir.path(),
        &["init", "--from-tracking", tracking.to_str().unwrap()],
    );
    let m = &r["migration"];
    // Without proof_complete, theorems are migrated but not as verified.
    assert_eq!(m["theorems"]["added"], 2);
    assert_eq!(m["false_lemmas"]["added"], 0);
    assert_eq!(
        m["failed_approaches"]["added"], 1,
        "rowid stands in for the missing id column"
    );
    assert_eq!(m["problems"]["added"], 0);
    let notes: Vec<String> = m["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect();
    assert!(
        notes.iter().any(|n| n.contains("no table false_lemmas")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("no table candidate_problems")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("no column proof_complete")),
        "{notes:?}"
    );
    let hits = mk_json(dir.path(), &["search", "erdos_850_base_case"]);
    assert_eq!(hits[0]["confidence"], "medium");
    assert_eq!(hits[0]["source_slot"], 101);

    // Re-running is still idempotent.
    let again = mk_json(
        dir.path(),
        &["init", "--from-tracking", tracking.to_str().unwrap()],
    );
    assert_eq!(again["migration"]["theorems"]["added"], 0);
    assert_eq!(again["migration"]["failed_approaches"]["added"], 0);

    // find and failed read the old schema without errors.
    let out = mk(dir.path())
        .args(["find", "erdos_850", "--tracking"])
        .arg(&tracking)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("slot101_erdos_850_early_result.lean"),
        "matched by file name without problem_id:\n{text}"
    );
    assert!(
        text.contains("note:") && text.contains("no table false_lemmas"),
        "{text}"
    );
}

#[test]
fn init_uses_the_resolved_tracking_db_and_reports_a_missing_one() {
    let dir = tempfile::tempdir().unwrap();
    let out = mk(dir.path()).arg("init").output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("No tracking.db at") && text.contains("nothing migrated"),
        "{text}"
    );

    std::fs::create_dir(dir.path().join("submissions")).unwrap();
    let t = build_tracking(dir.path(), "tracking.sql");
    std::fs::rename(t, dir.path().join("submissions/tracking.db")).unwrap();
    let r = mk_json(dir.path(), &["init"]);
    assert_eq!(r["migration"]["theorems"]["added"], 5);

    let out = mk(dir.path())
        .args(["init", "--from-tracking", "nope.db"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("tracking.db not found at nope.db"));

    // A failed init creates nothing.
    let fresh = dir.path().join("fresh/knowledge.db");
    let out = mk(dir.path())
        .args(["init", "--from-tracking", "nope.db", "--db"])
        .arg(&fresh)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(!fresh.exists() && !fresh.parent().unwrap().exists());
}

#[test]
fn init_user_makes_the_user_level_knowledge_base() {
    let dir = tempfile::tempdir().unwrap();
    let r = mk_json(dir.path(), &["init", "--user"]);
    assert_eq!(
        r["knowledge_db"],
        common::user_kb(dir.path()).to_str().unwrap()
    );
    assert!(!dir.path().join(".math-forge").exists());
    // With no project knowledge base, every command finds it.
    let stats = mk_json(dir.path(), &["stats"]);
    assert_eq!(stats["knowledge_db"]["path"], r["knowledge_db"]);
}

#[test]
fn adopts_a_database_made_by_the_bash_tooling() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("knowledge.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(&std::fs::read_to_string(common::fixture("kb_legacy_v0.sql")).unwrap())
        .unwrap();
    drop(conn);
    let r = mk_json(dir.path(), &["init", "--db", db.to_str().unwrap()]);
    assert_eq!(r["upgraded_from"], 0);
    assert_eq!(r["schema_version"], math_forge::kb::SCHEMA_VERSION);
    // Old rows are findable by words and by identifier.
    let hits = mk_json(
        dir.path(),
        &["search", "--db", db.to_str().unwrap(), "legacy_lemma_name"],
    );
    assert_eq!(hits[0]["match"], "exact");
    let hits = mk_json(
        dir.path(),
        &["search", "--db", db.to_str().unwrap(), "cy_lemma"],
    );
    assert_eq!(hits[0]["theorem_name"], "legacy_lemma_name");
    Kb::open_existing(&db).unwrap().check_indexes().unwrap();
}

/// What tracking.db says of a problem's status is kept as recorded (`recorded_status`) and
/// stands after extractions recompute every status from the files: on problems no file names,
/// and on one whose only file (a sketch with a hole) proves nothing.
#[test]
fn tracking_status_is_kept_as_recorded_through_extraction() {
    let dir = tempfile::tempdir().unwrap();
    let tracking = build_tracking(dir.path(), "tracking.sql");
    let db = dir.path().join("knowledge.db");
    let d = db.to_str().unwrap();
    mk_json(
        dir.path(),
        &[
            "init",
            "--db",
            d,
            "--from-tracking",
            tracking.to_str().unwrap(),
        ],
    );
    let results = dir.path().join("results");
    std::fs::create_dir_all(&results).unwrap();
    std::fs::write(
        results.join("erdos_364.lean"),
        "/-- Erdős Problem #364 -/\ntheorem erdos_364 (n : Nat) : n + 0 = n := by\n  sorry\n",
    )
    .unwrap();
    let statuses = || {
        let kb = Kb::open_existing(&db).unwrap();
        kb.query_read_only("SELECT id, status, recorded_status FROM problems ORDER BY id")
            .unwrap()
            .rows
    };
    let before = statuses();
    let out = assert_cmd::Command::new(env!("CARGO_BIN_EXE_mf"))
        .args(["extract", "--db", d, "--all"])
        .arg(&results)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kb = Kb::open_existing(&db).unwrap();
    let files: i64 = kb
        .query_read_only("SELECT count(*) FROM sources WHERE problem_id = 'erdos_364'")
        .unwrap()
        .rows[0][0]
        .as_i64()
        .unwrap();
    assert_eq!(files, 1, "the sketch is a file of erdos_364");
    drop(kb);
    let after = statuses();
    assert_eq!(after, before);
    let row = |id: &str| {
        after
            .iter()
            .find(|r| r[0] == id)
            .map(|r| {
                (
                    r[1].as_str().unwrap().to_string(),
                    r[2].as_str().map(str::to_string),
                )
            })
            .unwrap()
    };
    assert_eq!(
        row("erdos_364"),
        ("in_flight".into(), Some("in_flight".into()))
    );
    assert_eq!(row("ft_p3"), ("proven".into(), Some("proven".into())));
    assert_eq!(row("kurepa"), ("open".into(), Some("open".into())));
    // A second run of the migration leaves it so.
    mk_json(
        dir.path(),
        &[
            "init",
            "--db",
            d,
            "--from-tracking",
            tracking.to_str().unwrap(),
        ],
    );
    assert_eq!(statuses(), after);
}

/// The project's knowledge base is generated and local: `mk init` keeps `.math-forge/` out of
/// git (a `.gitignore` of its own, left as it is when there is one), so `git add .` in a Lean
/// project never commits the database, its WAL files or the journal's spool.
#[test]
fn the_project_knowledge_base_is_kept_out_of_git() {
    let dir = tempfile::tempdir().unwrap();
    common::mk(dir.path()).arg("init").assert().success();
    let ignore = dir.path().join(".math-forge/.gitignore");
    let text = std::fs::read_to_string(&ignore).unwrap();
    assert_eq!(text.lines().last(), Some("*"), "{text}");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    if git(&["init", "-q"]).status.success() {
        let out = git(&["status", "--porcelain", "--untracked-files=all"]);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "",
            "nothing to commit"
        );
    }
    std::fs::write(&ignore, "knowledge.db*\n").unwrap();
    common::mk(dir.path()).arg("init").assert().success();
    assert_eq!(std::fs::read_to_string(&ignore).unwrap(), "knowledge.db*\n");
}
