//! What the knowledge base says of a problem, from the evidence of its files: its statement
//! (the main theorem's, with the file and theorem it comes from) and its variants; our status
//! of each, `proven` only by a complete, unconditional proof of that very statement and shown
//! with the confidence of the best such proof; the literature's status as a catalogue states
//! it, kept apart from ours; its domain; and the outcome of each attempt on it, which is
//! `proven` only when the attempt proves the problem's own statement.
//!
//! [`settle`] runs after every extraction over every problem (a statement may arrive after its
//! proof, a domain from another file), and [`settle_problem`] after a hand record: our status
//! is a function of the files and of what tracking.db or a person recorded
//! (`problems.recorded_status`, kept apart), never of what an earlier extractor stored.

use std::collections::{HashMap, HashSet};

use rusqlite::{params, Connection, OptionalExtension};

use super::error::{AtPath, Result};
use super::model::{AttemptCounts, Problem, Variant};
use super::sql::normalize_ws;
use super::Kb;

/// The note a theorem occurrence carries when its statement checks finitely many cases by
/// computation (`∀ n < 500`, decided); see `extract::findings`.
pub const BOUNDED_CHECK: &str = "bounded check";
/// … and when its file calls the statement open: it proves no open problem.
pub const BOUNDED_CHECK_OF_OPEN: &str = "bounded check of an open statement";

/// The rank ([`super::StatementRecord::rank`]) of the main theorem of a sketch that asks
/// nothing or of an output: the weakest evidence of a problem's statement, taken only when
/// every file of this rank states the same theorem.
pub const SKETCH_MAIN: i64 = 4;

/// Confidences of a complete proof, best first: `low` is a proof resting on a hole
/// (conditional), which proves nothing by itself.
const COMPLETE: &[&str] = &["verified", "high", "medium"];
/// Confidences of a proof a checker compiled (a finished output's, or one Aristotle compiled
/// in an output that stopped early or a project it returned): only such a proof makes a
/// statement `proven`. A complete proof nobody checked (`medium`) leaves it `partial`, shown
/// with that confidence.
const CHECKED: &[&str] = &["verified", "high"];

fn confidence_rank(c: &str) -> usize {
    COMPLETE
        .iter()
        .position(|x| *x == c)
        .unwrap_or(COMPLETE.len())
}

/// One theorem occurrence in a file of the problem.
struct Occurrence {
    statement: String,
    confidence: String,
    notes: String,
    path: String,
    source_id: i64,
}

/// Everything the files of one problem prove and disprove.
struct Evidence {
    /// By normalized statement.
    proofs: HashMap<String, Vec<Occurrence>>,
    /// Normalized statements the files disprove.
    disproofs: HashSet<String>,
}

/// How the files of a problem stand on one statement.
#[derive(Debug, Default)]
struct Judged {
    /// `proven`, `false`, `partial`; `None` when no file proves or disproves it at all.
    status: Option<&'static str>,
    /// The best complete, unconditional proof's confidence and file (`medium` with status
    /// `partial`: nobody checked it).
    confidence: Option<String>,
    proof_source: Option<String>,
    /// Sources holding a complete, unconditional proof a checker compiled.
    checked_sources: HashSet<i64>,
}

impl Evidence {
    /// The proofs of the problem's files that parsed whole: a file with a parse error was read
    /// only in part, so its proofs are no evidence of progress (fail closed), and a problem
    /// resting on them alone stays `open`.
    fn load(conn: &Connection, problem: &str) -> rusqlite::Result<Evidence> {
        let mut proofs: HashMap<String, Vec<Occurrence>> = HashMap::new();
        let mut stmt = conn.prepare_cached(
            "SELECT f.theorem_statement, coalesce(fs.confidence, f.confidence), coalesce(fs.notes, ''),
                    s.path, s.id
             FROM sources s CROSS JOIN finding_sources fs ON fs.source_id = s.id
             CROSS JOIN findings f ON f.id = fs.finding_id
             WHERE s.problem_id = ?1 AND f.finding_type = 'theorem'
               AND f.theorem_statement IS NOT NULL AND s.parse_error_count = 0",
        )?;
        let rows = stmt.query_map([problem], |r| {
            Ok(Occurrence {
                statement: r.get(0)?,
                confidence: r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                notes: r.get(2)?,
                path: r.get(3)?,
                source_id: r.get(4)?,
            })
        })?;
        for o in rows {
            let o = o?;
            proofs
                .entry(normalize_ws(&o.statement))
                .or_default()
                .push(o);
        }
        let mut stmt = conn.prepare_cached(
            "SELECT f.theorem_statement FROM sources s
             CROSS JOIN findings f INDEXED BY idx_findings_source ON f.source_id = s.id
             WHERE s.problem_id = ?1 AND f.finding_type = 'false_lemma'
               AND f.theorem_statement IS NOT NULL",
        )?;
        let disproofs = stmt
            .query_map([problem], |r| r.get::<_, String>(0))?
            .map(|s| s.map(|s| normalize_ws(&s)))
            .collect::<rusqlite::Result<_>>()?;
        Ok(Evidence { proofs, disproofs })
    }

