//! `mf sorries`: the work list of holes, one `sorry`/`admit` at a time.
//!
//! Human output, one entry per hole:
//!
//! ```text
//! Foo.lean:30:3: sorry in theorem Tricky.one_hole (hole 1 of 2)
//!     one_hole (n : ℕ) : n + 0 = n
//!     under: have h : 1 = 1
//! ```
//!
//! `--json` prints one object per hole per line (see [`crate::cursor::Hole`] for the fields),
//! each with the `path` it was found in, so `mf sorries --json F | head -1` is the next item.

use std::io::Write;
use std::ops::ControlFlow;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use crate::cli::render::one_line;
use crate::cursor::{self, Hole};
use crate::lean::batch::parse_files;
use crate::lean::walk::{lean_files, IgnoreRules};
use crate::lean::Outline;

use super::{report_errors, Paths};

/// Longest statement shown in human output, in characters.
const STATEMENT_SHOWN: usize = 160;

#[derive(clap::Args)]
pub struct SorriesArgs {
    #[command(flatten)]
    paths: Paths,
    /// One JSON object per hole per line
    #[arg(long)]
    pub(super) json: bool,
}

#[derive(Serialize)]
struct Row<'a> {
    path: &'a str,
    #[serde(flatten)]
    hole: &'a Hole,
}

pub fn run(args: SorriesArgs) -> Result<ExitCode> {
    let (files, walk_errors) = lean_files(&args.paths.paths, IgnoreRules::HiddenOnly);
    let mut inputs = args.paths.inputs();
    inputs.fail_if(report_errors(&walk_errors));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut write_error = None;
    let (mut total, mut files_with_holes) = (0usize, 0usize);
    parse_files(
        &files,
        |result| {
            result.map(|(source, parsed)| {
                let parsed = cursor::for_cursor(parsed);
                let path = source.path.display().to_string();
                let outline = Outline::of(&path, &parsed);
                (path, cursor::holes(&parsed, &outline))
            })
        },
        |result| {
            let written = match result {
                Err(e) => {
                    inputs.source_error("mf", &e);
                    Ok(())
                }
                Ok((path, holes)) => {
                    total += holes.len();
                    files_with_holes += usize::from(!holes.is_empty());
                    holes.iter().try_for_each(|hole| {
                        if args.json {
                            serde_json::to_writer(&mut out, &Row { path: &path, hole })
                                .map_err(std::io::Error::from)
                                .and_then(|()| writeln!(out))
                        } else {
                            write_human(&mut out, &path, hole)
                        }
                    })
                }
            };
            if let Err(e) = written {
                write_error.get_or_insert(e);
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        },
    );
    // A file that could not be read has holes nobody counted: no "no holes" then.
    if !args.json && write_error.is_none() && !inputs.failed {
        let summary = match (total, files_with_holes) {
            (0, _) => "no holes".to_string(),
            (1, _) => "1 hole".to_string(),
            (n, 1) => format!("{n} holes"),
            (n, f) => format!("{n} holes in {f} files"),
        };
        if let Err(e) = writeln!(out, "{summary}") {
            write_error = Some(e);
        }
    }
    // A reader that stops early (`| head -1`, the usual way to take the next item) is not an
    // error; the pipe may only break when the buffer is flushed.
    match write_error.or_else(|| out.flush().err()) {
        Some(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        Some(e) => return Err(e.into()),
        None => {}
    }
    if inputs.skipped > 0 {
        crate::cli::output::info("mf", &super::parse::skipped_line(inputs.skipped));
    }
    Ok(inputs.exit(false))
}

fn write_human(out: &mut impl Write, path: &str, h: &Hole) -> std::io::Result<()> {
    let place = format!("{path}:{}:{}", h.line, h.column);
    let Some(d) = &h.declaration else {
        return writeln!(out, "{place}: {} outside any declaration", h.keyword);
    };
    let name = if d.full_name.is_empty() {
        format!("at line {}", d.line)
    } else {
        d.full_name.clone()
    };
    let where_ = if d.in_statement {
        " in its statement"
    } else {
        ""
    };
    writeln!(
        out,
        "{place}: {} in {} {name}{where_} (hole {} of {})",
        h.keyword, d.kind, d.hole, d.holes
    )?;
    writeln!(out, "    {}", one_line(&d.statement, STATEMENT_SHOWN))?;
    if let Some(u) = &h.under {
        writeln!(out, "    under: {}", one_line(&u.text, STATEMENT_SHOWN))?;
    }
    Ok(())
}
