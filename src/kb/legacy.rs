//! Knowledge bases an earlier math-forge kept in the Claude Code plugin's data folder.
//!
//! Hooks and `mf mcp` used to open `$CLAUDE_PLUGIN_DATA/knowledge.db` while the shell used the
//! user-level one, so a user could have two. The rule is now one ([`super::resolve_knowledge_db`]);
//! a knowledge base left in the old folder is adopted when the one the rule chooses does not
//! exist yet (copied there whole, the old file left in place and marked), and otherwise named
//! to the user, never silently ignored and never overwritten.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::error::AtPath;
use super::{Kb, KbError, Result};

/// Written beside an adopted knowledge base: the path it was copied to. Its presence keeps
/// the old file from being offered again.
pub const ADOPTED_MARKER: &str = "knowledge.db.adopted";

/// What [`adopt_legacy`] did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Legacy {
    /// The old knowledge base copied to the current path (the current one did not exist).
    pub adopted: Option<PathBuf>,
    /// Old knowledge bases left as they are: the current one already exists.
    pub named: Vec<PathBuf>,
}

impl Legacy {
    /// One line for the user, or `None` when there was nothing to say.
    pub fn message(&self, current: &Path, why: &str) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(from) = &self.adopted {
            parts.push(format!(
                "math-forge copied the knowledge base an earlier version kept at {} to {} ({why}), the one the shell, the hooks and the MCP tools now share; the old file is no longer used",
                from.display(),
                current.display()
            ));
        }
        if !self.named.is_empty() {
            let list: Vec<String> = self.named.iter().map(|p| p.display().to_string()).collect();
            parts.push(format!(
                "math-forge: an earlier version's knowledge base at {} is no longer used; the one in use is {} ({why}). To search it instead, set MATH_FORGE_DB to it; to have its facts here, re-run `mf extract` on your result files; this note stops once it is moved or deleted",
                list.join(", "),
                current.display()
            ));
        }
        (!parts.is_empty()).then(|| parts.join(". "))
    }
}

/// Old knowledge bases not yet adopted (without [`ADOPTED_MARKER`] beside them).
pub fn pending(candidates: Vec<PathBuf>) -> Vec<PathBuf> {
    candidates
        .into_iter()
        .filter(|p| !marker(p).exists())
        .collect()
}

/// Adopts or names the old knowledge bases `candidates` (from
/// [`super::legacy_knowledge_dbs`]) for `current`, the path the rule resolved. When `current`
/// does not exist, the most recently changed candidate that is a knowledge base is copied to it
/// (`VACUUM INTO` a temporary file in its directory, migrated, then linked into place without
/// replacing anything) and marked; the others are named.
pub fn adopt_legacy(current: &Path, candidates: Vec<PathBuf>) -> Result<Legacy> {
    let mut pending = pending(candidates);
    if pending.is_empty() {
        return Ok(Legacy::default());
    }
    if current.exists() {
        return Ok(Legacy {
            adopted: None,
            named: pending,
        });
    }
    // Newest first: the one a session wrote last.
    pending
        .sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).and_then(|m| m.modified()).ok()));
    let from = pending.remove(0);
    copy_into_place(&from, current)?;
    // Best effort: without the marker the old file is named again next time, nothing worse.
    let _ = std::fs::write(marker(&from), format!("{}\n", current.display()));
    Ok(Legacy {
        adopted: Some(from),
        named: pending,
    })
}

fn marker(db: &Path) -> PathBuf {
    db.with_file_name(ADOPTED_MARKER)
}

/// A consistent copy of `from` at `to`, which must not exist (never replaced).
fn copy_into_place(from: &Path, to: &Path) -> Result<()> {
    let dir = to
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|source| KbError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let tmp = tempfile::Builder::new()
        .prefix(".knowledge.db.adopt")
        .tempdir_in(dir)
        .map_err(|source| KbError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    let staged = tmp.path().join("knowledge.db");
    {
        let src = Connection::open_with_flags(
            from,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .at(from)?;
        src.busy_timeout(super::busy_timeout()).at(from)?;
        src.execute("VACUUM INTO ?1", [staged.to_string_lossy().as_ref()])
            .at(from)?;
    }
    // A knowledge base, migrated to this version, before it takes the name.
    drop(Kb::open_existing(&staged)?);
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", staged.display()));
    }
    std::fs::hard_link(&staged, to).map_err(|source| KbError::Io {
        path: to.to_path_buf(),
        source,
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kb_with_finding(path: &Path) {
        let mut kb = Kb::open(path).unwrap();
        kb.record_failure(&crate::kb::FailureInput {
            problem: "erdos_1".into(),
            approach: "pigeonhole".into(),
            why: "bound too weak".into(),
            avoid: None,
            description: None,
            category: None,
            domain: None,
            slot: None,
            uuid: None,
            new_problem: true,
        })
        .unwrap();
    }

    #[test]
    fn an_old_kb_is_copied_when_the_current_one_is_missing_and_named_otherwise() {
        let tmp = tempfile::tempdir().unwrap();
        let old = tmp.path().join("plugin-data/knowledge.db");
        kb_with_finding(&old);
        let current = tmp.path().join("xdg/math-forge/knowledge.db");
        let done = adopt_legacy(&current, vec![old.clone()]).unwrap();
        assert_eq!(done.adopted.as_deref(), Some(old.as_path()));
        let kb = Kb::open_existing(&current).unwrap();
        assert_eq!(kb.stats().unwrap().facts, 1, "the facts came along");
        assert!(old.is_file(), "the old file is kept");
        assert!(done
            .message(&current, "why")
            .unwrap()
            .contains("copied the knowledge base"));
        // Adopted once: not offered again.
        assert_eq!(
            adopt_legacy(&current, vec![old.clone()]).unwrap(),
            Legacy::default()
        );
        // Another old one while the current exists: named, untouched.
        let other = tmp.path().join("other/knowledge.db");
        kb_with_finding(&other);
        let done = adopt_legacy(&current, vec![other.clone()]).unwrap();
        assert_eq!(done.named, vec![other.clone()]);
        let msg = done.message(&current, "why").unwrap();
        assert!(msg.contains(&other.display().to_string()), "{msg}");
        assert!(msg.contains("MATH_FORGE_DB"), "{msg}");
    }

    #[test]
    fn a_file_that_is_not_a_kb_is_not_adopted() {
        let tmp = tempfile::tempdir().unwrap();
        let old = tmp.path().join("knowledge.db");
        std::fs::write(&old, b"not sqlite at all").unwrap();
        let current = tmp.path().join("new/knowledge.db");
        assert!(adopt_legacy(&current, vec![old]).is_err());
        assert!(!current.exists(), "nothing left behind");
    }
}
