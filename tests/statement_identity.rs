//! A problem's statement, and one problem across its spellings by its statement: the
//! declaration a project's own command makes states the problem; two problems whose main
//! statements are the same mathematics (a statement fingerprint) are linked.

mod common;

use common::layout::Layout;

/// problem id → (theorem of its main statement, rank), for every problem with one.
fn main_statements(l: &Layout) -> Vec<(String, String)> {
    l.conn()
        .prepare(
            "SELECT problem_id, theorem_name FROM problem_statements WHERE variant = 0
             AND rank < 4 ORDER BY problem_id",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// A project's own declaration commands (`syntax … "claim " declId declSig declVal : command`,
/// expanding to `theorem`; `answer`, expanding to `abbrev`): what `claim` declares is the
/// file's statement, named after the problem or not, proved by tactics or by a term; an
/// `answer` never is, and neither is a plain theorem beside them.
#[test]
fn a_projects_own_statement_command_states_the_problem() {
    let l = Layout::of(&["project_command"]);
    l.extract(&[]);
    let got = main_statements(&l);
    assert_eq!(
        got,
        [
            // Term proof of a predicate applied (`IsLeast … solution := ⟨…⟩`): named after
            // the problem, so its statement; not `answer solution`, not `restated`.
            ("usa_1985_p1".into(), "usa1985_p1".into()),
            // Named as the project likes: still the project's statement command.
            ("usa_1986_p2".into(), "usa1986_r1_p2".into()),
            // The project's command over a plain theorem named after the problem beside it.
            ("usa_1987_p3".into(), "usa1987_p3b".into()),
        ],
    );
    // The problems' statements are these (no helper lemma stored for any).
    let statements: Vec<(String, Option<String>)> = l
        .conn()
        .prepare("SELECT id, statement_theorem FROM problems ORDER BY id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        statements,
        [
            ("usa_1985_p1".to_string(), Some("usa1985_p1".to_string())),
            ("usa_1986_p2".into(), Some("usa1986_r1_p2".into())),
            ("usa_1987_p3".into(), Some("usa1987_p3b".into())),
        ]
    );
}

/// Problems whose main statements are the same mathematics are linked ("same statement as"),
/// never merged: the same statement under other variable names and layout links; the same
/// theorem name with another statement does not; the same statement text over a different
/// definition of the file's own does not.
#[test]
fn problems_stating_the_same_statement_are_linked_not_merged() {
    let l = Layout::of(&["same_statement"]);
    l.extract(&[]);
    // Every file keeps its own problem: nothing is renamed or merged.
    assert_eq!(
        l.problem_ids(),
        [
            "usa_1990_p1",
            "usa_1991_p1",
            "usa_1992_p1",
            "usa_1993_p1",
            "usa_1994_p1",
            "usa_1995_p1"
        ]
    );
    let same = |id: &str| -> Vec<String> {
        let r = l.mk_json(&["find", id]);
        r["same_statement"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|s| {
                        assert_eq!(s["evidence"], "same statement");
                        s["id"].as_str().unwrap().to_string()
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    // α-renamed, laid out otherwise, with a comment: the same statement, both ways.
    assert_eq!(same("usa_1990_p1"), ["usa_1992_p1"]);
    assert_eq!(same("usa_1992_p1"), ["usa_1990_p1"]);
    // The same theorem name (`main`), another statement.
    assert!(same("usa_1991_p1").is_empty());
    // The same definition written otherwise: linked; another definition under the same
    // name, with the statement's text unchanged: not.
    assert_eq!(same("usa_1993_p1"), ["usa_1994_p1"]);
    assert!(same("usa_1995_p1").is_empty());
    // An alias of nothing here: the link is no alias.
    let aliases: i64 = l
        .conn()
        .query_row(
            "SELECT count(*) FROM problem_aliases WHERE alias_key = 'usa1992p1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(aliases, 0);
    // `mk find` says so in words.
    let out = l.mk(&["find", "usa_1990_p1"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Same statement as: usa_1992_p1"), "{text}");
}
