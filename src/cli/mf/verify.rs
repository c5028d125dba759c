//! `mf verify`: the proof gate's verdict, for people or (with `--json`) for programs.
//!
//! Exit status: 0 only for PASS; 1 for FAIL, NOT COMPILED, or a file that cannot be verified
//! at all (missing, binary, not UTF-8, unreadable spec); 2 for a bad command line.
//!
//! `--json` prints one object (the fields of [`crate::verify::Report`]):
//!
//! ```json
//! {
//!   "file": "Foo.lean",
//!   "verdict": "pass" | "fail" | "not-compiled",
//!   "compiled": true,
//!   "structural_pass": true,
//!   "reasons": [{"check": "lean-error", "message": "unsolved goals\n…", "line": 12, "column": 9}],
//!   "lean": {"command": ["lake", "env", "lean", "/abs/Foo.lean"], "project": "/abs",
//!            "exit_code": 1, "signal": null, "timed_out": false, "seconds": 3.2,
//!            "dropped_bytes": 0},
//!   "lean_messages": [{"severity": "error", "file": "/abs/Foo.lean", "line": 12, "column": 9,
//!                      "message": "unsolved goals\n…"}],
//!   "spec": {"name": "foo", "declaration": "Ns.foo", "line": 3, "expected": "…",
//!            "found": "…", "matches": true},
//!   "not_compiled_because": null
//! }
//! ```
//!
//! `check` is one of `sorry`, `axiom`, `skip-kernel-tc`, `parse-error`, `lean-error`, `sorry-warning`,
//! `exit-status`, `timeout`, `output-dropped`, `spec`. Lines are 1-based; columns are 1-based characters (Lean's
//! 0-based columns are converted). `lean` is null when nothing ran, `spec` when no spec was
//! given.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Result;

use crate::verify::{self, lake, Options, Report, Spec, Verdict};

use super::EXIT_FOUND;

#[derive(clap::Args)]
pub struct VerifyArgs {
    /// The Lean file to verify
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Directory to run `lake env lean` in [default: nearest lakefile above FILE, else .]
    #[arg(long, value_name = "DIR")]
    project: Option<PathBuf>,
    /// Seconds Lean may take before it is stopped and the file fails
    #[arg(long, value_name = "S", default_value_t = verify::DEFAULT_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    timeout: u64,
    /// Lemma spec JSON (name and Lean signature): the file must prove exactly this statement
    #[arg(long, value_name = "SPEC.json")]
    spec: Option<PathBuf>,
    /// Print one JSON object (one line) for programs instead of text
    #[arg(long)]
    pub(super) json: bool,
}

pub fn run(args: VerifyArgs) -> Result<ExitCode> {
    let spec = args.spec.as_deref().map(Spec::load).transpose()?;
    // Hashed before Lean runs, so the verdict is kept for the content that was checked.
    let checked = checked_content(&args.file);
    let options = Options {
        file: args.file,
        project: args.project,
        lake: lake::find_on_path("lake"),
        timeout: Duration::from_secs(args.timeout),
        spec,
    };
    let report = verify::verify(&options)?;
    if let Some((path, hash, text)) = checked {
        remember_verdict(&path, &hash, &text, &report);
    }
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let written = if args.json {
        serde_json::to_writer(&mut out, &report)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        write_human(&mut out, &report)
    };
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => {}
    }
    Ok(match report.verdict {
        Verdict::Pass => ExitCode::SUCCESS,
        Verdict::Fail | Verdict::NotCompiled => ExitCode::from(EXIT_FOUND),
    })
}

/// The file's absolute path, [`crate::kb::content_hash`] of its text (as the edit hooks
/// journal them), and the text.
fn checked_content(file: &std::path::Path) -> Option<(String, String, String)> {
    let path = crate::hook::files::lexically_normal(&std::env::current_dir().ok()?.join(file));
    let text = crate::hook::files::read_text(&path, crate::hook::files::MAX_FILE_BYTES).ok()??;
    Some((
        path.to_string_lossy().into_owned(),
        crate::kb::content_hash(text.as_bytes()),
        text,
    ))
}

