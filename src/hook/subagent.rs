//! SubagentStart: a few KB facts relevant to the subagent's task.
//!
//! At most [`BUDGET_CHARS`] characters (about 200 tokens): the session's problem (its
//! `mk context`, compact) when one is known ([`with_problem`]), then false lemmas, failed
//! approaches and anything else the task's words find. The task text comes from the payload
//! (`prompt`, when Claude Code sends it); without one, the newest false lemmas and failures
//! are the most useful thing a subagent can know.

use std::collections::HashSet;

use super::clip;
use crate::kb::{Finding, FindingType, Kb, SearchOptions};
use crate::lean::idents::NameSet;
use crate::tracking::Tracking;

/// About 200 tokens at four characters a token.
pub const BUDGET_CHARS: usize = 800;
/// Most words of the task turned into the search query.
const MAX_TERMS: usize = 16;

/// Words too common in proof-engineering prompts to find anything specific.
const STOPWORDS: &[&str] = &[
    "about", "above", "after", "again", "against", "also", "answer", "approach", "because", "been",
    "before", "being", "below", "between", "both", "but", "check", "code", "could", "does", "done",
    "each", "every", "file", "files", "find", "first", "from", "give", "have", "here", "into",
    "just", "lean", "lemma", "lemmas", "like", "look", "make", "more", "most", "must", "need",
    "only", "other", "over", "please", "proof", "proofs", "prove", "report", "result", "results",
    "return", "same", "should", "show", "some", "such", "than", "that", "their", "them", "then",
    "there", "these", "they", "this", "those", "through", "task", "theorem", "theorems", "under",
    "until", "using", "very", "want", "what", "when", "where", "which", "while", "will", "with",
    "without", "work", "would", "write", "your",
];

/// Most characters of the problem's context in a subagent's context; the task's findings fill
/// the rest of [`BUDGET_CHARS`].
pub const PROBLEM_CHARS: usize = 450;

/// The context for a subagent working on `problem` (the session's, when known): the problem's
/// context first, then [`context`]'s findings for the task, within [`BUDGET_CHARS`] together.
pub fn with_problem(
    problem: Option<&str>,
    task: Option<&str>,
    kb: &Kb,
    tracking: Option<&Tracking>,
) -> Option<String> {
    let problem_text = problem
        .and_then(|p| kb.context(p, 3).ok())
        .filter(|c| !c.is_empty())
        .map(|c| {
            format!(
                "[math-forge] {}",
                super::context_text::render(&c, PROBLEM_CHARS)
            )
        });
    let used = problem_text.as_ref().map_or(0, |t| t.chars().count() + 1);
    let task_text = budgeted(task, kb, tracking, BUDGET_CHARS.saturating_sub(used));
    match (problem_text, task_text) {
        (Some(p), Some(t)) => Some(format!("{p}\n{t}")),
        (p, t) => p.or(t),
    }
}

/// The context for a subagent, or `None` when the KB has nothing to say.
pub fn context(task: Option<&str>, kb: &Kb, tracking: Option<&Tracking>) -> Option<String> {
    budgeted(task, kb, tracking, BUDGET_CHARS)
}

