//! The `mk` command: the knowledge base from the command line.
//!
//! This layer parses arguments, calls [`crate::kb`], and renders the result as text (see
//! [`show`]) or, with `--json`, as JSON for programs. It computes nothing itself.

mod show;

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand};
use serde::Serialize;

use crate::cli::generate::{self, GenerateArgs, ManArgs};
use crate::cli::output::{self, TerminalArgs, EXIT_INPUT};
use crate::cli::render::Painter;
use crate::kb::{
    self, FailureInput, FindingType, InsightInput, Kb, KbError, Resolved, SearchOptions,
    StrategyInput, StrategyOutcome,
};
use crate::tracking::Tracking;

const EXAMPLES: &str = "\
Examples:
  mk init --from-tracking submissions/tracking.db
  mk search erdos_850_triple_factors
  mk search \"quadratic residue\" --domain nt --type theorem
  mk find erdos_364
  mk failed pigeonhole
  mk record failure --problem erdos_364 --approach pigeonhole --why \"bound too weak for n < 10^6\"
  mk recommend erdos_364
  mk report -o report.html     (then open report.html in a browser)
  mk query \"SELECT finding_type, count(*) FROM findings GROUP BY 1\"
  mk search -- -card            (words that start with '-' go after --)

knowledge.db: --db > $MATH_FORGE_DB > nearest .math-forge/knowledge.db (or .math-forge/) here or above
              (from $CLAUDE_PROJECT_DIR in Claude Code's hooks and MCP server)
              > $XDG_DATA_HOME/math-forge/knowledge.db (~/.local/share/…); `mk init` makes ./.math-forge/
tracking.db:  --tracking > $MATH_FORGE_TRACKING_DB > $CLAUDE_PROJECT_DIR/submissions/tracking.db > ./submissions/tracking.db

Exit status: 0 success; 1 the check found something (lint findings, verification failed);
2 usage or input error (unknown flag, missing path, unreadable file, bad database).";

/// math-forge knowledge base: what was proven, how, and what failed.
#[derive(Debug, Parser)]
#[command(name = "mk", version, after_help = EXAMPLES, disable_help_subcommand = true)]
struct Cli {
    #[command(flatten)]
    terminal: TerminalArgs,
    /// knowledge.db to use
    #[arg(long, global = true, value_name = "PATH")]
    db: Option<PathBuf>,
    /// tracking.db to read (never written)
    #[arg(long, global = true, value_name = "PATH")]
    tracking: Option<PathBuf>,
    /// Print JSON for programs instead of text
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create knowledge.db (or upgrade its schema) and migrate tracking.db into it: the project's
    /// (the nearest .math-forge/ here or above, else a new ./.math-forge/), or --db's
    #[command(after_help = "Examples:
  mk init                                          the project's knowledge base (./.math-forge/, or the nearest above)
  mk init --user                                   the user-level one ($XDG_DATA_HOME/math-forge/)
  mk init --from-tracking submissions/tracking.db  and migrate the pipeline's tracking.db")]
    Init {
        /// tracking.db to migrate from (default: the resolved tracking.db, if it exists)
        #[arg(long, value_name = "PATH")]
        from_tracking: Option<PathBuf>,
        /// The user-level knowledge.db ($XDG_DATA_HOME/math-forge/, ~/.local/share/math-forge/) instead of a project one
        #[arg(long)]
        user: bool,
    },
    /// Full-text search; names and problem ids that match exactly come first
    #[command(after_help = "Examples:
  mk search Finset.card_le_card                    exact names, then proofs that use it, then text
  mk search \"quadratic residue\" --domain nt --type theorem -n 10
  mk search -- -card                               a word that starts with '-' goes after --")]
    Search {
        /// Words, "phrases", partial names; OR and NOT work between terms
        #[arg(required = true, value_name = "QUERY")]
        query: Vec<String>,
        /// Number of results
        #[arg(long, short = 'n', default_value_t = 5, value_name = "N")]
        limit: usize,
        /// Only facts of this domain (nt, algebra, combinatorics, analysis, …)
        #[arg(long)]
        domain: Option<String>,
        /// Only facts of this type (theorem, technique, failure, false_lemma, computation,
        /// mathlib_api, insight)
        #[arg(long = "type", short = 't', value_parser = parse_finding_type)]
        finding_type: Option<FindingType>,
    },
    /// Everything about one problem: statement and source, literature status and ours, attempts, variants, facts, strategies, false lemmas, submissions
    #[command(after_help = "Example:
  mk find erdos_850                                status, statement, facts by type, strategies")]
    Find {
        /// Problem id (case, spaces, '_' and '-' do not matter)
        problem: String,
    },
    /// What to know before an attempt: statement and status, facts, failed approaches, false lemmas, techniques, similar problems
    #[command(after_help = "Example:
  mk context erdos_850 -n 12                       recorded constraints and facts first")]
    Context {
        /// Problem id (case, spaces, '_' and '-' do not matter)
        problem: String,
        /// Entries per section, most important first
        #[arg(long, short = 'n', default_value_t = 8, value_name = "N")]
        limit: usize,
    },
    /// Failed approaches and false lemmas, optionally matching a keyword or of one problem
    #[command(after_help = "Examples:
  mk failed                                        every failed approach and false lemma
  mk failed induction                              those that mention induction
  mk failed --problem erdos_850                    those of one problem (an id or alias)")]
    Failed {
        /// Words that a failure or false lemma must mention (all of them)
        #[arg(value_name = "KEYWORD")]
        keyword: Vec<String>,
        /// Only those of this problem (an id or alias; case, spaces, '_' and '-' do not matter)
        #[arg(long, value_name = "ID")]
        problem: Option<String>,
        /// Most entries shown
        #[arg(long, short = 'n', default_value_t = 20, value_name = "N")]
        limit: usize,
    },
    /// Proven techniques by frequency and how recorded approaches fared
    #[command(after_help = "Examples:
  mk strategies                                    across every domain
  mk strategies combinatorics -n 5")]
    Strategies {
        /// Only this domain (nt, algebra, combinatorics, analysis, …)
        #[arg(value_name = "DOMAIN")]
        domain: Option<String>,
        /// Most techniques and approaches shown
        #[arg(long, short = 'n', default_value_t = 20, value_name = "N")]
        limit: usize,
    },
    /// Counts, freshness, and which database files are used and why
    #[command(after_help = "Example:
  mk stats                                         facts, occurrences, files; which knowledge.db and why")]
    Stats,
    /// Run one read-only SQL statement (writes are refused)
    #[command(after_help = "Example:
  mk query \"SELECT finding_type, count(*) FROM findings GROUP BY 1\"")]
    Query {
        /// The statement (words are joined with spaces); SELECT, WITH, EXPLAIN or a read-only PRAGMA
        #[arg(required = true, value_name = "SQL")]
        sql: Vec<String>,
        /// Print at most N rows (rows are streamed, so any number is fine)
        #[arg(long, short = 'n', value_name = "N")]
        limit: Option<usize>,
    },
    /// Record what an attempt taught: a failure, a strategy outcome, an insight, a fact or a constraint
    #[command(after_help = "Examples:
  mk record failure --problem erdos_850 --approach pigeonhole --why \"bound too weak\"
  mk record constraint --problem erdos_850 --text \"n must be odd\"")]
    Record {
        #[command(subcommand)]
        what: RecordCommand,
    },
    /// Techniques ranked by observed success in a domain, minus those already failed on the problem
    #[command(after_help = "Examples:
  mk recommend erdos_850                           for a problem: its domain, minus what failed on it
  mk recommend combinatorics")]
    Recommend {
        /// A problem id or a domain
        target: String,
        /// Most techniques shown
        #[arg(long, short = 'n', default_value_t = 10, value_name = "N")]
        limit: usize,
    },
    /// Take files' facts off the knowledge base: files extracted by mistake, or gone
    #[command(after_help = "Examples:
  mk forget fixtures/results/                 every file extracted from below fixtures/results
  mk forget --missing --dry-run               list extracted files that no longer exist
  mk forget --missing                         and forget them")]
    Forget {
        /// Extracted files to forget, or directories: every extracted file below them (the
        /// files need not exist any more)
        #[arg(value_name = "PATH", required_unless_present = "missing")]
        paths: Vec<PathBuf>,
        /// Also forget every extracted file that no longer exists
        #[arg(long)]
        missing: bool,
        /// Only list what would be forgotten
        #[arg(long)]
        dry_run: bool,
    },
    /// Write the campaign as one HTML page: overview charts, problems, techniques, failures
    #[command(after_help = "Examples:
  mk report                                    report.html here; open it in a browser
  mk report -o /tmp/erdos_850.html --problem erdos_850
  mk report --since 2w -o recent.html          only the last two weeks' activity")]
    Report {
        /// Where to write the page ('-' for standard output)
        #[arg(long, short = 'o', value_name = "PATH", default_value = "report.html")]
        output: PathBuf,
        /// Only this problem (id as in mk find)
        #[arg(long, value_name = "ID")]
        problem: Option<String>,
        /// Only activity on or after DATE: YYYY-MM-DD, or a span back from today (7d, 2w)
        #[arg(long, value_name = "DATE")]
        since: Option<String>,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    #[command(after_help = "Example:
  mk completions bash > ~/.local/share/bash-completion/completions/mk")]
    Completions(GenerateArgs),
    /// Print the man page (roff) on standard output, or write every page into a directory
    #[command(after_help = "Example:
  mk man --dir ~/.local/share/man/man1             mk(1) and a page per subcommand")]
    Man(ManArgs),
    /// Print this help, or a command's
    #[command(after_help = "Example:
  mk help search")]
    Help {
        /// The command to explain
        command: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum RecordCommand {
    /// An approach that failed on a problem, and why
    #[command(after_help = "Example:
  mk record failure --problem erdos_850 --approach pigeonhole --why \"bound too weak for n < 10^6\"")]
    Failure(FailureArgs),
    /// The outcome of an approach on a problem
    #[command(after_help = "Example:
  mk record strategy --problem erdos_850 --approach \"induction on n\" --outcome partial")]
    Strategy(StrategyArgs),
    /// An observation worth keeping
    #[command(after_help = "Example:
  mk record insight --title \"omega closes the parity cases\" --text \"…\" --domain nt")]
    Insight(InsightArgs),
    /// Something established about a problem ("the sum is bounded by 2n"); shown by mk context
    #[command(after_help = "Example:
  mk record fact --problem erdos_850 --text \"the sum is bounded by 2n\"")]
    Fact(FactArgs),
    /// A condition discovered on a problem ("n must be odd"); shown first by mk context
    #[command(after_help = "Example:
  mk record constraint --problem erdos_850 --text \"n must be odd\"")]
    Constraint(FactArgs),
}

