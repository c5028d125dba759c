//! `mk report`: the whole campaign as one data model, which `cli::report` renders as a page.
//!
//! The numbers come from the queries the other commands answer with, so the page and the
//! command line never disagree: problem counts by status are `mk stats`'s, technique rates
//! `mk recommend`'s (per domain), failed approaches `mk strategies`'s, a problem's facts,
//! failed approaches, false lemmas and similar problems `mk context`'s. What only the report
//! needs (attempts dated and bucketed by week, facts by the day they were first proven, the
//! sessions the hooks journaled) is read here.
//!
//! **Dates.** An attempt is dated by the best evidence the knowledge base has: the
//! `completed_at` of the tracking.db submission with the file's request uuid, else the date
//! the file states of itself, else the file's modification time when it was read (both
//! `sources.result_date`, [`super::dates`]), else the time the file was extracted
//! (`sources.extracted_at`). Every attempt says which date it has ([`DateBasis`]) and the
//! report counts each kind.
//!
//! **Budget reached.** An attempt whose file Aristotle's header says stopped early (budget
//! reached, out of time, crashed) counts as `budget_reached` unless it proved its problem.
//! The knowledge base records that in the notes of the file's theorems (`origin=partial_output`),
//! so an early-stopped file with no sorry-free theorem counts by its stored outcome instead.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::context::{ContextItem, SimilarProblem, FACTS, FAILED, FALSE};
use super::error::{AtPath, KbError, Result};
use super::queries::{Count, SameStatement, Stats};
use super::sql::{int_at, problem_key, problem_key_sql, text_at};
use super::Kb;
use crate::problem::Evidence;
use crate::tracking::Tracking;

/// Weeks the attempts chart shows at most (the most recent ones).
pub const MAX_WEEKS: usize = 156;

/// A calendar day, as days since 1970-01-01 (UTC). Shown and serialized as `YYYY-MM-DD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Day(pub i64);

impl Day {
    /// The day a `YYYY-MM-DD…` text starts with (SQLite's `datetime` format, an ISO date).
    pub fn parse(text: &str) -> Option<Day> {
        let t = text.trim();
        let b = t.as_bytes();
        if b.len() < 10
            || b[4] != b'-'
            || b[7] != b'-'
            || (b.len() > 10 && !matches!(b[10], b' ' | b'T'))
        {
            return None;
        }
        let num = |r: std::ops::Range<usize>| t.get(r)?.parse::<i64>().ok();
        let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
        if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
            return None;
        }
        Some(Day::from_civil(y, m, d))
    }

    /// The day of a proleptic Gregorian year, month and day (a day past the month's end counts
    /// on into the next; the caller checks ranges it cares about).
    pub fn from_civil(y: i64, m: i64, d: i64) -> Day {
        Day(days_from_civil(y, m, d))
    }

    /// The day of Unix seconds.
    pub fn of_unix(secs: i64) -> Day {
        Day(secs.div_euclid(86_400))
    }

    /// Today (UTC) by the system clock.
    pub fn today() -> Day {
        let secs = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        Day::of_unix(secs)
    }

    /// The Monday of this day's week (ISO weeks start on Monday).
    pub fn week(self) -> Day {
        // 1970-01-01 was a Thursday: three days after a Monday.
        Day(self.0 - (self.0 + 3).rem_euclid(7))
    }
}

impl std::fmt::Display for Day {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (y, m, d) = civil_from_days(self.0);
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

impl Serialize for Day {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Reads `--since`: a date `YYYY-MM-DD`, or a span back from `today` (`7d`, `2w`).
pub fn parse_since(text: &str, today: Day) -> Result<Day> {
    let t = text.trim();
    let span = |unit: char, days: i64| {
        t.strip_suffix(unit)
            .and_then(|n| n.trim().parse::<i64>().ok())
            .filter(|n| (0..=100_000).contains(n))
            .map(|n| Day(today.0 - n * days))
    };
    Day::parse(t)
        .filter(|_| t.len() == 10)
        .or_else(|| span('d', 1))
        .or_else(|| span('w', 7))
        .ok_or_else(|| {
            KbError::Invalid(format!(
                "--since '{text}' is not a date: give YYYY-MM-DD (2025-01-06) or a span back from today (7d, 2w)"
            ))
        })
}

/// What `mk report` covers.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// One problem only (its id as users type it).
    pub problem: Option<String>,
    /// Activity on or after this day only.
    pub since: Option<Day>,
    /// Entries per list in a problem's section (facts, failed approaches, …).
    pub per_section: usize,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            problem: None,
            since: None,
            per_section: 3,
        }
    }
}

/// Where an attempt's date comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DateBasis {
    /// tracking.db's `completed_at` of the submission with the file's request uuid.
    Tracking,
    /// A date the file states of itself (a `Date:` line of its leading comment).
    Stated,
    /// The file's modification time when it was extracted.
    Modified,
    /// When the file was extracted into the knowledge base.
    Extracted,
}

/// How an attempt came out, as the report counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AttemptKind {
    Proven,
    Partial,
    /// Aristotle stopped before it was done (budget reached, out of time, crashed).
    BudgetReached,
    Failed,
}

impl AttemptKind {
    /// Every kind, best first (the order of the chart's stack and the table's columns).
    pub const ALL: [AttemptKind; 4] = [
        AttemptKind::Proven,
        AttemptKind::Partial,
        AttemptKind::BudgetReached,
        AttemptKind::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AttemptKind::Proven => "proven",
            AttemptKind::Partial => "partial",
            AttemptKind::BudgetReached => "budget_reached",
            AttemptKind::Failed => "failed",
        }
    }
}

/// Attempts by how they came out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct OutcomeCounts {
    pub proven: i64,
    pub partial: i64,
    pub budget_reached: i64,
    pub failed: i64,
}

impl OutcomeCounts {
    pub fn get(&self, kind: AttemptKind) -> i64 {
        match kind {
            AttemptKind::Proven => self.proven,
            AttemptKind::Partial => self.partial,
            AttemptKind::BudgetReached => self.budget_reached,
            AttemptKind::Failed => self.failed,
        }
    }

    fn add(&mut self, kind: AttemptKind) {
        *match kind {
            AttemptKind::Proven => &mut self.proven,
            AttemptKind::Partial => &mut self.partial,
            AttemptKind::BudgetReached => &mut self.budget_reached,
            AttemptKind::Failed => &mut self.failed,
        } += 1;
    }

    pub fn total(&self) -> i64 {
        self.proven + self.partial + self.budget_reached + self.failed
    }
}

