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

use crate::cli::generate::{self, GenerateArgs};
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
  mk query \"SELECT finding_type, count(*) FROM findings GROUP BY 1\"
  mk search -- -card            (words that start with '-' go after --)

knowledge.db: --db > $MATH_FORGE_DB > nearest .math-forge/knowledge.db (or .math-forge/) here or above
              > $CLAUDE_PLUGIN_DATA/knowledge.db > $XDG_DATA_HOME/math-forge/knowledge.db (~/.local/share/…)
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
    /// Create knowledge.db (or upgrade its schema) and migrate tracking.db into it
    Init {
        /// tracking.db to migrate from (default: the resolved tracking.db, if it exists)
        #[arg(long, value_name = "PATH")]
        from_tracking: Option<PathBuf>,
    },
    /// Full-text search; names and problem ids that match exactly come first
    Search {
        /// Words, "phrases", partial names; OR and NOT work between terms
        #[arg(required = true, value_name = "QUERY")]
        query: Vec<String>,
        /// Number of results
        #[arg(long, short = 'n', default_value_t = 5)]
        limit: usize,
        /// Only findings of this domain (nt, algebra, combinatorics, analysis, …)
        #[arg(long)]
        domain: Option<String>,
        /// Only findings of this type
        #[arg(long = "type", short = 't', value_parser = parse_finding_type)]
        finding_type: Option<FindingType>,
    },
    /// Everything about one problem: findings, strategies, false lemmas, submissions
    Find {
        /// Problem id (case, spaces, '_' and '-' do not matter)
        problem: String,
    },
    /// What to know before an attempt: statement and status, facts, failed approaches, false lemmas, techniques, similar problems
    Context {
        /// Problem id (case, spaces, '_' and '-' do not matter)
        problem: String,
        /// Entries per section
        #[arg(long, short = 'n', default_value_t = 8)]
        limit: usize,
    },
    /// Failed approaches and false lemmas, optionally matching a keyword or of one problem
    Failed {
        keyword: Vec<String>,
        /// Only those of this problem (an id or alias; case, spaces, '_' and '-' do not matter)
        #[arg(long, value_name = "ID")]
        problem: Option<String>,
        #[arg(long, short = 'n', default_value_t = 20)]
        limit: usize,
    },
    /// Proven techniques by frequency and how recorded approaches fared
    Strategies {
        domain: Option<String>,
        #[arg(long, short = 'n', default_value_t = 20)]
        limit: usize,
    },
    /// Counts, freshness, and which database files are used and why
    Stats,
    /// Run one read-only SQL statement (writes are refused)
    Query {
        #[arg(required = true, value_name = "SQL")]
        sql: Vec<String>,
        /// Print at most N rows (rows are streamed, so any number is fine)
        #[arg(long, short = 'n', value_name = "N")]
        limit: Option<usize>,
    },
    /// Record what an attempt taught: a failure, a strategy outcome or an insight
    Record {
        #[command(subcommand)]
        what: RecordCommand,
    },
    /// Techniques ranked by observed success in a domain, minus those already failed on the problem
    Recommend {
        /// A problem id or a domain
        target: String,
        #[arg(long, short = 'n', default_value_t = 10)]
        limit: usize,
    },
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions(GenerateArgs),
    /// Print the man page (roff) on standard output
    Man,
    /// Print this help, or a command's
    Help {
        /// The command to explain
        command: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum RecordCommand {
    /// An approach that failed on a problem, and why
    Failure(FailureArgs),
    /// The outcome of an approach on a problem
    Strategy(StrategyArgs),
    /// An observation worth keeping
    Insight(InsightArgs),
    /// Something established about a problem ("the sum is bounded by 2n"); shown by mk context
    Fact(FactArgs),
    /// A condition discovered on a problem ("n must be odd"); shown by mk context
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
    #[arg(long)]
    problem: Option<String>,
    /// The problem is new to the knowledge base: record it anyway
    #[arg(long, requires = "problem")]
    new_problem: bool,
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

/// Entry point of `mk`.
pub fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { EXIT_INPUT } else { 0 });
        }
    };
    cli.terminal.apply(cli.json);
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let result = run(cli, &mut out).and_then(|()| out.flush().map_err(Failure::Io));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // `mk search … | head` closing the pipe is not an error.
        Err(Failure::Io(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(Failure::Io(e)) => {
            output::error("mk", None, &format!("cannot write output: {e}"));
            ExitCode::from(EXIT_INPUT)
        }
        Err(Failure::Kb(e)) => {
            output::error("mk", None, &e.to_string());
            ExitCode::from(EXIT_INPUT)
        }
    }
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

    /// Adds to "missing" which rule picked the path, so the user knows what to change.
    fn explain(&self, e: KbError) -> KbError {
        match e {
            KbError::Missing { path, reason } => KbError::Missing {
                path,
                reason: format!("{reason}; path {}", self.db.reason),
            },
            other => other,
        }
    }

    fn tracking(&self) -> Tracking {
        Tracking::open(&self.tracking.path)
    }
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
        Command::Man => generate::man(Cli::command(), out)?,
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
        Command::Init { from_tracking } => init(&ctx, from_tracking.as_deref(), out)?,
        Command::Search {
            query,
            limit,
            domain,
            finding_type,
        } => {
            let kb = ctx.kb()?;
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
        }
        Command::Find { problem } => {
            let kb = ctx.kb()?;
            let tracking = ctx.tracking();
            let report = kb.find_problem(&problem, Some(&tracking))?;
            if ctx.json {
                json(out, &report)?;
            } else {
                show::find(out, ctx.painter, &report, kb.is_empty()?)?;
            }
        }
        Command::Context { problem, limit } => {
            let kb = ctx.kb()?;
            let context = kb.context(&problem, limit)?;
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
            let report = kb.failed(
                problem.as_deref(),
                keyword.as_deref(),
                limit,
                Some(&tracking),
            )?;
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
                    })?,
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
                    })?,
                ),
                RecordCommand::Fact(a) => ("fact", record_fact(&mut kb, "fact", a)?),
                RecordCommand::Constraint(a) => {
                    ("constraint", record_fact(&mut kb, "constraint", a)?)
                }
                RecordCommand::Insight(a) => (
                    "insight",
                    kb.record_insight(&InsightInput {
                        title: a.title,
                        text: a.text,
                        problem: a.problem,
                        domain: a.domain,
                        tags: a.tags,
                        new_problem: a.new_problem,
                    })?,
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
            let recs = kb.recommend(&target, limit)?;
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

fn init(ctx: &Ctx, from: Option<&Path>, out: &mut dyn Write) -> Result<(), Failure> {
    let mut kb = Kb::open(&ctx.db.path)?;
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
    let (report, tracking_used) = match &source {
        Some(src) => {
            let tracking = Tracking::open(&src.path);
            if !tracking.is_available() {
                return Err(KbError::Invalid(tracking.notes().join("; ")).into());
            }
            (Some(kb.migrate_from_tracking(&tracking)?), Some(src))
        }
        None => (None, None),
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

fn stats(ctx: &Ctx, out: &mut dyn Write) -> Result<(), Failure> {
    let kb = ctx.kb()?;
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
