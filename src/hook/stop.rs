//! Stop: the session may not end its turn with a gutted proof or a new axiom in the tree.
//!
//! PreToolUse and PostToolUse see the Write/Edit tools only; `mf splice --allow-sorry`, a
//! shell `sed` or a script can change a `.lean` file too. At the end of each turn this hook
//! compares every changed `.lean` file with where the session started:
//!
//! - in a git work tree: the file at `HEAD` (untracked files count as new, so only an axiom in
//!   them blocks, not a sketch with `sorry`), except for files already changed when the session
//!   started, whose text then SessionStart kept ([`take_snapshot`]): what was there before the
//!   session is not the session's doing;
//! - elsewhere: the snapshot of every `.lean` file SessionStart took under the plugin's data
//!   directory.
//!
//! and blocks (`{"decision":"block","reason":…}`) with the [`gate`]'s reason when a proof was
//! gutted or an axiom added. It keeps blocking while that stays so, counting the consecutive
//! blocks of the turn (`stop_hook_active` says Claude Code is continuing because of a Stop
//! hook), up to Claude Code's own limit (`$CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`, default 8, past
//! which Claude Code ends the turn itself); at the limit it lets the turn end and says so in a
//! `systemMessage`, so the user learns the proof is still gutted. Shapes:
//! <https://code.claude.com/docs/en/hooks> (Stop input `stop_hook_active`; decision control
//! `decision: "block"`, `reason`; `systemMessage`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use std::time::{Duration, Instant};

use serde_json::Value;

use super::baseline::git;
use super::files::{self, MAX_FILE_BYTES};
use super::{gate, Outcome, Output};

/// Most changed `.lean` files compared in one Stop (the rest are named in a note).
pub const MAX_FILES: usize = 400;
/// Most `.lean` files and bytes a snapshot keeps.
pub const MAX_SNAPSHOT_FILES: usize = 5000;
pub const MAX_SNAPSHOT_BYTES: u64 = 64 * 1024 * 1024;
/// Most directory entries and time one snapshot walk may take.
const MAX_WALKED_ENTRIES: usize = 200_000;
const WALK_TIME: Duration = Duration::from_secs(3);
/// Snapshots older than this are removed when a new one is taken.
const SNAPSHOT_MAX_AGE: Duration = Duration::from_secs(14 * 24 * 3600);
/// Most directory entries looked at when pruning.
const MAX_PRUNED_ENTRIES: usize = 10_000;

/// Claude Code's limit of consecutive blocks of one turn by Stop hooks, when
/// `$CLAUDE_CODE_STOP_HOOK_BLOCK_CAP` does not set another.
pub const DEFAULT_BLOCK_CAP: u32 = 8;

/// How the hook runs.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Where SessionStart's snapshots and the turn's block count are (`$CLAUDE_PLUGIN_DATA` or
    /// the user data dir).
    pub data_dir: Option<PathBuf>,
    /// Limit for each git command.
    pub git_timeout: Duration,
    /// Most consecutive blocks of one turn; the next stop ends it with a `systemMessage`.
    pub block_cap: u32,
}

impl Settings {
    /// With the block cap Claude Code uses (`$CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`).
    pub fn new(data_dir: Option<PathBuf>) -> Settings {
        Settings {
            data_dir,
            git_timeout: Duration::from_millis(2000),
            block_cap: block_cap(std::env::var("CLAUDE_CODE_STOP_HOOK_BLOCK_CAP").ok()),
        }
    }
}

/// Claude Code's cap from its variable: a positive number, else [`DEFAULT_BLOCK_CAP`] (0
/// turns Claude Code's cap off; this hook still stops at its default, so it never loops).
pub fn block_cap(var: Option<String>) -> u32 {
    var.and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_BLOCK_CAP)
}

