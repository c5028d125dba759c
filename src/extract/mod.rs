//! `mf extract`: result files → findings → knowledge.db.
//!
//! Files are read, hashed, parsed and turned into findings in parallel; one connection writes
//! them in batched transactions, each file all-or-nothing. A file whose content hash is already
//! stored for its path is skipped before parsing, so a re-run costs little and adds nothing.

mod copies;
pub mod dated;
pub mod definitions;
pub mod domain;
pub mod findings;
pub mod fingerprint;
pub mod origin;
pub mod profile;
pub mod statements;
pub mod technique;
pub mod uses;
pub mod verdict;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use rayon::prelude::*;
use serde::Serialize;

use crate::kb::{content_hash, FileItem, FileStatus, Kb, KnownSource, SourceRecord};
use crate::lean::depends::Dependencies;
use crate::lean::{Outline, ParsedFile, Source};

use crate::problem::{
    self,
    naming::{self, FileNaming},
};
use origin::Origin;

/// Files prepared in parallel and then written in one transaction.
const BATCH: usize = 256;

/// The version of the rules this extractor reads files by, stored with each source: raise it
/// when what a file yields changes (a finding's claim, a label, a statement), so that
/// `mf extract` re-reads files an older extractor stored instead of keeping their findings
/// because the bytes are the same.
/// 2: files keep their own date (`dated`). 3: problem statements, variants, literature
/// status and domains from evidence; outcomes from what a file proves of its target.
/// 4: a file's problem comes from its evidence ([`crate::problem`]), no longer from its name
/// alone; re-reading moves an older knowledge base to the new problem ids. 5: statements are
/// named after their problem through the scheme table (any spelling, a benchmark's file name,
/// `main`), a sketch without a hole states its main theorem; a collection's theorems state
/// their own problems; a campaign file's problem comes from its own words, then its slot
/// siblings, then its folders, its sketch name last; copies of one output share the problem
/// of the strongest evidence any copy has. 6: a sketch of topic words takes the campaign its
/// own words name (a theorem named as a target, its words beyond the title, its final theorem
/// of a target's family) before its sketch name; a title naming another conjecture vetoes a
/// scheme label of its path, across copies.
/// Also 6: a file's domain rests on Mathlib's names in its statements only (not its own or
/// its project's names, nor proofs), and ties decide nothing.
/// 7: a sketch of topic words whose own definitions are a known problem's files' joins it
/// (`definitions`), of several problems' equally is a step of no problem (`step`); its topic
/// name is the last resort (`topic`).
/// 8: each file's defined names are stored (`sources.definitions`), for a run of other files
/// to judge identity by without reading it again.
/// 9: a claim named as the file's problem and then as another known problem states a case of
/// it (`tau_le_8_path4` of `tau_le_8`, `path_4` known): a variant, never its statement.
/// 10: a file of topic words whose title names someone's conjecture and which states a theorem
/// named after it is about that conjecture (`tuza_conjecture`).
/// 11: a project's own declaration command states the problem; each main statement carries
/// its fingerprint (`problem_statements.fingerprint`, [`fingerprint`]).
/// 12: a problem only a sketch name names is marked so; a named result the title writes, a
/// campaign target written with words between, an input and its output as one submission, a
/// catalogue result's attributed theorem; library modules and tests keep their reason; a file
/// that did not parse is a failed attempt and no basis of a status.
/// 13: a file of topic words whose lemmas (name and statement) are those one known problem's
/// files state is a step of it (`lemmas`), of several problems' equally a step of none; the
/// lemmas' keys are stored with the defined names.
/// 14: identity reads the canonical path; a name of no scheme is the users' naming only for a
/// file of the submission pipeline (`naming::FileNaming::pipeline`, or an input whose output
/// the run holds); a date folder names no problem; a `test`/`tests` folder counts only inside
/// the file's project; a benchmark's statement in a `Test/` split is its problem.
pub const EXTRACTOR_VERSION: i64 = 14;

/// The first extractor whose stored definition names hold the keys of the file's lemmas.
const LEMMA_KEYS_SINCE: i64 = 13;

/// Values given on the command line that override what file names say, and the tracking.db
/// whose submissions name the problems of the files they returned.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub slot: Option<i64>,
    pub problem_id: Option<String>,
    /// tracking.db to read problems from (never written); none or missing: not used.
    pub tracking_db: Option<PathBuf>,
    /// The folders the run walked (`--all DIR`): a file in no Lean project or repository has
    /// its project below the nearest of them ([`problem::layout::Layout::with_walked`]).
    pub walked: Vec<PathBuf>,
}

/// What happened to one file. Counts are of **occurrences** (a fact in one file, see
/// [`crate::kb::FactCounts`]), named so in JSON.
#[derive(Debug, Clone, Serialize)]
pub struct FileReport {
    pub path: String,
    pub status: FileStatus,
    pub declarations: usize,
    pub parse_errors: usize,
    /// The file's occurrences stored: one per fact it states.
    #[serde(rename = "occurrences_added")]
    pub findings_added: usize,
    /// Occurrences of a changed file's previous version, taken off because the new ones
    /// replace them.
    #[serde(rename = "occurrences_removed")]
    pub findings_removed: usize,
    /// Occurrences of an unchanged file, kept as they were.
    #[serde(rename = "occurrences_unchanged")]
    pub findings_unchanged: usize,
    /// Why the file failed, one line.
    pub error: Option<String>,
    /// The file failed because it is not Lean text (binary, compressed, not UTF-8).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub not_text: bool,
    /// The problem the file was found to be about, and the evidence that decided it (not
    /// known for an unchanged file, which was not read again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem_evidence: Option<&'static str>,
}

