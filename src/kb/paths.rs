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
    /// `~/.local/share/math-forge/knowledge.db`: no project or XDG location applied.
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
                "in the user data directory (no .math-forge/ here or above)"
            ),
            Reason::Default => write!(f, "default in the current directory"),
        }
    }
}

/// `.math-forge/knowledge.db`, relative to a project directory.
pub const PROJECT_KB: &str = ".math-forge/knowledge.db";
/// The directory that marks a project knowledge base.
pub const PROJECT_KB_DIR: &str = ".math-forge";

/// Writes `.math-forge/.gitignore` (`*`) beside a project knowledge base that has none: the
/// database, its WAL files and the journal's spool are generated and local, and a `git add .`
/// must not commit them. Best effort; other folders are left alone.
pub fn keep_out_of_git(knowledge_db: &Path) {
    let Some(dir) = knowledge_db
        .parent()
        .filter(|d| d.file_name().is_some_and(|n| n == PROJECT_KB_DIR))
    else {
        return;
    };
    let ignore = dir.join(".gitignore");
    if !ignore.exists() {
        let _ = std::fs::write(
            &ignore,
            "# math-forge's knowledge base (mk init): generated and local, never committed\n*\n",
        );
    }
}
/// `submissions/tracking.db`, relative to a project directory.
pub const PROJECT_TRACKING: &str = "submissions/tracking.db";

/// Resolves knowledge.db, the one rule `mf`, `mk`, the hooks and the MCP server share, so that
/// the same command in the same folder finds the same file inside and outside Claude Code:
/// `--db` > `$MATH_FORGE_DB` > the nearest `.math-forge/knowledge.db` (or `.math-forge/`
/// directory) in the start directory or its ancestors, as git finds `.git` >
/// `$XDG_DATA_HOME/math-forge/knowledge.db` > `~/.local/share/math-forge/knowledge.db`.
///
/// The start directory is `$CLAUDE_PROJECT_DIR` where Claude Code sets it (its hooks and MCP
/// servers, whose working directory is not the user's), else the current directory. Never
/// anything under `$CLAUDE_PLUGIN_ROOT`, which a plugin update replaces, nor under
/// `$CLAUDE_PLUGIN_DATA`, which the shell does not see (a knowledge base left there by an
/// earlier version is found by [`legacy_knowledge_dbs`]).
pub fn resolve_knowledge_db(cli_flag: Option<&Path>) -> Resolved {
    resolve_knowledge_db_in(cli_flag, &real_env, &current_dir())
}

/// The project directory of a Claude Code session (`$CLAUDE_PROJECT_DIR`, absolute), else the
/// current directory: where the hooks and the MCP server work from.
pub fn project_dir() -> PathBuf {
    start_dir(&real_env, &current_dir())
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
    let start = start_dir(env, cwd);
    if let Some(r) = project_kb(&start) {
        return r;
    }
    // No home at all (a bare container): the project location, where `mk init` makes it.
    user_knowledge_db_in(env).unwrap_or_else(|| Resolved {
        path: start.join(PROJECT_KB),
        reason: Reason::Default,
    })
}

/// How to make the knowledge base `resolved` names, when it does not exist: the commands
/// that create or fill that very file. A bare `mk init` makes the project's
/// (`./.math-forge/`), so for the user-level one the rule fell to it says `--user`, and for a
/// `--db` path it repeats the flag.
pub fn how_to_create(resolved: &Resolved) -> String {
    let shown = resolved.path.display().to_string();
    let path = if shown.contains(|c: char| c.is_whitespace() || "'\"$`\\".contains(c)) {
        format!("'{}'", shown.replace('\'', "'\\''"))
    } else {
        shown
    };
    match resolved.reason {
        Reason::Flag => format!(
            "fill it with `mf extract --db {path} --all RESULTS_DIR`, or create it empty with `mk init --db {path}`"
        ),
        Reason::UserData | Reason::EnvDir(_) => "fill it with `mf extract --all RESULTS_DIR`, \
             or create it empty with `mk init --user` (a bare `mk init` makes this folder's \
             own instead, ./.math-forge/knowledge.db)"
            .to_string(),
        Reason::Env(_) | Reason::Ancestor(_) | Reason::Default => {
            "fill it with `mf extract --all RESULTS_DIR`, or create it empty with `mk init`"
                .to_string()
        }
    }
}