/// Runs the hook on a Stop payload.
pub fn run(input: &[u8], settings: &Settings) -> Outcome {
    let value: Value = match serde_json::from_slice(input) {
        Ok(v @ Value::Object(_)) => v,
        _ => return Outcome::note("hook input is not a JSON object; nothing checked".into()),
    };
    let continuing = value.get("stop_hook_active").and_then(Value::as_bool) == Some(true);
    let cwd = match value.get("cwd").and_then(Value::as_str) {
        Some(c) => PathBuf::from(c),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    let session = value.get("session_id").and_then(Value::as_str);
    let mut notes = Vec::new();
    let changes = match git_changes(&cwd, settings.git_timeout) {
        Some(Ok(c)) => at_session_start(c, settings, session),
        Some(Err(why)) => return Outcome::note(format!("{why}; nothing checked")),
        None => match snapshot_changes(settings, session) {
            Ok(c) => c,
            Err(why) => return Outcome::note(format!("{why}; nothing checked")),
        },
    };
    let mut blocks = Vec::new();
    let total = changes.len();
    for (path, before) in changes.into_iter().take(MAX_FILES) {
        let after = match files::read_text(&path, MAX_FILE_BYTES) {
            Ok(Some(t)) => t,
            Ok(None) => continue, // deleted
            Err(why) => {
                notes.push(format!("{why}; not checked"));
                continue;
            }
        };
        if before.as_deref() == Some(after.as_str()) {
            continue;
        }
        let shown = path
            .strip_prefix(&cwd)
            .unwrap_or(&path)
            .display()
            .to_string();
        let d = gate::check(&shown, before.as_deref(), &after);
        blocks.extend(d.blocks.into_iter().map(|b| (shown.clone(), b)));
    }
    if total > MAX_FILES {
        notes.push(format!(
            "{total} changed .lean files; only the first {MAX_FILES} were checked"
        ));
    }
    let counter = settings
        .data_dir
        .as_deref()
        .zip(session)
        .and_then(|(dir, s)| counter_path(dir, s));
    if blocks.is_empty() {
        if let Some(path) = &counter {
            let _ = std::fs::remove_file(path);
        }
        return Outcome {
            output: Output::Nothing,
            notes,
        };
    }
    // This hook's consecutive blocks so far in this turn (none recorded: another hook's block
    // continued the turn). Without a place to count, a continuing stop counts as the last
    // one: the turn ends, announced, rather than loop uncounted.
    let blocked = match (&counter, continuing) {
        (_, false) => 0,
        (Some(path), true) => read_count(path).unwrap_or(0),
        (None, true) => settings.block_cap,
    };
    if blocked < settings.block_cap {
        if let Some(path) = &counter {
            if let Err(e) = write_count(path, blocked + 1) {
                notes.push(format!("{}: {e}; blocks not counted", path.display()));
            }
        }
        return Outcome {
            output: Output::Block {
                reason: gate::reason("Stopping", &blocks),
            },
            notes,
        };
    }
    if let Some(path) = &counter {
        let _ = std::fs::remove_file(path);
    }
    Outcome {
        output: Output::SystemMessage {
            text: format!(
                "math-forge: this turn ended with a proof still gutted or an axiom added, after {blocked} blocked stops (Claude Code allows no more): {}. Restore the proofs before relying on this work (`git diff`, `mf diff OLD NEW`, `mf sorries FILE`).",
                gate::findings(&blocks)
                    .iter()
                    .map(|f| f.trim_end_matches('.'))
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
        },
        notes,
    }
}

/// The text `path` had where the session started, as this hook compares with: SessionStart's
/// snapshot when it kept the file, else `HEAD` in a git work tree (`Some(None)`: untracked,
/// new in the session's work), else `Some(None)` for a file outside the snapshot of a project
/// without git. `None` when that cannot be known.
pub fn text_at_session_start(
    path: &Path,
    data_dir: Option<&Path>,
    session: Option<&str>,
    timeout: Duration,
) -> Option<Option<String>> {
    let snap = data_dir
        .zip(session)
        .and_then(|(dir, s)| load_snapshot(dir, s).ok().flatten());
    if let Some(snap) = &snap {
        let rel = path.strip_prefix(&snap.root).ok()?;
        if let Some(text) = snap.files.get(&*rel.to_string_lossy()) {
            return Some(Some(text.clone()));
        }
        if !snap.git {
            return Some(None);
        }
    }
    if let Some(text) = super::baseline::git_head(path, timeout) {
        return Some(Some(text));
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty())?;
    let name = path.file_name()?.to_str()?;
    let untracked = git(
        dir,
        &[
            "ls-files",
            "-z",
            "--others",
            "--exclude-standard",
            "--",
            name,
        ],
        timeout,
    )?;
    split_z(&untracked)
        .iter()
        .any(|n| n == name)
        .then_some(None)
}

/// Where the turn's consecutive block count is kept.
fn counter_path(data_dir: &Path, session: &str) -> Option<PathBuf> {
    snapshot_path(data_dir, session).map(|p| p.with_extension("stops"))
}

fn read_count(path: &Path) -> Option<u32> {
    let bytes = files::read_bytes(path, 64).ok()??;
    String::from_utf8(bytes).ok()?.trim().parse().ok()
}

fn write_count(path: &Path, n: u32) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, format!("{n}\n"))
}

