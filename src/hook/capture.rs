//! Capture at Stop and SessionEnd: the session's journal becomes candidate findings
//! ([`crate::kb::derive_captures`]), stored idempotently ([`Kb::store_capture`]), and, once per
//! session and only above [`WHY_THRESHOLD`], a short request to record why the failed attempts
//! failed.
//!
//! The agent is asked while it works: PostToolUse's `additionalContext` reaches the model and
//! blocks nothing ([`ask_during_session`]). When the threshold is first reached at Stop, the
//! request is a `systemMessage` (shown to the user): Stop's only field that reaches the model
//! is `decision: "block"` + `reason`, and a stop is never blocked for this.

use std::collections::HashMap;
use std::path::Path;

use crate::kb::{derive_captures, Capture, EventKind, Evidence, Kb, Stored};
use crate::lean::depends::Dependencies;
use crate::lean::{Outline, ParsedFile};

/// Importance a session's failures must reach before the agent is asked why: each failure
/// candidate weighs its number of attempts, so one declaration tried twice is left alone and
/// one tried three times (or two tried twice) is asked about.
pub const WHY_THRESHOLD: usize = 3;

/// What the capture did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Captured {
    pub added: usize,
    pub updated: usize,
    pub unchanged: usize,
    /// Declarations left with failure candidates.
    pub failures: Vec<String>,
    /// The request to record why, when this call asked it.
    pub ask_why: Option<String>,
}

/// Derives and stores the captures of `session`; nothing when there is no knowledge base (the
/// journal is then empty too).
pub fn capture(db: &Path, session: &str) -> Result<Captured, String> {
    if !db.is_file() {
        return Ok(Captured::default());
    }
    let mut kb = Kb::open_existing(db).map_err(|e| e.to_string())?;
    // What an edit hook had to spool is part of the session (a failed replay waits for the
    // next open, and this capture for the next Stop).
    let _ = kb.replay_spool();
    let events = kb.session_events(session).map_err(|e| e.to_string())?;
    let evidence = TreeEvidence {
        kb: &kb,
        files: Default::default(),
    };
    let mut captures = derive_captures(session, &events, &evidence);
    drop(evidence);
    // The session's problem (SessionStart recorded it) is the captures' problem.
    if let Some(problem) = kb.session_problem(session).map_err(|e| e.to_string())? {
        for c in &mut captures {
            c.finding.problem_id = Some(problem.clone());
        }
    }
    let stored = kb.store_capture(&captures).map_err(|e| e.to_string())?;
    kb.retract_captures(session, &captures)
        .map_err(|e| e.to_string())?;
    let mut out = Captured::default();
    for s in &stored {
        match s {
            Stored::Added(_) => out.added += 1,
            Stored::Updated(_) => out.updated += 1,
            Stored::Unchanged(_) => out.unchanged += 1,
        }
    }
    out.failures = captures
        .iter()
        .filter(|c| c.kind == "failure")
        .map(|c| c.declaration.clone())
        .collect();
    out.ask_why = ask_once(&mut kb, session, &captures)?;
    Ok(out)
}

/// The request to record why, when the session's failure candidates weigh at least
/// [`WHY_THRESHOLD`] and the session was not asked yet (marking it asked).
fn ask_once(kb: &mut Kb, session: &str, captures: &[Capture]) -> Result<Option<String>, String> {
    let failures: Vec<&Capture> = captures.iter().filter(|c| c.kind == "failure").collect();
    let weight: usize = failures.iter().map(|c| attempts_of(&c.finding.title)).sum();
    if weight < WHY_THRESHOLD || !kb.mark_why_asked(session).map_err(|e| e.to_string())? {
        return Ok(None);
    }
    let names: Vec<&str> = failures.iter().map(|c| c.declaration.as_str()).collect();
    Ok(Some(format!(
        "[math-forge] {} still open after several attempts in this session: {}. If you leave it, record briefly why each approach failed, so the next attempt does not repeat it: {} (or the MCP tool record_failure).",
        if names.len() == 1 { "One declaration is" } else { "Declarations are" },
        names.join(", "),
        record_command(&failures)
    )))
}