    /// Our status of `statement`: `proven` by a complete, unconditional proof of it that a
    /// checker compiled (the best one's confidence and file) and that is not a bounded check of
    /// an open statement (`open`: the literature calls it open); else `false` when a file
    /// disproves it; else `partial` when a file proves it without a checker, only
    /// conditionally or only for finitely many cases.
    fn judge(&self, statement: &str, open: bool) -> Judged {
        let key = normalize_ws(statement);
        let mut judged = Judged::default();
        let occurrences = self.proofs.get(&key).map(Vec::as_slice).unwrap_or(&[]);
        let bounded_open = |o: &Occurrence| {
            o.notes.contains(BOUNDED_CHECK_OF_OPEN) || (open && o.notes.contains(BOUNDED_CHECK))
        };
        let mut best: Option<&Occurrence> = None;
        for o in occurrences {
            if !COMPLETE.contains(&o.confidence.as_str()) || bounded_open(o) {
                continue;
            }
            if CHECKED.contains(&o.confidence.as_str()) {
                judged.checked_sources.insert(o.source_id);
            }
            let better = best.is_none_or(|b| {
                (confidence_rank(&o.confidence), &o.path)
                    < (confidence_rank(&b.confidence), &b.path)
            });
            if better {
                best = Some(o);
            }
        }
        if let Some(b) = best {
            judged.confidence = Some(b.confidence.clone());
            judged.proof_source = Some(b.path.clone());
        }
        if best.is_some_and(|b| CHECKED.contains(&b.confidence.as_str())) {
            judged.status = Some("proven");
        } else if self.disproofs.contains(&key) {
            judged.status = Some("false");
        } else if !occurrences.is_empty() {
            judged.status = Some("partial");
        }
        judged
    }
}

/// A statement a file of the problem gives ([`super::StatementRecord`]), with its file.
struct Stated {
    theorem_name: String,
    statement: String,
    variant: bool,
    rank: i64,
    literature: Option<String>,
    path: String,
}

fn statements(conn: &Connection, problem: &str) -> rusqlite::Result<Vec<Stated>> {
    let mut stmt = conn.prepare_cached(
        "SELECT ps.theorem_name, ps.statement, ps.variant, ps.literature, s.path, ps.rank
         FROM problem_statements ps JOIN sources s ON s.id = ps.source_id
         WHERE ps.problem_id = ?1
         ORDER BY ps.variant, ps.rank, ps.source_id, ps.theorem_name",
    )?;
    let rows = stmt.query_map([problem], |r| {
        Ok(Stated {
            theorem_name: r.get(0)?,
            statement: r.get(1)?,
            variant: r.get(2)?,
            literature: r.get(3)?,
            path: r.get(4)?,
            rank: r.get(5)?,
        })
    })?;
    rows.collect()
}

/// The problem's main statement: among the files' main statements of the strongest rank
/// (`stated` is ordered by rank, then by file), the theorem whose own name is the problem
/// `problem` in any spelling ([`crate::problem::named_after_problem`]), else the theorem most
/// files state (several sketches of one problem may each ask a lemma of their own; the target
/// they share is asked most); in the wording most of them give; the earliest on a tie. The
/// main theorems of sketches that ask nothing (the weakest rank) count only for a problem no
/// scheme names, and only when they are all one theorem.
fn main_statement<'s>(stated: &'s [Stated], problem: &str) -> Option<&'s Stated> {
    let mains: Vec<&Stated> = stated.iter().filter(|s| !s.variant).collect();
    let rank = mains.first()?.rank;
    let best: Vec<&Stated> = mains.into_iter().filter(|s| s.rank == rank).collect();
    // A sketch's main theorem states a problem the users' sketches name (`vertex_cover_le`),
    // never one a scheme names (`erdos_319`), whose statement a catalogue gives; and only when
    // all its sketches state the same theorem.
    // Nor of a named result (`feit_thompson_conjecture`, `wolstenholme_theorem`: an id its
    // files' words give) unless the theorem is named after it: a sketch's own main theorem of
    // another name (`feit_thompson_p3_q71`) is a case or a step of the result, not the result.
    let exactly_named = |s: &Stated| {
        crate::problem::named_after_problem(&s.theorem_name, problem)
            == Some(crate::problem::NamedAfter::Exactly)
    };
    if rank >= SKETCH_MAIN
        && (crate::problem::scheme::whole(problem).is_some()
            || (names_a_result(problem) && !best.iter().all(|s| exactly_named(s)))
            || best.iter().any(|s| s.theorem_name != best[0].theorem_name))
    {
        return None;
    }
    let most = |items: Vec<&str>| -> Option<String> {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for i in items {
            match counts.iter_mut().find(|(x, _)| *x == i) {
                Some((_, n)) => *n += 1,
                None => counts.push((i, 1)),
            }
        }
        let max = counts.iter().map(|c| c.1).max()?;
        counts
            .into_iter()
            .find(|c| c.1 == max)
            .map(|c| c.0.to_string())
    };
    // A theorem's own name, not a namespace: every declaration of `namespace Imo2025P4` is in
    // it, and only its own name says which one states the problem (`exactly_named`).
    let of_name: Vec<&Stated> = match best.iter().any(|s| exactly_named(s)) {
        true => best.into_iter().filter(|s| exactly_named(s)).collect(),
        false => {
            let name = most(best.iter().map(|s| s.theorem_name.as_str()).collect())?;
            best.into_iter()
                .filter(|s| s.theorem_name == name)
                .collect()
        }
    };
    let normalized: Vec<String> = of_name.iter().map(|s| normalize_ws(&s.statement)).collect();
    let wording = most(normalized.iter().map(String::as_str).collect())?;
    of_name
        .into_iter()
        .zip(&normalized)
        .find(|(_, n)| **n == wording)
        .map(|(s, _)| s)
}