#[derive(Debug, Args)]
struct FactArgs {
    /// Problem id, e.g. erdos_364 (an alias works too)
    #[arg(long)]
    problem: String,
    /// The problem is new to the knowledge base: record it anyway
    #[arg(long)]
    new_problem: bool,
    /// What was established or discovered
    #[arg(long)]
    text: String,
    /// Short title (default: the text, cut)
    #[arg(long)]
    title: Option<String>,
}

#[derive(Debug, Args)]
struct Attempt {
    /// Problem id, e.g. erdos_364 (an alias works too)
    #[arg(long)]
    problem: String,
    /// The problem is new to the knowledge base: record it anyway
    #[arg(long)]
    new_problem: bool,
    /// Name of the approach or technique, e.g. "pigeonhole"
    #[arg(long)]
    approach: String,
    /// Domain (defaults to the problem's)
    #[arg(long)]
    domain: Option<String>,
    /// Slot of the submission
    #[arg(long)]
    slot: Option<i64>,
    /// Aristotle request uuid
    #[arg(long)]
    uuid: Option<String>,
    /// How the approach works
    #[arg(long)]
    description: Option<String>,
}

#[derive(Debug, Args)]
struct FailureArgs {
    #[command(flatten)]
    attempt: Attempt,
    /// Why it failed
    #[arg(long)]
    why: String,
    /// What not to repeat
    #[arg(long)]
    avoid: Option<String>,
    /// Failure category, e.g. timeout, false_lemma, tactic
    #[arg(long)]
    category: Option<String>,
}

