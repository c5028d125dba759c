//! Text rendering of `mk` results: `[BADGE]` title lines, 2-space indented details, `---`
//! between entries, relative times.

use std::io::{self, Write};
use std::path::Path;

use crate::cli::render::{now_unix, number_list, one_line, relative_time, Painter, Style, RULE};
use crate::kb::{
    DateFrom, FailedReport, Finding, FindingType, MigrationReport, Opened, ProblemReport,
    Recommendations, Recorded, Resolved, ResultDate, Scope, SearchHit, Stats, StrategiesReport,
    TableCount,
};
use crate::tracking::{FalseLemma, Tracking};

type Out<'a> = &'a mut dyn Write;

const EMPTY_HINT: &str = "The knowledge base is empty. Bootstrap it from tracking.db with `mk init --from-tracking PATH`, or extract result files with `mf extract --all RESULTS_DIR`.";
const WIDTH: usize = 160;

fn badge(p: Painter, finding_type: &str) -> String {
    finding_badge(p, finding_type, None)
}

/// A finding's badge: a theorem says `[PROVEN]` only when a checker or a compiled output
/// vouches for it (`verified`, `high`); an unchecked one is `[UNCHECKED]`, one resting on a
/// hole `[CONDITIONAL]`. Without a confidence (a group of theorems) it is `[THEOREM]`.
fn finding_badge(p: Painter, finding_type: &str, confidence: Option<&str>) -> String {
    let kind = finding_type.parse::<FindingType>().ok();
    if kind == Some(FindingType::Theorem) {
        let (text, style) = match confidence {
            Some("verified" | "high") => ("[PROVEN]", Style::Green),
            Some("low") => ("[CONDITIONAL]", Style::Yellow),
            Some(_) => ("[UNCHECKED]", Style::Yellow),
            None => ("[THEOREM]", Style::Green),
        };
        return p.paint(style, text);
    }
    let text = kind.map_or_else(
        || format!("[{}]", finding_type.to_uppercase()),
        |k| k.badge().to_string(),
    );
    let style = match kind {
        Some(FindingType::Theorem) => Style::Green,
        Some(FindingType::Failure) | Some(FindingType::FalseLemma) => Style::Red,
        Some(FindingType::Technique) | Some(FindingType::MathlibApi) => Style::Cyan,
        _ => Style::Yellow,
    };
    p.paint(style, &text)
}

/// A problem's or variant's status badge (`proven` needs a proof a checker vouches for).
fn status_badge(p: Painter, status: &str) -> String {
    let style = match status {
        "proven" => Style::Green,
        "false" | "conflict" => Style::Red,
        _ => Style::Yellow,
    };
    p.paint(style, &format!("[{}]", status.to_uppercase()))
}

fn when(ts: &Option<String>, now: i64) -> Option<String> {
    ts.as_deref().map(|t| relative_time(t, now))
}

/// "Domain: nt | Slot: 614 | Problem: erdos_850 | verified | 3 days ago", or with the
/// result's own date in place of the time it was stored: "… | verified | dated 2026-01-04
/// 16:15 (stated in the file)".
fn meta_line(f: &Finding, date: Option<&ResultDate>, now: i64) -> String {
    let mut parts = vec![
        format!("Domain: {}", f.domain_id.as_deref().unwrap_or("?")),
        format!(
            "Slot: {}",
            f.source_slot.map_or("?".to_string(), |s| s.to_string())
        ),
    ];
    if let Some(p) = &f.problem_id {
        parts.push(format!("Problem: {p}"));
    }
    if let Some(c) = &f.confidence {
        parts.push(c.clone());
    }
    match date {
        Some(d) => parts.push(result_date(d)),
        None => parts.extend(when(&f.created_at, now)),
    }
    parts.join(" | ")
}

/// "dated 2026-01-04 16:15 (stated in the file)", "file modified 2026-11-20 09:12", …
fn result_date(d: &ResultDate) -> String {
    // Minutes are enough; SQLite's `YYYY-MM-DD HH:MM:SS`, UTC.
    let at = d.date.get(..16).unwrap_or(&d.date);
    match d.from {
        DateFrom::Stated => format!("dated {at} (stated in the file)"),
        DateFrom::Modified => format!("file modified {at}"),
        DateFrom::Extracted => format!("extracted {at} (file date unknown)"),
        DateFrom::Recorded => format!("recorded {at}"),
    }
}

