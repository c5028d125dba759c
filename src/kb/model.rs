//! The knowledge base's record types: what the tables hold, and what writers hand in.

use serde::{Deserialize, Serialize};

use super::error::KbError;
use super::sql::{int_at, text_at};

macro_rules! text_enum {
    ($(#[$m:meta])* $name:ident, $what:literal { $($(#[$vm:meta])* $var:ident = $s:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum $name { $($(#[$vm])* $var),+ }

        impl $name {
            /// Every value, in schema order.
            pub const ALL: &'static [$name] = &[$($name::$var),+];

            /// The text stored in the database.
            pub fn as_str(self) -> &'static str {
                match self { $($name::$var => $s),+ }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = KbError;
            fn from_str(s: &str) -> Result<Self, KbError> {
                let t = s.trim().to_ascii_lowercase().replace('-', "_");
                match t.as_str() {
                    $($s => Ok($name::$var),)+
                    _ => Err(KbError::Invalid(format!(
                        "unknown {} '{}' (expected one of: {})",
                        $what,
                        s,
                        [$($s),+].join(", ")
                    ))),
                }
            }
        }
    };
}

text_enum!(
    /// `findings.finding_type`.
    FindingType, "finding type" {
        Theorem = "theorem",
        Technique = "technique",
        Failure = "failure",
        FalseLemma = "false_lemma",
        Computation = "computation",
        MathlibApi = "mathlib_api",
        Insight = "insight",
    }
);

text_enum!(
    /// `findings.confidence`.
    Confidence, "confidence" {
        Verified = "verified",
        High = "high",
        Medium = "medium",
        Low = "low",
        Disproven = "disproven",
    }
);

text_enum!(
    /// `problems.status`.
    ProblemStatus, "problem status" {
        Open = "open",
        Proven = "proven",
        Partial = "partial",
        False = "false",
        InFlight = "in_flight",
    }
);

text_enum!(
    /// `strategies.outcome`.
    StrategyOutcome, "outcome" {
        Proven = "proven",
        Partial = "partial",
        Failed = "failed",
        InFlight = "in_flight",
        Untried = "untried",
    }
);

impl Confidence {
    /// How far a finding of `confidence` can be trusted, most first: 0 for a checked proof
    /// either way (`verified`, `disproven`), then `high`, `medium`, `low`; 4 for anything
    /// else (none recorded). What results of equal relevance are ordered by.
    pub fn trust_rank(confidence: Option<&str>) -> u8 {
        match confidence.map(str::parse) {
            Some(Ok(Confidence::Verified | Confidence::Disproven)) => 0,
            Some(Ok(Confidence::High)) => 1,
            Some(Ok(Confidence::Medium)) => 2,
            Some(Ok(Confidence::Low)) => 3,
            _ => 4,
        }
    }

    /// [`Confidence::trust_rank`] in SQL, of the column `column`.
    pub fn trust_rank_sql(column: &str) -> String {
        format!(
            "CASE {column} WHEN 'verified' THEN 0 WHEN 'disproven' THEN 0 WHEN 'high' THEN 1 \
             WHEN 'medium' THEN 2 WHEN 'low' THEN 3 ELSE 4 END"
        )
    }
}

impl FindingType {
    /// The badge shown in listings (`[PROVEN]`, `[FAILED]`, …), as in the spec.
    pub fn badge(self) -> &'static str {
        match self {
            FindingType::Theorem => "[PROVEN]",
            FindingType::Technique => "[TECHNIQUE]",
            FindingType::Failure => "[FAILED]",
            FindingType::FalseLemma => "[FALSE]",
            FindingType::Computation => "[COMPUTED]",
            FindingType::MathlibApi => "[MATHLIB_API]",
            FindingType::Insight => "[INSIGHT]",
        }
    }
}