#[derive(Debug, Args)]
struct StrategyArgs {
    #[command(flatten)]
    attempt: Attempt,
    /// proven, partial, failed, in_flight or untried
    #[arg(long, value_parser = parse_outcome)]
    outcome: StrategyOutcome,
    /// What was learned
    #[arg(long)]
    learned: Option<String>,
}

#[derive(Debug, Args)]
struct InsightArgs {
    /// Short title
    #[arg(long)]
    title: String,
    /// The insight
    #[arg(long)]
    text: String,
    /// Problem id it is about, if any
    #[arg(long)]
    problem: Option<String>,
    /// The problem is new to the knowledge base: record it anyway
    #[arg(long, requires = "problem")]
    new_problem: bool,
    /// Domain it is about (defaults to the problem's)
    #[arg(long)]
    domain: Option<String>,
    /// Comma-separated tags
    #[arg(long)]
    tags: Option<String>,
}

fn parse_finding_type(s: &str) -> Result<FindingType, String> {
    s.parse().map_err(|e: KbError| e.to_string())
}

fn parse_outcome(s: &str) -> Result<StrategyOutcome, String> {
    s.parse().map_err(|e: KbError| e.to_string())
}

/// Why a command stopped.
enum Failure {
    Kb(KbError),
    Io(io::Error),
}

impl From<KbError> for Failure {
    fn from(e: KbError) -> Self {
        Failure::Kb(e)
    }
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Self {
        Failure::Io(e)
    }
}

/// `mk`'s command-line definition (for help, completions and man pages).
pub fn command() -> clap::Command {
    Cli::command()
}

/// Entry point of `mk`.
pub fn main() -> ExitCode {
    crate::sqlite_page_cache_unbulked();
    ExitCode::from(status())
}

