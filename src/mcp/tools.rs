//! The MCP tools: their names, descriptions and input schemas, and what a call does.
//!
//! Every call goes to the same library function the CLI uses (`mk search` → [`Kb::search`],
//! `mf sorries` → [`cursor::holes()`], `mf splice` → [`cursor::splice_file`], …) and returns the
//! JSON the CLI prints with `--json`. Nothing here computes anything of its own.
//!
//! The file tools act inside the project only: `.lean` files under `$CLAUDE_PROJECT_DIR`, else
//! the server's working directory, both resolved through links ([`project_file`]); Claude Code
//! asks before an Edit outside the project, and a tool allowed once is not asked again. `splice`
//! takes the edit gate's decision ([`crate::hook::gate::check`]) before it writes, so no route
//! through it guts a proof or adds an axiom.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::cursor::{self, Splice};
use crate::kb::{self, FailureInput, FindingType, Kb, SearchOptions};
use crate::lean::{Outline, Source};
use crate::tracking::Tracking;

/// Where the tools find their databases (resolved per call, like the CLI) and their files.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// `--db` given to `mf mcp`.
    pub db: Option<PathBuf>,
    /// `--tracking` given to `mf mcp`.
    pub tracking: Option<PathBuf>,
    /// The project the file tools may touch; `None`: [`kb::project_dir`] at each call.
    pub project: Option<PathBuf>,
}

/// One tool as listed by `tools/list`.
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub schema: Value,
}

fn string(desc: &str) -> Value {
    json!({"type": "string", "description": desc})
}

fn integer(desc: &str) -> Value {
    json!({"type": "integer", "minimum": 1, "description": desc})
}

fn schema(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// Every tool the server offers.
pub fn specs() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "search",
            description: "Full-text search of the knowledge base (theorems, techniques, failures, false lemmas); exact names and problem ids rank first. `hits` is what `mk search --json` prints; an empty knowledge base adds a `note` saying how to fill it.",
            schema: schema(
                json!({
                    "query": string("words, \"phrases\", partial names; OR and NOT work between terms"),
                    "limit": integer("number of results (default 5)"),
                    "type": {"type": "string", "enum": ["theorem", "technique", "failure", "false_lemma", "insight"], "description": "only facts of this type"},
                    "domain": string("only facts of this domain (nt, algebra, combinatorics, analysis, …)"),
                }),
                &["query"],
            ),
        },
        ToolSpec {
            name: "problem",
            description: "Everything about one problem: its statement and source, the literature's status and ours (with the proof's confidence), attempts by outcome, variants with their status, facts by type, strategies, false lemmas, submissions; an unknown id is an error naming the nearest ids and aliases. Same as `mk find --json`.",
            schema: schema(json!({"problem": string("problem id or alias, e.g. erdos_850 or Erdos850 (case, spaces, _ and - do not matter)")}), &["problem"]),
        },
        ToolSpec {
            name: "failed",
            description: "Failed approaches and false lemmas, optionally matching a keyword or of one problem. Check a planned approach here before trying it. Same as `mk failed --json`.",
            schema: schema(
                json!({"keyword": string("keyword to match (omit for all)"), "problem": string("only those of this problem (id or alias)"), "limit": integer("most entries (default 20)")}),
                &[],
            ),
        },
        ToolSpec {
            name: "recommend",
            description: "Techniques ranked by observed success in the problem's domain, minus those that already failed on it. Same as `mk recommend --json`.",
            schema: schema(
                json!({"problem": string("a problem id or a domain"), "limit": integer("most techniques (default 10)")}),
                &["problem"],
            ),
        },
        ToolSpec {
            name: "context",
            description: "Before an attempt on a problem: its statement and status, established facts with sources, failed approaches and false lemmas with why, techniques ranked by observed success, similar problems with outcomes. Same as `mk context --json`.",
            schema: schema(
                json!({"problem": string("problem id"), "limit": integer("entries per section (default 8)")}),
                &["problem"],
            ),
        },
        ToolSpec {
            name: "record_failure",
            description: "Record an approach that failed on a problem, and why, so later attempts avoid it. Same as `mk record failure --json`.",
            schema: schema(
                json!({
                    "problem": string("problem id"),
                    "approach": string("name of the approach, e.g. pigeonhole"),
                    "why": string("why it failed"),
                    "avoid": string("what not to repeat"),
                    "category": string("failure category, e.g. timeout, false_lemma, tactic"),
                    "domain": string("domain (defaults to the problem's)"),
                    "description": string("how the approach works"),
                    "new_problem": {"type": "boolean", "description": "the problem is new to the knowledge base: record it anyway (an unknown id is refused otherwise)"},
                }),
                &["problem", "approach", "why"],
            ),
        },
        ToolSpec {
            name: "holes",
            description: "Every sorry/admit of a Lean file in order, with its declaration, statement and enclosing have: the work list. Same as `mf sorries --json`.",
            schema: schema(json!({"file": string("path of a .lean file of the project")}), &["file"]),
        },
        ToolSpec {
            name: "outline",
            description: "Declarations, holes, axioms and imports of a Lean file. Same as `mf outline --json`.",
            schema: schema(json!({"file": string("path of a .lean file of the project")}), &["file"]),
        },
        ToolSpec {
            name: "splice",
            description: "Replace a declaration's proof, or only its N-th hole, in place, in a .lean file of the project; refused (file untouched) unless the result parses as cleanly, and refused, like an Edit, when it would replace a complete proof with sorry/admit or add an axiom. Same as `mf splice --json`.",
            schema: schema(
                json!({
                    "file": string("path of a .lean file of the project"),
                    "declaration": string("full name, name as written, unique suffix, or a line number inside it"),
                    "proof": string("the proof text (tactics, a term, or `:= …`); for a hole, its replacement"),
                    "hole": integer("replace only the N-th sorry/admit of the declaration (1-based)"),
                    "dry_run": {"type": "boolean", "description": "check and report without writing"},
                }),
                &["file", "declaration", "proof"],
            ),
        },
    ]
}

