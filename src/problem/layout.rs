//! What the files of a run are to each other: which are modules of a Lean package (a library
//! other files build on) and which are tests. Neither states a problem of its own, so the
//! users' sketch naming, the weakest evidence, never makes one of them a problem.
//!
//! A file is a package module when another file of the run imports it (`import A.B.C` and a
//! path ending `A/B/C.lean`), when it lies below a directory `D` that has a root module
//! `D.lean` beside it (Lean's package layout: `LeanAPAP.lean` and `LeanAPAP/`), when it is
//! such a root module itself, or when it is Lake's build file (`lakefile.lean`). A file is a
//! test when a directory above it inside its project is called `test` or `tests`, or its name
//! starts with `test_`. Its project is below the nearest folder that holds a Lean project or a
//! repository (`lakefile.lean`, `lakefile.toml`, `lean-toolchain`, `.git`), else below the
//! folder the run walked (`mf extract --all DIR`): the folders above it are where someone put
//! the project (`~/tests/run1/…`), and say nothing about what its files are.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Directory levels looked at above a file.
const LEVELS: usize = 8;

/// The package and test structure of the files of one run.
#[derive(Debug, Default)]
pub struct Layout {
    /// Module names (`A.B.C`) some file of the run imports.
    imported: HashSet<String>,
    /// Directories with a root module beside them.
    package_dirs: HashSet<PathBuf>,
    /// Root modules (`D.lean` beside a directory `D`).
    roots: HashSet<PathBuf>,
    /// Folders above the files that hold a Lean project or a repository ([`PROJECT_MARKERS`]).
    projects: HashSet<PathBuf>,
    /// The folders the run walked (`--all DIR`), canonical.
    walked: Vec<PathBuf>,
}

/// What a folder holding a Lean project or a repository has in it.
const PROJECT_MARKERS: &[&str] = &["lakefile.lean", "lakefile.toml", "lean-toolchain", ".git"];

impl Layout {
    /// Reads the structure of `files`, each with the modules it imports.
    pub fn new<'a>(files: impl IntoIterator<Item = (&'a Path, Vec<String>)>) -> Layout {
        let mut imported = HashSet::new();
        let mut checked: HashMap<PathBuf, bool> = HashMap::new();
        let mut roots = HashSet::new();
        let mut marked: HashMap<PathBuf, bool> = HashMap::new();
        for (path, imports) in files {
            imported.extend(imports);
            if path.with_extension("").is_dir() {
                roots.insert(path.to_path_buf());
            }
            for dir in path.ancestors().skip(1) {
                if dir.as_os_str().is_empty() || marked.contains_key(dir) {
                    break;
                }
                let project = PROJECT_MARKERS.iter().any(|m| dir.join(m).exists());
                marked.insert(dir.to_path_buf(), project);
            }
            for dir in path.ancestors().skip(1).take(LEVELS) {
                if checked.contains_key(dir) {
                    continue;
                }
                let root = dir.file_name().is_some_and(|name| {
                    let mut file = name.to_os_string();
                    file.push(".lean");
                    dir.with_file_name(file).is_file()
                });
                checked.insert(dir.to_path_buf(), root);
            }
        }
        Layout {
            imported,
            package_dirs: checked
                .into_iter()
                .filter_map(|(d, root)| root.then_some(d))
                .collect(),
            roots,
            projects: marked
                .into_iter()
                .filter_map(|(d, project)| project.then_some(d))
                .collect(),
            walked: Vec::new(),
        }
    }

    /// The same, knowing the folders the run walked (`--all DIR`): a file outside any Lean
    /// project or repository has its project below the nearest of them.
    pub fn with_walked(mut self, dirs: impl IntoIterator<Item = PathBuf>) -> Layout {
        self.walked = dirs
            .into_iter()
            .map(|d| std::fs::canonicalize(&d).unwrap_or(d))
            .collect();
        self
    }

    /// The folder `path`'s project is below: the nearest holding a Lean project or a
    /// repository, else the nearest folder the run walked; `None` when neither is above it.
    fn project_of<'a>(&'a self, path: &'a Path) -> Option<&'a Path> {
        path.ancestors()
            .skip(1)
            .find(|d| self.projects.contains(*d))
            .or_else(|| {
                self.walked
                    .iter()
                    .filter(|w| path.starts_with(w) && path != w.as_path())
                    .max_by_key(|w| w.components().count())
                    .map(PathBuf::as_path)
            })
    }

    /// Whether `path` is a test ([`is_test_below`]), below its project's folder.
    pub fn is_test(&self, path: &Path) -> bool {
        is_test_below(path, self.project_of(path))
    }

    /// Whether `path` is a module of a package: imported by another file of the run, below a
    /// directory with a root module beside it, a root module, or Lake's build file.
    pub fn is_library(&self, path: &Path) -> bool {
        let lake = path
            .file_stem()
            .is_some_and(|s| s.eq_ignore_ascii_case("lakefile"));
        if lake || self.roots.contains(path) {
            return true;
        }
        let imported = module_names(path).iter().any(|m| self.imported.contains(m));
        imported
            || path
                .ancestors()
                .skip(1)
                .take(LEVELS)
                .any(|d| self.package_dirs.contains(d))
    }
}

