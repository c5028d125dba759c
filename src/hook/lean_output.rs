//! PostToolUse and PostToolUseFailure on Bash: Lean's verdict from the agent's own
//! `lake build` or `lake env lean FILE`.
//!
//! Agents compile through the Bash tool as often as through `mf verify`. When the command's
//! output carries Lean errors (`FILE:LINE:COL: error: …`, or lake's `error: FILE:LINE:COL: …`),
//! each error is attributed to the declaration it lies in, on the file's content as it is now,
//! and the journaled attempt of that declaration at exactly that content (same hash) is marked
//! rejected, as `mf verify`'s FAIL marks it ([`Kb::mark_rejected`]). An attempt whose text
//! changed since is at another hash and is never touched; errors in files that are not on disk,
//! not `.lean`, or never journaled change nothing. A knowledge base that cannot be written now
//! (locked, read-only, corrupt) gets the rejections in its spool ([`crate::kb::spool_rejected`]),
//! marked at its next open that can write. Claude Code sends a command that exits 0 to
//! PostToolUse (`tool_response.stdout`, `.stderr`) and one that fails to PostToolUseFailure
//! (`error`, the output as one text); both are read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::files::{self, MAX_FILE_BYTES};
use super::{Outcome, Output};
use crate::kb::{Kb, Rejected};
use crate::verify::messages::{self, Level};

/// Most bytes of a command's output read for Lean's messages (a full `lake build` log of a
/// large project stays far below; what is past it is not read).
const MAX_OUTPUT_BYTES: usize = 4 * 1024 * 1024;

/// Runs the hook on a payload; `project_dir` is `$CLAUDE_PROJECT_DIR`, where paths relative to
/// no `cwd` are looked for.
pub fn run(input: &[u8], knowledge_db: &Path, project_dir: Option<&Path>) -> Outcome {
    let Ok(v) = serde_json::from_slice::<Value>(input) else {
        return Outcome::note("hook input is not JSON; nothing read".into());
    };
    if v.get("tool_name").and_then(Value::as_str) != Some("Bash") {
        return Outcome::default();
    }
    // Only output Lean itself just printed: `cat build.log` shows errors about an older
    // version of the file, whose lines no longer mean the same declarations.
    let command = v
        .get("tool_input")
        .and_then(|i| i.get("command"))
        .and_then(Value::as_str)
        .unwrap_or("");
    if !runs_lean(command) {
        return Outcome::default();
    }
    let output = command_output(&v);
    // Most commands print no Lean error: nothing is parsed for them.
    if !output.contains("error") || !output.contains(".lean:") {
        return Outcome::default();
    }
    let cwd = v.get("cwd").and_then(Value::as_str).map(PathBuf::from);
    let errors = lean_errors(&output, cwd.as_deref(), project_dir);
    if errors.is_empty() || !knowledge_db.is_file() {
        return Outcome::default();
    }
    // What Lean rejected, on each file's content as it is now (the content it compiled).
    let mut found: Vec<(PathBuf, Vec<Rejected>)> = Vec::new();
    for (path, errors) in errors {
        let shown = path.to_string_lossy().into_owned();
        let Ok(Some(text)) = files::read_text(&path, MAX_FILE_BYTES) else {
            continue;
        };
        let hash = crate::kb::content_hash(text.as_bytes());
        let rejected: Vec<Rejected> =
            crate::verify::rejected::declarations_with_errors(&shown, &text, &errors)
                .into_iter()
                .map(|(declaration, headline)| Rejected {
                    file: shown.clone(),
                    content_hash: hash.clone(),
                    declaration,
                    headline,
                })
                .collect();
        if !rejected.is_empty() {
            found.push((path, rejected));
        }
    }
    if found.is_empty() {
        return Outcome::default();
    }
    let mut notes = Vec::new();
    // Kept for the next open that can write when this one cannot (locked, read-only, corrupt).
    let spool = |why: String, rejected: &[Rejected], notes: &mut Vec<String>| {
        notes.push(match crate::kb::spool_rejected(knowledge_db, rejected) {
            Ok(at) => format!(
                "{why}; Lean's errors are kept in {} and marked at the knowledge base's next open",
                at.display()
            ),
            Err(e) => format!("{why}; Lean's errors not recorded: {e}"),
        });
    };
    // Waits for another writer as the edit hooks do, so the hook answers within its budget.
    let opened = Kb::open_existing(knowledge_db)
        .and_then(|kb| kb.set_lock_wait(super::journal::LOCK_WAIT).map(|()| kb));
    let mut kb = match opened {
        Ok(kb) => kb,
        Err(e) => {
            let all: Vec<Rejected> = found.into_iter().flat_map(|(_, r)| r).collect();
            spool(e.to_string(), &all, &mut notes);
            return Outcome {
                output: Output::Nothing,
                notes,
            };
        }
    };
    // The attempts an edit hook had to spool are the ones these errors may be about.
    let _ = kb.replay_spool();
    let mut marked: Vec<(String, Vec<String>)> = Vec::new();
    for (path, rejected) in found {
        let (shown, hash) = (&rejected[0].file, &rejected[0].content_hash);
        let before = kb.rejected_declarations(shown, hash).unwrap_or_default();
        let pairs: Vec<(String, String)> = rejected
            .iter()
            .map(|r| (r.declaration.clone(), r.headline.clone()))
            .collect();
        if let Err(e) = kb.mark_rejected(shown, hash, &pairs) {
            spool(e.to_string(), &rejected, &mut notes);
            continue;
        }
        // Only attempts the journal holds at this content are marked; say only those.
        let now = kb.rejected_declarations(shown, hash).unwrap_or_default();
        let new: Vec<String> = now.into_iter().filter(|d| !before.contains(d)).collect();
        if !new.is_empty() {
            marked.push((display_name(&path), new));
        }
    }
    if marked.is_empty() {
        return Outcome {
            output: Output::Nothing,
            notes,
        };
    }
    let list = marked
        .iter()
        .map(|(file, decls)| format!("{} in {file}", decls.join(", ")))
        .collect::<Vec<_>>()
        .join("; ");
    Outcome {
        output: Output::Context {
            event: v
                .get("hook_event_name")
                .and_then(Value::as_str)
                .filter(|e| *e == "PostToolUseFailure")
                .map_or("PostToolUse", |_| "PostToolUseFailure"),
            text: format!(
                "[math-forge] Lean rejected this session's attempt at {list}: recorded as a failed attempt (never a technique). \
                 Fix the proof, or put back the `sorry` the declaration had when the session started (the gate allows that now)."
            ),
        },
        notes,
    }
}

