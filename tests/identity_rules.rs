//! Problem identity (issue 29), three rules from a hand audit of real files: a collection (one
//! file stating many problems) is no single problem, each of its theorems belongs to the
//! problem it is named after; the users' campaign slot files join the campaign's target (by
//! their own words, then their slot siblings' names, then the folders), the sketch name being
//! the last resort; copies of one output in several folders are one attempt of one problem.

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use rusqlite::Connection;
use serde_json::Value;

use common::{fixture, mk_json};

/// A copy of `fixtures/identity/<name>` in a temporary directory.
struct Layout {
    dir: tempfile::TempDir,
}

impl Layout {
    fn of(name: &str) -> Layout {
        let dir = tempfile::TempDir::new().unwrap();
        copy_tree(
            &fixture("identity").join(name),
            &dir.path().join("work").join(name),
        );
        Layout { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn db(&self) -> PathBuf {
        self.dir.path().join("knowledge.db")
    }

    /// `mf extract --json --all`: the summary line.
    fn extract(&self) -> Value {
        let out = Command::cargo_bin("mf")
            .unwrap()
            .current_dir(self.dir.path())
            .env_remove("MATH_FORGE_TRACKING_DB")
            .env_remove("CLAUDE_PROJECT_DIR")
            .args(["extract", "--json", "--db"])
            .arg(self.db())
            .arg("--all")
            .arg(self.root())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        serde_json::from_str(stdout.lines().last().unwrap()).unwrap()
    }

    fn conn(&self) -> Connection {
        Connection::open(self.db()).unwrap()
    }

    /// path below the layout → (problem id, evidence).
    fn problems(&self) -> BTreeMap<String, (Option<String>, Option<String>)> {
        let root = fs::canonicalize(self.root()).unwrap();
        let conn = self.conn();
        let mut stmt = conn
            .prepare("SELECT path, problem_id, problem_evidence FROM sources")
            .unwrap();
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get(1)?, r.get(2)?)))
            .unwrap();
        rows.map(Result::unwrap)
            .map(|(p, id, ev)| {
                let rel = Path::new(&p).strip_prefix(&root).unwrap().display();
                (rel.to_string(), (id, ev))
            })
            .collect()
    }

    fn mk_json(&self, args: &[&str]) -> Value {
        let mut all: Vec<&str> = args.to_vec();
        let db = self.db();
        all.extend(["--db", db.to_str().unwrap()]);
        mk_json(self.dir.path(), &all)
    }
}

fn copy_tree(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn expect(
    found: &BTreeMap<String, (Option<String>, Option<String>)>,
    want: &[(&str, Option<&str>, Option<&str>)],
) {
    for (path, id, evidence) in want {
        let got = found
            .get(*path)
            .unwrap_or_else(|| panic!("{path} not stored: {found:?}"));
        assert_eq!(
            (got.0.as_deref(), got.1.as_deref()),
            (*id, *evidence),
            "{path}"
        );
    }
}

/// A file of many problems' statements is none of them, and creates no problem of its own
/// name; each theorem named after a problem is a statement of that problem, ranked below what
/// a file of that problem alone states, and its facts are that problem's.
#[test]
fn a_collection_is_no_problem_its_theorems_are_theirs() {
    let l = Layout::of("collection");
    l.extract();
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
    let problems: Vec<String> = conn
        .prepare("SELECT id FROM problems ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
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
    let l = Layout::of("campaign");
    l.extract();
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
                Some("sketch"),
            ),
            // `gap_7` names one submission (an input and its output): no campaign target, so
            // another file's title naming it does not join it.
            (
                &format!("{s}slot405_gap_7_main_aristotle.lean"),
                Some("gap_7"),
                Some("sketch"),
            ),
            (
                &format!("{s}slot406_gap_bridge.lean"),
                Some("gap_bridge"),
                Some("sketch"),
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
    let l = Layout::of("copy_folders");
    l.extract();
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
    let again = l.extract();
    assert_eq!(
        (
            again["summary"]["unchanged"].as_u64(),
            again["summary"]["replaced"].as_u64()
        ),
        (Some(3), Some(0)),
        "{again}"
    );
}
