//! The Claude Code hooks behind `mf hook …`.
//!
//! - [`session_start()`]: the briefing ([`briefing`]) as `additionalContext`, and a PATH export
//!   to `$CLAUDE_ENV_FILE` so the session's shell finds `mf` and `mk`;
//! - [`post_tool_use()`]: blocks an edit of a `.lean` file that replaced proof code with a hole
//!   or added an axiom, and advises on false lemmas and changed statements;
//! - [`subagent_start()`]: a few KB findings for the subagent's task ([`subagent`]).
//!
//! A hook must never get in the way by accident: every runner returns an [`Outcome`] (the
//! output, and notes for stderr) and never fails; what it cannot read, it skips with a note.

pub mod baseline;
pub mod briefing;
pub mod payload;
pub mod post_tool_use;
pub mod subagent;
pub mod window;

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

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
    /// PostToolUse `{"decision": "block", "reason": …}`.
    Block { reason: String },
}

impl Output {
    /// The JSON line to print, if any.
    pub fn to_json(&self) -> Option<String> {
        let value = match self {
            Output::Nothing => return None,
            Output::Context { event, text } => json!({
                "hookSpecificOutput": { "hookEventName": event, "additionalContext": text }
            }),
            Output::Block { reason } => json!({ "decision": "block", "reason": reason }),
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
/// gives it (3 s for PostToolUse, 5 s for the others), so that Claude Code never has to kill
/// it. `$MATH_FORGE_HOOK_BUDGET_MS` overrides it (tests, slow machines).
pub fn budget(hook: &str) -> std::time::Duration {
    if let Some(ms) = std::env::var("MATH_FORGE_HOOK_BUDGET_MS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
    {
        return std::time::Duration::from_millis(ms);
    }
    std::time::Duration::from_millis(if hook == "post-tool-use" { 2000 } else { 4000 })
}

/// What a hook answers when its work did not finish within `budget`: the edit hook tells the
/// agent that the file was not checked (so silence is never read as "checked"); the others
/// step aside with a note.
pub fn out_of_time(hook: &str, budget: std::time::Duration) -> Outcome {
    let why = format!(
        "did not finish within its {:.1} s budget (below the hook's timeout)",
        budget.as_secs_f64()
    );
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
    /// `None` when the resolved tracking.db does not exist (`tracking_note` says where it
    /// was looked for).
    pub tracking_db: Option<PathBuf>,
    pub tracking_note: Option<String>,
    /// `$CLAUDE_ENV_FILE`.
    pub env_file: Option<PathBuf>,
    /// The directory of the running `mf` (exported on PATH).
    pub bin_dir: Option<PathBuf>,
    /// Unix seconds.
    pub now: i64,
    pub slots: i64,
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
    if let (Some(file), Some(dir)) = (&env.env_file, &env.bin_dir) {
        if let Err(e) = export_path(file, dir) {
            notes.push(format!("cannot append to {}: {e}", file.display()));
        }
    }
    let tracking = env.tracking_db.as_deref().map(Tracking::open);
    let kb = Kb::open(&env.knowledge_db).map_err(|e| e.to_string());
    let text = briefing::briefing(&briefing::Sources {
        tracking: tracking.as_ref(),
        tracking_note: env.tracking_note.clone(),
        kb: kb.as_ref().map_err(String::clone),
        now: env.now,
        slots: env.slots,
    });
    Outcome {
        output: Output::Context {
            event: "SessionStart",
            text,
        },
        notes,
    }
}

/// SubagentStart: KB findings for the subagent's task. Never creates a knowledge base.
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
    match subagent::context(payload.task.as_deref(), &kb, tracking.as_ref()) {
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

/// PostToolUse, with tracking.db from `env`.
pub fn post_tool_use(input: &[u8], env: &Environment) -> Outcome {
    let settings = post_tool_use::Settings {
        tracking_db: env.tracking_db.clone(),
        ..Default::default()
    };
    post_tool_use::run(input, &settings)
}

/// The env file holds a few `export` lines; a larger one is not what Claude Code made.
const MAX_ENV_FILE_BYTES: u64 = 1024 * 1024;

/// Appends `export PATH="dir:$PATH"` to the env file, once: a resumed or compacted session
/// runs SessionStart again with the same file.
pub fn export_path(env_file: &Path, dir: &Path) -> std::io::Result<()> {
    let line = format!(
        "export PATH={}:\"$PATH\"\n",
        shell_quote(&dir.to_string_lossy())
    );
    // Only a regular file (or none yet): a FIFO or device would block the session's start.
    let existing = match crate::files::read_regular(env_file, MAX_ENV_FILE_BYTES) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(crate::files::FileError::Missing { .. }) => String::new(),
        Err(e) => return Err(std::io::Error::other(e.reason())),
    };
    if existing.lines().any(|l| format!("{l}\n") == line) {
        return Ok(());
    }
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(env_file)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    if !existing.is_empty() && !existing.ends_with('\n') {
        f.write_all(b"\n")?;
    }
    f.write_all(line.as_bytes())
}

/// Single-quotes a string for POSIX shells.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
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
    fn path_export_is_quoted_and_appended_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("env");
        std::fs::write(&file, "export A=1").unwrap();
        let bin = Path::new("/opt/it's here/bin");
        export_path(&file, bin).unwrap();
        export_path(&file, bin).unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "export A=1\nexport PATH='/opt/it'\\''s here/bin':\"$PATH\"\n"
        );
    }

    #[test]
    fn clip_is_char_safe() {
        assert_eq!(clip("a\n  b", 10), "a b");
        assert_eq!(clip("∀ n ∈ ℕ, n ≤ n", 5), "∀ n …");
    }
}
