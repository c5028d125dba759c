//! The proof gate: a file passes only when Lean accepts it and nothing in it cheats.
//!
//! Three independent checks, all of which must hold (see
//! `../shared/spec/proof-oracle-walkthrough.md`):
//!
//! 1. **Compile**: `lake env lean FILE` in the project directory, within a time limit. Any
//!    `error:` message, a non-zero exit, a kill by signal or the timeout fails the file.
//! 2. **Sorry warning**: Lean's "declaration uses 'sorry'" in any quote style fails it.
//! 3. **Structure**: the syntax tree has no `sorry`/`admit`/`sorryAx`, no `axiom`
//!    declaration and no `set_option debug.skipKernelTC true` ([`LintConfig::proof_gate`]; no
//!    in-file comment can switch these off). Lean accepts axioms silently, so only this check
//!    catches them.
//!
//! With a [`Spec`], the file must also declare the spec's lemma with exactly the spec's
//! statement ([`spec`]).
//!
//! Without `lake` on `PATH` only the structural (and spec) checks run, and a file that passes
//! them gets the verdict [`Verdict::NotCompiled`], never [`Verdict::Pass`].

pub mod lake;
pub mod messages;
pub mod rejected;
pub mod spec;
pub mod variables;

/// Why a file was not compiled when `lake` is missing, and how to get it: elan installs the
/// Lean toolchain, `lake` and `lean` included.
pub const LAKE_MISSING: &str = "`lake` was not found on PATH; install Lean with elan \
     (curl https://raw.githubusercontent.com/leanprover/elan/master/elan-init.sh -sSf | sh; \
     see https://github.com/leanprover/elan), which puts lake and lean on PATH";

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::lean::{ParsedFile, Source, SourceError};
use crate::lint::{self, LintConfig, Rule};
use lake::LeanRun;
use messages::{LeanMessage, Level};
pub use spec::{Spec, SpecCheck, SpecError};

/// The default time limit for Lean, as in the proof oracle (a first `import Mathlib` is slow).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);

/// What to verify and how.
#[derive(Debug, Clone)]
pub struct Options {
    pub file: PathBuf,
    /// The directory `lake` runs in; `None` = the nearest lakefile above the file, else the
    /// current directory.
    pub project: Option<PathBuf>,
    /// The `lake` executable; `None` = not available, so nothing is compiled.
    pub lake: Option<PathBuf>,
    pub timeout: Duration,
    pub spec: Option<Spec>,
}

/// The outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Compiled by Lean without errors or sorry, and every other check holds.
    Pass,
    /// At least one check failed; see the reasons.
    Fail,
    /// Not compiled (no `lake`), but the checks that did run found nothing. Not a pass.
    NotCompiled,
}

/// Which check a reason comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Check {
    /// A `sorry`, `admit` or `sorryAx` in the source.
    Sorry,
    /// An `axiom` declaration in the source.
    Axiom,
    /// `set_option debug.skipKernelTC true` in the source.
    SkipKernelTc,
    /// A part of the source mf could not parse: it cannot be checked, so the file fails.
    ParseError,
    /// An `error:` message from Lean or lake.
    LeanError,
    /// Lean's "declaration uses 'sorry'" warning.
    SorryWarning,
    /// Lean exited non-zero (or was killed) without printing an error.
    ExitStatus,
    /// Lean did not finish within the time limit.
    Timeout,
    /// Lean printed more than mf keeps; messages in the dropped middle went unread.
    OutputDropped,
    /// The spec check failed.
    Spec,
}

impl Check {
    /// The kebab-case name, as in the JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Check::Sorry => "sorry",
            Check::Axiom => "axiom",
            Check::SkipKernelTc => "skip-kernel-tc",
            Check::ParseError => "parse-error",
            Check::LeanError => "lean-error",
            Check::SorryWarning => "sorry-warning",
            Check::ExitStatus => "exit-status",
            Check::Timeout => "timeout",
            Check::OutputDropped => "output-dropped",
            Check::Spec => "spec",
        }
    }
}

/// One reason the file does not pass.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reason {
    pub check: Check,
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

/// Everything `mf verify` found, ready to render.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub file: String,
    pub verdict: Verdict,
    /// Whether Lean ran on the file to completion (a timeout is not compiled).
    pub compiled: bool,
    /// Whether the structural checks found nothing.
    pub structural_pass: bool,
    pub reasons: Vec<Reason>,
    /// The Lean run, when there was one.
    pub lean: Option<LeanRun>,
    /// Every message Lean printed, errors, warnings and infos alike.
    pub lean_messages: Vec<LeanMessage>,
    pub spec: Option<SpecCheck>,
    /// Why the file was not compiled, when it was not.
    pub not_compiled_because: Option<String>,
}

/// Why verification could not take place at all.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error("{0}: project directory not found")]
    ProjectMissing(PathBuf),
    #[error("cannot run {lake}: {reason}")]
    Spawn { lake: String, reason: String },
}

