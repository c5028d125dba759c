//! `mf hook session-start | pre-tool-use | post-tool-use | stop | session-end | subagent-start |
//! lean-output`: Claude Code
//! hooks.
//!
//! Reads the hook's JSON on stdin, prints the hook's JSON on stdout and short notes on
//! stderr, and always exits 0: a hook that cannot do its job steps aside (exit 2 would block
//! the agent with our error, which only the decision itself may do).

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use crate::hook::{self, briefing, Environment, Outcome};
use crate::kb::{resolve_knowledge_db, resolve_tracking_db};
use anyhow::Result;

/// Largest stdin accepted: a payload carries the file's old and new text.
const MAX_INPUT_BYTES: u64 = 32 * 1024 * 1024;

#[derive(clap::Args)]
pub struct HookArgs {
    #[command(subcommand)]
    command: HookCommand,
}

#[derive(clap::Subcommand)]
enum HookCommand {
    /// SessionStart: the session briefing (queue, results, near-miss, KB, actions) as context
    #[command(after_help = super::examples::HOOK_SESSION_START)]
    SessionStart(Databases),
    /// PreToolUse: deny a .lean edit that would gut a proof or add an axiom; KB context for subagents
    #[command(after_help = super::examples::HOOK_PRE_TOOL_USE)]
    PreToolUse(Databases),
    /// PostToolUse: block a .lean edit that replaced proof code with sorry or added an axiom
    #[command(after_help = super::examples::HOOK_POST_TOOL_USE)]
    PostToolUse(Databases),
    /// Stop: block ending the turn while changed .lean files gut a proof or add an axiom
    #[command(after_help = super::examples::HOOK_STOP)]
    Stop(Databases),
    /// SessionEnd: capture the session's journal into knowledge.db facts (no output)
    #[command(after_help = super::examples::HOOK_SESSION_END)]
    SessionEnd(Databases),
    /// PostToolUse/PostToolUseFailure on Bash: Lean's errors from `lake build` or `lake env lean` mark the session's attempts they lie in as rejected
    #[command(after_help = super::examples::HOOK_LEAN_OUTPUT)]
    LeanOutput(Databases),
    /// SubagentStart: KB facts relevant to the subagent's task as context (not wired by the plugin: the payload has no task text)
    #[command(after_help = super::examples::HOOK_SUBAGENT_START)]
    SubagentStart(Databases),
}

#[derive(clap::Args, Clone)]
struct Databases {
    /// knowledge.db (default: $MATH_FORGE_DB, the nearest .math-forge/ from $CLAUDE_PROJECT_DIR up, $XDG_DATA_HOME/math-forge)
    #[arg(long, value_name = "PATH")]
    db: Option<PathBuf>,
    /// tracking.db (default: $MATH_FORGE_TRACKING_DB, $CLAUDE_PROJECT_DIR/submissions/tracking.db)
    #[arg(long, value_name = "PATH")]
    tracking: Option<PathBuf>,
}

/// The hook names, as the command line spells them.
const NAMES: [&str; 7] = [
    "session-start",
    "pre-tool-use",
    "post-tool-use",
    "stop",
    "session-end",
    "subagent-start",
    "lean-output",
];

impl HookArgs {
    /// The hook's name on the command line, and its databases.
    fn parts(self) -> (&'static str, Databases) {
        match self.command {
            HookCommand::SessionStart(d) => (NAMES[0], d),
            HookCommand::PreToolUse(d) => (NAMES[1], d),
            HookCommand::PostToolUse(d) => (NAMES[2], d),
            HookCommand::Stop(d) => (NAMES[3], d),
            HookCommand::SessionEnd(d) => (NAMES[4], d),
            HookCommand::SubagentStart(d) => (NAMES[5], d),
            HookCommand::LeanOutput(d) => (NAMES[6], d),
        }
    }
}