/// The `mk record failure` line to run, with the problem filled in when the failures are all
/// of one known problem; else a placeholder, and what to add for a problem the knowledge base
/// does not know.
fn record_command(failures: &[&Capture]) -> String {
    let mut problems: Vec<&str> = failures
        .iter()
        .filter_map(|c| c.finding.problem_id.as_deref())
        .collect();
    problems.sort_unstable();
    problems.dedup();
    let all_known = failures.iter().all(|c| c.finding.problem_id.is_some());
    match problems.as_slice() {
        [one] if all_known => format!(
            "`mk record failure --problem {one} --approach \"…\" --why \"…\"`"
        ),
        _ => "`mk record failure --problem ID --approach \"…\" --why \"…\"` (`--new-problem` for an id the knowledge base does not know yet)".to_string(),
    }
}

/// After an edit was journaled: asks the agent (once per session) why its attempts failed as
/// soon as the failures weigh enough, while it can still answer. Stop's own request reaches
/// only the user (its one model-visible field blocks the stop); PostToolUse's
/// `additionalContext` reaches the model and blocks nothing.
pub fn ask_during_session(
    kb: &mut Kb,
    session: &str,
    journaled: &[crate::kb::Event],
) -> Result<Option<String>, String> {
    // Only a failed attempt can bring the session over the threshold, and a session is asked
    // once: other edits never read the journal back.
    if !journaled
        .iter()
        .any(|e| e.kind == Some(EventKind::ProofRewritten))
        || kb.why_asked(session).map_err(|e| e.to_string())?
    {
        return Ok(None);
    }
    let events = kb.session_events(session).map_err(|e| e.to_string())?;
    // Failure candidates need no evidence (Lean's rejections are in the events); closed
    // holes are judged at Stop.
    let captures = derive_captures(session, &events, &NoEvidence);
    ask_once(kb, session, &captures)
}

/// Evidence that knows nothing (no verify verdicts, dependencies unknown).
struct NoEvidence;

impl Evidence for NoEvidence {
    fn verified(&self, _: &str, _: &str) -> bool {
        false
    }
    fn rests_on(&self, _: &str, _: &str) -> Option<Vec<String>> {
        None
    }
}

/// The attempt count a failure title starts with (`3 attempts left …`).
fn attempts_of(title: &str) -> usize {
    title
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Verdicts from the knowledge base; dependencies from the files as they are now.
struct TreeEvidence<'a> {
    kb: &'a Kb,
    files: std::cell::RefCell<HashMap<String, Option<(Outline, Dependencies)>>>,
}

impl Evidence for TreeEvidence<'_> {
    fn verified(&self, file: &str, content_hash: &str) -> bool {
        self.kb.verified(file, content_hash).unwrap_or(false)
    }

    fn rests_on(&self, file: &str, declaration: &str) -> Option<Vec<String>> {
        let mut files = self.files.borrow_mut();
        let entry = files.entry(file.to_string()).or_insert_with(|| {
            let path = Path::new(file);
            let text = super::files::read_text(path, super::files::MAX_FILE_BYTES).ok()??;
            let parsed = ParsedFile::parse(text);
            let outline = Outline::of(file, &parsed);
            let deps = Dependencies::of(&parsed, &outline);
            Some((outline, deps))
        });
        let (outline, deps) = entry.as_ref()?;
        let i = outline
            .declarations
            .iter()
            .position(|d| d.full_name == declaration)?;
        Some(
            deps.waits_on(i)
                .into_iter()
                .map(|(n, _)| n.to_string())
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(problem: Option<&str>) -> Capture {
        Capture {
            session_id: "s".into(),
            file: "F.lean".into(),
            declaration: "foo".into(),
            kind: "failure",
            finding: crate::kb::NewFinding {
                problem_id: problem.map(str::to_string),
                ..Default::default()
            },
        }
    }

    /// The agent is asked to run a command it can run as written: the problem filled in when
    /// the session's failures are of one known problem.
    #[test]
    fn the_record_command_names_the_problem_when_there_is_one() {
        let a = failure(Some("erdos_850"));
        let b = failure(Some("erdos_850"));
        assert_eq!(
            record_command(&[&a, &b]),
            "`mk record failure --problem erdos_850 --approach \"…\" --why \"…\"`"
        );
        let c = failure(Some("erdos_851"));
        let d = failure(None);
        for mixed in [vec![&a, &c], vec![&a, &d], vec![&d]] {
            let text = record_command(&mixed);
            assert!(
                text.contains("--problem ID") && text.contains("--new-problem"),
                "{text}"
            );
        }
    }
}
