//! `mf lint`: findings for CI, rendered as rustc-style text, JSON, GitHub annotations or SARIF.

use std::io::Write;
use std::ops::ControlFlow;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use crate::cli::excerpt::{self, Excerpt};
use crate::cli::render::{Painter, Style};
use crate::lean::batch::parse_files;
use crate::lean::outline::Outline;
use crate::lean::walk::{lean_files, IgnoreRules};
use crate::lint::sarif::{self, SarifFinding};
use crate::lint::summary::{plural, Summary};
use crate::lint::{self, false_lemmas, Finding, LintConfig, Rule, Severity};

use super::{report_errors, Paths, EXIT_INPUT};

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(super) enum Format {
    /// rustc-style: file:line:col, the source line and a caret
    Human,
    /// JSON Lines: one {path, line, column, end_line, end_column, rule, severity, message} per
    /// finding, then {"summary": {files, errors, warnings, skipped}}
    Json,
    /// GitHub Actions workflow commands (::error file=…,line=…::message), and a Markdown
    /// summary appended to $GITHUB_STEP_SUMMARY when it is set
    Github,
    /// A SARIF 2.1.0 log for GitHub code scanning (paths relative to the working directory)
    Sarif,
}

#[derive(clap::Args)]
pub struct LintArgs {
    #[command(flatten)]
    paths: Paths,
    /// Output format
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub(super) format: Format,
    /// Do not run RULE (repeatable, or comma-separated)
    #[arg(long, value_name = "RULE", value_parser = RuleParser, value_delimiter = ',', hide_possible_values = true)]
    allow: Vec<Rule>,
    /// Make RULE an error (repeatable, or comma-separated)
    #[arg(long, value_name = "RULE", value_parser = RuleParser, value_delimiter = ',', hide_possible_values = true)]
    deny: Vec<Rule>,
    /// tracking.db with the false lemmas [default: $MATH_FORGE_TRACKING_DB, else ./submissions/tracking.db]
    #[arg(long, value_name = "PATH")]
    tracking: Option<PathBuf>,
    /// Exit 0 even when error-level findings are found (usage and input errors still fail)
    #[arg(long)]
    exit_zero: bool,
}

fn parse_rule(s: &str) -> Result<Rule, String> {
    s.parse().map_err(|e: lint::UnknownRule| e.to_string())
}

/// Parses a rule name with [`parse_rule`]'s message for an unknown one, and tells completion
/// scripts the rule names (a plain function parser offers none, so shells completed file
/// names).
#[derive(Clone)]
struct RuleParser;

impl clap::builder::TypedValueParser for RuleParser {
    type Value = Rule;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<Rule, clap::Error> {
        clap::builder::StringValueParser::new()
            .try_map(|s| parse_rule(&s))
            .parse_ref(cmd, arg, value)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(
            Rule::ALL
                .iter()
                .map(|r| clap::builder::PossibleValue::new(r.name())),
        ))
    }
}

/// One file's findings, with the source they point at (for the human format: an excerpt
/// per finding) or their fingerprints (for SARIF).
struct FileFindings {
    findings: Vec<Finding>,
    excerpts: Vec<Excerpt>,
    fingerprinted: Vec<SarifFinding>,
}