/// Keeps the verdict in knowledge.db, when there is one, for the session capture: a proof is
/// `verified` only when this very content passed, and an attempt is rejected when a Lean
/// error on this content lies inside its declaration ([`rejected_declarations`]). Best effort:
/// a note when it cannot.
fn remember_verdict(path: &str, hash: &str, text: &str, report: &Report) {
    let db = crate::kb::resolve_knowledge_db(None).path;
    if !db.is_file() {
        return;
    }
    let verdict = match report.verdict {
        Verdict::Pass => "pass",
        Verdict::Fail => "fail",
        Verdict::NotCompiled => "not-compiled",
    };
    let rejected = if report.verdict == Verdict::Fail {
        rejected_declarations(path, text, report)
    } else {
        Vec::new()
    };
    if let Err(e) = crate::kb::Kb::open_existing(&db).and_then(|mut kb| {
        // The attempts an edit hook had to spool are the ones this verdict may be about.
        let _ = kb.replay_spool();
        kb.record_verification(path, hash, verdict)?;
        kb.mark_rejected(path, hash, &rejected)
    }) {
        // Busy, read-only or unreadable: kept beside it, recorded at its next open that can
        // write (the verdict decides whether a captured proof counts as verified).
        let spooled = crate::kb::spool_verdict(
            &db,
            crate::kb::SpooledVerdict {
                file: path.to_string(),
                content_hash: hash.to_string(),
                verdict: verdict.to_string(),
            },
            &rejected
                .iter()
                .map(|(declaration, headline)| crate::kb::Rejected {
                    file: path.to_string(),
                    content_hash: hash.to_string(),
                    declaration: declaration.clone(),
                    headline: headline.clone(),
                })
                .collect::<Vec<_>>(),
        );
        match spooled {
            Ok(spool) => eprintln!(
                "mf verify: {e}; the verdict is kept in {} and added to knowledge.db at its next open",
                spool.display()
            ),
            Err(why) => eprintln!("mf verify: verdict not kept in knowledge.db: {e}; {why}"),
        }
    }
}

/// The declarations Lean's errors point into (full name, the error's first line): an error
/// without a line, or outside every declaration, is attributed to none.
fn rejected_declarations(path: &str, text: &str, report: &Report) -> Vec<(String, String)> {
    let errors: Vec<(usize, String)> = report
        .reasons
        .iter()
        .filter(|r| r.check == verify::Check::LeanError)
        .filter_map(|r| Some((r.line?, r.message.lines().next().unwrap_or("").to_string())))
        .collect();
    verify::rejected::declarations_with_errors(path, text, &errors)
}

fn write_human(out: &mut impl Write, r: &Report) -> std::io::Result<()> {
    let how = match (&r.lean, &r.not_compiled_because) {
        (_, Some(why)) => format!("not compiled: {why}"),
        (Some(run), None) => format!(
            "compiled with `lake env lean` in {}, {:.1} s",
            run.project, run.seconds
        ),
        (None, None) => "not compiled".into(),
    };
    let verdict = match r.verdict {
        Verdict::Pass => "PASS",
        Verdict::Fail => "FAIL",
        Verdict::NotCompiled => "NOT COMPILED",
    };
    writeln!(out, "{verdict} {} ({how})", r.file)?;
    for reason in &r.reasons {
        let place = match (reason.line, reason.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}", r.file),
            (Some(l), None) => format!("{}:{l}", r.file),
            _ => r.file.clone(),
        };
        let check = reason.check.name();
        let mut lines = reason.message.lines();
        writeln!(out, "  {place}: {check}: {}", lines.next().unwrap_or(""))?;
        for line in lines {
            writeln!(out, "      {line}")?;
        }
    }
    if let Some(spec) = &r.spec {
        if spec.matches {
            writeln!(
                out,
                "  spec: `{}` is declared with the spec's statement",
                spec.declaration.as_deref().unwrap_or(&spec.name)
            )?;
        }
    }
    match r.verdict {
        Verdict::NotCompiled => writeln!(
            out,
            "  structural checks pass (no sorry, admit, axiom or skipKernelTC), \
             but only Lean can check the proof: not a pass"
        ),
        Verdict::Fail if !r.compiled && r.structural_pass && r.lean.is_none() => writeln!(
            out,
            "  structural checks pass, but the file was not compiled"
        ),
        _ => Ok(()),
    }
}
