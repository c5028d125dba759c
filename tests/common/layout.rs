//! A layout of fixture folders copied into a temporary directory and extracted into its own
//! knowledge base: the identity tests read which problem each file got, and what decided it.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use rusqlite::Connection;
use serde_json::Value;

use super::{fixture, mk, mk_json};

/// Every stored file of the knowledge base on `conn`: (path, problem id, evidence).
pub fn sources(conn: &Connection) -> Vec<(String, Option<String>, Option<String>)> {
    let mut stmt = conn
        .prepare("SELECT path, problem_id, problem_evidence FROM sources")
        .unwrap();
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap();
    rows.map(Result::unwrap).collect()
}

/// Copies of `fixtures/identity/<name>` below `work/` in a temporary directory (the fixtures'
/// own path holds a `fixtures` folder, which says nothing here), and a knowledge.db beside.
pub struct Layout {
    pub dir: tempfile::TempDir,
}

impl Layout {
    pub fn of(names: &[&str]) -> Layout {
        let dir = tempfile::TempDir::new().unwrap();
        for name in names {
            copy_tree(
                &fixture("identity").join(name),
                &dir.path().join("work").join(name),
            );
        }
        Layout { dir }
    }

    pub fn root(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    pub fn db(&self) -> PathBuf {
        self.dir.path().join("knowledge.db")
    }

    /// `mf extract --db` into this layout's knowledge base, with no tracking.db or project
    /// from the environment.
    fn mf_extract(&self) -> Command {
        let mut cmd = Command::cargo_bin("mf").unwrap();
        cmd.current_dir(self.dir.path())
            .env_remove("MATH_FORGE_TRACKING_DB")
            .env_remove("CLAUDE_PROJECT_DIR")
            .arg("extract")
            .arg("--db")
            .arg(self.db());
        cmd
    }

    /// `mf extract FILE`: one file alone, as a run of some files.
    pub fn extract_file(&self, file: &Path) {
        self.mf_extract().arg(file).assert().success();
    }

    /// `mf extract --json [extra] --all work/`: its JSON lines, the summary last.
    pub fn extract(&self, extra: &[&str]) -> Vec<Value> {
        let out = self
            .mf_extract()
            .arg("--json")
            .args(extra)
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
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    pub fn conn(&self) -> Connection {
        Connection::open(self.db()).unwrap()
    }

    /// The knowledge base's problem ids, sorted.
    pub fn problem_ids(&self) -> Vec<String> {
        self.conn()
            .prepare("SELECT id FROM problems ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    /// path below `work/` → (problem id, evidence).
    pub fn problems(&self) -> BTreeMap<String, (Option<String>, Option<String>)> {
        let root = fs::canonicalize(self.root()).unwrap();
        sources(&self.conn())
            .into_iter()
            .map(|(p, id, ev)| {
                let rel = Path::new(&p)
                    .strip_prefix(&root)
                    .unwrap()
                    .display()
                    .to_string();
                (rel, (id, ev))
            })
            .collect()
    }

    /// `mk … --db knowledge.db`, isolated from the caller's environment.
    pub fn mk(&self, args: &[&str]) -> std::process::Output {
        mk(self.dir.path())
            .args(args)
            .arg("--db")
            .arg(self.db())
            .output()
            .unwrap()
    }

    /// `mk … --json --db knowledge.db`.
    pub fn mk_json(&self, args: &[&str]) -> Value {
        let mut all: Vec<&str> = args.to_vec();
        let db = self.db();
        all.extend(["--db", db.to_str().unwrap()]);
        mk_json(self.dir.path(), &all)
    }
}

/// Copies the folder `from` to `to`, subfolders included.
pub fn copy_tree(from: &Path, to: &Path) {
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

/// Asserts each `(path, problem, evidence)` of `want` against `found`; with `all`, also that
/// `found` holds nothing else.
pub fn expect_problems(
    found: &BTreeMap<String, (Option<String>, Option<String>)>,
    want: &[(&str, Option<&str>, Option<&str>)],
    all: bool,
) {
    for (path, id, evidence) in want {
        let got = found
            .get(*path)
            .unwrap_or_else(|| panic!("{path} not stored: {found:#?}"));
        assert_eq!(
            (got.0.as_deref(), got.1.as_deref()),
            (*id, *evidence),
            "{path}"
        );
    }
    if all {
        assert_eq!(found.len(), want.len(), "{found:#?}");
    }
}