/// Where `mk init` creates knowledge.db: `--db` > `$MATH_FORGE_DB` > the project knowledge
/// base [`resolve_knowledge_db`] would find > a new `.math-forge/knowledge.db` in the start
/// directory (which every tool then finds from there and below).
pub fn init_knowledge_db(cli_flag: Option<&Path>) -> Resolved {
    init_knowledge_db_in(cli_flag, &real_env, &current_dir())
}

/// [`init_knowledge_db`] with the environment and current directory passed in.
pub fn init_knowledge_db_in(
    cli_flag: Option<&Path>,
    env: &dyn Fn(&str) -> Option<OsString>,
    cwd: &Path,
) -> Resolved {
    if let Some(r) = explicit(cli_flag, "MATH_FORGE_DB", env) {
        return r;
    }
    let start = start_dir(env, cwd);
    project_kb(&start).unwrap_or_else(|| Resolved {
        path: start.join(PROJECT_KB),
        reason: Reason::Default,
    })
}

/// The user-level knowledge.db (`$XDG_DATA_HOME/math-forge/`, else `~/.local/share/math-forge/`),
/// whatever a project would choose: `mk init --user`.
pub fn user_knowledge_db() -> Option<Resolved> {
    user_knowledge_db_in(&real_env)
}

/// [`user_knowledge_db`] with the environment passed in.
pub fn user_knowledge_db_in(env: &dyn Fn(&str) -> Option<OsString>) -> Option<Resolved> {
    // XDG says a relative $XDG_DATA_HOME is invalid and must be ignored.
    if let Some(dir) = non_empty(env("XDG_DATA_HOME")).filter(|d| Path::new(d).is_absolute()) {
        return Some(Resolved {
            path: PathBuf::from(dir).join("math-forge/knowledge.db"),
            reason: Reason::EnvDir("XDG_DATA_HOME".into()),
        });
    }
    non_empty(env("HOME")).map(|home| Resolved {
        path: PathBuf::from(home).join(".local/share/math-forge/knowledge.db"),
        reason: Reason::UserData,
    })
}

/// The directory the project search starts from: `$CLAUDE_PROJECT_DIR` (absolute) where
/// Claude Code sets it, else `cwd`.
fn start_dir(env: &dyn Fn(&str) -> Option<OsString>, cwd: &Path) -> PathBuf {
    non_empty(env("CLAUDE_PROJECT_DIR"))
        .map(PathBuf::from)
        .filter(|d| d.is_absolute())
        .unwrap_or_else(|| cwd.to_path_buf())
}

/// The nearest `.math-forge/` in `start` or its ancestors.
fn project_kb(start: &Path) -> Option<Resolved> {
    start
        .ancestors()
        .find(|dir| dir.join(PROJECT_KB_DIR).is_dir())
        .map(|dir| Resolved {
            path: dir.join(PROJECT_KB),
            reason: Reason::Ancestor(dir.to_path_buf()),
        })
}

/// Knowledge bases an earlier math-forge kept in the plugin's data folder
/// (`$CLAUDE_PLUGIN_DATA/knowledge.db`, and `~/.claude/plugins/data/math-forge*/knowledge.db`
/// or the same under `$CLAUDE_CONFIG_DIR`), other than `current`: they are no longer found by
/// the rule, so they are adopted or named to the user ([`crate::kb::adopt_legacy`]).
pub fn legacy_knowledge_dbs(current: &Path) -> Vec<PathBuf> {
    legacy_knowledge_dbs_in(&real_env, current)
}