/// Maps the domain spellings found in tracking.db and typed by users to a `domains.id` of the
/// seeded taxonomy: `number_theory`, `number-theory`, `NT` → `nt`. `None` when unknown.
pub fn domain_alias(s: &str) -> Option<&'static str> {
    let t: String = s
        .trim()
        .chars()
        .filter(|c| !matches!(c, ' ' | '_' | '-'))
        .map(|c| c.to_ascii_lowercase())
        .collect();
    match t.as_str() {
        "nt" | "numbertheory" | "number" => Some("nt"),
        "algebra" | "alg" => Some("algebra"),
        "combinatorics" | "combo" | "comb" | "combinatorial" => Some("combinatorics"),
        "analysis" | "ana" => Some("analysis"),
        "geometry" | "geo" => Some("geometry"),
        "probability" | "prob" => Some("probability"),
        "topology" | "top" => Some("topology"),
        _ => None,
    }
}

/// One row of `findings`, as read back.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Finding {
    pub id: i64,
    pub finding_type: String,
    pub domain_id: Option<String>,
    pub title: String,
    pub description: String,
    pub problem_id: Option<String>,
    pub source_slot: Option<i64>,
    pub source_submission_uuid: Option<String>,
    pub source_file: Option<String>,
    pub theorem_name: Option<String>,
    pub theorem_statement: Option<String>,
    pub proof_technique: Option<String>,
    pub mathlib_imports: Option<String>,
    pub proof_lines: Option<i64>,
    pub counterexample: Option<String>,
    pub why_failed: Option<String>,
    pub avoid_pattern: Option<String>,
    pub confidence: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    pub tags: Option<String>,
    pub notes: Option<String>,
    pub source_id: Option<i64>,
}

impl Finding {
    /// Column list matching [`Finding::from_row`]; prefix with a table alias via `columns("f.")`.
    pub fn columns(prefix: &str) -> String {
        const COLUMNS: [&str; 23] = [
            "id",
            "finding_type",
            "domain_id",
            "title",
            "description",
            "problem_id",
            "source_slot",
            "source_submission_uuid",
            "source_file",
            "theorem_name",
            "theorem_statement",
            "proof_technique",
            "mathlib_imports",
            "proof_lines",
            "counterexample",
            "why_failed",
            "avoid_pattern",
            "confidence",
            "created_at",
            "updated_at",
            "tags",
            "notes",
            "source_id",
        ];
        // Written into one buffer: a `format!` per column and a join were some 12,000
        // instructions per call, and a search builds the list for every row it reads by id.
        let mut out = String::with_capacity(COLUMNS.len() * (prefix.len() + 16));
        for (i, c) in COLUMNS.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(prefix);
            out.push_str(c);
        }
        out
    }

    /// Reads the columns of [`Finding::columns`] starting at `at`, leniently.
    pub fn from_row(row: &rusqlite::Row<'_>, at: usize) -> Finding {
        let t = |i: usize| text_at(row, at + i);
        let n = |i: usize| int_at(row, at + i);
        Finding {
            id: n(0).unwrap_or_default(),
            finding_type: t(1).unwrap_or_default(),
            domain_id: t(2),
            title: t(3).unwrap_or_default(),
            description: t(4).unwrap_or_default(),
            problem_id: t(5),
            source_slot: n(6),
            source_submission_uuid: t(7),
            source_file: t(8),
            theorem_name: t(9),
            theorem_statement: t(10),
            proof_technique: t(11),
            mathlib_imports: t(12),
            proof_lines: n(13),
            counterexample: t(14),
            why_failed: t(15),
            avoid_pattern: t(16),
            confidence: t(17),
            created_at: t(18),
            updated_at: t(19),
            tags: t(20),
            notes: t(21),
            source_id: n(22),
        }
    }

    /// The finding type, if it is one this build knows.
    pub fn kind(&self) -> Option<FindingType> {
        self.finding_type.parse().ok()
    }
}

