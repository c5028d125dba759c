//! The `mf` command: argument parsing and dispatch.

mod diff;
mod examples;
mod extract;
mod hook;
mod lint;
mod mcp;
mod outline;
mod parse;
mod sorries;
mod splice;
mod verify;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

use crate::cli::generate::{self, GenerateArgs, ManArgs};
use crate::cli::output::TerminalArgs;
pub(crate) use crate::cli::output::{Inputs, EXIT_FOUND, EXIT_INPUT};

/// The end of `mf --help`: examples, then the exit-status contract.
fn mf_after_help() -> String {
    format!(
        "{}\n\n{}",
        examples::MF,
        crate::cli::output::EXIT_CODES_HELP
    )
}

#[derive(Parser)]
#[command(
    name = "mf",
    version,
    about = "Read Lean 4 precisely: parse, outline, extract, lint, verify",
    propagate_version = true,
    after_help = mf_after_help()
)]
struct Cli {
    #[command(flatten)]
    terminal: TerminalArgs,
    #[command(subcommand)]
    command: Command,
}

impl Command {
    /// Whether the command prints JSON for a program (so its errors are JSON too).
    fn json(&self) -> bool {
        match self {
            Command::Parse(a) => a.json,
            Command::Outline(a) => a.json,
            Command::Extract(a) => a.json,
            Command::Lint(a) => matches!(a.format, lint::Format::Json | lint::Format::Sarif),
            Command::Verify(a) => a.json,
            Command::Sorries(a) => a.json,
            Command::Splice(a) => a.json,
            Command::Diff(a) => a.json,
            Command::Hook(_) | Command::Mcp(_) | Command::Completions(_) | Command::Man(_) => false,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Print each file's syntax tree as an S-expression, or parse statistics
    #[command(after_help = examples::PARSE)]
    Parse(parse::ParseArgs),
    /// Show declarations, sorries, axioms, tactics and imports of each file
    #[command(after_help = examples::OUTLINE)]
    Outline(outline::OutlineArgs),
    /// Extract result files into the knowledge base
    #[command(after_help = examples::EXTRACT)]
    Extract(extract::ExtractArgs),
    /// Lint Lean files for CI (sorry, axioms, native_decide, debug commands, …)
    #[command(after_help = examples::LINT)]
    Lint(lint::LintArgs),
    /// The proof gate: compile with lake when available, and check structurally
    #[command(after_help = examples::VERIFY)]
    Verify(verify::VerifyArgs),
    /// List every sorry/admit with its declaration: the work list of holes
    #[command(after_help = examples::SORRIES)]
    Sorries(sorries::SorriesArgs),
    /// Replace a declaration's proof, or one hole in it, in place
    #[command(after_help = examples::SPLICE)]
    Splice(splice::SpliceArgs),
    /// Compare two versions of a file declaration by declaration
    #[command(after_help = examples::DIFF)]
    Diff(diff::DiffArgs),
    /// Claude Code hooks the plugin runs: session-start, pre-tool-use, post-tool-use, lean-output, stop, session-end
    #[command(after_help = examples::HOOK)]
    Hook(hook::HookArgs),
    /// Serve the knowledge base and the proof cursor as MCP tools over stdio
    #[command(after_help = examples::MCP)]
    Mcp(mcp::McpArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    #[command(after_help = examples::COMPLETIONS)]
    Completions(GenerateArgs),
    /// Print the man page (roff) on standard output, or write every page into a directory
    #[command(after_help = examples::MAN)]
    Man(ManArgs),
}

/// `mf`'s command-line definition (for help, completions and man pages).
pub fn command() -> clap::Command {
    Cli::command()
}

/// Entry point of `mf`.
pub fn main() -> ExitCode {
    // `mf hook NAME`, as the plugin runs it on every tool call: the arguments clap would give
    // (no terminal flags, no JSON command), without building the parser of every command.
    if let Some(args) = hook::plain(std::env::args_os()) {
        TerminalArgs::default().apply(false);
        return finish(hook::run(args));
    }
    let cli = Cli::parse();
    cli.terminal.apply(cli.command.json());
    let result = match cli.command {
        Command::Parse(args) => parse::run(args),
        Command::Outline(args) => outline::run(args),
        Command::Extract(args) => extract::run(args),
        Command::Lint(args) => lint::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Sorries(args) => sorries::run(args),
        Command::Splice(args) => splice::run(args),
        Command::Diff(args) => diff::run(args),
        Command::Hook(args) => hook::run(args),
        Command::Mcp(args) => mcp::run(args),
        Command::Completions(args) => {
            generate::completions(Cli::command(), "mf", args.shell, &mut std::io::stdout())
                .map(|()| ExitCode::SUCCESS)
                .map_err(Into::into)
        }
        Command::Man(args) => generate::man(Cli::command(), &args, &mut std::io::stdout())
            .map(|()| ExitCode::SUCCESS)
            .map_err(Into::into),
    };
    finish(result)
}

/// The exit code of a command's result, its error printed.
fn finish(result: anyhow::Result<ExitCode>) -> ExitCode {
    match result {
        Ok(code) => code,
        // A reader that stops early (`mf outline … | head`) is not an error.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            crate::cli::output::error("mf", error_path(&e), &format!("{e:#}"));
            ExitCode::from(EXIT_INPUT)
        }
    }
}

/// The file an error is about, when the error says.
fn error_path(e: &anyhow::Error) -> Option<&std::path::Path> {
    e.chain().find_map(|cause| {
        use crate::verify::VerifyError;
        if let Some(e) = cause.downcast_ref::<crate::lean::source::SourceError>() {
            Some(e.path())
        } else if let Some(e) = cause.downcast_ref::<VerifyError>() {
            match e {
                VerifyError::Source(e) => Some(e.path()),
                VerifyError::ProjectMissing(path) => Some(path.as_path()),
                VerifyError::Spawn { .. } => None,
            }
        } else {
            cause
                .downcast_ref::<crate::files::FileError>()
                .map(|e| e.path())
        }
    })
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Paths given on the command line.
#[derive(clap::Args)]
pub(crate) struct Paths {
    /// Lean files (`-` for standard input), or directories walked for `*.lean` (hidden
    /// directories such as .lake are skipped)
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Treat files under a directory that are not Lean text (binary, gzip, not UTF-8) as errors
    /// instead of skipping them with a warning
    #[arg(long)]
    pub strict: bool,
}

impl Paths {
    /// The input tracker for these paths.
    pub fn inputs(&self) -> Inputs {
        Inputs::new(&self.paths, self.strict)
    }
}

/// Prints one error line per problem and tells whether there was any.
pub(crate) fn report_errors(errors: &[crate::lean::walk::WalkError]) -> bool {
    for e in errors {
        crate::cli::output::error("mf", Some(e.path()), &e.to_string());
    }
    !errors.is_empty()
}
