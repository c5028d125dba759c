//! `mf parse`: syntax trees and parse statistics.

use std::io::Write;
use std::ops::ControlFlow;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;

use crate::lean::batch::{parse_files, ParseStats};
use crate::lean::containment::Containment;
use crate::lean::walk::{lean_files, IgnoreRules};

use crate::lean::source::SourceError;

use super::{report_errors, Paths};

/// How many error positions `--errors` shows per file.
const ERRORS_SHOWN: usize = 3;

#[derive(clap::Args)]
pub struct ParseArgs {
    #[command(flatten)]
    paths: Paths,
    /// Print totals (files, clean files, error nodes, bytes, seconds) instead of trees
    #[arg(long)]
    stats: bool,
    /// With --stats: print exactly one JSON object
    #[arg(long, requires = "stats", conflicts_with = "errors")]
    pub(super) json: bool,
    /// List each file with parse errors and where its first errors are
    #[arg(long)]
    errors: bool,
}

enum Parsed {
    Tree {
        path: String,
        sexp: String,
    },
    Summary {
        path: String,
        bytes: usize,
        errors: usize,
        first_errors: Vec<String>,
        containment: Containment,
    },
    Failed(SourceError),
}

pub fn run(args: ParseArgs) -> Result<ExitCode> {
    let start = Instant::now();
    let (files, walk_errors) = lean_files(&args.paths.paths, IgnoreRules::HiddenOnly);
    let mut inputs = args.paths.inputs();
    inputs.fail_if(report_errors(&walk_errors));
    let want_trees = !args.stats && !args.errors;
    let mut stats = ParseStats::default();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut write_failed = None;

    parse_files(
        &files,
        |result| match result {
            Err(e) => Parsed::Failed(e),
            Ok((source, parsed)) => {
                let path = source.path.display().to_string();
                if want_trees {
                    return Parsed::Tree {
                        path,
                        sexp: parsed.root().to_sexp(),
                    };
                }
                let errors = parsed.errors().list();
                let first_errors = errors
                    .iter()
                    .take(ERRORS_SHOWN)
                    .map(|e| format!("{} {}", parsed.position(e.span.start), e.describe()))
                    .collect();
                // Only a file with errors can lose declarations to them.
                let containment = if errors.is_empty() {
                    Containment::default()
                } else {
                    Containment::of(&parsed)
                };
                Parsed::Summary {
                    path,
                    bytes: parsed.text.len(),
                    errors: errors.len(),
                    first_errors,
                    containment,
                }
            }
        },
        |parsed| {
            let written = match parsed {
                Parsed::Failed(e) => {
                    inputs.source_error("mf", &e);
                    Ok(())
                }
                Parsed::Tree { path, sexp } => writeln!(out, ";; {path}\n{sexp}"),
                Parsed::Summary {
                    path,
                    bytes,
                    errors,
                    first_errors,
                    containment,
                } => {
                    stats.add(bytes, errors);
                    stats.add_containment(containment);
                    if args.errors && errors > 0 {
                        let more = errors.saturating_sub(first_errors.len());
                        let more = if more > 0 {
                            format!(" (+{more} more)")
                        } else {
                            String::new()
                        };
                        writeln!(out, "{path}: {}{more}", first_errors.join(", "))
                    } else {
                        Ok(())
                    }
                }
            };
            if let Err(e) = written {
                write_failed.get_or_insert(e);
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        },
    );
    if let Some(e) = write_failed {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            return Ok(ExitCode::SUCCESS);
        }
        return Err(e.into());
    }

    stats.finish(start);
    stats.skipped = inputs.skipped;
    if args.stats {
        if args.json {
            writeln!(out, "{}", serde_json::to_string(&stats)?)?;
        } else {
            write_stats(&mut out, &stats)?;
        }
    }
    out.flush()?;
    if !args.stats && inputs.skipped > 0 {
        crate::cli::output::info("mf", &skipped_line(inputs.skipped));
    }
    Ok(inputs.exit(false))
}

/// `22 files skipped (not Lean text)`.
pub(crate) fn skipped_line(n: usize) -> String {
    format!(
        "{n} {} skipped (not Lean text)",
        if n == 1 { "file" } else { "files" }
    )
}

fn write_stats(out: &mut impl Write, s: &ParseStats) -> std::io::Result<()> {
    let mb = s.bytes as f64 / 1e6;
    writeln!(out, "files        {}", s.files)?;
    writeln!(
        out,
        "clean_files  {} ({:.2}%)",
        s.clean_files,
        s.clean_percent()
    )?;
    writeln!(out, "error_nodes  {}", s.error_nodes)?;
    writeln!(
        out,
        "lost_decls   {} of {} column-0 declarations in files with errors are inside ERROR nodes",
        s.declarations_lost_to_errors, s.declarations_in_unclean_files
    )?;
    if s.skipped > 0 {
        writeln!(out, "skipped      {} (not Lean text)", s.skipped)?;
    }
    writeln!(out, "bytes        {} ({mb:.1} MB)", s.bytes)?;
    let rate = if s.seconds > 0.0 { mb / s.seconds } else { 0.0 };
    writeln!(out, "seconds      {:.3} ({rate:.1} MB/s)", s.seconds)
}