impl FileReport {
    /// A failed file with nothing counted yet; `error` says why, when known.
    fn failed(path: String, error: Option<String>) -> FileReport {
        FileReport {
            path,
            status: FileStatus::Failed,
            declarations: 0,
            parse_errors: 0,
            findings_added: 0,
            findings_removed: 0,
            findings_unchanged: 0,
            error,
            not_text: false,
            problem_id: None,
            problem_evidence: None,
        }
    }
}

/// Totals of a run: files by status, and occurrences (named so in JSON) and facts, which add
/// up: `occurrences_after = occurrences_before + occurrences_added − occurrences_removed`
/// when no other writer ran meanwhile.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub files: usize,
    pub added: usize,
    pub replaced: usize,
    pub unchanged: usize,
    pub failed: usize,
    pub declarations: usize,
    #[serde(rename = "occurrences_added")]
    pub findings_added: usize,
    #[serde(rename = "occurrences_removed")]
    pub findings_removed: usize,
    #[serde(rename = "occurrences_unchanged")]
    pub findings_unchanged: usize,
    /// The knowledge base's facts and occurrences before and after the run.
    pub before: crate::kb::FactCounts,
    pub after: crate::kb::FactCounts,
    pub files_with_parse_errors: usize,
    pub seconds: f64,
}

impl Summary {
    fn count(&mut self, r: &FileReport) {
        self.files += 1;
        match r.status {
            FileStatus::Added => self.added += 1,
            FileStatus::Replaced => self.replaced += 1,
            FileStatus::Unchanged => self.unchanged += 1,
            FileStatus::Failed => self.failed += 1,
            FileStatus::Skipped => {}
        }
        self.declarations += r.declarations;
        self.findings_added += r.findings_added;
        self.findings_removed += r.findings_removed;
        self.findings_unchanged += r.findings_unchanged;
        if r.parse_errors > 0 {
            self.files_with_parse_errors += 1;
        }
    }
}

/// A file ready to be written, or the reason it will not be.
enum Prepared {
    Unchanged(FileReport),
    Item {
        item: Box<FileItem>,
        report: FileReport,
    },
    Failed(FileReport),
}

/// The identity of a file in knowledge.db: its canonical path, so that runs from different
/// working directories recognise the same file.
pub fn source_key(path: &Path) -> String {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| path.to_path_buf())
        .display()
        .to_string()
}

/// The path under which `path` is (or was) stored, whether or not it still exists: its
/// [`source_key`] when it does; else the absolute path with `.` and `..` resolved against the
/// nearest ancestor that exists (a deleted file's stored path).
pub fn stored_path(path: &Path) -> String {
    if path.exists() {
        return source_key(path);
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut normal = PathBuf::new();
    for part in absolute.components() {
        match part {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            other => normal.push(other),
        }
    }
    // The part that still exists may be a symbolic link the stored path went through.
    let mut base = normal.clone();
    let mut rest = Vec::new();
    while !base.exists() {
        match (base.file_name().map(|n| n.to_os_string()), base.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                base = parent.to_path_buf();
            }
            _ => return normal.display().to_string(),
        }
    }
    let mut key = std::fs::canonicalize(&base).unwrap_or(base);
    key.extend(rest.iter().rev());
    key.display().to_string()
}

/// Extracts `files` into `kb`. `progress` is called with the number of files done so far.
/// Per-file problems are reported in the returned reports; only a failure of the database
/// itself ends the run early (with what was committed before it kept).
pub fn run(
    kb: &mut Kb,
    files: &[PathBuf],
    overrides: &Overrides,
    mut progress: impl FnMut(usize),
    mut report: impl FnMut(&FileReport),
) -> crate::kb::Result<Summary> {
    let start = Instant::now();
    let known = kb.known_sources()?;
    let survey = Survey::of(files);
    let problem = identity_context(&survey, &known, overrides);
    let mut shared = SharedAnalyses::of(&survey);
    let copies = copies::Copies::of(&survey, &known, overrides, &problem, &mut shared);
    let identity = Context { problem, copies };
    // Each file's key was found once, by the survey (canonicalizing costs a system call per
    // path component), and so were the names it defines.
    let seen: Vec<Seen> = survey.files.into_iter().map(Seen::from).collect();
    let mut summary = Summary {
        before: kb.fact_counts()?,
        ..Summary::default()
    };
    let mut done = 0;
    let mut touched = Touched::default();
    // Preparing (read, hash, parse, outline) runs on the rayon pool while this thread writes
    // the previous batch: SQLite's work overlaps with parsing instead of adding to it.
    std::thread::scope(|scope| {
        let (sender, batches) = std::sync::mpsc::sync_channel::<(usize, Vec<Prepared>)>(1);
        let known = &known;
        let shared = &shared;
        let identity = &identity;
        scope.spawn(move || {
            for range in batch_ranges(files.len()) {
                let (chunk, seen) = (&files[range.clone()], &seen[range]);
                let prepared = chunk
                    .par_iter()
                    .zip(seen)
                    .map(|(path, seen)| {
                        profile::charge(&profile::PREPARE, || {
                            prepare_isolated(path, seen, known, overrides, identity, shared)
                        })
                    })
                    .collect();
                if sender.send((chunk.len(), prepared)).is_err() {
                    return; // the writer stopped on a database error
                }
            }
        });
        for (len, prepared) in batches {
            let mut items = Vec::new();
            let mut pending = Vec::new();
            let mut evidence = Vec::new();
            for p in prepared {
                match p {
                    Prepared::Unchanged(r) | Prepared::Failed(r) => {
                        summary.count(&r);
                        report(&r);
                    }
                    Prepared::Item { item, report } => {
                        evidence.push(Touched::of(&item, known.get(&item.source.path)));
                        items.push(*item);
                        pending.push(report);
                    }
                }
            }
            let outcomes = profile::charge(&profile::WRITER, || kb.write_batch(items))?;
            for (outcome, of_file) in outcomes.iter().zip(evidence) {
                if matches!(outcome.status, FileStatus::Added | FileStatus::Replaced) {
                    touched.add(of_file);
                }
            }
            for (mut r, outcome) in pending.into_iter().zip(outcomes) {
                r.status = outcome.status;
                r.findings_added = outcome.findings_added;
                r.findings_removed = outcome.findings_removed;
                r.error = outcome.error;
                summary.count(&r);
                report(&r);
            }
            done += len;
            progress(done);
        }
        Ok::<(), crate::kb::KbError>(())
    })?;
    // Problems files moved away from hand what was recorded on them to where the files went.
    kb.settle_moved_problems()?;
    // Problem status from evidence of the whole knowledge base, not of one file: of every
    // problem whose evidence this run changed, or of all when files an older extractor read
    // were read again (its rules may have settled them otherwise).
    if touched.older_extractor {
        kb.settle_problem_status()?;
    } else if !touched.problems.is_empty() || !touched.slots.is_empty() {
        kb.settle_problems(&touched.problems, &touched.slots)?;
    }
    summary.after = kb.fact_counts()?;
    summary.seconds = start.elapsed().as_secs_f64();
    profile::report();
    Ok(summary)
}