/// The arguments of exactly `mf hook NAME` (how the plugin runs every hook, on every tool
/// call), read without building the whole command line's parser: that costs a few hundred
/// microseconds of a hook's few milliseconds. Anything else (an option, `--help`, a name
/// that is no hook) is `None`, for the full parser to read.
pub fn plain(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<HookArgs> {
    let _program = args.next()?;
    if args.next()? != "hook" {
        return None;
    }
    let name = args.next()?;
    if args.next().is_some() {
        return None;
    }
    let dbs = Databases {
        db: None,
        tracking: None,
    };
    let command = match NAMES.iter().position(|n| name == *n)? {
        0 => HookCommand::SessionStart(dbs),
        1 => HookCommand::PreToolUse(dbs),
        2 => HookCommand::PostToolUse(dbs),
        3 => HookCommand::Stop(dbs),
        4 => HookCommand::SessionEnd(dbs),
        5 => HookCommand::SubagentStart(dbs),
        _ => HookCommand::LeanOutput(dbs),
    };
    Some(HookArgs { command })
}

pub fn run(args: HookArgs) -> Result<ExitCode> {
    let (name, dbs) = args.parts();
    let budget = hook::budget(name);
    // Lock waits on knowledge.db stay well inside the budget.
    crate::kb::set_busy_timeout(budget / 2);
    let outcome = match read_stdin() {
        Ok(input) => within(budget, name, move || {
            let env = environment(&dbs);
            match name {
                "session-start" => hook::session_start(&input, &env),
                "pre-tool-use" => hook::pre_tool_use(&input, &env),
                "post-tool-use" => hook::post_tool_use(&input, &env),
                "stop" => hook::stop(&input, &env),
                "session-end" => hook::session_end(&input, &env),
                "lean-output" => hook::lean_output(&input, &env),
                _ => hook::subagent_start(&input, &env),
            }
        }),
        Err(why) => Outcome::note(why),
    };
    for note in &outcome.notes {
        note!("mf hook {name}: {note}");
    }
    if let Some(json) = outcome.output.to_json() {
        // A closed stdout leaves nobody to decide for; the hook still exits 0 as documented.
        let mut stdout = std::io::stdout().lock();
        let _ = writeln!(stdout, "{json}").and_then(|()| stdout.flush());
    }
    exit_now()
}

/// Ends the process with status 0 without running exit handlers: everything the hook wrote is
/// flushed or committed by now, and the allocator's teardown (mimalloc returning its arenas to
/// the system, page by page) was 3% of a post-tool-use hook's CPU time, spent after its answer.
fn exit_now() -> ! {
    let _ = std::io::stdout().flush();
    let _ = std::io::stderr().flush();
    #[cfg(unix)]
    // SAFETY: `_exit` ends the process; no Rust state is observed afterwards.
    unsafe {
        libc::_exit(0)
    }
    #[cfg(not(unix))]
    std::process::exit(0)
}

/// Runs `work` on a thread of its own and answers with its outcome, or with
/// [`hook::out_of_time`] once `budget` has passed (the thread is abandoned; the process exits).
/// A panic is a note like any other: a bug must not turn into a blocked agent.
fn within(
    budget: std::time::Duration,
    name: &'static str,
    work: impl FnOnce() -> Outcome + Send + 'static,
) -> Outcome {
    let (tx, rx) = std::sync::mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name(format!("hook {name}"))
        .spawn(move || {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
                .unwrap_or_else(|_| Outcome::note("internal error; hook skipped".into()));
            let _ = tx.send(outcome);
        });
    if let Err(e) = spawned {
        return Outcome::note(format!("cannot start the hook's worker: {e}; skipped"));
    }
    rx.recv_timeout(budget)
        .unwrap_or_else(|_| hook::out_of_time(name, budget))
}

fn read_stdin() -> Result<Vec<u8>, String> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Ok(Vec::new());
    }
    // Room for a large payload (an Edit of a 130 KB file carries its old text) up front: read
    // in place, not copied into a buffer twice as large at each doubling.
    let mut input = Vec::with_capacity(1 << 20);
    stdin
        .lock()
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut input)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    if input.len() as u64 > MAX_INPUT_BYTES {
        return Err(format!("hook input over {MAX_INPUT_BYTES} bytes; skipped"));
    }
    Ok(input)
}

fn environment(dbs: &Databases) -> Environment {
    let tracking = resolve_tracking_db(dbs.tracking.as_deref()).path;
    let (tracking_db, tracking_note) = if tracking.is_file() {
        (Some(tracking), None)
    } else {
        (
            None,
            Some(format!("no tracking.db at {}", tracking.display())),
        )
    };
    let knowledge = resolve_knowledge_db(dbs.db.as_deref());
    Environment {
        knowledge_db: knowledge.path,
        knowledge_reason: Some(knowledge.reason),
        tracking_db,
        tracking_note,
        env_file: std::env::var_os("CLAUDE_ENV_FILE")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from),
        data_dir: crate::kb::data_dir(),
        bin_dir: std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(PathBuf::from)),
        now: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64),
        slots: std::env::var("MATH_FORGE_SLOTS")
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .filter(|n: &i64| *n > 0)
            .unwrap_or(briefing::DEFAULT_SLOTS),
        problem: std::env::var("MATH_FORGE_PROBLEM")
            .ok()
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Top {
        #[command(subcommand)]
        command: Sub,
    }

    #[derive(clap::Subcommand)]
    enum Sub {
        Hook(HookArgs),
    }

    fn args(words: &[&str]) -> Vec<std::ffi::OsString> {
        words.iter().map(Into::into).collect()
    }

    /// `mf hook NAME` read without clap gives what clap gives, for every hook.
    #[test]
    fn plain_hook_arguments_read_as_clap_reads_them() {
        for name in NAMES {
            let words = ["mf", "hook", name];
            let (plain_name, plain_dbs) = plain(args(&words).into_iter()).unwrap().parts();
            let Sub::Hook(parsed) = Top::try_parse_from(words).unwrap().command;
            let (clap_name, clap_dbs) = parsed.parts();
            assert_eq!(plain_name, clap_name);
            assert_eq!(
                (plain_dbs.db, plain_dbs.tracking),
                (clap_dbs.db, clap_dbs.tracking)
            );
        }
    }

    /// Options, help and other commands go to the full parser.
    #[test]
    fn anything_else_is_left_to_clap() {
        for words in [
            &["mf", "hook", "stop", "--db", "k.db"][..],
            &["mf", "hook", "--help"],
            &["mf", "hook", "no-such-hook"],
            &["mf", "hook"],
            &["mf", "parse", "x.lean"],
            &["mf", "--color", "never", "hook", "stop"],
        ] {
            assert!(plain(args(words).into_iter()).is_none(), "{words:?}");
        }
    }
}
