//! Where knowledge.db and tracking.db live, and why.
//!
//! Both `mk` and `mf` resolve paths through these functions so that every tool agrees, and
//! `mk stats` can say which rule picked the file.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// A resolved database path and the rule that produced it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Resolved {
    pub path: PathBuf,
    pub reason: Reason,
}

/// Which rule chose a database path, in priority order.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "rule", content = "detail", rename_all = "snake_case")]
pub enum Reason {
    /// `--db` / `--tracking` on the command line.
    Flag,
    /// An environment variable (its name).
    Env(String),
    /// Derived from an environment variable naming a directory (its name).
    EnvDir(String),
    /// An existing file (or, for knowledge.db, an existing `.math-forge/` directory) found in
    /// this ancestor of the current directory.
    Ancestor(PathBuf),
    /// `~/.local/share/math-forge/knowledge.db`: no project, plugin or XDG location applied.
    UserData,
    /// Nothing else applied: relative to the current directory.
    Default,
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Reason::Flag => write!(f, "from the command-line flag"),
            Reason::Env(var) => write!(f, "from ${var}"),
            Reason::EnvDir(var) => write!(f, "under ${var}"),
            Reason::Ancestor(dir) => {
                write!(
                    f,
                    "found in {}, the nearest directory that has it",
                    dir.display()
                )
            }
            Reason::UserData => write!(
                f,
                "in the user data directory (no .math-forge/ here or above, no $CLAUDE_PLUGIN_DATA)"
            ),
            Reason::Default => write!(f, "default in the current directory"),
        }
    }
}

/// `.math-forge/knowledge.db`, relative to a project directory.
pub const PROJECT_KB: &str = ".math-forge/knowledge.db";
/// The directory that marks a project knowledge base.
pub const PROJECT_KB_DIR: &str = ".math-forge";
/// `submissions/tracking.db`, relative to a project directory.
pub const PROJECT_TRACKING: &str = "submissions/tracking.db";

/// Resolves knowledge.db, the one rule `mf`, `mk`, the hooks and the MCP server share:
/// `--db` > `$MATH_FORGE_DB` > the nearest `.math-forge/knowledge.db` (or `.math-forge/`
/// directory) in the current directory or its ancestors > `$CLAUDE_PLUGIN_DATA/knowledge.db`
/// (kept across plugin updates) > `$XDG_DATA_HOME/math-forge/knowledge.db` >
/// `~/.local/share/math-forge/knowledge.db`. Never anything under `$CLAUDE_PLUGIN_ROOT`,
/// which a plugin update replaces.
pub fn resolve_knowledge_db(cli_flag: Option<&Path>) -> Resolved {
    resolve_knowledge_db_in(cli_flag, &real_env, &current_dir())
}

/// Resolves tracking.db: `--tracking` > `$MATH_FORGE_TRACKING_DB` >
/// `$CLAUDE_PROJECT_DIR/submissions/tracking.db` > `submissions/tracking.db` in the current
/// directory or the nearest ancestor that has one.
pub fn resolve_tracking_db(cli_flag: Option<&Path>) -> Resolved {
    resolve_tracking_db_in(cli_flag, &real_env, &current_dir())
}

