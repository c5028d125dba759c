//! What both binaries share about ending a run: the exit-code contract, and how unreadable
//! inputs are reported (an error for a file the user named; a warning and a count for a file
//! that is not Lean text found under a directory, an error again with `--strict`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::lean::source::SourceError;

/// Exit status when the check found something (lint findings, a failed verification).
pub const EXIT_FOUND: u8 = 1;

/// Exit status for a usage or input error: unknown flag, missing path, unreadable file, bad
/// database.
pub const EXIT_INPUT: u8 = 2;

/// The contract, as printed at the end of `--help`.
pub const EXIT_CODES_HELP: &str = "\
Exit status: 0 success; 1 the check found something (lint findings, verification failed);
2 usage or input error (unknown flag, missing path, unreadable file, bad database).";

/// Tracks the input problems of one run over files named on the command line or found below
/// directories.
#[derive(Debug)]
pub struct Inputs {
    named: HashSet<PathBuf>,
    strict: bool,
    /// Files found under a directory that are not Lean text, skipped.
    pub skipped: usize,
    /// Whether any input could not be used (exit status 2).
    pub failed: bool,
}

impl Inputs {
    /// For a run over `named` command-line paths; `strict` turns skips into errors.
    pub fn new(named: &[PathBuf], strict: bool) -> Inputs {
        Inputs {
            named: named.iter().cloned().collect(),
            strict,
            skipped: 0,
            failed: false,
        }
    }

    /// Reports one file that could not be read as Lean on stderr, as an error or (not Lean
    /// text found under a directory, without `--strict`) as a skip warning.
    pub fn source_error(&mut self, tool: &str, e: &SourceError) {
        self.file_error(tool, e.path(), e.is_not_text(), &e.to_string());
    }

    /// As [`Inputs::source_error`], for an error known only by its message.
    pub fn file_error(&mut self, tool: &str, path: &Path, not_text: bool, message: &str) {
        if not_text && !self.strict && !self.named.contains(path) {
            self.skipped += 1;
            note!("{tool}: warning: {message}; skipped");
        } else {
            self.failed = true;
            note!("{tool}: {message}");
        }
    }

    /// Records errors already printed (a missing path, say).
    pub fn fail_if(&mut self, failed: bool) {
        self.failed |= failed;
    }

    /// `, 22 skipped (not Lean text)` for a summary line, or nothing.
    pub fn skipped_note(&self) -> String {
        match self.skipped {
            0 => String::new(),
            n => format!(", {n} skipped (not Lean text)"),
        }
    }

    /// The exit status: [`EXIT_INPUT`] if an input failed, else `found`'s 1 or 0.
    pub fn exit(&self, found: bool) -> std::process::ExitCode {
        std::process::ExitCode::from(if self.failed {
            EXIT_INPUT
        } else if found {
            EXIT_FOUND
        } else {
            0
        })
    }
}