/// Entry point of `mk` for a binary without Rust's runtime set-up (`#![no_main]`): what that
/// set-up does that `mk` needs, then [`main`]'s work; returns the exit status.
///
/// Rust's start-up reads /proc/self/maps to find the main thread's stack (for its stack
/// overflow message) before the first line of `main`: about 3% of a search. `mk` recurses on
/// nothing, so it does without; it still ignores SIGPIPE (a closed pipe is an error to report,
/// not a signal that kills), makes sure descriptors 0-2 are open (so that no file it opens
/// becomes its standard output), answers a panic with status 101, and flushes stdout. Before
/// anything is allocated it makes the allocator's arenas small ([`crate::small_arenas`]) and
/// SQLite's page cache grow a page at a time ([`crate::sqlite_page_cache_unbulked`]).
pub fn main_without_runtime() -> i32 {
    crate::small_arenas();
    crate::sqlite_page_cache_unbulked();
    #[cfg(unix)]
    // SAFETY: plain system calls on the process's own descriptors and signal disposition,
    // made before any other thread exists.
    unsafe {
        let mut fds = [0, 1, 2].map(|fd| libc::pollfd {
            fd,
            events: 0,
            revents: 0,
        });
        if libc::poll(fds.as_mut_ptr(), 3, 0) != -1 {
            for pfd in fds {
                if pfd.revents & libc::POLLNVAL != 0
                    && libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) == -1
                {
                    libc::abort();
                }
            }
        }
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let code = std::panic::catch_unwind(status).unwrap_or(101);
    let _ = io::stdout().flush();
    i32::from(code)
}

/// Runs `mk` and gives its exit status. A command that succeeded ends the process here, once
/// its output is flushed: what is left (closing the read-only connection, freeing its
/// memory, the allocator's teardown) changes nothing on disk and was about 4% of a search.
fn status() -> u8 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { EXIT_INPUT } else { 0 };
        }
    };
    cli.terminal.apply(cli.json);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = run(cli, &mut out).and_then(|()| out.flush().map_err(Failure::Io));
    drop(out);
    if result.is_ok() {
        exit_now(0);
    }
    match result {
        Ok(()) => 0,
        // `mk search … | head` closing the pipe is not an error.
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => 0,
        Err(Failure::Io(e)) => {
            output::error("mk", None, &format!("cannot write output: {e}"));
            EXIT_INPUT
        }
        Err(Failure::Kb(e)) => {
            output::error("mk", None, &e.to_string());
            EXIT_INPUT
        }
    }
}

/// Ends the process with `code` without running exit handlers, stdout and stderr flushed.
fn exit_now(code: u8) -> ! {
    let _ = io::stdout().flush();
    let _ = io::stderr().flush();
    #[cfg(unix)]
    // SAFETY: `_exit` ends the process; no Rust state is observed afterwards.
    unsafe {
        libc::_exit(i32::from(code))
    }
    #[cfg(not(unix))]
    std::process::exit(i32::from(code))
}

struct Ctx {
    json: bool,
    painter: Painter,
    db: Resolved,
    tracking: Resolved,
}

impl Ctx {
    /// The knowledge base for reading commands: it must exist.
    fn kb(&self) -> Result<Kb, KbError> {
        Kb::open_existing(&self.db.path).map_err(|e| self.explain(e))
    }

    /// Adds to "missing" which rule picked the path, and the command that makes that very
    /// file (a bare `mk init` makes the project's, not the user-level one the rule fell to).
    fn explain(&self, e: KbError) -> KbError {
        match e {
            KbError::Missing { path, reason, .. } => KbError::Missing {
                path,
                reason: format!("{reason}; {}", self.db.reason),
                fix: kb::how_to_create(&self.db),
            },
            other => other,
        }
    }

    /// tracking.db, for the cross-references that use it when it is there. One nobody pointed
    /// at (`--tracking`, `$MATH_FORGE_TRACKING_DB`) that does not exist is no news: no note.
    fn tracking(&self) -> Tracking {
        if tracking_asked_for(&self.tracking) || self.tracking.path.exists() {
            Tracking::open(&self.tracking.path)
        } else {
            Tracking::absent(&self.tracking.path)
        }
    }
}

/// Whether `target` is a project knowledge base of the home folder itself (`~/.math-forge/`).
fn project_at_home(target: &Resolved) -> bool {
    let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) else {
        return false;
    };
    let dir = target.path.parent().and_then(Path::parent);
    target.reason == kb::Reason::Default
        && dir.is_some_and(|d| {
            d == Path::new(&home) || d.canonicalize().ok() == Path::new(&home).canonicalize().ok()
        })
}

/// Whether the user named this tracking.db (flag or `$MATH_FORGE_TRACKING_DB`), rather than
/// it being where one would be (the project's `submissions/`, `$CLAUDE_PROJECT_DIR`'s).
pub(crate) fn tracking_asked_for(resolved: &Resolved) -> bool {
    matches!(resolved.reason, kb::Reason::Flag | kb::Reason::Env(_))
}