/// Verifies one file.
pub fn verify(options: &Options) -> Result<Report, VerifyError> {
    let source = Source::read(&options.file)?;
    let shown = options.file.display().to_string();
    let parsed = ParsedFile::parse(source.text);

    let mut reasons = structural_reasons(&shown, &parsed);
    let structural_pass = reasons.is_empty();

    let spec = options.spec.as_ref().map(|spec| {
        let outline = crate::lean::Outline::of(&shown, &parsed);
        let (result, spec_reasons) = spec::check(spec, &parsed, &outline);
        reasons.extend(spec_reasons);
        result
    });

    let mut report = Report {
        file: shown,
        verdict: Verdict::Fail,
        compiled: false,
        structural_pass,
        reasons: Vec::new(),
        lean: None,
        lean_messages: Vec::new(),
        spec,
        not_compiled_because: None,
    };

    match &options.lake {
        None => {
            report.not_compiled_because = Some(LAKE_MISSING.into());
        }
        Some(lake) => {
            let project = project_dir(options)?;
            let file = absolute(&options.file);
            let run = lake::run_lean(lake, &project, &file, options.timeout).map_err(|e| {
                VerifyError::Spawn {
                    lake: lake.display().to_string(),
                    reason: e.to_string(),
                }
            })?;
            let messages = messages::parse(&run.output);
            reasons.extend(compile_reasons(&run, &messages, options.timeout));
            report.compiled = !run.timed_out;
            if run.timed_out {
                report.not_compiled_because = Some(format!(
                    "Lean did not finish within {} s",
                    options.timeout.as_secs()
                ));
            }
            report.lean = Some(run);
            report.lean_messages = messages;
        }
    }

    report.verdict = if !reasons.is_empty() {
        Verdict::Fail
    } else if report.compiled {
        Verdict::Pass
    } else {
        Verdict::NotCompiled
    };
    report.reasons = reasons;
    Ok(report)
}

/// The structural checks, as reasons. Escape words in parts that did not parse are found
/// lexically (lint's [`crate::lean::trust_scan`]), and the parse error itself is a reason:
/// what mf could not read, it cannot vouch for.
fn structural_reasons(path: &str, parsed: &ParsedFile) -> Vec<Reason> {
    let mut reasons: Vec<Reason> = lint::lint(path, parsed, &LintConfig::proof_gate())
        .into_iter()
        .map(|f| Reason {
            check: match f.rule {
                Rule::Axiom => Check::Axiom,
                Rule::SkipKernelTc => Check::SkipKernelTc,
                _ => Check::Sorry,
            },
            message: f.message,
            line: Some(f.line),
            column: Some(f.column),
        })
        .collect();
    let errors = parsed.errors().list();
    if let Some(first) = errors.first() {
        let at = parsed.position(first.span.start);
        let parts = match errors.len() {
            1 => String::new(),
            n => format!(" (the first of {n})"),
        };
        reasons.push(Reason {
            check: Check::ParseError,
            message: format!(
                "mf could not parse this part of the file{parts}, so it cannot check it; fix the syntax (`mf parse --errors FILE` lists where it fails)"
            ),
            line: Some(at.line),
            column: Some(at.column),
        });
    }
    reasons
}

/// What Lean's run says against the file.
fn compile_reasons(run: &LeanRun, messages: &[LeanMessage], timeout: Duration) -> Vec<Reason> {
    let mut reasons = Vec::new();
    if run.timed_out {
        reasons.push(Reason {
            check: Check::Timeout,
            message: format!(
                "Lean did not finish within {} s and was stopped; the proof is not checked",
                timeout.as_secs()
            ),
            line: None,
            column: None,
        });
    }
    if run.dropped_bytes > 0 {
        reasons.push(Reason {
            check: Check::OutputDropped,
            message: format!(
                "Lean printed more than mf keeps: {} bytes in the middle of its output were dropped unread, so an error or `sorry` there could be missed",
                run.dropped_bytes
            ),
            line: None,
            column: None,
        });
    }
    for m in messages {
        let check = match m.severity {
            Level::Error => Check::LeanError,
            _ if m.is_sorry_warning() => Check::SorryWarning,
            _ => continue,
        };
        reasons.push(Reason {
            check,
            message: m.message.clone(),
            line: m.line,
            column: m.column,
        });
    }
    // The sorry warning anywhere in the output, even outside a message we could parse.
    let sorry_reported = reasons.iter().any(|r| r.check == Check::SorryWarning);
    if !sorry_reported && messages::mentions_sorry_use(&run.output) {
        reasons.push(Reason {
            check: Check::SorryWarning,
            message: "Lean reports that a declaration uses `sorry`".into(),
            line: None,
            column: None,
        });
    }
    let errors_reported = reasons.iter().any(|r| r.check == Check::LeanError);
    if !run.timed_out && !errors_reported && run.exit_code != Some(0) {
        let how = match (run.exit_code, run.signal) {
            (Some(code), _) => format!("exited with status {code}"),
            (None, Some(signal)) => format!("was killed by signal {signal}"),
            (None, None) => "ended abnormally".into(),
        };
        reasons.push(Reason {
            check: Check::ExitStatus,
            message: format!("`lake env lean` {how} without reporting an error"),
            line: None,
            column: None,
        });
    }
    reasons
}

fn project_dir(options: &Options) -> Result<PathBuf, VerifyError> {
    match &options.project {
        Some(dir) if dir.is_dir() => Ok(dir.clone()),
        Some(dir) => Err(VerifyError::ProjectMissing(dir.clone())),
        None => Ok(lake::find_project(&absolute(&options.file))
            .unwrap_or_else(|| std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")))),
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}
