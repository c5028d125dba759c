//! `mf extract`: result files into the knowledge base, with a progress bar and a summary.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::output;
use crate::extract::{self, Overrides, Summary};
use crate::kb::{resolve_knowledge_db, resolve_tracking_db, Kb};
use crate::lean::walk::{lean_files, IgnoreRules, WalkError};
use crate::lint::summary::plural;

use super::{Inputs, EXIT_INPUT};

#[derive(clap::Args)]
#[command(arg_required_else_help = true)]
pub struct ExtractArgs {
    /// Result files to extract
    #[arg(value_name = "FILE", required_unless_present = "all")]
    files: Vec<PathBuf>,
    /// Extract every .lean file below these directories
    #[arg(long, value_name = "DIR", num_args = 1..)]
    all: Vec<PathBuf>,
    /// Slot number, instead of the one in the file name
    #[arg(long, value_name = "N", conflicts_with = "all")]
    slot: Option<i64>,
    /// Problem id, instead of the one derived from the file name
    #[arg(long, value_name = "ID", conflicts_with = "all")]
    problem_id: Option<String>,
    /// knowledge.db to write (default: $MATH_FORGE_DB, the plugin's, or ./.math-forge/knowledge.db)
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    /// tracking.db whose submissions name the problems of the files they returned (read, never
    /// written; default: $MATH_FORGE_TRACKING_DB, or submissions/tracking.db of the project)
    #[arg(long, value_name = "PATH")]
    tracking: Option<PathBuf>,
    /// JSON Lines: one report per file, then {"summary": …, "db": PATH}
    #[arg(long)]
    pub(super) json: bool,
    /// Treat files under a directory that are not Lean text (binary, gzip, not UTF-8) as errors
    /// instead of skipping them with a warning
    #[arg(long)]
    strict: bool,
}

/// The last JSON line: totals, files skipped, and the database written.
#[derive(serde::Serialize)]
struct JsonSummary<'a> {
    summary: &'a Summary,
    skipped: usize,
    db: String,
}