/// Whether problem id `problem` names a result in words (`…_conjecture`, `…_theorem`,
/// `…_problem`, `…_hypothesis`): the whole result, of which a claim under another name is a
/// case or a step.
fn names_a_result(problem: &str) -> bool {
    ["_conjecture", "_theorem", "_problem", "_hypothesis"]
        .iter()
        .any(|kind| problem.ends_with(kind))
}

/// The literature's status of the main statement: the first catalogue word on it or on a
/// theorem of the same name in another file; else, when the main theorem is named after the
/// problem `problem`, on any main theorem named after it in any spelling or namespace
/// (`Erdos340.erdos_340` for `erdos_340`, compared through
/// [`crate::problem::named_after_problem`], as the statement is chosen); with the file that
/// says it.
fn literature_of<'s>(
    stated: &'s [Stated],
    main: &Stated,
    problem: &str,
) -> Option<(&'s str, &'s str)> {
    let named_after = |name: &str| {
        crate::problem::named_after_problem(name, problem)
            == Some(crate::problem::NamedAfter::Exactly)
    };
    let word = |s: &'s Stated| Some((s.literature.as_deref()?, s.path.as_str()));
    let mains = || stated.iter().filter(|s| !s.variant);
    mains()
        .filter(|s| s.theorem_name == main.theorem_name)
        .find_map(word)
        .or_else(|| {
            named_after(&main.theorem_name)
                .then(|| {
                    mains()
                        .filter(|s| named_after(&s.theorem_name))
                        .find_map(word)
                })
                .flatten()
        })
}

/// The variants of a problem with our status of each: one per theorem name, stated first by
/// the strongest file.
fn variants(stated: &[Stated], main: Option<&Stated>, evidence: &Evidence) -> Vec<Variant> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for s in stated.iter().filter(|s| s.variant) {
        if main.is_some_and(|m| m.theorem_name == s.theorem_name)
            || !seen.insert(s.theorem_name.as_str())
        {
            continue;
        }
        let literature = s.literature.clone().or_else(|| {
            stated
                .iter()
                .filter(|o| o.theorem_name == s.theorem_name)
                .find_map(|o| o.literature.clone())
        });
        let judged = evidence.judge(&s.statement, literature.as_deref() == Some("open"));
        out.push(Variant {
            theorem_name: s.theorem_name.clone(),
            statement: s.statement.clone(),
            source: s.path.clone(),
            status: judged.status.unwrap_or("open").to_string(),
            confidence: judged.confidence,
            proof_source: judged.proof_source,
            literature_status: literature,
        });
    }
    out
}

/// Status order for "at least": `open` < `in_flight` < `partial`.
fn rank(status: &str) -> u8 {
    match status {
        "in_flight" => 1,
        "partial" => 2,
        "proven" => 3,
        "false" => 4,
        _ => 0,
    }
}

/// Domain evidence tiers, strongest first; `tracking` and `recorded` (a person's word) rank
/// after the files' own classification and imports, before the names a file uses.
fn evidence_rank(evidence: &str) -> u8 {
    match evidence {
        "classification" => 0,
        "imports" => 1,
        "tracking" | "recorded" => 2,
        "names" => 3,
        _ => 4,
    }
}

