//! The file as it was before the tool ran.
//!
//! PostToolUse fires after the file is written, so the hook rebuilds the earlier version:
//!
//! 1. `tool_response.originalFile`, when Claude Code sends it: exact.
//! 2. Edit and MultiEdit: the file on disk with each `new_string` put back to its
//!    `old_string`, the edits undone last to first (`replace_all` undoes every occurrence).
//!    When a `new_string` occurs more than once, each way of undoing it is a candidate and
//!    the hook only acts on what all candidates agree on.
//! 3. Write: the file at git HEAD (`git show HEAD:./name` in the file's directory, with a
//!    short timeout).
//! 4. Write with neither: no earlier version, compared with an empty file (so only new axioms
//!    can block, and a file full of `sorry` cannot).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::payload::{EditOp, Payload};

/// Most candidate texts an ambiguous undo may produce before the hook gives up on it.
pub const MAX_CANDIDATES: usize = 8;

/// Where the earlier version came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `tool_response.originalFile`.
    ToolResponse,
    /// The edits undone on the file's current text.
    UndoneEdits,
    /// The file's version at git HEAD.
    GitHead,
    /// No earlier version is known (a new file, or not in git): compared with an empty file.
    Nothing,
}

/// The earlier version of a file, or why it cannot be known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Baseline {
    /// One or more texts the file may have been (more than one only for an ambiguous undo).
    Known { texts: Vec<String>, origin: Origin },
    /// The edit cannot be undone on the current text (it no longer contains `new_string`, or
    /// too many ways to undo it): nothing can be compared.
    Unknown { reason: String },
}

impl Baseline {
    fn exact(text: String, origin: Origin) -> Baseline {
        Baseline::Known {
            texts: vec![strip_bom(text)],
            origin,
        }
    }
}

/// Rebuilds the version of `path` before the tool of `payload` ran; `current` is the file's
/// text now. `git_timeout` bounds the `git show` of a Write.
pub fn rebuild(payload: &Payload, path: &Path, current: &str, git_timeout: Duration) -> Baseline {
    if let Some(original) = &payload.tool_response.original_file {
        return Baseline::exact(original.clone(), Origin::ToolResponse);
    }
    let input = &payload.tool_input;
    match payload.tool_name.as_deref() {
        Some("Edit") => match &input.edit {
            Some(edit) => undo_edits(current, std::slice::from_ref(edit)),
            None => Baseline::Unknown {
                reason: "the Edit payload has no old_string/new_string".into(),
            },
        },
        Some("MultiEdit") if !input.edits.is_empty() => undo_edits(current, &input.edits),
        Some("MultiEdit") => Baseline::Unknown {
            reason: "the MultiEdit payload has no edits".into(),
        },
        _ => match git_head(path, git_timeout) {
            Some(text) => Baseline::exact(text, Origin::GitHead),
            None => Baseline::Known {
                texts: vec![String::new()],
                origin: Origin::Nothing,
            },
        },
    }
}

/// Undoes `edits` (applied in order to produce `current`) from last to first.
pub fn undo_edits(current: &str, edits: &[EditOp]) -> Baseline {
    let mut texts = vec![current.to_string()];
    for (i, edit) in edits.iter().enumerate().rev() {
        let mut previous = Vec::new();
        for text in &texts {
            match undo_one(text, edit) {
                Ok(candidates) => previous.extend(candidates),
                Err(why) => {
                    let which = if edits.len() > 1 {
                        format!("edit {} of {}: ", i + 1, edits.len())
                    } else {
                        String::new()
                    };
                    return Baseline::Unknown {
                        reason: format!("{which}{why}"),
                    };
                }
            }
            if previous.len() > MAX_CANDIDATES {
                return Baseline::Unknown {
                    reason: format!(
                        "more than {MAX_CANDIDATES} ways to undo the edit (its new_string occurs many times)"
                    ),
                };
            }
        }
        previous.sort_unstable();
        previous.dedup();
        texts = previous;
    }
    Baseline::Known {
        texts,
        origin: Origin::UndoneEdits,
    }
}

