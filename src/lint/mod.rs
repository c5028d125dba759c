//! Linting Lean files: findings from the syntax tree, never from text.
//!
//! Every rule looks at nodes of the tree (see [`Rule`] for which), so text inside comments and
//! strings can never produce a finding. Commands the parser could not read are also scanned
//! lexically for escape words ([`crate::lean::trust_scan`]), so a parse error hides none. [`lint`] checks one parsed file against a
//! [`LintConfig`]: which rules run, at which severity, whether in-file `-- mf:allow RULE`
//! comments are honoured, and which false-lemma names to look for.
//!
//! Positions are 1-based; columns count characters; `end_line`/`end_column` point just past the
//! last character of the flagged code (exclusive end).

mod allow;
mod check;
pub mod false_lemmas;
pub mod sarif;
pub mod summary;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use serde::Serialize;

use crate::lean::idents::NameSet;
use crate::lean::ParsedFile;

/// A lint rule. Names are stable, kebab-case, and what `--allow`, `--deny`, `mf:allow` and
/// every output format use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// A `sorry` node, or the identifier `sorryAx` (what `sorry` elaborates to).
    Sorry,
    /// An `admit` node.
    Admit,
    /// A `declaration` whose `kind` is `axiom`.
    Axiom,
    /// Two declarations of a file with the same full name (namespaces applied).
    DuplicateDeclaration,
    /// `set_option debug.skipKernelTC true`: the kernel stops checking proofs.
    SkipKernelTc,
    /// A `tactic` whose `head` is `native_decide`: trusts the compiler via `Lean.ofReduceBool`.
    NativeDecide,
    /// `set_option maxHeartbeats 0`: no limit on elaboration time.
    MaxHeartbeatsZero,
    /// `#eval`, `#check`, `#print`, `#reduce`, `#exit` left in a file.
    DebugCommand,
    /// An `implemented_by`, `extern` or `csimp` attribute: compiled code replaces the definition.
    ImplementedBy,
    /// An identifier that references a lemma recorded as false in tracking.db.
    FalseLemmaReference,
    /// A region of the file the parser could not read; other findings there may be missed.
    ParseError,
}

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl Rule {
    /// Every rule, in the order they are documented.
    pub const ALL: [Rule; 11] = [
        Rule::Sorry,
        Rule::Admit,
        Rule::Axiom,
        Rule::DuplicateDeclaration,
        Rule::SkipKernelTc,
        Rule::NativeDecide,
        Rule::MaxHeartbeatsZero,
        Rule::DebugCommand,
        Rule::ImplementedBy,
        Rule::FalseLemmaReference,
        Rule::ParseError,
    ];

    /// The stable kebab-case name.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Sorry => "sorry",
            Rule::Admit => "admit",
            Rule::Axiom => "axiom",
            Rule::DuplicateDeclaration => "duplicate-declaration",
            Rule::SkipKernelTc => "skip-kernel-tc",
            Rule::NativeDecide => "native-decide",
            Rule::MaxHeartbeatsZero => "max-heartbeats-zero",
            Rule::DebugCommand => "debug-command",
            Rule::ImplementedBy => "implemented-by",
            Rule::FalseLemmaReference => "false-lemma-reference",
            Rule::ParseError => "parse-error",
        }
    }

    /// The severity a rule has unless configured otherwise.
    pub fn default_severity(self) -> Severity {
        match self {
            Rule::Sorry
            | Rule::Admit
            | Rule::Axiom
            | Rule::DuplicateDeclaration
            | Rule::SkipKernelTc => Severity::Error,
            Rule::NativeDecide
            | Rule::MaxHeartbeatsZero
            | Rule::DebugCommand
            | Rule::ImplementedBy
            | Rule::FalseLemmaReference
            | Rule::ParseError => Severity::Warning,
        }
    }

    /// One sentence on what the rule flags and why.
    pub fn description(self) -> &'static str {
        match self {
            Rule::Sorry => "`sorry` leaves a proof unfinished",
            Rule::Admit => "`admit` leaves a proof unfinished",
            Rule::Axiom => "an `axiom` declaration assumes its statement without proof",
            Rule::DuplicateDeclaration => "the same declaration name is declared twice",
            Rule::SkipKernelTc => "`debug.skipKernelTC` stops the kernel from checking proofs",
            Rule::NativeDecide => {
                "`native_decide` trusts the compiler through the axiom `Lean.ofReduceBool`"
            }
            Rule::MaxHeartbeatsZero => "`maxHeartbeats 0` removes the elaboration time limit",
            Rule::DebugCommand => "a debug command (`#eval`, `#check`, …) is left in the file",
            Rule::ImplementedBy => {
                "`implemented_by`/`extern`/`csimp` lets compiled code stand in for the definition"
            }
            Rule::FalseLemmaReference => "the code uses a lemma recorded as false in tracking.db",
            Rule::ParseError => "mf could not parse part of the file; findings there may be missed",
        }
    }
}