/// The domain the files of a problem give: the strongest evidence tier any file has, the
/// domain most files of that tier name (the earliest stored on a tie).
fn files_domain(conn: &Connection, problem: &str) -> rusqlite::Result<Option<(String, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT domain_id, domain_evidence FROM sources
         WHERE problem_id = ?1 AND domain_id IS NOT NULL AND domain_evidence IS NOT NULL
         ORDER BY id",
    )?;
    let rows: Vec<(String, String)> = stmt
        .query_map([problem], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let Some(tier) = rows.iter().map(|(_, e)| evidence_rank(e)).min() else {
        return Ok(None);
    };
    let mut votes: Vec<(&str, &str, usize)> = Vec::new();
    for (d, e) in rows.iter().filter(|(_, e)| evidence_rank(e) == tier) {
        match votes.iter_mut().find(|(v, _, _)| v == d) {
            Some((_, _, n)) => *n += 1,
            None => votes.push((d, e, 1)),
        }
    }
    let max = votes.iter().map(|v| v.2).max().unwrap_or(0);
    Ok(votes
        .into_iter()
        .find(|v| v.2 == max)
        .map(|(d, e, _)| (d.to_string(), e.to_string())))
}

/// What a stored problem row holds before settling.
struct Row {
    id: String,
    /// What tracking.db or a person said of its status, apart from the files.
    recorded_status: Option<String>,
    statement_source: Option<String>,
    domain_id: Option<String>,
    domain_evidence: Option<String>,
}

/// Settles every problem from its evidence (statement, status, literature status, domain,
/// attempt outcomes): what the knowledge base says of a problem is a function of its files
/// and of what tracking.db or a person recorded, whatever an earlier extractor said. Returns
/// how many problems changed.
pub(crate) fn settle(conn: &Connection) -> rusqlite::Result<usize> {
    settle_where(conn, None, |_| true)
}

/// [`settle`] for one problem (after a hand record).
pub(crate) fn settle_problem(conn: &Connection, id: &str) -> rusqlite::Result<usize> {
    settle_where(conn, Some(id), |_| true)
}

/// [`settle`] for the problems `ids` and every problem with a file of a slot in `slots` (an
/// output's attempt is judged against the input of its slot, which may be another problem's
/// file or none's), in the order [`settle`] takes them.
pub(crate) fn settle_some(
    conn: &Connection,
    ids: &HashSet<String>,
    slots: &HashSet<i64>,
) -> rusqlite::Result<usize> {
    let mut ids = ids.clone();
    let mut of_slot =
        conn.prepare_cached("SELECT DISTINCT problem_id FROM sources WHERE slot = ?1")?;
    for slot in slots {
        for id in of_slot.query_map([slot], |r| r.get::<_, Option<String>>(0))? {
            ids.extend(id?);
        }
    }
    settle_where(conn, None, |id| ids.contains(id))
}