/// A finding to insert. `Default` leaves every optional column NULL and confidence at `medium`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct NewFinding {
    pub finding_type: FindingType,
    /// A `domains.id` or an alias accepted by [`domain_alias`].
    pub domain_id: Option<String>,
    pub title: String,
    pub description: String,
    pub problem_id: Option<String>,
    pub source_slot: Option<i64>,
    pub source_submission_uuid: Option<String>,
    /// Filled from the [`SourceRecord`] path by the batch writer when left `None`.
    pub source_file: Option<String>,
    pub theorem_name: Option<String>,
    pub theorem_statement: Option<String>,
    pub proof_technique: Option<String>,
    pub mathlib_imports: Option<String>,
    pub proof_lines: Option<i64>,
    pub counterexample: Option<String>,
    pub why_failed: Option<String>,
    pub avoid_pattern: Option<String>,
    pub confidence: Confidence,
    pub tags: Option<String>,
    pub notes: Option<String>,
    /// Constants the proof refers to (`Finset.card_le_card`), indexed for `mk search`; kept
    /// for extracted theorems only.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uses: Vec<String>,
    /// For an extracted theorem whose statement names definitions of its own file: a digest of
    /// those definitions' text (and of the definitions they name in turn). Part of the fact's
    /// identity: `A.card = 3` is another fact where `A` is defined otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definitions: Option<String>,
}

impl Default for NewFinding {
    fn default() -> Self {
        NewFinding {
            finding_type: FindingType::Insight,
            domain_id: None,
            title: String::new(),
            description: String::new(),
            problem_id: None,
            source_slot: None,
            source_submission_uuid: None,
            source_file: None,
            theorem_name: None,
            theorem_statement: None,
            proof_technique: None,
            mathlib_imports: None,
            proof_lines: None,
            counterexample: None,
            why_failed: None,
            avoid_pattern: None,
            confidence: Confidence::Medium,
            tags: None,
            notes: None,
            uses: Vec::new(),
            definitions: None,
        }
    }
}

/// One version of one result file: the `sources` row findings link to.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SourceRecord {
    /// Path as the extractor names it (the identity of the file across versions).
    pub path: String,
    /// [`super::content_hash`] of the bytes; an equal hash for the same path means "unchanged".
    pub content_hash: String,
    pub size_bytes: u64,
    pub slot: Option<i64>,
    pub problem_id: Option<String>,
    pub aristotle_uuid: Option<String>,
    pub lean_version: Option<String>,
    pub mathlib_version: Option<String>,
    pub parse_error_count: u32,
    pub sorry_count: u32,
    pub axiom_count: u32,
    /// The version of the extractor that read the file: a file stored by another version is
    /// re-read even when its bytes are unchanged (0 for writers that are no extractor).
    pub extractor: i64,
    /// The date the file's leading comment states (`Generated: 2026-01-04T16:15:34`), as
    /// written; stored as UTC when SQLite's `datetime()` reads it.
    pub stated_date: Option<String>,
    /// The file's modification time, Unix seconds: its date when it states none.
    pub modified: Option<i64>,
    /// The file's own domain, when its evidence names one (`None`: it says nothing; its
    /// problem's other files decide).
    pub domain_id: Option<String>,
    /// What that domain rests on: `classification`, `imports` or `names`.
    pub domain_evidence: Option<String>,
    /// What decided `problem_id` (`tracking`, `theorem`, `file_name`, `sketch`, …; see
    /// [`crate::problem::Evidence`]).
    pub problem_evidence: Option<String>,
    /// The names the file defines ([`crate::problem::signature::defined_names`]): a later run
    /// of other files judges their problem by them without reading this file again.
    pub definitions: Vec<String>,
}

/// A problem row to create or merge into when a file about it is stored.
///
/// Merging never loses information: existing name, domain and statement are kept, the status
/// only moves forward (`open` < `in_flight` < `partial` < `proven`; `false` is final), and the
/// counters follow the findings actually stored.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProblemUpsert {
    pub id: String,
    /// Defaults to the id.
    pub name: Option<String>,
    pub domain_id: Option<String>,
    pub status: Option<ProblemStatus>,
    pub statement: Option<String>,
    pub best_result: Option<String>,
    /// What the file states of the problem: its main statement and its variants.
    pub statements: Vec<StatementRecord>,
}

