//! `mf extract`: result files into the knowledge base, with a progress bar and a summary.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use crate::extract::{self, FileReport, Overrides, Summary};
use crate::kb::{resolve_knowledge_db, Kb};
use crate::lean::walk::{lean_files, IgnoreRules, WalkError};
use crate::lint::summary::plural;

use super::EXIT_INPUT_FAILED;

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
    /// Print one JSON object: the summary and a report per file
    #[arg(long)]
    json: bool,
}

#[derive(serde::Serialize)]
struct JsonReport<'a> {
    db: String,
    summary: &'a Summary,
    files: &'a [FileReport],
}

pub fn run(args: ExtractArgs) -> Result<ExitCode> {
    let mut failed = false;
    let mut files = Vec::new();
    for file in &args.files {
        if file.is_dir() {
            note!(
                "mf: {}: is a directory; use `mf extract --all {}`",
                file.display(),
                file.display()
            );
            failed = true;
        } else if !file.exists() {
            note!("mf: {}", WalkError::Missing(file.clone()));
            failed = true;
        } else {
            files.push(file.clone());
        }
    }
    let (walked, walk_errors) = lean_files(&args.all, IgnoreRules::HiddenOnly);
    for e in &walk_errors {
        note!("mf: {e}");
    }
    failed |= !walk_errors.is_empty();
    files.extend(walked);

    let resolved = resolve_knowledge_db(args.db.as_deref());
    let mut kb = match Kb::open(&resolved.path) {
        Ok(kb) => kb,
        Err(e) => {
            note!("mf: {e}");
            return Ok(ExitCode::from(EXIT_INPUT_FAILED));
        }
    };

    let bar = progress_bar(files.len(), !args.json && !args.all.is_empty());
    let overrides = Overrides {
        slot: args.slot,
        problem_id: args.problem_id.clone(),
    };
    let mut reports = Vec::new();
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
                match &bar {
                    Some(bar) => bar.suspend(|| note!("mf: {error}")),
                    None => note!("mf: {error}"),
                }
            }
            if args.json {
                reports.push(report.clone());
            }
        },
    );
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let summary = match result {
        Ok(summary) => summary,
        Err(e) => {
            note!("mf: {e}");
            note!("mf: files committed before the error are kept; run the same command again to finish");
            return Ok(ExitCode::from(EXIT_INPUT_FAILED));
        }
    };
    failed |= summary.failed > 0;

    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if args.json {
        let report = JsonReport {
            db: resolved.path.display().to_string(),
            summary: &summary,
            files: &reports,
        };
        serde_json::to_writer(&mut out, &report)?;
        writeln!(out)?;
    } else {
        writeln!(out, "{}", summary_line(&summary))?;
    }
    Ok(if failed {
        ExitCode::from(EXIT_INPUT_FAILED)
    } else {
        ExitCode::SUCCESS
    })
}

fn progress_bar(len: usize, wanted: bool) -> Option<ProgressBar> {
    if !wanted || !std::io::stderr().is_terminal() {
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