fn settle_where(
    conn: &Connection,
    only: Option<&str>,
    wanted: impl Fn(&str) -> bool,
) -> rusqlite::Result<usize> {
    let rows: Vec<Row> = {
        let mut stmt = conn.prepare(
            "SELECT id, recorded_status, statement_source, domain_id, domain_evidence
             FROM problems WHERE ?1 IS NULL OR id = ?1",
        )?;
        let rows = stmt.query_map([only], |r| {
            Ok(Row {
                id: r.get(0)?,
                recorded_status: r.get(1)?,
                statement_source: r.get(2)?,
                domain_id: r.get(3)?,
                domain_evidence: r.get(4)?,
            })
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut changed = 0;
    for row in rows.iter().filter(|r| wanted(&r.id)) {
        changed += usize::from(settle_one(conn, row)?);
    }
    Ok(changed)
}

/// Our status of a problem: `proven` or `false` as its main statement is judged; else the
/// highest of `partial` (a file proves the main statement without a checker or only
/// conditionally, an attempt proves something outright, or a file completely proves what it
/// states as its problem's) and what tracking.db or a person
/// recorded; else `open`. A recorded `proven` of a problem with files reads `partial` when no
/// file proves its main statement: ours is proven only by a checked proof.
fn status_of(
    judged: Option<&'static str>,
    progress: bool,
    recorded: Option<&str>,
    has_files: bool,
) -> String {
    if let Some(s @ ("proven" | "false")) = judged {
        return s.to_string();
    }
    let recorded = match recorded {
        Some("proven") if has_files => Some("partial"),
        other => other,
    };
    [judged, progress.then_some("partial"), recorded]
        .into_iter()
        .flatten()
        .max_by_key(|s| rank(s))
        .unwrap_or("open")
        .to_string()
}

fn settle_one(conn: &Connection, row: &Row) -> rusqlite::Result<bool> {
    let problem = row.id.as_str();
    let stated = statements(conn, problem)?;
    let evidence = Evidence::load(conn, problem)?;
    let main = main_statement(&stated, problem);
    let literature = main.and_then(|m| literature_of(&stated, m, problem));
    let open = literature.is_some_and(|(l, _)| l == "open");
    let judged = main
        .map(|m| evidence.judge(&m.statement, open))
        .unwrap_or_default();
    // The attempts first: whether one made progress (filled a hole of its input) is the
    // problem's evidence below.
    settle_attempts(conn, problem, &judged.checked_sources)?;
    // An attempt that proves something outright.
    let (has_files, progress): (bool, bool) = conn
        .prepare_cached(
            "SELECT EXISTS (SELECT 1 FROM sources WHERE problem_id = ?1),
                    EXISTS (SELECT 1 FROM attempts WHERE problem_id = ?1 AND outcome != 'failed')",
        )?
        .query_row([problem], |r| Ok((r.get(0)?, r.get(1)?)))?;
    // A complete proof of what a file states as its problem's (its own target) is progress on
    // the problem, even where that is not known to be the main statement (a scheme's problem
    // whose files each state a theorem of their own): a problem is never `open` beside a
    // complete proof of what its own files ask.
    let own_target = stated.iter().filter(|s| !s.variant).any(|s| {
        evidence
            .judge(&s.statement, s.literature.as_deref() == Some("open"))
            .confidence
            .is_some()
    });
    let status = status_of(
        judged.status,
        progress || own_target,
        row.recorded_status.as_deref(),
        has_files,
    );
    // The statement: the main one of the files, else what tracking.db said.
    let keep_statement = main.is_none() && row.statement_source.as_deref() == Some(TRACKING);
    // A person's word (tracking.db, `mk record`) stands unless a file's stronger evidence
    // says otherwise; an older extraction's domain gives way to what the files say now.
    let person = row
        .domain_evidence
        .as_deref()
        .filter(|e| matches!(*e, "tracking" | "recorded"))
        .filter(|_| row.domain_id.is_some());
    let (domain, domain_evidence) = match (files_domain(conn, problem)?, person) {
        (Some((d, e)), None) => (Some(d), Some(e)),
        (Some((d, e)), Some(p)) if evidence_rank(&e) < evidence_rank(p) => (Some(d), Some(e)),
        (_, Some(_)) => (row.domain_id.clone(), row.domain_evidence.clone()),
        (None, None) => (None, None),
    };
    let changed =
        conn.prepare_cached(
            "UPDATE problems SET status = ?2, confidence = ?3, proof_source = ?4,
                statement = CASE WHEN ?5 THEN statement ELSE ?6 END,
                statement_source = CASE WHEN ?5 THEN statement_source ELSE ?7 END,
                statement_theorem = CASE WHEN ?5 THEN statement_theorem ELSE ?8 END,
                literature_status = ?9, literature_source = ?10,
                domain_id = ?11, domain_evidence = ?12, updated_at = datetime('now')
             WHERE id = ?1 AND (status IS NOT ?2 OR confidence IS NOT ?3 OR proof_source IS NOT ?4
                OR (NOT ?5 AND (statement IS NOT ?6 OR statement_source IS NOT ?7
                                OR statement_theorem IS NOT ?8))
                OR literature_status IS NOT ?9 OR literature_source IS NOT ?10
                OR domain_id IS NOT ?11 OR domain_evidence IS NOT ?12)",
        )?
        .execute(params![
            problem,
            status,
            judged.confidence.as_deref(),
            judged.proof_source.as_deref(),
            keep_statement,
            main.map(|m| m.statement.as_str()),
            main.map(|m| m.path.as_str()),
            main.map(|m| m.theorem_name.as_str()),
            literature.map(|(l, _)| l),
            literature.map(|(_, p)| p),
            domain,
            domain_evidence,
        ])? > 0;
    spread_domain(conn, problem, domain.as_deref())?;
    Ok(changed)
}

/// Where a problem's statement came from when tracking.db gave it.
pub(crate) const TRACKING: &str = "tracking.db";

/// Files that say nothing of their domain take their problem's: their findings, their
/// attempts, and the strategies derived from them.
fn spread_domain(conn: &Connection, problem: &str, domain: Option<&str>) -> rusqlite::Result<()> {
    conn.prepare_cached(
        "UPDATE findings SET domain_id = ?2
         WHERE source_id IN (SELECT id FROM sources WHERE problem_id = ?1 AND domain_id IS NULL)
           AND domain_id IS NOT ?2",
    )?
    .execute(params![problem, domain])?;
    conn.prepare_cached(
        "UPDATE attempts SET domain_id = ?2
         WHERE problem_id = ?1 AND domain_id IS NOT ?2
           AND source_id IN (SELECT id FROM sources WHERE problem_id = ?1 AND domain_id IS NULL)",
    )?
    .execute(params![problem, domain])?;
    conn.prepare_cached(
        "UPDATE strategies SET domain_id = ?2
         WHERE problem_id = ?1 AND domain_id IS NULL AND learned LIKE 'extracted:%'",
    )?
    .execute(params![problem, domain])?;
    Ok(())
}

/// An attempt is `proven` when its file holds a complete, unconditional, checked proof of the
/// problem's main statement; else `failed` when its input is known ([`input_of`]) and it proves
/// nothing the input did not already prove (no hole filled); one that proves something else
/// is `partial`; `failed` (it proves nothing) stays. Where no input is known, any complete
/// proof counts. The strategies derived from changed attempts are rewritten.
fn settle_attempts(
    conn: &Connection,
    problem: &str,
    proving: &HashSet<i64>,
) -> rusqlite::Result<()> {
    let attempts: Vec<(i64, String, String)> = conn
        .prepare_cached(
            "SELECT source_id, approach, outcome FROM attempts
             WHERE problem_id = ?1 AND outcome != 'failed'",
        )?
        .query_map([problem], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut touched: Vec<(String, Option<String>)> = Vec::new();
    for (source, approach, outcome) in attempts {
        let wanted = if proving.contains(&source) {
            "proven"
        } else if input_of(conn, source)?
            .is_some_and(|input| nothing_new(conn, source, input).unwrap_or(false))
        {
            // It proves only what its input already proved: no hole filled.
            "failed"
        } else {
            "partial"
        };
        if outcome == wanted {
            continue;
        }
        conn.prepare_cached("UPDATE attempts SET outcome = ?2 WHERE source_id = ?1")?
            .execute(params![source, wanted])?;
        if !touched.iter().any(|(a, _)| *a == approach) {
            let domain: Option<String> = conn
                .prepare_cached("SELECT domain_id FROM attempts WHERE source_id = ?1")?
                .query_row([source], |r| r.get(0))
                .optional()?
                .flatten();
            touched.push((approach, domain));
        }
    }
    for (approach, domain) in touched {
        super::attempts::refresh(conn, problem, &approach, domain.as_deref())?;
    }
    Ok(())
}

/// The input with holes an output answers, where the files say it: a file Aristotle did not
/// return (no attempt, no request uuid), with a hole, of the same slot whose name, with `_` and a suffix added, is
/// the output's (`slot223e_simple.lean` for `slot223e_simple_aristotle.lean`); the longest such
/// name, in the output's own folder first. `None` when no file, or several different ones,
/// fit: the input is unknown. (An input without a hole asks for its proofs to be checked:
/// checking them is what its output does, so it is never compared.)
fn input_of(conn: &Connection, output: i64) -> rusqlite::Result<Option<i64>> {
    let Some((path, slot)) = conn
        .prepare_cached("SELECT path, slot FROM sources WHERE id = ?1")?
        .query_row([output], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, Option<i64>>(1)?))
        })
        .optional()?
    else {
        return Ok(None);
    };
    let Some(slot) = slot else {
        return Ok(None);
    };
    let split = |p: &str| -> (String, String) {
        let p = std::path::Path::new(p);
        let dir = p.parent().map(|d| d.to_string_lossy().into_owned());
        let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned());
        (dir.unwrap_or_default(), stem.unwrap_or_default())
    };
    let (dir, stem) = split(&path);
    let candidates: Vec<(i64, String, String)> = conn
        .prepare_cached(
            "SELECT s.id, s.path, s.content_hash FROM sources s
             WHERE s.slot = ?1 AND s.id != ?2 AND s.aristotle_uuid IS NULL AND s.sorry_count > 0
               AND NOT EXISTS (SELECT 1 FROM attempts a WHERE a.source_id = s.id)",
        )?
        .query_map(params![slot, output], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let fitting: Vec<(i64, String, usize, &str)> = candidates
        .iter()
        .filter_map(|(id, p, hash)| {
            let (d, s) = split(p);
            let fits = !s.is_empty()
                && stem.len() > s.len() + 1
                && stem.starts_with(&s)
                && stem[s.len()..].starts_with('_');
            fits.then_some((*id, d, s.len(), hash.as_str()))
        })
        .collect();
    let Some(longest) = fitting.iter().map(|f| f.2).max() else {
        return Ok(None);
    };
    let best: Vec<&(i64, String, usize, &str)> =
        fitting.iter().filter(|f| f.2 == longest).collect();
    let here: Vec<&&(i64, String, usize, &str)> = best.iter().filter(|f| f.1 == dir).collect();
    Ok(match (here.as_slice(), best.as_slice()) {
        ([one], _) => Some(one.0),
        ([], [first, rest @ ..]) if rest.iter().all(|f| f.3 == first.3) => Some(first.0),
        _ => None,
    })
}

/// Whether output `output` proves nothing its input `input` did not already prove: every
/// complete, unconditional proof in it is of a statement the input proves completely too.
fn nothing_new(conn: &Connection, output: i64, input: i64) -> rusqlite::Result<bool> {
    let complete = |source: i64| -> rusqlite::Result<HashSet<String>> {
        conn.prepare_cached(
            "SELECT f.theorem_statement FROM finding_sources fs
             JOIN findings f ON f.id = fs.finding_id
             WHERE fs.source_id = ?1 AND f.finding_type = 'theorem'
               AND f.theorem_statement IS NOT NULL
               AND coalesce(fs.confidence, f.confidence) IN ('verified', 'high', 'medium')",
        )?
        .query_map([source], |r| r.get::<_, String>(0))?
        .map(|s| s.map(|s| normalize_ws(&s)))
        .collect()
    };
    let before = complete(input)?;
    Ok(complete(output)?.iter().all(|s| before.contains(s)))
}

impl Kb {
    /// Settles every problem from its files' evidence and what was recorded of it (see the
    /// module documentation). Returns how many problems changed. Run after every extraction.
    pub fn settle_problem_status(&mut self) -> Result<usize> {
        self.settle_in_transaction(settle)
    }

    /// Runs one of the settles in an immediate transaction, retried while the database is busy.
    fn settle_in_transaction(
        &mut self,
        settle: impl Fn(&Connection) -> rusqlite::Result<usize>,
    ) -> Result<usize> {
        self.write_transaction(|tx, db| settle(tx).at(db))
    }

    /// [`Kb::settle_problem_status`] for the problems a run's files changed the evidence of:
    /// `ids`, and the problems with a file of a slot in `slots` (see [`settle_some`]). A
    /// problem's status, statement, literature status, domain and attempts are a function of
    /// its own files, its slots' inputs and what was recorded of it, so the others stay as
    /// they were settled.
    pub fn settle_problems(
        &mut self,
        ids: &HashSet<String>,
        slots: &HashSet<i64>,
    ) -> Result<usize> {
        self.settle_in_transaction(|conn| settle_some(conn, ids, slots))
    }

    /// The columns [`Problem::from_row`] reads, for this database's schema.
    pub(crate) fn problem_columns(&self) -> Result<&'static str> {
        Ok(match self.schema_version()? {
            9.. => Problem::COLUMNS,
            7 | 8 => Problem::COLUMNS_V7,
            _ => Problem::COLUMNS_V1,
        })
    }

    /// Whether nothing but its files' sketch names names problem `id`: it has a file whose
    /// evidence is `topic`, and every file's is `topic` or a copy's (a copy of such a file).
    /// A problem without files (recorded by hand, tracking.db's) is not.
    pub fn named_by_sketch_only(&self, id: &str) -> Result<bool> {
        if self.schema_version()? < 8 {
            return Ok(false);
        }
        self.conn
            .prepare_cached(&format!(
                "SELECT EXISTS (SELECT 1 FROM problems p WHERE p.id = ?1 AND {SKETCH_ONLY_SQL})"
            ))
            .and_then(|mut s| s.query_row([id], |r| r.get(0)))
            .at(&self.path)
    }

    /// The problem whose id has key `key` (see [`super::sql::problem_key`]), with its variants
    /// and its attempts by outcome: what `mk find`, `mk context` and the MCP tools show of it.
    pub fn problem_by_key(&self, key: &str) -> Result<Option<Problem>> {
        let current = self.schema_version()? >= 7;
        let sql = format!(
            "SELECT {} FROM problems WHERE {} = ?1 ORDER BY id LIMIT 1",
            self.problem_columns()?,
            super::sql::problem_key_sql("id")
        );
        let Some(mut problem) = self
            .rows(&sql, params![key], Problem::from_row)?
            .into_iter()
            .next()
        else {
            return Ok(None);
        };
        if self.has_facts() {
            // Copies of one output (same request uuid, else same bytes, in several folders)
            // are one attempt, with the best outcome any copy has.
            let counts = self.rows(
                "SELECT coalesce(sum(best = 2), 0), coalesce(sum(best = 1), 0),
                        coalesce(sum(best = 0), 0)
                 FROM (SELECT max(CASE a.outcome WHEN 'proven' THEN 2 WHEN 'partial' THEN 1
                                  ELSE 0 END) AS best
                       FROM attempts a JOIN sources s ON s.id = a.source_id
                       WHERE a.problem_id = ?1
                       GROUP BY coalesce(s.aristotle_uuid, s.content_hash))",
                [&problem.id],
                |r| AttemptCounts {
                    proven: r.get(0).unwrap_or(0),
                    partial: r.get(1).unwrap_or(0),
                    failed: r.get(2).unwrap_or(0),
                },
            )?;
            problem.attempts = counts.into_iter().next();
        }
        problem.named_by_sketch_only = self.named_by_sketch_only(&problem.id)?;
        if current {
            let conn = &self.conn;
            let read = || -> rusqlite::Result<Vec<Variant>> {
                let stated = statements(conn, &problem.id)?;
                if !stated.iter().any(|s| s.variant) {
                    return Ok(Vec::new());
                }
                let evidence = Evidence::load(conn, &problem.id)?;
                let main = main_statement(&stated, &problem.id);
                Ok(variants(&stated, main, &evidence))
            };
            problem.variants = read().at(&self.path)?;
        }
        Ok(Some(problem))
    }
}

