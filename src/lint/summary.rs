//! A Markdown summary of a lint run, for GitHub's job summary (`$GITHUB_STEP_SUMMARY`).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{Finding, Rule, Severity};

/// Findings listed one by one in the summary at most; the rest are counted.
const LISTED: usize = 50;

/// What a run found, gathered as findings stream past (bounded: counts and the first
/// [`LISTED`] findings).
#[derive(Debug, Default)]
pub struct Summary {
    files: usize,
    by_rule: BTreeMap<(Rule, Severity), usize>,
    listed: Vec<Finding>,
    total: usize,
}

impl Summary {
    /// Counts one linted file and its findings.
    pub fn add_file(&mut self, findings: &[Finding]) {
        self.files += 1;
        for f in findings {
            *self.by_rule.entry((f.rule, f.severity)).or_insert(0) += 1;
            self.total += 1;
            if self.listed.len() < LISTED {
                self.listed.push(f.clone());
            }
        }
    }

    /// The Markdown: a headline, a table per rule, and the first findings.
    pub fn markdown(&self) -> String {
        let count = |severity| -> usize {
            self.by_rule
                .iter()
                .filter(|((_, s), _)| *s == severity)
                .map(|(_, n)| n)
                .sum()
        };
        let mut out = String::from("## mf lint\n\n");
        let _ = writeln!(
            out,
            "{}, {} in {}\n",
            plural(count(Severity::Error), "error"),
            plural(count(Severity::Warning), "warning"),
            plural(self.files, "file")
        );
        if self.total == 0 {
            return out;
        }
        out.push_str("| rule | severity | findings |\n|---|---|---:|\n");
        for ((rule, severity), n) in &self.by_rule {
            let _ = writeln!(out, "| `{rule}` | {} | {n} |", severity.as_str());
        }
        out.push_str("\n| where | rule | message |\n|---|---|---|\n");
        for f in &self.listed {
            let first = f.message.lines().next().unwrap_or("");
            let _ = writeln!(
                out,
                "| `{}:{}:{}` | `{}` | {} |",
                cell(&f.path),
                f.line,
                f.column,
                f.rule,
                cell(first)
            );
        }
        if self.total > self.listed.len() {
            let _ = writeln!(out, "\n… and {} more", self.total - self.listed.len());
        }
        out
    }
}

/// "1 file", "2 files".
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// Text safe inside a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('`', "'")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(rule: Rule, severity: Severity, message: &str) -> Finding {
        Finding {
            path: "a.lean".into(),
            line: 3,
            column: 5,
            end_line: 3,
            end_column: 10,
            rule,
            severity,
            message: message.into(),
        }
    }

    #[test]
    fn counts_rules_and_lists_findings() {
        let mut s = Summary::default();
        s.add_file(&[
            finding(Rule::Sorry, Severity::Error, "a | b"),
            finding(Rule::DebugCommand, Severity::Warning, "x"),
        ]);
        s.add_file(&[]);
        assert_eq!(
            s.markdown(),
            "## mf lint\n\n1 error, 1 warning in 2 files\n\n\
             | rule | severity | findings |\n|---|---|---:|\n\
             | `sorry` | error | 1 |\n| `debug-command` | warning | 1 |\n\n\
             | where | rule | message |\n|---|---|---|\n\
             | `a.lean:3:5` | `sorry` | a \\| b |\n| `a.lean:3:5` | `debug-command` | x |\n"
        );
    }

    #[test]
    fn clean_run_is_one_line() {
        let mut s = Summary::default();
        s.add_file(&[]);
        assert_eq!(
            s.markdown(),
            "## mf lint\n\n0 errors, 0 warnings in 1 file\n\n"
        );
    }
}