/// A path as the user would type it: relative to the current directory when below it.
fn shown_path(path: &str) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| {
            Path::new(path)
                .strip_prefix(cwd)
                .ok()
                .map(|p| p.display().to_string())
        })
        .unwrap_or_else(|| path.to_string())
}

/// The detail lines of a finding, each indented by `indent`.
fn finding_details(
    out: Out<'_>,
    p: Painter,
    f: &Finding,
    date: Option<&ResultDate>,
    indent: &str,
    now: i64,
) -> io::Result<()> {
    let summary = match (&f.proof_technique, f.kind()) {
        (Some(t), Some(FindingType::Theorem) | Some(FindingType::Technique)) => {
            format!("Technique: {t}")
        }
        _ => one_line(&f.description, 120),
    };
    if let Some(s) = f
        .theorem_statement
        .as_deref()
        .filter(|s| !s.trim().is_empty())
    {
        writeln!(out, "{indent}{}", one_line(s, WIDTH))?;
    }
    let repeats_why = f
        .why_failed
        .as_deref()
        .is_some_and(|w| one_line(w, 120) == summary);
    if !summary.is_empty() && !repeats_why {
        writeln!(out, "{indent}{summary}")?;
    }
    why_lines(
        out,
        p,
        indent,
        [&f.why_failed, &f.counterexample, &f.avoid_pattern],
    )?;
    writeln!(
        out,
        "{indent}{}",
        p.paint(Style::Dim, &meta_line(f, date, now))
    )
}

/// Why a failure failed (or a lemma is false), its counterexample and what to avoid, the lines
/// there are, each indented by `indent`.
fn why_lines(
    out: Out<'_>,
    p: Painter,
    indent: &str,
    [why, counterexample, avoid]: [&Option<String>; 3],
) -> io::Result<()> {
    if let Some(w) = why {
        writeln!(out, "{indent}Why: {}", one_line(w, WIDTH))?;
    }
    if let Some(c) = counterexample {
        writeln!(out, "{indent}Counterexample: {}", one_line(c, WIDTH))?;
    }
    if let Some(a) = avoid {
        writeln!(
            out,
            "{indent}{} {}",
            p.paint(Style::Yellow, "Avoid:"),
            one_line(a, WIDTH)
        )?;
    }
    Ok(())
}

pub(super) fn search(out: Out<'_>, p: Painter, hits: &[SearchHit]) -> io::Result<()> {
    let now = now_unix();
    for (i, h) in hits.iter().enumerate() {
        if i > 0 {
            writeln!(out, "{RULE}")?;
        }
        let f = &h.finding;
        writeln!(
            out,
            "{} {}",
            finding_badge(p, &f.finding_type, f.confidence.as_deref()),
            p.paint(Style::Bold, &one_line(&f.title, WIDTH))
        )?;
        finding_details(out, p, f, h.result_date.as_ref(), "  ", now)?;
        if let Some(file) = &f.source_file {
            writeln!(out, "  File: {}", shown_path(file))?;
        }
        if let Some(used) = &h.uses {
            writeln!(out, "  Uses {used}")?;
        }
        if !h.also_in_slots.is_empty() {
            writeln!(out, "  Also in slots {}", number_list(&h.also_in_slots, 12))?;
        } else if h.duplicates > 0 {
            writeln!(
                out,
                "  Stated {} more time{}",
                h.duplicates,
                if h.duplicates == 1 { "" } else { "s" }
            )?;
        }
    }
    Ok(())
}

pub(super) fn no_results(out: Out<'_>, query: &str, kb_empty: bool) -> io::Result<()> {
    if kb_empty {
        writeln!(out, "{EMPTY_HINT}")
    } else {
        writeln!(out, "No facts match \"{}\".", one_line(query, 80))?;
        writeln!(
            out,
            "  Try fewer words, a partial name (card_le), or `mk find PROBLEM`."
        )
    }
}