fn run(cli: Cli, out: &mut dyn Write) -> Result<(), Failure> {
    let ctx = Ctx {
        json: cli.json,
        painter: if cli.json {
            Painter::new(false)
        } else {
            Painter::for_stdout()
        },
        db: kb::resolve_knowledge_db(cli.db.as_deref()),
        tracking: kb::resolve_tracking_db(cli.tracking.as_deref()),
    };
    let Some(command) = cli.command else {
        write!(out, "{}", Cli::command().render_help())?;
        return Ok(());
    };
    match command {
        Command::Completions(args) => generate::completions(Cli::command(), "mk", args.shell, out)?,
        Command::Man(args) => generate::man(Cli::command(), &args, out)?,
        Command::Help { command } => {
            let mut cli = Cli::command();
            let help = match command.as_deref().and_then(|c| cli.find_subcommand_mut(c)) {
                Some(sub) => sub
                    .clone()
                    .bin_name(format!("mk {}", sub.get_name()))
                    .render_long_help(),
                None => cli.render_long_help(),
            };
            write!(out, "{help}")?;
        }
        Command::Init {
            from_tracking,
            user,
        } => {
            let target = if user {
                kb::user_knowledge_db().ok_or_else(|| {
                    KbError::Invalid(
                        "--user: neither $XDG_DATA_HOME nor $HOME is set; use --db PATH".into(),
                    )
                })?
            } else if matches!(ctx.db.reason, kb::Reason::Flag | kb::Reason::Env(_)) {
                ctx.db.clone()
            } else {
                kb::init_knowledge_db(None)
            };
            let new_at_home = !target.path.exists() && project_at_home(&target);
            init(&ctx, &target, from_tracking.as_deref(), out)?;
            if new_at_home {
                crate::cli::output::warning(
                    "mk",
                    Some(&target.path),
                    "this makes your home folder a project: every folder below it without a \
                     .math-forge/ of its own now reads this knowledge base, not the user-level \
                     one (`mk init --user` makes that one; remove ~/.math-forge/ to undo)",
                );
            }
        }
        Command::Search {
            query,
            limit,
            domain,
            finding_type,
        } => {
            let kb = Kb::open_for_reading(&ctx.db.path).map_err(|e| ctx.explain(e))?;
            let text = query.join(" ");
            let domain = domain.map(|d| kb.domain_id(&d)).transpose()?;
            let opts = SearchOptions {
                limit,
                domain,
                finding_type,
            };
            let hits = kb.search(&text, &opts)?;
            if ctx.json {
                json(out, &hits)?;
            } else if hits.is_empty() {
                show::no_results(out, &text, kb.is_empty()?)?;
            } else {
                show::search(out, ctx.painter, &hits)?;
            }
            // Read-only (the schema was current): closing it would only free memory the process
            // is about to return. A connection that migrated an older schema is closed.
            if kb
                .connection()
                .is_readonly(rusqlite::MAIN_DB)
                .unwrap_or(false)
            {
                std::mem::forget(kb);
            }
        }
        Command::Find { problem } => {
            let kb = ctx.kb()?;
            let tracking = ctx.tracking();
            let report = kb
                .find_problem(&problem, Some(&tracking))
                .map_err(|e| kb.explain_unknown(e))?;
            if ctx.json {
                json(out, &report)?;
            } else {
                show::find(out, ctx.painter, &report, kb.is_empty()?)?;
            }
        }
        Command::Context { problem, limit } => {
            let kb = ctx.kb()?;
            let context = kb
                .context(&problem, limit)
                .map_err(|e| kb.explain_unknown(e))?;
            if ctx.json {
                json(out, &context)?;
            } else {
                writeln!(out, "{}", crate::hook::context_text::render(&context, 0))?;
            }
        }
        Command::Failed {
            keyword,
            problem,
            limit,
        } => {
            let kb = ctx.kb()?;
            let tracking = ctx.tracking();
            let keyword = keyword.join(" ");
            let keyword = (!keyword.trim().is_empty()).then_some(keyword);
            let report = kb
                .failed(
                    problem.as_deref(),
                    keyword.as_deref(),
                    limit,
                    Some(&tracking),
                )
                .map_err(|e| kb.explain_unknown(e))?;
            if ctx.json {
                json(out, &report)?;
            } else {
                show::failed(out, ctx.painter, &report, kb.is_empty()?)?;
            }
        }
        Command::Strategies { domain, limit } => {
            let kb = ctx.kb()?;
            let domain = domain.map(|d| kb.domain_id(&d)).transpose()?;
            let report = kb.strategies(domain.as_deref(), limit)?;
            if ctx.json {
                json(out, &report)?;
            } else {
                show::strategies(out, ctx.painter, &report, kb.is_empty()?)?;
            }
        }
        Command::Stats => stats(&ctx, out)?,
        Command::Forget {
            paths,
            missing,
            dry_run,
        } => forget(&ctx, &paths, missing, dry_run, out)?,
        Command::Report {
            output,
            problem,
            since,
        } => report(&ctx, &output, problem, since.as_deref(), out)?,
        Command::Query { sql, limit } => {
            let kb = Kb::open_read_only(&ctx.db.path).map_err(|e| ctx.explain(e))?;
            let sql = sql.join(" ");
            // One more row than the limit tells whether the limit cut the result.
            let fetch = limit.map(|l| l.saturating_add(1));
            let mut written = 0usize;
            let mut table: Option<show::Table> = None;
            let painter = ctx.painter;
            let json_mode = ctx.json;
            let (columns, given) = kb.query_rows(
                &sql,
                fetch,
                |names, row| -> std::result::Result<std::ops::ControlFlow<()>, Failure> {
                    if limit.is_some_and(|l| written >= l) {
                        return Ok(std::ops::ControlFlow::Break(()));
                    }
                    if json_mode {
                        let object: serde_json::Map<String, serde_json::Value> =
                            names.iter().cloned().zip(row).collect();
                        serde_json::to_writer(&mut *out, &object).map_err(io::Error::from)?;
                        writeln!(out)?;
                    } else {
                        table
                            .get_or_insert_with(|| show::Table::new(names))
                            .push(out, painter, &row)?;
                    }
                    written += 1;
                    Ok(std::ops::ControlFlow::Continue(()))
                },
            )?;
            let limited = given > written;
            if json_mode {
                // A row per line; the last line says whether --limit cut the result.
                let summary = serde_json::json!({"summary": {"rows": written, "limited": limited}});
                writeln!(out, "{summary}")?;
            } else {
                table
                    .unwrap_or_else(|| show::Table::new(&columns))
                    .finish(out, painter, limited)?;
            }
        }
        Command::Record { what } => {
            let mut kb = ctx.kb()?;
            let (kind, recorded) = match what {
                RecordCommand::Failure(a) => (
                    "failure",
                    kb.record_failure(&FailureInput {
                        problem: a.attempt.problem,
                        approach: a.attempt.approach,
                        why: a.why,
                        avoid: a.avoid,
                        description: a.attempt.description,
                        category: a.category,
                        domain: a.attempt.domain,
                        slot: a.attempt.slot,
                        uuid: a.attempt.uuid,
                        new_problem: a.attempt.new_problem,
                    })
                    .map_err(|e| kb.explain_unknown(e))?,
                ),
                RecordCommand::Strategy(a) => (
                    "strategy",
                    kb.record_strategy(&StrategyInput {
                        problem: a.attempt.problem,
                        approach: a.attempt.approach,
                        outcome: a.outcome,
                        learned: a.learned,
                        description: a.attempt.description,
                        domain: a.attempt.domain,
                        slot: a.attempt.slot,
                        uuid: a.attempt.uuid,
                        new_problem: a.attempt.new_problem,
                    })
                    .map_err(|e| kb.explain_unknown(e))?,
                ),
                RecordCommand::Fact(a) => (
                    "fact",
                    record_fact(&mut kb, "fact", a).map_err(|e| kb.explain_unknown(e))?,
                ),
                RecordCommand::Constraint(a) => (
                    "constraint",
                    record_fact(&mut kb, "constraint", a).map_err(|e| kb.explain_unknown(e))?,
                ),
                RecordCommand::Insight(a) => (
                    "insight",
                    kb.record_insight(&InsightInput {
                        title: a.title,
                        text: a.text,
                        problem: a.problem,
                        domain: a.domain,
                        tags: a.tags,
                        new_problem: a.new_problem,
                    })
                    .map_err(|e| kb.explain_unknown(e))?,
                ),
            };
            if ctx.json {
                json(out, &recorded)?;
            } else {
                show::recorded(out, ctx.painter, kind, &recorded)?;
            }
        }
        Command::Recommend { target, limit } => {
            let kb = ctx.kb()?;
            let recs = kb
                .recommend(&target, limit)
                .map_err(|e| kb.explain_unknown(e))?;
            if ctx.json {
                json(out, &recs)?;
            } else {
                show::recommend(out, ctx.painter, &recs)?;
            }
        }
    }
    Ok(())
}