/// Runs tool `name` with `args`: the JSON result, or a one-line error for the model.
pub fn call(name: &str, args: &Map<String, Value>, ctx: &Context) -> Result<Value, String> {
    let kb_path = || kb::resolve_knowledge_db(ctx.db.as_deref());
    let open = || {
        let r = kb_path();
        Kb::open_existing(&r.path).map_err(|e| match e {
            kb::KbError::Missing { path, reason, .. } => kb::KbError::Missing {
                path,
                reason: format!("{reason}; {}", r.reason),
                fix: kb::how_to_create(&r),
            }
            .to_string(),
            other => format!("{other} (knowledge.db {})", r.reason),
        })
    };
    let tracking = || Tracking::open(&kb::resolve_tracking_db(ctx.tracking.as_deref()).path);
    let to_json = |v: Result<Value, serde_json::Error>| v.map_err(|e| e.to_string());
    match name {
        "search" => {
            let kb = open()?;
            let query = required(args, "query")?;
            let finding_type = optional(args, "type")?
                .map(|t| t.parse::<FindingType>().map_err(|e| e.to_string()))
                .transpose()?;
            let domain = optional(args, "domain")?
                .map(|d| kb.domain_id(&d).map_err(|e| e.to_string()))
                .transpose()?;
            let opts = SearchOptions {
                limit: count(args, "limit", 5)?,
                domain,
                finding_type,
            };
            let hits = kb.search(&query, &opts).map_err(|e| e.to_string())?;
            // MCP structured content is an object. No hits in an empty knowledge base is no
            // answer at all: the note says so, and how to fill it.
            match kb.empty_note().map_err(|e| e.to_string())? {
                Some(note) if hits.is_empty() => Ok(json!({ "hits": hits, "note": note })),
                _ => Ok(json!({ "hits": hits })),
            }
        }
        "problem" => {
            let kb = open()?;
            let report = kb
                .find_problem(&required(args, "problem")?, Some(&tracking()))
                .map_err(|e| kb.explain_unknown(e).to_string())?;
            to_json(serde_json::to_value(&report))
        }
        "failed" => {
            let kb = open()?;
            let keyword = optional(args, "keyword")?.filter(|k| !k.trim().is_empty());
            let problem = optional(args, "problem")?;
            let mut report = kb
                .failed(
                    problem.as_deref(),
                    keyword.as_deref(),
                    count(args, "limit", 20)?,
                    Some(&tracking()),
                )
                .map_err(|e| kb.explain_unknown(e).to_string())?;
            if report.findings.is_empty() {
                if let Some(note) = kb.empty_note().map_err(|e| e.to_string())? {
                    report.notes.push(note);
                }
            }
            to_json(serde_json::to_value(&report))
        }
        "recommend" => {
            let kb = open()?;
            let recs = kb
                .recommend(&required(args, "problem")?, count(args, "limit", 10)?)
                .map_err(|e| kb.explain_unknown(e).to_string())?;
            to_json(serde_json::to_value(&recs))
        }
        "context" => {
            let kb = open()?;
            let context = kb
                .context(&required(args, "problem")?, count(args, "limit", 8)?)
                .map_err(|e| kb.explain_unknown(e).to_string())?;
            to_json(serde_json::to_value(&context))
        }
        "record_failure" => {
            let mut kb = open()?;
            let recorded = kb
                .record_failure(&FailureInput {
                    problem: required(args, "problem")?,
                    approach: required(args, "approach")?,
                    why: required(args, "why")?,
                    avoid: optional(args, "avoid")?,
                    description: optional(args, "description")?,
                    category: optional(args, "category")?,
                    domain: optional(args, "domain")?,
                    slot: None,
                    uuid: None,
                    new_problem: flag(args, "new_problem")?,
                })
                .map_err(|e| kb.explain_unknown(e).to_string())?;
            to_json(serde_json::to_value(&recorded))
        }
        "holes" => {
            let file = required(args, "file")?;
            let (outline, parsed) = read_lean(&file, &project_file(&file, ctx)?)?;
            let holes = cursor::holes(&parsed, &outline);
            Ok(json!({"path": file, "holes": holes}))
        }
        "outline" => {
            let file = required(args, "file")?;
            let (outline, _) = read_lean(&file, &project_file(&file, ctx)?)?;
            to_json(serde_json::to_value(&outline))
        }
        "splice" => {
            let given = required(args, "file")?;
            let file = project_file(&given, ctx)?;
            let declaration = required(args, "declaration")?;
            let proof = required(args, "proof")?;
            let hole = match args.get("hole") {
                None | Some(Value::Null) => None,
                Some(_) => Some(count(args, "hole", 1)?),
            };
            let dry_run = flag(args, "dry_run")?;
            let request = Splice {
                declaration: &declaration,
                proof: &proof,
                hole,
                allow_sorry: false,
            };
            let name = file
                .file_name()
                .map_or_else(|| given.clone(), |n| n.to_string_lossy().into_owned());
            // The edit gate's question, asked of the text about to be written.
            let gate = |before: &str, after: &str| {
                let d = crate::hook::gate::check(&name, Some(before), after);
                if d.blocks.is_empty() {
                    return Ok(());
                }
                let blocks: Vec<(String, String)> =
                    d.blocks.into_iter().map(|b| (name.clone(), b)).collect();
                Err(crate::hook::gate::reason("This splice", &blocks))
            };
            let (_, s) = cursor::splice_file_checked(&file, &request, dry_run, &gate)
                .map_err(|e| e.to_string())?;
            Ok(json!({
                "path": given,
                "declaration": s.declaration,
                "kind": s.kind,
                "line": s.position.line,
                "column": s.position.column,
                "form": s.form,
                "old_lines": s.old_lines,
                "new_lines": s.new_lines,
                "holes_in_declaration": s.holes_in_declaration,
                "holes_in_file": s.holes_in_file,
                "written": !dry_run,
            }))
        }
        other => Err(format!(
            "no tool named '{other}'; the tools are {}",
            specs()
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

fn read_lean(shown: &str, path: &Path) -> Result<(Outline, crate::lean::ParsedFile), String> {
    let source = Source::read(path).map_err(|e| e.to_string())?;
    let parsed = cursor::parse(&source.text);
    let outline = Outline::of(shown, &parsed);
    Ok((outline, parsed))
}

/// `file` as a `.lean` file of the project (`ctx.project`, else `$CLAUDE_PROJECT_DIR`, else the
/// working directory; a relative `file` is relative to it), resolved through links: the
/// real path, or a one-line refusal.
pub fn project_file(file: &str, ctx: &Context) -> Result<PathBuf, String> {
    let root = ctx.project.clone().unwrap_or_else(kb::project_dir);
    let real_root = root
        .canonicalize()
        .map_err(|e| format!("the project directory {}: {e}", root.display()))?;
    let given = Path::new(file);
    let joined = if given.is_absolute() {
        given.to_path_buf()
    } else {
        real_root.join(given)
    };
    let real = joined.canonicalize().map_err(|e| match e.kind() {
        // Relative paths are the project's, whatever the agent's shell is in: say which.
        std::io::ErrorKind::NotFound => format!(
            "{file}: no such file (paths are read from the project directory {})",
            real_root.display()
        ),
        _ => format!("{file}: cannot read: {e}"),
    })?;
    if !real.starts_with(&real_root) {
        return Err(format!(
            "{file}: refused, outside the project {} (the math-forge tools act on .lean files under the project only)",
            real_root.display()
        ));
    }
    if real.extension().is_none_or(|e| e != "lean") || !real.is_file() {
        return Err(format!(
            "{file}: refused, not a .lean file (the math-forge tools act on .lean files only)"
        ));
    }
    Ok(real)
}

/// Checks `args` against the tool's input schema (the keywords the schemas use: `type`
/// object/string/integer/boolean, `required`, `additionalProperties: false`, `enum`,
/// `minimum`). `Err` says what is wrong, in one line; `Ok` for an unknown tool (the caller
/// refuses those first).
pub fn validate(name: &str, args: &Map<String, Value>) -> Result<(), String> {
    let Some(spec) = specs().into_iter().find(|s| s.name == name) else {
        return Ok(());
    };
    let props = spec.schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    if let Some(req) = spec.schema["required"].as_array() {
        for key in req.iter().filter_map(Value::as_str) {
            if args.get(key).is_none_or(Value::is_null) {
                return Err(format!("missing argument '{key}'"));
            }
        }
    }
    for (key, value) in args {
        let Some(prop) = props.get(key) else {
            let known: Vec<&str> = props.keys().map(String::as_str).collect();
            return Err(format!(
                "unknown argument '{key}' for {name}; its arguments are {}",
                known.join(", ")
            ));
        };
        if value.is_null() {
            continue;
        }
        let ok = match prop["type"].as_str() {
            Some("string") => value.is_string(),
            Some("boolean") => value.is_boolean(),
            Some("integer") => value
                .as_i64()
                .map(i128::from)
                .or_else(|| value.as_u64().map(i128::from))
                .is_some_and(|n| {
                    prop["minimum"]
                        .as_i64()
                        .is_none_or(|min| n >= i128::from(min))
                }),
            _ => true,
        };
        let in_enum = prop["enum"]
            .as_array()
            .is_none_or(|allowed| allowed.contains(value));
        if !ok || !in_enum {
            let what = match (prop["type"].as_str(), prop["enum"].as_array()) {
                (_, Some(allowed)) => format!(
                    "one of {}",
                    allowed
                        .iter()
                        .map(Value::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                (Some("integer"), _) => match prop["minimum"].as_i64() {
                    Some(min) => format!("an integer of at least {min}"),
                    None => "an integer".into(),
                },
                (Some("boolean"), _) => "true or false".into(),
                (Some(t), _) => format!("a {t}"),
                (None, _) => "valid".into(),
            };
            return Err(format!("argument '{key}' must be {what}, not {value}"));
        }
    }
    Ok(())
}

fn required(args: &Map<String, Value>, key: &str) -> Result<String, String> {
    optional(args, key)?.ok_or_else(|| format!("missing argument '{key}'"))
}

fn optional(args: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("argument '{key}' must be a string, not {other}")),
    }
}

fn count(args: &Map<String, Value>, key: &str, default: usize) -> Result<usize, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .filter(|n| *n >= 1)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| format!("argument '{key}' must be a positive integer, not {v}")),
    }
}

fn flag(args: &Map<String, Value>, key: &str) -> Result<bool, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(other) => Err(format!(
            "argument '{key}' must be true or false, not {other}"
        )),
    }
}