/// Whether `path` is a test: below a `test`/`tests` directory, or named `test_…`.
pub fn is_test(path: &Path) -> bool {
    is_test_below(path, None)
}

/// Whether `path` is a test: below a `test`/`tests` directory that is itself below `project`
/// (any, without one), or named `test_…`.
pub fn is_test_below(path: &Path, project: Option<&Path>) -> bool {
    let inside = |d: &Path| project.is_none_or(|p| d != p && d.starts_with(p));
    let in_tests = path
        .ancestors()
        .skip(1)
        .take(LEVELS)
        .take_while(|d| inside(d))
        .any(|d| {
            d.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.eq_ignore_ascii_case("test") || n.eq_ignore_ascii_case("tests"))
        });
    in_tests || is_named_test(path)
}

/// Whether `path` is named as a test: `test_…`.
pub fn is_named_test(path: &Path) -> bool {
    path.file_stem()
        .and_then(|s| s.to_str())
        .is_some_and(|s| s.to_ascii_lowercase().starts_with("test_"))
}

/// The module names `path` can be imported by: `C`, `B.C`, `A.B.C`, … for `…/A/B/C.lean`.
fn module_names(path: &Path) -> Vec<String> {
    let stem = path.with_extension("");
    let parts: Vec<&str> = stem.iter().filter_map(|p| p.to_str()).collect();
    (1..=parts.len().min(LEVELS))
        .map(|n| parts[parts.len() - n..].join("."))
        .collect()
}

/// The modules a Lean file imports, read from its header without parsing: `import A.B`,
/// `public import A.B C`, `meta import …`, after `module`/`prelude` and comments. Stops at the
/// first other command, and after a bounded prefix of the file.
pub fn imports(bytes: &[u8]) -> Vec<String> {
    const PREFIX: usize = 64 * 1024;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(PREFIX)]);
    let mut out = Vec::new();
    let mut rest: &str = &text;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("/-") {
            rest = skip_block_comment(after);
            continue;
        }
        if rest.starts_with("--") {
            rest = rest.split_once('\n').map_or("", |(_, r)| r);
            continue;
        }
        let (line, next) = rest.split_once('\n').unwrap_or((rest, ""));
        let line = line.split("--").next().unwrap_or("").trim();
        let mut words = line.split_whitespace().peekable();
        while matches!(words.peek(), Some(&("public" | "private" | "meta"))) {
            words.next();
        }
        match words.next() {
            Some("import") => out.extend(
                words
                    .map(|w| w.trim_start_matches("all ").to_string())
                    .filter(|w| w != "all"),
            ),
            Some("module" | "prelude") if words.peek().is_none() => {}
            _ => break,
        }
        rest = next;
    }
    out
}

