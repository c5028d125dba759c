//! The JSON Claude Code writes on a hook's stdin, read leniently.
//!
//! Every field is optional and a field of the wrong type reads as absent, so a payload from an
//! older or newer Claude Code (or a hand-written one) never makes a hook fail: it only makes it
//! do less. Only JSON that does not parse at all is an error.

use serde_json::Value;

/// The fields of a hook payload the hooks read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Payload {
    pub hook_event_name: Option<String>,
    /// Claude Code's session id (the journal's key).
    pub session_id: Option<String>,
    /// The session's working directory (relative file paths are resolved against it).
    pub cwd: Option<String>,
    /// SessionStart: `startup`, `resume`, `clear` or `compact`.
    pub source: Option<String>,
    /// PostToolUse: `Write`, `Edit`, `MultiEdit`, …
    pub tool_name: Option<String>,
    pub tool_input: ToolInput,
    pub tool_response: ToolResponse,
    /// SubagentStart.
    pub agent_type: Option<String>,
    /// SubagentStart: what the subagent was asked to do, when the payload carries it.
    pub task: Option<String>,
}

/// `tool_input` of Write, Edit and MultiEdit.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolInput {
    pub file_path: Option<String>,
    /// Write: the whole new text.
    pub content: Option<String>,
    /// Edit: one replacement (MultiEdit: `edits`).
    pub edit: Option<EditOp>,
    pub edits: Vec<EditOp>,
}

/// One `old_string` → `new_string` replacement.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EditOp {
    pub old_string: String,
    pub new_string: String,
    pub replace_all: bool,
}

/// The parts of `tool_response` that help rebuild the file as it was.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolResponse {
    /// The file before the tool ran (`originalFile`, or `originalFileContents`: Claude Code
    /// sends it for Edit and MultiEdit, and for a Write that replaced a file); `None` when
    /// absent or null.
    pub original_file: Option<String>,
    /// Write: `create` or `update`.
    pub kind: Option<String>,
    pub file_path: Option<String>,
}

/// The input was not JSON (or not a JSON object).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("hook input is not a JSON object: {0}")]
pub struct Malformed(pub String);

impl Payload {
    /// `given` (a tool's `file_path`) as a path: relative ones against the session's `cwd`.
    pub fn resolve(&self, given: &str) -> std::path::PathBuf {
        let path = std::path::Path::new(given);
        match &self.cwd {
            Some(cwd) if path.is_relative() => std::path::Path::new(cwd).join(path),
            _ => path.to_path_buf(),
        }
    }

    /// Reads a payload. Fails only when the bytes are not a JSON object.
    pub fn parse(bytes: &[u8]) -> Result<Payload, Malformed> {
        let mut value: Value =
            serde_json::from_slice(bytes).map_err(|e| Malformed(e.to_string()))?;
        if !value.is_object() {
            return Err(Malformed(format!("found {}", type_name(&value))));
        }
        // The file texts are the bulk of a payload (130 KB each for a large result file):
        // moved out of the parsed JSON, not copied.
        let content = take_string(value.get_mut("tool_input"), "content");
        let response = value.get_mut("tool_response");
        let original = match response {
            Some(r) => take_string(Some(&mut *r), "originalFile")
                .or_else(|| take_string(Some(r), "originalFileContents")),
            None => None,
        };
        let mut payload = Payload::from_value(&value);
        payload.tool_input.content = content;
        payload.tool_response.original_file = original;
        Ok(payload)
    }

    /// Reads the fields of an already parsed JSON value.
    pub fn from_value(v: &Value) -> Payload {
        let input = v.get("tool_input").unwrap_or(&Value::Null);
        let response = v.get("tool_response").unwrap_or(&Value::Null);
        let task = ["prompt", "task", "description"]
            .iter()
            .find_map(|k| string(v, k))
            .or_else(|| string(input, "prompt"))
            .or_else(|| string(input, "description"));
        Payload {
            hook_event_name: string(v, "hook_event_name"),
            session_id: string(v, "session_id"),
            cwd: string(v, "cwd"),
            source: string(v, "source"),
            tool_name: string(v, "tool_name"),
            tool_input: ToolInput {
                file_path: string(input, "file_path").or_else(|| string(input, "path")),
                content: string(input, "content"),
                edit: edit_op(input),
                edits: input
                    .get("edits")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(edit_op).collect())
                    .unwrap_or_default(),
            },
            tool_response: ToolResponse {
                original_file: string(response, "originalFile")
                    .or_else(|| string(response, "originalFileContents")),
                kind: string(response, "type"),
                file_path: string(response, "filePath"),
            },
            agent_type: string(v, "agent_type"),
            task,
        }
    }
}