pub fn run(args: ExtractArgs) -> Result<ExitCode> {
    let named: Vec<PathBuf> = args
        .files
        .iter()
        .map(|f| PathBuf::from(extract::source_key(f)))
        .collect();
    let mut inputs = Inputs::new(&named, args.strict);
    let mut failed = false;
    let mut files = Vec::new();
    for file in &args.files {
        if file.is_dir() {
            let message = format!(
                "{}: is a directory; use `mf extract --all {}`",
                file.display(),
                file.display()
            );
            output::error("mf", Some(file), &message);
            failed = true;
        } else if !file.exists() {
            let e = WalkError::Missing(file.clone());
            output::error("mf", Some(file), &e.to_string());
            failed = true;
        } else {
            files.push(file.clone());
        }
    }
    let (walked, walk_errors) = lean_files(&args.all, IgnoreRules::HiddenOnly);
    failed |= super::report_errors(&walk_errors);
    files.extend(walked);

    let resolved = resolve_knowledge_db(args.db.as_deref());
    let mut kb = match Kb::open(&resolved.path) {
        Ok(kb) => kb,
        Err(e) => {
            output::error("mf", Some(&resolved.path), &e.to_string());
            return Ok(ExitCode::from(EXIT_INPUT));
        }
    };
    inputs.fail_if(failed);

    if let Some(t) = args.tracking.as_deref().filter(|t| !t.is_file()) {
        let message = format!(
            "{}: tracking.db not found (from --tracking); check the path",
            t.display()
        );
        output::error("mf", Some(t), &message);
        return Ok(ExitCode::from(EXIT_INPUT));
    }
    let bar = progress_bar(files.len(), !args.all.is_empty());
    let overrides = Overrides {
        slot: args.slot,
        problem_id: args.problem_id.clone(),
        tracking_db: Some(resolve_tracking_db(args.tracking.as_deref()).path),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut write_error = None;
    let mut skipped_failures = 0;
    let result = extract::run(
        &mut kb,
        &files,
        &overrides,
        |done| {
            if let Some(bar) = &bar {
                bar.set_position(done as u64);
            }
        },
        |report| {
            if let Some(error) = &report.error {
                let path = std::path::Path::new(&report.path);
                let mut tell = || {
                    let before = inputs.skipped;
                    inputs.file_error("mf", path, report.not_text, error);
                    skipped_failures += inputs.skipped - before;
                };
                match &bar {
                    Some(bar) => bar.suspend(tell),
                    None => tell(),
                }
            }
            if args.json && write_error.is_none() {
                if let Err(e) = serde_json::to_writer(&mut out, report)
                    .map_err(std::io::Error::from)
                    .and_then(|()| writeln!(out))
                {
                    write_error = Some(e);
                }
            }
        },
    );
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let summary = match result {
        Ok(summary) => summary,
        Err(e) => {
            output::error(
                "mf",
                Some(&resolved.path),
                &format!(
                    "{e}; files committed before the error are kept, run the same command again to finish"
                ),
            );
            return Ok(ExitCode::from(EXIT_INPUT));
        }
    };
    // Skipped files are not failures: the summary counts them apart.
    let mut summary = summary;
    summary.failed -= skipped_failures;
    summary.files -= skipped_failures;

    let written = match write_error {
        Some(e) => Err(e),
        None if args.json => {
            let last = JsonSummary {
                summary: &summary,
                skipped: inputs.skipped,
                db: resolved.path.display().to_string(),
            };
            serde_json::to_writer(&mut out, &last)
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(out))
        }
        None => writeln!(out, "{}{}", summary_line(&summary), inputs.skipped_note()),
    }
    .and_then(|()| out.flush());
    match written {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        Err(e) => return Err(e.into()),
        Ok(()) => {}
    }
    Ok(inputs.exit(false))
}

fn progress_bar(len: usize, wanted: bool) -> Option<ProgressBar> {
    if !wanted || !crate::cli::output::progress_allowed() {
        return None;
    }
    let bar = ProgressBar::new(len as u64);
    let style =
        ProgressStyle::with_template("{spinner} extracting {pos}/{len} files {wide_bar} {eta}")
            .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    Some(bar)
}

/// `2413 files (2391 added, 0 replaced, 0 unchanged, 22 failed), 35237 declarations parsed,
/// findings 16540 added / 0 replaced / 0 unchanged, 22 with parse errors, 2.28 s`. Unchanged
/// files are not parsed, so their declarations are not counted.
fn summary_line(s: &Summary) -> String {
    let mut status = vec![
        format!("{} added", s.added),
        format!("{} replaced", s.replaced),
        format!("{} unchanged", s.unchanged),
    ];
    if s.failed > 0 {
        status.push(format!("{} failed", s.failed));
    }
    format!(
        "{} ({}), {} parsed, findings {} added / {} replaced / {} unchanged, \
         {} with parse errors, {:.2} s",
        plural(s.files, "file"),
        status.join(", "),
        plural(s.declarations, "declaration"),
        s.findings_added,
        s.findings_removed,
        s.findings_unchanged,
        s.files_with_parse_errors,
        s.seconds
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_line_mentions_failures_only_when_there_are_some() {
        let mut s = Summary {
            files: 3,
            added: 2,
            unchanged: 1,
            declarations: 40,
            findings_added: 12,
            findings_unchanged: 5,
            seconds: 0.25,
            ..Summary::default()
        };
        assert_eq!(
            summary_line(&s),
            "3 files (2 added, 0 replaced, 1 unchanged), 40 declarations parsed, \
             findings 12 added / 0 replaced / 5 unchanged, 0 with parse errors, 0.25 s"
        );
        s.failed = 1;
        assert!(summary_line(&s).contains("1 failed"));
    }
}
