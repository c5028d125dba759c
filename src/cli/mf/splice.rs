//! `mf splice`: put a proof in place of a declaration's proof, or of one of its holes.
//!
//! On success prints one line (`Foo.lean:30:3: spliced 3 lines into theorem T.one_hole, …`),
//! or with `--json` one object:
//!
//! ```json
//! {"path":"Foo.lean","declaration":"T.one_hole","kind":"theorem","line":30,"column":3,
//!  "form":"hole","old_lines":1,"new_lines":3,"holes_in_declaration":0,"holes_in_file":2,
//!  "written":true}
//! ```
//!
//! `form` says how the proof was read: `body`, `term`, `tactics` or `hole` (see
//! [`crate::cursor::Splice`]). With `--dry-run` nothing is written, `written` is false and the
//! human output shows the change as a diff. A refusal is one line on stderr and exit status 1,
//! with the file untouched.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use serde::Serialize;

use crate::cursor::{self, FileSpliceError, ProofForm, Splice};
use crate::lean::compare::FileComparison;
use crate::lean::{Outline, Source};

use super::{EXIT_FOUND, EXIT_INPUT};

#[derive(clap::Args)]
pub struct SpliceArgs {
    /// The Lean file to change
    file: PathBuf,
    /// The declaration: full name, name as written, unique suffix, or a line number inside it
    #[arg(value_name = "DECL")]
    declaration: String,
    /// File holding the proof, or `-` for standard input
    #[arg(long, value_name = "FILE|-")]
    proof: PathBuf,
    /// Replace only the N-th `sorry`/`admit` of DECL (1-based, in file order)
    #[arg(long = "sorry", value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    hole: Option<u64>,
    /// Show the change without writing the file
    #[arg(long)]
    dry_run: bool,
    /// Allow replacing a complete proof with one that has sorry/admit (refused otherwise)
    #[arg(long)]
    allow_sorry: bool,
    /// Print one JSON object describing the splice
    #[arg(long)]
    pub(super) json: bool,
}

#[derive(Serialize)]
struct Report<'a> {
    path: String,
    declaration: &'a str,
    kind: &'a str,
    line: usize,
    column: usize,
    form: ProofForm,
    old_lines: usize,
    new_lines: usize,
    holes_in_declaration: usize,
    holes_in_file: usize,
    written: bool,
}

pub fn run(args: SpliceArgs) -> Result<ExitCode> {
    let proof = match read_proof(&args.proof) {
        Ok(p) => p,
        Err(e) => {
            note!("mf: {e:#}");
            return Ok(ExitCode::from(EXIT_INPUT));
        }
    };
    let request = Splice {
        declaration: &args.declaration,
        proof: &proof,
        hole: args.hole.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        allow_sorry: args.allow_sorry,
    };
    let (source, spliced) = match cursor::splice_file(&args.file, &request, args.dry_run) {
        Ok(done) => done,
        Err(e) => {
            note!("mf: {e}");
            // A refusal is the splice's check finding something; the rest are input errors.
            return Ok(ExitCode::from(match e {
                FileSpliceError::Refused { .. } | FileSpliceError::Denied { .. } => EXIT_FOUND,
                FileSpliceError::Source(_) | FileSpliceError::Write { .. } => EXIT_INPUT,
            }));
        }
    };
    let path = args.file.display().to_string();
    let stdout = std::io::stdout();
    match report(&args, &path, &source, &spliced, &mut stdout.lock()) {
        // The file is written; a reader that went away does not make the splice fail.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e.into()),
        Ok(()) => Ok(ExitCode::SUCCESS),
    }
}

fn report(
    args: &SpliceArgs,
    path: &str,
    source: &Source,
    spliced: &cursor::Spliced,
    out: &mut impl Write,
) -> std::io::Result<()> {
    if args.json {
        let report = Report {
            path: path.to_string(),
            declaration: &spliced.declaration,
            kind: &spliced.kind,
            line: spliced.position.line,
            column: spliced.position.column,
            form: spliced.form,
            old_lines: spliced.old_lines,
            new_lines: spliced.new_lines,
            holes_in_declaration: spliced.holes_in_declaration,
            holes_in_file: spliced.holes_in_file,
            written: !args.dry_run,
        };
        serde_json::to_writer(&mut *out, &report)?;
        return writeln!(out);
    }
    let verb = if args.dry_run {
        "would splice"
    } else {
        "spliced"
    };
    let what = match spliced.form {
        ProofForm::Hole => format!("hole {} of", args.hole.unwrap_or(0)),
        _ => "the proof of".to_string(),
    };
    writeln!(
        out,
        "{path}:{}: {verb} {} line{} into {what} {} {} (replacing {}); {} left in it, {} in the file",
        spliced.position,
        spliced.new_lines,
        plural(spliced.new_lines),
        spliced.kind,
        spliced.declaration,
        lines(spliced.old_lines),
        holes(spliced.holes_in_declaration),
        spliced.holes_in_file,
    )?;
    if args.dry_run {
        let old_parsed = cursor::parse(&source.text);
        let new_parsed = cursor::parse(&spliced.text);
        let comparison = FileComparison::of(
            &source.text,
            &Outline::of(path, &old_parsed),
            &spliced.text,
            &Outline::of(path, &new_parsed),
        );
        for d in comparison.changed() {
            for hunk in &d.hunks {
                writeln!(out, "{}", hunk.header())?;
                for line in &hunk.lines {
                    writeln!(out, "{line}")?;
                }
            }
        }
    }
    Ok(())
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn lines(n: usize) -> String {
    format!("{n} line{}", plural(n))
}

fn holes(n: usize) -> String {
    format!("{n} hole{}", plural(n))
}

/// Reads the proof text from a file or standard input.
fn read_proof(path: &std::path::Path) -> Result<String> {
    if path.as_os_str() == "-" {
        let mut bytes = Vec::new();
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("standard input: cannot read the proof")?;
        let source = Source::from_bytes(std::path::Path::new("<stdin>"), bytes)?;
        return Ok(source.text);
    }
    Ok(Source::read(path)?.text)
}
