//! Finding the Lean files named on a command line.

use std::path::{Path, PathBuf};

/// Why a command-line path yielded no files.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error("{0}: no such file or directory")]
    Missing(PathBuf),
    #[error("{0}: directory contains no .lean files")]
    NoLeanFiles(PathBuf),
    #[error("{path}: {reason}")]
    Unreadable { path: PathBuf, reason: String },
}

impl WalkError {
    /// The command-line path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            WalkError::Missing(path) | WalkError::NoLeanFiles(path) => path,
            WalkError::Unreadable { path, .. } => path,
        }
    }
}

/// How a directory walk treats ignore files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IgnoreRules {
    /// Every `.lean` file below the directory except hidden ones (`.lake`, `.git`): what
    /// extraction wants, since a results folder listed in .gitignore still holds results.
    HiddenOnly,
    /// Also honour `.gitignore`/`.ignore` files, as a linter in CI should.
    Gitignore,
}

/// The Lean files a list of paths stands for, in a stable order, plus one error per path that
/// stood for none. A file named explicitly is taken whatever its extension.
pub fn lean_files(paths: &[PathBuf], rules: IgnoreRules) -> (Vec<PathBuf>, Vec<WalkError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if path.as_os_str() == crate::lean::batch::STDIN_ARG {
            files.push(path.clone()); // standard input, read by `batch::read_and_parse`
            continue;
        }
        match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                errors.push(WalkError::Missing(path.clone()))
            }
            Err(e) => errors.push(WalkError::Unreadable {
                path: path.clone(),
                reason: crate::files::describe_io_error(&e),
            }),
            Ok(meta) if meta.is_dir() => {
                let before = files.len();
                walk_dir(path, rules, &mut files, &mut errors);
                if files.len() == before {
                    errors.push(WalkError::NoLeanFiles(path.clone()));
                }
            }
            Ok(_) => files.push(path.clone()),
        }
    }
    (files, errors)
}

fn walk_dir(dir: &Path, rules: IgnoreRules, files: &mut Vec<PathBuf>, errors: &mut Vec<WalkError>) {
    let honour = rules == IgnoreRules::Gitignore;
    let walker = ignore::WalkBuilder::new(dir)
        .hidden(true)
        .git_ignore(honour)
        .git_global(honour)
        .git_exclude(honour)
        .ignore(honour)
        .parents(honour)
        .require_git(false)
        .sort_by_file_path(|a, b| a.cmp(b))
        .build();
    for entry in walker {
        match entry {
            Ok(entry) => {
                let is_file = entry.file_type().is_some_and(|t| t.is_file());
                if is_file && entry.path().extension().is_some_and(|e| e == "lean") {
                    files.push(entry.into_path());
                }
            }
            Err(e) => errors.push(WalkError::Unreadable {
                path: dir.to_path_buf(),
                reason: e.to_string(),
            }),
        }
    }
}
