//! What both binaries share about talking to the terminal: the exit-code contract, the
//! terminal flags (`--color`, `-q`), errors as one line or (with `--json`) one JSON object on
//! stderr, and how unreadable inputs are reported (an error for a file the user named; a
//! warning and a count for a file that is not Lean text found under a directory, an error
//! again with `--strict`).
//!
//! A command adopts it by flattening [`TerminalArgs`] into its `Cli` (global), calling
//! [`TerminalArgs::apply`] once with its `--json`, and reporting through [`error`] and
//! [`warning`].

use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

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

/// When to color output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set (or when `CLICOLOR_FORCE` is)
    #[default]
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    /// Whether to color a stream that `is_terminal` or not: `never`/`always` win, then a
    /// non-empty `NO_COLOR` turns color off, then `CLICOLOR_FORCE` (not `0`) turns it on.
    pub fn enabled(self, is_terminal: bool) -> bool {
        let set = |name| std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0");
        match self {
            ColorChoice::Never => false,
            ColorChoice::Always => true,
            ColorChoice::Auto if set("NO_COLOR") => false,
            ColorChoice::Auto if set("CLICOLOR_FORCE") => true,
            ColorChoice::Auto => is_terminal,
        }
    }
}

/// The terminal flags every command takes.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct TerminalArgs {
    /// When to color output: auto (a terminal, no NO_COLOR), always, never
    #[arg(long, global = true, value_enum, default_value_t, value_name = "WHEN")]
    pub color: ColorChoice,
    /// Print no warnings, progress or summary lines on stderr; errors still print
    #[arg(short, long, global = true)]
    pub quiet: bool,
}

static COLOR: AtomicU8 = AtomicU8::new(0);
static QUIET: AtomicBool = AtomicBool::new(false);
static JSON_ERRORS: AtomicBool = AtomicBool::new(false);

impl TerminalArgs {
    /// Makes these flags (and whether the command prints JSON) the process's settings.
    pub fn apply(self, json: bool) {
        COLOR.store(self.color as u8, Ordering::Relaxed);
        QUIET.store(self.quiet, Ordering::Relaxed);
        JSON_ERRORS.store(json, Ordering::Relaxed);
    }
}

/// The `--color` choice in force.
pub fn color() -> ColorChoice {
    match COLOR.load(Ordering::Relaxed) {
        1 => ColorChoice::Always,
        2 => ColorChoice::Never,
        _ => ColorChoice::Auto,
    }
}

/// Whether standard output gets color.
pub fn stdout_color() -> bool {
    !JSON_ERRORS.load(Ordering::Relaxed) && color().enabled(std::io::stdout().is_terminal())
}

/// Whether `-q` is in force.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// Whether long work may show a progress bar: stderr is a terminal, not `-q`, not `--json`.
pub fn progress_allowed() -> bool {
    !quiet() && !JSON_ERRORS.load(Ordering::Relaxed) && std::io::stderr().is_terminal()
}

/// Prints an error on stderr: `tool: message`, or with `--json` the object
/// `{"error": message, "path": path}` (`path` null when the error is about no file). The
/// message is expected to name the path already, as every error of this crate does.
pub fn error(tool: &str, path: Option<&Path>, message: &str) {
    if JSON_ERRORS.load(Ordering::Relaxed) {
        let object = serde_json::json!({
            "error": message,
            "path": path.map(|p| p.display().to_string()),
        });
        note!("{object}");
    } else {
        note!("{tool}: {message}");
    }
}

/// Prints a warning on stderr unless `-q`: `tool: warning: message`, or with `--json`
/// `{"warning": message, "path": path}`.
pub fn warning(tool: &str, path: Option<&Path>, message: &str) {
    if quiet() {
        return;
    }
    if JSON_ERRORS.load(Ordering::Relaxed) {
        let object = serde_json::json!({
            "warning": message,
            "path": path.map(|p| p.display().to_string()),
        });
        note!("{object}");
    } else {
        note!("{tool}: warning: {message}");
    }
}

/// Prints an informational line on stderr unless `-q` or `--json`.
pub fn info(tool: &str, message: &str) {
    if !quiet() && !JSON_ERRORS.load(Ordering::Relaxed) {
        note!("{tool}: {message}");
    }
}

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
        let mut named: HashSet<PathBuf> = named.iter().cloned().collect();
        if named.contains(Path::new(crate::lean::batch::STDIN_ARG)) {
            named.insert(PathBuf::from(crate::lean::batch::STDIN_NAME));
        }
        Inputs {
            named,
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
            warning(tool, Some(path), &format!("{message}; skipped"));
        } else {
            self.failed = true;
            error(tool, Some(path), message);
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