/// A fact or constraint is an insight on the problem tagged with its kind (what
/// [`Kb::context`] collects as established facts).
fn record_fact(kb: &mut Kb, kind: &str, a: FactArgs) -> Result<kb::Recorded, KbError> {
    let title = a
        .title
        .unwrap_or_else(|| format!("{kind}: {}", crate::cli::render::one_line(&a.text, 80)));
    kb.record_insight(&InsightInput {
        title,
        text: a.text,
        problem: Some(a.problem),
        domain: None,
        tags: Some(kind.to_string()),
        new_problem: a.new_problem,
    })
}

fn init(
    ctx: &Ctx,
    target: &Resolved,
    from: Option<&Path>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    // The tracking.db is checked before knowledge.db is opened: a failed init leaves no new
    // file behind.
    let source = match from {
        Some(p) => {
            if !p.is_file() {
                return Err(KbError::Invalid(format!(
                    "tracking.db not found at {} (from --from-tracking); check the path",
                    p.display()
                ))
                .into());
            }
            Some(Resolved {
                path: p.to_path_buf(),
                reason: kb::Reason::Flag,
            })
        }
        None => Some(ctx.tracking.clone()).filter(|t| t.path.is_file()),
    };
    let tracking = source.as_ref().map(|src| Tracking::open(&src.path));
    if let Some(t) = tracking.as_ref().filter(|t| !t.is_available()) {
        return Err(KbError::Invalid(t.notes().join("; ")).into());
    }
    let mut kb = Kb::open(&target.path)?;
    kb::keep_out_of_git(kb.path());
    let (report, tracking_used) = match (&source, &tracking) {
        (Some(src), Some(tracking)) => (Some(kb.migrate_from_tracking(tracking)?), Some(src)),
        _ => (None, None),
    };
    #[derive(Serialize)]
    struct InitReport<'a> {
        knowledge_db: &'a Path,
        schema_version: i64,
        created: bool,
        upgraded_from: Option<i64>,
        tracking_db: Option<&'a Path>,
        migration: Option<&'a kb::MigrationReport>,
    }
    let r = InitReport {
        knowledge_db: kb.path(),
        schema_version: kb.schema_version()?,
        created: kb.opened().created,
        upgraded_from: kb.opened().upgraded_from,
        tracking_db: tracking_used.map(|t| t.path.as_path()),
        migration: report.as_ref(),
    };
    if ctx.json {
        json(out, &r)?;
    } else {
        show::init(
            out,
            ctx.painter,
            kb.path(),
            r.schema_version,
            kb.opened(),
            tracking_used,
            &ctx.tracking,
            report.as_ref(),
        )?;
    }
    Ok(())
}

