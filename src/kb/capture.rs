//! Candidate findings from a session's journal (issue 17): what the Stop and SessionEnd hooks
//! store with [`Kb::store_capture`](super::Kb::store_capture).
//!
//! Per (file, declaration), in journal order:
//! - its last event leaves it without holes after a `hole_closed` → a `technique` finding (a
//!   `false_lemma` one when the statement is a negation `¬ …`): `verified` only when
//!   `mf verify` passed on that very content, otherwise `medium`; a proof that rests on
//!   incomplete declarations says so and is `low`;
//! - it still has holes after [`FAILURE_ATTEMPTS`] or more distinct attempts → a `failure`
//!   candidate listing each attempt's tactics and lemmas.

use super::journal::{Capture, Event, EventKind};
use super::model::{Confidence, FindingType, NewFinding};

/// Distinct attempts on a declaration that is still open before it counts as a failure.
pub const FAILURE_ATTEMPTS: usize = 2;

/// What the capture needs to know beyond the journal.
pub trait Evidence {
    /// `mf verify` passed on this content of this file.
    fn verified(&self, file: &str, content_hash: &str) -> bool;
    /// The incomplete declarations `declaration` rests on in the file as it is now; `None`
    /// when that cannot be known (the file is gone or unreadable).
    fn rests_on(&self, file: &str, declaration: &str) -> Option<Vec<String>>;
}

/// The captures of one session's events.
pub fn derive_captures(session: &str, events: &[Event], evidence: &dyn Evidence) -> Vec<Capture> {
    // Group by (file, declaration), keeping first-appearance order.
    let mut groups: Vec<((&str, &str), Vec<&Event>)> = Vec::new();
    for e in events.iter().filter(|e| !e.declaration.is_empty()) {
        let key = (e.file.as_str(), e.declaration.as_str());
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, v)) => v.push(e),
            None => groups.push((key, vec![e])),
        }
    }
    let mut out = Vec::new();
    for ((file, decl), evs) in groups {
        let proofs: Vec<&&Event> = evs
            .iter()
            .filter(|e| {
                matches!(
                    e.kind,
                    Some(EventKind::HoleClosed | EventKind::ProofRewritten | EventKind::HoleOpened)
                )
            })
            .collect();
        let Some(last) = proofs.last() else { continue };
        if last.holes == 0 && evs.iter().any(|e| e.kind == Some(EventKind::HoleClosed)) {
            out.push(closed(session, file, decl, last, evidence));
        } else if last.holes > 0 {
            let mut attempts: Vec<&Event> = Vec::new();
            for e in &proofs {
                if e.proof.is_some() && !attempts.iter().any(|a| a.proof == e.proof) {
                    attempts.push(e);
                }
            }
            if attempts.len() >= FAILURE_ATTEMPTS {
                out.push(failed(session, file, decl, &attempts));
            }
        }
    }
    out
}

fn closed(session: &str, file: &str, decl: &str, e: &Event, evidence: &dyn Evidence) -> Capture {
    let statement = e.statement.clone().unwrap_or_default();
    let negation = statement_type(&statement).is_some_and(|t| t.starts_with('¬'));
    let verified = e
        .content_hash
        .as_deref()
        .is_some_and(|h| evidence.verified(file, h));
    // Fail closed: dependencies that cannot be read count as unknown, never as none.
    let rests_on = evidence
        .rests_on(file, decl)
        .unwrap_or_else(|| vec!["(unknown: the file could not be read)".to_string()]);
    let confidence = if !rests_on.is_empty() {
        Confidence::Low
    } else if verified {
        Confidence::Verified
    } else {
        Confidence::Medium
    };
    let technique = e.technique.clone();
    let mut description = format!(
        "Closed `{decl}` in session {session} ({file}, {}) with {}.",
        e.at,
        technique.as_deref().unwrap_or("a proof")
    );
    if !e.lemmas.is_empty() {
        description.push_str(&format!(" Lemmas: {}.", e.lemmas.join(", ")));
    }
    if let Some(p) = &e.proof {
        description.push_str(&format!(" Proof: {}", clip(p, 600)));
    }
    if !rests_on.is_empty() {
        description.push_str(&format!(
            " Conditional: rests on incomplete {}.",
            rests_on.join(", ")
        ));
    } else if !verified {
        description.push_str(" Not verified by `mf verify`.");
    }
    let (kind, finding_type, title) = if negation {
        (
            "false_lemma",
            FindingType::FalseLemma,
            format!("`{decl}` proves a negation: {}", clip(&statement, 120)),
        )
    } else {
        (
            "technique",
            FindingType::Technique,
            format!(
                "{} closes `{decl}`",
                technique.as_deref().unwrap_or("a proof")
            ),
        )
    };
    Capture {
        session_id: session.to_string(),
        file: file.to_string(),
        declaration: decl.to_string(),
        kind,
        finding: NewFinding {
            finding_type,
            title,
            description,
            source_file: Some(file.to_string()),
            theorem_name: Some(decl.to_string()),
            theorem_statement: Some(statement),
            proof_technique: technique,
            confidence,
            tags: Some(tags(session, &e.lemmas)),
            notes: Some(format!("session {session}; file {file}; at {}", e.at)),
            ..NewFinding::default()
        },
    }
}

