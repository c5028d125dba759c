//! Issue #15's evidence rules on the real corpus (`../shared/corpus`, or `MF_CORPUS`): the
//! corpus is extracted into a scratch knowledge.db and every stored finding is checked against
//! what its file shows, read independently here (the Aristotle header from the file start,
//! the unpacked-project directory, same-file dependencies). Skipped, with a message, when the
//! corpus is absent.

mod common;

use std::collections::HashMap;
use std::path::Path;

use assert_cmd::Command;
use rusqlite::Connection;

use math_forge::lean::depends::Dependencies;
use math_forge::lean::header::AristotleHeader;
use math_forge::lean::{Outline, ParsedFile};

use common::corpora::Corpus;

/// What a stored source's own bytes say about it.
struct Seen {
    header: Option<AristotleHeader>,
    unpacked: bool,
}

fn seen(path: &str) -> Seen {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    Seen {
        header: AristotleHeader::from_file_start(&text),
        unpacked: Path::new(path).ancestors().skip(1).any(|d| {
            d.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.ends_with("_aristotle"))
        }),
    }
}

#[test]
fn corpus_findings_claim_only_what_their_files_show() {
    let Some(dir) = Corpus::Results.dir() else {
        return;
    };
    let scratch = tempfile::TempDir::new().unwrap();
    let db = scratch.path().join("knowledge.db");
    let out = Command::cargo_bin("mf")
        .unwrap()
        .arg("extract")
        .arg("--db")
        .arg(&db)
        .arg("--all")
        .arg(&dir)
        .output()
        .unwrap();
    // Unreadable files (gzip, NUL bytes) are reported and skipped; the run still finishes.
    assert!(out.status.code().is_some(), "mf extract was killed");
    let conn = Connection::open(&db).unwrap();

    let sources: Vec<(i64, String)> = conn
        .prepare("SELECT id, path FROM sources")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        sources.len() > 2000,
        "expected the full corpus, stored {}",
        sources.len()
    );
    let seen: HashMap<i64, (String, Seen)> = sources
        .into_iter()
        .map(|(id, path)| {
            let s = seen(&path);
            (id, (path, s))
        })
        .collect();

    let per_source = |sql: &str| -> Vec<i64> {
        conn.prepare(sql)
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };

    // Zero failures from input files (no header, not in an unpacked project).
    let from_inputs: Vec<&str> =
        per_source("SELECT source_id FROM findings WHERE finding_type = 'failure'")
            .iter()
            .filter_map(|id| seen.get(id))
            .filter(|(_, s)| s.header.is_none() && !s.unpacked)
            .map(|(p, _)| p.as_str())
            .collect();
    assert!(
        from_inputs.is_empty(),
        "failures from inputs: {from_inputs:?}"
    );

    // Zero verified findings from budget-reached (stopped early) or unchecked files.
    // Each fact's own file, and every file a fact occurs in, with what that file supports.
    let verified = per_source(
        "SELECT source_id FROM findings WHERE confidence = 'verified' \
         UNION ALL SELECT source_id FROM finding_sources WHERE confidence = 'verified'",
    );
    let unvouched: Vec<&str> = verified
        .iter()
        .filter_map(|id| seen.get(id))
        .filter(|(_, s)| {
            s.header.as_ref().is_none_or(|h| {
                h.stopped_early.is_some()
                    || h.processing_error.is_some()
                    || h.internal_error.is_some()
            })
        })
        .map(|(p, _)| p.as_str())
        .collect();
    assert!(
        unvouched.is_empty(),
        "verified without a checker: {unvouched:?}"
    );
    assert!(
        !verified.is_empty(),
        "the corpus has finished Aristotle outputs"
    );

    // Zero problems proven by an empty file: every proven problem has a checked theorem
    // (verified, or high: compiled by Aristotle in an output that stopped early or a project it
    // returned; issue 29 made project outputs high and lets such a proof of the statement
    // prove the problem, shown with its confidence).
    let empty_proofs: Vec<String> = conn
        .prepare(
            // A theorem is one fact across files: the problem's own file must hold a
            // checked occurrence of one.
            "SELECT id FROM problems p WHERE status = 'proven' AND NOT EXISTS (
                 SELECT 1 FROM finding_sources fs JOIN sources s ON s.id = fs.source_id
                 JOIN findings f ON f.id = fs.finding_id
                 WHERE s.problem_id = p.id AND f.finding_type = 'theorem'
                 AND fs.confidence IN ('verified', 'high'))",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        empty_proofs.is_empty(),
        "proven by nothing: {empty_proofs:?}"
    );

    // A problem is proven only by a checked, unconditional proof of its own statement, and
    // shows that proof's confidence.
    let collapse = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let unstated: Vec<String> = conn
        .prepare("SELECT id FROM problems p WHERE status = 'proven' AND (statement IS NULL OR confidence NOT IN ('verified', 'high')) AND EXISTS (SELECT 1 FROM sources s WHERE s.problem_id = p.id)")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        unstated.is_empty(),
        "proven without a statement or a checked proof: {unstated:?}"
    );
    let stated: Vec<(String, String, String)> = conn
        .prepare(
            "SELECT id, statement, confidence FROM problems WHERE status = 'proven' AND statement IS NOT NULL",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let off_target: Vec<&str> = stated
        .iter()
        .filter(|(id, statement, confidence)| {
            let proofs: Vec<(String, String, String)> = conn
                .prepare(
                    "SELECT f.theorem_statement, fs.confidence, coalesce(fs.notes, '')
                     FROM finding_sources fs
                     JOIN sources s ON s.id = fs.source_id JOIN findings f ON f.id = fs.finding_id
                     WHERE s.problem_id = ?1 AND fs.confidence IN ('verified', 'high')
                     AND f.finding_type = 'theorem' AND f.theorem_statement IS NOT NULL",
                )
                .unwrap()
                .query_map([id], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            // The proof shown is the best one of the statement, and no finite check of an
            // open statement is one.
            let best = proofs
                .iter()
                .filter(|(p, _, notes)| {
                    collapse(p) == collapse(statement)
                        && !notes.contains("bounded check of an open statement")
                })
                .map(|(_, c, _)| c.as_str())
                .min_by_key(|c| *c != "verified");
            best != Some(confidence.as_str())
        })
        .map(|(id, _, _)| id.as_str())
        .collect();
    assert!(
        off_target.is_empty(),
        "proven without a proof of the stated target: {off_target:?}"
    );

    // An attempt is proven only when its own file holds a checked, unconditional proof of its
    // problem's statement.
    let proven_attempts: Vec<(String, String, String)> = conn
        .prepare(
            "SELECT s.path, p.id, coalesce(p.statement, '') FROM attempts a
             JOIN sources s ON s.id = a.source_id JOIN problems p ON p.id = a.problem_id
             WHERE a.outcome = 'proven'",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let unfounded: Vec<&str> = proven_attempts
        .iter()
        .filter(|(path, _, statement)| {
            let proofs: Vec<String> = conn
                .prepare(
                    "SELECT f.theorem_statement FROM finding_sources fs
                     JOIN sources s ON s.id = fs.source_id JOIN findings f ON f.id = fs.finding_id
                     WHERE s.path = ?1 AND fs.confidence IN ('verified', 'high')
                     AND f.finding_type = 'theorem' AND f.theorem_statement IS NOT NULL
                     AND coalesce(fs.notes, '') NOT LIKE '%bounded check of an open statement%'",
                )
                .unwrap()
                .query_map([path], |r| r.get(0))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            !proofs.iter().any(|p| collapse(p) == collapse(statement))
        })
        .map(|(path, _, _)| path.as_str())
        .collect();
    assert!(
        unfounded.is_empty(),
        "attempts proven without proving their problem's statement: {unfounded:?}"
    );

    // A domain is never a default: a problem with a domain says what it rests on.
    let undocumented: Vec<String> = conn
        .prepare(
            "SELECT id FROM problems p WHERE domain_id IS NOT NULL AND domain_evidence IS NULL
             AND EXISTS (SELECT 1 FROM sources s WHERE s.problem_id = p.id)",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert!(
        undocumented.is_empty(),
        "domains without evidence: {undocumented:?}"
    );

    // Every stored theorem that uses a same-file sorry lemma is marked conditional.
    let mut theorems: HashMap<i64, Vec<(String, String)>> = HashMap::new();
    let mut stmt = conn
        .prepare(
            "SELECT source_id, theorem_name, coalesce(notes, '') FROM findings \
             WHERE finding_type = 'theorem'",
        )
        .unwrap();
    for row in stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
    {
        let (id, name, notes): (i64, String, String) = row.unwrap();
        theorems.entry(id).or_default().push((name, notes));
    }
    let (mut checked, mut unmarked) = (0usize, Vec::new());
    for (id, stored) in &theorems {
        let (path, _) = &seen[id];
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let parsed = ParsedFile::parse(text);
        let outline = Outline::of(path, &parsed);
        let deps = Dependencies::of(&parsed, &outline);
        for (i, d) in outline.declarations.iter().enumerate() {
            let uses_sorry = deps.waits_on(i).iter().any(|(_, g)| g.as_str() == "sorry");
            if !uses_sorry {
                continue;
            }
            let name = if d.full_name.is_empty() {
                &d.name
            } else {
                &d.full_name
            };
            for (_, notes) in stored.iter().filter(|(n, _)| n == name) {
                checked += 1;
                if !notes.starts_with("conditional; waits on: ") {
                    unmarked.push(format!("{path}: {name}"));
                }
            }
        }
    }
    assert!(
        unmarked.is_empty(),
        "unmarked conditional theorems: {unmarked:?}"
    );
    assert!(
        checked > 0,
        "the corpus has theorems that use a sorry lemma"
    );
    eprintln!(
        "corpus evidence: {} sources, {} verified findings, {checked} conditional theorems checked",
        seen.len(),
        verified.len()
    );
}