/// `mk forget`: the stored files the paths name (and, with `--missing`, those gone), taken off
/// in one transaction. A path that names no stored file is an error (exit 2) after the others
/// are forgotten.
fn forget(
    ctx: &Ctx,
    paths: &[PathBuf],
    missing: bool,
    dry_run: bool,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let mut kb = ctx.kb()?;
    let mut files = Vec::new();
    let mut unknown = Vec::new();
    for path in paths {
        let key = crate::extract::stored_path(path);
        let found = kb.stored_files_under(&key)?;
        if found.is_empty() {
            unknown.push(path);
        }
        files.extend(found);
    }
    if missing {
        files.extend(kb.missing_files()?);
    }
    files.sort();
    files.dedup();
    let report = if dry_run {
        kb::Forgotten {
            files,
            ..Default::default()
        }
    } else {
        kb.forget(&files)?
    };
    if ctx.json {
        #[derive(Serialize)]
        struct ForgetReport<'a> {
            dry_run: bool,
            #[serde(flatten)]
            report: &'a kb::Forgotten,
            unknown: Vec<String>,
        }
        json(
            out,
            &ForgetReport {
                dry_run,
                report: &report,
                unknown: unknown.iter().map(|p| p.display().to_string()).collect(),
            },
        )?;
    } else {
        show::forgotten(out, ctx.painter, &report, dry_run)?;
    }
    match unknown.first() {
        None => Ok(()),
        Some(_) => Err(KbError::Invalid(format!(
            "not in the knowledge base {} ({}): nothing extracted from {}; `mk query \"SELECT path FROM sources\"` lists what is",
            ctx.db.path.display(),
            ctx.db.reason,
            unknown
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .into()),
    }
}

fn report(
    ctx: &Ctx,
    output: &Path,
    problem: Option<String>,
    since: Option<&str>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    let since = since
        .map(|s| kb::report::parse_since(s, kb::report::Day::today()))
        .transpose()?;
    let kb = ctx.kb()?;
    let tracking = ctx.tracking();
    let opts = kb::ReportOptions {
        problem,
        since,
        ..Default::default()
    };
    let report = kb.report(&opts, Some(&tracking))?;
    let generated = crate::cli::render::utc_now();
    let page = crate::cli::report::render(&report, &generated);
    if output.as_os_str() == "-" {
        out.write_all(page.as_bytes())?;
        return Ok(());
    }
    write_atomically(output, page.as_bytes())?;
    // Every dated attempt, whatever dated it (the page's "attempt files" card).
    let d = &report.dating;
    let attempts = d.total();
    if ctx.json {
        let summary = serde_json::json!({
            "report": output,
            "bytes": page.len(),
            "problems": report.problems.len(),
            "attempts": attempts,
            "dating": report.dating,
            // Files about no problem are no one problem's: counted for the whole campaign only.
            "no_problem_files": report.problem.is_none().then(|| report.no_problem_files()),
            // Problems needing attention, by reason (the page's list at its top).
            "attention": report.attention.iter().map(|a| (a.reason, a.problems.len())).collect::<std::collections::BTreeMap<_, _>>(),
        });
        json(out, &summary)?;
    } else {
        let shown = std::path::absolute(output).unwrap_or_else(|_| output.to_path_buf());
        let size = if page.len() < 1_000_000 {
            format!("{} KB", page.len().div_ceil(1000))
        } else {
            format!("{:.1} MB", page.len() as f64 / 1e6)
        };
        writeln!(
            out,
            "wrote {} ({size}): {}, {} ({} dated by tracking.db, {} by the file's own date, {} by its modification time, {} by extraction time){}",
            output.display(),
            crate::cli::report::count(report.problems.len(), "problem"),
            crate::cli::report::count(attempts, "attempt"),
            d.tracking,
            d.stated,
            d.modified,
            d.extracted,
            if report.problem.is_some() {
                String::new()
            } else {
                format!(
                    "; {} without a problem",
                    crate::cli::report::count(report.no_problem_files() as usize, "file")
                )
            },
        )?;
        if !report.attention.is_empty() {
            let parts: Vec<String> = report
                .attention
                .iter()
                .map(|a| format!("{} {}", a.problems.len(), a.reason.replace('_', " ")))
                .collect();
            writeln!(out, "needs attention: {}", parts.join(", "))?;
        }
        writeln!(out, "open it in a browser: file://{}", shown.display())?;
    }
    Ok(())
}

/// Writes `bytes` to `path` through a temporary file in the same directory and a rename, so
/// that a reader never sees half a page and an old page survives a failed write.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    let fail = |e: io::Error| {
        KbError::Invalid(format!(
            "cannot write the report to {}: {e}; check the directory exists and is writable, or pass -o PATH",
            path.display()
        ))
    };
    if path.is_dir() {
        return Err(KbError::Invalid(format!(
            "{} is a directory; pass -o with a file name, e.g. -o {}",
            path.display(),
            path.join("report.html").display()
        ))
        .into());
    }
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // An ordinary file (0666 less the umask), not a private temporary one.
    let mut tmp = tempfile::Builder::new()
        .prefix(".mk-report-")
        .suffix(".tmp")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(fail)?;
    tmp.write_all(bytes).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}