/// The batches of a run of `n` files: [`BATCH`] files each, the last [`BATCH`] in eighths.
/// The writer writes a batch while the next is prepared, so the last batch's writing is
/// all that is left when preparing ends: a small one keeps that tail short.
fn batch_ranges(n: usize) -> Vec<std::ops::Range<usize>> {
    let tail = n.saturating_sub(BATCH);
    let mut out: Vec<_> = (0..tail)
        .step_by(BATCH)
        .map(|start| start..(start + BATCH).min(tail))
        .collect();
    out.extend(
        (tail..n)
            .step_by(BATCH / 8)
            .map(|start| start..(start + BATCH / 8).min(n)),
    );
    out
}

/// The problems whose evidence a run's writes changed, for settling them.
#[derive(Default)]
struct Touched {
    /// The problems of the files written: before and after, and those a collection states.
    problems: HashSet<String>,
    /// Their slots, before and after: an attempt of the slot is judged against its input.
    slots: HashSet<i64>,
    /// A file stored by an older extractor was read again.
    older_extractor: bool,
}

impl Touched {
    /// What writing `item` over `stored` (its stored version, if any) touches.
    fn of(item: &FileItem, stored: Option<&KnownSource>) -> Touched {
        let mut t = Touched::default();
        t.problems.extend(item.source.problem_id.iter().cloned());
        t.problems
            .extend((item.problem.iter().chain(&item.stated)).map(|p| p.id.trim().to_string()));
        t.slots.extend(item.source.slot);
        if let Some(k) = stored {
            t.problems.extend(k.problem_id.iter().cloned());
            t.slots.extend(k.slot);
            t.older_extractor = k.extractor != EXTRACTOR_VERSION;
        }
        t
    }

    fn add(&mut self, other: Touched) {
        self.problems.extend(other.problems);
        self.slots.extend(other.slots);
        self.older_extractor |= other.older_extractor;
    }
}

/// [`prepare`], with a panic in one file's work caught and reported as that file's failure:
/// a bug triggered by one file must not lose the rest of its batch.
fn prepare_isolated(
    path: &Path,
    seen: &Seen,
    known: &HashMap<String, KnownSource>,
    overrides: &Overrides,
    identity: &Context,
    shared: &SharedAnalyses,
) -> Prepared {
    isolated(path, &seen.key, || {
        prepare(path, seen, known, overrides, identity, shared)
    })
}

/// Runs `work` for `path` (stored as `key`), turning a panic into a failed report for it.
fn isolated(path: &Path, key: &str, work: impl FnOnce() -> Prepared) -> Prepared {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Prepared::Failed(FileReport::failed(
            key.to_string(),
            Some(format!(
                "{}: internal error while extracting ({why}); file skipped, please report it",
                path.display()
            )),
        ))
    })
}

fn prepare(
    path: &Path,
    seen: &Seen,
    known: &HashMap<String, KnownSource>,
    overrides: &Overrides,
    identity: &Context,
    shared: &SharedAnalyses,
) -> Prepared {
    let key = seen.key.clone();
    let mut report = FileReport::failed(key.clone(), None);
    let bytes = match crate::lean::source::read_source_bytes(path) {
        Ok(bytes) => bytes,
        Err(e) => {
            report.error = Some(e.to_string());
            return Prepared::Failed(report);
        }
    };
    let hash = content_hash(&bytes);
    let naming = naming_of(Path::new(&key), overrides);
    let given = given_problem(overrides);
    // Unchanged means the same bytes known under the same slot, read by this extractor, with
    // nothing stronger than before naming its problem: a `--slot` or `--problem-id` that
    // corrects what is stored, a submission tracking.db now gives another problem, copies that
    // now name another problem, or a newer extractor, re-extracts the file.
    if let Some(stored) = known.get(&key).filter(|k| {
        is_unchanged(k, &hash, &naming, given.as_deref(), &identity.problem)
            && identity.copies.settles(&key, k)
    }) {
        report.status = FileStatus::Unchanged;
        report.findings_unchanged = stored.findings;
        return Prepared::Unchanged(report);
    }
    let size = bytes.len() as u64;
    // Stored for later runs of other files to judge identity by (see `identity_context`): the
    // survey's, unless the file changed since it was read.
    let definitions = if seen.hash.as_deref() == Some(hash.as_str()) {
        seen.definitions.clone()
    } else {
        identity_names(&bytes)
    };
    // The file's own date when it states none (see `dated`).
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_secs() as i64);
    let source = match Source::from_bytes(path, bytes) {
        Ok(source) => source,
        Err(e) => {
            report.not_text = e.is_not_text();
            report.error = Some(e.to_string());
            return Prepared::Failed(report);
        }
    };
    let item = extract_source(
        Stored {
            key,
            hash,
            size,
            modified,
            definitions,
        },
        source,
        naming,
        (identity, overrides.problem_id.as_deref()),
        shared,
    );
    report.declarations = item.1;
    report.parse_errors = item.2;
    report.problem_id = item.0.source.problem_id.clone();
    report.problem_evidence = item.3.map(problem::Evidence::as_str);
    Prepared::Item {
        item: Box::new(item.0),
        report,
    }
}