impl Rule {
    /// A paragraph on what the rule flags and why it matters (SARIF `fullDescription`).
    pub fn explanation(self) -> &'static str {
        match self {
            Rule::Sorry => "A `sorry` node, or the identifier `sorryAx` it elaborates to: the proof is unfinished and Lean accepts the declaration only with a warning.",
            Rule::Admit => "An `admit` node, a synonym of `sorry`: the proof is unfinished.",
            Rule::Axiom => "A declaration whose keyword is `axiom`: its statement is assumed, not proved, and every proof using it depends on it.",
            Rule::DuplicateDeclaration => "The same full name (namespaces applied) is declared twice in one file; Lean rejects the second, so the file does not compile.",
            Rule::SkipKernelTc => "`set_option debug.skipKernelTC true` stops the kernel from checking proofs, so nothing after it is verified.",
            Rule::NativeDecide => "The tactic `native_decide` (or `decide +native`, or `Lean.ofReduceBool`) trusts the compiled code and the axiom `Lean.ofReduceBool` instead of the kernel.",
            Rule::MaxHeartbeatsZero => "`set_option maxHeartbeats 0` removes the elaboration time limit, so a runaway tactic never stops.",
            Rule::DebugCommand => "`#eval`, `#check`, `#print`, `#reduce` or `#exit` left in a file (not under `#guard_msgs in`): output noise, and `#exit` stops checking the rest of the file.",
            Rule::ImplementedBy => "An `implemented_by`, `extern` or `csimp` attribute lets compiled code stand in for the definition; `native_decide` and `#eval` then trust that code.",
            Rule::FalseLemmaReference => "An identifier names a lemma that tracking.db's `false_lemmas` records as false: a proof relying on it cannot be right.",
            Rule::ParseError => "mf could not parse part of the file (reported once per file); rules may miss findings there, although the escape words are still scanned lexically.",
        }
    }

    /// What to do about a finding.
    pub fn fix(self) -> &'static str {
        match self {
            Rule::Sorry | Rule::Admit => {
                "finish the proof, or allow the rule where an unfinished proof is intended."
            }
            Rule::Axiom => {
                "prove the statement as a `theorem`, or allow the rule for an intended assumption."
            }
            Rule::DuplicateDeclaration => "rename or remove one of the declarations.",
            Rule::SkipKernelTc => "remove the option.",
            Rule::NativeDecide => "use `decide` or a proof the kernel checks.",
            Rule::MaxHeartbeatsZero => {
                "set a finite limit, e.g. `set_option maxHeartbeats 400000 in`."
            }
            Rule::DebugCommand => "remove the command, or wrap it in `#guard_msgs in`.",
            Rule::ImplementedBy => {
                "remove the attribute, or allow the rule where the compiled code is trusted."
            }
            Rule::FalseLemmaReference => {
                "use a true lemma; check tracking.db for what was proved instead."
            }
            Rule::ParseError => {
                "check the file with Lean; report a valid file that mf cannot parse."
            }
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown rule name.
#[derive(Debug, Clone, thiserror::Error)]
#[error("unknown rule `{0}` (rules: {names})", names = rule_names())]
pub struct UnknownRule(pub String);

fn rule_names() -> String {
    Rule::ALL.map(Rule::name).join(", ")
}

impl FromStr for Rule {
    type Err = UnknownRule;

    fn from_str(s: &str) -> Result<Rule, UnknownRule> {
        Rule::ALL
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| UnknownRule(s.to_string()))
    }
}

/// One problem found in a file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub path: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    pub rule: Rule,
    pub severity: Severity,
    pub message: String,
}

/// Which rules run, how severe they are, and what else the checks need.
#[derive(Debug, Clone)]
pub struct LintConfig {
    /// Rule → severity; a rule missing here does not run.
    levels: BTreeMap<Rule, Severity>,
    /// Whether `-- mf:allow RULE` comments suppress findings on the next line.
    allow_comments: bool,
    false_lemmas: NameSet,
}

impl Default for LintConfig {
    fn default() -> Self {
        LintConfig::new()
    }
}

impl LintConfig {
    /// Every rule at its default severity, allow comments honoured, no false lemmas.
    pub fn new() -> LintConfig {
        LintConfig {
            levels: Rule::ALL
                .into_iter()
                .map(|r| (r, r.default_severity()))
                .collect(),
            allow_comments: true,
            false_lemmas: NameSet::default(),
        }
    }

    /// The structural checks of the proof gate: `sorry`, `admit`, `axiom` and
    /// `skip-kernel-tc`, all errors, and no comment can switch them off.
    pub fn proof_gate() -> LintConfig {
        LintConfig {
            levels: [Rule::Sorry, Rule::Admit, Rule::Axiom, Rule::SkipKernelTc]
                .into_iter()
                .map(|r| (r, Severity::Error))
                .collect(),
            allow_comments: false,
            false_lemmas: NameSet::default(),
        }
    }

    /// Stops `rule` from running.
    pub fn allow(&mut self, rule: Rule) -> &mut Self {
        self.levels.remove(&rule);
        self
    }

    /// Makes `rule` an error.
    pub fn deny(&mut self, rule: Rule) -> &mut Self {
        self.levels.insert(rule, Severity::Error);
        self
    }

