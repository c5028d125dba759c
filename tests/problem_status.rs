//! What the knowledge base says about a problem, from evidence (issue 29, part B): the main
//! statement and its variants, our status apart from the literature's, the domain, attempt
//! outcomes, facts shared between problems, and conditional proofs (a search tactic, a lemma
//! the file disproves). `fixtures/problem_status` holds one small case per rule.

use std::path::Path;

use assert_cmd::Command;
use rusqlite::Connection;
use serde_json::Value;
use tempfile::TempDir;

mod common;

use common::layout::copy_tree;

/// `fixtures/problem_status` copied into a scratch directory and extracted.
struct Extracted {
    dir: TempDir,
}

impl Extracted {
    fn new() -> Extracted {
        let dir = TempDir::new().unwrap();
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/problem_status");
        copy_tree(&fixtures, &dir.path().join("results"));
        let e = Extracted { dir };
        e.extract_again();
        e
    }

    fn db(&self) -> std::path::PathBuf {
        self.dir.path().join("knowledge.db")
    }

    fn conn(&self) -> Connection {
        Connection::open(self.db()).unwrap()
    }

    fn mk(&self, args: &[&str]) -> String {
        let out = Command::cargo_bin("mk")
            .unwrap()
            .current_dir(self.dir.path())
            .env_remove("MATH_FORGE_TRACKING_DB")
            .env("NO_COLOR", "1")
            .arg("--db")
            .arg(self.db())
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "mk {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn find(&self, problem: &str) -> Value {
        serde_json::from_str(&self.mk(&["find", problem, "--json"])).unwrap()
    }

    fn problem(&self, id: &str, column: &str) -> Option<String> {
        self.conn()
            .query_row(
                &format!("SELECT {column} FROM problems WHERE id = ?1"),
                [id],
                |r| r.get(0),
            )
            .unwrap()
    }

    /// Outcome of the attempt made by the file whose path ends with `file`.
    fn outcome(&self, file: &str) -> String {
        self.conn()
            .query_row(
                "SELECT a.outcome FROM attempts a JOIN sources s ON s.id = a.source_id
                 WHERE s.path LIKE '%' || ?1",
                [file],
                |r| r.get(0),
            )
            .unwrap()
    }