/// One file Aristotle returned for a problem (a row of `attempts`), dated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attempt {
    pub problem_id: String,
    pub approach: String,
    /// The outcome stored in the knowledge base: `proven`, `partial` or `failed`.
    pub outcome: String,
    pub kind: AttemptKind,
    pub file: String,
    pub slot: Option<i64>,
    /// Holes (`sorry`) left in the file.
    pub holes: i64,
    /// `YYYY-MM-DD HH:MM:SS` (UTC).
    pub at: String,
    pub day: Day,
    pub dated_by: DateBasis,
    /// What decided the file's problem (`sources.problem_evidence`).
    pub evidence: Option<String>,
    /// Syntax errors in the file (`sources.parse_error_count`): a file with any is never clean.
    pub parse_errors: i64,
    /// The Aristotle request the file answers (its uuid, else its content hash): copies of
    /// one output in several folders share it and count as one attempt.
    #[serde(skip)]
    pub request: String,
}

/// How many attempts were dated each way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Dating {
    pub tracking: usize,
    pub stated: usize,
    pub modified: usize,
    pub extracted: usize,
}

impl Dating {
    /// Every dated attempt, whatever dated it.
    pub fn total(&self) -> usize {
        self.tracking + self.stated + self.modified + self.extracted
    }
}

/// Attempts of one week (Monday to Sunday) by outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Week {
    /// Its Monday.
    pub start: Day,
    pub counts: OutcomeCounts,
}

/// Facts first proven on one day.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FactDay {
    pub day: Day,
    pub new: i64,
    /// Facts proven up to and including this day.
    pub total: i64,
}

/// A Claude Code session as the hooks journaled it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SessionSummary {
    pub id: String,
    pub problem: Option<String>,
    pub first: String,
    pub last: String,
    pub events: i64,
    pub holes_opened: i64,
    pub holes_closed: i64,
    pub gates_fired: i64,
    pub files: i64,
    /// Findings its capture produced.
    pub captured: i64,
}

/// A row of the problems table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProblemRow {
    pub id: String,
    pub name: String,
    /// `None`: nothing says (shown as `unknown`).
    pub domain: Option<String>,
    /// What the literature says of the problem (open, solved, …); `None` while the knowledge
    /// base does not record it (shown as `—`).
    pub literature_status: Option<String>,
    /// The theorems its files state as variants of it (`erdos_N.variants.X`), by name.
    pub variants: Vec<String>,
    /// Our status (`problems.status`).
    pub status: Option<String>,
    pub attempts: OutcomeCounts,
    /// The latest dated event: an attempt, a recorded strategy, a journaled session.
    pub last_activity: Option<String>,
    /// `problems.best_result`, when someone recorded one.
    pub best_result: Option<String>,
    /// The best attempt: proven before partial before budget reached before failed, then the
    /// fewest holes, then the latest.
    pub best_attempt: Option<Attempt>,
    /// The confidence of the proof our status rests on (`problems.confidence`: `verified`,
    /// `high`; `medium` for a complete proof nobody checked, which leaves it `partial`).
    pub confidence: Option<String>,
    /// The file holding that proof (`problems.proof_source`).
    pub proof_source: Option<String>,
    /// A status tracking.db or a person recorded (`problems.recorded_status`), kept apart.
    pub recorded_status: Option<String>,
    /// Where the literature status comes from (`problems.literature_source`).
    pub literature_source: Option<String>,
    /// Files about the problem (inputs and outputs).
    pub files: i64,
    /// Why the tool believes those files are about it: files by the evidence that decided
    /// their problem (`sources.problem_evidence`), strongest first.
    pub evidence: Vec<EvidenceCount>,
    /// Files of the problem with a syntax error (never counted clean).
    pub parse_failures: i64,
    /// Nothing but its files' sketch names names it ([`super::status::sketch_only_evidence`]).
    pub named_by_sketch_only: bool,
    /// How it stands, in `mk find`'s words ([`super::status::problem_standing`]).
    pub standing: String,
    /// Other names it is known by (`problem_aliases`), by name.
    pub aliases: Vec<String>,
    /// Other problems stating the same statement (`mk find`'s "Same statement as",
    /// [`Kb::same_statements`]): linked, never merged.
    pub same_statement: Vec<SameStatement>,
}

/// Problems that need someone's attention, for one reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Attention {
    /// `unchecked_proof`, `proven_elsewhere`, `sketch_only_status` or `syntax_errors`.
    pub reason: &'static str,
    /// What it means and what would settle it, in words.
    pub what: &'static str,
    /// The problems shown that need it, in the problems table's order.
    pub problems: Vec<String>,
    /// The query that decided it (`mk query` lists every such problem of the knowledge base),
    /// where the stored columns decide it.
    pub query: Option<String>,
}

/// The reasons a problem needs attention that its stored columns decide: each reason, its
/// words, and the query listing the ids of its problems (which is the rule: the page's
/// command and the list are one).
fn attention_queries() -> [(&'static str, &'static str, String); 3] {
    [
        (
            "unchecked_proof",
            "a complete proof of its statement that no checker compiled: mf verify on the proof's file (named in its section) makes it proven, or shows what is wrong",
            "SELECT p.id, p.proof_source FROM problems p WHERE p.status = 'partial' AND p.confidence = 'medium'".to_string(),
        ),
        (
            "sketch_only_status",
            "its status is a sketch name's, not a problem's: no file's own words say which problem its proofs are of",
            format!(
                "SELECT p.id, p.status FROM problems p WHERE p.status IN ('proven', 'partial') AND {}",
                super::status::SKETCH_ONLY_SQL.split_whitespace().collect::<Vec<_>>().join(" ")
            ),
        ),
        (
            "syntax_errors",
            "some of its files do not parse: what they prove counts for nothing until they do",
            "SELECT p.id, s.path FROM problems p JOIN sources s ON s.problem_id = p.id WHERE coalesce(p.status, 'open') <> 'proven' AND s.parse_error_count > 0".to_string(),
        ),
    ]
}

/// Files by one kind of evidence of their problem.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EvidenceCount {
    /// The stored name (`tracking`, `attribute`, `sketch`, …; `unrecorded` when the file has
    /// none stored).
    pub evidence: String,
    /// Its family ([`evidence_family`]): `tracking`, `own words`, `scheme`, `naming`, …
    pub family: &'static str,
    pub files: i64,
}

/// A problem's files ([`Kb::files_by_evidence`]).
#[derive(Default)]
struct ProblemFiles {
    files: i64,
    /// Strongest first.
    evidence: Vec<EvidenceCount>,
    /// Of those files, those with a syntax error.
    parse_failures: i64,
}