/// Whether a shell command runs `lake` or `lean` itself (in command position of one of its
/// pipeline stages, after wrappers such as `timeout 600` or `env X=1`), not only names them.
pub fn runs_lean(command: &str) -> bool {
    command
        .split([';', '&', '|', '(', ')', '\n', '`'])
        .any(|stage| {
            let mut words = stage.split_whitespace().skip_while(|w| {
                w.contains('=')
                    || w.starts_with('-')
                    || w.chars().next().is_some_and(|c| c.is_ascii_digit())
                    || matches!(
                        *w,
                        "time"
                            | "env"
                            | "nice"
                            | "exec"
                            | "command"
                            | "timeout"
                            | "then"
                            | "do"
                            | "else"
                            | "!"
                            | "{"
                            | "$("
                    )
            });
            words.next().is_some_and(|w| {
                let name = w.rsplit('/').next().unwrap_or(w);
                name == "lake" || name == "lean"
            })
        })
}

/// The command's output as Claude Code hands it over: `tool_response.stdout` and `.stderr`
/// (PostToolUse), `error` (PostToolUseFailure), or a `tool_response` that is text; bounded.
fn command_output(v: &Value) -> String {
    let mut out = String::new();
    let response = v.get("tool_response").unwrap_or(&Value::Null);
    let parts = [
        response.as_str(),
        response.get("stdout").and_then(Value::as_str),
        response.get("stderr").and_then(Value::as_str),
        v.get("error").and_then(Value::as_str),
    ];
    for part in parts.into_iter().flatten() {
        if out.len() + part.len() > MAX_OUTPUT_BYTES {
            break;
        }
        out.push_str(part);
        out.push('\n');
    }
    out
}

/// Lean's errors in `.lean` files that exist, by file (lexically normal absolute path): each
/// error's line and first line of text. A relative path is looked for under `cwd`, then under
/// `project_dir`.
fn lean_errors(
    output: &str,
    cwd: Option<&Path>,
    project_dir: Option<&Path>,
) -> BTreeMap<PathBuf, Vec<(usize, String)>> {
    let mut by_file: BTreeMap<PathBuf, Vec<(usize, String)>> = BTreeMap::new();
    let mut resolved: BTreeMap<String, Option<PathBuf>> = BTreeMap::new();
    for m in messages::parse(output) {
        let (Level::Error, Some(file), Some(line)) = (m.severity, &m.file, m.line) else {
            continue;
        };
        if !file.ends_with(".lean") {
            continue;
        }
        let path = resolved
            .entry(file.clone())
            .or_insert_with(|| resolve(file, cwd, project_dir))
            .clone();
        if let Some(path) = path {
            by_file
                .entry(path)
                .or_default()
                .push((line, m.headline().to_string()));
        }
    }
    by_file
}

fn resolve(file: &str, cwd: Option<&Path>, project_dir: Option<&Path>) -> Option<PathBuf> {
    let given = Path::new(file);
    let candidates: Vec<PathBuf> = if given.is_absolute() {
        vec![given.to_path_buf()]
    } else {
        [cwd, project_dir]
            .into_iter()
            .flatten()
            .map(|d| d.join(given))
            .collect()
    };
    candidates
        .into_iter()
        .map(|p| files::lexically_normal(&p))
        .find(|p| p.is_file())
}

fn display_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_that_run_lean_and_commands_that_only_name_it() {
        for run in [
            "lake build",
            "lake env lean Proofs/P.lean",
            "cd sub && lake build 2>&1 | tail -50",
            "timeout 600 lake env lean P.lean",
            "LEAN_PATH=x ~/.elan/bin/lean P.lean",
            "env -i PATH=/usr/bin lake build Proofs",
            "(lake build)",
        ] {
            assert!(runs_lean(run), "{run}");
        }
        for not in [
            "cat build.log",
            "grep -n error lean.log",
            "git diff Proofs/lean.lean",
            "echo lake build",
            "mf verify P.lean",
            "",
        ] {
            assert!(!runs_lean(not), "{not}");
        }
    }
}