/// What the run knows about the problems of its files beyond each file: the problem layer's
/// context, and the problems copies of one output decided.
struct Context {
    problem: problem::Context,
    copies: copies::Copies,
}

/// The problem `--problem-id` gives, in its canonical spelling.
fn given_problem(overrides: &Overrides) -> Option<String> {
    overrides
        .problem_id
        .as_deref()
        .map(|p| problem::canonical(p).unwrap_or_else(|| p.trim().to_string()))
}

/// Whether the stored version of a file is what this run would store, as far as can be told
/// before reading it: the same bytes, slot and extractor, and no problem given on the command
/// line or by tracking.db that differs from the stored one.
fn is_unchanged(
    k: &KnownSource,
    hash: &str,
    naming: &FileNaming,
    given: Option<&str>,
    identity: &problem::Context,
) -> bool {
    let tracked = k
        .aristotle_uuid
        .as_deref()
        .and_then(|u| identity.tracking.get(&u.to_ascii_lowercase()));
    k.content_hash == hash
        && k.slot == naming.slot
        && given.is_none_or(|g| k.problem_id.as_deref() == Some(g))
        && tracked.is_none_or(|t| k.problem_id.as_ref() == Some(t))
        && k.extractor == EXTRACTOR_VERSION
}

/// What a file's content says, whatever its path: computed once per distinct content.
struct Analysis {
    text: String,
    outline: Outline,
    verdicts: Vec<verdict::Verdict>,
    /// Which declarations rest on an incomplete one of the same file.
    dependencies: Dependencies,
    domain: Option<domain::Domain>,
    /// What each declaration's proof uses and its spine, by declaration index.
    proofs: Vec<uses::Proof>,
    /// The same-file definitions each declaration's statement names, digested.
    definitions: Vec<Option<String>>,
}

fn analyse(key: &str, source: Source) -> Analysis {
    let parsed = profile::charge(&profile::PARSE, || ParsedFile::parse(source.text));
    let outline = profile::charge(&profile::OUTLINE, || Outline::of(key, &parsed));
    let verdicts = verdict::verdicts(&parsed.text, &outline);
    // A lemma the file disproves holds nothing up, whatever its text shows.
    let disproved = statements::disproved(&verdicts);
    let dependencies = Dependencies::with_gaps(&parsed, &outline, |d| {
        disproved
            .iter()
            .any(|&i| std::ptr::eq(&outline.declarations[i], d))
            .then_some(crate::lean::depends::Gap::Disproved)
    });
    let domain = profile::charge(&profile::DOMAIN, || domain::infer(&outline, &parsed));
    // Only the proofs something reads are walked: a complete theorem's or lemma's (its finding
    // and the attempt's fallback approach), the main one's, holes or not (the attempt's
    // approach, see `attempt_of`), and those of declarations a verdict names (a failure
    // carries their technique). A lemma left with a hole before the main proof is read by
    // nothing.
    let main = outline
        .declarations
        .iter()
        .rposition(|d| d.is_theorem_like() && d.has_body());
    let proofs = uses::proofs_where(&parsed, &outline, |i| {
        let d = &outline.declarations[i];
        (d.is_theorem_like() && (d.sorry_count == 0 || Some(i) == main))
            || verdicts.iter().any(|v| v.declaration == Some(i))
    });
    let definitions = definitions::digests(&outline, &parsed.text);
    let (text, tree) = parsed.into_parts();
    profile::charge(&profile::DROP_TREE, || drop(tree));
    Analysis {
        text,
        outline,
        verdicts,
        dependencies,
        domain,
        proofs,
        definitions,
    }
}

/// Analyses of contents that occur at more than one path in a run. Prover results are often
/// copied (a result file and the project it was unpacked into), and such a copy is parsed once.
#[derive(Default)]
struct SharedAnalyses {
    /// Content hashes seen at more than one path.
    repeated: HashSet<String>,
    done: Mutex<HashMap<String, Arc<OnceLock<Arc<Analysis>>>>>,
}

impl SharedAnalyses {
    /// The contents the survey found at more than one path.
    fn of(survey: &Survey) -> SharedAnalyses {
        let mut seen = HashSet::new();
        let repeated = survey
            .files
            .iter()
            .filter_map(|f| f.hash.clone())
            .filter(|h| !seen.insert(h.clone()))
            .collect();
        SharedAnalyses {
            repeated,
            done: Mutex::default(),
        }
    }

    /// Keeps the analysis of `hash` once made, for a later file or a later pass.
    fn keep(&mut self, hash: &str) {
        self.repeated.insert(hash.to_string());
    }

