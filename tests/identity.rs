//! Problem identity (issue 29): which problem each file of a layout is about and what decided
//! it, on hand-written layouts imitating those we do not have (an Erdős project with a folder
//! per problem and helper modules, a statement catalogue, a competition benchmark, statement
//! and solution files side by side, the users' own campaign naming); copies counted once;
//! aliases; the one answer to an unknown id; tracking.db's word; and hand records following
//! their problem to its canonical id when a newer extractor re-reads an old knowledge base.

mod common;

use std::collections::BTreeMap;
use std::fs;

use assert_cmd::Command;
use rusqlite::Connection;
use serde_json::{json, Value};

use common::layout::{expect_problems, Layout};
use common::{build_tracking, mk};

fn expect(
    found: &BTreeMap<String, (Option<String>, Option<String>)>,
    want: &[(&str, Option<&str>, Option<&str>)],
) {
    expect_problems(found, want, true)
}

/// An Erdős project with a folder per problem: a helper module in a problem's folder belongs
/// to it (two folders each with a `Basic.lean` are two problems); the shared library and the
/// root module are no problem.
#[test]
fn helper_modules_belong_to_their_problem_folder_and_libraries_to_none() {
    let l = Layout::of(&["erdos_project"]);
    l.extract(&[]);
    expect(
        &l.problems(),
        &[
            ("erdos_project/ErdosProject.lean", None, Some("library")),
            (
                "erdos_project/ErdosProject/Common/Primes.lean",
                None,
                Some("library"),
            ),
            (
                "erdos_project/ErdosProject/Erdos975/Main.lean",
                Some("erdos_975"),
                Some("theorem"),
            ),
            (
                "erdos_project/ErdosProject/Erdos975/Basic.lean",
                Some("erdos_975"),
                Some("folder"),
            ),
            (
                "erdos_project/ErdosProject/Erdos975/Bounds.lean",
                Some("erdos_975"),
                Some("folder"),
            ),
            (
                "erdos_project/ErdosProject/Erdos1052/Basic.lean",
                Some("erdos_1052"),
                Some("folder"),
            ),
            (
                "erdos_project/ErdosProject/Erdos1052/Statement.lean",
                Some("erdos_1052"),
                Some("comment"),
            ),
            (
                "erdos_project/ErdosProject/ErdosProblems/36/Overlap.lean",
                Some("erdos_36"),
                Some("folder"),
            ),
        ],
    );
    // One problem row per problem, none named after a module.
    let ids = l.problem_ids();
    assert_eq!(ids, ["erdos_1052", "erdos_36", "erdos_975"]);
    // The folder spelling is an alias: `mk find ErdosProblems/36` finds erdos_36.
    let r = l.mk_json(&["find", "ErdosProblems/36"]);
    assert_eq!(r["problem"]["id"], "erdos_36");
}

