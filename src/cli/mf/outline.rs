//! `mf outline`: what each file declares, where its holes are, what it imports.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Result;

use crate::lean::batch::parse_files;
use crate::lean::walk::{lean_files, IgnoreRules};
use crate::lean::Outline;

use super::{report_errors, Paths, EXIT_INPUT_FAILED};

#[derive(clap::Args)]
pub struct OutlineArgs {
    #[command(flatten)]
    paths: Paths,
    /// One JSON object per file per line
    #[arg(long)]
    json: bool,
}

pub fn run(args: OutlineArgs) -> Result<ExitCode> {
    let (files, walk_errors) = lean_files(&args.paths.paths, IgnoreRules::HiddenOnly);
    let mut failed = report_errors(&walk_errors);
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
                    eprintln!("mf: {e}");
                    failed = true;
                    Ok(())
                }
                Ok(outline) if args.json => serde_json::to_writer(&mut out, &outline)
                    .map_err(std::io::Error::from)
                    .and_then(|()| writeln!(out)),
                Ok(outline) => write_human(&mut out, &outline),
            };
            if let Err(e) = written {
                write_error.get_or_insert(e);
            }
        },
    );
    match write_error {
        Some(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
        Some(e) => return Err(e.into()),
        None => {}
    }
    out.flush()?;
    Ok(if failed {
        ExitCode::from(EXIT_INPUT_FAILED)
    } else {
        ExitCode::SUCCESS
    })
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
    for d in &o.declarations {
        let lines = if d.end_line > d.line {
            format!("{}-{}", d.line, d.end_line)
        } else {
            d.line.to_string()
        };
        let name = if d.full_name.is_empty() {
            "(anonymous)"
        } else {
            &d.full_name
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
        writeln!(out, "  {lines:<9} {:<9} {name}{notes}", d.kind)?;
        if !d.tactics.is_empty() {
            let mut tactics: Vec<_> = d.tactics.iter().collect();
            tactics.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
            let list: Vec<String> = tactics.iter().map(|(t, n)| format!("{t} {n}")).collect();
            writeln!(out, "  {:<9} {:<9} tactics: {}", "", "", list.join(", "))?;
        }
    }
    if !o.sorries.is_empty() {
        let places: Vec<String> = o
            .sorries
            .iter()
            .map(|s| match &s.declaration {
                Some(d) if !d.is_empty() => format!("{}:{} in {d}", s.line, s.column),
                _ => format!("{}:{}", s.line, s.column),
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