    fn analysis(&self, key: &str, hash: &str, source: Source) -> Arc<Analysis> {
        if !self.repeated.contains(hash) {
            return Arc::new(analyse(key, source));
        }
        let cell = {
            let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(done.entry(hash.to_string()).or_default())
        };
        Arc::clone(cell.get_or_init(|| Arc::new(analyse(key, source))))
    }
}

/// What every file of a run is, read before any is parsed (cheap next to parsing): its
/// content hash (to parse a repeated content once), the modules it imports, the users' naming
/// of it and the Aristotle request it came from (for [`problem::Context`] and [`copies`]).
struct Survey<'a> {
    files: Vec<SurveyedFile<'a>>,
}

struct SurveyedFile<'a> {
    path: &'a Path,
    /// Its [`source_key`].
    key: String,
    hash: Option<String>,
    imports: Vec<String>,
    /// The names it defines ([`problem::signature::defined_names`]).
    definitions: Vec<String>,
    naming: FileNaming,
    /// The request uuid (lowercase): its Aristotle header's, else its project directory's.
    uuid: Option<String>,
}

/// What preparing a file takes from the survey: its key, and the names the content the
/// survey hashed defines.
struct Seen {
    key: String,
    hash: Option<String>,
    definitions: Vec<String>,
}

impl From<SurveyedFile<'_>> for Seen {
    fn from(f: SurveyedFile<'_>) -> Seen {
        Seen {
            key: f.key,
            hash: f.hash,
            definitions: f.definitions,
        }
    }
}

/// Bytes of a file's start read for its Aristotle header in the survey.
const SURVEY_HEADER_BYTES: usize = 4096;

