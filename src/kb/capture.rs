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
//!
//! `mf verify` decides as well: a proof with a Lean error inside it (on that very content) is
//! an attempt that failed, never a technique (its declaration is still open, and one such
//! attempt is a failure); attempts that failed before a proof that closed the hole are kept as
//! a `failed_attempts` capture beside its technique. A bare hole (`sorry` and nothing else) is
//! no attempt.

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
        let proofs: Vec<&Event> = evs
            .iter()
            .copied()
            .filter(|e| {
                matches!(
                    e.kind,
                    Some(EventKind::HoleClosed | EventKind::ProofRewritten | EventKind::HoleOpened)
                )
            })
            .collect();
        let Some(&last) = proofs.last() else { continue };
        // `mf verify` found a Lean error inside this attempt ([`super::Kb::mark_rejected`]).
        let rejected = |e: &Event| {
            e.detail
                .as_deref()
                .is_some_and(|d| d.starts_with(super::journal::REJECTED))
        };
        // Distinct attempts, in order; a bare hole is none.
        let mut attempts: Vec<&Event> = Vec::new();
        for &e in &proofs {
            let bare_hole = e.tactics.is_empty() && e.holes > 0;
            if e.proof.is_some() && !bare_hole && !attempts.iter().any(|a| a.proof == e.proof) {
                attempts.push(e);
            }
        }
        let closed_now = last.holes == 0
            && !rejected(last)
            && evs.iter().any(|e| e.kind == Some(EventKind::HoleClosed));
        if closed_now {
            out.push(closed(session, file, decl, last, evidence));
            let failed_before: Vec<&Event> = attempts
                .iter()
                .copied()
                .filter(|a| a.proof != last.proof && rejected(a))
                .collect();
            if !failed_before.is_empty() {
                out.push(failed_then_closed(
                    session,
                    file,
                    decl,
                    &failed_before,
                    last,
                    &rejected,
                ));
            }
        } else if (last.holes > 0 || rejected(last))
            && (attempts.len() >= FAILURE_ATTEMPTS || attempts.iter().any(|a| rejected(a)))
        {
            out.push(failed(session, file, decl, &attempts, last, &rejected));
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

fn failed(
    session: &str,
    file: &str,
    decl: &str,
    attempts: &[&Event],
    last: &Event,
    rejected: &dyn Fn(&Event) -> bool,
) -> Capture {
    let lines = attempt_lines(attempts, rejected);
    let lemmas: Vec<String> = attempts.iter().flat_map(|a| a.lemmas.clone()).collect();
    let left = if last.holes > 0 {
        format!("still has {} hole(s)", last.holes)
    } else {
        "is still unproven (Lean rejected its last proof)".to_string()
    };
    Capture {
        session_id: session.to_string(),
        file: file.to_string(),
        declaration: decl.to_string(),
        kind: "failure",
        finding: NewFinding {
            finding_type: FindingType::Failure,
            title: format!(
                "{} attempt{} left `{decl}` open (session {})",
                attempts.len(),
                if attempts.len() == 1 { "" } else { "s" },
                short(session)
            ),
            description: format!(
                "`{decl}` in {file} {left} after {} approach{}: {}.",
                attempts.len(),
                if attempts.len() == 1 { "" } else { "es" },
                lines.join("; ")
            ),
            source_file: Some(file.to_string()),
            theorem_name: Some(decl.to_string()),
            theorem_statement: last.statement.clone(),
            why_failed: rejections(attempts, rejected),
            confidence: Confidence::Low,
            tags: Some(tags(session, &lemmas)),
            notes: Some(format!("session {session}; file {file}; at {}", last.at)),
            ..NewFinding::default()
        },
    }
}

/// Attempts Lean rejected (`mf verify` failed on them) before `closer` closed the hole.
fn failed_then_closed(
    session: &str,
    file: &str,
    decl: &str,
    failed: &[&Event],
    closer: &Event,
    rejected: &dyn Fn(&Event) -> bool,
) -> Capture {
    let lines = attempt_lines(failed, rejected);
    let lemmas: Vec<String> = failed.iter().flat_map(|a| a.lemmas.clone()).collect();
    let by = closer.technique.as_deref().unwrap_or("another proof");
    Capture {
        session_id: session.to_string(),
        file: file.to_string(),
        declaration: decl.to_string(),
        kind: "failed_attempts",
        finding: NewFinding {
            finding_type: FindingType::Failure,
            title: format!(
                "{} attempt{} on `{decl}` Lean rejected before {by} closed it (session {})",
                failed.len(),
                if failed.len() == 1 { "" } else { "s" },
                short(session)
            ),
            description: format!(
                "`{decl}` in {file}: {}; then closed with {by}.",
                lines.join("; ")
            ),
            source_file: Some(file.to_string()),
            theorem_name: Some(decl.to_string()),
            theorem_statement: closer.statement.clone(),
            why_failed: rejections(failed, rejected),
            confidence: Confidence::Low,
            tags: Some(tags(session, &lemmas)),
            notes: Some(format!("session {session}; file {file}; at {}", closer.at)),
            ..NewFinding::default()
        },
    }
}

/// Why the attempts failed, as far as Lean said: each rejected attempt (short) and Lean's
/// first line about it. `None` when Lean rejected none (the agent is asked why instead).
fn rejections(attempts: &[&Event], rejected: &dyn Fn(&Event) -> bool) -> Option<String> {
    let said: Vec<String> = attempts
        .iter()
        .filter(|a| rejected(a))
        .map(|a| {
            let proof = a.proof.as_deref().unwrap_or("");
            let proof = proof.strip_prefix(":=").unwrap_or(proof).trim();
            let error = a
                .detail
                .as_deref()
                .unwrap_or("")
                .trim_start_matches(super::journal::REJECTED)
                .trim();
            format!("`{}`: {}", clip(proof, 60), clip(error, 80))
        })
        .collect();
    (!said.is_empty()).then(|| format!("Lean rejected {}", said.join("; ")))
}

/// Longest proof an attempt line shows as it is.
const SHORT_PROOF: usize = 120;

/// One line per attempt: its proof (or its tactics and lemmas), and whether `mf verify` failed on it.
fn attempt_lines(attempts: &[&Event], rejected: &dyn Fn(&Event) -> bool) -> Vec<String> {
    attempts
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let proof = a.proof.as_deref().unwrap_or("");
            let proof = proof.strip_prefix(":=").unwrap_or(proof).trim();
            // A short proof is the approach itself; a long one is summed up by its tactics and
            // lemmas.
            let what = if proof.chars().count() <= SHORT_PROOF {
                format!("`{proof}`")
            } else {
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
                format!("tactics {tactics}{lemmas}")
            };
            let verdict = match a.detail.as_deref() {
                Some(d) if rejected(a) => format!(
                    " — Lean rejected it ({})",
                    clip(d.trim_start_matches(super::journal::REJECTED).trim(), 80)
                ),
                _ => String::new(),
            };
            format!("attempt {}: {what}{verdict}", i + 1)
        })
        .collect()
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

