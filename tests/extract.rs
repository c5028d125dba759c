//! `mf extract`: findings from hand-written result files, idempotence, replacement, bad input.

use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use rusqlite::Connection;
use serde_json::Value;
use tempfile::TempDir;

mod common;

use common::layout::copy_tree;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/results")
}

/// A scratch project with copies of the result fixtures and a knowledge.db path.
struct Project {
    dir: TempDir,
}

impl Project {
    fn new() -> Project {
        let dir = TempDir::new().unwrap();
        fs::create_dir(dir.path().join("results")).unwrap();
        for entry in fs::read_dir(fixtures()).unwrap() {
            let entry = entry.unwrap();
            fs::copy(
                entry.path(),
                dir.path().join("results").join(entry.file_name()),
            )
            .unwrap();
        }
        Project { dir }
    }

    /// A scratch project with a copy of another fixture directory (subdirectories included).
    fn with_fixtures(name: &str) -> Project {
        let dir = TempDir::new().unwrap();
        let source = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name);
        copy_tree(&source, &dir.path().join("results"));
        Project { dir }
    }

    fn results(&self) -> PathBuf {
        self.dir.path().join("results")
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("kb/knowledge.db")
    }

    fn extract(&self, args: &[&str]) -> (Value, String, i32) {
        let out = Command::cargo_bin("mf")
            .unwrap()
            .arg("extract")
            .arg("--db")
            .arg(self.db())
            .arg("--json")
            .args(args)
            .output()
            .unwrap();
        let stdout = String::from_utf8(out.stdout).unwrap();
        let value = regroup(&stdout);
        (
            value,
            String::from_utf8(out.stderr).unwrap(),
            out.status.code().unwrap(),
        )
    }

    fn extract_all(&self) -> (Value, String, i32) {
        let results = self.results();
        self.extract(&["--all", results.to_str().unwrap()])
    }

    fn conn(&self) -> Connection {
        Connection::open(self.db()).unwrap()
    }

    /// `finding_type` counts for findings from files whose name contains `file`.
    fn types(&self, file: &str) -> Vec<(String, i64)> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare(
                // A fact counts in every file it occurs in.
                "SELECT finding_type, COUNT(*) FROM (
                    SELECT f.finding_type FROM findings f JOIN sources s ON s.id = f.source_id
                    WHERE f.fact_key IS NULL AND s.path LIKE ?1
                    UNION ALL
                    SELECT f.finding_type FROM finding_sources fs
                    JOIN findings f ON f.id = fs.finding_id JOIN sources s ON s.id = fs.source_id
                    WHERE s.path LIKE ?1)
                 GROUP BY finding_type ORDER BY finding_type",
            )
            .unwrap();
        stmt.query_map([format!("%{file}%")], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    fn count(&self, sql: &str) -> i64 {
        self.conn().query_row(sql, [], |r| r.get(0)).unwrap()
    }
}

fn pairs(p: &[(&str, i64)]) -> Vec<(String, i64)> {
    p.iter().map(|(t, n)| (t.to_string(), *n)).collect()
}