impl<'a> Survey<'a> {
    fn of(files: &'a [PathBuf]) -> Survey<'a> {
        let files = files
            .par_iter()
            .map(|path| {
                let bytes = crate::lean::source::read_source_bytes(path).ok();
                // Identity reads the canonical path, so that how the file was named on the
                // command line (relative, through `..`) changes nothing.
                let key = source_key(path);
                let naming = naming::from_path(Path::new(&key));
                let header_uuid = bytes.as_deref().and_then(|b| {
                    let start = String::from_utf8_lossy(&b[..b.len().min(SURVEY_HEADER_BYTES)]);
                    crate::lean::header::AristotleHeader::from_file_start(&start)?.uuid
                });
                SurveyedFile {
                    path,
                    key,
                    hash: bytes.as_deref().map(content_hash),
                    imports: bytes
                        .as_deref()
                        .map(problem::layout::imports)
                        .unwrap_or_default(),
                    definitions: bytes.as_deref().map(identity_names).unwrap_or_default(),
                    uuid: header_uuid
                        .or_else(|| naming.uuid.clone())
                        .map(|u| u.to_ascii_lowercase()),
                    naming,
                }
            })
            .collect();
        Survey { files }
    }
}

/// What the run knows about identity beyond single files: tracking.db's problem per request,
/// the users' campaign targets (named by the files of this run and those already stored), the
/// package structure of the files.
fn identity_context(
    survey: &Survey<'_>,
    known: &HashMap<String, KnownSource>,
    overrides: &Overrides,
) -> problem::Context {
    let mut tracking = HashMap::new();
    let mut fixed = Vec::new();
    let mut tracked_files = Vec::new();
    if let Some(db) = overrides.tracking_db.as_deref().filter(|p| p.is_file()) {
        let t = crate::tracking::Tracking::open(db);
        for (uuid, problem) in t.submission_problems() {
            fixed.push(problem.clone());
            tracking.insert(uuid.to_ascii_lowercase(), problem);
        }
        fixed.extend(t.candidate_problems().into_iter().filter_map(|c| c.id));
        tracked_files = t.submission_files();
    }
    // The users' name of each file, with its submission: of the files stored before and of
    // this run's.
    let submission = problem::campaign::submission;
    let mut named: HashMap<String, (String, String)> = known
        .iter()
        .filter_map(|(path, k)| {
            let id = k.problem_id.clone()?;
            Some((
                path.clone(),
                (submission(path, k.slot, k.aristotle_uuid.as_deref()), id),
            ))
        })
        .collect();
    let mut surveyed = HashSet::new();
    for f in &survey.files {
        let key = f.key.clone();
        match &f.naming.problem_id {
            Some(n) => named.insert(
                key.clone(),
                (
                    submission(&key, f.naming.slot, f.uuid.as_deref()),
                    n.clone(),
                ),
            ),
            None => named.remove(&key),
        };
        surveyed.insert(key);
    }
    let mut context = problem::Context {
        tracking,
        campaigns: problem::campaign::Campaigns::new(named.into_values(), fixed),
        layout: problem::layout::Layout::new(
            survey
                .files
                .iter()
                .map(|f| (Path::new(&f.key), f.imports.clone())),
        )
        .with_walked(overrides.walked.iter().cloned()),
        ..problem::Context::default()
    };
    // The slots' names: of the files of this run and of those stored before.
    let stored = known
        .keys()
        .filter(|path| !surveyed.contains(*path))
        .map(|path| naming::from_path(Path::new(path)));
    let slots = survey
        .files
        .iter()
        .map(|f| f.naming.clone())
        .chain(stored)
        .filter_map(|n| Some((n.slot?, n.problem_id?)));
    context.track_files(tracked_files);
    context.name_slots(slots);
    // The submissions the outputs of this run and of those stored were returned for.
    context.outputs = survey
        .files
        .iter()
        .map(|f| f.key.as_str())
        .chain(known.keys().map(String::as_str))
        .filter_map(|key| naming::output_of(Path::new(key)))
        .collect();
    // Definitions decide only for a file whose name names no problem (no campaign target, no
    // scheme id). When such a file is in a run of some files only, the stored files'
    // definitions come from the knowledge base, so that it gets the problem a run of all of
    // them gives it. A row an older extractor stored has none recorded: that file is read
    // again (until the next run of all files stores them).
    let unnamed = survey.files.iter().any(|f| {
        f.naming
            .problem_id
            .as_deref()
            .is_none_or(|n| context.named_problem(n).is_none())
    });
    let stored_definitions: Vec<(PathBuf, FileNaming, Option<&str>, Vec<String>)> = if unnamed {
        known
            .par_iter()
            .filter(|(path, k)| k.problem_id.is_some() && !surveyed.contains(*path))
            .filter_map(|(path, k)| {
                // Rows before extractor 13 keep no lemma keys: such a file is read again.
                let names = match &k.definitions {
                    Some(names) if k.extractor >= LEMMA_KEYS_SINCE => names.clone(),
                    _ => crate::lean::source::read_source_bytes(Path::new(path))
                        .ok()
                        .map(|bytes| identity_names(&bytes))?,
                };
                let path = PathBuf::from(path);
                let naming = naming::from_path(&path);
                (!names.is_empty()).then_some((path, naming, k.aristotle_uuid.as_deref(), names))
            })
            .collect()
    } else {
        Vec::new()
    };
    context.read_definitions(
        survey
            .files
            .iter()
            .map(|f| {
                (
                    Path::new(&f.key),
                    &f.naming,
                    f.uuid.as_deref(),
                    f.definitions.as_slice(),
                )
            })
            .chain(
                stored_definitions
                    .iter()
                    .map(|(path, naming, uuid, names)| {
                        (path.as_path(), naming, *uuid, names.as_slice())
                    }),
            ),
    );
    context
}

/// What a file offers other files' identity: the names it defines
/// ([`problem::signature::defined_names`]) and the keys of the lemmas it states
/// ([`problem::lemmas::stated_keys`]), stored together as `sources.definitions`.
fn identity_names(bytes: &[u8]) -> Vec<String> {
    // One text and one scan of its line starts for both.
    let text = problem::signature::scan_text(bytes);
    let starts = crate::lean::lexical::code_line_starts(&text);
    let mut names = problem::signature::definitions_at(&text, &starts);
    names.extend(problem::lemmas::keys_at(&text, &starts));
    names
}

/// Slot and uuid of a file (the command line's slot, else its path's), and the users' naming
/// of it.
fn naming_of(path: &Path, overrides: &Overrides) -> FileNaming {
    let from_path = naming::from_path(path);
    FileNaming {
        slot: overrides.slot.or(from_path.slot),
        ..from_path
    }
}

/// What identifies a file's version in the knowledge base: its key (canonical path), content
/// hash, size and modification time (Unix seconds, when known); and the names it defines.
struct Stored {
    key: String,
    hash: String,
    size: u64,
    modified: Option<i64>,
    /// The names it defines ([`problem::signature::defined_names`]).
    definitions: Vec<String>,
}

/// Builds the knowledge-base item for one decoded file; also returns its declaration and
/// parse-error counts and the evidence that decided its problem. `identity` is the run's
/// identity context and the problem given on the command line.
fn extract_source(
    stored: Stored,
    source: Source,
    naming: FileNaming,
    identity: (&Context, Option<&str>),
    shared: &SharedAnalyses,
) -> (FileItem, usize, usize, Option<problem::Evidence>) {
    let Stored {
        key,
        hash,
        size,
        modified,
        definitions,
    } = stored;
    let file_name = source
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let path = source.path.clone();
    let analysis = shared.analysis(&key, &hash, source);
    let outline = &analysis.outline;
    let mut found = problem::identify(
        &problem::FileView {
            path: Path::new(&key),
            text: &analysis.text,
            outline,
            naming: &naming,
        },
        &identity.0.problem,
        identity.1,
    );
    found.adopt(identity.0.copies.decided(&key));
    let (slot, uuid) = (naming.slot, naming.uuid);
    let problem_id = found.problem_id;
    let others = found.stated;
    // The claims naming a case of the file's problem after it (`tau_le_8_path4` of
    // `tau_le_8`, where `path_4` is a known problem).
    let cases: Vec<usize> = problem_id
        .as_deref()
        .map(|p| {
            (outline.declarations.iter().enumerate())
                .filter(|(_, d)| {
                    d.is_theorem_like() && identity.0.problem.states_case_of(&d.name, p)
                })
                .map(|(i, _)| i)
                .collect()
        })
        .unwrap_or_default();
    let facts = findings::FileFacts {
        origin: Origin::of(&path, outline),
        dependencies: &analysis.dependencies,
        text: &analysis.text,
        file_name: &file_name,
        slot,
        problem_id: problem_id.as_deref(),
        domain: analysis.domain.map(|d| d.id),
        verdicts: &analysis.verdicts,
        proofs: &analysis.proofs,
        definitions: &analysis.definitions,
        stated: &others,
        cases: &cases,
    };
    let (mut findings, problem) =
        profile::charge(&profile::FINDINGS, || findings::generate(outline, &facts));
    let stated = findings::stated_elsewhere(outline, &facts);
    let attempt = attempt_of(
        facts.origin,
        outline,
        &analysis.proofs,
        (&findings, &analysis.verdicts),
        problem_id.as_deref(),
    );
    // The file-level failure (too many holes) carries the approach that failed; a failure
    // about one declaration carries that declaration's own technique (or none).
    if let Some(a) = attempt
        .as_ref()
        .filter(|a| a.approach != technique::UNKNOWN_APPROACH)
    {
        for f in findings.iter_mut().filter(|f| {
            f.finding_type == crate::kb::FindingType::Failure
                && f.title.starts_with(findings::FILE_FAILURE)
        }) {
            f.proof_technique.get_or_insert_with(|| a.approach.clone());
        }
    }
    let header = outline.header.clone().unwrap_or_default();
    let source = SourceRecord {
        path: key,
        content_hash: hash,
        size_bytes: size,
        slot,
        problem_id,
        // The header is the request's own word; an unpacked project's directory says it too.
        aristotle_uuid: header.uuid.or(uuid),
        lean_version: header.lean_version,
        mathlib_version: header.mathlib_version,
        parse_error_count: outline.error_nodes as u32,
        sorry_count: outline.sorry_count() as u32,
        axiom_count: outline.axioms.len() as u32,
        extractor: EXTRACTOR_VERSION,
        stated_date: dated::stated_date(&analysis.text),
        modified,
        domain_id: analysis.domain.map(|d| d.id.to_string()),
        domain_evidence: analysis.domain.map(|d| d.evidence.as_str().to_string()),
        problem_evidence: found.evidence.map(|e| e.as_str().to_string()),
        definitions,
    };
    (
        FileItem {
            source,
            findings,
            problem,
            attempt,
            aliases: found.aliases,
            stated,
        },
        outline.declarations.len(),
        outline.error_nodes,
        found.evidence,
    )
}

/// The attempt a file made on its problem: every file Aristotle returned with a problem id
/// (its output, with Aristotle's header, or a file of the project it returned unpacked) is an
/// attempt. Its approach is the technique of its main proof (the last theorem or lemma with a
/// body, holes or not), else the technique of its last complete theorem or lemma, else
/// [`technique::UNKNOWN_APPROACH`]. Its outcome is what it proves of its target: `failed` when
/// it proves nothing (every theorem and lemma ends in a hole), Lean rejected it, Aristotle
/// could not load it and nothing in it was checked, or it did not parse (what it proves is not
/// known), else `partial`, however many holes are left or verdicts say it failed
/// somewhere. Whether it proves the problem's own statement is known only once every file of
/// the problem is read: settling the problem (`Kb::settle_problem_status`) makes it `proven`
/// when its file holds a complete, unconditional, checked proof of the problem's statement.
fn attempt_of(
    origin: Origin,
    outline: &Outline,
    proofs: &[uses::Proof],
    (findings, verdicts): (&[crate::kb::NewFinding], &[verdict::Verdict]),
    problem_id: Option<&str>,
) -> Option<crate::kb::AttemptRecord> {
    use crate::kb::{Confidence, FindingType, StrategyOutcome};
    let problem_id = problem_id?;
    // What Aristotle returned: its output, or a file of the project it returned unpacked
    // (no header, so never checked: partial at best).
    if !matches!(origin, Origin::AristotleOutput { .. } | Origin::Project) {
        return None;
    }
    let processing_error = outline
        .header
        .as_ref()
        .and_then(|h| h.processing_error.as_ref());
    let provable = |d: &crate::lean::Declaration| d.is_theorem_like() && d.has_body();
    let technique_at = |index: usize| {
        technique::of_declaration(proofs.get(index), &outline.declarations[index].tactics)
    };
    // A file that states no theorem or lemma (a module of definitions, a scratch snippet, an
    // empty stub) attempted nothing.
    let main = outline.declarations.iter().rposition(provable)?;
    let approach = technique_at(main)
        .or_else(|| {
            outline
                .declarations
                .iter()
                .enumerate()
                .rev()
                .filter(|(_, d)| provable(d) && d.sorry_count == 0)
                .find_map(|(i, _)| technique_at(i))
        })
        .unwrap_or_else(|| technique::UNKNOWN_APPROACH.to_string());
    // An attempt that proves nothing outright (every theorem and lemma it states ends in a
    // hole, rests on one, or is judged by Aristotle's verdict) failed, however few holes it
    // left. An output Aristotle could not load into its environment was not checked: its
    // complete proofs are unchecked (`medium`) and count for nothing, only a checked one does.
    let load_failed = verdicts
        .iter()
        .any(|v| matches!(v.kind, verdict::VerdictKind::LoadFailure { .. }));
    let proved_something = findings.iter().any(|f| {
        f.finding_type == FindingType::Theorem
            && match f.confidence {
                Confidence::Low => false,
                Confidence::Medium => !load_failed,
                _ => true,
            }
    });
    // A file that did not parse whole was read only in part: what it proves is not known, so
    // it is never progress (fail closed; an error could hide a hole or a broken statement).
    let failed = !proved_something || processing_error.is_some() || outline.error_nodes > 0;
    Some(crate::kb::AttemptRecord {
        problem_id: problem_id.to_string(),
        approach,
        outcome: if failed {
            StrategyOutcome::Failed
        } else {
            StrategyOutcome::Partial
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Extracts `fixtures/attempts` for problem `bound_problem` into a fresh knowledge base.
    fn extract_attempts() -> (tempfile::TempDir, Kb, rusqlite::Connection) {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("knowledge.db");
        let mut kb = Kb::open(&db).unwrap();
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/attempts");
        let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        let overrides = Overrides {
            problem_id: Some("bound_problem".into()),
            ..Overrides::default()
        };
        run(&mut kb, &files, &overrides, |_| {}, |_| {}).unwrap();
        let conn = rusqlite::Connection::open(&db).unwrap();
        (dir, kb, conn)
    }

    /// A failure about one declaration carries that declaration's technique, not the file's
    /// approach; only the file-level failure (too many holes) carries the approach.
    #[test]
    fn a_failure_carries_its_own_declarations_technique() {
        let (_dir, _kb, conn) = extract_attempts();
        let failures: Vec<(String, Option<String>)> = conn
            .prepare(
                "SELECT f.title, f.proof_technique FROM findings f
                 JOIN sources s ON s.id = f.source_id
                 WHERE f.finding_type = 'failure' AND s.path LIKE '%slot910%' ORDER BY f.title",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(failures.len(), 2, "{failures:?}");
        let omega = Some("linear arithmetic (omega)".to_string());
        let (file, decl): (Vec<_>, Vec<_>) = failures
            .iter()
            .partition(|(title, _)| title.starts_with(findings::FILE_FAILURE));
        assert_eq!(file[0].1, omega, "{failures:?}");
        assert!(decl[0].0.contains("no_improvement"), "{failures:?}");
        assert_ne!(decl[0].1, omega, "{failures:?}");
    }

    /// Every Aristotle output with a problem id is an attempt: its approach is its main
    /// (last theorem or lemma with a body) proof's technique, else its last complete proof's,
    /// else "unknown approach", which is never recommended.
    #[test]
    fn every_output_with_a_problem_is_an_attempt() {
        const OMEGA: &str = "linear arithmetic (omega)";
        let (_dir, kb, conn) = extract_attempts();
        let attempts: Vec<(String, String)> = conn
            .prepare(
                "SELECT s.path, a.approach FROM attempts a JOIN sources s ON s.id = a.source_id
                 ORDER BY s.path",
            )
            .unwrap()
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get(1)?)))
            .unwrap()
            .map(|r| {
                let (path, approach) = r.unwrap();
                let file = Path::new(&path).file_name().unwrap().to_string_lossy();
                (file.into_owned(), approach)
            })
            .collect();
        let expected = [
            ("slot907_lemmas_only_result.lean", OMEGA),
            // A term-mode main proof applying a lemma of the file: that lemma carries it.
            ("slot908_term_main_result.lean", "key lemma bound"),
            (
                "slot909_sorry_main_result.lean",
                technique::UNKNOWN_APPROACH,
            ),
            ("slot910_load_failure_result.lean", OMEGA),
            // slot911 states no theorem or lemma: no attempt.
        ];
        let expected: Vec<(String, String)> = expected
            .iter()
            .map(|(f, a)| (f.to_string(), a.to_string()))
            .collect();
        assert_eq!(attempts, expected);
        // One hole and nothing proven is a failed attempt; complete lemmas are not, but they
        // prove lemmas, not the problem's own statement (no file states it): partial.
        let outcome = |file: &str| -> String {
            conn.query_row(
                "SELECT a.outcome FROM attempts a JOIN sources s ON s.id = a.source_id
                 WHERE s.path LIKE '%' || ?1",
                [file],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!(outcome("slot909_sorry_main_result.lean"), "failed");
        assert_eq!(outcome("slot907_lemmas_only_result.lean"), "partial");
        // (slot907 imports number theory: the problem's domain, which recommendations need.)
        let recommended = kb.recommend("bound_problem", 50).unwrap();
        let names: Vec<&str> = recommended
            .recommendations
            .iter()
            .chain(&recommended.excluded)
            .map(|r| r.technique.as_str())
            .collect();
        assert!(!names.contains(&technique::UNKNOWN_APPROACH), "{names:?}");
    }

    /// Batches cover every file once, in order; the last [`BATCH`] files come in eighths.
    #[test]
    fn batches_cover_the_files_in_order() {
        for n in [0, 1, 31, 32, 33, 255, 256, 257, 700, 2413] {
            let b = batch_ranges(n);
            let flat: Vec<usize> = b.iter().flat_map(|r| r.clone()).collect();
            assert_eq!(flat, (0..n).collect::<Vec<_>>(), "{n}");
            assert!(b.iter().all(|r| !r.is_empty() && r.len() <= BATCH), "{n}");
            let tail = n - n.min(BATCH);
            for r in &b {
                assert!(
                    r.end <= tail || (r.start >= tail && r.len() <= BATCH / 8),
                    "{n}: {b:?}"
                );
            }
        }
    }

    /// A panic in one file's work becomes that file's failed report; the batch goes on.
    #[test]
    fn a_panicking_file_is_reported_alone() {
        let paths = [
            Path::new("a.lean"),
            Path::new("bad.lean"),
            Path::new("c.lean"),
        ];
        let reports: Vec<Prepared> = paths
            .par_iter()
            .map(|p| {
                isolated(p, &p.display().to_string(), || {
                    assert!(!p.ends_with("bad.lean"), "index out of range");
                    Prepared::Unchanged(FileReport {
                        path: p.display().to_string(),
                        status: FileStatus::Unchanged,
                        declarations: 0,
                        parse_errors: 0,
                        findings_added: 0,
                        findings_removed: 0,
                        findings_unchanged: 1,
                        error: None,
                        not_text: false,
                        problem_id: None,
                        problem_evidence: None,
                    })
                })
            })
            .collect();
        let statuses: Vec<_> = reports
            .iter()
            .map(|r| match r {
                Prepared::Unchanged(r) | Prepared::Failed(r) => (r.status, r.error.clone()),
                Prepared::Item { report, .. } => (report.status, None),
            })
            .collect();
        assert_eq!(statuses[0], (FileStatus::Unchanged, None));
        assert_eq!(statuses[2], (FileStatus::Unchanged, None));
        assert_eq!(statuses[1].0, FileStatus::Failed);
        let error = statuses[1].1.clone().unwrap();
        assert!(
            error.starts_with("bad.lean: internal error while extracting (index out of range)"),
            "{error}"
        );
    }
}