/// How a problem (or a variant) stands, in words: the literature's status apart from ours,
/// ours with the confidence of its proof. `open in the literature; ours: partial`,
/// `ours: proven (verified)`, `ours: complete, unchecked` (a complete proof nobody checked).
pub fn standing(literature: Option<&str>, ours: Option<&str>, confidence: Option<&str>) -> String {
    let ours = ours.unwrap_or("open");
    let ours = match (ours, confidence) {
        ("proven", Some(c)) => format!("proven ({c})"),
        // A complete, unconditional proof of the statement that no checker compiled.
        ("partial", Some("medium")) => "complete, unchecked".to_string(),
        ("false", _) => "false (disproved as stated)".to_string(),
        (s, _) => s.replace('_', " "),
    };
    match literature {
        Some(l) => format!("{l} in the literature; ours: {ours}"),
        None => format!("ours: {ours}"),
    }
}

impl Problem {
    /// [`standing`] of the problem's main statement; of a problem named by its sketch only,
    /// said so: what its files prove is no status of mathematics their own words state.
    pub fn standing(&self) -> String {
        problem_standing(
            self.literature_status.as_deref(),
            self.status.as_deref(),
            self.confidence.as_deref(),
            self.named_by_sketch_only,
        )
    }
}

/// [`standing`] of a problem's main statement, said to be a label's when the problem is named
/// by its sketch only: what `mk find` prints as its status and `mk report` shows.
pub fn problem_standing(
    literature: Option<&str>,
    ours: Option<&str>,
    confidence: Option<&str>,
    named_by_sketch_only: bool,
) -> String {
    let standing = standing(literature, ours, confidence);
    if named_by_sketch_only {
        format!("{standing} ({SKETCH_ONLY})")
    } else {
        standing
    }
}

