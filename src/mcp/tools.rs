//! The MCP tools: their names, descriptions and input schemas, and what a call does.
//!
//! Every call goes to the same library function the CLI uses (`mk search` → [`Kb::search`],
//! `mf sorries` → [`cursor::holes()`], `mf splice` → [`cursor::splice_file`], …) and returns the
//! JSON the CLI prints with `--json`. Nothing here computes anything of its own.

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::cursor::{self, Splice};
use crate::kb::{self, FailureInput, FindingType, Kb, SearchOptions};
use crate::lean::{Outline, Source};
use crate::tracking::Tracking;

/// Where the tools find their databases (resolved per call, like the CLI).
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// `--db` given to `mf mcp`.
    pub db: Option<PathBuf>,
    /// `--tracking` given to `mf mcp`.
    pub tracking: Option<PathBuf>,
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
            description: "Full-text search of the knowledge base (theorems, techniques, failures, false lemmas); exact names and problem ids rank first. `hits` is what `mk search --json` prints.",
            schema: schema(
                json!({
                    "query": string("words, \"phrases\", partial names; OR and NOT work between terms"),
                    "limit": integer("number of results (default 5)"),
                    "type": {"type": "string", "enum": ["theorem", "technique", "failure", "false_lemma", "insight"], "description": "only findings of this type"},
                    "domain": string("only findings of this domain (nt, algebra, combinatorics, analysis, …)"),
                }),
                &["query"],
            ),
        },
        ToolSpec {
            name: "problem",
            description: "Everything about one problem: status, findings, strategies, false lemmas, submissions; an unknown id is an error naming the nearest ids and aliases. Same as `mk find --json`.",
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
            schema: schema(json!({"file": string("path of the .lean file")}), &["file"]),
        },
        ToolSpec {
            name: "outline",
            description: "Declarations, holes, axioms and imports of a Lean file. Same as `mf outline --json`.",
            schema: schema(json!({"file": string("path of the .lean file")}), &["file"]),
        },
        ToolSpec {
            name: "splice",
            description: "Replace a declaration's proof, or only its N-th hole, in place; refused (file untouched) unless the result parses as cleanly, and refused when it would replace a complete proof with sorry/admit unless allow_sorry. Same as `mf splice --json`.",
            schema: schema(
                json!({
                    "file": string("path of the .lean file"),
                    "declaration": string("full name, name as written, unique suffix, or a line number inside it"),
                    "proof": string("the proof text (tactics, a term, or `:= …`); for a hole, its replacement"),
                    "hole": integer("replace only the N-th sorry/admit of the declaration (1-based)"),
                    "allow_sorry": {"type": "boolean", "description": "allow replacing a complete proof with one that has sorry/admit"},
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
        Kb::open_existing(&r.path).map_err(|e| format!("{e} (knowledge.db {})", r.reason))
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
            // MCP structured content is an object.
            Ok(json!({ "hits": hits }))
        }
        "problem" => {
            let kb = open()?;
            let report = kb
                .find_problem(&required(args, "problem")?, Some(&tracking()))
                .map_err(|e| e.to_string())?;
            to_json(serde_json::to_value(&report))
        }
        "failed" => {
            let kb = open()?;
            let keyword = optional(args, "keyword")?.filter(|k| !k.trim().is_empty());
            let problem = optional(args, "problem")?;
            let report = kb
                .failed(
                    problem.as_deref(),
                    keyword.as_deref(),
                    count(args, "limit", 20)?,
                    Some(&tracking()),
                )
                .map_err(|e| e.to_string())?;
            to_json(serde_json::to_value(&report))
        }
        "recommend" => {
            let kb = open()?;
            let recs = kb
                .recommend(&required(args, "problem")?, count(args, "limit", 10)?)
                .map_err(|e| e.to_string())?;
            to_json(serde_json::to_value(&recs))
        }
        "context" => {
            let kb = open()?;
            let context = kb
                .context(&required(args, "problem")?, count(args, "limit", 8)?)
                .map_err(|e| e.to_string())?;
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
                .map_err(|e| e.to_string())?;
            to_json(serde_json::to_value(&recorded))
        }
        "holes" => {
            let (path, outline, parsed) = read_lean(&required(args, "file")?)?;
            let holes = cursor::holes(&parsed, &outline);
            Ok(json!({"path": path, "holes": holes}))
        }
        "outline" => {
            let (_, outline, _) = read_lean(&required(args, "file")?)?;
            to_json(serde_json::to_value(&outline))
        }
        "splice" => {
            let file = PathBuf::from(required(args, "file")?);
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
                allow_sorry: flag(args, "allow_sorry")?,
            };
            let (_, s) =
                cursor::splice_file(&file, &request, dry_run).map_err(|e| e.to_string())?;
            Ok(json!({
                "path": file.display().to_string(),
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

fn read_lean(file: &str) -> Result<(String, Outline, crate::lean::ParsedFile), String> {
    let source = Source::read(Path::new(file)).map_err(|e| e.to_string())?;
    let parsed = cursor::parse(&source.text);
    let outline = Outline::of(file, &parsed);
    Ok((file.to_string(), outline, parsed))
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