pub fn run(args: LintArgs) -> Result<ExitCode> {
    if let Some(rule) = args.allow.iter().find(|r| args.deny.contains(r)) {
        let message = format!("error: rule `{rule}` is both allowed and denied");
        crate::cli::output::error("mf", None, &message);
        return Ok(ExitCode::from(EXIT_INPUT));
    }
    let mut config = LintConfig::new();
    for &rule in &args.allow {
        config.allow(rule);
    }
    for &rule in &args.deny {
        config.deny(rule);
    }
    if config.severity(Rule::FalseLemmaReference).is_some() {
        let wanted = args.deny.contains(&Rule::FalseLemmaReference);
        match false_lemmas::load(args.tracking.as_deref(), wanted) {
            Ok(found) => {
                if let Some(note) = &found.note {
                    crate::cli::output::info("mf", &format!("note: {note}"));
                }
                config.false_lemmas(&found.names);
            }
            Err(e) => {
                let message = format!("error: tracking database {e}");
                crate::cli::output::error("mf", None, &message);
                return Ok(ExitCode::from(EXIT_INPUT));
            }
        }
    }

    let (files, walk_errors) = lean_files(&args.paths.paths, IgnoreRules::Gitignore);
    let mut inputs = args.paths.inputs();
    inputs.fail_if(report_errors(&walk_errors));
    let want_lines = args.format == Format::Human;
    let painter = Painter::for_stdout();
    let want_fingerprints = args.format == Format::Sarif;
    let mut summary = Summary::default();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut all_sarif: Vec<SarifFinding> = Vec::new();
    let mut counts = Counts::default();
    let mut write_error = None;

    parse_files(
        &files,
        |result| {
            result.map(|(source, parsed)| {
                let path = source.path.display().to_string();
                let mut findings = lint::lint(&path, &parsed, &config);
                let mut fingerprinted = Vec::new();
                if want_fingerprints {
                    let outline = Outline::of(&path, &parsed);
                    fingerprinted = sarif::fingerprint_file(
                        std::mem::take(&mut findings),
                        &outline.declarations,
                        |n| parsed.line(n),
                    );
                }
                let excerpts = if want_lines {
                    excerpts_of(&findings, |n| parsed.line(n))
                } else {
                    Vec::new()
                };
                FileFindings {
                    findings,
                    excerpts,
                    fingerprinted,
                }
            })
        },
        |result| {
            let file = match result {
                Err(e) => {
                    inputs.source_error("mf", &e);
                    return ControlFlow::Continue(());
                }
                Ok(file) => file,
            };
            counts.files += 1;
            for f in file
                .findings
                .iter()
                .chain(file.fingerprinted.iter().map(|s| &s.finding))
            {
                counts.add(f);
            }
            let written = match args.format {
                Format::Human => file
                    .findings
                    .iter()
                    .zip(&file.excerpts)
                    .try_for_each(|(f, e)| write_human(&mut out, painter, f, e)),
                Format::Github => {
                    summary.add_file(&file.findings);
                    file.findings
                        .iter()
                        .try_for_each(|f| writeln!(out, "{}", github_line(f)))
                }
                Format::Json => file.findings.iter().try_for_each(|f| {
                    serde_json::to_writer(&mut out, f)
                        .map_err(std::io::Error::from)
                        .and_then(|()| writeln!(out))
                }),
                Format::Sarif => {
                    all_sarif.extend(file.fingerprinted);
                    Ok(())
                }
            };
            if let Err(e) = written {
                write_error.get_or_insert(e);
                return ControlFlow::Break(());
            }
            ControlFlow::Continue(())
        },
    );

    let written = match args.format {
        Format::Human => writeln!(out, "{}", counts.summary()),
        Format::Github => append_step_summary(&summary),
        Format::Json => {
            let summary = json!({"summary": {
                "files": counts.files,
                "errors": counts.errors,
                "warnings": counts.warnings,
                "skipped": inputs.skipped,
            }});
            writeln!(out, "{summary}")
        }
        Format::Sarif => std::env::current_dir()
            .and_then(|root| {
                serde_json::to_writer_pretty(&mut out, &sarif::log(&all_sarif, &root))
                    .map_err(std::io::Error::from)
            })
            .and_then(|()| writeln!(out)),
    }
    .and_then(|()| out.flush());
    match write_error.map_or(written, Err) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        Err(e) => return Err(e.into()),
        Ok(()) => {}
    }

    if inputs.skipped > 0 {
        crate::cli::output::info("mf", &super::parse::skipped_line(inputs.skipped));
    }
    Ok(inputs.exit(counts.errors > 0 && !args.exit_zero))
}

#[derive(Default)]
struct Counts {
    files: usize,
    errors: usize,
    warnings: usize,
}

impl Counts {
    fn add(&mut self, f: &Finding) {
        match f.severity {
            Severity::Error => self.errors += 1,
            Severity::Warning => self.warnings += 1,
        }
    }

    fn summary(&self) -> String {
        format!(
            "mf lint: {}, {} in {}",
            plural(self.errors, "error"),
            plural(self.warnings, "warning"),
            plural(self.files, "file")
        )
    }
}

/// The excerpt of its line for each finding (sorted by line, then column), each line cut
/// once for all its findings.
fn excerpts_of<'a>(findings: &[Finding], line: impl Fn(usize) -> Option<&'a str>) -> Vec<Excerpt> {
    let mut out = Vec::with_capacity(findings.len());
    for same_line in findings.chunk_by(|a, b| a.line == b.line) {
        let n = same_line[0].line;
        let spans: Vec<(usize, Option<usize>)> = same_line
            .iter()
            .map(|f| {
                let start = f.column.saturating_sub(1);
                let end = (f.end_line == f.line).then(|| f.end_column.saturating_sub(1));
                (start, end)
            })
            .collect();
        out.extend(excerpt::excerpts(line(n).unwrap_or(""), &spans));
    }
    out
}

