//! `mf outline`: what each file declares, where its holes are, what it imports.

use std::io::Write;
use std::ops::ControlFlow;
use std::process::ExitCode;

use anyhow::Result;

use crate::cli::render::one_line;
use crate::lean::batch::parse_files;
use crate::lean::walk::{lean_files, IgnoreRules};
use crate::lean::Outline;

use super::{report_errors, Paths};

#[derive(clap::Args)]
pub struct OutlineArgs {
    #[command(flatten)]
    paths: Paths,
    /// One JSON object per file per line
    #[arg(long)]
    pub(super) json: bool,
}

pub fn run(args: OutlineArgs) -> Result<ExitCode> {
    let (files, walk_errors) = lean_files(&args.paths.paths, IgnoreRules::HiddenOnly);
    let mut inputs = args.paths.inputs();
    inputs.fail_if(report_errors(&walk_errors));
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut write_error = None;
    parse_files(
        &files,
        |result| {
            result.map(|(source, parsed)| Outline::of(&source.path.display().to_string(), &parsed))
        },
        |outline| {
            let written = match outline {
                Err(e) => {
                    inputs.source_error("mf", &e);
                    Ok(())
                }
                Ok(outline) if args.json => serde_json::to_writer(&mut out, &outline)
                    .map_err(std::io::Error::from)
                    .and_then(|()| writeln!(out)),
                Ok(outline) => write_human(&mut out, &outline),
            };
            if let Err(e) = written {
                write_error.get_or_insert(e);
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        },
    );
    match write_error {
        Some(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        Some(e) => return Err(e.into()),
        None => {}
    }
    out.flush()?;
    if inputs.skipped > 0 {
        crate::cli::output::info("mf", &super::parse::skipped_line(inputs.skipped));
    }
    Ok(inputs.exit(false))
}

fn write_human(out: &mut impl Write, o: &Outline) -> std::io::Result<()> {
    let errors = match o.error_nodes {
        0 => String::new(),
        1 => "  (1 parse error)".to_string(),
        n => format!("  ({n} parse errors)"),
    };
    writeln!(out, "{}{errors}", o.path)?;
    if !o.imports.is_empty() {
        writeln!(out, "  imports  {}", o.imports.join(", "))?;
    }
    if let Some(h) = &o.header {
        let field = |v: &Option<String>| v.clone().unwrap_or_else(|| "?".into());
        writeln!(
            out,
            "  aristotle  lean {}  mathlib {}  uuid {}",
            field(&h.lean_version),
            field(&h.mathlib_version),
            field(&h.uuid)
        )?;
    }
    // The kind column fits the longest kind of the file (`class inductive`).
    let kind_width = o
        .declarations
        .iter()
        .map(|d| d.kind.chars().count())
        .max()
        .unwrap_or(0)
        .max(9);
    for d in &o.declarations {
        let lines = if d.end_line > d.line {
            format!("{}-{}", d.line, d.end_line)
        } else {
            d.line.to_string()
        };
        let name = if d.full_name.is_empty() {
            format!(
                "(anonymous) {}",
                one_line(&d.statement, ANONYMOUS_STATEMENT_CHARS)
            )
        } else {
            d.full_name.clone()
        };
        let mut notes = Vec::new();
        if !d.modifiers.is_empty() {
            notes.push(d.modifiers.join(" "));
        }
        if !d.attributes.is_empty() {
            notes.push(format!("@[{}]", d.attributes.join(", ")));
        }
        match d.sorry_count {
            0 => {}
            1 => notes.push("1 sorry".into()),
            n => notes.push(format!("{n} sorries")),
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!("  {}", notes.join("  "))
        };
        writeln!(out, "  {lines:<9} {:<kind_width$} {name}{notes}", d.kind)?;
        // Holes are counted above; the tactics line names the proof's own steps.
        let mut tactics: Vec<_> = d
            .tactics
            .iter()
            .filter(|(t, _)| !matches!(t.as_str(), "sorry" | "admit"))
            .collect();
        if !tactics.is_empty() {
            tactics.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let list: Vec<String> = tactics.iter().map(|(t, n)| format!("{t} {n}")).collect();
            writeln!(
                out,
                "  {:<9} {:<kind_width$} tactics: {}",
                "",
                "",
                list.join(", ")
            )?;
        }
    }
    if !o.sorries.is_empty() {
        let places: Vec<String> =
            o.sorries
                .iter()
                .map(|s| match s.declaration.as_deref() {
                    Some("") => match o.declarations.iter().find(|d| {
                        d.full_name.is_empty() && d.line <= s.line && s.line <= d.end_line
                    }) {
                        Some(d) => format!(
                            "{}:{} in the {} at line {}",
                            s.line, s.column, d.kind, d.line
                        ),
                        None => format!("{}:{}", s.line, s.column),
                    },
                    Some(d) => format!("{}:{} in {d}", s.line, s.column),
                    None => format!("{}:{}", s.line, s.column),
                })
                .collect();
        writeln!(out, "  sorries  {}", places.join(", "))?;
    }
    if !o.axioms.is_empty() {
        let names: Vec<String> = o
            .axioms
            .iter()
            .map(|a| format!("{} (line {})", a.name, a.line))
            .collect();
        writeln!(out, "  axioms   {}", names.join(", "))?;
    }
    Ok(())
}

/// How much of an anonymous declaration's statement names it in the human outline.
const ANONYMOUS_STATEMENT_CHARS: usize = 60;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lean::ParsedFile;

    fn human(text: &str) -> String {
        let outline = Outline::of("t.lean", &ParsedFile::parse(text.to_string()));
        let mut out = Vec::new();
        write_human(&mut out, &outline).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn anonymous_declarations_are_named_by_their_statement() {
        let out = human(
            "instance : Inhabited Nat := ⟨sorry⟩\n\n\
             class inductive Good : Prop\n  | yes\n\n\
             theorem t : True := by\n  sorry\n",
        );
        assert_eq!(
            out,
            "t.lean\n\
             \x20 1         instance        (anonymous) : Inhabited Nat  1 sorry\n\
             \x20 3-4       class inductive Good\n\
             \x20 6-7       theorem         t  1 sorry\n\
             \x20 sorries  1:30 in the instance at line 1, 7:3 in t\n"
        );
    }
}