pub(super) fn find(out: Out<'_>, p: Painter, r: &ProblemReport, kb_empty: bool) -> io::Result<()> {
    let now = now_unix();
    // An unknown problem is an error before this (kb::KbError::UnknownProblem).
    if r.is_empty() {
        if kb_empty {
            writeln!(out, "{EMPTY_HINT}")?;
        }
        return notes(out, p, &r.notes);
    }
    match &r.problem {
        Some(pr) => {
            // Contradicting evidence outranks any stored status.
            let status = if r.conflicts.is_empty() {
                pr.status.as_deref().unwrap_or("open")
            } else {
                "conflict"
            };
            let title = if pr.name != pr.id {
                format!("{} — {}", pr.id, pr.name)
            } else {
                pr.id.clone()
            };
            // A status no file's own words anchor is marked beside the badge, not only on the
            // status line below: the headline is what a reader skims.
            let sketch_only = if pr.named_by_sketch_only {
                format!(" {}", p.paint(Style::Dim, "(named by its sketch only)"))
            } else {
                String::new()
            };
            writeln!(
                out,
                "{} {}{sketch_only}",
                status_badge(p, status),
                p.paint(Style::Bold, &title)
            )?;
            let domain = match (&pr.domain_id, &pr.domain_evidence) {
                (Some(d), Some(e)) => format!("{d} (by {e})"),
                (Some(d), None) => d.clone(),
                (None, _) => "unknown".into(),
            };
            // Each count names what it counts: files, occurrences of verified theorems, and
            // failure facts; attempts by outcome are on their own line.
            writeln!(
                out,
                "  Domain: {domain} | Submissions: {} | Verified theorem occurrences: {} | Failure facts: {}",
                pr.submission_count, pr.proven_count, pr.failed_count
            )?;
            match &pr.statement {
                Some(s) => {
                    writeln!(out, "  Statement: {}", one_line(s, WIDTH))?;
                    if let Some(src) = &pr.statement_source {
                        let theorem = pr
                            .statement_theorem
                            .as_deref()
                            .map(|t| format!(", theorem {t}"))
                            .unwrap_or_default();
                        writeln!(
                            out,
                            "    {}",
                            p.paint(Style::Dim, &format!("from {src}{theorem}"))
                        )?;
                    }
                }
                None => writeln!(
                    out,
                    "  Statement: unknown (no file states the problem's main theorem)"
                )?,
            }
            // The same mathematics under other ids: linked, not merged.
            for same in &r.same_statement {
                let status = same.status.as_deref().unwrap_or("open");
                writeln!(
                    out,
                    "  Same statement as: {} ({status}) {}",
                    p.paint(Style::Bold, &same.id),
                    p.paint(
                        Style::Dim,
                        &format!(
                            "— {}, theorem {}",
                            same.statement_source, same.statement_theorem
                        )
                    )
                )?;
            }
            writeln!(out, "  Status: {}", pr.standing())?;
            // What a person or tracking.db said, where it says more than ours.
            if let Some(r) = pr
                .recorded_status
                .as_deref()
                .filter(|r| *r != "open" && Some(*r) != pr.status.as_deref())
            {
                writeln!(
                    out,
                    "    {}",
                    p.paint(
                        Style::Dim,
                        &format!(
                            "recorded: {} (tracking.db or mk record)",
                            r.replace('_', " ")
                        )
                    )
                )?;
            }
            if let Some(src) = &pr.proof_source {
                writeln!(
                    out,
                    "    {}",
                    p.paint(Style::Dim, &format!("proof in {src}"))
                )?;
            }
            match &pr.attempts {
                Some(a) if a.proven + a.partial + a.failed > 0 => writeln!(
                    out,
                    "  Attempts: {} proven, {} partial, {} failed",
                    a.proven, a.partial, a.failed
                )?,
                Some(_) => writeln!(out, "  Attempts: none")?,
                None => {}
            }
            if let Some(b) = &pr.best_result {
                writeln!(out, "  Best result: {}", one_line(b, WIDTH))?;
            }
            if !pr.variants.is_empty() {
                writeln!(out, "  Variants ({})", pr.variants.len())?;
                for v in &pr.variants {
                    writeln!(
                        out,
                        "    {} {}  {}",
                        status_badge(p, &v.status),
                        v.theorem_name,
                        p.paint(Style::Dim, &v.standing())
                    )?;
                    writeln!(out, "      {}", one_line(&v.statement, WIDTH))?;
                }
            }
        }
        None => writeln!(
            out,
            "{}",
            p.paint(Style::Bold, &format!("{} (no problem row)", r.query))
        )?,
    }
    if !r.conflicts.is_empty() {
        writeln!(out, "{RULE}")?;
        writeln!(
            out,
            "{} {}: proven in one file, disproved in another",
            p.paint(Style::Red, "[CONFLICT]"),
            r.conflicts.len()
        )?;
        for c in &r.conflicts {
            writeln!(out, "  {}", p.paint(Style::Bold, &c.theorem_name))?;
            writeln!(out, "    {}", one_line(&c.statement, WIDTH))?;
            writeln!(out, "    proven ({}) in {}", c.confidence, c.proven_in)?;
            writeln!(out, "    disproved in {}", c.disproved_in)?;
        }
    }
    if !r.findings.is_empty() {
        writeln!(out, "{RULE}")?;
        writeln!(out, "Facts, by type")?;
        for g in &r.findings {
            let more = if g.total > g.recent.len() as i64 {
                format!(" (latest {})", g.recent.len())
            } else {
                String::new()
            };
            writeln!(out, "  {} {}{more}", badge(p, &g.finding_type), g.total)?;
            for f in &g.recent {
                let slot = f
                    .source_slot
                    .map(|s| format!("slot {s}, "))
                    .unwrap_or_default();
                let confidence = f
                    .confidence
                    .as_deref()
                    .map(|c| format!("{c}, "))
                    .unwrap_or_default();
                let t = when(&f.created_at, now).unwrap_or_default();
                writeln!(
                    out,
                    "    {}  {}",
                    one_line(&f.title, 100),
                    p.paint(Style::Dim, &format!("{slot}{confidence}{t}"))
                )?;
            }
        }
    }
    if !r.strategies.is_empty() {
        writeln!(out, "{RULE}")?;
        writeln!(
            out,
            "Strategies (attempts by approach, with their best outcome)"
        )?;
        for s in &r.strategies {
            let style = match s.outcome.as_str() {
                "proven" => Style::Green,
                "failed" => Style::Red,
                _ => Style::Yellow,
            };
            let slot = s
                .submission_slot
                .map(|x| format!(", slot {x}"))
                .unwrap_or_default();
            let plural = if s.attempts == 1 { "" } else { "s" };
            writeln!(
                out,
                "  {} {}  {}",
                p.paint(style, &format!("[{}]", s.outcome.to_uppercase())),
                s.approach_name,
                p.paint(
                    Style::Dim,
                    &format!("({} attempt{plural}{slot})", s.attempts)
                )
            )?;
            if let Some(l) = &s.learned {
                writeln!(out, "    Learned: {}", one_line(l, WIDTH))?;
            }
        }
    }
    if !r.false_lemmas.is_empty() {
        writeln!(out, "{RULE}")?;
        writeln!(out, "False lemmas (tracking.db)")?;
        false_lemmas(out, p, &r.false_lemmas)?;
    }
    if !r.submissions.is_empty() {
        writeln!(out, "{RULE}")?;
        writeln!(out, "Submissions (tracking.db)")?;
        for s in &r.submissions {
            let mut parts = vec![s.status.clone().unwrap_or_else(|| "?".into())];
            if let Some(n) = s.sorry_count {
                parts.push(format!("sorry {n}"));
            }
            if let Some(n) = s.proven_count {
                parts.push(format!("proven {n}"));
            }
            if let Some(t) = when(
                &s.completed_at.clone().or_else(|| s.created_at.clone()),
                now,
            ) {
                parts.push(t);
            }
            let name = s
                .filename
                .clone()
                .or_else(|| s.uuid.clone())
                .unwrap_or_else(|| "?".into());
            writeln!(out, "  {name}  {}", p.paint(Style::Dim, &parts.join(" | ")))?;
        }
    }
    notes(out, p, &r.notes)
}