fn stats(ctx: &Ctx, out: &mut dyn Write) -> Result<(), Failure> {
    // Knowledge bases an earlier version kept in Claude Code's plugin data folder: named, so
    // that findings there are not silently missing from this one.
    let old = kb::pending_legacy(kb::legacy_knowledge_dbs(&ctx.db.path));
    let kb = ctx.kb().map_err(|e| match e {
        KbError::Missing { path, reason, fix } if !old.is_empty() => KbError::Missing {
            path,
            fix,
            reason: format!("{reason}; an earlier version's knowledge base is at {}: set MATH_FORGE_DB to it, or start a Claude Code session to have it copied here", old[0].display()),
        },
        other => other,
    })?;
    let stats = kb.stats()?;
    let tracking = ctx.tracking();
    let tables = tracking.table_counts();
    if ctx.json {
        #[derive(Serialize)]
        struct DbInfo<'a> {
            path: &'a Path,
            reason: &'a kb::Reason,
            why: String,
        }
        #[derive(Serialize)]
        struct TrackingInfo<'a> {
            #[serde(flatten)]
            db: DbInfo<'a>,
            available: bool,
            tables: serde_json::Map<String, serde_json::Value>,
            notes: Vec<String>,
        }
        #[derive(Serialize)]
        struct StatsReport<'a> {
            knowledge_db: DbInfo<'a>,
            /// Knowledge bases of an earlier version, not used.
            old_knowledge_dbs: &'a [PathBuf],
            tracking_db: TrackingInfo<'a>,
            #[serde(flatten)]
            stats: &'a kb::Stats,
        }
        let report = StatsReport {
            knowledge_db: DbInfo {
                path: &ctx.db.path,
                reason: &ctx.db.reason,
                why: ctx.db.reason.to_string(),
            },
            old_knowledge_dbs: &old,
            tracking_db: TrackingInfo {
                db: DbInfo {
                    path: &ctx.tracking.path,
                    reason: &ctx.tracking.reason,
                    why: ctx.tracking.reason.to_string(),
                },
                available: tracking.is_available(),
                tables: tables
                    .iter()
                    .map(|(t, n)| (t.clone(), serde_json::json!(n)))
                    .collect(),
                notes: tracking.notes(),
            },
            stats: &stats,
        };
        json(out, &report)?;
    } else {
        show::stats(
            out,
            ctx.painter,
            &ctx.db,
            &ctx.tracking,
            &stats,
            &tracking,
            &tables,
        )?;
        for path in &old {
            writeln!(
                out,
                "note: an earlier version's knowledge base at {} is not used (set MATH_FORGE_DB to it to search it; `mf extract` rebuilds its facts here)",
                path.display()
            )?;
        }
    }
    Ok(())
}

/// JSON Lines: a list is one object per line, anything else one line.
fn json<T: Serialize + ?Sized>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    match serde_json::to_value(value)? {
        serde_json::Value::Array(items) => items.iter().try_for_each(|item| {
            serde_json::to_writer(&mut *out, item)?;
            writeln!(out)
        }),
        other => {
            serde_json::to_writer(&mut *out, &other)?;
            writeln!(out)
        }
    }
}