/// The string at `key` of `v`, moved out (an empty string is left behind).
fn take_string(v: Option<&mut Value>, key: &str) -> Option<String> {
    match v?.get_mut(key)? {
        Value::String(s) => Some(std::mem::take(s)),
        _ => None,
    }
}

fn string(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

/// An edit needs both strings; `replace_all` defaults to false (`"true"` as a string counts).
fn edit_op(v: &Value) -> Option<EditOp> {
    Some(EditOp {
        old_string: string(v, "old_string")?,
        new_string: string(v, "new_string")?,
        replace_all: match v.get("replace_all") {
            Some(Value::Bool(b)) => *b,
            Some(Value::String(s)) => s.eq_ignore_ascii_case("true"),
            _ => false,
        },
    })
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edit_payload() {
        let p = Payload::parse(
            br#"{"hook_event_name":"PostToolUse","tool_name":"Edit","cwd":"/p",
                "tool_input":{"file_path":"/p/A.lean","old_string":"rfl","new_string":"sorry","replace_all":true},
                "tool_response":{"filePath":"/p/A.lean","originalFile":"x"}}"#,
        )
        .unwrap();
        assert_eq!(p.tool_name.as_deref(), Some("Edit"));
        assert_eq!(p.tool_input.file_path.as_deref(), Some("/p/A.lean"));
        let e = p.tool_input.edit.unwrap();
        assert_eq!(
            (e.old_string.as_str(), e.new_string.as_str(), e.replace_all),
            ("rfl", "sorry", true)
        );
        assert_eq!(p.tool_response.original_file.as_deref(), Some("x"));
    }

    /// Moving the file texts out gives what copying them gives.
    #[test]
    fn parse_reads_as_from_value() {
        for json in [
            r#"{"tool_name":"Write","tool_input":{"file_path":"a.lean","content":"x := 1"},"tool_response":{"originalFile":"y"}}"#,
            r#"{"tool_response":{"originalFile":null,"originalFileContents":"z"}}"#,
            r#"{"tool_input":{"content":3},"tool_response":{"originalFile":7}}"#,
            r#"{"tool_input":"s","tool_response":["originalFile"]}"#,
        ] {
            let value: Value = serde_json::from_str(json).unwrap();
            assert_eq!(
                Payload::parse(json.as_bytes()).unwrap(),
                Payload::from_value(&value),
                "{json}"
            );
        }
    }

    #[test]
    fn wrong_types_read_as_absent() {
        let p = Payload::parse(
            br#"{"tool_name":7,"tool_input":{"file_path":["a"],"edits":[{"old_string":1,"new_string":"b"},{"old_string":"a","new_string":"b","replace_all":"yes"}]},"tool_response":"ok"}"#,
        )
        .unwrap();
        assert_eq!(p.tool_name, None);
        assert_eq!(p.tool_input.file_path, None);
        assert_eq!(p.tool_input.edits.len(), 1);
        assert!(!p.tool_input.edits[0].replace_all);
        assert_eq!(p.tool_response, ToolResponse::default());
    }

    #[test]
    fn not_an_object_is_malformed() {
        assert!(Payload::parse(b"{\"tool_name\":").is_err());
        assert!(Payload::parse(b"[1,2]").is_err());
        assert!(Payload::parse(b"").is_err());
    }

    #[test]
    fn subagent_task_from_prompt() {
        let p = Payload::parse(br#"{"hook_event_name":"SubagentStart","agent_type":"Explore","prompt":"Prove erdos_850"}"#).unwrap();
        assert_eq!(p.task.as_deref(), Some("Prove erdos_850"));
        assert_eq!(p.agent_type.as_deref(), Some("Explore"));
    }
}