fn false_lemmas(out: Out<'_>, p: Painter, lemmas: &[FalseLemma]) -> io::Result<()> {
    for l in lemmas {
        writeln!(
            out,
            "  {} {}",
            badge(p, "false_lemma"),
            l.lemma_name.as_deref().unwrap_or("?")
        )?;
        why_lines(
            out,
            p,
            "    ",
            [&l.why_false, &l.counterexample, &l.avoid_pattern],
        )?;
    }
    Ok(())
}

fn notes(out: Out<'_>, p: Painter, notes: &[String]) -> io::Result<()> {
    for n in notes {
        writeln!(out, "{} {n}", p.paint(Style::Dim, "note:"))?;
    }
    Ok(())
}

pub(super) fn failed(out: Out<'_>, p: Painter, r: &FailedReport, kb_empty: bool) -> io::Result<()> {
    let now = now_unix();
    if r.findings.is_empty() && r.tracking_false_lemmas.is_empty() {
        match (&r.keyword, kb_empty) {
            (_, true) => writeln!(out, "{EMPTY_HINT}")?,
            (Some(k), _) => writeln!(
                out,
                "No failed approach or false lemma matches \"{}\".",
                one_line(k, 80)
            )?,
            (None, _) => writeln!(out, "No failed approaches or false lemmas recorded yet.")?,
        }
        return notes(out, p, &r.notes);
    }
    for (i, f) in r.findings.iter().enumerate() {
        if i > 0 {
            writeln!(out, "{RULE}")?;
        }
        writeln!(
            out,
            "{} {}",
            finding_badge(p, &f.finding_type, f.confidence.as_deref()),
            p.paint(Style::Bold, &one_line(&f.title, WIDTH))
        )?;
        finding_details(out, p, f, None, "  ", now)?;
    }
    if !r.tracking_false_lemmas.is_empty() {
        if !r.findings.is_empty() {
            writeln!(out, "{RULE}")?;
        }
        writeln!(
            out,
            "False lemmas in tracking.db not yet in knowledge.db (run `mk init` to migrate)"
        )?;
        false_lemmas(out, p, &r.tracking_false_lemmas)?;
    }
    notes(out, p, &r.notes)
}

