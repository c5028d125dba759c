//! The `mf` command: argument parsing and dispatch.

mod diff;
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

use crate::cli::generate::{self, GenerateArgs};
pub(crate) use crate::cli::output::{Inputs, EXIT_FOUND, EXIT_INPUT};

#[derive(Parser)]
#[command(
    name = "mf",
    version,
    about = "Read Lean 4 precisely: parse, outline, extract, lint, verify",
    propagate_version = true,
    after_help = crate::cli::output::EXIT_CODES_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print each file's syntax tree as an S-expression, or parse statistics
    Parse(parse::ParseArgs),
    /// Show declarations, sorries, axioms, tactics and imports of each file
    Outline(outline::OutlineArgs),
    /// Extract result files into the knowledge base
    Extract(extract::ExtractArgs),
    /// Lint Lean files for CI (sorry, axioms, native_decide, debug commands, …)
    Lint(lint::LintArgs),
    /// The proof gate: compile with lake when available, and check structurally
    Verify(verify::VerifyArgs),
    /// List every sorry/admit with its declaration: the work list of holes
    Sorries(sorries::SorriesArgs),
    /// Replace a declaration's proof, or one hole in it, in place
    Splice(splice::SpliceArgs),
    /// Compare two versions of a file declaration by declaration
    Diff(diff::DiffArgs),
    /// Claude Code hooks (session-start, pre-tool-use, post-tool-use, stop, subagent-start)
    Hook(hook::HookArgs),
    /// Serve the knowledge base and the proof cursor as MCP tools over stdio
    Mcp(mcp::McpArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(GenerateArgs),
    /// Print the man page (roff) on standard output
    Man,
}

/// Entry point of `mf`.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
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
        Command::Man => generate::man(Cli::command(), &mut std::io::stdout())
            .map(|()| ExitCode::SUCCESS)
            .map_err(Into::into),
    };
    match result {
        Ok(code) => code,
        // A reader that stops early (`mf outline … | head`) is not an error.
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            note!("mf: {e:#}");
            ExitCode::from(EXIT_INPUT)
        }
    }
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
    /// Lean files, or directories walked for `*.lean` (hidden directories such as .lake are skipped)
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
pub(crate) fn report_errors<E: std::fmt::Display>(errors: &[E]) -> bool {
    for e in errors {
        note!("mf: {e}");
    }
    !errors.is_empty()
}
