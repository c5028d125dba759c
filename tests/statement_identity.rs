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
