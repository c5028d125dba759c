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
    /// An existing file found in this ancestor of the current directory.
    Ancestor(PathBuf),
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
                write!(f, "found above the current directory in {}", dir.display())
            }
            Reason::Default => write!(f, "default in the current directory"),
        }
    }
}

/// `.math-forge/knowledge.db`, relative to a project directory.
pub const PROJECT_KB: &str = ".math-forge/knowledge.db";
/// `submissions/tracking.db`, relative to a project directory.
pub const PROJECT_TRACKING: &str = "submissions/tracking.db";

/// Resolves knowledge.db: `--db` > `$MATH_FORGE_DB` > `$CLAUDE_PLUGIN_ROOT/data/knowledge.db`
/// > `.math-forge/knowledge.db` in the current directory or the nearest ancestor that has one.
pub fn resolve_knowledge_db(cli_flag: Option<&Path>) -> Resolved {
    resolve_knowledge_db_in(cli_flag, &real_env, &current_dir())
}

/// Resolves tracking.db: `--tracking` > `$MATH_FORGE_TRACKING_DB` >
/// `$CLAUDE_PROJECT_DIR/submissions/tracking.db` > `submissions/tracking.db` in the current
/// directory or the nearest ancestor that has one.
pub fn resolve_tracking_db(cli_flag: Option<&Path>) -> Resolved {
    resolve_tracking_db_in(cli_flag, &real_env, &current_dir())
}

/// How one database is found: a variable naming the file, a variable naming a directory it
/// lives under, and its place relative to a project directory.
struct Rules {
    file_var: &'static str,
    dir_var: &'static str,
    under_dir: &'static str,
    project_rel: &'static str,
}

const KNOWLEDGE_DB: Rules = Rules {
    file_var: "MATH_FORGE_DB",
    dir_var: "CLAUDE_PLUGIN_ROOT",
    under_dir: "data/knowledge.db",
    project_rel: PROJECT_KB,
};

const TRACKING_DB: Rules = Rules {
    file_var: "MATH_FORGE_TRACKING_DB",
    dir_var: "CLAUDE_PROJECT_DIR",
    under_dir: PROJECT_TRACKING,
    project_rel: PROJECT_TRACKING,
};

/// [`resolve_knowledge_db`] with the environment and current directory passed in (for tests).
pub fn resolve_knowledge_db_in(
    cli_flag: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
    cwd: &Path,
) -> Resolved {
    resolve(&KNOWLEDGE_DB, cli_flag, env, cwd)
}

/// [`resolve_tracking_db`] with the environment and current directory passed in (for tests).
pub fn resolve_tracking_db_in(
    cli_flag: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
    cwd: &Path,
) -> Resolved {
    resolve(&TRACKING_DB, cli_flag, env, cwd)
}

/// The flag, else the file variable, else the directory variable, else the project path.
fn resolve(
    rules: &Rules,
    cli_flag: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
    cwd: &Path,
) -> Resolved {
    if let Some(p) = cli_flag {
        return Resolved {
            path: p.to_path_buf(),
            reason: Reason::Flag,
        };
    }
    if let Some(p) = non_empty(env(rules.file_var)) {
        return Resolved {
            path: p.into(),
            reason: Reason::Env(rules.file_var.into()),
        };
    }
    if let Some(dir) = non_empty(env(rules.dir_var)) {
        return Resolved {
            path: PathBuf::from(dir).join(rules.under_dir),
            reason: Reason::EnvDir(rules.dir_var.into()),
        };
    }
    project_relative(cwd, rules.project_rel)
}

/// The nearest existing `rel` in `cwd` or its ancestors, like git finding `.git`; when there is
/// none, `cwd/rel` (where `mk init` creates it).
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
        let plugin = env_of(&[("MATH_FORGE_DB", ""), ("CLAUDE_PLUGIN_ROOT", "/plugin")]);
        let r = resolve_knowledge_db_in(None, &plugin, cwd);
        assert_eq!(r.path, PathBuf::from("/plugin/data/knowledge.db"));
        let r = resolve_knowledge_db_in(None, &env_of(&[]), cwd);
        assert_eq!(
            r,
            Resolved {
                path: cwd.join(PROJECT_KB),
                reason: Reason::Default
            }
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

    #[test]
    fn finds_existing_db_in_ancestor() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join(".math-forge")).unwrap();
        std::fs::write(root.join(PROJECT_KB), b"").unwrap();
        let sub = root.join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        let r = resolve_knowledge_db_in(None, &env_of(&[]), &sub);
        assert_eq!(r.path, root.join(PROJECT_KB));
        assert_eq!(r.reason, Reason::Ancestor(root.to_path_buf()));
    }
}