/// The texts `text` may have been before `edit`.
fn undo_one(text: &str, edit: &EditOp) -> Result<Vec<String>, String> {
    if edit.new_string.is_empty() {
        return Err("the edit deleted text, and where it stood cannot be told".into());
    }
    let (old, new) = match find_all(text, &edit.new_string) {
        found if !found.is_empty() => (edit.old_string.clone(), edit.new_string.clone()),
        // Claude Code edits CRLF files with LF strings and writes CRLF back.
        _ if text.contains("\r\n") && !edit.new_string.contains('\r') => (
            edit.old_string.replace('\n', "\r\n"),
            edit.new_string.replace('\n', "\r\n"),
        ),
        _ => return Err("the file no longer contains the edit's new_string".into()),
    };
    let at = find_all(text, &new);
    if at.is_empty() {
        return Err("the file no longer contains the edit's new_string".into());
    }
    let revert = |positions: &[usize]| -> String {
        let mut out = String::with_capacity(text.len() + positions.len() * old.len());
        let mut last = 0;
        for &p in positions {
            out.push_str(&text[last..p]);
            out.push_str(&old);
            last = p + new.len();
        }
        out.push_str(&text[last..]);
        out
    };
    let mut candidates = Vec::new();
    if edit.replace_all {
        candidates.push(revert(&at));
    }
    if !edit.replace_all || at.len() > 1 {
        // Any one occurrence may be the replaced one (the others were there before); with
        // replace_all, so may any one of several.
        if at.len() > MAX_CANDIDATES {
            return Err(format!(
                "its new_string occurs {} times, too many to tell which one the edit wrote",
                at.len()
            ));
        }
        let singles: Vec<String> = at.iter().map(|&p| revert(&[p])).collect();
        // Without replace_all, Claude Code only applies an edit whose old_string occurs once
        // in the file: a candidate with it twice is not what the file was.
        let unique: Vec<String> = singles
            .iter()
            .filter(|c| edit.replace_all || c.matches(old.as_str()).nth(1).is_none())
            .cloned()
            .collect();
        candidates.extend(if unique.is_empty() { singles } else { unique });
    }
    Ok(candidates)
}

/// Start offsets of the non-overlapping occurrences of `needle`, left to right.
fn find_all(text: &str, needle: &str) -> Vec<usize> {
    text.match_indices(needle).map(|(i, _)| i).collect()
}

fn strip_bom(mut text: String) -> String {
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    text
}

/// The committed text of `path` at git HEAD, or `None` (no git, not a repository, not
/// committed, not UTF-8, or slower than `timeout`).
pub fn git_head(path: &Path, timeout: Duration) -> Option<String> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty())?;
    let spec = format!("HEAD:./{}", path.file_name()?.to_str()?);
    let bytes = git(dir, &["show", &spec], timeout)?;
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok().map(strip_bom)
}

/// Largest output read from one git command.
const MAX_GIT_OUTPUT: u64 = 8 * 1024 * 1024;

/// Runs git in `dir`; its stdout when it exits 0 within `timeout`.
///
/// Every command the hooks run needs a repository; where `dir` is in none, git is not
/// started (a Write of a new file outside git paid a process start-up, and up to one poll
/// interval more, for git to say so).
pub(crate) fn git(dir: &Path, args: &[&str], timeout: Duration) -> Option<Vec<u8>> {
    if !may_be_in_repository(dir) {
        return None;
    }
    let mut child = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let stdout = child.stdout.take()?;
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let read = stdout
            .take(MAX_GIT_OUTPUT)
            .read_to_end(&mut bytes)
            .map(|_| bytes);
        let _ = tx.send(read);
    });
    let deadline = Instant::now() + timeout;
    // git closes its stdout when it exits: waiting for the end of its output wakes up as soon
    // as it is done, where polling its status slept a whole interval past it.
    let Ok(Ok(bytes)) = rx.recv_timeout(timeout) else {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    };
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_micros(200)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    };
    status.success().then_some(bytes)
}

