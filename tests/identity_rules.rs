//! Problem identity (issue 29), three rules from a hand audit of real files: a collection (one
//! file stating many problems) is no single problem, each of its theorems belongs to the
//! problem it is named after; the users' campaign slot files join the campaign's target (by
//! their own words, then their slot siblings' names, then the folders), the sketch name being
//! the last resort; copies of one output in several folders are one attempt of one problem.

mod common;

use std::collections::BTreeMap;

use common::layout::{expect_problems, Layout};

fn expect(
    found: &BTreeMap<String, (Option<String>, Option<String>)>,
    want: &[(&str, Option<&str>, Option<&str>)],
) {
    expect_problems(found, want, false)
}

/// A file of many problems' statements is none of them, and creates no problem of its own
/// name; each theorem named after a problem is a statement of that problem, ranked below what
/// a file of that problem alone states, and its facts are that problem's.
#[test]
fn a_collection_is_no_problem_its_theorems_are_theirs() {
    let l = Layout::of(&["collection"]);
    l.extract(&[]);
    expect(
        &l.problems(),
        &[
            (
                "collection/contests/olympiad_selection.lean",
                None,
                Some("collection"),
            ),
            (
                "collection/contests/imo1959_p1_solution.lean",
                Some("imo_1959_p1"),
                Some("theorem"),
            ),
        ],
    );
    let conn = l.conn();
    let problems = l.problem_ids();
    assert_eq!(problems, ["imo_1959_p1", "imo_1964_p1", "usa_1990_p1"]);
    // The collection's statement of imo_1959_p1 ranks below the problem's own file's.
    let ranks: Vec<(String, i64)> = conn
        .prepare(
            "SELECT s.path, ps.rank FROM problem_statements ps JOIN sources s ON s.id = ps.source_id
             WHERE ps.problem_id = 'imo_1959_p1' ORDER BY ps.rank",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(ranks.len(), 2, "{ranks:?}");
    assert!(
        ranks[0].0.ends_with("imo1959_p1_solution.lean"),
        "{ranks:?}"
    );
    assert!(ranks[1].0.ends_with("olympiad_selection.lean"), "{ranks:?}");
    assert!(ranks[0].1 < ranks[1].1, "{ranks:?}");
    // Each theorem's fact is its problem's.
    let of = |theorem: &str| -> Vec<Option<String>> {
        conn.prepare("SELECT problem_id FROM findings WHERE theorem_name = ?1")
            .unwrap()
            .query_map([theorem], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    assert_eq!(of("usamo1990_p1"), [Some("usa_1990_p1".to_string())]);
    assert_eq!(of("imo1964_p1_numbertheory"), [Some("imo_1964_p1".into())]);
    // The collection is no submission or attempt of the problems it states.
    let (submissions, attempts): (i64, i64) = conn
        .query_row(
            "SELECT (SELECT sum(submission_count) FROM problems WHERE id <> 'imo_1959_p1'),
                    (SELECT count(*) FROM attempts)",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((submissions, attempts), (0, 0));
    // `mk find` of a problem shows the statement and the collection's fact.
    let found = l.mk_json(&["find", "usa_1990_p1"]);
    assert_eq!(
        found["problem"]["statement"], "usamo1990_p1 (n : ℕ) : n ≤ n * n + 1",
        "{found}"
    );
    assert!(found["facts"]
        .to_string()
        .contains("olympiad_selection.lean"));
}

/// Campaign slot files join the campaign's target: by their own words (a title naming the
/// target), else by their slot siblings' names (`slot403b_self_contained` beside
/// `slot403a_tau_le_6_final`, its `_aristotle` output with it), else by the folders they are
/// in (`tau/le6/`). A name of one submission (an input and its output) is no target; a
/// sketch name nothing else decides stays the file's problem (the last resort).
#[test]
fn campaign_slot_files_join_their_target() {
    let l = Layout::of(&["campaign"]);
    l.extract(&[]);
    let s = "campaign/submissions/";
    let found = l.problems();
    expect(
        &found,
        &[
            (
                &format!("{s}slot400_tau_le_6_main.lean"),
                Some("tau_le_6"),
                Some("sketch"),
            ),
            (
                &format!("{s}slot402_link_bound.lean"),
                Some("tau_le_6"),
                Some("campaign"),
            ),
            (
                &format!("{s}slot403b_self_contained.lean"),
                Some("tau_le_6"),
                Some("slot"),
            ),
            (
                &format!("{s}slot403b_self_contained_aristotle.lean"),
                Some("tau_le_6"),
                Some("slot"),
            ),
            (
                "campaign/proven/tau/le6/bridge_count.lean",
                Some("tau_le_6"),
                Some("campaign_folder"),
            ),
            // Nothing else says: the users' own name.
            (
                &format!("{s}slot404_helper_idea.lean"),
                Some("helper_idea"),
                Some("topic"),
            ),
            // `gap_7` names one submission (an input and its output): no campaign target, so
            // another file's title naming it does not join it.
            (
                &format!("{s}slot405_gap_7_main_aristotle.lean"),
                Some("gap_7"),
                Some("topic"),
            ),
            (
                &format!("{s}slot406_gap_bridge.lean"),
                Some("gap_bridge"),
                Some("topic"),
            ),
        ],
    );
    let self_contained: i64 = l
        .conn()
        .query_row(
            "SELECT count(*) FROM problems WHERE id IN ('self_contained', 'link_bound', 'bridge_count')",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(
        self_contained, 0,
        "slot files make no problems of their own"
    );
}

/// One output copied into several folders (the same content, or the same Aristotle request
/// unpacked as a project) is about the problem the strongest evidence of any copy names, and
/// is one attempt in `mk recommend`; a second run finds every copy unchanged.
#[test]
fn copies_in_several_folders_are_one_attempt_of_one_problem() {
    let l = Layout::of(&["copy_folders"]);
    l.extract(&[]);
    let c = "copy_folders/";
    expect(
        &l.problems(),
        &[
            (
                &format!("{c}ErdosProblems/850/result_7c1d.lean"),
                Some("erdos_850"),
                Some("folder"),
            ),
            (
                &format!("{c}inbox/result_7c1d.lean"),
                Some("erdos_850"),
                Some("copy"),
            ),
            (
                &format!(
                    "{c}unpacked/0b7c2d5e-0003-4f00-9000-000000000850_aristotle/RequestProject/Main.lean"
                ),
                Some("erdos_850"),
                Some("copy"),
            ),
        ],
    );
    let attempts: i64 = l
        .conn()
        .query_row(
            "SELECT count(*) FROM attempts WHERE problem_id = 'erdos_850'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(attempts, 3, "each file is stored as its own source");
    let r = l.mk_json(&["recommend", "nt"]);
    let omega = r["recommendations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["technique"] == "linear arithmetic (omega)")
        .unwrap_or_else(|| panic!("{r}"));
    let weight = omega["successes"].as_f64().unwrap() + omega["failures"].as_f64().unwrap();
    assert_eq!(weight, 1.0, "three copies are one attempt: {r}");
    let again = l.extract(&[]).pop().unwrap();
    assert_eq!(
        (
            again["summary"]["unchanged"].as_u64(),
            again["summary"]["replaced"].as_u64()
        ),
        (Some(3), Some(0)),
        "{again}"
    );
}

/// A file whose problem nothing but its users' sketch name names rests on the weakest evidence
/// (`topic`): a problem all of whose files do is marked, wherever its status shows, as named by
/// its sketch only, its status no mathematics' (`mk find`, `mk context`, the MCP tools and the
/// session briefing read `Problem::standing`; `mk stats` counts them). What names such a file's
/// problem instead is evidence: a named
/// theorem or conjecture its title names that its name agrees with (`Wolstenholme's Theorem`;
/// "Feit-Thompson Prime Conjecture" and "the Feit-Thompson conjecture" are one problem), a
/// campaign target its title writes apart ("Tuza's conjecture ν = 4"), the input an output
/// answers (one submission: the output takes what the input's words say).
#[test]
fn a_problem_named_by_its_sketch_only_says_so() {
    let l = Layout::of(&["sketch_only"]);
    l.extract(&[]);
    let s = "sketch_only/submissions/";
    expect(
        &l.problems(),
        &[
            (
                &format!("{s}slot700_bridge_lemma.lean"),
                Some("bridge_lemma"),
                Some("topic"),
            ),
            (
                &format!("{s}slot701_wolstenholme_theorem_result.lean"),
                Some("wolstenholme_theorem"),
                Some("comment"),
            ),
            (
                &format!("{s}slot702_feit_thompson_bounded.lean"),
                Some("feit_thompson_conjecture"),
                Some("comment"),
            ),
            (
                &format!("{s}slot703_feit_thompson_informal_result.lean"),
                Some("feit_thompson_conjecture"),
                Some("comment"),
            ),
            // A word that names no one, a title that names nothing: the name stays a topic.
            (
                &format!("{s}slot704_main_theorem.lean"),
                Some("main_theorem"),
                Some("topic"),
            ),
            (
                &format!("{s}slot705_grimm_small.lean"),
                Some("grimm_small"),
                Some("topic"),
            ),
            (
                &format!("{s}slot712_adaptive_cover.lean"),
                Some("tuza_nu4"),
                Some("campaign"),
            ),
            (
                &format!("{s}slot713_classification.lean"),
                Some("tuza_nu4"),
                Some("campaign"),
            ),
            (
                &format!("{s}slot713_classification_aristotle.lean"),
                Some("tuza_nu4"),
                Some("copy"),
            ),
        ],
    );
    // The users' name is an alias of the problem its title names.
    let r = l.mk_json(&["find", "feit_thompson_bounded"]);
    assert_eq!(r["problem"]["id"], "feit_thompson_conjecture");
    assert!(r["problem"].get("named_by_sketch_only").is_none(), "{r}");
    // A problem named by its sketch only says so wherever its status shows.
    let r = l.mk_json(&["find", "bridge_lemma"]);
    assert_eq!(r["problem"]["named_by_sketch_only"], true, "{r}");
    let out = l.mk(&["find", "bridge_lemma"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.contains("Status:") && l.contains("named by its sketch only")),
        "{text}"
    );
    // The headline a reader skims carries the mark beside the badge too.
    let headline = text.lines().next().unwrap_or_default();
    assert!(
        headline.contains("bridge_lemma") && headline.contains("(named by its sketch only)"),
        "{text}"
    );
    let out = l.mk(&["find", "wolstenholme_theorem"]);
    assert!(!String::from_utf8_lossy(&out.stdout).contains("named by its sketch only"));
    let r = l.mk_json(&["context", "bridge_lemma"]);
    assert!(r.to_string().contains("named_by_sketch_only"), "{r}");
    let out = l.mk(&["stats"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.contains("Of which named by its sketch only") && l.contains('3')),
        "{text}"
    );
}

/// A result of a catalogue's entry carries the catalogue's attribute on the entry's theorem:
/// those are the file's own words, naming the entry's problem (evidence `attribute`), not its
/// sketch name. A result that does not parse proves nothing known: its attempt failed, and its
/// proofs make its problem neither `partial` nor `proven` (fail closed).
#[test]
fn a_catalogue_results_attribute_names_its_problem_and_an_unparsed_result_is_no_progress() {
    let l = Layout::of(&["catalogue_result"]);
    l.extract(&[]);
    let s = "catalogue_result/";
    expect(
        &l.problems(),
        &[
            (
                &format!("{s}lonely_pair.lean"),
                Some("lonely_pair"),
                Some("catalogue_entry"),
            ),
            (
                &format!("{s}slot720_lonely_pair_result.lean"),
                Some("lonely_pair"),
                Some("attribute"),
            ),
            (
                &format!("{s}slot722_gap_pair_result.lean"),
                Some("gap_pair"),
                Some("attribute"),
            ),
        ],
    );
    let conn = l.conn();
    let parse_errors: i64 = conn
        .query_row(
            "SELECT parse_error_count FROM sources WHERE path LIKE '%slot722_gap_pair_result.lean'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(parse_errors > 0, "the fixture must not parse");
    let outcome = |file: &str| -> String {
        conn.query_row(
            "SELECT a.outcome FROM attempts a JOIN sources s ON s.id = a.source_id
             WHERE s.path LIKE '%' || ?1",
            [file],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(outcome("slot722_gap_pair_result.lean"), "failed");
    assert_eq!(outcome("slot720_lonely_pair_result.lean"), "proven");
    let status = |id: &str| -> String {
        conn.query_row("SELECT status FROM problems WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap()
    };
    assert_eq!(status("gap_pair"), "open");
    assert_eq!(status("lonely_pair"), "proven");
}

/// A sketch of topic words whose lemmas, name and statement alike, are those one known
/// problem's files state is a step of that problem (evidence `lemmas`), however its lemmas are
/// laid out or commented; the same names over other statements, or one shared lemma alone,
/// say nothing (its sketch name stays the last resort); lemmas several problems' files state
/// equally make it a step of their campaign, of no problem.
#[test]
fn a_sketch_stating_a_known_problems_lemmas_is_a_step_of_it() {
    let l = Layout::of(&["lemmas"]);
    l.extract(&[]);
    let s = "lemmas/submissions/";
    expect(
        &l.problems(),
        &[
            (
                &format!("{s}slot801_widget_le_5_main.lean"),
                Some("widget_le_5"),
                Some("sketch"),
            ),
            (
                &format!("{s}slot810_spoke_extraction.lean"),
                Some("widget_le_5"),
                Some("lemmas"),
            ),
            (
                &format!("{s}slot811_rim_rewrite.lean"),
                Some("rim_rewrite"),
                Some("topic"),
            ),
            (
                &format!("{s}slot812_common_helpers.lean"),
                None,
                Some("step"),
            ),
            (
                &format!("{s}slot813_one_copy.lean"),
                Some("one_copy"),
                Some("topic"),
            ),
        ],
    );
    // The step's problem is no longer one of its own name.
    let r = l.mk_json(&["find", "widget_le_5"]);
    assert!(r["problem"].get("named_by_sketch_only").is_none(), "{r}");
}

/// A file whose title names someone's conjecture and which states a theorem named after it
/// (`kolakoski_upto_100` under "Kolakoski's Conjecture for n ≤ 100") is about that conjecture,
/// whatever its sketch name (`result`, `iter2_family`): its own words twice. A possessive of
/// someone else before the kind word ("Notes toward Smith's Conjecture") names Smith's, never
/// `notes_conjecture`, and a theorem not named after it (`jones_bound`) names nothing. The
/// result's name is the title's, hyphenated people and all.
#[test]
fn a_title_naming_a_conjecture_and_a_theorem_named_after_it_name_the_problem() {
    let l = Layout::of(&["title_theorem"]);
    l.extract(&[]);
    let s = "title_theorem/submissions/";
    expect(
        &l.problems(),
        &[
            (
                &format!("{s}slot820_result.lean"),
                Some("kolakoski_conjecture"),
                Some("comment"),
            ),
            (
                &format!("{s}slot821_iter2_family_result.lean"),
                Some("feit_thompson_conjecture"),
                Some("comment"),
            ),
            (
                &format!("{s}slot822_notes_result.lean"),
                Some("notes"),
                Some("topic"),
            ),
            // The name is the people the title joins by a hyphen, whichever the theorem
            // starts with (`giuga_…` under "Agoh–Giuga Conjecture").
            (
                &format!("{s}slot823_result.lean"),
                Some("agoh_giuga_conjecture"),
                Some("comment"),
            ),
        ],
    );
}