/// [`Kb::named_by_sketch_only`] as an SQL condition on problem `p` (`problems p`): one of its
/// files rests on `topic` evidence, and every other on `topic` or a copy's.
pub(crate) const SKETCH_ONLY_SQL: &str =
    "EXISTS (SELECT 1 FROM sources s WHERE s.problem_id = p.id AND s.problem_evidence = 'topic')
     AND NOT EXISTS (SELECT 1 FROM sources s WHERE s.problem_id = p.id
                     AND coalesce(s.problem_evidence, '') NOT IN ('topic', 'copy'))";

/// Whether files decided by these evidence kinds (`sources.problem_evidence`, one per file) name
/// their problem by its sketch only: one is `topic`, and every other is `topic` or a copy's.
/// The rule [`Kb::named_by_sketch_only`] asks of the database, for callers that hold the list.
pub fn sketch_only_evidence<'a>(evidence: impl IntoIterator<Item = &'a str>) -> bool {
    let mut topic = false;
    for e in evidence {
        match e {
            "topic" => topic = true,
            "copy" => {}
            _ => return false,
        }
    }
    topic
}

/// How a problem named only by its files' sketch names is marked wherever its status shows.
pub const SKETCH_ONLY: &str =
    "named by its sketch only: no file's own words say which problem this is";

