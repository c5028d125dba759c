//! PostToolUse: is the edit of a `.lean` file honest?
//!
//! The hook rebuilds the file's earlier version ([`baseline`]), asks the gate's engine
//! ([`super::decide`]) and renders its answer: a block when a proof was gutted or an axiom added,
//! advice on false lemmas, changed statements and removed proofs. It journals the edit's
//! declaration-level events for the session capture ([`journal`]). Anything it cannot read
//! (malformed input, a missing, binary or huge file) ends in [`Output::Nothing`] and a note.

use std::path::PathBuf;
use std::time::Duration;

use super::baseline::{self, Baseline};
use super::decide::{decide_journaled, Decision, Parse};
use super::files::{self, MAX_FILE_BYTES};
use super::payload::Payload;
use super::{gate, journal, reopen, Outcome, Output};
use crate::kb::Kb;
use crate::tracking::Tracking;

/// How the hook runs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// tracking.db, for false lemmas; only opened (read-only) when the file exists.
    pub tracking_db: Option<PathBuf>,
    /// Limit for `git show HEAD:…` when a Write must be compared with the committed version.
    pub git_timeout: Duration,
    pub max_file_bytes: u64,
    /// knowledge.db, for the session journal; journaling is skipped when it does not exist.
    pub knowledge_db: Option<PathBuf>,
    /// Where SessionStart keeps its snapshots ([`super::reopen`]).
    pub data_dir: Option<PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            tracking_db: None,
            git_timeout: Duration::from_millis(1500),
            max_file_bytes: MAX_FILE_BYTES,
            knowledge_db: None,
            data_dir: None,
        }
    }
}

/// Runs the hook on a payload.
pub fn run(input: &[u8], settings: &Settings) -> Outcome {
    let payload = match Payload::parse(input) {
        Ok(p) => p,
        Err(e) if input.windows(6).any(|w| w == b".lean\"") => return not_checked(e.to_string()),
        Err(e) => return Outcome::note(format!("{e}; nothing checked")),
    };
    let tool = payload.tool_name.clone().unwrap_or_default();
    if !matches!(tool.as_str(), "Write" | "Edit" | "MultiEdit") {
        let shown = if tool.is_empty() {
            "no tool_name"
        } else {
            tool.as_str()
        };
        return Outcome::note(format!(
            "not a Write, Edit or MultiEdit ({shown}); nothing checked"
        ));
    }
    let Some(given) = payload
        .tool_input
        .file_path
        .clone()
        .or_else(|| payload.tool_response.file_path.clone())
    else {
        return Outcome::note("the payload names no file_path; nothing checked".into());
    };
    if !given.ends_with(".lean") {
        return Outcome::default();
    }
    let path = payload.resolve(&given);
    let current = match files::read_text(&path, settings.max_file_bytes) {
        Ok(Some(text)) => text,
        Ok(None) => {
            return Outcome::note(format!(
                "{}: no such file or directory; nothing checked",
                path.display()
            ))
        }
        Err(why) => return not_checked(why),
    };
    let mut notes = Vec::new();
    let baseline = baseline::rebuild(&payload, &path, &current, settings.git_timeout);
    let tracking = settings
        .tracking_db
        .as_deref()
        .filter(|p| p.is_file())
        .map(Tracking::open);
    let false_lemmas = tracking
        .as_ref()
        .map(Tracking::all_false_lemmas)
        .unwrap_or_default();
    if let Some(t) = &tracking {
        notes.extend(t.notes());
    }
    let name = path
        .file_name()
        .map_or_else(|| given.clone(), |n| n.to_string_lossy().into_owned());
    // Journaling needs a session and an existing knowledge base ([`journal::write`]).
    let journaling = payload.session_id.is_some()
        && settings
            .knowledge_db
            .as_deref()
            .is_some_and(|db| db.is_file());
    let (mut decision, events) = decide_journaled(
        &name,
        &current,
        &baseline,
        &false_lemmas,
        Parse::Windows,
        journaling,
    );
    // The agent took back its own attempt that Lean rejected (the gate before the write let
    // it through for the same reason).
    // The agent read why before the write (PreToolUse says it); nothing to repeat here.
    // The journal's connection, opened once for the check and the journal (each open parses
    // the schema: half a millisecond).
    let mut kb = None;
    if let (false, Baseline::Known { texts, .. }) = (decision.blocks.is_empty(), &baseline) {
        if journaling {
            kb = settings
                .knowledge_db
                .as_deref()
                .and_then(|db| Kb::open_existing(db).ok());
        }
        let evidence = reopen::Evidence {
            knowledge_db: settings.knowledge_db.as_deref(),
            data_dir: settings.data_dir.as_deref(),
            session: payload.session_id.as_deref(),
            kb: kb.as_ref(),
        };
        if !texts.is_empty()
            && texts
                .iter()
                .all(|before| reopen::allowed(&evidence, &path, &name, before, &current))
        {
            decision.blocks.clear();
        }
    }
    let mut ask_why = None;
    if let (Some(db), Some(session)) = (&settings.knowledge_db, &payload.session_id) {
        let blocked = decision.blocks.first().map(String::as_str);
        let journaled = journal::write_with(db, kb, session, &path, &current, events, blocked);
        notes.extend(journaled.note);
        ask_why = journaled.ask_why;
    }
    if let Baseline::Unknown { reason } = &baseline {
        notes.push(format!(
            "{name}: earlier version unknown ({reason}); only false lemmas checked"
        ));
    }
    let output = match (render(&name, decision), ask_why) {
        (Output::Nothing, Some(ask)) => Output::Context {
            event: "PostToolUse",
            text: ask,
        },
        (Output::Context { event, text }, Some(ask)) => Output::Context {
            event,
            text: format!("{text}\n{ask}"),
        },
        (output, _) => output,
    };
    Outcome { output, notes }
}

/// A `.lean` edit this hook could not check: the agent is told (silence would read as
/// "checked"); the write has happened, so there is nothing to refuse.
fn not_checked(why: String) -> Outcome {
    Outcome {
        output: Output::Context {
            event: "PostToolUse",
            text: format!("[math-forge] This edit was NOT checked: {why}. Run `mf lint FILE` before relying on it."),
        },
        notes: vec![format!("{why}; nothing checked")],
    }
}

/// The hook's output for a decision about file `name`.
pub fn render(name: &str, d: Decision) -> Output {
    let advice = d
        .advice
        .iter()
        .map(|a| format!("- {a}"))
        .collect::<Vec<_>>()
        .join("\n");
    if !d.blocks.is_empty() {
        let mut reason = format!(
            "[math-forge] BLOCKED: this edit of {name} replaced proof code with a hole or added an axiom.\n{}\n\
             Project rule: never replace existing proof code with sorry/admit, never add axioms. \
             Restore the proof (or finish it without a hole); state a missing fact as a separate lemma \
             (a new lemma stated with sorry is fine).",
            gate::bounded_blocks(&d.blocks)
        );
        if !advice.is_empty() {
            reason.push_str("\n\nAlso:\n");
            reason.push_str(&advice);
        }
        return Output::Block {
            reason: gate::cap(reason),
        };
    }
    if advice.is_empty() {
        return Output::Nothing;
    }
    Output::Context {
        event: "PostToolUse",
        text: format!("[math-forge] Checked {name}:\n{advice}"),
    }
}
