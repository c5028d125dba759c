//! PreToolUse: the gate before the write, and KB context for a subagent's task.
//!
//! For Write, Edit and MultiEdit of a `.lean` file the hook computes the file as the tool would
//! leave it ([`apply`]) and asks the [`gate`] whether that guts a proof or adds an axiom; if so
//! it denies the call (`permissionDecision: "deny"`) before anything is written. Otherwise it
//! says nothing and the normal permission flow goes on: the hook never answers "allow".
//!
//! For the subagent tool (`Agent`, formerly `Task`), whose `tool_input.prompt` is the task,
//! it extends that prompt with KB facts for it ([`subagent`]) through `updatedInput`.
//!
//! Payload and output shapes: <https://code.claude.com/docs/en/hooks> (PreToolUse input,
//! "PreToolUse decision control": `hookSpecificOutput.permissionDecision`,
//! `permissionDecisionReason`, `updatedInput`, `additionalContext`).

use std::path::PathBuf;

use serde_json::Value;

use super::files::{self, MAX_FILE_BYTES};
use super::payload::Payload;
use super::{apply, gate, reopen, subagent, Outcome, Output};
use crate::kb::Kb;
use crate::tracking::Tracking;

/// Tool names under which Claude Code starts a subagent.
pub const SUBAGENT_TOOLS: &[&str] = &["Agent", "Task"];

/// Where the subagent context comes from.
#[derive(Debug, Clone, Default)]
pub struct Sources {
    pub knowledge_db: Option<PathBuf>,
    pub tracking_db: Option<PathBuf>,
    /// The problem the session works on, when the environment names it.
    pub problem: Option<String>,
    /// Where SessionStart keeps its snapshots ([`super::reopen`]).
    pub data_dir: Option<PathBuf>,
}

/// Runs the hook on a payload.
pub fn run(input: &[u8], sources: &Sources) -> Outcome {
    let value: Value = match serde_json::from_slice(input) {
        Ok(v @ Value::Object(_)) => v,
        Ok(_) | Err(_) => return unreadable_input(input),
    };
    let payload = Payload::from_value(&value);
    let tool = payload.tool_name.clone().unwrap_or_default();
    if SUBAGENT_TOOLS.contains(&tool.as_str()) {
        return subagent_prompt(&value, sources);
    }
    if !matches!(tool.as_str(), "Write" | "Edit" | "MultiEdit") {
        return Outcome::default();
    }
    let Some(given) = payload.tool_input.file_path.clone() else {
        return Outcome::note("the payload names no file_path; nothing checked".into());
    };
    if !given.ends_with(".lean") {
        return Outcome::default();
    }
    let path = payload.resolve(&given);
    let before = match files::read_text(&path, MAX_FILE_BYTES) {
        Ok(t) => t,
        // Fail closed: an edit the gate cannot read is not let through unchecked.
        Err(why) => {
            return Outcome {
                output: Output::Deny {
                    reason: format!("[math-forge] This edit is refused because it cannot be checked: {why}. The gate reads regular UTF-8 files of at most {} MB; make the file one, or edit it outside Claude Code.", MAX_FILE_BYTES / (1024 * 1024)),
                },
                notes: vec![format!("{why}; refused unchecked")],
            }
        }
    };
    let after = match apply::after(&tool, before.as_deref(), &payload.tool_input) {
        Ok(t) => t,
        Err(why) => return Outcome::note(format!("{given}: {why}; nothing checked")),
    };
    let name = path
        .file_name()
        .map_or_else(|| given.clone(), |n| n.to_string_lossy().into_owned());
    let decision = gate::check(&name, before.as_deref(), &after);
    if decision.blocks.is_empty() {
        return Outcome::default();
    }
    let evidence = reopen::Evidence {
        knowledge_db: sources.knowledge_db.as_deref(),
        data_dir: sources.data_dir.as_deref(),
        session: payload.session_id.as_deref(),
        kb: None,
    };
    if let Some(before) = before.as_deref() {
        if reopen::allowed(&evidence, &path, &name, before, &after) {
            return Outcome {
                output: Output::Context {
                    event: "PreToolUse",
                    text: reopen::note(&name),
                },
                notes: Vec::new(),
            };
        }
    }
    let reason = gate::reason(
        "This edit",
        &decision
            .blocks
            .into_iter()
            .map(|b| (name.clone(), b))
            .collect::<Vec<_>>(),
    );
    // How to take back one's own rejected attempt, when the edit puts a hole back. Only a
    // hint, so the words are counted rather than both files parsed whole (which cost a
    // 130 KB file's edit 25 ms on every refusal); the decision above is the structural one.
    let reopens = before
        .as_deref()
        .is_some_and(|b| reopen::adds_hole_words(b, &after));
    let reason = if reopens {
        gate::cap(format!("{reason}\n{}", reopen::HINT))
    } else {
        reason
    };
    Outcome {
        output: Output::Deny { reason },
        notes: Vec::new(),
    }
}

/// Input that is no JSON object: a `.lean` edit in it is refused (the gate cannot check what
/// it cannot read); anything else is no business of the gate's.
fn unreadable_input(input: &[u8]) -> Outcome {
    let why = match serde_json::from_slice::<Value>(input) {
        Ok(_) => "not a JSON object".to_string(),
        Err(e) => format!("not a JSON object: {e}"),
    };
    if !input.windows(6).any(|w| w == b".lean\"") {
        return Outcome::note(format!("hook input is {why}; nothing checked"));
    }
    Outcome {
        output: Output::Deny {
            reason: format!("[math-forge] This edit is refused because it cannot be checked: the hook input is {why}. Retry the edit; if this repeats, the math-forge install is broken (`mf --version`)."),
        },
        notes: vec![format!("hook input is {why}; a .lean edit refused unchecked")],
    }
}

/// The subagent's prompt with KB findings for it appended, as `updatedInput` (which replaces
/// the whole tool input, so every other field is kept as it was).
fn subagent_prompt(value: &Value, sources: &Sources) -> Outcome {
    let Some(input) = value.get("tool_input").and_then(Value::as_object) else {
        return Outcome::note("the subagent call has no tool_input; no context added".into());
    };
    let Some(prompt) = input.get("prompt").and_then(Value::as_str) else {
        return Outcome::note("the subagent call has no prompt; no context added".into());
    };
    let Some(db) = &sources.knowledge_db else {
        return Outcome::default();
    };
    let kb = match Kb::open_read_only(db) {
        Ok(kb) => kb,
        Err(e) => return Outcome::note(format!("{e}; no context added")),
    };
    let tracking = sources.tracking_db.as_deref().map(Tracking::open);
    let session = value.get("session_id").and_then(Value::as_str);
    let problem = super::session_problem(&kb, sources.problem.as_deref(), session);
    let Some(context) =
        subagent::with_problem(problem.as_deref(), Some(prompt), &kb, tracking.as_ref())
    else {
        return Outcome::default();
    };
    let mut updated = input.clone();
    updated.insert(
        "prompt".into(),
        Value::String(format!("{prompt}\n\n{context}")),
    );
    Outcome {
        output: Output::UpdatedInput {
            input: Value::Object(updated),
        },
        notes: Vec::new(),
    }
}
