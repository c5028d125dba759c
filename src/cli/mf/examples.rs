//! The examples that end `mf --help` and each subcommand's help.

pub(super) const MF: &str = "\
Examples:
  mf outline Proof.lean                  declarations, sorries, axioms
  mf lint src/                           CI linter (exit 1 on errors)
  mf extract --all results/              result files into the knowledge base (then: mk search …)
  mf sorries Proof.lean                  the holes left, one per line
  mf SUBCOMMAND --help                   more, with an example each";

pub(super) const PARSE: &str = "\
Examples:
  mf parse --stats fixtures/lean             files, clean files, error nodes, bytes, seconds
  mf parse --errors src/                     each file with parse errors, and where";

pub(super) const OUTLINE: &str = "\
Examples:
  mf outline Proof.lean                      declarations, sorries, tactics, imports, axioms
  mf outline --json src/ | head -1           one JSON object per file";

pub(super) const EXTRACT: &str = "\
Examples:
  mf extract --all results/                  every .lean below results/ into the knowledge base
  mf extract --db /tmp/scratch.db slot614_erdos_850_result.lean   into a scratch database";

pub(super) const LINT: &str = "\
Examples:
  mf lint src/                               rustc-style report; exit 1 on an error-level finding
  mf lint --format github --allow native-decide src/";

pub(super) const VERIFY: &str = "\
Example:
  mf verify Proof.lean --project ~/lean-proj --timeout 300";

pub(super) const SORRIES: &str = "\
Example:
  mf sorries Proof.lean                      every hole: place, declaration, statement";

pub(super) const SPLICE: &str = "\
Examples:
  echo 'simp' | mf splice Proof.lean Foo.bar --proof -          replace Foo.bar's proof
  echo 'exact hq' | mf splice Proof.lean Foo.bar --sorry 2 --proof -   fill its second hole";

pub(super) const DIFF: &str = "\
Example:
  mf diff old/Proof.lean Proof.lean          added, removed and changed declarations";

pub(super) const HOOK: &str = "\
Example:
  echo '{\"tool_name\":\"Edit\",…}' | mf hook pre-tool-use   (Claude Code runs these; see plugin/hooks.json)";

pub(super) const MCP: &str = "\
Example:
  claude mcp add math-forge -- mf mcp       (the plugin declares it in plugin/.mcp.json)";

pub(super) const COMPLETIONS: &str = "\
Example:
  mf completions bash > ~/.local/share/bash-completion/completions/mf";

pub(super) const MAN: &str = "\
Examples:
  mf man | man -l -                          read mf(1)
  mf man --dir ~/.local/share/man/man1       install mf(1) and a page per subcommand (mf-lint(1), …)";

pub(super) const HOOK_SESSION_START: &str = "\
Example:
  echo '{\"session_id\":\"s1\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}' | mf hook session-start";

pub(super) const HOOK_PRE_TOOL_USE: &str = "\
Example:
  echo '{\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"P.lean\",\"old_string\":\"simp\",\"new_string\":\"sorry\"}}' | mf hook pre-tool-use";

pub(super) const HOOK_POST_TOOL_USE: &str = "\
Example:
  mf hook post-tool-use < fixtures/hooks/edit_proof_to_sorry.json";

pub(super) const HOOK_STOP: &str = "\
Example:
  echo '{\"session_id\":\"s1\",\"hook_event_name\":\"Stop\",\"cwd\":\".\"}' | mf hook stop";

pub(super) const HOOK_SESSION_END: &str = "\
Example:
  echo '{\"session_id\":\"s1\",\"hook_event_name\":\"SessionEnd\",\"cwd\":\".\"}' | mf hook session-end";

pub(super) const HOOK_LEAN_OUTPUT: &str = "\
Example:
  echo '{\"session_id\":\"s1\",\"hook_event_name\":\"PostToolUseFailure\",\"tool_name\":\"Bash\",\"cwd\":\".\",\"error\":\"Proofs.lean:5:2: error: unsolved goals\"}' | mf hook lean-output";

pub(super) const HOOK_SUBAGENT_START: &str = "\
Example:
  echo '{\"session_id\":\"s1\",\"hook_event_name\":\"SubagentStart\"}' | mf hook subagent-start";