/// rustc style, colored as `--color` says:
///
/// ```text
/// error[sorry]: `sorry` leaves a proof unfinished
///  --> Foo.lean:3:3
///   |
/// 3 |   sorry
///   |   ^^^^^
/// ```
///
/// A long line is cut around the finding (see [`excerpt`]).
fn write_human(
    out: &mut impl Write,
    p: Painter,
    f: &Finding,
    excerpt: &Excerpt,
) -> std::io::Result<()> {
    let number = f.line.to_string();
    let pad = " ".repeat(number.len());
    let (level, carets) = match f.severity {
        Severity::Error => (Style::BoldRed, Style::BoldRed),
        Severity::Warning => (Style::BoldYellow, Style::BoldYellow),
    };
    let gutter = |s: &str| p.paint(Style::BoldBlue, s);
    let mut message = f.message.lines();
    writeln!(
        out,
        "{}{}",
        p.paint(level, &format!("{}[{}]", f.severity.as_str(), f.rule)),
        p.paint(Style::Bold, &format!(": {}", message.next().unwrap_or("")))
    )?;
    writeln!(
        out,
        "{pad}{} {}:{}:{}",
        gutter("-->"),
        f.path,
        f.line,
        f.column
    )?;
    writeln!(out, "{pad} {}", gutter("|"))?;
    writeln!(out, "{} {}", gutter(&format!("{number} |")), excerpt.text)?;
    writeln!(
        out,
        "{pad} {} {}{}",
        gutter("|"),
        " ".repeat(excerpt.caret_at),
        p.paint(carets, &"^".repeat(excerpt.caret_len))
    )?;
    for more in message {
        writeln!(out, "{pad} {} {more}", gutter("="))?;
    }
    writeln!(out)
}

/// A GitHub Actions workflow command.
fn github_line(f: &Finding) -> String {
    format!(
        "::{} file={},line={},col={},endLine={},endColumn={},title={}::{}",
        f.severity.as_str(),
        escape_property(&f.path),
        f.line,
        f.column,
        f.end_line,
        f.end_column,
        escape_property(&format!("mf lint ({})", f.rule)),
        escape_data(&f.message)
    )
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Appends the run's Markdown summary to `$GITHUB_STEP_SUMMARY` when that is set (GitHub
/// shows it on the job's page).
fn append_step_summary(summary: &Summary) -> std::io::Result<()> {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        return Ok(());
    };
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| {
            std::io::Error::new(
                e.kind(),
                format!(
                    "GITHUB_STEP_SUMMARY {}: {e}",
                    PathBuf::from(&path).display()
                ),
            )
        })?;
    file.write_all(summary.markdown().as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(message: &str) -> Finding {
        Finding {
            path: "a,b:c.lean".into(),
            line: 2,
            column: 3,
            end_line: 2,
            end_column: 8,
            rule: Rule::Sorry,
            severity: Severity::Error,
            message: message.into(),
        }
    }

    #[test]
    fn github_escapes_properties_and_data() {
        assert_eq!(
            github_line(&finding("50% done\nnext")),
            "::error file=a%2Cb%3Ac.lean,line=2,col=3,endLine=2,endColumn=8,\
             title=mf lint (sorry)::50%25 done%0Anext"
        );
    }

    #[test]
    fn human_underlines_with_tabs_and_unicode() {
        let mut f = finding("msg");
        f.column = 4;
        f.end_column = 9;
        let excerpts = excerpts_of(std::slice::from_ref(&f), |_| Some("\tℕ sorry"));
        let mut out = Vec::new();
        write_human(&mut out, Painter::new(false), &f, &excerpts[0]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "error[sorry]: msg\n --> a,b:c.lean:2:4\n  |\n2 |     ℕ sorry\n  |       ^^^^^\n\n"
        );
        let mut out = Vec::new();
        write_human(&mut out, Painter::new(true), &f, &excerpts[0]).unwrap();
        let colored = String::from_utf8(out).unwrap();
        assert!(
            colored.starts_with("\x1b[1m\x1b[31merror[sorry]\x1b[0m"),
            "{colored:?}"
        );
    }
}
