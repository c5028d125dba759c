//! What the files of a run are to each other: which are modules of a Lean package (a library
//! other files build on) and which are tests. Neither states a problem of its own, so the
//! users' sketch naming, the weakest evidence, never makes one of them a problem.
//!
//! A file is a package module when another file of the run imports it (`import A.B.C` and a
//! path ending `A/B/C.lean`), when it lies below a directory `D` that has a root module
//! `D.lean` beside it (Lean's package layout: `LeanAPAP.lean` and `LeanAPAP/`), when it is
//! such a root module itself, or when it is Lake's build file (`lakefile.lean`). A file is a
//! test when a directory above it is called `test` or `tests`, or its name starts with
//! `test_`.

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
}

impl Layout {
    /// Reads the structure of `files`, each with the modules it imports.
    pub fn new<'a>(files: impl IntoIterator<Item = (&'a Path, Vec<String>)>) -> Layout {
        let mut imported = HashSet::new();
        let mut checked: HashMap<PathBuf, bool> = HashMap::new();
        let mut roots = HashSet::new();
        for (path, imports) in files {
            imported.extend(imports);
            if path.with_extension("").is_dir() {
                roots.insert(path.to_path_buf());
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
        }
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
    let in_tests = path.ancestors().skip(1).take(LEVELS).any(|d| {
        d.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.eq_ignore_ascii_case("test") || n.eq_ignore_ascii_case("tests"))
    });
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("")
        .to_ascii_lowercase();
    in_tests || stem.starts_with("test_")
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