/// A session id as titles show it: its first group (the whole id is in the notes and tags).
fn short(session: &str) -> &str {
    session.split('-').next().unwrap_or(session)
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

    /// `mf verify` passed on `pass` (content hashes).
    struct Verdicts {
        pass: &'static [&'static str],
    }

    impl Evidence for Verdicts {
        fn verified(&self, _: &str, hash: &str) -> bool {
            self.pass.contains(&hash)
        }
        fn rests_on(&self, _: &str, _: &str) -> Option<Vec<String>> {
            Some(vec![])
        }
    }

    /// An attempt `mf verify` found a Lean error in.
    fn rejected(mut e: Event) -> Event {
        e.detail = Some(format!("{}unsolved goals", super::super::journal::REJECTED));
        e
    }

    fn bare_hole(decl: &str, hash: &str) -> Event {
        let mut e = ev(decl, EventKind::HoleOpened, 1, ":= by sorry", hash);
        e.tactics.clear();
        e
    }

    /// A proof Lean rejected is an attempt that failed, kept as such beside the proof that
    /// closed the hole afterwards (the day-in-the-life session: norm_num leaves the goal,
    /// omega closes it).
    #[test]
    fn a_rejected_attempt_before_the_closing_proof_is_kept_as_failed() {
        let events = [
            rejected(ev("a", EventKind::HoleClosed, 0, ":= by norm_num", "h1")),
            ev("a", EventKind::ProofRewritten, 0, ":= by omega", "h2"),
        ];
        let v = Verdicts { pass: &["h2"] };
        let c = derive_captures("s", &events, &v);
        assert_eq!(c.len(), 2, "{c:#?}");
        assert_eq!(c[0].kind, "technique");
        assert_eq!(c[0].finding.confidence, Confidence::Verified);
        assert!(c[0].finding.description.contains("Proof: := by omega"));
        assert_eq!(c[1].kind, "failed_attempts");
        assert_eq!(c[1].finding.finding_type, FindingType::Failure);
        assert_eq!(
            c[1].finding.why_failed.as_deref(),
            Some("Lean rejected `by norm_num`: unsolved goals")
        );
        assert!(
            c[1].finding
                .description
                .contains("`by norm_num` — Lean rejected it (unsolved goals)")
                && !c[1].finding.description.contains("`by omega` —"),
            "{}",
            c[1].finding.description
        );
        // Without `mf verify`'s word nothing is called failed.
        let plain = [
            ev("a", EventKind::HoleClosed, 0, ":= by norm_num", "h1"),
            ev("a", EventKind::ProofRewritten, 0, ":= by omega", "h2"),
        ];
        let c = derive_captures("s", &plain, &Verdicts { pass: &[] });
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].finding.confidence, Confidence::Medium);
    }

    /// A proof `mf verify` failed on is never a technique, and one rejected attempt is a
    /// failure; a bare hole put back is no attempt.
    #[test]
    fn a_rejected_proof_is_a_failure_not_a_technique() {
        let v = Verdicts { pass: &[] };
        let left = [
            bare_hole("b", "h1"),
            rejected(ev(
                "b",
                EventKind::HoleClosed,
                0,
                ":= by nlinarith [sq_nonneg x]",
                "h2",
            )),
        ];
        let c = derive_captures("s", &left, &v);
        assert_eq!(c.len(), 1, "{c:#?}");
        assert_eq!(c[0].kind, "failure");
        assert!(c[0].finding.title.starts_with("1 attempt left `b` open"));
        assert!(c[0]
            .finding
            .description
            .contains("is still unproven (Lean rejected its last proof)"));
        let put_back = [
            rejected(ev(
                "b",
                EventKind::HoleClosed,
                0,
                ":= by nlinarith [sq_nonneg x]",
                "h2",
            )),
            bare_hole("b", "h3"),
        ];
        let c = derive_captures("s", &put_back, &v);
        assert_eq!(c.len(), 1, "{c:#?}");
        assert!(
            c[0].finding.title.starts_with("1 attempt left")
                && c[0]
                    .finding
                    .description
                    .contains("still has 1 hole(s) after 1 approach:"),
            "{:#?}",
            c[0].finding
        );
        // Holes put back without any rejected or second attempt are no failure.
        let quiet = [
            ev("b", EventKind::HoleClosed, 0, ":= by simp", "h4"),
            bare_hole("b", "h5"),
        ];
        assert!(derive_captures("s", &quiet, &v).is_empty());
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