/// Files about no problem, for one reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NoProblemReason {
    /// The stored evidence (`step`, `collection`, `title`), or `none` when nothing named a
    /// problem (a library module, a test, a file stating no theorem of a problem).
    pub reason: String,
    pub files: i64,
    /// Fact occurrences in those files (a fact stated in two of them counts twice).
    pub facts: i64,
    /// Of those files, those with a syntax error.
    pub parse_failures: i64,
}

/// The family of a stored evidence name ([`Evidence::family`]: `own words` for `attribute`,
/// `theorem`, `comment`, `campaign`; `scheme` for `file_name`, `folder`; `naming` for the
/// users' sketch, slot and campaign-folder naming); `unrecorded` for a name this version does
/// not know.
pub fn evidence_family(evidence: &str) -> &'static str {
    Evidence::from_name(evidence).map_or("unrecorded", Evidence::family)
}

/// Strongest first, as the problem layer ranks evidence; a name this version does not know
/// last.
fn evidence_rank(evidence: &str) -> usize {
    Evidence::from_name(evidence).map_or(usize::MAX, Evidence::strength)
}

/// A problem's section: what `mk context` says of it, and its attempts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ProblemSection {
    pub id: String,
    pub statement: Option<String>,
    /// The input file that stated it (the first input whose asked theorem is the statement).
    pub statement_source: Option<String>,
    /// The theorem of that file whose statement it is.
    pub statement_theorem: Option<String>,
    /// Oldest first.
    pub attempts: Vec<Attempt>,
    pub facts: Vec<ContextItem>,
    pub facts_total: i64,
    pub failed_approaches: Vec<ContextItem>,
    pub failed_total: i64,
    pub false_lemmas: Vec<ContextItem>,
    pub false_total: i64,
    pub similar: Vec<SimilarProblem>,
}

/// A technique's success in a domain, from `mk recommend DOMAIN`'s evidence.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TechniqueRate {
    pub domain: String,
    pub technique: String,
    /// A partial result counts half a success and half a failure, as in `mk recommend`.
    pub successes: f64,
    pub failures: f64,
    pub samples: f64,
    pub rate: f64,
    /// The 95 % Wilson score interval of the rate.
    pub low: f64,
    pub high: f64,
    /// `mk recommend`'s estimate (shrunk towards the domain's rate).
    pub estimate: f64,
}

/// An approach that failed, how often, and what later worked where it failed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FailedApproach {
    pub approach: String,
    /// Failed attempts (files and recorded attempts) on problems where it never worked.
    pub failed_attempts: i64,
    /// Problems where its best outcome is failed / partial / proven (`mk strategies`).
    pub failed_problems: i64,
    pub partial_problems: i64,
    pub proven_problems: i64,
    /// Other approaches that proved a problem this one failed on, on or after its first
    /// failure there; most problems first.
    pub replaced_by: Vec<Replacement>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Replacement {
    pub approach: String,
    pub problems: i64,
}

/// How tracking.db was used.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TrackingUse {
    pub path: String,
    pub available: bool,
    pub notes: Vec<String>,
}

/// Everything `mk report` shows.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The problem asked for (its id in the knowledge base).
    pub problem: Option<String>,
    pub since: Option<Day>,
    pub knowledge_db: String,
    pub tracking: TrackingUse,
    /// `mk stats` (always the whole knowledge base).
    pub stats: Stats,
    pub dating: Dating,
    /// Problems shown, by our status and by literature status.
    pub our_status: Vec<Count>,
    pub literature_status: Vec<Count>,
    pub weeks: Vec<Week>,
    /// Attempts in weeks before the first one shown ([`MAX_WEEKS`]).
    pub attempts_before_weeks: i64,
    pub facts: Vec<FactDay>,
    /// Facts proven before `since` (where the chart starts).
    pub facts_before: i64,
    pub sessions: Vec<SessionSummary>,
    pub problems: Vec<ProblemRow>,
    /// Files about no problem, by reason (the whole knowledge base; none for `--problem`).
    pub no_problem: Vec<NoProblemReason>,
    /// Shown problems needing attention, by reason ([`Attention`]).
    pub attention: Vec<Attention>,
    pub sections: Vec<ProblemSection>,
    pub techniques: Vec<TechniqueRate>,
    pub failures: Vec<FailedApproach>,
    /// Failed attempts whose approach could not be read (not listed among the failures).
    pub unknown_approach_failures: i64,
}

impl Report {
    /// Files about no problem, whatever the reason (none for `--problem`).
    pub fn no_problem_files(&self) -> i64 {
        self.no_problem.iter().map(|n| n.files).sum()
    }
}

/// When each file's result came back: tracking.db's completion by request uuid, else the
/// extraction time.
struct Dates {
    completed: HashMap<String, String>,
}

/// A date and where it comes from.
struct Dated {
    /// `YYYY-MM-DD HH:MM:SS`.
    at: String,
    day: Day,
    by: DateBasis,
}

impl Dates {
    /// The best date of a file: its submission's completion, the date it states, its
    /// modification time (`result` and `result_from` are `sources.result_date{,_from}`), else
    /// its extraction.
    fn of(
        &self,
        uuid: Option<&str>,
        result: Option<&str>,
        result_from: Option<&str>,
        extracted: &str,
    ) -> Option<Dated> {
        let result_basis = match result_from {
            Some("stated") => DateBasis::Stated,
            _ => DateBasis::Modified,
        };
        let candidates = [
            (
                uuid.and_then(|u| self.completed.get(u)).map(String::as_str),
                DateBasis::Tracking,
            ),
            (result, result_basis),
            (Some(extracted), DateBasis::Extracted),
        ];
        candidates.into_iter().find_map(|(at, by)| {
            let at = at?;
            Day::parse(at).map(|day| Dated {
                at: at.to_string(),
                day,
                by,
            })
        })
    }
}

/// Sessions listed at most.
const SESSIONS: usize = 20;
/// Replacements listed per failed approach.
const REPLACEMENTS: usize = 3;

