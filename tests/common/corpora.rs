//! The real corpora beside the project (`../shared/…`), for tests that need them.
//!
//! A clone without `../shared` must pass the suite, so a test that needs a corpus calls
//! [`Corpus::dir`] and returns when it gives `None`: the skip is then printed as one line on
//! the terminal, past the test harness's output capture (which hides `eprintln!` of a passing
//! test), naming the folder that is missing and the variable that points elsewhere.
//!
//! - A variable that is set must name a directory: a wrong path is a failure, never a skip.
//! - `MF_REQUIRE_CORPORA=1` (CI, where `../shared` is checked out) turns every skip into a
//!   failure, so a corpus that silently went missing cannot pass as green.
//! - `MF_SHARED` names another folder to look in instead of `../shared` (the suite's own test
//!   of the skip points it at an empty folder).

use std::path::PathBuf;

/// A corpus the suite can run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Corpus {
    /// The users' own result files: `../shared/corpus`, or `$MF_CORPUS`.
    Results,
    /// Public Lean 4 projects, one folder each: `../shared/corpus-public`, or
    /// `$MF_CORPUS_PUBLIC`.
    Public,
    /// Public metaprogramming projects (syntax quotations, elaborators, Verso documents):
    /// `../shared/corpus-meta`, or `$MF_CORPUS_META`.
    Meta,
}

impl Corpus {
    /// The variable that points to the corpus elsewhere.
    pub fn variable(self) -> &'static str {
        match self {
            Corpus::Results => "MF_CORPUS",
            Corpus::Public => "MF_CORPUS_PUBLIC",
            Corpus::Meta => "MF_CORPUS_META",
        }
    }

    /// The corpus's folder in `../shared`.
    pub fn folder(self) -> &'static str {
        match self {
            Corpus::Results => "corpus",
            Corpus::Public => "corpus-public",
            Corpus::Meta => "corpus-meta",
        }
    }

    /// Where the corpus is when its variable is not set: in `$MF_SHARED`, else in `../shared`
    /// beside the project. The second value is the path as the skip line shows it.
    pub fn default_dir(self) -> (PathBuf, String) {
        match std::env::var_os("MF_SHARED").filter(|v| !v.is_empty()) {
            Some(shared) => {
                let dir = PathBuf::from(shared).join(self.folder());
                let shown = dir.display().to_string();
                (dir, shown)
            }
            None => (
                PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("../shared")
                    .join(self.folder()),
                format!("../shared/{}", self.folder()),
            ),
        }
    }

    /// The corpus directory, or `None` after printing the skip line when it is absent (see the
    /// module documentation for when that is a failure instead).
    pub fn dir(self) -> Option<PathBuf> {
        let var = self.variable();
        if let Some(given) = std::env::var_os(var).filter(|v| !v.is_empty()) {
            let dir = PathBuf::from(given);
            assert!(
                dir.is_dir(),
                "${var} is {}, which is not a directory: point it at the corpus or unset it",
                dir.display()
            );
            return Some(dir);
        }
        let (dir, shown) = self.default_dir();
        if dir.is_dir() {
            return Some(dir);
        }
        let line = skip_line(&shown, var);
        assert!(
            std::env::var_os("MF_REQUIRE_CORPORA").is_none_or(|v| v.is_empty() || v == "0"),
            "{line} (and MF_REQUIRE_CORPORA is set)"
        );
        super::say_skipped(&line);
        None
    }
}

/// `SKIPPED name: ../shared/corpus not found (set MF_CORPUS to use a copy elsewhere)`.
fn skip_line(shown: &str, var: &str) -> String {
    format!(
        "SKIPPED {}: {shown} not found (set {var} to use a copy elsewhere)",
        super::test_name()
    )
}
