//! Metamorphic tests of problem identity: the same files under other folders keep their
//! problems. A problem comes from evidence (the file's own words, a folder or a name in a
//! known scheme, the users' submission naming); a folder that is in no scheme (the root's
//! name, a date, a folder the project was put in, `My Results (copy)`) changes nothing, and
//! neither does how the run names the files (relative or absolute, from which folder).
//!
//! `fixtures/identity/layouts` holds invented layouts (a miniF2F-style split, an Erdős tree
//! by folder, a contest tree by folders, a library tree, a package's `Main.lean`, a textbook
//! chapter, a game level, a dated run folder, a sketch and its output, a test). The real
//! corpora are moved the same way when they are beside the project (skipped visibly without).

mod common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use common::corpora::Corpus;
use common::layout::expect_problems;
use rusqlite::Connection;

type Found = BTreeMap<String, (Option<String>, Option<String>)>;

/// The layout's files, relative to `fixtures/identity/layouts`.
fn layout_files() -> Vec<PathBuf> {
    let root = common::fixture("identity/layouts");
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "lean") {
                out.push(path.strip_prefix(&root).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// Places `files` (relative to `from`) at `place(file)` below `top`, by hard link where the
/// file system allows (the corpora are large), else by copy.
fn place_all(from: &Path, files: &[PathBuf], top: &Path, place: &dyn Fn(&Path) -> PathBuf) {
    for file in files {
        let to = top.join(place(file));
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        if fs::hard_link(from.join(file), &to).is_err() {
            fs::copy(from.join(file), &to).unwrap();
        }
    }
}

/// `mf extract --db DB --all DIR` run in `cwd`, isolated from the caller's environment.
fn extract(cwd: &Path, db: &Path, args: &[&str]) {
    let mut cmd = Command::cargo_bin("mf").unwrap();
    common::isolate(&mut cmd, cwd);
    let out = cmd
        .current_dir(cwd)
        .arg("extract")
        .arg("-q")
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("internal error"), "{stderr}");
}

/// Stored path → (problem, evidence), the path made relative to `top`.
fn stored(db: &Path, top: &Path) -> Found {
    let top = fs::canonicalize(top).unwrap();
    common::layout::sources(&Connection::open(db).unwrap())
        .into_iter()
        .map(|(p, id, ev)| {
            let rel = Path::new(&p).strip_prefix(&top).unwrap_or(Path::new(&p));
            (rel.display().to_string(), (id, ev))
        })
        .collect()
}

/// One way of moving a tree: where each file goes (below the scratch folder), which folder
/// the run walks and from where, and what a repository marker is added.
struct Move {
    name: &'static str,
    place: Box<dyn Fn(&Path) -> PathBuf>,
    /// Folder walked (`--all`), below the scratch folder.
    walk: &'static str,
    /// Folder the run starts in, below the scratch folder (the walked folder is then given
    /// relative to it).
    cwd: &'static str,
    /// A folder below the scratch folder given a `.git` (a repository's root).
    repository: Option<&'static str>,
}

fn prefixed(prefix: &'static str) -> Box<dyn Fn(&Path) -> PathBuf> {
    Box::new(move |f: &Path| Path::new(prefix).join(f))
}

/// The moves every tree is put through. None names a folder in a known scheme.
fn moves() -> Vec<Move> {
    vec![
        Move {
            name: "the root renamed",
            place: prefixed("Other Root"),
            walk: "Other Root",
            cwd: "",
            repository: None,
        },
        Move {
            name: "two folders deeper, walked from the top",
            place: prefixed("x/y/work"),
            walk: ".",
            cwd: "",
            repository: None,
        },
        Move {
            name: "in a folder per run named by its date",
            place: prefixed("2026-11-03/work"),
            walk: "2026-11-03",
            cwd: "",
            repository: None,
        },
        Move {
            name: "Windows-ish names with spaces",
            place: prefixed("My Results (copy) 2/Lean Work"),
            walk: "My Results (copy) 2",
            cwd: "",
            repository: None,
        },
        Move {
            name: "in a folder called tests, walked there",
            place: prefixed("tests/work"),
            walk: "tests",
            cwd: "",
            repository: None,
        },
        Move {
            name: "a repository in a folder called tests, walked from above",
            place: prefixed("tests/repo"),
            walk: ".",
            cwd: "",
            repository: Some("tests/repo"),
        },
        Move {
            name: "walked as `.` from inside, relative paths",
            place: prefixed("work"),
            walk: ".",
            cwd: "work",
            repository: None,
        },
    ]
}

/// Extracts `files` of `from` moved by `m` into a fresh knowledge base: original relative
/// path → (problem, evidence).
fn moved(from: &Path, files: &[PathBuf], m: &Move) -> Found {
    let scratch = tempfile::TempDir::new().unwrap();
    let top = scratch.path().join("t");
    place_all(from, files, &top, &*m.place);
    if let Some(repo) = m.repository {
        fs::create_dir_all(top.join(repo).join(".git")).unwrap();
    }
    let db = scratch.path().join("knowledge.db");
    let cwd = top.join(m.cwd);
    let walk = top.join(m.walk);
    let walk_arg = walk
        .strip_prefix(&cwd)
        .map(|p| {
            if p.as_os_str().is_empty() {
                PathBuf::from(".")
            } else {
                p.to_path_buf()
            }
        })
        .unwrap_or(walk.clone());
    extract(&cwd, &db, &["--all", walk_arg.to_str().unwrap()]);
    let found = stored(&db, &top);
    // Back to the original names.
    let back: BTreeMap<String, String> = files
        .iter()
        .map(|f| ((m.place)(f).display().to_string(), f.display().to_string()))
        .collect();
    found
        .into_iter()
        .map(|(p, v)| (back.get(&p).cloned().unwrap_or(p), v))
        .collect()
}

/// The files whose problem or evidence differ between `a` and `b`.
fn differences(a: &Found, b: &Found) -> Vec<String> {
    let mut out = Vec::new();
    for (path, got) in a {
        match b.get(path) {
            Some(other) if other == got => {}
            other => out.push(format!("{path}: {got:?} then {other:?}")),
        }
    }
    for path in b.keys().filter(|p| !a.contains_key(*p)) {
        out.push(format!("{path}: only after the move"));
    }
    out
}

/// The invented layouts, each file with the problem its evidence gives: siblings of known
/// schemes are named as the schemes name them, a library module, a package's `Main.lean`, a
/// textbook's lemma, a game level and a dated run's file are no problem, whatever their names.
#[test]
fn invented_layouts_are_named_by_their_schemes_and_nothing_else() {
    let from = common::fixture("identity/layouts");
    let files = layout_files();
    let base = moved(&from, &files, &moves()[0]);
    expect_problems(
        &base,
        &[
            (
                "minif2f/Valid/mathd_algebra_12.lean",
                Some("mathd_algebra_12"),
                Some("theorem"),
            ),
            (
                "minif2f/Test/amc12a_2020_p5.lean",
                Some("amc12a_2020_p5"),
                Some("theorem"),
            ),
            // A benchmark's `Test/` split is no test folder: its statement named as its file is
            // the benchmark's problem, as in `Valid/`.
            (
                "minif2f/Test/algebra_2rootsintpoly_am10tap11eqsqrt2.lean",
                Some("algebra_2rootsintpoly_am10tap11eqsqrt2"),
                Some("file_name"),
            ),
            ("Erdos/Problem123.lean", Some("erdos_123"), Some("folder")),
            (
                "Problems/IMO/2019/P1.lean",
                Some("imo_2019_p1"),
                Some("folder"),
            ),
            (
                "aops/amc12a_2021_p7.lean",
                Some("amc12a_2021_p7"),
                Some("theorem"),
            ),
            (
                "putnam/putnam_1988_b1.lean",
                Some("putnam_1988_b1"),
                Some("theorem"),
            ),
            // No scheme, no pipeline: a file name is no problem.
            ("Mathlib/Algebra/Group/Basic.lean", None, None),
            ("pkg/Main.lean", None, None),
            ("pkg/Pkg.lean", None, Some("library")),
            ("pkg/Pkg/Basic.lean", None, Some("library")),
            ("runs/2026-11-03/output.lean", None, None),
            // A year's folder of an archive is no contest: an unknown contest is read from one
            // name only, never assembled from folders.
            ("archive/2025/P3.lean", None, None),
            ("book/Chapter3/Lemma2.lean", None, None),
            ("game/Levels/L05.lean", None, None),
            // A sketch and Aristotle's output of it: the users' naming, both.
            (
                "sketches/knot_bound_v2.lean",
                Some("knot_bound"),
                Some("topic"),
            ),
            (
                "sketches/knot_bound_v2_result.lean",
                Some("knot_bound"),
                Some("topic"),
            ),
            ("checks/tests/check_bound.lean", None, Some("test")),
        ],
        true,
    );
}

/// Every move keeps every file's problem and evidence.
#[test]
fn moving_the_invented_layouts_changes_no_identity() {
    let from = common::fixture("identity/layouts");
    let files = layout_files();
    let moves = moves();
    let base = moved(&from, &files, &moves[0]);
    for m in &moves[1..] {
        let after = moved(&from, &files, m);
        let diff = differences(&base, &after);
        assert!(diff.is_empty(), "{}:\n{}", m.name, diff.join("\n"));
    }
}

/// An output kept in a `results/` tree of its own names its input as one beside it does; a
/// file moved out of its folders (flattened) keeps a problem its own words or name gave.
#[test]
fn results_apart_and_flattened_files_keep_their_problems() {
    let from = common::fixture("identity/layouts");
    let files = layout_files();
    let base = moved(&from, &files, &moves()[0]);
    let apart = Move {
        name: "outputs in a results tree",
        place: Box::new(|f: &Path| {
            let name = f.file_name().unwrap().to_str().unwrap();
            if name.ends_with("_result.lean") {
                Path::new("results/2026-11-03").join(name)
            } else {
                Path::new("inputs").join(f)
            }
        }),
        walk: ".",
        cwd: "",
        repository: None,
    };
    let after = moved(&from, &files, &apart);
    let diff = differences(&base, &after);
    assert!(diff.is_empty(), "{}:\n{}", apart.name, diff.join("\n"));
    // Flattened: the files whose problem no folder gave keep it (a folder's evidence goes
    // with the folder, and a library's structure with its package).
    let own: Vec<PathBuf> = files
        .iter()
        .filter(|f| {
            let evidence = base[&f.display().to_string()].1.as_deref();
            matches!(evidence, Some("theorem" | "file_name" | "topic"))
        })
        .cloned()
        .collect();
    assert!(own.len() >= 6, "{own:?}");
    let flat = Move {
        name: "flattened",
        place: Box::new(|f: &Path| Path::new("flat").join(f.file_name().unwrap())),
        walk: "flat",
        cwd: "",
        repository: None,
    };
    let after = moved(&from, &own, &flat);
    let kept: Found = base
        .iter()
        .filter(|(p, _)| own.iter().any(|f| f.display().to_string() == **p))
        .map(|(p, v)| (p.clone(), v.clone()))
        .collect();
    let diff = differences(&kept, &after);
    assert!(diff.is_empty(), "flattened:\n{}", diff.join("\n"));
}

/// A file given alone, relative to the folder the command runs in, is named by its folders as
/// when given by its full path.
#[test]
fn a_file_given_relative_to_its_folder_keeps_its_folder_evidence() {
    let scratch = tempfile::TempDir::new().unwrap();
    let top = scratch.path().join("t");
    let from = common::fixture("identity/layouts");
    place_all(
        &from,
        &[PathBuf::from("Erdos/Problem123.lean")],
        &top,
        &|f: &Path| f.to_path_buf(),
    );
    let db = scratch.path().join("knowledge.db");
    extract(&top.join("Erdos"), &db, &["Problem123.lean"]);
    let found = stored(&db, &top);
    expect_problems(
        &found,
        &[("Erdos/Problem123.lean", Some("erdos_123"), Some("folder"))],
        true,
    );
}

/// The real corpora, moved: a renamed root two folders deeper, in a dated folder with spaces,
/// walked from a folder called `tests`. Only `files_limit` files of each are moved (the
/// whole folders a layout's naming needs), to keep the test's time bounded.
fn corpus_keeps_identity(corpus: Corpus, parts: &[&str]) {
    let Some(root) = corpus.dir() else { return };
    let mut files = Vec::new();
    for part in parts {
        let dir = root.join(part);
        if !dir.is_dir() {
            common::say_skipped(&format!(
                "{}: {} has no {part}; that part is skipped",
                common::test_name(),
                root.display()
            ));
            continue;
        }
        let mut stack = vec![dir];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else if path.extension().is_some_and(|e| e == "lean") {
                    files.push(path.strip_prefix(&root).unwrap().to_path_buf());
                }
            }
        }
    }
    files.sort();
    let base = moved(
        &root,
        &files,
        &Move {
            name: "as it is",
            place: prefixed("corpus"),
            walk: "corpus",
            cwd: "",
            repository: None,
        },
    );
    assert!(base.len() >= files.len() / 2, "{} stored", base.len());
    let m = Move {
        name: "renamed, deeper, dated, spaces, below tests",
        place: prefixed("tests/2026-11-03 run (copy)/a/b/Other Corpus"),
        walk: "tests",
        cwd: "",
        repository: None,
    };
    let after = moved(&root, &files, &m);
    let diff = differences(&base, &after);
    assert!(
        diff.is_empty(),
        "{} of {} files changed: {}\n{}",
        diff.len(),
        base.len(),
        m.name,
        diff.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn the_users_corpus_moved_keeps_identity() {
    corpus_keeps_identity(
        Corpus::Results,
        &[
            "aristotle-math-problems/submissions/nu4_final",
            "aristotle-math-problems/tests",
            "aristotle-math-problems/results_v07",
            "aristotle-math-problems/proven",
        ],
    );
}

#[test]
fn the_public_corpus_moved_keeps_identity() {
    corpus_keeps_identity(
        Corpus::Public,
        &[
            "dwrensha__compfiles",
            "leanprover-community__NNG4",
            "teorth__analysis/Analysis/Misc",
            "ByteDance-Seed__Seed-Prover/SeedProver/imo.zip.d",
        ],
    );
}

/// tracking.db names a file's problem by the request uuid its header carries (in any letter
/// case), else by the file it records (`output_file`, `filename`); its spelling of a scheme's
/// id is read into the canonical one, so that the file joins the problem other files name
/// (`ErdosProblems/850` and a theorem `erdos_850` are one problem), its spelling an alias.
#[test]
fn tracking_db_names_files_by_uuid_and_by_path_in_the_canonical_spelling() {
    let scratch = tempfile::TempDir::new().unwrap();
    let top = scratch.path().join("t");
    fs::create_dir_all(top.join("pipeline/results")).unwrap();
    fs::write(
        top.join("pipeline/run_a.lean"),
        "/-\nThis file was edited by Aristotle.\n\nLean version: leanprover/lean4:v4.24.0\n\
         This project request had uuid: 11111111-2222-4333-8444-555555555555\n-/\n\n\
         theorem some_claim (n : Nat) : n ≤ n + 1 := by omega\n",
    )
    .unwrap();
    fs::write(
        top.join("pipeline/other.lean"),
        "theorem erdos_850 (n : Nat) : n ≤ n + 2 := by omega\n",
    )
    .unwrap();
    fs::write(
        top.join("pipeline/results/attempt_9.lean"),
        "theorem a_step (n : Nat) : n ≤ n + 3 := by omega\n",
    )
    .unwrap();
    let tracking = scratch.path().join("tracking.db");
    let conn = Connection::open(&tracking).unwrap();
    conn.execute_batch(
        "CREATE TABLE submissions (id INTEGER PRIMARY KEY, uuid TEXT UNIQUE, filename TEXT,
             problem_id TEXT, status TEXT, output_file TEXT);
         INSERT INTO submissions VALUES
           (1, '11111111-2222-4333-8444-555555555555', 'a.lean', 'ErdosProblems/850', 'completed', NULL),
           (2, 'ABCDEF00-2222-4333-8444-555555555555', 'attempt_9_input.lean', 'tuza_nu4',
            'completed', 'results/attempt_9.lean');",
    )
    .unwrap();
    drop(conn);
    let db = scratch.path().join("knowledge.db");
    extract(
        &top,
        &db,
        &[
            "--tracking",
            tracking.to_str().unwrap(),
            "--all",
            "pipeline",
        ],
    );
    expect_problems(
        &stored(&db, &top),
        &[
            ("pipeline/run_a.lean", Some("erdos_850"), Some("tracking")),
            ("pipeline/other.lean", Some("erdos_850"), Some("theorem")),
            (
                "pipeline/results/attempt_9.lean",
                Some("tuza_nu4"),
                Some("tracking"),
            ),
        ],
        true,
    );
    let kb = Connection::open(&db).unwrap();
    let problems: Vec<String> = kb
        .prepare("SELECT id FROM problems ORDER BY id")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(problems, ["erdos_850", "tuza_nu4"]);
    let alias: String = kb
        .query_row(
            "SELECT problem_id FROM problem_aliases WHERE alias = 'ErdosProblems/850'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(alias, "erdos_850");
}