impl Kb {
    /// The report. `tracking` dates attempts by their submissions' completion.
    pub fn report(&self, opts: &ReportOptions, tracking: Option<&Tracking>) -> Result<Report> {
        // One read transaction: every number comes from the same snapshot, even while an
        // extraction writes (WAL readers see the last commit before they started).
        let _snapshot = self.conn.unchecked_transaction().at(&self.path)?;
        let stats = self.stats()?;
        let problem = match &opts.problem {
            Some(p) => Some(self.report_problem(p)?),
            None => None,
        };
        let in_scope = |id: &str| {
            problem
                .as_ref()
                .is_none_or(|p| problem_key(id) == problem_key(p))
        };
        let since = opts.since;
        let dates = Dates {
            completed: tracking.map(Tracking::completion_dates).unwrap_or_default(),
        };

        // Attempts, dated.
        let mut dating = Dating::default();
        let mut attempts: Vec<Attempt> = Vec::new();
        if self.has_table("attempts")? {
            let rows = self.rows(
                "SELECT a.problem_id, a.approach, a.outcome, s.path, s.slot, s.sorry_count,
                        s.aristotle_uuid, s.extracted_at, s.result_date, s.result_date_from,
                        EXISTS (SELECT 1 FROM finding_sources fs WHERE fs.source_id = a.source_id
                                AND fs.notes LIKE '%origin=partial\\_output%' ESCAPE '\\')
                        OR EXISTS (SELECT 1 FROM findings f WHERE f.source_id = a.source_id
                                AND f.notes LIKE '%origin=partial\\_output%' ESCAPE '\\'),
                        coalesce(s.aristotle_uuid, s.content_hash), s.problem_evidence,
                        s.parse_error_count
                 FROM attempts a JOIN sources s ON s.id = a.source_id
                 ORDER BY a.source_id",
                [],
                |r| {
                    (
                        text_at(r, 0).unwrap_or_default(),
                        text_at(r, 1).unwrap_or_default(),
                        text_at(r, 2).unwrap_or_default(),
                        text_at(r, 3).unwrap_or_default(),
                        int_at(r, 4),
                        int_at(r, 5).unwrap_or(0),
                        text_at(r, 6),
                        text_at(r, 7).unwrap_or_default(),
                        (text_at(r, 8), text_at(r, 9)),
                        int_at(r, 10).unwrap_or(0) != 0,
                        text_at(r, 11).unwrap_or_default(),
                        (text_at(r, 12), int_at(r, 13).unwrap_or(0)),
                    )
                },
            )?;
            for (
                problem_id,
                approach,
                outcome,
                file,
                slot,
                holes,
                uuid,
                extracted,
                (result, result_from),
                early,
                request,
                (evidence, parse_errors),
            ) in rows
            {
                if !in_scope(&problem_id) {
                    continue;
                }
                let Some(Dated {
                    at,
                    day,
                    by: dated_by,
                }) = dates.of(
                    uuid.as_deref(),
                    result.as_deref(),
                    result_from.as_deref(),
                    &extracted,
                )
                else {
                    continue;
                };
                let kind = match outcome.as_str() {
                    "proven" => AttemptKind::Proven,
                    _ if early => AttemptKind::BudgetReached,
                    "partial" => AttemptKind::Partial,
                    _ => AttemptKind::Failed,
                };
                attempts.push(Attempt {
                    problem_id,
                    approach,
                    outcome,
                    kind,
                    file,
                    slot,
                    holes,
                    at,
                    day,
                    dated_by,
                    evidence,
                    parse_errors,
                    request,
                });
            }
        }
        attempts.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.file.cmp(&b.file)));
        let shown: Vec<&Attempt> = attempts
            .iter()
            .filter(|a| since.is_none_or(|s| a.day >= s))
            .collect();
        // The attempts shown, by what dated them (the page's and `--json`'s counts).
        for a in &shown {
            match a.dated_by {
                DateBasis::Tracking => dating.tracking += 1,
                DateBasis::Stated => dating.stated += 1,
                DateBasis::Modified => dating.modified += 1,
                DateBasis::Extracted => dating.extracted += 1,
            }
        }

        // Attempts per week, every week from the first to the last (empty ones included).
        let mut by_week: BTreeMap<Day, OutcomeCounts> = BTreeMap::new();
        for a in &shown {
            by_week.entry(a.day.week()).or_default().add(a.kind);
        }
        let mut weeks = Vec::new();
        let mut attempts_before_weeks = 0;
        if let (Some(first), Some(last)) = (by_week.keys().next(), by_week.keys().next_back()) {
            let first = since.map_or(*first, |s| s.week().min(*first));
            let span = ((last.0 - first.0) / 7 + 1) as usize;
            let start = Day(last.0 - 7 * (span.min(MAX_WEEKS) as i64 - 1));
            attempts_before_weeks = by_week.range(..start).map(|(_, c)| c.total()).sum::<i64>();
            let mut w = start;
            while w <= *last {
                weeks.push(Week {
                    start: w,
                    counts: by_week.get(&w).copied().unwrap_or_default(),
                });
                w = Day(w.0 + 7);
            }
        }

        let (facts, facts_before) = self.facts_by_day(&dates, problem.as_deref(), since)?;
        let sessions = self.sessions(problem.as_deref(), since)?;

        // The problems table.
        let problem_rows = self.rows(
            "SELECT id, name, domain_id, status, best_result, statement, literature_status,
                    confidence, proof_source, recorded_status, literature_source
             FROM problems ORDER BY id",
            [],
            |r| {
                (
                    text_at(r, 0).unwrap_or_default(),
                    text_at(r, 1).unwrap_or_default(),
                    text_at(r, 2),
                    text_at(r, 3),
                    text_at(r, 4),
                    text_at(r, 5),
                    text_at(r, 6),
                    [text_at(r, 7), text_at(r, 8), text_at(r, 9), text_at(r, 10)],
                )
            },
        )?;
        let mut identity = self.files_by_evidence()?;
        // Each problem's variants: the theorems its files state as variants of it, by name.
        let mut variants: HashMap<String, Vec<String>> = HashMap::new();
        for (problem, theorem) in self.rows(
            "SELECT DISTINCT problem_id, theorem_name FROM problem_statements
             WHERE variant = 1 ORDER BY problem_id, theorem_name",
            [],
            |r| {
                (
                    text_at(r, 0).unwrap_or_default(),
                    text_at(r, 1).unwrap_or_default(),
                )
            },
        )? {
            variants.entry(problem).or_default().push(theorem);
        }
        let mut aliases: HashMap<String, Vec<String>> = HashMap::new();
        if self.has_table("problem_aliases")? {
            for (problem, alias) in self.rows(
                "SELECT problem_id, alias FROM problem_aliases ORDER BY problem_id, alias",
                [],
                |r| {
                    (
                        text_at(r, 0).unwrap_or_default(),
                        text_at(r, 1).unwrap_or_default(),
                    )
                },
            )? {
                aliases.entry(problem).or_default().push(alias);
            }
        }
        let mut same: HashMap<String, Vec<SameStatement>> = HashMap::new();
        for (problem, other) in self.same_statements(None)? {
            same.entry(problem).or_default().push(other);
        }
        let mut latest: HashMap<String, String> = HashMap::new();
        let mut bump = |id: &str, at: &str| {
            let e = latest.entry(id.to_string()).or_default();
            if at > e.as_str() {
                *e = at.to_string();
            }
        };
        for a in &shown {
            bump(&a.problem_id, &a.at);
        }
        for s in &sessions {
            if let Some(p) = &s.problem {
                bump(p, &s.last);
            }
        }
        let recorded = self.rows(
            "SELECT problem_id, max(last_attempted) FROM strategies
             WHERE coalesce(learned, '') NOT LIKE 'extracted:%' AND last_attempted IS NOT NULL
             GROUP BY problem_id",
            [],
            |r| (text_at(r, 0).unwrap_or_default(), text_at(r, 1)),
        )?;
        for (p, at) in recorded {
            if let Some(at) =
                at.filter(|at| since.is_none_or(|s| Day::parse(at).is_some_and(|d| d >= s)))
            {
                bump(&p, &at);
            }
        }
        let mut per_problem: HashMap<&str, Vec<&Attempt>> = HashMap::new();
        for a in &shown {
            per_problem
                .entry(a.problem_id.as_str())
                .or_default()
                .push(a);
        }
        let mut problems = Vec::new();
        let mut statements = HashMap::new();
        for (id, name, domain, status, best_result, statement, literature_status, proof) in
            problem_rows
        {
            let [confidence, proof_source, recorded_status, literature_source] = proof;
            if !in_scope(&id) {
                continue;
            }
            let last_activity = latest.get(&id).cloned();
            if since.is_some() && last_activity.is_none() {
                continue;
            }
            let mine = per_problem.get(id.as_str()).map_or(&[][..], Vec::as_slice);
            // Each request once, with the best outcome any copy of it has.
            let mut best: HashMap<&str, AttemptKind> = HashMap::new();
            for a in mine {
                let kind = best.entry(a.request.as_str()).or_insert(a.kind);
                *kind = (*kind).min(a.kind);
            }
            let mut counts = OutcomeCounts::default();
            for kind in best.into_values() {
                counts.add(kind);
            }
            let best_attempt = mine
                .iter()
                .min_by(|a, b| {
                    a.kind
                        .cmp(&b.kind)
                        .then(a.holes.cmp(&b.holes))
                        .then_with(|| b.at.cmp(&a.at))
                })
                .map(|a| (*a).clone());
            statements.insert(id.clone(), statement);
            let variants = variants.remove(&id).unwrap_or_default();
            let ProblemFiles {
                files,
                evidence,
                parse_failures,
            } = identity.remove(&id).unwrap_or_default();
            let named_by_sketch_only =
                super::status::sketch_only_evidence(evidence.iter().map(|e| e.evidence.as_str()));
            let standing = super::status::problem_standing(
                literature_status.as_deref(),
                status.as_deref(),
                confidence.as_deref(),
                named_by_sketch_only,
            );
            problems.push(ProblemRow {
                standing,
                aliases: aliases.remove(&id).unwrap_or_default(),
                same_statement: same.remove(&id).unwrap_or_default(),
                id,
                name,
                domain,
                literature_status,
                variants,
                status,
                attempts: counts,
                last_activity,
                best_result,
                best_attempt,
                confidence,
                proof_source,
                recorded_status,
                literature_source,
                files,
                evidence,
                parse_failures,
                named_by_sketch_only,
            });
        }
        problems.sort_by(|a, b| {
            b.last_activity
                .cmp(&a.last_activity)
                .then_with(|| a.id.cmp(&b.id))
        });

        let our_status = if problem.is_none() && since.is_none() {
            stats.problems_by_status.clone()
        } else {
            tally(problems.iter().map(|p| p.status.clone()))
        };
        let literature_status = tally(problems.iter().map(|p| {
            Some(
                p.literature_status
                    .clone()
                    .unwrap_or_else(|| "unknown".into()),
            )
        }));

        let attention = self.attention(&problems)?;
        let no_problem = if problem.is_none() {
            self.no_problem_reasons()?
        } else {
            Vec::new()
        };
        let sections = self.sections(&problems, &mut statements, &per_problem, opts.per_section)?;
        let techniques = self.technique_rates(&problems, problem.is_some())?;
        let (failures, unknown_approach_failures) =
            self.failed_approaches(&attempts, problem.as_deref())?;

        Ok(Report {
            problem,
            since,
            knowledge_db: self.path.display().to_string(),
            tracking: tracking
                .map(|t| TrackingUse {
                    path: t.path().display().to_string(),
                    available: t.is_available(),
                    notes: t.notes(),
                })
                .unwrap_or_default(),
            stats,
            dating,
            our_status,
            literature_status,
            weeks,
            attempts_before_weeks,
            facts,
            facts_before,
            sessions,
            problems,
            no_problem,
            attention,
            sections,
            techniques,
            failures,
            unknown_approach_failures,
        })
    }

    /// The shown problems needing attention, by reason ([`attention_queries`], then a
    /// statement proven under another id), each in the problems' order; reasons no shown
    /// problem has are left out.
    fn attention(&self, problems: &[ProblemRow]) -> Result<Vec<Attention>> {
        let mut out = Vec::new();
        for (reason, what, query) in attention_queries() {
            let ids: std::collections::HashSet<String> = self
                .rows(&query, [], |r| text_at(r, 0).unwrap_or_default())?
                .into_iter()
                .collect();
            out.push(Attention {
                reason,
                what,
                problems: problems
                    .iter()
                    .filter(|p| ids.contains(&p.id))
                    .map(|p| p.id.clone())
                    .collect(),
                query: Some(query),
            });
        }
        // Same statement: the link `mk find` shows, to a problem whose status is proven.
        out.insert(
            1,
            Attention {
                reason: "proven_elsewhere",
                what: "its statement is proven under another id (same statement): that proof may settle it",
                problems: problems
                    .iter()
                    .filter(|p| {
                        p.status.as_deref() != Some("proven")
                            && p.same_statement
                                .iter()
                                .any(|o| o.status.as_deref() == Some("proven"))
                    })
                    .map(|p| p.id.clone())
                    .collect(),
                query: None,
            },
        );
        out.retain(|a| !a.problems.is_empty());
        Ok(out)
    }

    /// Each problem's files: how many, how many by each evidence of their problem (strongest
    /// first), and how many have a syntax error.
    fn files_by_evidence(&self) -> Result<HashMap<String, ProblemFiles>> {
        let rows = self.rows(
            "SELECT problem_id, problem_evidence, count(*), sum(parse_error_count > 0)
             FROM sources WHERE problem_id IS NOT NULL GROUP BY 1, 2",
            [],
            |r| {
                (
                    text_at(r, 0).unwrap_or_default(),
                    text_at(r, 1).unwrap_or_else(|| "unrecorded".into()),
                    int_at(r, 2).unwrap_or(0),
                    int_at(r, 3).unwrap_or(0),
                )
            },
        )?;
        let mut out: HashMap<String, ProblemFiles> = HashMap::new();
        for (problem, evidence, files, broken) in rows {
            let e = out.entry(problem).or_default();
            e.files += files;
            e.parse_failures += broken;
            e.evidence.push(EvidenceCount {
                family: evidence_family(&evidence),
                evidence,
                files,
            });
        }
        for ProblemFiles { evidence: list, .. } in out.values_mut() {
            list.sort_by(|a, b| {
                evidence_rank(&a.evidence)
                    .cmp(&evidence_rank(&b.evidence))
                    .then_with(|| a.evidence.cmp(&b.evidence))
            });
        }
        Ok(out)
    }

    /// Files about no problem, by the reason stored (`none` where nothing named one), most
    /// files first, with the facts they state: counted, not listed (`mk query` lists them).
    fn no_problem_reasons(&self) -> Result<Vec<NoProblemReason>> {
        let mut out = self.rows(
            "SELECT coalesce(s.problem_evidence, 'none'), count(*), sum(s.parse_error_count > 0),
                    sum((SELECT count(DISTINCT fs.finding_id) FROM finding_sources fs
                         WHERE fs.source_id = s.id))
             FROM sources s WHERE s.problem_id IS NULL GROUP BY 1",
            [],
            |r| NoProblemReason {
                reason: text_at(r, 0).unwrap_or_default(),
                files: int_at(r, 1).unwrap_or(0),
                parse_failures: int_at(r, 2).unwrap_or(0),
                facts: int_at(r, 3).unwrap_or(0),
            },
        )?;
        out.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.reason.cmp(&b.reason)));
        Ok(out)
    }

    /// The id of the problem `query` names (an id in any spelling, or an alias), or the
    /// answer every command gives to an unknown id (`no problem X; nearest: …`).
    fn report_problem(&self, query: &str) -> Result<String> {
        Ok(self.require_problem(query)?.id)
    }

    /// Verified theorem facts by the day they were first proven: the earliest date of a file
    /// that verifies them, else when the fact was recorded.
    fn facts_by_day(
        &self,
        dates: &Dates,
        problem: Option<&str>,
        since: Option<Day>,
    ) -> Result<(Vec<FactDay>, i64)> {
        let key = problem.map(problem_key);
        let occurrences = if self.has_facts() {
            self.rows(
                &format!(
                    "SELECT f.id, s.aristotle_uuid, s.extracted_at, s.result_date, s.result_date_from
                     FROM findings f JOIN finding_sources fs ON fs.finding_id = f.id
                     JOIN sources s ON s.id = fs.source_id
                     WHERE f.finding_type = 'theorem' AND f.confidence = 'verified'
                       AND coalesce(fs.confidence, f.confidence) = 'verified'
                       AND (?1 IS NULL OR {pk} = ?1)
                     UNION ALL
                     SELECT f.id, NULL, f.created_at, NULL, NULL FROM findings f
                     WHERE f.finding_type = 'theorem' AND f.confidence = 'verified'
                       AND (?1 IS NULL OR {pk} = ?1)
                       AND NOT EXISTS (SELECT 1 FROM finding_sources fs WHERE fs.finding_id = f.id
                                       AND coalesce(fs.confidence, f.confidence) = 'verified')",
                    pk = problem_key_sql("f.problem_id")
                ),
                [&key],
                |r| {
                    (
                        int_at(r, 0).unwrap_or(0),
                        text_at(r, 1),
                        text_at(r, 2).unwrap_or_default(),
                        text_at(r, 3),
                        text_at(r, 4),
                    )
                },
            )?
        } else {
            self.rows(
                &format!(
                    "SELECT f.id, f.source_submission_uuid, f.created_at, NULL, NULL FROM findings f
                     WHERE f.finding_type = 'theorem' AND f.confidence = 'verified'
                       AND (?1 IS NULL OR {} = ?1)",
                    problem_key_sql("f.problem_id")
                ),
                [&key],
                |r| {
                    (
                        int_at(r, 0).unwrap_or(0),
                        text_at(r, 1),
                        text_at(r, 2).unwrap_or_default(),
                        text_at(r, 3),
                        text_at(r, 4),
                    )
                },
            )?
        };
        let mut first: HashMap<i64, Day> = HashMap::new();
        for (id, uuid, at, result, result_from) in occurrences {
            if let Some(Dated { day, .. }) = dates.of(
                uuid.as_deref(),
                result.as_deref(),
                result_from.as_deref(),
                &at,
            ) {
                let e = first.entry(id).or_insert(day);
                *e = (*e).min(day);
            }
        }
        let mut per_day: BTreeMap<Day, i64> = BTreeMap::new();
        for day in first.values() {
            *per_day.entry(*day).or_default() += 1;
        }
        let mut total = 0;
        let mut before = 0;
        let mut days = Vec::new();
        for (day, n) in per_day {
            total += n;
            if since.is_some_and(|s| day < s) {
                before = total;
                continue;
            }
            days.push(FactDay { day, new: n, total });
        }
        Ok((days, before))
    }

    /// The latest sessions the hooks journaled, newest first.
    fn sessions(&self, problem: Option<&str>, since: Option<Day>) -> Result<Vec<SessionSummary>> {
        if !self.has_table("session_events")? {
            return Ok(Vec::new());
        }
        let since = since.map(|d| format!("{d} 00:00:00"));
        self.rows(
            &format!(
                "SELECT e.session_id, min(e.at), max(e.at), count(*), sum(e.event = 'hole_opened'),
                        sum(e.event = 'hole_closed'), sum(e.event = 'gate_fired'), count(DISTINCT e.file),
                        (SELECT problem_id FROM sessions s WHERE s.id = e.session_id),
                        (SELECT count(*) FROM session_captures c WHERE c.session_id = e.session_id)
                 FROM session_events e
                 GROUP BY e.session_id
                 HAVING (?1 IS NULL OR max(e.at) >= ?1)
                    AND (?2 IS NULL OR (SELECT {} FROM sessions s WHERE s.id = e.session_id) = ?2)
                 ORDER BY max(e.at) DESC, e.session_id LIMIT ?3",
                problem_key_sql("s.problem_id")
            ),
            rusqlite::params![since, problem.map(problem_key), SESSIONS as i64],
            |r| SessionSummary {
                id: text_at(r, 0).unwrap_or_default(),
                first: text_at(r, 1).unwrap_or_default(),
                last: text_at(r, 2).unwrap_or_default(),
                events: int_at(r, 3).unwrap_or(0),
                holes_opened: int_at(r, 4).unwrap_or(0),
                holes_closed: int_at(r, 5).unwrap_or(0),
                gates_fired: int_at(r, 6).unwrap_or(0),
                files: int_at(r, 7).unwrap_or(0),
                problem: text_at(r, 8),
                captured: int_at(r, 9).unwrap_or(0),
            },
        )
    }

    /// Each shown problem's section: `mk context`'s lists, its attempts and its statement.
    fn sections(
        &self,
        problems: &[ProblemRow],
        statements: &mut HashMap<String, Option<String>>,
        attempts: &HashMap<&str, Vec<&Attempt>>,
        per_section: usize,
    ) -> Result<Vec<ProblemSection>> {
        let keys: Vec<(String, Option<String>)> = problems
            .iter()
            .map(|p| (problem_key(&p.id), p.domain.clone()))
            .collect();
        let mut similar = self.similar_problems_of(&keys, per_section)?;
        // How many entries each list of `mk context` has, by problem key, for "N more".
        let totals = self.context_counts()?;
        // The file (and theorem) that states each problem's statement, as `mk find` shows it.
        let sources: HashMap<String, (String, Option<String>)> = self
            .rows(
                "SELECT id, statement_source, statement_theorem
                 FROM problems WHERE statement IS NOT NULL",
                [],
                |r| {
                    (
                        text_at(r, 0).unwrap_or_default(),
                        text_at(r, 1),
                        text_at(r, 2),
                    )
                },
            )?
            .into_iter()
            .filter_map(|(id, s, theorem)| Some((id, (s?, theorem))))
            .collect();
        let mut out = Vec::with_capacity(problems.len());
        for (p, (key, _)) in problems.iter().zip(&keys) {
            let total = |list: u8| totals.get(&(key.clone(), list)).copied().unwrap_or(0);
            let (facts, facts_total) = self.context_list(key, FACTS, total(0), per_section)?;
            let (failed_approaches, failed_total) =
                self.context_list(key, FAILED, total(1), per_section)?;
            let (false_lemmas, false_total) =
                self.context_list(key, FALSE, total(2), per_section)?;
            out.push(ProblemSection {
                id: p.id.clone(),
                statement: statements.remove(&p.id).flatten(),
                statement_source: sources.get(&p.id).map(|(s, _)| s.clone()),
                statement_theorem: sources.get(&p.id).and_then(|(_, t)| t.clone()),
                attempts: attempts
                    .get(p.id.as_str())
                    .map(|v| v.iter().map(|a| (*a).clone()).collect())
                    .unwrap_or_default(),
                facts,
                facts_total,
                failed_approaches,
                failed_total,
                false_lemmas,
                false_total,
                similar: similar.remove(key).unwrap_or_default(),
            });
        }
        Ok(out)
    }

    /// The first `shown` entries `mk context` lists for the problem (`filter`: facts, failed
    /// approaches or false lemmas), and `total`, how many it lists in all
    /// ([`Kb::context_counts`]): none, no query.
    fn context_list(
        &self,
        key: &str,
        filter: &str,
        total: usize,
        shown: usize,
    ) -> Result<(Vec<ContextItem>, i64)> {
        if total == 0 {
            return Ok((Vec::new(), 0));
        }
        Ok((self.context_items(key, filter, shown)?, total as i64))
    }

    /// `mk recommend DOMAIN`'s evidence for every domain of the shown problems (every domain
    /// when the whole campaign is shown), as rates with Wilson intervals; techniques without
    /// any evidence are left out. Best lower bound first within a domain.
    fn technique_rates(&self, problems: &[ProblemRow], one: bool) -> Result<Vec<TechniqueRate>> {
        let domains: Vec<String> = if one {
            problems.iter().filter_map(|p| p.domain.clone()).collect()
        } else {
            self.domain_ids()?
        };
        let mut out = Vec::new();
        for domain in domains {
            let recs = self.recommend(&domain, usize::MAX)?;
            let mut rates: Vec<TechniqueRate> = recs
                .recommendations
                .into_iter()
                .filter(|r| r.successes + r.failures > 0.0)
                .map(|r| {
                    let n = r.successes + r.failures;
                    let (low, high) = wilson(r.successes, n);
                    TechniqueRate {
                        domain: domain.clone(),
                        technique: r.technique,
                        successes: r.successes,
                        failures: r.failures,
                        samples: n,
                        rate: r.successes / n,
                        low,
                        high,
                        estimate: r.estimate,
                    }
                })
                .collect();
            rates.sort_by(|a, b| {
                b.low
                    .total_cmp(&a.low)
                    .then(b.samples.total_cmp(&a.samples))
                    .then_with(|| a.technique.cmp(&b.technique))
            });
            out.extend(rates);
        }
        Ok(out)
    }

    /// `mk strategies`' approach outcomes for the approaches that failed somewhere (on the
    /// problem, with one), most failed attempts first, with what later proved those problems.
    fn failed_approaches(
        &self,
        attempts: &[Attempt],
        problem: Option<&str>,
    ) -> Result<(Vec<FailedApproach>, i64)> {
        let unknown = crate::extract::technique::UNKNOWN_APPROACH;
        let outcomes = self.strategies(None, i64::MAX as usize)?.approaches;
        // (problem, approach, outcome, attempts, recorded date) of every strategy row.
        let rows = self.rows(
            "SELECT problem_id, approach_name, outcome, max(coalesce(attempts, 1), 1),
                    CASE WHEN coalesce(learned, '') LIKE 'extracted:%' THEN NULL ELSE last_attempted END
             FROM strategies",
            [],
            |r| {
                (
                    text_at(r, 0).unwrap_or_default(),
                    text_at(r, 1).unwrap_or_default(),
                    text_at(r, 2).unwrap_or_default(),
                    int_at(r, 3).unwrap_or(1),
                    text_at(r, 4),
                )
            },
        )?;
        // First failure and first proof of each (problem, approach), by attempt date, else by
        // the recorded strategy's date.
        let mut first_failed: HashMap<(&str, &str), &str> = HashMap::new();
        let mut first_proven: HashMap<(&str, &str), &str> = HashMap::new();
        for a in attempts {
            let slot = match a.kind {
                AttemptKind::Proven => &mut first_proven,
                AttemptKind::Failed | AttemptKind::BudgetReached => &mut first_failed,
                AttemptKind::Partial => continue,
            };
            slot.entry((&a.problem_id, &a.approach)).or_insert(&a.at);
        }
        for (p, a, outcome, _, at) in &rows {
            let Some(at) = at.as_deref() else { continue };
            let slot = match outcome.as_str() {
                "proven" => &mut first_proven,
                "failed" => &mut first_failed,
                _ => continue,
            };
            let e = slot.entry((p.as_str(), a.as_str())).or_insert(at);
            if at < *e {
                *e = at;
            }
        }
        // The approaches that proved each problem.
        let mut proven_on: HashMap<&str, Vec<&str>> = HashMap::new();
        for (p, a, outcome, _, _) in &rows {
            if outcome == "proven" && a != unknown {
                proven_on.entry(p).or_default().push(a);
            }
        }
        let key = problem.map(problem_key);
        let mut failed_attempts: HashMap<&str, i64> = HashMap::new();
        let mut replaced: HashMap<&str, HashMap<&str, i64>> = HashMap::new();
        let mut tried_here: Vec<&str> = Vec::new();
        let mut unknown_failures = 0;
        for (p, a, outcome, n, _) in &rows {
            if key.as_ref().is_some_and(|k| problem_key(p) != *k) {
                continue;
            }
            if outcome != "failed" {
                continue;
            }
            if a == unknown {
                unknown_failures += n;
                continue;
            }
            tried_here.push(a);
            *failed_attempts.entry(a).or_default() += n;
            let since = first_failed
                .get(&(p.as_str(), a.as_str()))
                .copied()
                .unwrap_or("");
            for b in proven_on.get(p.as_str()).into_iter().flatten() {
                let proved = first_proven.get(&(p.as_str(), *b)).copied().unwrap_or("");
                if *b != a && proved >= since {
                    *replaced.entry(a).or_default().entry(b).or_default() += 1;
                }
            }
        }
        let mut out: Vec<FailedApproach> = outcomes
            .into_iter()
            .filter(|o| o.failed > 0 && o.approach != unknown)
            .filter(|o| tried_here.contains(&o.approach.as_str()))
            .map(|o| {
                let mut replaced_by: Vec<Replacement> = replaced
                    .get(o.approach.as_str())
                    .into_iter()
                    .flatten()
                    .map(|(b, n)| Replacement {
                        approach: b.to_string(),
                        problems: *n,
                    })
                    .collect();
                replaced_by.sort_by(|x, y| {
                    y.problems
                        .cmp(&x.problems)
                        .then_with(|| x.approach.cmp(&y.approach))
                });
                replaced_by.truncate(REPLACEMENTS);
                FailedApproach {
                    failed_attempts: failed_attempts
                        .get(o.approach.as_str())
                        .copied()
                        .unwrap_or(0),
                    failed_problems: o.failed,
                    partial_problems: o.partial,
                    proven_problems: o.proven,
                    replaced_by,
                    approach: o.approach,
                }
            })
            .collect();
        out.sort_by(|a, b| {
            b.failed_attempts
                .cmp(&a.failed_attempts)
                .then(b.failed_problems.cmp(&a.failed_problems))
                .then_with(|| a.approach.cmp(&b.approach))
        });
        Ok((out, unknown_failures))
    }
}