/// A changed file and its text at the start (`None`: it did not exist).
type Change = (PathBuf, Option<String>);

/// Git changes with the baseline of each file that was already changed at SessionStart
/// replaced by its text then.
fn at_session_start(
    mut changes: Vec<Change>,
    settings: &Settings,
    session: Option<&str>,
) -> Vec<Change> {
    let Some(snap) = settings
        .data_dir
        .as_deref()
        .zip(session)
        .and_then(|(dir, s)| load_snapshot(dir, s).ok().flatten())
    else {
        return changes;
    };
    for (path, before) in &mut changes {
        let rel = path
            .strip_prefix(&snap.root)
            .ok()
            .map(|r| r.to_string_lossy().into_owned());
        if let Some(text) = rel.and_then(|r| snap.files.get(&r)) {
            *before = Some(text.clone());
        }
    }
    changes
}

/// The session's snapshot, `Ok(None)` when there is none.
fn load_snapshot(data_dir: &Path, session: &str) -> Result<Option<Snapshot>, String> {
    let path = snapshot_path(data_dir, session).ok_or("the payload's session_id is unusable")?;
    let Some(bytes) = files::read_bytes(&path, MAX_SNAPSHOT_BYTES * 2)? else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| format!("{}: not a snapshot ({e})", path.display()))
}

/// The `.lean` files that differ from `HEAD` (or are untracked), with their `HEAD` text.
/// `None` when `cwd` is not in a git work tree (or git is missing).
fn git_changes(cwd: &Path, timeout: Duration) -> Option<Result<Vec<Change>, String>> {
    let top = git_top(cwd, timeout)?;
    let has_head = git(&top, &["rev-parse", "--verify", "-q", "HEAD"], timeout).is_some();
    let mut names: Vec<String> = Vec::new();
    if has_head {
        let Some(diff) = git(
            &top,
            &[
                "diff",
                "--name-only",
                "-z",
                "--no-renames",
                "HEAD",
                "--",
                "*.lean",
            ],
            timeout,
        ) else {
            return Some(Err("git diff HEAD failed or timed out".into()));
        };
        names.extend(split_z(&diff));
    }
    let Some(untracked) = git(
        &top,
        &[
            "ls-files",
            "-z",
            "--others",
            "--exclude-standard",
            "--",
            "*.lean",
        ],
        timeout,
    ) else {
        return Some(Err("git ls-files failed or timed out".into()));
    };
    let untracked: Vec<String> = split_z(&untracked);
    names.extend(untracked.iter().cloned());
    names.sort();
    names.dedup();
    let mut out = Vec::new();
    for name in names {
        let before = if !has_head || untracked.contains(&name) {
            None
        } else {
            // Not at HEAD (added to the index only) reads as new.
            git(&top, &["show", &format!("HEAD:{name}")], timeout)
                .and_then(|b| String::from_utf8(b).ok())
                .map(|t| t.strip_prefix('\u{feff}').map(str::to_string).unwrap_or(t))
        };
        out.push((top.join(&name), before));
    }
    Some(Ok(out))
}