    /// (confidence, notes, title) of theorem `name` as the file ending with `file` says it.
    fn occurrence(&self, file: &str, name: &str) -> (String, String, String) {
        self.conn()
            .query_row(
                "SELECT fs.confidence, coalesce(fs.notes, ''), fs.title FROM finding_sources fs
                 JOIN sources s ON s.id = fs.source_id JOIN findings f ON f.id = fs.finding_id
                 WHERE s.path LIKE '%' || ?1 AND f.theorem_name = ?2",
                [file, name],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap()
    }
}

/// The problem's statement is its main theorem's, never a variant's, even where the input asks
/// a variant; the variants are listed under it, each with its own status; the catalogue's
/// literature status is shown apart from ours.
#[test]
fn variants_are_listed_under_the_main_statement_with_their_own_status() {
    let e = Extracted::new();
    let report = e.find("erdos_961");
    let p = &report["problem"];
    assert_eq!(
        p["statement"],
        "erdos_961 : ∀ n : ℕ, 2 ≤ n → ∃ m : ℕ, n < m ∧ m ≤ 2 * n"
    );
    assert_eq!(p["statement_theorem"], "Erdos961.erdos_961");
    assert!(p["statement_source"]
        .as_str()
        .unwrap()
        .ends_with("erdos_961_erdos_961_variants_weak.lean"));
    // The literature says open; ours is partial: the output proved a variant, not the problem.
    assert_eq!(p["literature_status"], "open");
    assert_eq!(p["status"], "partial");
    let variants: Vec<(String, String, String)> = p["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["theorem_name"].as_str().unwrap().to_string(),
                v["literature_status"].as_str().unwrap().to_string(),
                v["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        variants,
        [
            (
                "Erdos961.erdos_961.variants.small".to_string(),
                "open".to_string(),
                "open".to_string()
            ),
            (
                "Erdos961.erdos_961.variants.weak".to_string(),
                "solved".to_string(),
                "proven".to_string()
            ),
        ]
    );
    assert_eq!(p["variants"][1]["confidence"], "high");
    assert_eq!(p["attempts"]["partial"], 1);
    let text = e.mk(&["find", "erdos_961"]);
    assert!(
        text.contains("Status: open in the literature; ours: partial"),
        "{text}"
    );
    assert!(
        text.contains(
            "[PROVEN] Erdos961.erdos_961.variants.weak  solved in the literature; ours: proven (high)"
        ),
        "{text}"
    );
    assert!(text.contains("theorem Erdos961.erdos_961"), "{text}");
    // `mk context` shows the same problem section.
    let context = e.mk(&["context", "erdos_961"]);
    assert!(
        context
            .contains("Problem erdos_961 (open in the literature; ours: partial; domain geometry)"),
        "{context}"
    );
    assert!(
        context.contains("Variant Erdos961.erdos_961.variants.weak (solved in the literature; ours: proven (high))"),
        "{context}"
    );
}

/// Domain from the file's classification, else its imports, else the problem's other files;
/// unknown when nothing says.
#[test]
fn the_domain_comes_from_evidence_and_is_unknown_without_it() {
    let e = Extracted::new();
    let domain = |id: &str| (e.problem(id, "domain_id"), e.problem(id, "domain_evidence"));
    let some = |a: &str, b: &str| (Some(a.to_string()), Some(b.to_string()));
    assert_eq!(domain("erdos_961"), some("geometry", "classification"));
    assert_eq!(domain("lattice_points"), some("geometry", "imports"));
    // The input says nothing (`import Mathlib`); its output imports combinatorics.
    assert_eq!(domain("plain_count"), some("combinatorics", "imports"));
    let input_domain: Option<String> = e
        .conn()
        .query_row(
            "SELECT f.domain_id FROM findings f JOIN sources s ON s.id = f.source_id
             WHERE s.path LIKE '%slot952_plain_count.lean'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(input_domain.as_deref(), Some("combinatorics"));
    // Nothing says: unknown, never a default.
    assert_eq!(domain("bare_fact"), (None, None));
    assert!(e.mk(&["find", "bare_fact"]).contains("Domain: unknown"));
}

/// A file of a project Aristotle built and returned (`<uuid>_aristotle/`): its complete proofs
/// that rest on no hole are high, and one of the problem's own statement proves it.
#[test]
fn aristotle_project_outputs_vouch_high() {
    let e = Extracted::new();
    assert_eq!(e.occurrence("Main.lean", "cover_bound").0, "high");
    assert_eq!(e.occurrence("Main.lean", "cover_helper").0, "high");
    let (confidence, notes, _) = e.occurrence("Main.lean", "cover_square");
    assert_eq!(confidence, "low");
    assert!(notes.starts_with("conditional; waits on: cover_gap (sorry)"));
    assert_eq!(
        e.problem("cover_bound", "status").as_deref(),
        Some("proven")
    );
    assert_eq!(
        e.problem("cover_bound", "confidence").as_deref(),
        Some("high")
    );
    assert_eq!(e.outcome("Main.lean"), "proven");
    assert!(e
        .mk(&["find", "cover_bound"])
        .contains("Status: ours: proven (high)"));
    // A clean finished output proving the statement its input asks: verified.
    assert_eq!(
        e.problem("plain_count", "status").as_deref(),
        Some("proven")
    );
    assert_eq!(
        e.problem("plain_count", "confidence").as_deref(),
        Some("verified")
    );
    assert_eq!(e.outcome("slot953_plain_count_result.lean"), "proven");
}

/// An output that fills some holes is partial, even when a verdict says a proof failed and it
/// leaves too many holes.
#[test]
fn an_output_that_proves_some_of_its_holes_is_partial() {
    let e = Extracted::new();
    assert_eq!(e.outcome("slot956_many_holes_result.lean"), "partial");
    // The failures are still recorded.
    let failures: i64 = e
        .conn()
        .query_row(
            "SELECT count(*) FROM findings f JOIN sources s ON s.id = f.source_id
             WHERE s.path LIKE '%slot956_%' AND f.finding_type = 'failure'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(failures, 2);
}

/// A finite check of an open statement (`∀ n : Fin 300`, `native_decide`) proves no problem,
/// even when it is exactly the statement asked.
#[test]
fn a_bounded_check_of_an_open_statement_is_not_proven() {
    let e = Extracted::new();
    let (confidence, notes, _) =
        e.occurrence("slot958_gap_primes_result.lean", "gap_primes_bounded");
    assert_eq!(confidence, "verified", "the check itself is sound");
    assert!(
        notes.contains("bounded check of an open statement"),
        "{notes}"
    );
    assert_eq!(
        e.problem("gap_primes", "status").as_deref(),
        Some("partial")
    );
    assert_eq!(e.outcome("slot958_gap_primes_result.lean"), "partial");
}

/// A fact found in files of two problems is listed by `mk find` of each.
#[test]
fn a_fact_shared_by_two_problems_is_listed_under_both() {
    let e = Extracted::new();
    for problem in ["alpha", "beta"] {
        let report = e.find(problem);
        let theorems: Vec<&str> = report["facts"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|g| g["finding_type"] == "theorem")
            .flat_map(|g| g["recent"].as_array().unwrap())
            .map(|f| f["theorem_name"].as_str().unwrap())
            .collect();
        assert!(theorems.contains(&"shared_step"), "{problem}: {theorems:?}");
    }
    // One fact, not two.
    let facts: i64 = e
        .conn()
        .query_row(
            "SELECT count(*) FROM findings WHERE theorem_name = 'shared_step'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(facts, 1);
    // `mk context` lists it under both too.
    assert!(e.mk(&["context", "beta"]).contains("shared_step"));
}

/// A proof closed by a search tactic may use any earlier lemma of its file: it is conditional
/// on those with holes.
#[test]
fn a_search_tactic_proof_is_conditional_on_earlier_holes() {
    let e = Extracted::new();
    let (confidence, notes, title) = e.occurrence("slot962_search_result.lean", "search_main");
    assert_eq!(confidence, "low");
    assert!(
        notes.starts_with("conditional; waits on: search_gap (sorry)"),
        "{notes}"
    );
    assert_eq!(title, "search_main (theorem, conditional on search_gap)");
    assert_eq!(
        e.occurrence("slot962_search_result.lean", "search_clean").0,
        "high"
    );
}

/// A theorem that waits on a lemma the same file disproves says so.
#[test]
fn a_theorem_waiting_on_a_disproved_lemma_says_so() {
    let e = Extracted::new();
    let (confidence, notes, title) = e.occurrence("slot963_false_dep_result.lean", "uses_bad");
    assert_eq!(confidence, "low");
    assert!(
        notes.starts_with("conditional; waits on: bad_bound (disproved)"),
        "{notes}"
    );
    assert_eq!(
        title,
        "uses_bad (theorem, conditional on bad_bound, which this file disproves)"
    );
}

/// A disproof of the problem's own statement makes ours `false`; the attempt that found it
/// proved a lemma on the way, so it is partial, not failed.
#[test]
fn a_disproved_statement_is_false_as_stated() {
    let e = Extracted::new();
    assert_eq!(e.problem("wrong_claim", "status").as_deref(), Some("false"));
    assert_eq!(e.outcome("slot965_wrong_claim_result.lean"), "partial");
    assert!(e
        .mk(&["find", "wrong_claim"])
        .contains("Status: ours: false (disproved as stated)"));
}

/// A theorem is named after its problem whatever spelling either uses (`usamo_1990_p1` for
/// usa_1990_p1), a benchmark names its statement as its file (`imo1962_p4_algebra.lean`), a
/// file may call its result `main`; a helper in a namespace named after the problem
/// (`Usa1990P1.two_pos`) states nothing of it.
#[test]
fn statements_are_found_through_the_identity_layer() {
    let e = Extracted::new();
    for (id, theorem) in [
        ("usa_1990_p1", "Usa1990P1.usamo_1990_p1"),
        ("imo_1962_p4", "imo1962_p4_algebra"),
        ("erdos_4243", "Erdos4243.main"),
    ] {
        assert_eq!(
            e.problem(id, "statement_theorem").as_deref(),
            Some(theorem),
            "{id}"
        );
        // A complete proof nobody checked: partial, shown with its confidence.
        assert_eq!(e.problem(id, "status").as_deref(), Some("partial"), "{id}");
        assert_eq!(
            e.problem(id, "confidence").as_deref(),
            Some("medium"),
            "{id}"
        );
    }
}

/// A sketch sent without a hole states the theorem it would ask: when every sketch of a problem
/// the users' naming names states the same one, it is the problem's statement, and an output
/// proving it is a proven attempt. An output alone (its sketch unknown: it may prove a lemma of
/// a bigger problem), a problem a scheme names (`erdos_4244`, whose statement a catalogue
/// gives) and a check of finitely many cases state nothing of their problem.
#[test]
fn a_sketch_without_a_hole_states_its_problem() {
    let e = Extracted::new();
    assert_eq!(
        e.problem("cover_lemma", "statement_theorem").as_deref(),
        Some("cover_of_two_missing")
    );
    assert_eq!(
        e.problem("cover_lemma", "status").as_deref(),
        Some("proven")
    );
    assert_eq!(
        e.problem("cover_lemma", "confidence").as_deref(),
        Some("verified")
    );
    assert_eq!(e.outcome("slot966_cover_lemma_result.lean"), "proven");
    for (id, output) in [
        ("famous_conjecture", "slot967_famous_conjecture_result.lean"),
        ("erdos_4244", "slot968_erdos_4244_step_result.lean"),
        ("small_cases", "slot969_small_cases_result.lean"),
    ] {
        assert_eq!(e.problem(id, "statement"), None, "{id}");
        assert_eq!(e.problem(id, "status").as_deref(), Some("partial"), "{id}");
        assert_eq!(e.outcome(output), "partial", "{id}");
    }
}

/// `mf extract --db DB ARGS…`, which must succeed.
fn extract_into(db: &std::path::Path, args: &[&std::ffi::OsStr]) {
    Command::cargo_bin("mf")
        .unwrap()
        .arg("extract")
        .arg("--db")
        .arg(db)
        .args(args)
        .assert()
        .success();
}

impl Extracted {
    /// `mf extract --all` over the results (again).
    fn extract_again(&self) {
        let results = self.dir.path().join("results");
        extract_into(&self.db(), &["--all".as_ref(), results.as_os_str()]);
    }

    /// Every problem's (id, status, recorded status), by id.
    fn statuses(&self) -> Vec<(String, String, Option<String>)> {
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT id, status, recorded_status FROM problems ORDER BY id")
            .unwrap();
        let rows = stmt
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap();
        rows.map(Result::unwrap).collect()
    }
}

/// A knowledge base an older extractor filled (schema version 8: each file raised its problem's
/// status and nothing lowered it) is brought, by the next `mf extract`, to the status a fresh
/// extraction of the same files gives; what a person recorded survives the upgrade, on a
/// problem no file names and on one whose files prove nothing.
#[test]
fn an_upgraded_knowledge_base_gets_the_status_its_files_support() {
    let e = Extracted::new();
    let fresh = e.statuses();
    let status_of = |rows: &[(String, String, Option<String>)], id: &str| {
        rows.iter()
            .find(|r| r.0 == id)
            .map(|r| r.1.clone())
            .unwrap_or_else(|| panic!("no problem {id}"))
    };
    assert_eq!(status_of(&fresh, "bare_fact"), "open");
    assert_eq!(status_of(&fresh, "many_holes"), "partial");
    assert_eq!(status_of(&fresh, "false_dep"), "open");
    assert!(fresh.iter().all(|r| r.2.is_none()), "{fresh:?}");

    // What people recorded.
    for (problem, outcome, new) in [
        ("hand_only", "proven", true),
        ("bare_fact", "partial", false),
    ] {
        let mut args = vec![
            "record",
            "strategy",
            "--problem",
            problem,
            "--approach",
            "by hand",
            "--outcome",
            outcome,
        ];
        if new {
            args.push("--new-problem");
        }
        e.mk(&args);
    }
    assert_eq!(e.problem("hand_only", "status").as_deref(), Some("proven"));
    assert_eq!(e.problem("bare_fact", "status").as_deref(), Some("partial"));
    // A recorded proven of a problem whose files prove nothing checked is partial in ours, and
    // `mk find` shows what was recorded beside it.
    e.mk(&[
        "record",
        "strategy",
        "--problem",
        "few_holes",
        "--approach",
        "by hand",
        "--outcome",
        "proven",
    ]);
    assert_eq!(e.problem("few_holes", "status").as_deref(), Some("partial"));
    let text = e.mk(&["find", "few_holes"]);
    assert!(
        text.contains("Status: ours: partial")
            && text.contains("recorded: proven (tracking.db or mk record)"),
        "{text}"
    );
    assert_eq!(e.find("few_holes")["problem"]["recorded_status"], "proven");

    // The same knowledge base as the previous schema and an older extractor left it: no
    // recorded status, and statuses its files do not support (a bounded check of an open
    // statement and an output with holes read `proven`, a file waiting on a disproved lemma
    // `partial`).
    e.conn()
        .execute_batch(
            "ALTER TABLE problems DROP COLUMN recorded_status;
             ALTER TABLE sources DROP COLUMN definitions;
             PRAGMA user_version = 8;
             UPDATE problems SET status = 'proven' WHERE id IN ('gap_primes', 'many_holes');
             UPDATE problems SET status = 'partial' WHERE id = 'false_dep';
             UPDATE sources SET extractor = 4;",
        )
        .unwrap();
    e.extract_again();

    let version: i64 = e
        .conn()
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert!(version >= 9);
    let after = e.statuses();
    let mut expected: Vec<(String, String)> = fresh
        .iter()
        .map(|r| match r.0.as_str() {
            "bare_fact" | "few_holes" => (r.0.clone(), "partial".to_string()),
            _ => (r.0.clone(), r.1.clone()),
        })
        .collect();
    expected.push(("hand_only".to_string(), "proven".to_string()));
    expected.sort();
    let got: Vec<(String, String)> = after.iter().map(|r| (r.0.clone(), r.1.clone())).collect();
    assert_eq!(got, expected);
    // What was recorded by hand is told apart from what the files show; a disproof is never
    // dropped unread.
    for (id, recorded) in [
        ("hand_only", Some("proven")),
        ("bare_fact", Some("partial")),
        ("wrong_claim", Some("false")),
        ("gap_primes", None),
        ("many_holes", None),
        ("false_dep", None),
        ("few_holes", Some("proven")),
    ] {
        let row = after.iter().find(|r| r.0 == id).unwrap();
        assert_eq!(row.2.as_deref(), recorded, "{id}");
    }

    // Extracting once more changes nothing.
    e.extract_again();
    assert_eq!(e.statuses(), after);
}

/// A problem whose file completely proves what it states (here a competition problem known by
/// its folder, whose file proves two theorems, neither named after it, so that neither is known
/// to be the main statement) is never shown `open`: at least partial, in the knowledge base
/// and in `mk find`. A file that proves nothing of what it states leaves its problem open.
#[test]
fn a_file_that_proves_its_own_target_is_never_open() {
    let e = Extracted::new();
    assert_eq!(e.problem("imo_1999_p5", "statement"), None);
    assert_eq!(
        e.problem("imo_1999_p5", "status").as_deref(),
        Some("partial")
    );
    let text = e.mk(&["find", "imo_1999_p5"]);
    assert!(text.contains("Status: ours: partial"), "{text}");
    assert!(!text.contains("ours: open"), "{text}");
    assert_eq!(e.problem("bare_fact", "status").as_deref(), Some("open"));
}

/// An output Aristotle could not load into its environment was not checked: it failed,
/// whatever complete (unchecked, `medium`) proofs it holds, and its problem is not `partial`
/// for it. An output that loaded and fills some holes is partial.
#[test]
fn an_output_that_failed_to_load_is_failed() {
    let e = Extracted::new();
    let (confidence, _, _) = e.occurrence("slot970_load_failed_result.lean", "plain_step");
    assert_eq!(confidence, "medium", "the proof is there, unchecked");
    assert_eq!(e.outcome("slot970_load_failed_result.lean"), "failed");
    assert_eq!(e.problem("load_failed", "status").as_deref(), Some("open"));
    assert_eq!(e.outcome("slot956_many_holes_result.lean"), "partial");
}

/// An attempt's and its problem's status come from what the file proves, never from how few
/// holes it left: an output with one hole whose only other theorem rests on it proves nothing
/// (failed; its problem open), one that fills one of its two holes is partial.
#[test]
fn status_comes_from_proofs_not_from_the_hole_count() {
    let e = Extracted::new();
    let (confidence, notes, _) = e.occurrence("slot971_few_holes_result.lean", "few_holes_main");
    assert_eq!(confidence, "low", "{notes}");
    assert_eq!(e.outcome("slot971_few_holes_result.lean"), "failed");
    assert_eq!(e.problem("few_holes", "status").as_deref(), Some("open"));
    assert_eq!(e.outcome("slot972_one_hole_filled_result.lean"), "partial");
    assert_eq!(
        e.problem("one_hole_filled", "status").as_deref(),
        Some("partial")
    );
}

/// When an input asks one theorem (its comment's TARGET) and the same file states the
/// problem's own theorem (named after the problem), what it asks is a variant of the problem,
/// listed under it with its own status; the problem's statement is its own theorem's.
#[test]
fn what_an_input_asks_beside_the_problems_theorem_is_a_variant() {
    let e = Extracted::new();
    let report = e.find("erdos_4246");
    let p = &report["problem"];
    assert_eq!(p["statement_theorem"], "erdos_4246");
    assert_eq!(p["statement"], "erdos_4246 (n : ℕ) (h : 2 ≤ n) : n < n ^ 2");
    let variants: Vec<(&str, &str)> = p["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["theorem_name"].as_str().unwrap(),
                v["status"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(variants, [("case_three", "open")]);
}

/// A complete, unconditional proof of the main statement that no checker compiled (a
/// benchmark's own solution, `medium`) reads "complete, unchecked": partial in the status
/// column, in words what it is; `mk context` says the same.
#[test]
fn a_complete_unchecked_proof_reads_complete_unchecked() {
    let e = Extracted::new();
    assert_eq!(
        e.problem("erdos_4243", "status").as_deref(),
        Some("partial")
    );
    assert_eq!(
        e.problem("erdos_4243", "confidence").as_deref(),
        Some("medium")
    );
    let text = e.mk(&["find", "erdos_4243"]);
    assert!(text.contains("Status: ours: complete, unchecked"), "{text}");
    assert!(!text.contains("medium)"), "{text}");
    let context = e.mk(&["context", "erdos_4243"]);
    assert!(context.contains("ours: complete, unchecked"), "{context}");
    // A checked proof keeps its confidence; a partial status without a complete proof stays
    // partial.
    assert!(e
        .mk(&["find", "plain_count"])
        .contains("Status: ours: proven (verified)"));
    assert!(e
        .mk(&["find", "many_holes"])
        .contains("Status: ours: partial"));
}

/// A disproof counts only where Aristotle loaded the code before it: after a load failure, a
/// "found this block to be false" refutes what Lean made of broken code (an unknown name
/// auto-bound), never the statement as written. Its problem is not `false`, the file stores no
/// false lemma, and the claim is kept as an unchecked disproof (a failure).
#[test]
fn a_disproof_from_a_file_that_did_not_load_proves_nothing() {
    let e = Extracted::new();
    assert_eq!(e.problem("broken_claim", "status").as_deref(), Some("open"));
    let kinds: Vec<(String, String)> = e
        .conn()
        .prepare(
            "SELECT f.finding_type, f.title FROM findings f JOIN sources s ON s.id = f.source_id
             WHERE s.path LIKE '%slot975_broken_claim_result.lean' ORDER BY f.title",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(kinds.iter().all(|(t, _)| t != "false_lemma"), "{kinds:?}");
    assert!(
        kinds
            .iter()
            .any(|(t, title)| t == "failure"
                && title.starts_with("Unchecked disproof: broken_claim")),
        "{kinds:?}"
    );
    assert!(!e.mk(&["find", "broken_claim"]).contains("ours: false"));
    // The same disproof from a file that loaded still counts.
    assert_eq!(e.problem("wrong_claim", "status").as_deref(), Some("false"));
}

/// Beside the problem's own theorem (named after it), what an input asks is a variant even
/// when a catalogue attribute marks it too: a catalogue file lists every asked step under the
/// problem.
#[test]
fn an_asked_catalogued_theorem_beside_the_problems_own_is_a_variant() {
    let e = Extracted::new();
    let report = e.find("erdos_4251");
    let p = &report["problem"];
    assert_eq!(p["statement_theorem"], "Erdos4251.erdos_4251", "{p}");
    assert_eq!(p["literature_status"], "open", "{p}");
    let variants: Vec<(&str, &str)> = p["variants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["theorem_name"].as_str().unwrap(),
                v["literature_status"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(variants, [("Erdos4251.step_two", "solved")], "{p}");
}

/// An input whose leading comment names its final theorem (`plan_main_bound: Final theorem`)
/// states that theorem, not its last hole (a case of it).
#[test]
fn an_input_names_its_final_theorem_in_its_leading_comment() {
    let e = Extracted::new();
    let problem: String = e
        .conn()
        .query_row(
            "SELECT problem_id FROM sources WHERE path LIKE '%slot976_combined_plan.lean'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        e.problem(&problem, "statement_theorem").as_deref(),
        Some("plan_main_bound")
    );
}

/// The literature's word on the main statement is found through the identity layer: a main
/// statement taken from an uncatalogued copy (`erdos_4250`) still carries what the catalogue
/// says of `Erdos4250.erdos_4250`.
#[test]
fn the_literature_status_is_matched_through_the_problems_names() {
    let e = Extracted::new();
    assert_eq!(
        e.problem("erdos_4250", "literature_status").as_deref(),
        Some("open")
    );
}

/// An output's progress is measured against its input where the files say which one it is
/// (same slot, the input's name plus a suffix): proving again what the input already proved
/// fills no hole (failed); filling one of its holes is partial.
#[test]
fn an_output_that_fills_no_hole_of_its_input_failed() {
    let e = Extracted::new();
    assert_eq!(e.outcome("slot977_simple_plan_aristotle.lean"), "failed");
    assert_eq!(e.outcome("slot978_filled_plan_aristotle.lean"), "partial");
    // Without a known input, a complete proof still counts (slot956 has none beside it).
    assert_eq!(e.outcome("slot956_many_holes_result.lean"), "partial");
}

/// A run settles the problems its files change the evidence of: an input read in a later run
/// than its output judges the output's attempt then; a run that writes nothing changes nothing.
#[test]
fn an_input_read_after_its_output_judges_its_attempt() {
    let e = Extracted::new();
    let results = e.dir.path().join("results");
    let db = e.dir.path().join("later.db");
    let run = |file: &str| extract_into(&db, &[results.join(file).as_os_str()]);
    let outcome = || -> String {
        Connection::open(&db)
            .unwrap()
            .query_row(
                "SELECT a.outcome FROM attempts a JOIN sources s ON s.id = a.source_id
                 WHERE s.path LIKE '%slot977_simple_plan_aristotle.lean'",
                [],
                |r| r.get(0),
            )
            .unwrap()
    };
    run("slot977_simple_plan_aristotle.lean");
    // No input known yet: its complete proofs count.
    assert_eq!(outcome(), "partial");
    run("slot977_simple_plan.lean");
    assert_eq!(outcome(), "failed");
    let settled = e.statuses();
    e.extract_again();
    assert_eq!(e.statuses(), settled);
}

/// A bounded check bounds a variable the statement quantifies over: a general theorem whose
/// conclusion bounds an existential's size (`t.card ≤ 2`) and whose proof decides a side goal
/// is a proof of the general statement, not a check of finitely many cases, even in a file
/// that calls its subject open.
#[test]
fn a_bound_in_the_conclusion_is_no_bounded_check() {
    let e = Extracted::new();
    let (confidence, notes, _) = e.occurrence("slot979_two_cover_result.lean", "two_cover");
    assert_eq!(confidence, "verified");
    assert!(!notes.contains("bounded check"), "{notes}");
    // A real check of finitely many cases still is one.
    let (_, notes, _) = e.occurrence("slot958_gap_primes_result.lean", "gap_primes_bounded");
    assert!(notes.contains("bounded check"), "{notes}");
}