/// A statement a file gives of its problem: the main theorem, or a variant of it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct StatementRecord {
    /// The theorem's full name.
    pub theorem_name: String,
    /// Its statement (name, binders, type), as the outline gives it.
    pub statement: String,
    /// A variant of the problem (`erdos_1.variants.weak`), not its main statement.
    pub variant: bool,
    /// How strongly the file names it the problem's statement (0 strongest): 0 an input asks
    /// it, 1 the file's own words name it (its leading comment, a catalogue attribute), 2 it is
    /// named after the problem (or called `main`), 3 a collection of several problems states
    /// it (`crate::extract::findings::COLLECTION_RANK`), 4 ([`super::SKETCH_MAIN`]) it is the
    /// main theorem of a sketch that asks nothing or of an output.
    pub rank: i64,
    /// What a catalogue says of it in the literature (`open`, `solved`), from the theorem's
    /// `@[category research …]` attribute.
    pub literature: Option<String>,
    /// Its fingerprint ([`crate::extract::fingerprint`]); main statements only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
}

/// A `strategies` row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Strategy {
    pub id: i64,
    pub problem_id: String,
    pub problem_name: String,
    pub domain_id: Option<String>,
    pub approach_name: String,
    pub approach_description: Option<String>,
    pub outcome: String,
    pub submission_slot: Option<i64>,
    pub submission_uuid: Option<String>,
    pub attempts: i64,
    pub last_attempted: Option<String>,
    pub learned: Option<String>,
}

impl Strategy {
    pub(crate) const COLUMNS: &'static str = "id, problem_id, problem_name, domain_id, approach_name, approach_description, outcome, submission_slot, submission_uuid, attempts, last_attempted, learned";

    pub(crate) fn from_row(row: &rusqlite::Row<'_>) -> Strategy {
        Strategy {
            id: int_at(row, 0).unwrap_or_default(),
            problem_id: text_at(row, 1).unwrap_or_default(),
            problem_name: text_at(row, 2).unwrap_or_default(),
            domain_id: text_at(row, 3),
            approach_name: text_at(row, 4).unwrap_or_default(),
            approach_description: text_at(row, 5),
            outcome: text_at(row, 6).unwrap_or_default(),
            submission_slot: int_at(row, 7),
            submission_uuid: text_at(row, 8),
            attempts: int_at(row, 9).unwrap_or(1),
            last_attempted: text_at(row, 10),
            learned: text_at(row, 11),
        }
    }
}

/// A `problems` row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Problem {
    pub id: String,
    pub name: String,
    pub domain_id: Option<String>,
    pub status: Option<String>,
    pub submission_count: i64,
    pub proven_count: i64,
    pub failed_count: i64,
    pub statement: Option<String>,
    pub best_result: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    /// What the domain rests on: the files' `classification`, `imports` or `names`, or
    /// `tracking` / `recorded`; `None` with no domain (unknown).
    pub domain_evidence: Option<String>,
    /// The file and theorem the statement is taken from.
    pub statement_source: Option<String>,
    pub statement_theorem: Option<String>,
    /// What a catalogue says of the main statement in the literature (`open`, `solved`),
    /// apart from our status.
    pub literature_status: Option<String>,
    /// The file whose catalogue attribute says so.
    pub literature_source: Option<String>,
    /// The best complete, unconditional proof of the statement in the problem's files: its
    /// confidence (`verified` or `high`: status `proven`; `medium`: nobody checked it, so the
    /// status is `partial`) and its file.
    pub confidence: Option<String>,
    pub proof_source: Option<String>,
    /// What tracking.db or a person (`mk record`) said of its status, kept apart from what the
    /// files show (schema 9 on); `None` when nobody said anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recorded_status: Option<String>,
    /// Its variants, each with its own status ([`crate::kb::Kb::problem_by_key`] fills them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<Variant>,
    /// Attempts on it by outcome ([`crate::kb::Kb::problem_by_key`] fills them).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attempts: Option<AttemptCounts>,
    /// Nothing but the users' sketch names of its files names it (every file's evidence is
    /// `topic`, or a copy of such a file): a label, not a problem the files' own words state,
    /// so its status is never the mathematics' ([`crate::kb::Kb::problem_by_key`] fills it).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub named_by_sketch_only: bool,
}