fn split_z(bytes: &[u8]) -> Vec<String> {
    bytes
        .split(|&b| b == 0)
        .filter(|s| !s.is_empty())
        .map(|s| String::from_utf8_lossy(s).into_owned())
        .collect()
}

/// What SessionStart recorded: the project root and each `.lean` file's text.
#[derive(serde::Serialize, serde::Deserialize)]
struct Snapshot {
    root: PathBuf,
    /// Taken in a git work tree: only the files changed against `HEAD` then.
    #[serde(default)]
    git: bool,
    files: BTreeMap<String, String>,
}

fn snapshot_path(data_dir: &Path, session: &str) -> Option<PathBuf> {
    let safe: String = session
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        .take(128)
        .collect();
    (!safe.is_empty()).then(|| data_dir.join("snapshots").join(format!("{safe}.json")))
}

/// Files that differ from the session's snapshot (new ones included).
fn snapshot_changes(settings: &Settings, session: Option<&str>) -> Result<Vec<Change>, String> {
    let (Some(dir), Some(session)) = (&settings.data_dir, session) else {
        return Err("not a git work tree, and no session snapshot to compare with".into());
    };
    let snap = match load_snapshot(dir, session)? {
        Some(s) if !s.git => s,
        Some(_) => {
            return Err("the session started in a git work tree, and is no longer in one".into())
        }
        None => {
            return Err(format!(
                "not a git work tree, and no snapshot for session {session} under {}",
                dir.display()
            ))
        }
    };
    let now = lean_files(&snap.root).map_err(|why| format!("{why} (snapshot root)"))?;
    let mut out = Vec::new();
    for rel in now {
        let before = snap.files.get(&rel).cloned();
        out.push((snap.root.join(&rel), before));
    }
    Ok(out)
}