#[test]
fn result_files_become_findings_by_the_spec_and_aristotles_verdicts() {
    let p = Project::new();
    let (v, stderr, code) = p.extract_all();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["summary"]["files"], 3);
    assert_eq!(v["summary"]["added"], 3);
    assert_eq!(v["summary"]["files_with_parse_errors"], 0);

    assert_eq!(
        p.types("slot614_"),
        pairs(&[("failure", 2), ("false_lemma", 1), ("theorem", 2)])
    );
    // slot615 has no header and holes: an input. It asks (an insight listing its holes) and
    // fails nothing; graph_coloring has neither header nor holes: nobody vouches for it, so its
    // theorems are medium and it teaches no technique.
    assert_eq!(
        p.types("slot615_"),
        pairs(&[("insight", 1), ("theorem", 2)])
    );
    assert_eq!(p.types("graph_coloring"), pairs(&[("theorem", 2)]));

    let conn = p.conn();
    let (name, statement, counterexample, confidence): (String, String, String, String) = conn
        .query_row(
            "SELECT theorem_name, theorem_statement, counterexample, confidence FROM findings \
             WHERE finding_type = 'false_lemma'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(name, "Erdos850.all_odd_prime");
    assert_eq!(statement, "all_odd_prime (p : ℕ) (hp : p.Prime) : Odd p");
    assert!(
        counterexample.starts_with("theorem all_odd_prime_neg"),
        "{counterexample}"
    );
    assert_eq!(confidence, "disproven");

    let why: String = conn
        .query_row(
            "SELECT why_failed FROM findings WHERE theorem_name = 'Erdos850.uses_missing'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(why.contains("Unknown identifier `prime_le_cube`"), "{why}");
    let why: String = conn
        .query_row(
            "SELECT why_failed FROM findings WHERE theorem_name = 'Erdos850.triple_factors'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(why, "Aristotle failed to find a proof");

    // Theorem findings: exact statement, the declaration's own technique, confidence.
    let rows: Vec<(String, String, String, String)> = conn
        .prepare(
            "SELECT theorem_name, theorem_statement, proof_technique, confidence FROM findings \
             WHERE finding_type = 'theorem' ORDER BY theorem_name",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let expected = [
        (
            "Erdos850.prime_le_sq",
            "prime_le_sq (p : ℕ) (hp : p.Prime) : p ≤ p ^ 2",
            "nonlinear arithmetic (nlinarith)",
            "medium",
        ),
        (
            "Erdos850.two_mul_pos",
            "two_mul_pos (n : ℕ) (hn : 0 < n) : 0 < 2 * n",
            "linear arithmetic (omega)",
            "medium",
        ),
        (
            "a1",
            "a1 : (1 : ℕ) + 1 = 2",
            "numerical normalization",
            "medium",
        ),
        (
            "adj_symm'",
            "adj_symm' {V : Type*} (G : SimpleGraph V) {a b : V} (h : G.Adj a b) : G.Adj b a",
            "exact",
            "medium",
        ),
        (
            "by_induction",
            "by_induction (n : ℕ) : 0 ≤ n",
            "induction",
            "medium",
        ),
        ("s3", "s3 (n : ℕ) (h : 0 < n) : 1 ≤ n", "exact", "medium"),
    ];
    let expected: Vec<(String, String, String, String)> = expected
        .iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        .collect();
    assert_eq!(rows, expected);

    // Sources: header uuid, slot, counts.
    let (uuid, slot, sorries, problem): (String, i64, i64, String) = conn
        .query_row(
            "SELECT aristotle_uuid, slot, sorry_count, problem_id FROM sources WHERE path LIKE '%slot614_%'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .unwrap();
    assert_eq!(uuid, "0b7a4f0e-1111-4c3e-9a55-8f1d2c3b4a5e");
    assert_eq!((slot, sorries, problem.as_str()), (614, 2, "erdos_850"));
    let domain: String = conn
        .query_row(
            "SELECT domain_id FROM problems WHERE id = 'graph_coloring_sketch'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(domain, "combinatorics");
    assert_eq!(
        p.count("SELECT COUNT(*) FROM problems WHERE id = 'erdos_850'"),
        1
    );
}

#[test]
fn a_rerun_adds_nothing_and_a_changed_file_is_replaced_whole() {
    let p = Project::new();
    let (_, _, code) = p.extract_all();
    assert_eq!(code, 0);
    let total = p.count("SELECT COUNT(*) FROM findings");

    let (v, _, code) = p.extract_all();
    assert_eq!(code, 0);
    assert_eq!(v["summary"]["unchanged"], 3);
    assert_eq!(v["summary"]["occurrences_added"], 0);
    assert_eq!(v["summary"]["occurrences_unchanged"], total);
    assert_eq!(p.count("SELECT COUNT(*) FROM findings"), total);

    // Close one hole: the file's findings are replaced, nothing is duplicated.
    let file = p.results().join("slot615_erdos_850_sketch_result.lean");
    let text = fs::read_to_string(&file).unwrap();
    fs::write(
        &file,
        text.replacen(
            "theorem s1 (n : ℕ) : n ≤ n ^ 2 := by\n  sorry",
            "theorem s1 (n : ℕ) : n ≤ n ^ 2 := by\n  nlinarith",
            1,
        ),
    )
    .unwrap();
    let (v, _, code) = p.extract_all();
    assert_eq!(code, 0);
    assert_eq!(
        (
            v["summary"]["replaced"].as_u64(),
            v["summary"]["unchanged"].as_u64()
        ),
        (Some(1), Some(2))
    );
    assert_eq!(v["summary"]["occurrences_removed"], 3);
    // The two other files keep their findings, and say so.
    assert_eq!(v["summary"]["occurrences_unchanged"], total - 3);
    // The counts add up: occurrences move by what was added and removed, and the facts the
    // summary reports are the rows stored (what `mk stats` counts).
    let n = |v: &Value| v.as_i64().unwrap();
    let s = &v["summary"];
    assert_eq!(
        n(&s["after"]["occurrences"]),
        n(&s["before"]["occurrences"]) + n(&s["occurrences_added"]) - n(&s["occurrences_removed"]),
        "{s}"
    );
    assert_eq!(
        n(&s["after"]["facts"]),
        p.count("SELECT COUNT(*) FROM findings"),
        "{s}"
    );
    assert_eq!(
        p.types("slot615_"),
        pairs(&[("insight", 1), ("theorem", 3)])
    );
    assert_eq!(p.count("SELECT COUNT(*) FROM findings"), total + 1);
    // The full-text index follows the table: the removed failure is no longer found.
    assert_eq!(
        p.count("SELECT COUNT(*) FROM findings_fts WHERE findings_fts MATCH '\"Failed attempt\"'"),
        0
    );
    p.conn()
        .execute(
            "INSERT INTO findings_fts(findings_fts) VALUES('integrity-check')",
            [],
        )
        .expect("FTS index consistent with findings");
}

#[test]
fn single_files_take_slot_and_problem_overrides() {
    let p = Project::new();
    let file = p.results().join("graph_coloring_sketch.lean");
    let (v, stderr, code) = p.extract(&[
        file.to_str().unwrap(),
        "--slot",
        "77",
        "--problem-id",
        "ramsey_r33",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["summary"]["files"], 1);
    assert_eq!(
        p.count(
            "SELECT COUNT(*) FROM findings WHERE source_slot = 77 AND problem_id = 'ramsey_r33'"
        ),
        2
    );
}

#[test]
fn bad_files_are_reported_and_the_rest_is_stored() {
    let p = Project::new();
    fs::write(
        p.results().join("slot900_gzipped_result.lean"),
        b"\x1f\x8b\x08\x00\x00\x00garbage",
    )
    .unwrap();
    fs::write(
        p.results().join("slot901_latin1_result.lean"),
        b"-- caf\xe9\n",
    )
    .unwrap();
    // Under a directory, files that are not Lean text are skipped: a warning each, a count,
    // exit 0.
    let (v, stderr, code) = p.extract_all();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["summary"]["added"], 3);
    assert_eq!(v["summary"]["failed"], 0);
    assert_eq!(v["skipped"], 2);
    assert!(
        stderr.contains("{\"path\":")
            && stderr.contains("\"warning\":")
            && stderr.contains("slot900_gzipped_result.lean: binary file"),
        "{stderr}"
    );
    assert!(
        stderr.contains("slot901_latin1_result.lean:1: invalid UTF-8"),
        "{stderr}"
    );
    // Skipped, not failed, in each file's report too.
    let skipped: Vec<&Value> = v["files"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["status"] == "skipped")
        .collect();
    assert_eq!(skipped.len(), 2);
    assert!(skipped.iter().all(|f| f["not_text"] == true));
    assert!(v["files"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["status"] != "failed"));
    assert!(p.count("SELECT COUNT(*) FROM findings") > 0);

    // --strict makes them errors; a file named on the command line is always one.
    let results = p.results();
    let (v, _, code) = p.extract(&["--strict", "--all", results.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(v["summary"]["failed"], 2);
    assert_eq!(v["skipped"], 0);
    let named = results.join("slot900_gzipped_result.lean");
    let (v, stderr, code) = p.extract(&[named.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(v["summary"]["failed"], 1);
    assert!(!stderr.contains("warning"), "{stderr}");
}

#[test]
fn usage_mistakes_are_explained() {
    let p = Project::new();
    let results = p.results();
    let (_, stderr, code) = p.extract(&[results.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("is a directory; use `mf extract --all"),
        "{stderr}"
    );
    let (_, stderr, code) = p.extract(&["missing_result.lean"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("missing_result.lean: no such file or directory"),
        "{stderr}"
    );
    // A failed run leaves no new file behind: not for a missing input, not for one that is
    // not Lean text (read, failed, the new database removed again).
    assert!(!p.db().exists() && !p.db().parent().unwrap().exists());
    let binary = p.dir.path().join("slot9_binary_result.lean");
    fs::write(&binary, b"\x1f\x8b\x08\x00").unwrap();
    let (v, _, code) = p.extract(&[binary.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(v["summary"]["failed"], 1, "{v}");
    assert_eq!(v["db"], Value::Null, "{v}");
    assert!(!p.db().parent().unwrap().exists());
    Command::cargo_bin("mf")
        .unwrap()
        .args(["extract", "--all", "x", "--slot", "3"])
        .assert()
        .code(2);
}

/// Many result files (copies of the fixtures under distinct names) for runs that take a while.
fn many_results(p: &Project, copies: usize) -> PathBuf {
    let dir = p.dir.path().join("many");
    fs::create_dir_all(&dir).unwrap();
    for entry in fs::read_dir(fixtures()).unwrap() {
        let entry = entry.unwrap();
        let text = fs::read_to_string(entry.path()).unwrap();
        for i in 0..copies {
            let name = format!("slot{}_{}", 1000 + i, entry.file_name().to_string_lossy());
            // A distinct comment per copy, so every file has its own content hash.
            fs::write(dir.join(name), format!("-- copy {i}\n{text}")).unwrap();
        }
    }
    dir
}

fn assert_consistent(p: &Project) {
    let conn = p.conn();
    let ok: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    conn.execute(
        "INSERT INTO findings_fts(findings_fts) VALUES('integrity-check')",
        [],
    )
    .expect("FTS index consistent with findings");
    let orphans: i64 = conn
        .query_row(
            "SELECT COUNT(*) FROM findings WHERE source_id IS NOT NULL \
             AND source_id NOT IN (SELECT id FROM sources)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(orphans, 0, "findings of a source that was never committed");
}

#[test]
fn two_extractions_at_once_share_the_database() {
    let p = Project::new();
    let many = many_results(&p, 40);
    let half = p.dir.path().join("half");
    fs::create_dir(&half).unwrap();
    for entry in fs::read_dir(&many).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .contains("graph")
        {
            fs::rename(&path, half.join(path.file_name().unwrap())).unwrap();
        }
    }
    let spawn = |dir: &Path| {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("mf"))
            .arg("extract")
            .arg("--db")
            .arg(p.db())
            .arg("--all")
            .arg(dir)
            .output()
            .unwrap()
    };
    // Create the schema first so both runs start on an existing database.
    Command::cargo_bin("mf")
        .unwrap()
        .args(["extract", "--db"])
        .arg(p.db())
        .arg("--all")
        .arg(p.results())
        .assert()
        .success();
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| spawn(&many));
        let b = s.spawn(|| spawn(&half));
        (a.join().unwrap(), b.join().unwrap())
    });
    for out in [&a, &b] {
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!String::from_utf8_lossy(&out.stderr).contains("locked"));
    }
    assert_eq!(p.count("SELECT COUNT(*) FROM sources"), 3 + 3 * 40);
    assert_consistent(&p);
}

#[test]
fn an_interrupted_run_leaves_a_consistent_database_and_a_rerun_finishes() {
    let p = Project::new();
    let many = many_results(&p, 150);
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("mf"))
        .arg("extract")
        .arg("--db")
        .arg(p.db())
        .arg("--all")
        .arg(&many)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once the database has its whole schema, most likely mid-run (a run that
    // already finished must pass the same checks). Waiting for the file alone could kill it
    // before the schema's first step committed: an empty database, which holds nothing to be
    // inconsistent about and has no index to check.
    let schema_complete = || {
        rusqlite::Connection::open_with_flags(p.db(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .and_then(|c| c.query_row("PRAGMA user_version", [], |r| r.get::<_, i64>(0)))
            .is_ok_and(|v| v == math_forge::kb::SCHEMA_VERSION)
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !schema_complete() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    std::thread::sleep(std::time::Duration::from_millis(150));
    child.kill().unwrap();
    child.wait().unwrap();
    assert_consistent(&p);

    let many_str = many.to_str().unwrap().to_string();
    let (v, stderr, code) = p.extract(&["--all", &many_str]);
    assert_eq!(code, 0, "{stderr}");
    let files = v["summary"]["files"].as_u64().unwrap();
    assert_eq!(files, 3 * 150);
    assert_eq!(p.count("SELECT COUNT(*) FROM sources"), 3 * 150);
    // Exactly the findings a single uninterrupted run stores: per set of the three files, 4
    // findings of their own and 6 theorems, which are the same 6 facts in every set (one row
    // each, with an occurrence per file).
    assert_eq!(p.count("SELECT COUNT(*) FROM findings"), 4 * 150 + 6);
    assert_eq!(p.count("SELECT COUNT(*) FROM finding_sources"), 6 * 150);
    assert_consistent(&p);
}

/// A result copied to another path (a prover's result file and the project it was unpacked
/// into) is parsed once but stored as its own source, with the slot its own name says; its
/// problem is what its content says (theorems named after erdos_850), which a name that says
/// another problem does not override.
#[test]
fn a_copy_at_another_path_is_its_own_source() {
    let p = Project::new();
    let original = p.results().join("slot614_erdos_850_triples_result.lean");
    let copy_dir = p.results().join("unpacked");
    fs::create_dir(&copy_dir).unwrap();
    fs::copy(&original, copy_dir.join("slot700_erdos_9_copy_result.lean")).unwrap();

    let (v, stderr, code) = p.extract_all();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["summary"]["added"], 4);
    assert_eq!(
        p.types("slot700_"),
        pairs(&[("failure", 2), ("false_lemma", 1), ("theorem", 2)])
    );
    assert_eq!(p.types("slot700_"), p.types("slot614_"));
    let slots_and_problems = |file: &str| -> (i64, String) {
        p.conn()
            .query_row(
                "SELECT slot, problem_id FROM sources WHERE path LIKE ?1",
                [format!("%{file}%")],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap()
    };
    assert_eq!(slots_and_problems("slot614_"), (614, "erdos_850".into()));
    assert_eq!(slots_and_problems("slot700_"), (700, "erdos_850".into()));
}

/// `sources` as the tests read it: path below `results/`, slot, problem id, uuid.
type SourceRow = (String, Option<i64>, Option<String>, Option<String>);

/// One text column of the finding of `finding_type` about `theorem` (or about the file, for
/// `theorem = ""`) from files whose name contains `file`.
fn column(p: &Project, column: &str, finding_type: &str, file: &str, theorem: &str) -> String {
    p.conn()
        .query_row(
            &format!(
                "SELECT {column} FROM findings WHERE finding_type = ?1 AND source_file LIKE ?2 \
                 AND coalesce(theorem_name, '') = ?3"
            ),
            rusqlite::params![finding_type, format!("%{file}%"), theorem],
            |r| r.get(0),
        )
        .unwrap_or_else(|e| panic!("{finding_type} {theorem} in {file}: {e}"))
}

#[test]
fn aristotles_disproofs_repeated_verdicts_and_processing_errors() {
    let p = Project::with_fixtures("results_aristotle");
    let (v, stderr, code) = p.extract_all();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["summary"]["added"], 5);

    // Code inside the disproofs is not counted; the two stacked "failed to find a proof"
    // comments are one failure; more than 2 sorries make the file a failed attempt.
    assert_eq!(
        p.types("slot700_"),
        pairs(&[("failure", 2), ("false_lemma", 2), ("theorem", 1)])
    );
    // The negation is the disproof's `¬` theorem, not the claim it restates at the end …
    let described = column(
        &p,
        "description",
        "false_lemma",
        "slot700_",
        "weight_le_five",
    );
    assert!(
        described
            == "Aristotle proved the negation of weight_le_five: \
                weight_le_five_false : ¬ (∀ (s : Finset ℕ), s.card ≤ 4 → weight s ≤ 5)",
        "{described}"
    );
    // … and, when the disproof only restates the claim (`negate_state`), the claim negated.
    let described = column(&p, "description", "false_lemma", "slot700_", "card_pos");
    assert!(
        described == "Aristotle proved the negation of card_pos: ¬ (∀ (s : Finset ℕ), 0 < s.card)",
        "{described}"
    );
    assert_eq!(
        column(&p, "proof_technique", "theorem", "slot700_", "weight_empty"),
        "reflexivity (rfl)"
    );

    // A header that quotes `/--` never closes (Lean nests comments): the file has no code, but
    // its uuid is still read and Aristotle's processing error is kept.
    assert_eq!(p.types("slot701_"), pairs(&[("failure", 1)]));
    let why = column(&p, "why_failed", "failure", "slot701_", "");
    assert_eq!(
        why,
        "Aristotle encountered an error processing this file: At line 12, column 2:\n\
         unexpected token '/--'; expected 'lemma'"
    );
    // Lean rejected the file: its declarations may not even elaborate, so none is a theorem;
    // the failure says what happened.
    assert_eq!(p.types("slot702_"), pairs(&[("failure", 1)]));

    // A verdict followed by other commands, not by a declaration, is about the whole file.
    assert_eq!(
        p.types("slot703_"),
        pairs(&[("failure", 1), ("theorem", 1)])
    );
    assert_eq!(
        column(&p, "title", "failure", "slot703_", ""),
        "Aristotle failed to load this code (slot703)"
    );
    assert!(column(&p, "why_failed", "failure", "slot703_", "")
        .ends_with("Unexpected axioms were added during verification: ['harmonicSorry476311', 'edges_card']"));
    assert_eq!(
        column(&p, "confidence", "theorem", "slot703_", "uses_axiom"),
        "low"
    );
    assert_eq!(
        column(&p, "notes", "theorem", "slot703_", "uses_axiom"),
        "conditional; waits on: edges_card (axiom); sorry=0"
    );

    let conn = p.conn();
    let sources: Vec<SourceRow> = conn
        .prepare(
            "SELECT substr(path, instr(path, 'results/') + 8), slot, problem_id, aristotle_uuid \
             FROM sources ORDER BY path",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let owned = |path: &str, slot: Option<i64>, problem: Option<&str>, uuid: &str| {
        (
            path.to_string(),
            slot,
            problem.map(str::to_string),
            Some(uuid.to_string()),
        )
    };
    assert_eq!(
        sources,
        vec![
            owned(
                "slot700_tuza_nu4_exchange_aristotle.lean",
                Some(700),
                Some("tuza_nu4"),
                "5e1f0c2a-7d41-4b8e-9a31-2c6f8e0d4b17"
            ),
            owned(
                "slot701_v2_aristotle.lean",
                Some(701),
                None,
                "9c2d4e6f-0a1b-4c3d-8e5f-6a7b8c9d0e1f"
            ),
            owned(
                "slot702_tau_bound_result.lean",
                Some(702),
                Some("tau_bound"),
                "1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d"
            ),
            owned(
                "slot703_edges_card_aristotle.lean",
                Some(703),
                Some("edges_card"),
                "7b8c9d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"
            ),
            // A generic name is read from its directories: the problem from the batch
            // directory, the uuid from the unpacked request.
            owned(
                "yolo_w2_e672_chabauty_extracted/e32a4620-7495-4654-b680-0996c098bc9a_aristotle/\
                 RequestProject/Main.lean",
                None,
                Some("erdos_672"),
                "e32a4620-7495-4654-b680-0996c098bc9a"
            ),
        ]
    );
    // An unpacked project file has no header: nothing says the run finished, so it teaches no
    // technique; but Aristotle built the project and compiled its files, so a complete proof
    // resting on no hole is high, as in a single-file output that compiled (issue 29).
    assert_eq!(p.types("Main.lean"), pairs(&[("theorem", 1)]));
    assert_eq!(
        column(
            &p,
            "confidence",
            "theorem",
            "Main.lean",
            "Erdos672.four_cubes_small"
        ),
        "high"
    );
}

#[test]
fn slot_and_problem_given_for_an_unchanged_file_correct_what_is_stored() {
    let p = Project::with_fixtures("results_aristotle");
    let file = p.results().join("slot702_tau_bound_result.lean");
    let file = file.to_str().unwrap();
    let (_, stderr, code) = p.extract(&[file]);
    assert_eq!(code, 0, "{stderr}");
    let submissions = |id: &str| {
        p.count(&format!(
            "SELECT coalesce(sum(submission_count), -1) FROM problems WHERE id = '{id}'"
        ))
    };
    assert_eq!(submissions("tau_bound"), 1);

    let (v, _, code) = p.extract(&[file, "--slot", "42", "--problem-id", "erdos_42"]);
    assert_eq!(code, 0);
    assert_eq!(v["files"][0]["status"], "replaced");
    assert_eq!(
        p.count(
            "SELECT COUNT(*) FROM sources WHERE slot = 42 AND problem_id = 'erdos_42' \
             AND path LIKE '%slot702_%'"
        ),
        1
    );
    assert_eq!(
        p.count("SELECT COUNT(*) FROM findings WHERE problem_id = 'erdos_42' AND source_slot = 42"),
        1
    );
    assert_eq!(
        p.count("SELECT COUNT(*) FROM findings WHERE problem_id = 'tau_bound'"),
        0
    );
    // The submission moved from one problem to the other; the old id, left without files or
    // records, is now an alias of the new one.
    assert_eq!((submissions("tau_bound"), submissions("erdos_42")), (-1, 1));
    assert_eq!(
        p.count(
            "SELECT COUNT(*) FROM problem_aliases WHERE alias = 'tau_bound' AND problem_id = 'erdos_42'"
        ),
        1
    );

    // Given again, the same values change nothing.
    let (v, _, _) = p.extract(&[file, "--slot", "42", "--problem-id", "erdos_42"]);
    assert_eq!(v["files"][0]["status"], "unchanged");
    assert_eq!(v["summary"]["occurrences_unchanged"], 1);
}

/// The JSON Lines of `mf extract --json` (a report per file, then the summary) as one object
/// `{summary, skipped, db, files}`; `Null` when the output is not that.
fn regroup(stdout: &str) -> Value {
    let lines: Option<Vec<Value>> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).ok())
        .collect();
    let Some(mut lines) = lines else {
        return Value::Null;
    };
    let Some(Value::Object(mut last)) = lines.pop() else {
        return Value::Null;
    };
    if !last.contains_key("summary") || lines.iter().any(|l| l.get("summary").is_some()) {
        return Value::Null;
    }
    last.insert("files".into(), Value::Array(lines));
    Value::Object(last)
}

/// `confidence`, `notes` and `title` of every finding of `finding_type` in files whose name
/// contains `file`, by theorem name.
fn evidence(p: &Project, finding_type: &str, file: &str) -> Vec<(String, String, String)> {
    p.conn()
        .prepare(
            "SELECT coalesce(theorem_name, ''), confidence, coalesce(notes, '') FROM findings \
             WHERE finding_type = ?1 AND source_file LIKE ?2 ORDER BY theorem_name",
        )
        .unwrap()
        .query_map(rusqlite::params![finding_type, format!("%{file}%")], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn triples(t: &[(&str, &str, &str)]) -> Vec<(String, String, String)> {
    t.iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect()
}

#[test]
fn findings_claim_only_what_their_evidence_supports() {
    let p = Project::with_fixtures("results_evidence");
    let (v, stderr, code) = p.extract_all();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(v["summary"]["added"], 6);

    // A finished, clean Aristotle output vouches for its proofs and proves its problem.
    assert_eq!(
        evidence(&p, "theorem", "slot801_"),
        triples(&[("sq_pos'", "verified", ""), ("two_le_sq", "verified", "")])
    );
    assert_eq!(
        p.types("slot801_"),
        pairs(&[("technique", 1), ("theorem", 2)])
    );

    // Budget reached: what compiled is high at most, and says where it came from.
    assert_eq!(
        evidence(&p, "theorem", "slot802_"),
        triples(&[("done_part", "high", "origin=partial_output")])
    );

    // Proofs resting (directly or through via_key) on a sorry lemma are conditional and name
    // it; a proof of the same file that uses no hole is not.
    assert_eq!(
        evidence(&p, "theorem", "slot803_"),
        triples(&[
            ("independent", "high", "sorry=1"),
            (
                "main_claim",
                "low",
                "conditional; waits on: key_bound (sorry); sorry=1"
            ),
            (
                "via_key",
                "low",
                "conditional; waits on: key_bound (sorry); sorry=1"
            ),
        ])
    );
    assert_eq!(
        column(&p, "title", "theorem", "slot803_", "main_claim"),
        "main_claim (theorem, conditional on key_bound)"
    );

    // An input fails nothing: it asks, and the problem gets its statement.
    assert_eq!(p.types("slot804_"), pairs(&[("insight", 1)]));
    assert_eq!(
        column(&p, "description", "insight", "slot804_", "target"),
        "Input for sketch: holes to fill: step1 (1 sorry), step2 (1 sorry), target (1 sorry)"
    );

    let status = |id: &str| -> (String, Option<String>) {
        p.conn()
            .query_row(
                "SELECT status, statement FROM problems WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap()
    };
    assert_eq!(
        status("sketch"),
        ("open".into(), Some("target (n : ℕ) : n ≤ n + 3".into()))
    );
    // An empty Main.lean of an unpacked project proves nothing: its problem stays open (a
    // status comes from what files prove, never from how few holes they leave). A partial
    // output proves something.
    assert_eq!(status("abc").0, "open");
    assert_eq!(status("budget").0, "partial");
    assert_eq!(status("conditional").0, "partial");
    // Verified results, but no input states what twosq asked: not shown proven (see
    // a_problem_is_proven_only_by_a_verified_proof_of_its_target_statement).
    assert_eq!(status("twosq").0, "partial");
    assert_eq!(
        p.count("SELECT count(*) FROM findings WHERE finding_type = 'failure'"),
        0
    );

    // Proven in slot801, disproved in slot806: `mk find` shows the conflict first.
    let out = Command::cargo_bin("mk")
        .unwrap()
        .arg("--db")
        .arg(p.db())
        .args(["find", "twosq", "--json"])
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let conflicts = report["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{report}");
    assert_eq!(conflicts[0]["theorem_name"], "two_le_sq");
    assert_eq!(conflicts[0]["confidence"], "verified");
    assert!(conflicts[0]["disproved_in"]
        .as_str()
        .unwrap()
        .ends_with("slot806_twosq_result.lean"));
    let out = Command::cargo_bin("mk")
        .unwrap()
        .arg("--db")
        .arg(p.db())
        .args(["find", "twosq"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("[CONFLICT] twosq"), "{text}");
    let conflict = text.find("[CONFLICT] 1").unwrap();
    assert!(conflict < text.find("Facts, by type").unwrap(), "{text}");
}

#[test]
fn a_problem_is_proven_only_by_a_verified_proof_of_its_target_statement() {
    let p = Project::with_fixtures("results_target");
    let (_, stderr, code) = p.extract_all();
    assert_eq!(code, 0, "{stderr}");
    let status = |id: &str| -> String {
        p.conn()
            .query_row("SELECT status FROM problems WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .unwrap()
    };
    // The input asks for `around_target`; the clean output proved only `helper`.
    assert_eq!(status("around"), "partial");
    // The output proves the statement the input asked for (laid out differently).
    assert_eq!(status("hit"), "proven");
    // A later extraction (nothing changed) keeps both.
    let (_, stderr, code) = p.extract_all();
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(status("around"), "partial");
    assert_eq!(status("hit"), "proven");
}

/// `mf extract` sets a problem's statement from the theorem its input names (comment, file
/// stem), not from the input's last sorried variant.
#[test]
fn a_problems_statement_is_the_target_its_input_names() {
    let p = Project::with_fixtures("asked");
    let (_, stderr, code) = p.extract_all();
    assert_eq!(code, 0, "{stderr}");
    let statement = |id: &str| -> String {
        p.conn()
            .query_row("SELECT statement FROM problems WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .unwrap()
    };
    assert_eq!(
        statement("erdos_901"),
        "erdos_901.termination (n : ℕ) (hn : 0 < n) : ∃ k, n ≤ k"
    );
    assert_eq!(
        statement("erdos_902"),
        "erdos_902 : Set.Infinite {n : ℕ | 2 ∣ n}"
    );
}

/// `mk forget`: files extracted by mistake (a directory of them) and files that no longer
/// exist come off the knowledge base with their occurrences, their facts when no other file
/// states them, their share of their problem, and a problem left with no evidence; the
/// full-text indexes stay consistent with the table.
#[test]
fn forget_takes_files_facts_off_and_keeps_the_indexes_right() {
    let p = Project::new();
    let other = p.dir.path().join("other");
    fs::create_dir(&other).unwrap();
    // The same results under another name: its theorems are the same facts.
    let copy = other.join("slot700_erdos_850_again_result.lean");
    fs::copy(
        p.results().join("slot614_erdos_850_triples_result.lean"),
        &copy,
    )
    .unwrap();
    let (_, stderr, code) = p.extract(&[
        "--all",
        p.results().to_str().unwrap(),
        other.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let mk = |args: &[&str]| {
        let out = Command::cargo_bin("mk")
            .unwrap()
            .arg("--db")
            .arg(p.db())
            .args(args)
            .arg("--json")
            .current_dir(p.dir.path())
            .env("HOME", p.dir.path())
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        (v, String::from_utf8(out.stderr).unwrap(), out.status.code())
    };
    let facts = p.count("SELECT count(*) FROM findings");
    let shared = p.count(
        "SELECT count(*) FROM findings f WHERE
            (SELECT count(*) FROM finding_sources fs WHERE fs.finding_id = f.id) > 1",
    );
    assert!(shared > 0);

    // A dry run lists and changes nothing.
    let (v, _, code) = mk(&["forget", "--dry-run", "results"]);
    assert_eq!(code, Some(0));
    assert_eq!(v["files"].as_array().unwrap().len(), 3, "{v}");
    assert_eq!(p.count("SELECT count(*) FROM findings"), facts);

    let (v, stderr, code) = mk(&["forget", "results/"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(v["files"].as_array().unwrap().len(), 3, "{v}");
    assert_eq!(
        v["after"]["facts"],
        p.count("SELECT count(*) FROM findings")
    );
    assert_eq!(
        v["after"]["occurrences"].as_i64().unwrap(),
        v["before"]["occurrences"].as_i64().unwrap() - v["occurrences_removed"].as_i64().unwrap()
    );
    assert_eq!(p.count("SELECT count(*) FROM sources"), 1);
    // What only the forgotten files said is gone; what the copy says too stays, shown with
    // the copy.
    assert_eq!(
        p.count("SELECT count(*) FROM findings WHERE source_file LIKE '%/results/%'"),
        0
    );
    assert_eq!(
        p.count("SELECT count(*) FROM findings WHERE theorem_name = 'Erdos850.prime_le_sq'"),
        1
    );
    assert_eq!(
        p.count("SELECT count(*) FROM finding_sources fs LEFT JOIN sources s ON s.id = fs.source_id WHERE s.id IS NULL"),
        0
    );
    assert_eq!(
        p.count("SELECT submission_count FROM problems WHERE id = 'erdos_850'"),
        1
    );
    assert_consistent(&p);

    // Gone from disk: `--missing` finds it.
    let stored = copy.canonicalize().unwrap().display().to_string();
    fs::remove_file(&copy).unwrap();
    let (v, stderr, code) = mk(&["forget", "--missing"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(v["files"], serde_json::json!([stored]), "{v}");
    assert_eq!(v["after"]["facts"], 0, "{v}");
    assert_eq!(v["after"]["occurrences"], 0, "{v}");
    assert!(
        v["problems_removed"]
            .as_array()
            .unwrap()
            .contains(&Value::from("erdos_850")),
        "{v}"
    );
    assert_eq!(
        p.count("SELECT count(*) FROM problems WHERE id = 'erdos_850'"),
        0
    );
    assert_consistent(&p);

    // A path that names no extracted file is an error.
    let (_, stderr, code) = mk(&["forget", "results/nothing.lean"]);
    assert_eq!(code, Some(2));
    assert!(
        stderr.contains("nothing extracted from results/nothing.lean"),
        "{stderr}"
    );
}