/// A variant of a problem (`erdos_1.variants.weak`) and how it stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Variant {
    pub theorem_name: String,
    pub statement: String,
    /// The file that states it.
    pub source: String,
    /// What a catalogue says of it in the literature (`open`, `solved`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub literature_status: Option<String>,
    /// Ours: `proven`, `false`, `partial` or `open`.
    pub status: String,
    /// The best complete, unconditional proof's confidence and file (as for the problem).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof_source: Option<String>,
}

/// Attempts on a problem (files Aristotle returned), by outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AttemptCounts {
    pub proven: i64,
    pub partial: i64,
    pub failed: i64,
}

impl Problem {
    pub(crate) const COLUMNS: &'static str = "id, name, domain_id, status, submission_count, proven_count, failed_count, statement, best_result, created_at, updated_at, domain_evidence, statement_source, statement_theorem, literature_status, literature_source, confidence, proof_source, recorded_status";

    /// [`Problem::COLUMNS`] for schema versions 7 and 8, which lack `recorded_status`.
    pub(crate) const COLUMNS_V7: &'static str = "id, name, domain_id, status, submission_count, proven_count, failed_count, statement, best_result, created_at, updated_at, domain_evidence, statement_source, statement_theorem, literature_status, literature_source, confidence, proof_source, NULL";

    /// [`Problem::COLUMNS`] for a schema older than version 7, which lacks the evidence
    /// columns (read as NULL).
    pub(crate) const COLUMNS_V1: &'static str = "id, name, domain_id, status, submission_count, proven_count, failed_count, statement, best_result, created_at, updated_at, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL";

    pub(crate) fn from_row(row: &rusqlite::Row<'_>) -> Problem {
        Problem {
            id: text_at(row, 0).unwrap_or_default(),
            name: text_at(row, 1).unwrap_or_default(),
            domain_id: text_at(row, 2),
            status: text_at(row, 3),
            submission_count: int_at(row, 4).unwrap_or_default(),
            proven_count: int_at(row, 5).unwrap_or_default(),
            failed_count: int_at(row, 6).unwrap_or_default(),
            statement: text_at(row, 7),
            best_result: text_at(row, 8),
            created_at: text_at(row, 9),
            updated_at: text_at(row, 10),
            domain_evidence: text_at(row, 11),
            statement_source: text_at(row, 12),
            statement_theorem: text_at(row, 13),
            literature_status: text_at(row, 14),
            literature_source: text_at(row, 15),
            confidence: text_at(row, 16),
            proof_source: text_at(row, 17),
            recorded_status: text_at(row, 18),
            variants: Vec::new(),
            attempts: None,
            named_by_sketch_only: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enums_parse_their_text() {
        for t in FindingType::ALL {
            assert_eq!(t.as_str().parse::<FindingType>().unwrap(), *t);
        }
        assert_eq!(
            "false-lemma".parse::<FindingType>().unwrap(),
            FindingType::FalseLemma
        );
        let err = "lemma".parse::<FindingType>().unwrap_err().to_string();
        assert!(
            err.contains("unknown finding type 'lemma'") && err.contains("false_lemma"),
            "{err}"
        );
    }

    #[test]
    fn domain_aliases() {
        assert_eq!(domain_alias("number_theory"), Some("nt"));
        assert_eq!(domain_alias("Number-Theory"), Some("nt"));
        assert_eq!(domain_alias("NT"), Some("nt"));
        assert_eq!(domain_alias("combinatorics"), Some("combinatorics"));
        assert_eq!(domain_alias("Geometry"), Some("geometry"));
        assert_eq!(domain_alias("logic"), None);
    }
}
