//! The Claude Code hooks behind `mf hook …`.
//!
//! - [`session_start()`]: the briefing ([`briefing`]) as `additionalContext`, and a PATH export
//!   to `$CLAUDE_ENV_FILE` ([`env_file`]) so the session's shell finds `mf` and `mk` (which find
//!   the hooks' knowledge.db by the same rule); adopts or names a knowledge base an earlier
//!   version kept in the plugin's data folder. Also snapshots where the session starts, for
//!   [`stop()`];
//! - [`pre_tool_use()`]: denies a `.lean` Write/Edit (or a MultiEdit of older clients) that
//!   would gut a proof or add an axiom, before it is written ([`gate`], [`apply`]); extends a
//!   subagent's prompt with KB facts ([`subagent`]);
//! - [`post_tool_use()`]: the backstop after the write: blocks an edit of a `.lean` file that
//!   replaced proof code with a hole or added an axiom, and advises on false lemmas and changed
//!   statements;
//! - [`lean_output()`]: after a Bash command, marks the session's attempts that Lean's errors
//!   in the command's output lie in as rejected, as `mf verify` does;
//! - [`stop()`]: blocks the end of a turn while the session's changes gut a proof or add an
//!   axiom, by whatever route they were made, up to Claude Code's limit of consecutive blocks,
//!   then ends it with a `systemMessage` saying so;
//! - [`subagent_start()`]: a few KB facts for the subagent's task, for a payload that carries
//!   one (Claude Code's SubagentStart does not, so the plugin does not wire it).
//!
//! A hook must never get in the way by accident: every runner returns an [`Outcome`] (the
//! output, and notes for stderr) and never fails; what it cannot read, it skips with a note.

pub mod apply;
pub mod baseline;
pub mod briefing;
pub mod by_line;
pub mod capture;
pub mod context_text;
pub mod decide;
pub mod env_file;
pub mod files;
pub mod gate;
pub mod journal;
pub mod lean_output;
pub mod payload;
pub mod post_tool_use;
pub mod pre_tool_use;
pub mod recent;
pub mod reopen;
pub mod stop;
pub mod subagent;
pub mod window;

use std::path::PathBuf;

use serde_json::json;

use crate::kb::Kb;
use crate::tracking::Tracking;
use payload::Payload;

/// What a hook prints on stdout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    /// Nothing at all (the tool call stands, nothing is added).
    Nothing,
    /// `hookSpecificOutput.additionalContext` for the event.
    Context { event: &'static str, text: String },
    /// `additionalContext` for the model and a `systemMessage` for the user.
    ContextAndMessage {
        event: &'static str,
        text: String,
        message: String,
    },
    /// PostToolUse and Stop `{"decision": "block", "reason": …}`.
    Block { reason: String },
    /// PreToolUse `permissionDecision: "deny"` with its reason (shown to the model).
    Deny { reason: String },
    /// PreToolUse `updatedInput`: the whole tool input, replaced, with
    /// `permissionDecision: "allow"` (the reference documents `updatedInput` with "allow" or
    /// "ask"; "allow" still leaves deny and ask rules to apply).
    UpdatedInput { input: serde_json::Value },
    /// `{"systemMessage": …}`: shown to the user, blocks nothing (Stop's non-blocking output).
    SystemMessage { text: String },
}

impl Output {
    /// The JSON line to print, if any.
    pub fn to_json(&self) -> Option<String> {
        let value = match self {
            Output::Nothing => return None,
            Output::Context { event, text } => json!({
                "hookSpecificOutput": { "hookEventName": event, "additionalContext": text }
            }),
            Output::ContextAndMessage {
                event,
                text,
                message,
            } => json!({
                "systemMessage": message,
                "hookSpecificOutput": { "hookEventName": event, "additionalContext": text }
            }),
            Output::Block { reason } => json!({ "decision": "block", "reason": reason }),
            Output::Deny { reason } => json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": reason,
                }
            }),
            Output::SystemMessage { text } => json!({ "systemMessage": text }),
            Output::UpdatedInput { input } => json!({
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "allow",
                    "updatedInput": input,
                }
            }),
        };
        Some(value.to_string())
    }
}

/// A hook's result: its output and short notes for stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub output: Output,
    pub notes: Vec<String>,
}

impl Default for Outcome {
    fn default() -> Self {
        Outcome {
            output: Output::Nothing,
            notes: Vec::new(),
        }
    }
}

impl Outcome {
    /// No output, one note.
    pub fn note(note: String) -> Outcome {
        Outcome {
            output: Output::Nothing,
            notes: vec![note],
        }
    }
}

