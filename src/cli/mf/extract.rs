//! `mf extract`: result files into the knowledge base, with a progress bar and a summary.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::output;
use crate::extract::{self, FileReport, Overrides, Summary};
use crate::kb::{resolve_knowledge_db, resolve_tracking_db, FileStatus, Kb, Resolved};
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
    /// knowledge.db to write [default: $MATH_FORGE_DB, else .math-forge/knowledge.db here or
    /// above, else ${XDG_DATA_HOME:-~/.local/share}/math-forge/knowledge.db; the summary names
    /// the one used]
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    /// tracking.db whose submissions name the problems of the files they returned (read, never
    /// written; default: $MATH_FORGE_TRACKING_DB, or submissions/tracking.db of the project)
    #[arg(long, value_name = "PATH")]
    tracking: Option<PathBuf>,
    /// JSON Lines: one report per file, then {"summary": …, "skipped": N, "db": PATH, "db_reason": WHY}
    #[arg(long)]
    pub(super) json: bool,
    /// Treat files under a directory that are not Lean text (binary, gzip, not UTF-8) as errors
    /// instead of skipping them with a warning
    #[arg(long)]
    strict: bool,
}

/// The last JSON line: totals, files skipped, and the database written and why it was chosen.
#[derive(serde::Serialize)]
struct JsonSummary<'a> {
    summary: &'a Summary,
    skipped: usize,
    /// None when the run failed before storing anything and the database it would have
    /// created was not left behind.
    db: Option<String>,
    db_reason: Option<String>,
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
    inputs.fail_if(failed);
    // Nothing to extract after an input error: no knowledge base is created or touched.
    if failed && files.is_empty() {
        return Ok(inputs.exit(false));
    }
    let existed = resolved.path.exists();
    // The directories opening creates, to remove again with a database that is not kept.
    let new_dirs: Vec<PathBuf> = resolved
        .path
        .ancestors()
        .skip(1)
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .map(Path::to_path_buf)
        .collect();
    let mut kb = match Kb::open(&resolved.path) {
        Ok(kb) => kb,
        Err(e) => {
            output::error("mf", Some(&resolved.path), &e.to_string());
            return Ok(ExitCode::from(EXIT_INPUT));
        }
    };

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
        walked: args.all.clone(),
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
            let mut skipped = false;
            if let Some(error) = &report.error {
                let path = std::path::Path::new(&report.path);
                let mut tell = || {
                    let before = inputs.skipped;
                    inputs.file_error("mf", path, report.not_text, error);
                    skipped = inputs.skipped > before;
                };
                match &bar {
                    Some(bar) => bar.suspend(tell),
                    None => tell(),
                }
            }
            // A file found under a directory that is not Lean text is skipped, not failed.
            let as_skipped;
            let report = if skipped {
                skipped_failures += 1;
                as_skipped = FileReport {
                    status: FileStatus::Skipped,
                    ..report.clone()
                };
                &as_skipped
            } else {
                report
            };
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
    // A run that failed and stored nothing leaves no knowledge base it created behind.
    let discarded = !existed && inputs.failed && summary.added + summary.replaced == 0;
    if discarded {
        drop(kb);
        remove_database(&resolved.path, &new_dirs);
    }
    let db = (!discarded).then_some(&resolved);

    let written = match write_error {
        Some(e) => Err(e),
        None if args.json => {
            let last = JsonSummary {
                summary: &summary,
                skipped: inputs.skipped,
                db: db.map(|r| r.path.display().to_string()),
                db_reason: db.map(|r| r.reason.to_string()),
            };
            serde_json::to_writer(&mut out, &last)
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(out))
        }
        None => writeln!(
            out,
            "{}{}\n{}\n{}",
            summary_line(&summary),
            inputs.skipped_note(),
            counts_line(&summary),
            db_line(db)
        ),
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
/// 22 with parse errors, 2.28 s`. Unchanged files are not parsed, so their declarations are
/// not counted.
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
        "{} ({}), {} parsed, {} with parse errors, {:.2} s",
        plural(s.files, "file"),
        status.join(", "),
        plural(s.declarations, "declaration"),
        s.files_with_parse_errors,
        s.seconds
    )
}

/// `occurrences: 16563 added, 0 removed, 0 unchanged; knowledge base: 9578 facts (+9578) in
/// 16563 occurrences`: the words `mk stats` uses (a fact is one theorem, failure, false lemma
/// or insight; an occurrence is a fact in one file), and numbers that add up.
fn counts_line(s: &Summary) -> String {
    let change = s.after.facts - s.before.facts;
    format!(
        "occurrences: {} added, {} removed, {} unchanged; knowledge base: {} ({change:+}) in {}",
        s.findings_added,
        s.findings_removed,
        s.findings_unchanged,
        plural(s.after.facts.max(0) as usize, "fact"),
        plural(s.after.occurrences.max(0) as usize, "occurrence"),
    )
}

/// `knowledge.db: PATH (WHY)`: which knowledge base was written, by the rule `mk stats` reports
/// (none when a failed run left no new one behind).
fn db_line(resolved: Option<&Resolved>) -> String {
    match resolved {
        Some(r) => format!("knowledge.db: {} ({})", r.path.display(), r.reason),
        None => "knowledge.db: not created (nothing was extracted)".to_string(),
    }
}

/// Removes a database file this run created, with SQLite's companions and the directories
/// created for it (innermost first; a directory something else was put in stays).
fn remove_database(path: &Path, new_dirs: &[PathBuf]) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(name));
    }
    for dir in new_dirs {
        let _ = std::fs::remove_dir(dir);
    }
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
             0 with parse errors, 0.25 s"
        );
        s.failed = 1;
        assert!(summary_line(&s).contains("1 failed"));
    }

    #[test]
    fn counts_line_names_occurrences_and_facts() {
        let s = Summary {
            findings_added: 12,
            findings_removed: 2,
            findings_unchanged: 5,
            before: crate::kb::FactCounts {
                facts: 4,
                occurrences: 7,
                files: 1,
            },
            after: crate::kb::FactCounts {
                facts: 13,
                occurrences: 17,
                files: 3,
            },
            ..Summary::default()
        };
        assert_eq!(
            counts_line(&s),
            "occurrences: 12 added, 2 removed, 5 unchanged; knowledge base: 13 facts (+9) \
             in 17 occurrences"
        );
    }
}