pub(super) fn strategies(
    out: Out<'_>,
    p: Painter,
    r: &StrategiesReport,
    kb_empty: bool,
) -> io::Result<()> {
    let scope = r
        .domain
        .as_deref()
        .map(|d| format!(" in {d}"))
        .unwrap_or_default();
    if r.techniques.is_empty() && r.approaches.is_empty() {
        if kb_empty {
            return writeln!(out, "{EMPTY_HINT}");
        }
        writeln!(
            out,
            "No proven techniques or recorded strategies{scope} yet."
        )?;
        return writeln!(out, "  Record outcomes with `mk record strategy --problem P --approach A --outcome proven`.");
    }
    if !r.techniques.is_empty() {
        writeln!(
            out,
            "{}",
            p.paint(
                Style::Bold,
                &format!("Proven techniques{scope} (verified theorems)")
            )
        )?;
        let width = r
            .techniques
            .iter()
            .map(|t| t.technique.chars().count())
            .max()
            .unwrap_or(0)
            .min(48);
        for t in &r.techniques {
            let slots = if t.slots.is_empty() {
                String::new()
            } else {
                format!("  slots {}", number_list(&t.slots, 8))
            };
            writeln!(
                out,
                "  {:>5}  {:<width$}  [{}]{}",
                t.count,
                one_line(&t.technique, 48),
                t.domain_id.as_deref().unwrap_or("?"),
                p.paint(Style::Dim, &slots)
            )?;
        }
    }
    if !r.approaches.is_empty() {
        if !r.techniques.is_empty() {
            writeln!(out, "{RULE}")?;
        }
        writeln!(
            out,
            "{}",
            p.paint(Style::Bold, &format!("Recorded approaches{scope}"))
        )?;
        for a in &r.approaches {
            let mut parts = Vec::new();
            for (n, label, style) in [
                (a.proven, "proven", Style::Green),
                (a.partial, "partial", Style::Yellow),
                (a.failed, "failed", Style::Red),
                (a.in_flight, "in flight", Style::Cyan),
                (a.untried, "untried", Style::Dim),
            ] {
                if n > 0 {
                    parts.push(p.paint(style, &format!("{label} {n}")));
                }
            }
            let plural = if a.problems == 1 { "" } else { "s" };
            writeln!(
                out,
                "  {}  {}  ({} problem{plural})",
                one_line(&a.approach, 60),
                parts.join(" | "),
                a.problems
            )?;
        }
    }
    Ok(())
}

fn counts(items: &[crate::kb::Count]) -> String {
    if items.is_empty() {
        return "none".into();
    }
    items
        .iter()
        .map(|c| format!("{} {}", c.key.as_deref().unwrap_or("(none)"), c.count))
        .collect::<Vec<_>>()
        .join(" | ")
}