/// Counts of each value, most first (`None` last).
fn tally(values: impl Iterator<Item = Option<String>>) -> Vec<Count> {
    let mut counts: BTreeMap<Option<String>, i64> = BTreeMap::new();
    for v in values {
        *counts.entry(v).or_default() += 1;
    }
    let mut out: Vec<Count> = counts
        .into_iter()
        .map(|(key, count)| Count { key, count })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.key.cmp(&b.key)));
    out
}

/// The 95 % Wilson score interval of `successes` out of `n` (fractional counts allowed).
pub fn wilson(successes: f64, n: f64) -> (f64, f64) {
    if n <= 0.0 {
        return (0.0, 1.0);
    }
    const Z: f64 = 1.959_963_984_540_054;
    let p = (successes / n).clamp(0.0, 1.0);
    let z2 = Z * Z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z / denom * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_round_trip_and_weeks_start_on_monday() {
        for text in [
            "1970-01-01",
            "2000-02-29",
            "2024-12-31",
            "2025-01-06",
            "1969-12-31",
        ] {
            let d = Day::parse(text).unwrap();
            assert_eq!(d.to_string(), text);
        }
        assert_eq!(Day::parse("1970-01-01").unwrap(), Day(0));
        // 2025-01-08 is a Wednesday; its week starts on Monday 2025-01-06.
        let wed = Day::parse("2025-01-08 13:00:00").unwrap();
        assert_eq!(wed.week().to_string(), "2025-01-06");
        assert_eq!(
            Day::parse("2025-01-06").unwrap().week().to_string(),
            "2025-01-06"
        );
        assert_eq!(
            Day::parse("2025-01-12").unwrap().week().to_string(),
            "2025-01-06"
        );
        for bad in [
            "",
            "2025-13-01",
            "2025-02-30",
            "2023-02-29",
            "25-01-01",
            "2025/01/01",
            "2025-01-0x",
        ] {
            assert_eq!(Day::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn since_takes_dates_and_spans() {
        let today = Day::parse("2025-03-10").unwrap();
        assert_eq!(
            parse_since("2025-01-06", today).unwrap().to_string(),
            "2025-01-06"
        );
        assert_eq!(parse_since("7d", today).unwrap().to_string(), "2025-03-03");
        assert_eq!(parse_since("2w", today).unwrap().to_string(), "2025-02-24");
        for bad in ["yesterday", "2025-01-06 10:00:00", "-3d", "2025-02-30"] {
            let err = parse_since(bad, today).unwrap_err().to_string();
            assert!(err.contains("YYYY-MM-DD") && err.contains(bad), "{err}");
        }
    }

    #[test]
    fn wilson_interval_is_wide_for_small_samples() {
        let (lo1, hi1) = wilson(1.0, 1.0);
        let (lo60, hi60) = wilson(40.0, 60.0);
        // 1 of 1 is no better evidence than 40 of 60.
        assert!(lo1 < lo60, "{lo1} {lo60}");
        assert!(hi1 - lo1 > hi60 - lo60);
        // Known value: 40/60 → about [0.54, 0.77].
        assert!(
            (lo60 - 0.5403).abs() < 1e-3 && (hi60 - 0.7729).abs() < 1e-3,
            "{lo60} {hi60}"
        );
        assert_eq!(wilson(0.0, 0.0), (0.0, 1.0));
        let (lo, hi) = wilson(0.0, 10.0);
        assert_eq!(lo, 0.0);
        assert!(hi > 0.25 && hi < 0.35);
    }
}