/// The text after a (nested) block comment whose opening `/-` was already read.
fn skip_block_comment(mut s: &str) -> &str {
    let mut depth = 1;
    while depth > 0 {
        let open = s.find("/-");
        let close = s.find("-/");
        match (open, close) {
            (Some(o), Some(c)) if o < c => {
                depth += 1;
                s = &s[o + 2..];
            }
            (_, Some(c)) => {
                depth -= 1;
                s = &s[c + 2..];
            }
            _ => return "",
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_are_read_from_the_header() {
        let text = b"/-\nCopyright\n-/\nmodule\n\npublic import Mathlib\npublic meta import Mathlib.Data.Nat.MaxPowDiv\nimport ProblemExtraction -- the commands\n\n@[expose] public section\nimport NotAnImport\n";
        assert_eq!(
            imports(text),
            ["Mathlib", "Mathlib.Data.Nat.MaxPowDiv", "ProblemExtraction"]
        );
        assert_eq!(
            imports(b"import A B\nimport C.D\ntheorem x : True := trivial"),
            ["A", "B", "C.D"]
        );
        assert!(imports(b"theorem x : True := trivial\nimport A").is_empty());
    }

    #[test]
    fn modules_are_named_by_their_path() {
        let names = module_names(Path::new("/p/Erdos/Common/Primes.lean"));
        assert_eq!(
            names[..3],
            ["Primes", "Common.Primes", "Erdos.Common.Primes"]
        );
    }

    #[test]
    fn tests_are_recognised_by_directory_or_name() {
        assert!(is_test(Path::new(
            "math-forge/tests/fixtures/sample_failed.lean"
        )));
        assert!(is_test(Path::new("analysis/test_slot300_cover.lean")));
        assert!(!is_test(Path::new(
            "fixtures/results/slot614_erdos_850_result.lean"
        )));
        assert!(!is_test(Path::new("submissions/contest_entry.lean")));
    }

    #[test]
    fn a_test_folder_counts_only_inside_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("tests");
        // A repository put in a folder called `tests`: its files are no tests, its own
        // `tests/` folder holds tests.
        std::fs::create_dir_all(root.join("repo/.git")).unwrap();
        std::fs::create_dir_all(root.join("repo/tests")).unwrap();
        std::fs::create_dir_all(root.join("loose/tests")).unwrap();
        let file = root.join("repo/Sketch.lean");
        let test = root.join("repo/tests/Check.lean");
        let loose = root.join("loose/Sketch.lean");
        let loose_test = root.join("loose/tests/Check.lean");
        let files = [&file, &test, &loose, &loose_test];
        let layout = Layout::new(files.iter().map(|f| (f.as_path(), vec![])));
        assert!(!layout.is_test(&file));
        assert!(layout.is_test(&test));
        // Outside any project, every folder counts, unless the run walked a folder: then the
        // folders above it (and its own name) say nothing.
        assert!(layout.is_test(&loose));
        let layout =
            Layout::new(files.iter().map(|f| (f.as_path(), vec![]))).with_walked([root.clone()]);
        assert!(!layout.is_test(&loose));
        assert!(layout.is_test(&loose_test));
    }

    #[test]
    fn imported_and_rooted_files_are_library_modules() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("Pkg/Sub")).unwrap();
        std::fs::write(root.join("Pkg.lean"), "import Pkg.Sub.A").unwrap();
        let a = root.join("Pkg/Sub/A.lean");
        let loose = root.join("loose/B.lean");
        let used = root.join("loose/Helpers.lean");
        let layout = Layout::new([
            (a.as_path(), vec![]),
            (loose.as_path(), vec!["Helpers".to_string()]),
            (used.as_path(), vec![]),
        ]);
        assert!(
            layout.is_library(&a),
            "below a directory with a root module"
        );
        assert!(layout.is_library(&used), "imported by another file");
        assert!(!layout.is_library(&loose));
        let root_module = root.join("Pkg.lean");
        let layout = Layout::new([(root_module.as_path(), vec![])]);
        assert!(layout.is_library(&root_module), "a root module");
        assert!(layout.is_library(Path::new("lean4/lakefile.lean")));
    }
}