pub(super) fn stats(
    out: Out<'_>,
    p: Painter,
    db: &Resolved,
    tracking_db: &Resolved,
    s: &Stats,
    tracking: &Tracking,
    tables: &[(String, Option<i64>)],
) -> io::Result<()> {
    let now = now_unix();
    writeln!(out, "knowledge.db  {}", db.path.display())?;
    writeln!(out, "  {} | schema v{}", db.reason, s.schema_version)?;
    let state = if tracking.is_available() {
        "read-only"
    } else if !tracking_db.path.exists() {
        "not found (optional: the submission pipeline's database, read for cross-references)"
    } else {
        "not readable"
    };
    writeln!(out, "tracking.db   {}", tracking_db.path.display())?;
    writeln!(out, "  {} | {state}", tracking_db.reason)?;
    writeln!(out, "{RULE}")?;
    writeln!(
        out,
        "{} {}",
        p.paint(Style::Bold, &format!("Facts: {}", s.facts)),
        p.paint(
            Style::Dim,
            &format!(
                "({} in {}; a fact is one theorem, failure, false lemma or insight, an occurrence is a fact in one file)",
                plural(s.occurrences, "occurrence"),
                plural(s.freshness.files, "file")
            )
        )
    )?;
    writeln!(out, "  By type:       {}", counts(&s.by_type))?;
    writeln!(out, "  By domain:     {}", counts(&s.by_domain))?;
    writeln!(out, "  By confidence: {}", counts(&s.by_confidence))?;
    let f = &s.freshness;
    writeln!(
        out,
        "  Freshness:     latest fact {} | last extraction {} | {} stored in the last 7 days",
        when(&f.latest_fact, now).unwrap_or_else(|| "never".into()),
        when(&f.latest_extraction, now).unwrap_or_else(|| "never".into()),
        plural(f.facts_last_7_days, "fact"),
    )?;
    writeln!(out, "{}", p.paint(Style::Bold, "Strategies"))?;
    writeln!(out, "  Outcomes:      {}", counts(&s.strategy_outcomes))?;
    writeln!(
        out,
        "{}",
        p.paint(Style::Bold, &format!("Problems: {}", s.problems))
    )?;
    writeln!(out, "  By status:     {}", counts(&s.problems_by_status))?;
    if !s.named_by_sketch_only_by_status.is_empty() {
        writeln!(
            out,
            "  Of which {}: {}",
            crate::kb::SKETCH_ONLY,
            counts(&s.named_by_sketch_only_by_status)
        )?;
    }
    if tracking.is_available() {
        writeln!(out, "{RULE}")?;
        let t: Vec<String> = tables
            .iter()
            .map(|(name, n)| match n {
                Some(n) => format!("{name} {n}"),
                None => format!("{name} (missing)"),
            })
            .collect();
        writeln!(out, "tracking.db tables: {}", t.join(" | "))?;
    }
    // The header above already says a missing tracking.db is missing.
    if tracking_db.path.exists() {
        notes(out, p, &tracking.notes())?;
    }
    if s.facts == 0 {
        writeln!(out, "{EMPTY_HINT}")?;
    }
    Ok(())
}

/// `forgot 3 files: 10 occurrences removed`, the files, and the knowledge base after.
pub(super) fn forgotten(
    out: Out<'_>,
    p: Painter,
    r: &crate::kb::Forgotten,
    dry_run: bool,
) -> io::Result<()> {
    let n = r.files.len() as i64;
    if dry_run {
        writeln!(out, "would forget {}:", plural(n, "file"))?;
    } else {
        writeln!(
            out,
            "{}: {} removed",
            p.paint(Style::Bold, &format!("forgot {}", plural(n, "file"))),
            plural(r.occurrences_removed as i64, "occurrence")
        )?;
    }
    for f in &r.files {
        writeln!(out, "  {}", shown_path(f))?;
    }
    if dry_run {
        return Ok(());
    }
    if !r.problems_removed.is_empty() {
        writeln!(
            out,
            "problems left without any evidence, removed: {}",
            r.problems_removed.join(", ")
        )?;
    }
    writeln!(
        out,
        "knowledge base: {} ({:+}) in {}",
        plural(r.after.facts, "fact"),
        r.after.facts - r.before.facts,
        plural(r.after.occurrences, "occurrence")
    )
}

/// A query result printed as it streams in: rows are aligned in blocks of [`Table::BLOCK`]
/// (widths from the header and the block), so memory stays bounded by one block.
pub(super) struct Table {
    columns: Vec<String>,
    widths: Vec<usize>,
    block: Vec<Vec<String>>,
    rows: usize,
    header_done: bool,
}

impl Table {
    const BLOCK: usize = 500;
    const CELL: usize = 60;

    pub(super) fn new(columns: &[String]) -> Table {
        Table {
            columns: columns.to_vec(),
            widths: columns.iter().map(|c| c.chars().count()).collect(),
            block: Vec::new(),
            rows: 0,
            header_done: false,
        }
    }