/// [`resolve_knowledge_db`] with the environment and current directory passed in (for tests).
pub fn resolve_knowledge_db_in(
    cli_flag: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
    cwd: &Path,
) -> Resolved {
    if let Some(r) = explicit(cli_flag, "MATH_FORGE_DB", env) {
        return r;
    }
    for dir in cwd.ancestors() {
        if dir.join(PROJECT_KB_DIR).is_dir() {
            return Resolved {
                path: dir.join(PROJECT_KB),
                reason: Reason::Ancestor(dir.to_path_buf()),
            };
        }
    }
    if let Some(dir) = non_empty(env("CLAUDE_PLUGIN_DATA")) {
        return Resolved {
            path: PathBuf::from(dir).join("knowledge.db"),
            reason: Reason::EnvDir("CLAUDE_PLUGIN_DATA".into()),
        };
    }
    // XDG says a relative $XDG_DATA_HOME is invalid and must be ignored.
    if let Some(dir) = non_empty(env("XDG_DATA_HOME")).filter(|d| Path::new(d).is_absolute()) {
        return Resolved {
            path: PathBuf::from(dir).join("math-forge/knowledge.db"),
            reason: Reason::EnvDir("XDG_DATA_HOME".into()),
        };
    }
    match non_empty(env("HOME")) {
        Some(home) => Resolved {
            path: PathBuf::from(home).join(".local/share/math-forge/knowledge.db"),
            reason: Reason::UserData,
        },
        // No home at all (a bare container): the project location, where `mk init` makes it.
        None => Resolved {
            path: cwd.join(PROJECT_KB),
            reason: Reason::Default,
        },
    }
}

/// The directory for the plugin's own state (session snapshots): `$CLAUDE_PLUGIN_DATA`, else
/// `$XDG_DATA_HOME/math-forge`, else `~/.local/share/math-forge`.
pub fn data_dir() -> Option<PathBuf> {
    data_dir_in(&real_env)
}

/// [`data_dir`] with the environment passed in.
pub fn data_dir_in(env: &dyn Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    if let Some(d) = non_empty(env("CLAUDE_PLUGIN_DATA")) {
        return Some(d.into());
    }
    if let Some(d) = non_empty(env("XDG_DATA_HOME")).filter(|d| Path::new(d).is_absolute()) {
        return Some(PathBuf::from(d).join("math-forge"));
    }
    non_empty(env("HOME")).map(|h| PathBuf::from(h).join(".local/share/math-forge"))
}

/// [`resolve_tracking_db`] with the environment and current directory passed in (for tests).
pub fn resolve_tracking_db_in(
    cli_flag: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
    cwd: &Path,
) -> Resolved {
    if let Some(r) = explicit(cli_flag, "MATH_FORGE_TRACKING_DB", env) {
        return r;
    }
    if let Some(dir) = non_empty(env("CLAUDE_PROJECT_DIR")) {
        return Resolved {
            path: PathBuf::from(dir).join(PROJECT_TRACKING),
            reason: Reason::EnvDir("CLAUDE_PROJECT_DIR".into()),
        };
    }
    project_relative(cwd, PROJECT_TRACKING)
}

/// The flag, else the variable naming the file.
fn explicit(
    cli_flag: Option<&Path>,
    file_var: &str,
    env: &dyn Fn(&str) -> Option<OsString>,
) -> Option<Resolved> {
    if let Some(p) = cli_flag {
        return Some(Resolved {
            path: p.to_path_buf(),
            reason: Reason::Flag,
        });
    }
    non_empty(env(file_var)).map(|p| Resolved {
        path: p.into(),
        reason: Reason::Env(file_var.into()),
    })
}

/// The nearest existing `rel` in `cwd` or its ancestors, like git finding `.git`; when there is
/// none, `cwd/rel`.
fn project_relative(cwd: &Path, rel: &str) -> Resolved {
    for dir in cwd.ancestors() {
        let candidate = dir.join(rel);
        if candidate.is_file() {
            let reason = if dir == cwd {
                Reason::Default
            } else {
                Reason::Ancestor(dir.to_path_buf())
            };
            return Resolved {
                path: candidate,
                reason,
            };
        }
    }
    Resolved {
        path: cwd.join(rel),
        reason: Reason::Default,
    }
}

/// Unset and empty mean the same: `MATH_FORGE_DB= mk …` falls through to the next rule.
fn non_empty(v: Option<OsString>) -> Option<OsString> {
    v.filter(|s| !s.is_empty())
}

fn real_env(name: &str) -> Option<OsString> {
    std::env::var_os(name)
}

fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
        let map: HashMap<String, OsString> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn knowledge_priority_order() {
        let cwd = Path::new("/nonexistent/project");
        let all = env_of(&[
            ("MATH_FORGE_DB", "/env/k.db"),
            ("CLAUDE_PLUGIN_ROOT", "/plugin"),
            ("CLAUDE_PLUGIN_DATA", "/data/math-forge"),
            ("XDG_DATA_HOME", "/xdg"),
            ("HOME", "/home/u"),
        ]);
        let r = resolve_knowledge_db_in(Some(Path::new("/flag.db")), &all, cwd);
        assert_eq!(
            r,
            Resolved {
                path: "/flag.db".into(),
                reason: Reason::Flag
            }
        );
        let r = resolve_knowledge_db_in(None, &all, cwd);
        assert_eq!(r.path, PathBuf::from("/env/k.db"));
        let plugin = env_of(&[
            ("MATH_FORGE_DB", ""),
            ("CLAUDE_PLUGIN_ROOT", "/plugin"),
            ("CLAUDE_PLUGIN_DATA", "/data/math-forge"),
            ("XDG_DATA_HOME", "/xdg"),
        ]);
        let r = resolve_knowledge_db_in(None, &plugin, cwd);
        assert_eq!(r.path, PathBuf::from("/data/math-forge/knowledge.db"));
        assert_eq!(r.reason, Reason::EnvDir("CLAUDE_PLUGIN_DATA".into()));
        let xdg = env_of(&[("CLAUDE_PLUGIN_ROOT", "/plugin"), ("XDG_DATA_HOME", "/xdg")]);
        let r = resolve_knowledge_db_in(None, &xdg, cwd);
        assert_eq!(r.path, PathBuf::from("/xdg/math-forge/knowledge.db"));
        let home = env_of(&[("XDG_DATA_HOME", "relative"), ("HOME", "/home/u")]);
        let r = resolve_knowledge_db_in(None, &home, cwd);
        assert_eq!(
            r,
            Resolved {
                path: "/home/u/.local/share/math-forge/knowledge.db".into(),
                reason: Reason::UserData
            }
        );
        let r = resolve_knowledge_db_in(None, &env_of(&[]), cwd);
        assert_eq!(r.path, cwd.join(PROJECT_KB));
    }

    #[test]
    fn never_under_the_plugin_root() {
        let cwd = Path::new("/nonexistent/project");
        let only_root = env_of(&[("CLAUDE_PLUGIN_ROOT", "/plugin"), ("HOME", "/h")]);
        let r = resolve_knowledge_db_in(None, &only_root, cwd);
        assert!(!r.path.starts_with("/plugin"), "{r:?}");
    }

    #[test]
    fn a_project_kb_wins_over_plugin_data() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join(".math-forge")).unwrap();
        let sub = root.join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        let env = env_of(&[("CLAUDE_PLUGIN_DATA", "/data"), ("HOME", "/h")]);
        // The directory alone marks the project (`mkdir .math-forge && mk init`).
        let r = resolve_knowledge_db_in(None, &env, &sub);
        assert_eq!(r.path, root.join(PROJECT_KB));
        assert_eq!(r.reason, Reason::Ancestor(root.to_path_buf()));
        std::fs::write(root.join(PROJECT_KB), b"").unwrap();
        assert_eq!(
            resolve_knowledge_db_in(None, &env, &sub).path,
            root.join(PROJECT_KB)
        );
    }

    #[test]
    fn tracking_priority_order() {
        let cwd = Path::new("/nonexistent/project");
        let e = env_of(&[("CLAUDE_PROJECT_DIR", "/proj")]);
        let r = resolve_tracking_db_in(None, &e, cwd);
        assert_eq!(r.path, PathBuf::from("/proj/submissions/tracking.db"));
        assert_eq!(r.reason, Reason::EnvDir("CLAUDE_PROJECT_DIR".into()));
        let e = env_of(&[
            ("CLAUDE_PROJECT_DIR", "/proj"),
            ("MATH_FORGE_TRACKING_DB", "/t.db"),
        ]);
        assert_eq!(
            resolve_tracking_db_in(None, &e, cwd).path,
            PathBuf::from("/t.db")
        );
    }
}