/// [`context`] in at most `budget` characters.
fn budgeted(
    task: Option<&str>,
    kb: &Kb,
    tracking: Option<&Tracking>,
    budget: usize,
) -> Option<String> {
    let task = task.map(str::trim).filter(|t| !t.is_empty());
    let mut lines: Vec<String> = Vec::new();
    let mut shown: HashSet<i64> = HashSet::new();
    let mut named: Vec<String> = Vec::new();

    // A false lemma the task names outright comes first, whether or not it was migrated.
    if let (Some(task), Some(t)) = (task, tracking) {
        let lemmas = t.all_false_lemmas();
        let names = NameSet::new(lemmas.iter().filter_map(|l| l.lemma_name.as_deref()));
        for token in identifier_tokens(task) {
            for n in names.referenced_by(token) {
                if !named.iter().any(|m| m == n) {
                    named.push(n.to_string());
                }
            }
        }
        for n in &named {
            let l = lemmas
                .iter()
                .find(|l| l.lemma_name.as_deref().map(str::trim) == Some(n));
            let why = l
                .and_then(|l| l.why_false.as_deref())
                .unwrap_or("disproven");
            let avoid = l
                .and_then(|l| l.avoid_pattern.as_deref())
                .filter(|a| !a.trim().is_empty())
                .map(|a| format!("; avoid: {}", clip(a, 70)))
                .unwrap_or_default();
            lines.push(format!("FALSE LEMMA {n}: {}{avoid}", clip(why, 110)));
        }
    }

    let query = task.map(search_query).filter(|q| !q.is_empty());
    // The same false lemma from the KB adds nothing to its tracking.db line.
    let named_set = NameSet::new(&named);
    let mut add = |f: &Finding, lines: &mut Vec<String>| {
        let repeated = f.kind() == Some(FindingType::FalseLemma)
            && identifier_tokens(&f.title)
                .chain(f.theorem_name.as_deref())
                .any(|t| !named_set.referenced_by(t).is_empty());
        if !repeated && shown.insert(f.id) {
            lines.push(finding_line(f));
        }
    };
    match &query {
        Some(q) => {
            for kind in [
                Some(FindingType::FalseLemma),
                Some(FindingType::Failure),
                None,
            ] {
                let opts = SearchOptions {
                    limit: 3,
                    domain: None,
                    finding_type: kind,
                };
                for hit in kb.search(q, &opts).unwrap_or_default() {
                    add(&hit.finding, &mut lines);
                }
            }
        }
        None => {
            if let Ok(report) = kb.failed(None, None, 4, None) {
                for f in &report.findings {
                    add(f, &mut lines);
                }
            }
        }
    }
    if lines.is_empty() {
        return None;
    }
    let header = if query.is_some() {
        "[math-forge] KB facts related to this task (more: `mk search`, `mk failed`):"
    } else {
        "[math-forge] Newest false lemmas and failed approaches (more: `mk failed`):"
    };
    if header.chars().count() + 3 > budget {
        return None;
    }
    let mut out = header.to_string();
    for l in lines {
        if out.chars().count() + 3 + l.chars().count() > budget {
            break;
        }
        out.push_str("\n- ");
        out.push_str(&l);
    }
    Some(out)
}

/// `FALSE: title — why`, `FAILED: title — why; avoid: …`, `KNOWN (technique): title`.
fn finding_line(f: &Finding) -> String {
    let why = f
        .why_failed
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .map(|s| format!(" — {}", clip(s, 110)))
        .unwrap_or_default();
    let avoid = f
        .avoid_pattern
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .map(|s| format!("; avoid: {}", clip(s, 70)))
        .unwrap_or_default();
    let slot = f
        .source_slot
        .map(|s| format!(" [slot{s}]"))
        .unwrap_or_default();
    match f.kind() {
        Some(FindingType::FalseLemma) => {
            let title = f.title.strip_prefix("FALSE: ").unwrap_or(&f.title);
            format!("FALSE: {}{why}{avoid}", clip(title, 90))
        }
        Some(FindingType::Failure) => {
            // Failure titles are stored as `FAILED: approach`; say it once.
            let title = f.title.strip_prefix("FAILED: ").unwrap_or(&f.title);
            format!("FAILED: {}{why}{avoid}", clip(title, 90))
        }
        _ => format!("KNOWN ({}): {}{slot}", f.finding_type, clip(&f.title, 110)),
    }
}

/// Tokens that could be Lean identifiers: letters, digits, `_`, `.`, `'`.
fn identifier_tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '\'')))
        .map(|t| t.trim_matches('.'))
        .filter(|t| !t.is_empty())
}

/// The task's distinctive words joined with `OR` (the KB ranks by how many match).
pub fn search_query(task: &str) -> String {
    let mut terms: Vec<String> = Vec::new();
    for token in identifier_tokens(task) {
        let lower = token.to_lowercase();
        let distinctive = token.contains('_')
            || token.contains('.')
            || (token.chars().count() >= 4 && !STOPWORDS.contains(&lower.as_str()));
        if distinctive && !terms.iter().any(|t| t.eq_ignore_ascii_case(token)) {
            terms.push(token.to_string());
        }
        if terms.len() == MAX_TERMS {
            break;
        }
    }
    terms.join(" OR ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_keeps_distinctive_words() {
        assert_eq!(
            search_query("Please prove the lemma erdos_850 using Nat.Coprime and induction on n."),
            "erdos_850 OR Nat.Coprime OR induction"
        );
        assert_eq!(search_query("do it"), "");
    }

    #[test]
    fn failure_lines_say_failed_once() {
        let f = Finding {
            id: 1,
            finding_type: "failure".into(),
            title: "FAILED: induction on n".into(),
            why_failed: Some("no base case".into()),
            ..Finding::default()
        };
        assert_eq!(finding_line(&f), "FAILED: induction on n — no base case");
    }
}