/// [`legacy_knowledge_dbs`] with the environment passed in.
pub fn legacy_knowledge_dbs_in(
    env: &dyn Fn(&str) -> Option<OsString>,
    current: &Path,
) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = Vec::new();
    if let Some(d) = non_empty(env("CLAUDE_PLUGIN_DATA")) {
        found.push(PathBuf::from(d).join("knowledge.db"));
    }
    let config = non_empty(env("CLAUDE_CONFIG_DIR"))
        .map(PathBuf::from)
        .or_else(|| non_empty(env("HOME")).map(|h| PathBuf::from(h).join(".claude")));
    if let Some(data) = config.map(|c| c.join("plugins/data")) {
        if let Ok(entries) = std::fs::read_dir(&data) {
            // Bounded: one entry per installed plugin.
            for entry in entries.flatten().take(1000) {
                if entry
                    .file_name()
                    .to_string_lossy()
                    .starts_with("math-forge")
                {
                    found.push(entry.path().join("knowledge.db"));
                }
            }
        }
    }
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    };
    let mut out: Vec<PathBuf> = Vec::new();
    for p in found {
        if p.is_file() && !same(&p, current) && !out.iter().any(|o| same(o, &p)) {
            out.push(p);
        }
    }
    out.sort();
    out
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
        // The plugin's data folder is not part of the rule: the shell does not see it.
        let plugin = env_of(&[
            ("MATH_FORGE_DB", ""),
            ("CLAUDE_PLUGIN_ROOT", "/plugin"),
            ("CLAUDE_PLUGIN_DATA", "/data/math-forge"),
            ("XDG_DATA_HOME", "/xdg"),
        ]);
        let r = resolve_knowledge_db_in(None, &plugin, cwd);
        assert_eq!(r.path, PathBuf::from("/xdg/math-forge/knowledge.db"));
        assert_eq!(r.reason, Reason::EnvDir("XDG_DATA_HOME".into()));
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
    fn a_project_kb_is_found_upward_from_the_project_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join(".math-forge")).unwrap();
        let sub = root.join("a/b");
        std::fs::create_dir_all(&sub).unwrap();
        let env = env_of(&[("XDG_DATA_HOME", "/xdg"), ("HOME", "/h")]);
        // The directory alone marks the project (`mkdir .math-forge && mk init`).
        let r = resolve_knowledge_db_in(None, &env, &sub);
        assert_eq!(r.path, root.join(PROJECT_KB));
        assert_eq!(r.reason, Reason::Ancestor(root.to_path_buf()));
        std::fs::write(root.join(PROJECT_KB), b"").unwrap();
        assert_eq!(
            resolve_knowledge_db_in(None, &env, &sub).path,
            root.join(PROJECT_KB)
        );
        // A hook or the MCP server runs elsewhere; $CLAUDE_PROJECT_DIR is where it starts.
        let sub_s = sub.to_str().unwrap();
        let claude = env_of(&[("CLAUDE_PROJECT_DIR", sub_s), ("HOME", "/h")]);
        let elsewhere = Path::new("/nonexistent/elsewhere");
        assert_eq!(
            resolve_knowledge_db_in(None, &claude, elsewhere).path,
            root.join(PROJECT_KB)
        );
        // A relative one is ignored.
        let relative = env_of(&[("CLAUDE_PROJECT_DIR", "a/b"), ("HOME", "/h")]);
        assert_eq!(
            resolve_knowledge_db_in(None, &relative, elsewhere).reason,
            Reason::UserData
        );
    }

    #[test]
    fn init_makes_a_project_kb_where_none_is_found() {
        let tmp = tempfile::tempdir().unwrap();
        let env = env_of(&[("HOME", "/h")]);
        let r = init_knowledge_db_in(None, &env, tmp.path());
        assert_eq!(r.path, tmp.path().join(PROJECT_KB));
        assert_eq!(
            resolve_knowledge_db_in(None, &env, tmp.path()).reason,
            Reason::UserData,
            "before init, the user-level one"
        );
        std::fs::create_dir_all(tmp.path().join(PROJECT_KB_DIR)).unwrap();
        let sub = tmp.path().join("x");
        std::fs::create_dir_all(&sub).unwrap();
        assert_eq!(
            init_knowledge_db_in(None, &env, &sub).path,
            tmp.path().join(PROJECT_KB),
            "an existing project KB above is the one initialized"
        );
        let flagged = init_knowledge_db_in(Some(Path::new("/f.db")), &env, &sub);
        assert_eq!(flagged.reason, Reason::Flag);
        assert_eq!(
            user_knowledge_db_in(&env).unwrap().path,
            PathBuf::from("/h/.local/share/math-forge/knowledge.db")
        );
    }

    #[test]
    fn legacy_plugin_data_kbs_are_found() {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().join("home");
        let inline = home.join(".claude/plugins/data/math-forge-inline");
        let market = home.join(".claude/plugins/data/math-forge-math-forge");
        let other = home.join(".claude/plugins/data/other-plugin");
        for d in [&inline, &market, &other] {
            std::fs::create_dir_all(d).unwrap();
            std::fs::write(d.join("knowledge.db"), b"x").unwrap();
        }
        std::fs::remove_file(market.join("knowledge.db")).unwrap();
        let home_s = home.to_str().unwrap();
        let inline_s = inline.to_str().unwrap();
        let env = env_of(&[("HOME", home_s), ("CLAUDE_PLUGIN_DATA", inline_s)]);
        let current = tmp.path().join("k.db");
        assert_eq!(
            legacy_knowledge_dbs_in(&env, &current),
            vec![inline.join("knowledge.db")],
            "named once, only math-forge's, only existing files"
        );
        assert!(legacy_knowledge_dbs_in(&env, &inline.join("knowledge.db")).is_empty());
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