fn failed(session: &str, file: &str, decl: &str, attempts: &[&Event]) -> Capture {
    let lines: Vec<String> = attempts
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let tactics = if a.tactics.is_empty() {
                "no tactics".to_string()
            } else {
                a.tactics.join(", ")
            };
            let lemmas = if a.lemmas.is_empty() {
                String::new()
            } else {
                format!("; lemmas {}", a.lemmas.join(", "))
            };
            format!("attempt {} ({}): tactics {tactics}{lemmas}", i + 1, a.at)
        })
        .collect();
    let last = attempts.last().expect("at least FAILURE_ATTEMPTS attempts");
    let lemmas: Vec<String> = attempts.iter().flat_map(|a| a.lemmas.clone()).collect();
    Capture {
        session_id: session.to_string(),
        file: file.to_string(),
        declaration: decl.to_string(),
        kind: "failure",
        finding: NewFinding {
            finding_type: FindingType::Failure,
            title: format!(
                "{} attempts left `{decl}` open (session {session})",
                attempts.len()
            ),
            description: format!(
                "`{decl}` in {file} still has {} hole(s) after {} approaches: {}.",
                last.holes,
                attempts.len(),
                lines.join("; ")
            ),
            source_file: Some(file.to_string()),
            theorem_name: Some(decl.to_string()),
            theorem_statement: last.statement.clone(),
            confidence: Confidence::Low,
            tags: Some(tags(session, &lemmas)),
            notes: Some(format!("session {session}; file {file}; at {}", last.at)),
            ..NewFinding::default()
        },
    }
}

/// The type of a statement `name binders : type` (after the first top-level ` : `).
fn statement_type(statement: &str) -> Option<&str> {
    let mut depth = 0i32;
    for (i, c) in statement.char_indices() {
        match c {
            '(' | '[' | '{' | '⦃' => depth += 1,
            ')' | ']' | '}' | '⦄' => depth -= 1,
            ':' if depth == 0 && !statement[i + 1..].starts_with('=') => {
                return Some(statement[i + 1..].trim_start());
            }
            _ => {}
        }
    }
    None
}

fn tags(session: &str, lemmas: &[String]) -> String {
    let mut t = vec!["session-capture".to_string(), format!("session:{session}")];
    t.extend(lemmas.iter().take(12).cloned());
    t.join(",")
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut c: String = s.chars().take(max.saturating_sub(1)).collect();
    c.push('…');
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fake {
        verified: bool,
        rests_on: Option<Vec<String>>,
    }

    impl Evidence for Fake {
        fn verified(&self, _: &str, hash: &str) -> bool {
            self.verified && hash == "h2"
        }
        fn rests_on(&self, _: &str, _: &str) -> Option<Vec<String>> {
            self.rests_on.clone()
        }
    }

    fn ev(decl: &str, kind: EventKind, holes: usize, proof: &str, hash: &str) -> Event {
        Event {
            session_id: "s".into(),
            file: "/p/F.lean".into(),
            declaration: decl.into(),
            kind: Some(kind),
            statement: Some(format!("{decl} (n : ℕ) : n = n")),
            proof: Some(proof.into()),
            tactics: vec!["rfl".into()],
            holes,
            content_hash: Some(hash.into()),
            ..Event::default()
        }
    }

    fn confidence_of(f: Fake) -> Confidence {
        let events = [
            ev("a", EventKind::HoleOpened, 1, ":= by sorry", "h1"),
            ev("a", EventKind::HoleClosed, 0, ":= by rfl", "h2"),
        ];
        let c = derive_captures("s", &events, &f);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].kind, "technique");
        c[0].finding.confidence
    }

    #[test]
    fn confidence_follows_the_evidence() {
        let fake = |verified, rests_on| Fake { verified, rests_on };
        assert_eq!(
            confidence_of(fake(true, Some(vec![]))),
            Confidence::Verified
        );
        assert_eq!(confidence_of(fake(false, Some(vec![]))), Confidence::Medium);
        // Resting on a sorry, or unknown dependencies, is never more than low.
        assert_eq!(
            confidence_of(fake(true, Some(vec!["b".into()]))),
            Confidence::Low
        );
        assert_eq!(confidence_of(fake(true, None)), Confidence::Low);
    }

    #[test]
    fn one_attempt_is_not_a_failure_and_repeats_are_one_attempt() {
        let f = Fake {
            verified: false,
            rests_on: Some(vec![]),
        };
        let one = [ev(
            "b",
            EventKind::ProofRewritten,
            1,
            ":= by simp; sorry",
            "h",
        )];
        assert!(derive_captures("s", &one, &f).is_empty());
        let same = [
            ev("b", EventKind::ProofRewritten, 1, ":= by simp; sorry", "h"),
            ev("b", EventKind::ProofRewritten, 1, ":= by simp; sorry", "h"),
        ];
        assert!(derive_captures("s", &same, &f).is_empty());
        let two = [
            ev("b", EventKind::ProofRewritten, 1, ":= by simp; sorry", "h"),
            ev("b", EventKind::ProofRewritten, 1, ":= by omega; sorry", "h"),
        ];
        let c = derive_captures("s", &two, &f);
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].kind, "failure");
        assert!(c[0].finding.title.starts_with("2 attempts"));
    }

    #[test]
    fn a_proven_negation_is_a_false_lemma() {
        let f = Fake {
            verified: false,
            rests_on: Some(vec![]),
        };
        let mut closed = ev("c", EventKind::HoleClosed, 0, ":= by decide", "h");
        closed.statement = Some("c : ¬ ∀ n : ℕ, n < 5".into());
        let c = derive_captures("s", &[closed], &f);
        assert_eq!(c[0].kind, "false_lemma");
        assert_eq!(c[0].finding.finding_type, FindingType::FalseLemma);
    }

    #[test]
    fn statement_type_skips_binders() {
        assert_eq!(statement_type("foo (h : a = b) : ¬ P"), Some("¬ P"));
        assert_eq!(statement_type("foo {x : ℕ} : x = x"), Some("x = x"));
    }
}