/// A statement catalogue: the attribute's theorem names the problem (`erdos_975`, its
/// `.variants.` belong to it), an OEIS entry is spelled `oeis_a056777`, an entry without a
/// scheme is named by its file, definitions and the catalogue's utilities are no problem; a
/// users' attempt on Erdős 975 is the same problem as the catalogue's statement.
#[test]
fn a_catalogue_and_the_users_attempts_are_one_problem() {
    let l = Layout::of(&["catalogue"]);
    l.extract(&[]);
    expect(
        &l.problems(),
        &[
            (
                "catalogue/FormalConjectures/ErdosProblems/975.lean",
                Some("erdos_975"),
                Some("attribute"),
            ),
            (
                "catalogue/FormalConjectures/OEIS/56777.lean",
                Some("oeis_a056777"),
                Some("attribute"),
            ),
            (
                "catalogue/FormalConjectures/Wikipedia/GoldbachConjecture.lean",
                Some("goldbach_conjecture"),
                Some("catalogue_entry"),
            ),
            // A catalogue's bare number is named with its catalogue, never bare.
            (
                "catalogue/FormalConjectures/GreensOpenProblems/12.lean",
                Some("greens_open_problems_12"),
                Some("catalogue_entry"),
            ),
            (
                "catalogue/FormalConjectures/Wikipedia/GoldbachDefs.lean",
                None,
                Some("library"),
            ),
            (
                "catalogue/FormalConjectures/Util/ProblemImports.lean",
                None,
                Some("library"),
            ),
            (
                "catalogue/attempts/slot900_erdos975_count_bound_result.lean",
                Some("erdos_975"),
                Some("comment"),
            ),
        ],
    );
    // The catalogue's statement and the attempt are one problem with two sources; the
    // catalogue's path spelling is an alias of it.
    let conn = l.conn();
    let alias: String = conn
        .query_row(
            "SELECT problem_id FROM problem_aliases WHERE alias = 'ErdosProblems/975'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(alias, "erdos_975");
    let sources: i64 = conn
        .query_row(
            "SELECT count(*) FROM sources WHERE problem_id = 'erdos_975'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(sources, 2);
    let attempts: i64 = conn
        .query_row(
            "SELECT count(*) FROM attempts WHERE problem_id = 'erdos_975'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(attempts, 1, "the users' output is an attempt on erdos_975");
}

/// A competition benchmark whose file names are its ids; statement and solution files side by
/// side (by name, or in one problem folder) are one problem.
#[test]
fn benchmark_ids_and_statement_beside_solution() {
    let l = Layout::of(&["benchmark", "statement_solution"]);
    l.extract(&[]);
    expect(
        &l.problems(),
        &[
            ("benchmark/MiniBench.lean", None, Some("library")),
            (
                "benchmark/MiniBench/Valid/mathd_algebra_132.lean",
                Some("mathd_algebra_132"),
                Some("theorem"),
            ),
            (
                "benchmark/MiniBench/Valid/amc12a_2019_p21.lean",
                Some("amc12a_2019_p21"),
                Some("theorem"),
            ),
            (
                "benchmark/MiniBench/Valid/aime_1983_p1.lean",
                Some("aime_1983_p1"),
                Some("theorem"),
            ),
            (
                "benchmark/MiniBench/Valid/imo_1959_p1.lean",
                Some("imo_1959_p1"),
                Some("theorem"),
            ),
            (
                "benchmark/MiniBench/Valid/induction_12dvd4expnp1p20.lean",
                Some("induction_12dvd4expnp1p20"),
                Some("file_name"),
            ),
            (
                "benchmark/MiniBench/Test/algebra_sqineq_at2malt1.lean",
                Some("algebra_sqineq_at2malt1"),
                Some("file_name"),
            ),
            // Loose benchmark files (no package) are named by their whole name, never by a
            // shortened one that would merge two problems.
            (
                "benchmark/loose/algebra_amgm_sum1toneqn_prod1tonleq1.lean",
                Some("algebra_amgm_sum1toneqn_prod1tonleq1"),
                Some("file_name"),
            ),
            (
                "benchmark/loose/algebra_amgm_sum1toneqn_sum1tonleqn.lean",
                Some("algebra_amgm_sum1toneqn_sum1tonleqn"),
                Some("file_name"),
            ),
            (
                "statement_solution/Statements/putnam_2019_a1.lean",
                Some("putnam_2019_a1"),
                Some("theorem"),
            ),
            (
                "statement_solution/Solutions/putnam_2019_a1_solution.lean",
                Some("putnam_2019_a1"),
                Some("comment"),
            ),
            (
                "statement_solution/loose/sum_of_two_squares.lean",
                Some("sum_of_two_squares"),
                Some("file_name"),
            ),
            (
                "statement_solution/loose/sum_of_two_squares_solution.lean",
                Some("sum_of_two_squares"),
                Some("file_name"),
            ),
            (
                "statement_solution/Imo2001P6/Statement.lean",
                Some("imo_2001_p6"),
                Some("folder"),
            ),
            (
                "statement_solution/Imo2001P6/Solution.lean",
                Some("imo_2001_p6"),
                Some("folder"),
            ),
        ],
    );
}

/// The users' own naming: a sketch whose title names the campaign's target in words joins it,
/// one that names none keeps its sketch name, the tool's own test fixtures are no problem, and
/// tracking.db's problem for a submission wins over everything the file says.
#[test]
fn users_campaigns_tests_and_tracking() {
    let l = Layout::of(&["users"]);
    let report = l.extract(&[]);
    let by_file = |name: &str| -> Value {
        report
            .iter()
            .find(|r| r["path"].as_str().is_some_and(|p| p.ends_with(name)))
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(
        by_file("slot302_inline_cover.lean")["problem_evidence"],
        "campaign",
        "mf extract --json says what decided"
    );
    expect(
        &l.problems(),
        &[
            (
                "users/submissions/slot300_path4_cover.lean",
                Some("path_4"),
                Some("sketch"),
            ),
            (
                "users/submissions/slot301_path4_bridges.lean",
                Some("path_4"),
                Some("sketch"),
            ),
            (
                "users/submissions/slot302_inline_cover.lean",
                Some("path_4"),
                Some("campaign"),
            ),
            (
                "users/submissions/slot303_helper_idea.lean",
                Some("helper_idea"),
                Some("topic"),
            ),
            (
                "users/submissions/slot304_erdos364_pell_result.lean",
                Some("erdos_364"),
                Some("comment"),
            ),
            // A name of topic words names no problem: the file's own words beyond its title
            // name the campaign ("in PATH_4 … τ ≤ 8"), never the topic.
            (
                "users/submissions/slot305_endpoint_no_base_external.lean",
                Some("path_4"),
                Some("campaign"),
            ),
            // A theorem the file states named as the campaign target.
            (
                "users/submissions/slot306_maximality_coverage.lean",
                Some("path_4"),
                Some("theorem"),
            ),
            // The theorem its own words call the final one, of the campaign's family.
            (
                "users/submissions/path_combined_parker_v1.lean",
                Some("path_le_3"),
                Some("theorem"),
            ),
            // A step's "main theorem" of no campaign's family names nothing: the last resort,
            // the sketch name of topic words, stays (evidence `topic`).
            (
                "users/submissions/slot307_edge_step.lean",
                Some("edge_step"),
                Some("topic"),
            ),
            (
                "users/math-forge/tests/fixtures/sample_proven.lean",
                None,
                Some("test"),
            ),
        ],
    );
    // tracking.db made the request 0b7c2d5e-0001-… for erdos_850: that is its problem.
    let tracking = build_tracking(l.dir.path(), "tracking.sql");
    l.extract(&["--tracking", tracking.to_str().unwrap()]);
    let found = l.problems();
    assert_eq!(
        found["users/submissions/slot304_erdos364_pell_result.lean"],
        (Some("erdos_850".into()), Some("tracking".into()))
    );
    // A --tracking that does not exist is an error, not silently ignored.
    let out = Command::cargo_bin("mf")
        .unwrap()
        .args(["extract", "--db"])
        .arg(l.db())
        .args(["--tracking", "/nonexistent/tracking.db", "--all"])
        .arg(l.root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// A sketch named by topic words whose own definitions are a campaign's is a step of it: of one
/// target's files more than any other's (`isChain3`, which only `tau_le_5`'s submissions keep
/// defining), it joins that target; of several targets' equally (what every target of the
/// campaign defines), it is a step of the campaign and a problem of none, never of its topic
/// words. A sketch whose definitions are no known problem's keeps its name, the last resort
/// (`topic`). A definition in a comment defines nothing.
#[test]
fn a_sketch_whose_definitions_are_a_campaigns_is_a_step_of_it() {
    let l = Layout::of(&["steps"]);
    l.extract(&[]);
    let s = "steps/submissions/";
    expect(
        &l.problems(),
        &[
            (
                &format!("{s}slot500_tau_le_5_main.lean"),
                Some("tau_le_5"),
                Some("sketch"),
            ),
            (
                &format!("{s}slot501_tau_le_5_cases.lean"),
                Some("tau_le_5"),
                Some("sketch"),
            ),
            (
                &format!("{s}slot502_cycle_3_main.lean"),
                Some("cycle_3"),
                Some("sketch"),
            ),
            (
                &format!("{s}slot503_cycle_3_bound.lean"),
                Some("cycle_3"),
                Some("sketch"),
            ),
            (
                &format!("{s}slot510_bridge_lemma.lean"),
                Some("tau_le_5"),
                Some("definitions"),
            ),
            (&format!("{s}slot511_apex_core.lean"), None, Some("step")),
            (
                &format!("{s}slot512_grimm_conjecture.lean"),
                Some("grimm_conjecture"),
                Some("comment"),
            ),
        ],
    );
    // No problem is named after a step's topic words.
    assert_eq!(l.problem_ids(), ["cycle_3", "grimm_conjecture", "tau_le_5"]);
    // A step extracted again alone, edited, is judged against the stored files' definitions:
    // a run of one file gives what the run of all gave.
    let before = l.problems();
    for step in ["slot510_bridge_lemma.lean", "slot511_apex_core.lean"] {
        let path = l.root().join(s).join(step);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("\n-- edited\n");
        std::fs::write(&path, text).unwrap();
        l.extract_file(&path);
    }
    assert_eq!(l.problems(), before);
}

/// A run of one file judges identity by the definitions the knowledge base stores for the other
/// files: with every other file gone from disk, a step extracted alone, edited, still gets what
/// the run of all gave it. A knowledge base of the schema before definitions were stored
/// migrates; its rows without definitions are read from disk until a run of all files (their
/// extractor is older) stores them.
#[test]
fn a_run_of_one_file_judges_identity_by_the_stored_definitions() {
    let l = Layout::of(&["steps"]);
    l.extract(&[]);
    let s = l.root().join("steps/submissions");
    let before = l.problems();
    let steps = ["slot510_bridge_lemma.lean", "slot511_apex_core.lean"];
    let edit = |name: &str| {
        let path = s.join(name);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("\n-- edited\n");
        std::fs::write(&path, text).unwrap();
        path
    };
    // What a run stored for a named file: the names it defines, not those in its comments.
    let definitions = |conn: &rusqlite::Connection, name: &str| -> Option<String> {
        conn.query_row(
            "SELECT definitions FROM sources WHERE path LIKE '%/' || ?1",
            [name],
            |r| r.get(0),
        )
        .unwrap()
    };
    let stored = definitions(&l.conn(), "slot500_tau_le_5_main.lean").expect("stored");
    assert!(stored.lines().any(|n| n == "isChain3"), "{stored}");

    // An old knowledge base: no definitions column, schema 9, rows of extractor 7.
    let conn = l.conn();
    conn.execute_batch(
        "ALTER TABLE sources DROP COLUMN definitions;
         UPDATE sources SET extractor = 7;
         PRAGMA user_version = 9;",
    )
    .unwrap();
    drop(conn);
    for step in steps {
        l.extract_file(&edit(step));
    }
    assert_eq!(l.problems(), before, "migrated, files read from disk");
    let conn = l.conn();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, math_forge::kb::SCHEMA_VERSION);
    assert_eq!(definitions(&conn, "slot500_tau_le_5_main.lean"), None);
    drop(conn);

    // A run of all stores every file's definitions again.
    l.extract(&[]);
    let conn = l.conn();
    let missing: i64 = conn
        .query_row(
            "SELECT count(*) FROM sources WHERE definitions IS NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(missing, 0);
    drop(conn);

    // Every file but the steps gone from disk: the knowledge base alone decides.
    for entry in std::fs::read_dir(&s).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !steps.contains(&name.as_str()) {
            std::fs::remove_file(&path).unwrap();
        }
    }
    for step in steps {
        l.extract_file(&edit(step));
    }
    assert_eq!(l.problems(), before, "from the stored definitions");
}

/// A theorem named as the file's problem and then as another known problem states a case of
/// it: `tau_le_6_star3` in a file of `tau_le_6`, where `star_3` is a campaign target, is a
/// variant of `tau_le_6`, never its statement, and the statement of `star_3` in a file of
/// that one; `star3_tau_le_6` there is what is claimed of the star (a name stating a relation
/// names no case). The name alone decides nothing: `tau_le_6_small` (no problem is `small`)
/// stays what its file asks.
#[test]
fn a_case_named_after_another_known_problem_is_a_variant() {
    let l = Layout::of(&["cases"]);
    l.extract(&[]);
    let conn = l.conn();
    let mut stmt = conn
        .prepare(
            "SELECT s.path, ps.problem_id, ps.theorem_name, ps.variant FROM problem_statements ps
             JOIN sources s ON s.id = ps.source_id ORDER BY s.path, ps.theorem_name",
        )
        .unwrap();
    let got: Vec<(String, String, String, bool)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .map(Result::unwrap)
        .map(|(p, id, name, v): (String, String, String, bool)| {
            let file = p.rsplit('/').next().unwrap().to_string();
            (file, id, name, v)
        })
        .collect();
    let want = [
        ("slot600_tau_le_6_main.lean", "tau_le_6", "tau_le_6", false),
        (
            "slot601_tau_le_6_star3.lean",
            "tau_le_6",
            "tau_le_6_star3",
            true,
        ),
        (
            "slot602_star_3_cover.lean",
            "star_3",
            "tau_le_6_star3",
            false,
        ),
        (
            "slot603_star_3_bound.lean",
            "star_3",
            "star3_tau_le_6",
            false,
        ),
        (
            "slot604_tau_le_6_small.lean",
            "tau_le_6",
            "tau_le_6_small",
            false,
        ),
    ]
    .map(|(f, id, name, v)| (f.to_string(), id.to_string(), name.to_string(), v));
    assert_eq!(got, want);
    let main: String = conn
        .query_row(
            "SELECT statement_theorem FROM problems WHERE id = 'tau_le_6'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(main, "tau_le_6");
}

/// A file named by topic words whose title names someone's conjecture and which states a theorem
/// named after it is about that conjecture (`kovacs_conjecture`, evidence `theorem`): its own
/// words twice. The title alone, or the theorem name alone, decides nothing (the topic words
/// stay the last resort); a file of a campaign target stating the conjecture for its case keeps
/// its target.
#[test]
fn a_conjecture_named_by_title_and_theorem_is_the_problem() {
    let l = Layout::of(&["conjecture"]);
    l.extract(&[]);
    let s = "conjecture/submissions/";
    expect(
        &l.problems(),
        &[
            (
                &format!("{s}kovacs_nu3_cases.lean"),
                Some("kovacs_nu3"),
                Some("sketch"),
            ),
            (
                &format!("{s}kovacs_nu3_main.lean"),
                Some("kovacs_nu3"),
                Some("sketch"),
            ),
            (
                &format!("{s}packing_full_v2.lean"),
                Some("kovacs_conjecture"),
                Some("theorem"),
            ),
            (
                &format!("{s}packing_full_v3.lean"),
                Some("packing_full"),
                Some("topic"),
            ),
            (
                &format!("{s}packing_idea_v4.lean"),
                Some("packing_idea"),
                Some("topic"),
            ),
        ],
    );
}

/// A folder's label that the file's own title contradicts decides nothing, across copies too:
/// "Selfridge's Conjecture" labelled `e938` (and its same-request copy in a folder that names
/// nothing) is no Erdős problem; a title that names the label's scheme keeps the label. Its
/// title and its theorem (`selfridge_odd_squarefree`) name Selfridge's conjecture: the copy
/// the label does not contradict is about it, and the labelled copy with it.
#[test]
fn a_title_outranks_a_folder_label_across_copies() {
    let l = Layout::of(&["title_copies"]);
    l.extract(&[]);
    let uuid = "391b1dd1-6904-4492-93b6-4f2620c015ae_aristotle/RequestProject/Main.lean";
    expect(
        &l.problems(),
        &[
            (
                format!("title_copies/yolo_results/yolo2_e938_selfridge_extracted/{uuid}").as_str(),
                Some("selfridge_conjecture"),
                Some("copy"),
            ),
            (
                format!("title_copies/campaign/yolo_slot1304_extracted/{uuid}").as_str(),
                Some("selfridge_conjecture"),
                Some("comment"),
            ),
            (
                "title_copies/yolo_results/yolo2_e951_extracted/5a0c9b11-2222-4333-8444-955566677788_aristotle/RequestProject/Main.lean",
                Some("erdos_951"),
                Some("sketch"),
            ),
        ],
    );
}

/// One output copied into several folders is one attempt: `mk recommend` counts it once.
#[test]
fn copies_of_one_output_are_one_attempt() {
    let l = Layout::of(&["copies"]);
    let original = l.root().join("copies/slot905_sum_bound_result.lean");
    for folder in ["inbox", "proven/erdos", "archive/jan"] {
        let dir = l.root().join(folder);
        fs::create_dir_all(&dir).unwrap();
        fs::copy(&original, dir.join("slot905_sum_bound_result.lean")).unwrap();
    }
    l.extract(&[]);
    let conn = l.conn();
    let (attempts, domain): (i64, String) = conn
        .query_row(
            "SELECT count(*), min(a.domain_id) FROM attempts a",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!(attempts, 4, "each file is stored as its own source");
    let r = l.mk_json(&["recommend", &domain]);
    let omega = r["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["technique"] == "linear arithmetic (omega)")
        .unwrap_or_else(|| panic!("{r}"));
    // The output proves a lemma of erdos_850, not its statement (no input says what it is):
    // a partial attempt, which counts half a success. Four copies of it weigh one attempt.
    assert_eq!(
        (omega["successes"].as_f64(), omega["failures"].as_f64()),
        (Some(0.5), Some(0.5)),
        "four copies are one attempt: {r}"
    );
    let learned: String = conn
        .query_row(
            "SELECT learned FROM strategies WHERE problem_id = 'erdos_850'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        learned,
        "extracted: 0 proven, 1 partial, 0 failed of 1 attempts"
    );
}

/// Copies of one output (the same request uuid, in several folders, even where a copy's bytes
/// differ) are one attempt with the best outcome any copy has: the attempts `mk find` shows by
/// outcome, and the report's table of problems, count each request once.
#[test]
fn attempts_per_problem_count_each_request_once() {
    let l = Layout::of(&["copies"]);
    let original = l.root().join("copies/slot905_sum_bound_result.lean");
    let text = fs::read_to_string(&original).unwrap();
    for folder in ["inbox", "proven/erdos"] {
        let dir = l.root().join(folder);
        fs::create_dir_all(&dir).unwrap();
        fs::copy(&original, dir.join("slot905_sum_bound_result.lean")).unwrap();
    }
    // The same request, another folder's copy whose proof was lost: the request's best
    // outcome stands.
    let unproved = text.replace("  omega", "  sorry");
    assert_ne!(unproved, text);
    fs::create_dir_all(l.root().join("archive")).unwrap();
    fs::write(
        l.root().join("archive/slot905_sum_bound_result.lean"),
        &unproved,
    )
    .unwrap();
    // Another request on the same problem, which failed: a second attempt.
    let other = unproved.replace(
        "5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d",
        "0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e",
    );
    assert_ne!(other, unproved);
    fs::write(
        l.root().join("copies/slot906_sum_bound_result.lean"),
        &other,
    )
    .unwrap();
    l.extract(&[]);
    let rows: Vec<(String, String)> = {
        let conn = l.conn();
        let mut stmt = conn
            .prepare(
                "SELECT s.aristotle_uuid, a.outcome FROM attempts a JOIN sources s ON s.id = a.source_id
                 WHERE a.problem_id = 'erdos_850' ORDER BY s.path",
            )
            .unwrap();
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
    };
    assert_eq!(
        rows.len(),
        5,
        "each file is stored as its own source: {rows:?}"
    );
    let outcomes = |uuid: &str| {
        let mut o: Vec<&str> = rows
            .iter()
            .filter(|(u, _)| u == uuid)
            .map(|(_, o)| o.as_str())
            .collect();
        o.sort();
        o.dedup();
        o
    };
    assert_eq!(
        outcomes("5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d"),
        ["failed", "partial"]
    );
    assert_eq!(outcomes("0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e"), ["failed"]);

    let r = l.mk_json(&["find", "erdos_850"]);
    let attempts = &r["problem"]["attempts"];
    assert_eq!(
        (
            attempts["proven"].as_i64(),
            attempts["partial"].as_i64(),
            attempts["failed"].as_i64()
        ),
        (Some(0), Some(1), Some(1)),
        "two requests, the first partial at best: {r}"
    );

    let kb = math_forge::kb::Kb::open(&l.db()).unwrap();
    let report = kb
        .report(&math_forge::kb::ReportOptions::default(), None)
        .unwrap();
    let row = report
        .problems
        .iter()
        .find(|p| p.id == "erdos_850")
        .expect("erdos_850 in the report's table");
    assert_eq!(
        (
            row.attempts.proven,
            row.attempts.partial,
            row.attempts.budget_reached,
            row.attempts.failed
        ),
        (0, 1, 0, 1),
        "the report's table counts each request once"
    );
}

/// Every spelling finds the problem: an alias met in a path, any case and separators, the
/// scheme in words; from `mk find`, `mk context`, `mk failed --problem`, `mk recommend`,
/// `mk record` and the MCP tools.
#[test]
fn aliases_and_spellings_find_the_problem() {
    let l = Layout::of(&["catalogue", "erdos_project"]);
    l.extract(&[]);
    for query in [
        "erdos_975",
        "Erdos975",
        "ERDOS-975",
        "erdos 975",
        "Erdős Problem 975",
        "ErdosProblems/975",
    ] {
        let r = l.mk_json(&["find", query]);
        assert_eq!(r["problem"]["id"], "erdos_975", "{query}: {r}");
    }
    let r = l.mk_json(&["context", "Erdos975"]);
    assert_eq!(r["problem"]["id"], "erdos_975");
    let r = l.mk_json(&[
        "record",
        "failure",
        "--problem",
        "Erdős Problem 975",
        "--approach",
        "direct count",
        "--why",
        "the bound is not sharp",
    ]);
    assert_eq!(r["problem_id"], "erdos_975");
    let r = l.mk_json(&["failed", "--problem", "erdos975"]);
    assert_eq!(r["problem"], "erdos_975");
    assert_eq!(r["facts"][0]["why_failed"], "the bound is not sharp");
    let r = l.mk_json(&["recommend", "ErdosProblems/975"]);
    assert_eq!(r["scope"]["problem"], "erdos_975", "{r}");

    let ctx = math_forge::mcp::Context {
        db: Some(l.db()),
        tracking: Some(l.dir.path().join("no-tracking.db")),
        project: Some(l.dir.path().to_path_buf()),
    };
    let call = |name: &str, args: Value| {
        math_forge::mcp::tools::call(name, args.as_object().unwrap(), &ctx)
    };
    let report = call("problem", json!({"problem": "Erdos975"})).unwrap();
    assert_eq!(report["problem"]["id"], "erdos_975");
    let report = call("context", json!({"problem": "erdos-975"})).unwrap();
    assert_eq!(report["problem"]["id"], "erdos_975");
}

/// An unknown id is answered the same way by every command and tool: exit 2, `no problem X`
/// and the nearest ids and aliases; `mk record` starts a problem only when told it is new.
#[test]
fn an_unknown_id_is_answered_alike_everywhere() {
    let l = Layout::of(&["catalogue"]);
    l.extract(&[]);
    let commands: [&[&str]; 6] = [
        &["find", "erdos_976"],
        &["context", "erdos_976"],
        &["failed", "--problem", "erdos_976"],
        &["recommend", "erdos_976"],
        &[
            "record",
            "failure",
            "--problem",
            "erdos_976",
            "--approach",
            "a",
            "--why",
            "w",
        ],
        &[
            "record",
            "fact",
            "--problem",
            "erdos_976",
            "--text",
            "n is even",
        ],
    ];
    for args in commands {
        let out = l.mk(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.starts_with("mk: no problem erdos_976; nearest: erdos_975"),
            "{args:?}: {err}"
        );
    }
    // Nothing was recorded by the refused commands.
    let findings: i64 = l
        .conn()
        .query_row(
            "SELECT count(*) FROM findings WHERE problem_id LIKE 'erdos_976'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(findings, 0);

    let ctx = math_forge::mcp::Context {
        db: Some(l.db()),
        tracking: Some(l.dir.path().join("no-tracking.db")),
        project: Some(l.dir.path().to_path_buf()),
    };
    for (tool, args) in [
        ("problem", json!({"problem": "erdos_976"})),
        ("context", json!({"problem": "erdos_976"})),
        ("failed", json!({"problem": "erdos_976"})),
        ("recommend", json!({"problem": "erdos_976"})),
        (
            "record_failure",
            json!({"problem": "erdos_976", "approach": "a", "why": "w"}),
        ),
    ] {
        let err =
            math_forge::mcp::tools::call(tool, args.as_object().unwrap(), &ctx).expect_err(tool);
        assert!(
            err.starts_with("no problem erdos_976; nearest: erdos_975"),
            "{tool}: {err}"
        );
    }

    // Told it is new, `mk record` starts it, spelled canonically, the given spelling an alias.
    let r = l.mk_json(&[
        "record",
        "failure",
        "--problem",
        "Erdos976",
        "--new-problem",
        "--approach",
        "a",
        "--why",
        "w",
    ]);
    assert_eq!(r["problem_id"], "erdos_976");
    let r = l.mk_json(&["find", "erdos_976"]);
    assert_eq!(r["problem"]["id"], "erdos_976");
}

/// A knowledge base an older extractor made named the catalogue file `ErdosProblems/975.lean`
/// problem `975`, and a failure and a fact were recorded by hand under `975`. The next
/// `mf extract` re-reads the file as erdos_975; the hand records move with it, and `975` is an
/// alias that still finds them.
#[test]
fn hand_records_follow_their_problem_to_its_canonical_id() {
    let l = Layout::of(&["catalogue"]);
    l.extract(&[]);
    // The old knowledge base, as extractor version 1 left it.
    l.conn()
        .execute_batch(
            "UPDATE sources SET problem_id = '975', extractor = 1 WHERE problem_id = 'erdos_975';
             UPDATE findings SET problem_id = '975' WHERE problem_id = 'erdos_975';
             UPDATE attempts SET problem_id = '975' WHERE problem_id = 'erdos_975';
             UPDATE strategies SET problem_id = '975', problem_name = '975' WHERE problem_id = 'erdos_975';
             UPDATE problems SET id = '975', name = '975' WHERE id = 'erdos_975';",
        )
        .unwrap();
    l.mk_json(&[
        "record",
        "failure",
        "--problem",
        "975",
        "--approach",
        "greedy",
        "--why",
        "misses the gaps",
    ]);
    l.mk_json(&[
        "record",
        "fact",
        "--problem",
        "975",
        "--text",
        "count n = n for all n",
    ]);
    let session: i64 = 1;
    l.conn()
        .execute(
            "INSERT INTO sessions (id, problem_id) VALUES (?1, '975')",
            [session.to_string()],
        )
        .unwrap();

    l.extract(&[]);

    let conn = l.conn();
    let left: i64 = conn
        .query_row(
            "SELECT (SELECT count(*) FROM findings WHERE problem_id = '975')
                  + (SELECT count(*) FROM strategies WHERE problem_id = '975')
                  + (SELECT count(*) FROM problems WHERE id = '975')
                  + (SELECT count(*) FROM sessions WHERE problem_id = '975')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 0, "nothing is left under the old id");
    let r = l.mk_json(&["find", "erdos_975"]);
    let text = r.to_string();
    assert!(text.contains("misses the gaps"), "{text}");
    assert!(text.contains("count n = n for all n"), "{text}");
    let strategies: Vec<&str> = r["strategies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["approach_name"].as_str().unwrap())
        .collect();
    assert!(strategies.contains(&"greedy"), "{strategies:?}");
    // The old id is an alias: it finds the problem and is accepted by mk record.
    let r = l.mk_json(&["find", "975"]);
    assert_eq!(r["problem"]["id"], "erdos_975");
    assert_eq!(r["alias"], "975");
    let r = l.mk_json(&["context", "975"]);
    let facts = r["facts"].to_string();
    assert!(facts.contains("count n = n for all n"), "{facts}");
    let r = l.mk_json(&[
        "record",
        "failure",
        "--problem",
        "975",
        "--approach",
        "greedy",
        "--why",
        "still misses",
    ]);
    assert_eq!(r["problem_id"], "erdos_975");
    assert_eq!(r["attempts"], 2, "the same strategy, moved");
    let session_problem: String = conn
        .query_row("SELECT problem_id FROM sessions WHERE id = '1'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(session_problem, "erdos_975");
}

/// Where tracking.db fixed a problem id it stays as tracking.db spells it: migrated rows keep
/// their ids through extraction (and the settling of moved ids), and no canonical spelling
/// renames one.
#[test]
fn tracking_ids_are_kept() {
    let l = Layout::of(&["users", "catalogue"]);
    let tracking = build_tracking(l.dir.path(), "tracking.sql");
    let out = mk(l.dir.path())
        .args(["init", "--from-tracking"])
        .arg(&tracking)
        .arg("--db")
        .arg(l.db())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let migrated = |conn: &Connection| -> Vec<(String, Option<String>)> {
        conn.prepare("SELECT origin, problem_id FROM findings WHERE origin LIKE 'tracking:%' ORDER BY origin")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let before = migrated(&l.conn());
    assert!(!before.is_empty());
    l.extract(&["--tracking", tracking.to_str().unwrap()]);
    l.extract(&["--tracking", tracking.to_str().unwrap()]);
    let conn = l.conn();
    assert_eq!(migrated(&conn), before);
    for id in [
        "erdos_850",
        "erdos_364",
        "tuza_nu4",
        "ft_p3",
        "putnam_2019_a1",
        "kurepa",
    ] {
        let n: i64 = conn
            .query_row("SELECT count(*) FROM problems WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .unwrap();
        assert_eq!(n, 1, "{id}");
        assert!(
            math_forge::problem::canonical(id).is_none_or(|c| c == id),
            "{id} is spelled as tracking.db spells it"
        );
    }
}

/// A library module's facts are facts without a problem; given a problem later, the file is a
/// new submission of it, and its facts follow it.
#[test]
fn a_library_modules_facts_have_no_problem_until_one_is_given() {
    let l = Layout::of(&["erdos_project"]);
    l.extract(&[]);
    let primes = l
        .root()
        .join("erdos_project/ErdosProject/Common/Primes.lean");
    let facts = |conn: &Connection| -> Vec<Option<String>> {
        conn.prepare(
            "SELECT f.problem_id FROM findings f JOIN sources s ON s.id = f.source_id
             WHERE s.path LIKE '%Common/Primes.lean' AND f.finding_type = 'theorem'",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
    };
    let before = facts(&l.conn());
    assert_eq!(before, [None, None], "two lemmas, no problem");
    let out = Command::cargo_bin("mf")
        .unwrap()
        .args(["extract", "--db"])
        .arg(l.db())
        .arg(&primes)
        .args(["--problem-id", "Erdos 1"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let conn = l.conn();
    assert_eq!(
        facts(&conn),
        [Some("erdos_1".into()), Some("erdos_1".into())]
    );
    let submissions: i64 = conn
        .query_row(
            "SELECT submission_count FROM problems WHERE id = 'erdos_1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(submissions, 1);
}