/// Whether git could find a repository from `dir`: `$GIT_DIR` is set, or `dir` (its real
/// path, as git sees it after `-C`) or a directory above it holds a `.git` (a directory, or
/// the file of a worktree or submodule). Unsure (a path that cannot be resolved) is yes.
fn may_be_in_repository(dir: &Path) -> bool {
    if std::env::var_os("GIT_DIR").is_some() {
        return true;
    }
    let Ok(real) = dir.canonicalize() else {
        return true;
    };
    real.ancestors()
        .any(|d| std::fs::symlink_metadata(d.join(".git")).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(old: &str, new: &str, all: bool) -> EditOp {
        EditOp {
            old_string: old.into(),
            new_string: new.into(),
            replace_all: all,
        }
    }

    fn texts(b: Baseline) -> Vec<String> {
        match b {
            Baseline::Known { texts, .. } => texts,
            Baseline::Unknown { reason } => panic!("unknown: {reason}"),
        }
    }

    #[test]
    fn single_occurrence_is_exact() {
        let b = undo_edits("a := by\n  sorry\n", &[op("simp", "sorry", false)]);
        assert_eq!(texts(b), ["a := by\n  simp\n"]);
    }

    #[test]
    fn several_occurrences_are_candidates() {
        let b = undo_edits("sorry sorry", &[op("rfl", "sorry", false)]);
        assert_eq!(texts(b), ["rfl sorry", "sorry rfl"]);
    }

    #[test]
    fn replace_all_undoes_all_and_each() {
        assert_eq!(texts(undo_edits("x y", &[op("a", "x", true)])), ["a y"]);
        let b = texts(undo_edits("x x", &[op("a", "x", true)]));
        assert_eq!(b, ["a a", "a x", "x a"]);
    }

    #[test]
    fn multi_edit_undone_in_reverse() {
        // "one two" --(one→1)--> "1 two" --(1 two→1 2)--> "1 2"
        let edits = [op("one", "1", false), op("1 two", "1 2", false)];
        assert_eq!(texts(undo_edits("1 2", &edits)), ["one two"]);
    }

    #[test]
    fn crlf_files_take_lf_strings() {
        let b = undo_edits("a\r\n  sorry\r\n", &[op("x\n  simp", "a\n  sorry", false)]);
        assert_eq!(texts(b), ["x\r\n  simp\r\n"]);
    }

    #[test]
    fn a_repository_is_looked_for_above_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let deep = dir.path().join("a").join("b");
        std::fs::create_dir_all(&deep).unwrap();
        let above = dir.path().canonicalize().unwrap();
        let outside_any = std::env::var_os("GIT_DIR").is_none()
            && !above.ancestors().any(|d| d.join(".git").exists());
        if outside_any {
            assert!(!may_be_in_repository(&deep));
        }
        // A worktree's or submodule's `.git` is a file.
        std::fs::write(dir.path().join("a").join(".git"), "gitdir: elsewhere\n").unwrap();
        assert!(may_be_in_repository(&deep));
        assert!(!outside_any || !may_be_in_repository(dir.path()));
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        assert!(may_be_in_repository(dir.path()));
        // A path that cannot be resolved is left to git.
        assert!(may_be_in_repository(&dir.path().join("missing")));
    }

    #[test]
    fn missing_or_deleted_text_is_unknown() {
        assert!(matches!(
            undo_edits("abc", &[op("x", "zzz", false)]),
            Baseline::Unknown { .. }
        ));
        assert!(matches!(
            undo_edits("abc", &[op("x", "", false)]),
            Baseline::Unknown { .. }
        ));
        let many = "s ".repeat(MAX_CANDIDATES + 1);
        assert!(matches!(
            undo_edits(&many, &[op("t", "s", false)]),
            Baseline::Unknown { .. }
        ));
    }
}