/// Relative paths of the `.lean` files under `root` (hidden directories such as `.lake` and
/// ignored files skipped), at most [`MAX_SNAPSHOT_FILES`].
fn lean_files(root: &Path) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .git_ignore(true)
        .require_git(false)
        .build();
    // A session started in a home directory must not walk it all before the hook's timeout.
    let deadline = Instant::now() + WALK_TIME;
    for (seen, entry) in walker.flatten().enumerate() {
        if seen >= MAX_WALKED_ENTRIES || Instant::now() > deadline {
            return Err(format!(
                "{} holds too much to snapshot (over {MAX_WALKED_ENTRIES} entries or {} s)",
                root.display(),
                WALK_TIME.as_secs()
            ));
        }
        if entry.file_type().is_some_and(|t| t.is_file())
            && entry.path().extension().is_some_and(|e| e == "lean")
        {
            if let Ok(rel) = entry.path().strip_prefix(root) {
                out.push(rel.to_string_lossy().into_owned());
            }
            if out.len() >= MAX_SNAPSHOT_FILES {
                return Err(format!(
                    "more than {MAX_SNAPSHOT_FILES} .lean files under {}",
                    root.display()
                ));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// SessionStart: records where the session starts, once (a resumed or compacted session keeps
/// its first snapshot). In a git work tree, the `.lean` files already changed against `HEAD`;
/// elsewhere, every `.lean` file under `root`. An error says why there is none.
pub fn take_snapshot(root: &Path, data_dir: &Path, session: &str) -> Result<(), String> {
    let path = snapshot_path(data_dir, session).ok_or("the payload's session_id is unusable")?;
    if path.exists() {
        return Ok(());
    }
    let timeout = Duration::from_millis(2000);
    let (root, git, paths): (PathBuf, bool, Vec<PathBuf>) = match git_changes(root, timeout) {
        Some(Ok(changes)) => {
            let top = git_top(root, timeout).unwrap_or_else(|| root.to_path_buf());
            (top, true, changes.into_iter().map(|(p, _)| p).collect())
        }
        Some(Err(why)) => return Err(format!("{why}; no snapshot")),
        None => {
            let rels = lean_files(root)?;
            (
                root.to_path_buf(),
                false,
                rels.iter().map(|r| root.join(r)).collect(),
            )
        }
    };
    let mut files_map = BTreeMap::new();
    let mut total = 0u64;
    for full in paths {
        let Ok(rel) = full.strip_prefix(&root) else {
            continue;
        };
        match files::read_text(&full, MAX_FILE_BYTES) {
            Ok(Some(text)) => {
                total += text.len() as u64;
                if total > MAX_SNAPSHOT_BYTES {
                    return Err(format!(
                        "the .lean files under {} exceed {MAX_SNAPSHOT_BYTES} bytes; no snapshot",
                        root.display()
                    ));
                }
                files_map.insert(rel.to_string_lossy().into_owned(), text);
            }
            Ok(None) => {}
            Err(why) => return Err(format!("{why}; no snapshot")),
        }
    }
    let snap = Snapshot {
        root,
        git,
        files: files_map,
    };
    let dir = path.parent().expect("snapshot path has a directory");
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut temp =
        tempfile::NamedTempFile::new_in(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    serde_json::to_writer(&mut temp, &snap).map_err(|e| e.to_string())?;
    temp.persist(&path)
        .map_err(|e| format!("{}: {}", path.display(), e.error))?;
    prune(dir);
    Ok(())
}

/// Removes the snapshots and block counts of sessions older than [`SNAPSHOT_MAX_AGE`] (best
/// effort: the data directory must not grow with every session).
fn prune(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let now = std::time::SystemTime::now();
    for entry in entries.flatten().take(MAX_PRUNED_ENTRIES) {
        let path = entry.path();
        let old = entry
            .metadata()
            .ok()
            .filter(|m| m.is_file())
            .and_then(|m| m.modified().ok())
            .and_then(|t| now.duration_since(t).ok())
            .is_some_and(|age| age > SNAPSHOT_MAX_AGE);
        // Snapshots, and block counts a session killed mid-turn left behind.
        if old
            && path
                .extension()
                .is_some_and(|e| e == "json" || e == "stops")
        {
            let _ = std::fs::remove_file(path);
        }
    }
}

fn git_top(dir: &Path, timeout: Duration) -> Option<PathBuf> {
    let top = git(dir, &["rev-parse", "--show-toplevel"], timeout)?;
    Some(PathBuf::from(
        String::from_utf8_lossy(&top).trim_end_matches('\n'),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_snapshots_are_pruned_and_others_kept() {
        let dir = tempfile::tempdir().unwrap();
        let old = dir.path().join("old.json");
        let old_count = dir.path().join("old.stops");
        let fresh = dir.path().join("fresh.json");
        let other = dir.path().join("notes.txt");
        for p in [&old, &old_count, &fresh, &other] {
            std::fs::write(p, "{}").unwrap();
        }
        let long_ago = std::time::SystemTime::now() - SNAPSHOT_MAX_AGE - Duration::from_secs(60);
        for p in [&old, &old_count, &other] {
            std::fs::File::options()
                .write(true)
                .open(p)
                .unwrap()
                .set_modified(long_ago)
                .unwrap();
        }
        prune(dir.path());
        assert!(!old.exists());
        assert!(!old_count.exists());
        assert!(fresh.exists());
        assert!(other.exists(), "only snapshots are removed");
    }

    #[test]
    fn the_block_cap_is_claude_codes() {
        assert_eq!(block_cap(None), DEFAULT_BLOCK_CAP);
        assert_eq!(block_cap(Some("3".into())), 3);
        assert_eq!(block_cap(Some(" 12 ".into())), 12);
        // 0 turns Claude Code's cap off; this hook still stops, at the default.
        assert_eq!(block_cap(Some("0".into())), DEFAULT_BLOCK_CAP);
        assert_eq!(block_cap(Some("many".into())), DEFAULT_BLOCK_CAP);
    }

    #[test]
    fn session_ids_cannot_escape_the_snapshot_directory() {
        let p = snapshot_path(Path::new("/data"), "../../etc/passwd").unwrap();
        assert_eq!(p, Path::new("/data/snapshots/etcpasswd.json"));
        assert!(snapshot_path(Path::new("/data"), "../").is_none());
    }
}