    pub(super) fn push(
        &mut self,
        out: Out<'_>,
        p: Painter,
        row: &[serde_json::Value],
    ) -> io::Result<()> {
        let cells: Vec<String> = row
            .iter()
            .map(|v| match v {
                serde_json::Value::Null => "NULL".into(),
                serde_json::Value::String(s) => one_line(s, Self::CELL),
                other => other.to_string(),
            })
            .collect();
        self.rows += 1;
        self.block.push(cells);
        if self.block.len() >= Self::BLOCK {
            self.flush(out, p)?;
        }
        Ok(())
    }

    fn flush(&mut self, out: Out<'_>, p: Painter) -> io::Result<()> {
        if !self.header_done {
            for row in &self.block {
                for (w, c) in self.widths.iter_mut().zip(row) {
                    *w = (*w).max(c.chars().count());
                }
            }
            let header = self.line(&self.columns);
            writeln!(out, "{}", p.paint(Style::Bold, &header))?;
            self.header_done = true;
        }
        for row in std::mem::take(&mut self.block) {
            writeln!(out, "{}", self.line(&row))?;
        }
        Ok(())
    }

    fn line(&self, cells: &[String]) -> String {
        cells
            .iter()
            .zip(&self.widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect::<Vec<_>>()
            .join("  ")
            .trim_end()
            .to_string()
    }

    /// Prints what is left and the row count (`more`: the limit stopped the rows).
    pub(super) fn finish(mut self, out: Out<'_>, p: Painter, limited: bool) -> io::Result<()> {
        self.flush(out, p)?;
        let n = self.rows;
        let more = if limited { ", limit reached" } else { "" };
        writeln!(
            out,
            "{}",
            p.paint(
                Style::Dim,
                &format!("({n} row{}{more})", if n == 1 { "" } else { "s" })
            )
        )
    }
}

pub(super) fn recorded(out: Out<'_>, p: Painter, kind: &str, r: &Recorded) -> io::Result<()> {
    let mut parts = Vec::new();
    if let Some(id) = r.finding_id {
        parts.push(format!("fact #{id}"));
    }
    if let Some(id) = r.strategy_id {
        parts.push(format!("strategy #{id}"));
    }
    if let Some(n) = r.attempts {
        parts.push(format!(
            "{n} attempt{} so far",
            if n == 1 { "" } else { "s" }
        ));
    }
    let on = r
        .problem_id
        .as_deref()
        .map(|p| format!(" on {p}"))
        .unwrap_or_default();
    let outcome = r.outcome.map(|o| format!(" ({o})")).unwrap_or_default();
    writeln!(
        out,
        "{} {kind}{outcome}{on}: {}",
        p.paint(Style::Green, "Recorded"),
        parts.join(", ")
    )
}

pub(super) fn recommend(out: Out<'_>, p: Painter, r: &Recommendations) -> io::Result<()> {
    let (what, domain) = match &r.scope {
        Scope::Domain { domain } => (format!("domain {domain}"), domain),
        Scope::Problem { problem, domain } => (format!("{problem} (domain {domain})"), domain),
    };
    if r.recommendations.is_empty() {
        writeln!(out, "No recorded technique outcomes in {domain} yet.")?;
        writeln!(out, "  Record them with `mk record strategy --problem P --approach A --outcome proven|failed`.")?;
    } else {
        writeln!(
            out,
            "{}",
            p.paint(
                Style::Bold,
                &format!("Techniques for {what}, by estimated success rate")
            )
        )?;
        let width = r
            .recommendations
            .iter()
            .map(|x| x.technique.chars().count())
            .max()
            .unwrap_or(0)
            .min(48);
        for (i, x) in r.recommendations.iter().enumerate() {
            let n = x.successes + x.failures;
            if n == 0.0 {
                writeln!(
                    out,
                    "  {:>2}. {:<width$}  {}",
                    i + 1,
                    one_line(&x.technique, 48),
                    p.paint(Style::Dim, "no data")
                )?;
                continue;
            }
            writeln!(
                out,
                "  {:>2}. {:<width$}  {:>3.0}%  {}",
                i + 1,
                one_line(&x.technique, 48),
                x.estimate * 100.0,
                p.paint(
                    Style::Dim,
                    &format!(
                        "({} of {} attempts succeeded)",
                        fmt_count(x.successes),
                        fmt_count(n)
                    )
                )
            )?;
        }
    }
    if !r.excluded.is_empty() {
        writeln!(out, "{RULE}")?;
        writeln!(
            out,
            "{}",
            p.paint(Style::Red, "Already failed here (not recommended)")
        )?;
        for x in &r.excluded {
            let plural = if x.failed_here == 1 { "" } else { "s" };
            writeln!(
                out,
                "  - {} ({} failed attempt{plural})",
                one_line(&x.technique, 60),
                x.failed_here
            )?;
        }
    }
    writeln!(
        out,
        "{}",
        p.paint(
            Style::Dim,
            &format!(
                "Attempts succeeded: a proven attempt counts 1, a partial one ½. Estimates shrink toward the domain's base rate of {:.0}% (prior weight {}), so one lucky success does not top the list.",
                r.prior_mean * 100.0,
                r.prior_strength
            )
        )
    )
}

/// `1 fact`, `3 facts`.
fn plural(n: i64, unit: &str) -> String {
    format!("{n} {unit}{}", if n == 1 { "" } else { "s" })
}

fn fmt_count(x: f64) -> String {
    if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.1}")
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn init(
    out: Out<'_>,
    p: Painter,
    path: &Path,
    version: i64,
    opened: Opened,
    tracking_used: Option<&Resolved>,
    tracking_default: &Resolved,
    report: Option<&MigrationReport>,
) -> io::Result<()> {
    let what = match (opened.created, opened.upgraded_from) {
        (true, _) => "Created".to_string(),
        (_, Some(v)) => format!("Upgraded (from schema v{v})"),
        _ => "Up to date:".to_string(),
    };
    writeln!(
        out,
        "{} knowledge.db at {} (schema v{version})",
        p.paint(Style::Green, &what),
        path.display()
    )?;
    let Some(r) = report else {
        writeln!(
            out,
            "  No tracking.db at {} ({}); nothing migrated. Use --from-tracking PATH to migrate one.",
            tracking_default.path.display(),
            tracking_default.reason
        )?;
        return Ok(());
    };
    if let Some(t) = tracking_used {
        writeln!(
            out,
            "Migrated from tracking.db at {} ({})",
            t.path.display(),
            t.reason
        )?;
    }
    let row = |label: &str, c: &TableCount| {
        let mut s = format!("  {label:<18} {} added", c.added);
        if c.updated > 0 {
            s.push_str(&format!(", {} updated", c.updated));
        }
        s.push_str(&format!(", {} already present", c.unchanged));
        if c.skipped > 0 {
            s.push_str(&format!(", {} skipped", c.skipped));
        }
        s
    };
    writeln!(out, "{}", row("Theorems", &r.theorems))?;
    writeln!(out, "{}", row("False lemmas", &r.false_lemmas))?;
    writeln!(out, "{}", row("Failed approaches", &r.failed_approaches))?;
    writeln!(out, "{}", row("Strategies", &r.strategies))?;
    writeln!(out, "{}", row("Problems", &r.problems))?;
    writeln!(out, "  Total: {} added", r.total_added())?;
    notes(out, p, &r.notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_theorem_is_proven_only_when_something_vouches_for_it() {
        let p = Painter::new(false);
        let b = |c: Option<&str>| finding_badge(p, "theorem", c);
        assert_eq!(b(Some("verified")), "[PROVEN]");
        assert_eq!(b(Some("high")), "[PROVEN]");
        assert_eq!(b(Some("medium")), "[UNCHECKED]");
        assert_eq!(b(Some("low")), "[CONDITIONAL]");
        assert_eq!(b(None), "[THEOREM]");
        assert_eq!(finding_badge(p, "failure", Some("high")), "[FAILED]");
    }

    #[test]
    fn a_false_lemma_says_why_its_counterexample_and_what_to_avoid() {
        let lemma = FalseLemma {
            lemma_name: Some("cover_le_2".into()),
            why_false: Some("an edge's link\nneeds 3".into()),
            counterexample: Some("K4".into()),
            avoid_pattern: Some("covering links by 2 edges".into()),
            ..FalseLemma::default()
        };
        let mut out = Vec::new();
        false_lemmas(&mut out, Painter::new(false), std::slice::from_ref(&lemma)).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "  [FALSE] cover_le_2\n    Why: an edge's link needs 3\n    Counterexample: K4\n    \
             Avoid: covering links by 2 edges\n"
        );
        let bare = FalseLemma {
            counterexample: None,
            avoid_pattern: None,
            ..lemma
        };
        let mut out = Vec::new();
        false_lemmas(&mut out, Painter::new(false), &[bare]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "  [FALSE] cover_le_2\n    Why: an edge's link needs 3\n"
        );
    }
}