impl Variant {
    /// [`standing`] of the variant.
    pub fn standing(&self) -> String {
        standing(
            self.literature_status.as_deref(),
            Some(&self.status),
            self.confidence.as_deref(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::sketch_only_evidence;

    fn stated(theorem: &str) -> super::Stated {
        super::Stated {
            theorem_name: theorem.to_string(),
            statement: format!("{theorem} : p"),
            variant: false,
            rank: super::SKETCH_MAIN,
            literature: None,
            path: "slot1_x.lean".to_string(),
        }
    }

    #[test]
    fn a_sketchs_main_theorem_of_another_name_is_no_statement_of_a_named_result() {
        use super::main_statement;
        // A case of the conjecture, under a name of its own: not the conjecture's statement.
        let case = [stated("feit_thompson_p3_q71")];
        assert!(main_statement(&case, "feit_thompson_conjecture").is_none());
        // The theorem named after the result states it.
        let named = [stated("wolstenholme_theorem")];
        assert!(main_statement(&named, "wolstenholme_theorem").is_some());
        // A problem the users' sketches name keeps its sketches' shared main theorem.
        let sketch = [stated("cover_bound")];
        assert!(main_statement(&sketch, "vertex_cover_le").is_some());
    }

    #[test]
    fn a_sketch_name_alone_is_topic_evidence_with_nothing_stronger() {
        assert!(sketch_only_evidence(["topic"]));
        assert!(sketch_only_evidence(["copy", "topic"]));
        assert!(!sketch_only_evidence(["copy"]));
        assert!(!sketch_only_evidence(["topic", "comment"]));
        assert!(!sketch_only_evidence(["topic", "unrecorded"]));
        assert!(!sketch_only_evidence([]));
    }
}