/// How long each hook may work before it answers anyway: below the timeout plugin/hooks.json
/// gives it (5 s for the edit hooks, 10–15 s for the others), so that Claude Code never has to kill
/// it; 1 s for session-end, because Claude Code gives all SessionEnd hooks 1.5 s whatever a
/// plugin asks for. `$MATH_FORGE_HOOK_BUDGET_MS` overrides it (tests, slow machines).
pub fn budget(hook: &str) -> std::time::Duration {
    if let Some(ms) = std::env::var("MATH_FORGE_HOOK_BUDGET_MS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
    {
        return std::time::Duration::from_millis(ms);
    }
    std::time::Duration::from_millis(match hook {
        "post-tool-use" | "lean-output" => 2000,
        "session-end" => 1000,
        _ => 4000,
    })
}

/// What a hook answers when its work did not finish within `budget`: the edit hook tells the
/// agent that the file was not checked (so silence is never read as "checked"); the others
/// step aside with a note.
pub fn out_of_time(hook: &str, budget: std::time::Duration) -> Outcome {
    let why = format!(
        "did not finish within its {:.1} s budget (below the hook's timeout)",
        budget.as_secs_f64()
    );
    if hook == "pre-tool-use" {
        return Outcome {
            output: Output::Context {
                event: "PreToolUse",
                text: format!("[math-forge] This edit was NOT checked before the write: the check {why}. The check after the write still runs; run `mf lint` on the file before relying on it."),
            },
            notes: vec![format!("{why}; nothing checked")],
        };
    }
    if hook == "post-tool-use" {
        return Outcome {
            output: Output::Context {
                event: "PostToolUse",
                text: format!("[math-forge] This edit was NOT checked: the check {why}. Run `mf lint` on the file before relying on it."),
            },
            notes: vec![format!("{why}; nothing checked")],
        };
    }
    Outcome::note(format!("{why}; skipped"))
}

/// Where the hooks find their databases and binaries.
#[derive(Debug, Clone, Default)]
pub struct Environment {
    pub knowledge_db: PathBuf,
    /// Why the rule chose `knowledge_db` (`None`: given by the caller).
    pub knowledge_reason: Option<crate::kb::Reason>,
    /// `None` when the resolved tracking.db does not exist (`tracking_note` says where it
    /// was looked for).
    pub tracking_db: Option<PathBuf>,
    pub tracking_note: Option<String>,
    /// `$CLAUDE_ENV_FILE`.
    pub env_file: Option<PathBuf>,
    /// The directory of the running `mf` (exported on PATH).
    pub bin_dir: Option<PathBuf>,
    /// `$CLAUDE_PLUGIN_DATA` (or the user data directory): where SessionStart keeps the
    /// snapshot a Stop hook compares with when the project is not in git.
    pub data_dir: Option<PathBuf>,
    /// Unix seconds.
    pub now: i64,
    pub slots: i64,
    /// `$MATH_FORGE_PROBLEM`: the problem this session works on (else the one recorded for a
    /// resumed session, else the project directory's name when the KB knows it).
    pub problem: Option<String>,
}

/// SessionStart: the briefing, and the PATH export when `$CLAUDE_ENV_FILE` is set.
/// `input` is the hook's stdin (only checked to be JSON when present).
pub fn session_start(input: &[u8], env: &Environment) -> Outcome {
    let mut notes = Vec::new();
    if !input.iter().all(u8::is_ascii_whitespace) {
        if let Err(e) = Payload::parse(input) {
            notes.push(format!("{e}; briefing anyway"));
        }
    }
    if let Some(file) = &env.env_file {
        // PATH only: `mk` in the session's shell finds the same knowledge base by the same
        // rule (an exported MATH_FORGE_DB would hide a project KB made later with `mk init`).
        let lines: Vec<String> = env.bin_dir.iter().map(|d| env_file::path_line(d)).collect();
        if !lines.is_empty() {
            if let Err(e) = env_file::append_lines(file, &lines) {
                notes.push(format!("cannot append to {}: {e}", file.display()));
            }
        }
    }
    let legacy = legacy_knowledge_bases(env, &mut notes);
    if let Some(note) = snapshot_session_start(input, env) {
        notes.push(note);
    }
    let tracking = env.tracking_db.as_deref().map(Tracking::open);
    let kb = Kb::open(&env.knowledge_db).map_err(|e| e.to_string());
    let mut text = briefing::briefing(&briefing::Sources {
        tracking: tracking.as_ref(),
        tracking_note: env.tracking_note.clone(),
        kb: kb.as_ref().map_err(String::clone),
        now: env.now,
        slots: env.slots,
    });
    if let Ok(mut kb) = kb {
        let cwd = Payload::parse(input).ok().and_then(|p| p.cwd);
        match cwd.map(|c| recent::section(&kb, std::path::Path::new(&c))) {
            Some(Ok(Some(section))) => text.push_str(&format!("\n\n{section}")),
            Some(Err(e)) => notes.push(format!("{e}; no earlier sessions shown")),
            _ => {}
        }
        match problem_briefing(&mut kb, input, env) {
            Ok(Some(context)) => {
                text.push_str(&format!("\n\nPROBLEM CONTEXT (`mk context`):\n{context}"))
            }
            Ok(None) => {}
            Err(e) => notes.push(format!("{e}; no problem context")),
        }
    }
    let output = match legacy {
        Some(message) => {
            text.push_str(&format!("\n\nNOTE: {message}"));
            Output::ContextAndMessage {
                event: "SessionStart",
                text,
                message,
            }
        }
        None => Output::Context {
            event: "SessionStart",
            text,
        },
    };
    Outcome { output, notes }
}

/// A knowledge base an earlier version kept in the plugin's data folder: adopted when the one
/// the rule chose does not exist yet (not when the caller named the file), else named. The
/// message for the user, if any.
fn legacy_knowledge_bases(env: &Environment, notes: &mut Vec<String>) -> Option<String> {
    let candidates = crate::kb::pending_legacy(crate::kb::legacy_knowledge_dbs(&env.knowledge_db));
    if candidates.is_empty() {
        return None;
    }
    let why = env
        .knowledge_reason
        .as_ref()
        .map_or_else(|| "given".to_string(), ToString::to_string);
    let chosen_by_rule = env
        .knowledge_reason
        .as_ref()
        .is_some_and(|r| !matches!(r, crate::kb::Reason::Flag | crate::kb::Reason::Env(_)));
    let legacy = if chosen_by_rule {
        match crate::kb::adopt_legacy(&env.knowledge_db, candidates.clone()) {
            Ok(l) => l,
            Err(e) => {
                notes.push(format!("{e}; the old knowledge base was not copied"));
                crate::kb::Legacy {
                    adopted: None,
                    named: candidates,
                }
            }
        }
    } else {
        crate::kb::Legacy {
            adopted: None,
            named: candidates,
        }
    };
    legacy.message(&env.knowledge_db, &why)
}

/// Most characters of the problem context in the briefing.
pub const BRIEFING_CONTEXT_CHARS: usize = 2500;

/// The session's problem's context for the briefing; records the problem for the session and
/// which facts were shown (usage feedback).
fn problem_briefing(
    kb: &mut Kb,
    input: &[u8],
    env: &Environment,
) -> crate::kb::Result<Option<String>> {
    let payload = Payload::parse(input).ok();
    let session = payload.as_ref().and_then(|p| p.session_id.clone());
    let recorded = match &session {
        Some(s) => kb.session_problem(s)?,
        None => None,
    };
    let from_dir = payload
        .as_ref()
        .and_then(|p| p.cwd.as_deref())
        .and_then(|c| std::path::Path::new(c).file_name())
        .map(|n| n.to_string_lossy().into_owned());
    let candidates = env.problem.iter().chain(&recorded).chain(&from_dir);
    for problem in candidates {
        // A problem the knowledge base does not know yet is briefed as such, not an error.
        let context = match kb.context(problem, 5) {
            Err(crate::kb::KbError::UnknownProblem { .. }) => crate::kb::Context {
                query: problem.trim().to_string(),
                ..Default::default()
            },
            other => other?,
        };
        if context.is_empty() && Some(problem) == from_dir.as_ref() {
            continue;
        }
        if let Some(s) = &session {
            // The id as the knowledge base spells it, so that what the session captures is
            // filed under the problem, not under the alias the session was started with.
            let id = context
                .problem
                .as_ref()
                .map_or(problem.as_str(), |p| p.id.as_str());
            kb.set_session_problem(s, id)?;
            kb.mark_shown(s, &context.finding_ids())?;
        }
        return Ok(Some(context_text::render(&context, BRIEFING_CONTEXT_CHARS)));
    }
    Ok(None)
}

/// The Stop hook compares with where the session started: this snapshot of the project's
/// `.lean` files (outside git), or of those already changed against `HEAD` (in git). A note
/// when it could not be taken.
fn snapshot_session_start(input: &[u8], env: &Environment) -> Option<String> {
    let value: serde_json::Value = serde_json::from_slice(input).ok()?;
    let session = value.get("session_id")?.as_str()?;
    let cwd = value.get("cwd").and_then(serde_json::Value::as_str)?;
    let data_dir = env.data_dir.as_deref()?;
    stop::take_snapshot(std::path::Path::new(cwd), data_dir, session).err()
}

/// SubagentStart: KB facts for the subagent's task. Never creates a knowledge base.
pub fn subagent_start(input: &[u8], env: &Environment) -> Outcome {
    let payload = match Payload::parse(input) {
        Ok(p) => p,
        Err(e) => return Outcome::note(format!("{e}; no context added")),
    };
    let kb = match Kb::open_read_only(&env.knowledge_db) {
        Ok(kb) => kb,
        Err(e) => return Outcome::note(format!("{e}; no context added")),
    };
    let tracking = env.tracking_db.as_deref().map(Tracking::open);
    let problem = session_problem(&kb, env.problem.as_deref(), payload.session_id.as_deref());
    match subagent::with_problem(
        problem.as_deref(),
        payload.task.as_deref(),
        &kb,
        tracking.as_ref(),
    ) {
        Some(text) => Outcome {
            output: Output::Context {
                event: "SubagentStart",
                text,
            },
            notes: Vec::new(),
        },
        None => Outcome::default(),
    }
}

/// The problem a session works on: `$MATH_FORGE_PROBLEM`, else the one SessionStart recorded.
pub(crate) fn session_problem(
    kb: &Kb,
    from_env: Option<&str>,
    session: Option<&str>,
) -> Option<String> {
    from_env
        .map(str::to_string)
        .or_else(|| session.and_then(|s| kb.session_problem(s).ok().flatten()))
}

/// PreToolUse: the gate before a `.lean` write, and KB context in a subagent's prompt.
pub fn pre_tool_use(input: &[u8], env: &Environment) -> Outcome {
    pre_tool_use::run(
        input,
        &pre_tool_use::Sources {
            knowledge_db: Some(env.knowledge_db.clone()),
            tracking_db: env.tracking_db.clone(),
            problem: env.problem.clone(),
            data_dir: env.data_dir.clone(),
        },
    )
}

/// Stop: refuses to end the turn while the session's changes gut a proof or add an axiom.
/// Then, when it does not block, captures the session's journal into facts and asks once
/// why failed attempts failed ([`capture`]).
pub fn stop(input: &[u8], env: &Environment) -> Outcome {
    let mut outcome = stop::run(input, &stop::Settings::new(env.data_dir.clone()));
    if matches!(outcome.output, Output::Block { .. }) {
        return outcome;
    }
    let Some(session) = session_of(input) else {
        return outcome;
    };
    match capture::capture(&env.knowledge_db, &session) {
        Ok(c) => {
            if let Some(text) = c.ask_why {
                outcome.output = match outcome.output {
                    Output::SystemMessage { text: first } => Output::SystemMessage {
                        text: format!("{first}\n{text}"),
                    },
                    _ => Output::SystemMessage { text },
                };
            }
        }
        Err(e) => outcome.notes.push(e),
    }
    outcome
}

/// SessionEnd: the last capture of the session's journal. Its output cannot change anything,
/// so it prints none.
pub fn session_end(input: &[u8], env: &Environment) -> Outcome {
    let Some(session) = session_of(input) else {
        return Outcome::note("the payload names no session_id; nothing captured".into());
    };
    match capture::capture(&env.knowledge_db, &session) {
        Ok(_) => Outcome::default(),
        Err(e) => Outcome::note(e),
    }
}

fn session_of(input: &[u8]) -> Option<String> {
    Payload::parse(input).ok()?.session_id
}

/// PostToolUse, with tracking.db from `env`.
pub fn post_tool_use(input: &[u8], env: &Environment) -> Outcome {
    let settings = post_tool_use::Settings {
        tracking_db: env.tracking_db.clone(),
        knowledge_db: Some(env.knowledge_db.clone()),
        data_dir: env.data_dir.clone(),
        ..Default::default()
    };
    post_tool_use::run(input, &settings)
}

/// PostToolUse and PostToolUseFailure on Bash: Lean's errors in the command's output mark the
/// journaled attempts they lie in as rejected ([`lean_output`]).
pub fn lean_output(input: &[u8], env: &Environment) -> Outcome {
    let project = std::env::var_os("CLAUDE_PROJECT_DIR")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    lean_output::run(input, &env.knowledge_db, project.as_deref())
}

/// One line of at most `max` characters: whitespace runs collapse, `…` marks a cut.
pub(crate) fn clip(s: &str, max: usize) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let mut cut: String = flat.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_are_the_documented_json() {
        let block = Output::Block { reason: "r".into() }.to_json().unwrap();
        assert_eq!(block, r#"{"decision":"block","reason":"r"}"#);
        let ctx = Output::Context {
            event: "SessionStart",
            text: "t\n\"q\"".into(),
        };
        let v: serde_json::Value = serde_json::from_str(&ctx.to_json().unwrap()).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "SessionStart");
        assert_eq!(v["hookSpecificOutput"]["additionalContext"], "t\n\"q\"");
        assert_eq!(Output::Nothing.to_json(), None);
    }

    #[test]
    fn clip_is_char_safe() {
        assert_eq!(clip("a\n  b", 10), "a b");
        assert_eq!(clip("∀ n ∈ ℕ, n ≤ n", 5), "∀ n …");
    }
}
