//! `mf diff`: compare two versions of a Lean file declaration by declaration.
//!
//! Human output lists each added, removed or modified declaration with what changed, followed
//! by its hunks, then changes outside declarations and a summary line. `--json` prints one
//! [`FileComparison`] object with `old_path` and `new_path` added and only the changed
//! declarations listed:
//!
//! ```json
//! {"old_path":"a.lean","new_path":"b.lean","unchanged":3,
//!  "declarations":[{"status":"modified","kind":"theorem","full_name":"T.one_hole",
//!    "occurrence":1,"old":{"kind":"theorem","line":30,"end_line":31,"statement":"…",
//!    "holes":1,"has_body":true},"new":{…},"statement_changed":false,"proof_changed":true,
//!    "header_changed":false,"newly_holed":false,"added_axiom":false,
//!    "hunks":[{"old_start":30,"old_lines":2,"new_start":30,"new_lines":2,
//!              "lines":[" theorem …","-  sorry","+  simp"]}]}],
//!  "outside":[],"old_holes":1,"new_holes":0,"old_errors":0,"new_errors":0,
//!  "blocks":false,"advises":false}
//! ```
//!
//! The exit status is 0 whether or not the files differ; 1 when a file cannot be read.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use serde::Serialize;

use crate::cursor;
use crate::lean::batch::{read_named, STDIN_ARG};
use crate::lean::compare::{DeclarationDiff, FileComparison, Hunk, Status};
use crate::lean::Outline;

use super::EXIT_INPUT;

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The old version
    old: PathBuf,
    /// The new version
    new: PathBuf,
    /// Print one JSON object
    #[arg(long)]
    pub(super) json: bool,
}

#[derive(Serialize)]
struct JsonDeclaration<'a> {
    #[serde(flatten)]
    diff: &'a DeclarationDiff,
    newly_holed: bool,
    added_axiom: bool,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    old_path: String,
    new_path: String,
    unchanged: usize,
    declarations: Vec<JsonDeclaration<'a>>,
    outside: &'a [Hunk],
    old_holes: usize,
    new_holes: usize,
    old_errors: usize,
    new_errors: usize,
    blocks: bool,
    advises: bool,
}

pub fn run(args: DiffArgs) -> Result<ExitCode> {
    if args.old.as_os_str() == STDIN_ARG && args.new.as_os_str() == STDIN_ARG {
        note!("mf: standard input (`-`) can stand for one of the two files, not both");
        return Ok(ExitCode::from(EXIT_INPUT));
    }
    let (old, new) = match (read_named(&args.old), read_named(&args.new)) {
        (Ok(old), Ok(new)) => (old, new),
        (old, new) => {
            for e in [old.err(), new.err()].into_iter().flatten() {
                note!("mf: {e}");
            }
            return Ok(ExitCode::from(EXIT_INPUT));
        }
    };
    let old_path = old.path.display().to_string();
    let new_path = new.path.display().to_string();
    let old_parsed = cursor::parse(&old.text);
    let new_parsed = cursor::parse(&new.text);
    let comparison = FileComparison::of(
        &old.text,
        &Outline::of(&old_path, &old_parsed),
        &new.text,
        &Outline::of(&new_path, &new_parsed),
    );
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = if args.json {
        let report = JsonReport {
            old_path,
            new_path,
            unchanged: comparison
                .declarations
                .iter()
                .filter(|d| d.status == Status::Unchanged)
                .count(),
            declarations: comparison
                .changed()
                .map(|diff| JsonDeclaration {
                    diff,
                    newly_holed: diff.is_newly_holed(),
                    added_axiom: diff.is_added_axiom(),
                })
                .collect(),
            outside: &comparison.outside,
            old_holes: comparison.old_holes,
            new_holes: comparison.new_holes,
            old_errors: comparison.old_errors,
            new_errors: comparison.new_errors,
            blocks: comparison.blocks(),
            advises: comparison.advises(),
        };
        serde_json::to_writer(&mut out, &report)
            .map_err(std::io::Error::from)
            .and_then(|()| writeln!(out))
    } else {
        write_human(&mut out, &old_path, &new_path, &comparison)
    };
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e.into()),
        Ok(()) => Ok(ExitCode::SUCCESS),
    }
}

fn write_human(
    out: &mut impl Write,
    old_path: &str,
    new_path: &str,
    c: &FileComparison,
) -> std::io::Result<()> {
    writeln!(out, "--- {old_path}")?;
    writeln!(out, "+++ {new_path}")?;
    for d in c.changed() {
        let lines = match (&d.old, &d.new) {
            (Some(o), Some(n)) if o.line == n.line => format!("line {}", n.line),
            (Some(o), Some(n)) => format!("line {} → {}", o.line, n.line),
            (Some(o), None) => format!("line {}", o.line),
            (None, Some(n)) => format!("line {}", n.line),
            (None, None) => String::new(),
        };
        writeln!(
            out,
            "{:<8} {} ({lines}){}",
            status_word(d.status),
            d.label(),
            notes(d)
        )?;
        write_hunks(out, &d.hunks)?;
    }
    if !c.outside.is_empty() {
        writeln!(out, "outside declarations")?;
        write_hunks(out, &c.outside)?;
    }
    let (added, removed, modified) = c.counts();
    let mut summary = if c.is_identical() {
        "no differences".to_string()
    } else {
        format!("{added} added, {removed} removed, {modified} modified")
    };
    if c.old_holes != c.new_holes {
        summary.push_str(&format!("; holes {} → {}", c.old_holes, c.new_holes));
    }
    if c.old_errors != c.new_errors {
        summary.push_str(&format!(
            "; syntax errors {} → {}",
            c.old_errors, c.new_errors
        ));
    }
    writeln!(out, "{summary}")
}

fn status_word(s: Status) -> &'static str {
    match s {
        Status::Added => "added",
        Status::Removed => "removed",
        Status::Modified => "modified",
        Status::Unchanged => "same",
    }
}

fn notes(d: &DeclarationDiff) -> String {
    let mut notes = Vec::new();
    if d.is_added_axiom() {
        notes.push("new axiom".to_string());
    }
    if d.statement_changed {
        notes.push("statement changed".into());
    }
    if d.proof_changed {
        notes.push("proof changed".into());
    }
    if d.header_changed {
        notes.push("attributes or modifiers changed".into());
    }
    if let (Some(o), Some(n)) = (&d.old, &d.new) {
        if o.kind != n.kind {
            notes.push(format!("was {}", o.kind));
        }
    }
    if d.is_newly_holed() {
        notes.push("a complete proof now has a hole".into());
    }
    let count = |n: usize| format!("{n} hole{}", if n == 1 { "" } else { "s" });
    match d.status {
        Status::Added if d.new_holes() > 0 => notes.push(count(d.new_holes())),
        Status::Removed if d.old_holes() > 0 => notes.push(count(d.old_holes())),
        _ => {
            if d.holes_introduced() > 0 {
                notes.push(format!("{} introduced", count(d.holes_introduced())));
            }
            if d.holes_closed() > 0 {
                notes.push(format!("{} closed", count(d.holes_closed())));
            }
        }
    }
    if notes.is_empty() {
        String::new()
    } else {
        format!(": {}", notes.join(", "))
    }
}

fn write_hunks(out: &mut impl Write, hunks: &[Hunk]) -> std::io::Result<()> {
    for h in hunks {
        writeln!(out, "{}", h.header())?;
        for line in &h.lines {
            writeln!(out, "{line}")?;
        }
    }
    Ok(())
}