    /// The names `false-lemma-reference` looks for.
    pub fn false_lemmas(&mut self, names: &[String]) -> &mut Self {
        self.false_lemmas = NameSet::new(names);
        self
    }

    /// The severity of `rule`, or `None` when it does not run.
    pub fn severity(&self, rule: Rule) -> Option<Severity> {
        self.levels.get(&rule).copied()
    }

    fn enabled(&self, rule: Rule) -> bool {
        self.levels.contains_key(&rule)
    }
}

/// Lints one parsed file; `path` is how findings name the file. Findings come sorted by
/// position, then rule.
pub fn lint(path: &str, file: &ParsedFile, config: &LintConfig) -> Vec<Finding> {
    let raw = check::run(file, config);
    let allowed = if config.allow_comments {
        allow::directives(file)
    } else {
        allow::Directives::default()
    };
    let mut findings: Vec<Finding> = Vec::with_capacity(raw.len());
    findings.extend(raw.into_iter().filter_map(|f| {
        let severity = config.severity(f.rule)?;
        if allowed.allows(f.start.line, f.rule) {
            return None;
        }
        Some(Finding {
            path: path.to_string(),
            line: f.start.line,
            column: f.start.column,
            end_line: f.end.line,
            end_column: f.end.column,
            rule: f.rule,
            severity,
            message: f.message,
        })
    }));
    let order = |a: &Finding, b: &Finding| {
        (a.line, a.column, a.rule, &a.message).cmp(&(b.line, b.column, b.rule, &b.message))
    };
    // The walk reports in document order, so the list is often sorted already; a sort would
    // still take a scratch copy of it (as large as the list) first.
    if !findings.is_sorted_by(|a, b| order(a, b).is_le()) {
        findings.sort_by(order);
    }
    // Equal findings are neighbours once sorted; the cheap fields are compared first (a
    // hole-dense file has a finding per hole, all with the same path and message). The
    // pattern names every field, so a field added to `Finding` cannot be left out of it.
    findings.dedup_by(|a, b| {
        let Finding {
            path,
            line,
            column,
            end_line,
            end_column,
            rule,
            severity,
            message,
        } = &*a;
        (line, column, end_line, end_column, rule, severity)
            == (
                &b.line,
                &b.column,
                &b.end_line,
                &b.end_column,
                &b.rule,
                &b.severity,
            )
            && *message == b.message
            && *path == b.path
    });
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_names_round_trip_and_are_unique() {
        for rule in Rule::ALL {
            assert_eq!(rule.name().parse::<Rule>().unwrap(), rule);
            assert_eq!(
                serde_json::to_value(rule).unwrap(),
                serde_json::Value::String(rule.name().into())
            );
        }
        let err = "nope".parse::<Rule>().unwrap_err().to_string();
        assert!(
            err.starts_with("unknown rule `nope` (rules: sorry, admit, axiom"),
            "{err}"
        );
    }

    /// Holes found in document order stay in it; a finding found after the walk (a duplicate
    /// declaration) but placed before them is sorted in; nothing is lost or repeated.
    #[test]
    fn findings_come_in_position_order_whatever_order_they_were_found_in() {
        let holes_only = format!(
            "theorem b : True ∧ True := by\n  refine ⟨{}⟩\n",
            vec!["sorry"; 200].join(", ")
        );
        let file = ParsedFile::parse(holes_only);
        let found = lint("t.lean", &file, &LintConfig::new());
        let columns: Vec<usize> = found.iter().map(|f| f.column).collect();
        assert_eq!(columns, (0..200).map(|k| 11 + 7 * k).collect::<Vec<_>>());
        assert!(found.iter().all(|f| f.rule == Rule::Sorry && f.line == 2));

        let with_duplicate = format!(
            "theorem a : True := trivial\ntheorem a : True ∧ True := by\n  refine ⟨{}⟩\n",
            vec!["sorry"; 200].join(", ")
        );
        let file = ParsedFile::parse(with_duplicate);
        let found = lint("t.lean", &file, &LintConfig::new());
        let places: Vec<(Rule, usize, usize)> =
            found.iter().map(|f| (f.rule, f.line, f.column)).collect();
        let mut expected = vec![(Rule::DuplicateDeclaration, 2, 9)];
        expected.extend((0..200).map(|k| (Rule::Sorry, 3, 11 + 7 * k)));
        assert_eq!(places, expected);
    }

    #[test]
    fn allow_and_deny_change_levels() {
        let mut config = LintConfig::new();
        assert_eq!(config.severity(Rule::NativeDecide), Some(Severity::Warning));
        config.deny(Rule::NativeDecide).allow(Rule::Sorry);
        assert_eq!(config.severity(Rule::NativeDecide), Some(Severity::Error));
        assert_eq!(config.severity(Rule::Sorry), None);
        let gate = LintConfig::proof_gate();
        assert_eq!(gate.severity(Rule::NativeDecide), None);
        assert_eq!(gate.severity(Rule::Axiom), Some(Severity::Error));
    }
}
