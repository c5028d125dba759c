//! Which problem a file is about, from its evidence, strongest first:
//!
//! 1. the command line (`mf extract --problem-id`);
//! 2. tracking.db: the problem of the submission whose request uuid the file carries;
//! 3. the file's own words: a catalogue attribute's theorem (`@[category research open]`
//!    on `erdos_975`), a declaration or namespace named after a problem (`putnam_1986_b4`,
//!    `namespace Imo2025P4`), a leading comment naming one ("# Erdős Problem 975");
//! 4. its name, or the nearest enclosing folder, in a known scheme (`Imo2025P4.lean`,
//!    `ErdosProblems/975.lean`, `imo2025/p1.lean`; a helper module in a problem's folder
//!    belongs to that problem);
//! 5. a catalogue entry without a scheme (a file whose theorems carry `@[category research …]`
//!    is one problem, named by the file);
//! 6. a file stating a theorem named exactly as the file (a benchmark's statement: its whole
//!    name is the id), unless its title names a campaign target of the users;
//! 7. the users' own sketch naming (`slot614_erdos_850_…`, `tuza_nu4_…`), for their files
//!    only: never for a package module, a test, or a file that states no theorem or lemma; a
//!    sketch whose leading comment names a campaign target in words joins that target. A
//!    sketch name names a problem outright only when it is a campaign target or fits a
//!    scheme; a word about the file or the run (`self_contained`, `extraction`) gives way to
//!    the problem its slot siblings' names give (`slot224d_…` beside `slot224b_tau8_final`),
//!    else to the campaign target its folders name (`tuza/nu4/`), else to the known problem
//!    whose files' definitions its own are ([`super::signature`]), else whose files' lemmas
//!    it states, name and statement alike ([`super::lemmas`]) (of several problems' equally,
//!    it is a step of their campaign and of no problem), and is the file's problem
//!    only when none of these says anything (the last resort, evidence `topic`).
//!
//! A file none of these names is about no problem: its facts are facts without a problem.
//!
//! A file whose theorems and lemmas are named after several distinct problems (a collection:
//! `imo1959_p1_numbertheory` … `imo2024_p6_algebra`) is no one of them: its declarations,
//! its catalogue attributes and its sketch name decide nothing, only its title and its path
//! may name its problem; each of its theorems named after a problem is a statement of that
//! problem ([`Identity::stated`]). Copies of one output (the same content, or the same
//! Aristotle request) are about one problem: the one the strongest evidence any copy has
//! names ([`of_copies`]).

use std::collections::HashMap;
use std::path::Path;

use serde::Serialize;

use super::campaign::Campaigns;
use super::layout::{self, Layout};
use super::lemmas;
use super::naming::{self, FileNaming};
use super::scheme::{self, Mode};
use super::signature::{self, Signatures};
use crate::lean::outline::{CommentKind, Declaration};
use crate::lean::Outline;

/// Folder levels above a file that may name its problem.
const FOLDER_LEVELS: usize = 6;

/// Leading comments read for the file's own words, at most.
const OWN_WORDS_BYTES: usize = 8 * 1024;

/// Lines of the first paragraph of the file's own words that are its title.
const TITLE_LINES: usize = 4;

/// Submissions of a problem that must state a lemma (its name and statement) before it is the
/// problem's: one restating it word for word is evidence enough.
const MIN_LEMMA_SUBMISSIONS: usize = 1;

/// What decided a file's problem (stored per source as `sources.problem_evidence`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Evidence {
    /// `--problem-id` on the command line.
    Given,
    /// tracking.db's problem for the file's submission.
    Tracking,
    /// A catalogue attribute (`@[category research …]`) on a theorem named after the problem.
    Attribute,
    /// A declaration or namespace named after the problem.
    Theorem,
    /// The leading comment names the problem.
    Comment,
    /// The file name, in a known scheme.
    FileName,
    /// An enclosing folder (with the file name), in a known scheme.
    Folder,
    /// A catalogue entry named by its file (no scheme).
    CatalogueEntry,
    /// The leading comment names a campaign target of the users' naming.
    Campaign,
    /// The users' own sketch naming.
    Sketch,
    /// The users' naming of the file's slot siblings (the same slot number).
    Slot,
    /// A folder above the file names a campaign target of the users' naming (`tuza/nu4/`).
    CampaignFolder,
    /// The file's own definitions are those of one known problem's files more than any
    /// other's (a step of that problem, [`super::signature`]).
    Definitions,
    /// The lemmas the file states (name and statement) are those one known problem's files
    /// state more than any other's (a step of that problem, [`super::lemmas`]).
    Lemmas,
    /// No problem: the file's own definitions, or else its lemmas, are equally those of
    /// several known problems' files, and nothing else names its problem (a step of their
    /// campaign, of none of them).
    Step,
    /// The users' sketch name of topic words (`classification`), naming no target and no
    /// scheme, where nothing else names the file's problem: the last resort. A file name alone
    /// is weak evidence: a problem all of whose files rest on it is shown everywhere as named
    /// by its sketch only ([`crate::kb::Problem::named_by_sketch_only`]).
    Topic,
    /// No problem: the file's title names a conjecture that the label of its path or its
    /// users' naming is not (`Selfridge's Conjecture` in a folder labelled `e938`).
    Title,
    /// A copy of the file (the same content stating a theorem, or a file of the same
    /// Aristotle request) has stronger evidence.
    Copy,
    /// No problem: the file is a collection (its claims are named after several problems).
    Collection,
    /// No problem: the file is a module of a library package (it states no problem of its own).
    Library,
    /// No problem: the file is a test (it checks something).
    Test,
}

/// Evidence kinds, strongest first: what decides between copies of one output.
const STRENGTH: &[Evidence] = &[
    Evidence::Given,
    Evidence::Tracking,
    Evidence::Attribute,
    Evidence::Theorem,
    Evidence::Comment,
    Evidence::Title,
    Evidence::FileName,
    Evidence::Folder,
    Evidence::CatalogueEntry,
    Evidence::Campaign,
    // A sketch name ranks below what the file's slot and folders say: where those decide,
    // the name named no problem (the name is then only the last resort).
    Evidence::Slot,
    Evidence::CampaignFolder,
    Evidence::Sketch,
    Evidence::Definitions,
    Evidence::Lemmas,
    // A step of several problems names none, and outranks only its topic words.
    Evidence::Step,
    Evidence::Topic,
    Evidence::Copy,
    Evidence::Collection,
    Evidence::Library,
    Evidence::Test,
];

impl Evidence {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Evidence::Given => "given",
            Evidence::Tracking => "tracking",
            Evidence::Attribute => "attribute",
            Evidence::Theorem => "theorem",
            Evidence::Comment => "comment",
            Evidence::FileName => "file_name",
            Evidence::Folder => "folder",
            Evidence::CatalogueEntry => "catalogue_entry",
            Evidence::Campaign => "campaign",
            Evidence::Sketch => "sketch",
            Evidence::Slot => "slot",
            Evidence::CampaignFolder => "campaign_folder",
            Evidence::Definitions => "definitions",
            Evidence::Lemmas => "lemmas",
            Evidence::Step => "step",
            Evidence::Topic => "topic",
            Evidence::Title => "title",
            Evidence::Copy => "copy",
            Evidence::Collection => "collection",
            Evidence::Library => "library",
            Evidence::Test => "test",
        }
    }

    /// The evidence stored as `name` ([`Evidence::as_str`]).
    pub fn from_name(name: &str) -> Option<Evidence> {
        STRENGTH.iter().copied().find(|e| e.as_str() == name)
    }

    /// 0 for the strongest evidence.
    pub fn strength(self) -> usize {
        STRENGTH
            .iter()
            .position(|e| *e == self)
            .unwrap_or(STRENGTH.len())
    }

    /// The kind of evidence it is, as a reader groups it: `own words` (the file says so),
    /// `scheme` (a known naming scheme of paths), `naming` (the users' own naming), and
    /// `given`, `tracking`, `catalogue`, `definitions`, `topic`, `copy`; `no problem` for the
    /// reasons a file has none (a step, a title, a collection, a library module, a test).
    pub fn family(self) -> &'static str {
        match self {
            Evidence::Given => "given",
            Evidence::Tracking => "tracking",
            Evidence::Attribute | Evidence::Theorem | Evidence::Comment | Evidence::Campaign => {
                "own words"
            }
            Evidence::FileName | Evidence::Folder => "scheme",
            Evidence::CatalogueEntry => "catalogue",
            Evidence::Slot | Evidence::CampaignFolder | Evidence::Sketch => "naming",
            Evidence::Definitions | Evidence::Lemmas => "definitions",
            Evidence::Topic => "topic",
            Evidence::Copy => "copy",
            Evidence::Step
            | Evidence::Title
            | Evidence::Collection
            | Evidence::Library
            | Evidence::Test => "no problem",
        }
    }
}

/// A file's problem, what decided it, and the other spellings of it the file uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    pub problem_id: Option<String>,
    pub evidence: Option<Evidence>,
    /// Spellings met in the file's name and path (`ErdosProblems/975`, `imo2025_p4_algebra`)
    /// whose key differs from the id's: aliases of it.
    pub aliases: Vec<String>,
    /// In a collection (theorems and lemmas named after several distinct problems): each claim
    /// named after a problem other than the file's own, by declaration index, with that
    /// problem. It is a statement of that problem, never of the file's.
    pub stated: Vec<(usize, String)>,
}

impl Identity {
    fn of(id: String, evidence: Evidence) -> Identity {
        Identity {
            problem_id: Some(id),
            evidence: Some(evidence),
            ..Identity::default()
        }
    }

    /// No problem, for `reason` (an evidence kind whose family is `no problem`).
    fn none(reason: Evidence) -> Identity {
        Identity {
            evidence: Some(reason),
            ..Identity::default()
        }
    }

    /// Whether the file is a collection: its claims name several distinct problems.
    pub fn is_collection(&self) -> bool {
        !self.stated.is_empty()
    }

    /// Takes the problem its copies' evidence decided ([`of_copies`]), unless it already has
    /// it or is a collection (which is no single problem, whatever its copies say).
    pub fn adopt(&mut self, decided: Option<&str>) {
        let Some(decided) = decided else { return };
        if self.is_collection() || self.problem_id.as_deref() == Some(decided) {
            return;
        }
        self.problem_id = Some(decided.to_string());
        self.evidence = Some(Evidence::Copy);
        self.aliases.clear();
    }
}

/// The problem copies of one output are about: the one the strongest evidence among them
/// names (`members`: each copy's own problem and evidence), when the copies with that evidence
/// agree; `None` when they name different problems at that strength (no copy outranks the
/// others) or none names one. Evidence a copy took from another copy counts for nothing.
pub fn of_copies<'a>(
    members: impl IntoIterator<Item = (Option<&'a str>, Option<Evidence>)>,
) -> Option<String> {
    // A copy whose title contradicts its label names no problem, and outranks every label:
    // the group then names none unless stronger evidence (tracking.db, a theorem) names one.
    let mut best: Option<(usize, Option<&str>)> = None;
    let mut agree = true;
    for (id, evidence) in members {
        let Some(evidence) = evidence else {
            continue;
        };
        if matches!(evidence, Evidence::Copy | Evidence::Collection)
            || (id.is_none() && !matches!(evidence, Evidence::Title | Evidence::Step))
        {
            continue;
        }
        let strength = evidence.strength();
        match best {
            Some((b, _)) if strength > b => {}
            Some((b, other)) if strength == b => agree &= other == id,
            _ => {
                best = Some((strength, id));
                agree = true;
            }
        }
    }
    best.filter(|_| agree)
        .and_then(|(_, id)| id)
        .map(str::to_string)
}

/// What the whole run knows that a single file cannot: tracking.db's problems by request
/// uuid, the campaign targets, the package structure, the problems slots are named after.
#[derive(Debug, Default)]
pub struct Context {
    /// Request uuid (lowercase) → tracking.db's problem id, as tracking.db spells it.
    pub tracking: HashMap<String, String>,
    pub campaigns: Campaigns,
    pub layout: Layout,
    /// Slot number → the problem its files' names give ([`Context::name_slots`]).
    pub slots: HashMap<i64, String>,
    /// The definitions of the files of known problems ([`Context::read_definitions`]).
    pub signatures: Signatures,
    /// The lemmas the files of known problems state ([`super::lemmas`]), read with their
    /// definitions.
    pub lemmas: Signatures,
    /// tracking.db's files: each submission's `output_file` (as written, `/`-separated) and
    /// `filename` (the file submitted), with its problem; a name two submissions of different
    /// problems give names none ([`Context::track_files`]).
    pub tracked_files: HashMap<String, String>,
    /// The submissions the run's outputs of Aristotle were returned for
    /// ([`naming::output_of`]): an input named so is a file of the pipeline, wherever its
    /// output is kept (beside it, or in a `results/` tree of its own).
    pub outputs: std::collections::HashSet<String>,
}

impl Context {
    /// Reads tracking.db's files (`output_file`, `filename`) and their submissions' problems
    /// ([`Context::tracked_file`]). A name given by submissions of different problems names
    /// none.
    pub fn track_files(&mut self, files: impl IntoIterator<Item = (String, String)>) {
        let mut seen: HashMap<String, Option<String>> = HashMap::new();
        for (name, problem) in files {
            let name = name
                .trim()
                .replace('\\', "/")
                .trim_start_matches("./")
                .to_string();
            if name.is_empty() || problem.trim().is_empty() {
                continue;
            }
            let problem = problem.trim().to_string();
            seen.entry(name)
                .and_modify(|p| {
                    if p.as_deref() != Some(problem.as_str()) {
                        *p = None;
                    }
                })
                .or_insert(Some(problem));
        }
        self.tracked_files = seen
            .into_iter()
            .filter_map(|(name, p)| Some((name, p?)))
            .collect();
    }

    /// The problem tracking.db gives a file it names, for a file that carries no request
    /// uuid: a submission whose `output_file` is the file's path (its last components: the
    /// column is written relative to the pipeline's folder) or whose `filename` is its name.
    pub fn tracked_file(&self, path: &Path) -> Option<&String> {
        if self.tracked_files.is_empty() {
            return None;
        }
        let parts: Vec<&str> = path.iter().filter_map(|p| p.to_str()).collect();
        (1..=parts.len().min(8))
            .rev()
            .find_map(|n| self.tracked_files.get(&parts[parts.len() - n..].join("/")))
    }

    /// Reads, from the users' naming of every file of the run (slot, problem name), the problem
    /// each slot is named after: the name that names a problem ([`Context::named_problem`])
    /// most of the slot's files give; a slot whose files give two such names equally often
    /// names none. Needs the campaign targets.
    pub fn name_slots(&mut self, named: impl IntoIterator<Item = (i64, String)>) {
        let mut counts: HashMap<i64, Vec<(String, usize)>> = HashMap::new();
        for (slot, name) in named {
            let Some(id) = self.named_problem(&name) else {
                continue;
            };
            let ids = counts.entry(slot).or_default();
            match ids.iter_mut().find(|(i, _)| *i == id) {
                Some((_, n)) => *n += 1,
                None => ids.push((id, 1)),
            }
        }
        self.slots = counts
            .into_iter()
            .filter_map(|(slot, ids)| {
                let max = ids.iter().map(|(_, n)| *n).max()?;
                let mut top = ids.into_iter().filter(|(_, n)| *n == max);
                let (id, _) = top.next()?;
                top.next().is_none().then_some((slot, id))
            })
            .collect();
    }

    /// Reads which known problems' files define which names: `files` gives each file's
    /// naming, request uuid and the names it defines ([`super::signature::defined_names`]); a
    /// file's problem
    /// is known here when its users' name names one ([`Context::named_problem`]: a campaign
    /// target or a scheme's id) or its path does in a scheme. Needs the campaign targets.
    pub fn read_definitions<'a>(
        &mut self,
        files: impl IntoIterator<Item = (&'a Path, &'a FileNaming, Option<&'a str>, &'a [String])>,
    ) {
        let known: Vec<(String, String, &[String])> = files
            .into_iter()
            .filter(|(_, _, _, names)| !names.is_empty())
            .filter_map(|(path, naming, uuid, names)| {
                let problem = naming
                    .problem_id
                    .as_deref()
                    .and_then(|n| self.named_problem(n))
                    .or_else(|| by_path(path).and_then(|i| i.problem_id))?;
                let submission =
                    super::campaign::submission(&path.display().to_string(), naming.slot, uuid);
                Some((problem, submission, names))
            })
            .collect();
        // A definition name and a lemma's key are stored side by side; each weighs among its
        // own kind.
        let of_kind = |lemma: bool| {
            known.iter().map(move |(problem, submission, names)| {
                let names = names.iter().filter(move |n| lemmas::is_key(n) == lemma);
                (problem.clone(), submission.clone(), names.cloned())
            })
        };
        self.signatures = Signatures::new(of_kind(false));
        self.lemmas = Signatures::of_submissions(of_kind(true), MIN_LEMMA_SUBMISSIONS);
    }

    /// The problem a name of the users' naming names: a campaign target, or the canonical id
    /// of a scheme it fits (`erdos_850`); a word about the file or the run (`self_contained`,
    /// `extraction`, `i_9`) names none.
    pub fn named_problem(&self, name: &str) -> Option<String> {
        if self.campaigns.is_target(name) {
            return Some(name.to_string());
        }
        scheme::canonical(name)
    }

    /// Whether the declaration named `name` states a case of `problem` rather than `problem`
    /// itself: its own name is the problem's id followed by a name of another known problem
    /// (`tau_le_8_path4` in a file of `tau_le_8`, where `path_4` is a campaign target, and
    /// more words after it, `tau_le_8_path4_adaptive`; a scheme's id counts too) that names a
    /// case, not a claim: a name stating a relation
    /// (`path4_tau_le_8` in a file of `path_4`: τ ≤ 8 is what is claimed of the path) is the
    /// problem's own claim. The name alone decides nothing: `hit_target` of `hit` names no
    /// problem after `hit`, and stays what the file's other evidence makes it.
    pub fn states_case_of(&self, name: &str, problem: &str) -> bool {
        let own = name.rsplit('.').next().unwrap_or(name);
        let atoms = scheme::atoms(own);
        let id = scheme::atoms(problem);
        if id.is_empty()
            || atoms.len() <= id.len()
            || !atoms.iter().zip(&id).all(|(a, b)| a.text == b.text)
        {
            return false;
        }
        // The rest of the name, as written (`path4`, `Path4`, `path_4`).
        let rest = own[atoms[id.len()].span.start..].trim_start_matches(['_', '.', '-']);
        let other = self
            .campaigns
            .named_first(rest)
            .map(str::to_string)
            .or_else(|| scheme::whole(rest));
        let claims = atoms[id.len()..]
            .iter()
            .any(|a| RELATION_WORDS.contains(&a.text.as_str()));
        !claims
            && other
                .is_some_and(|q| crate::sql::problem_key(&q) != crate::sql::problem_key(problem))
    }
}

/// Atoms of a name that state a relation (`≤` and `≥` read as `le` and `ge`): a name holding one
/// is a claim (`tau_le_8`), never a case of another.
const RELATION_WORDS: &[&str] = &["le", "ge", "lt", "gt", "eq", "ne"];

/// One file, as much as identity needs of it.
pub struct FileView<'a> {
    pub path: &'a Path,
    pub text: &'a str,
    pub outline: &'a Outline,
    /// What the path says (slot, uuid, the users' naming).
    pub naming: &'a FileNaming,
}

impl FileView<'_> {
    /// The request uuid: the header's, else the unpacked project directory's.
    fn uuid(&self) -> Option<String> {
        self.outline
            .header
            .as_ref()
            .and_then(|h| h.uuid.clone())
            .or_else(|| self.naming.uuid.clone())
            .map(|u| u.to_ascii_lowercase())
    }
}

/// The problem of `file`: `given` (the command line's) wins, then the evidence in the order
/// of the module documentation. The spellings of it the file's name and folders use are its
/// aliases, whatever decided.
pub fn identify(file: &FileView<'_>, ctx: &Context, given: Option<&str>) -> Identity {
    let mut identity = decide(file, ctx, given);
    if let (Some(id), Some(path)) = (&identity.problem_id, by_path(file.path)) {
        if path.problem_id.as_ref() == Some(id) {
            for alias in path.aliases {
                if !identity.aliases.contains(&alias) {
                    identity.aliases.push(alias);
                }
            }
        }
    }
    identity
}

fn decide(file: &FileView<'_>, ctx: &Context, given: Option<&str>) -> Identity {
    let named = claims_named(file.outline);
    let collection = is_collection(&named);
    let mut identity = decide_file(file, ctx, given, collection);
    if collection {
        if identity.problem_id.is_none() {
            identity.evidence = Some(Evidence::Collection);
        }
        identity.stated = named
            .into_iter()
            .filter(|(_, id)| identity.problem_id.as_ref() != Some(id))
            .collect();
    }
    identity
}

/// The problem of the file as a whole.
fn decide_file(
    file: &FileView<'_>,
    ctx: &Context,
    given: Option<&str>,
    collection: bool,
) -> Identity {
    if let Some(given) = given.map(str::trim).filter(|g| !g.is_empty()) {
        let mut identity = Identity::of(
            scheme::canonical(given).unwrap_or_else(|| given.to_string()),
            Evidence::Given,
        );
        identity.aliases = aliases_of(identity.problem_id.as_deref(), [given]);
        return identity;
    }
    if let Some(id) = file
        .uuid()
        .and_then(|u| ctx.tracking.get(&u))
        .or_else(|| ctx.tracked_file(file.path))
    {
        return by_tracking(id);
    }
    let words = own_words(file.outline, file.text);
    if collection {
        // A collection is no one of the problems it states: only its title or its path may
        // name one it is about as a whole.
        if let Some(m) = scheme::find(&title(&words, file.path), Mode::Prose) {
            return Identity::of(m.id, Evidence::Comment);
        }
        return by_path(file.path).unwrap_or_default();
    }
    let (attribute, catalogue) = by_attribute(file.outline);
    if let Some(id) = attribute {
        return Identity::of(id, Evidence::Attribute);
    }
    if let Some(id) = by_declaration(file) {
        return Identity::of(id, Evidence::Theorem);
    }
    if let Some(m) = scheme::find(&words, Mode::Prose) {
        return Identity::of(m.id, Evidence::Comment);
    }
    let labelled = by_labels(file, ctx, &words, catalogue);
    // A label of the path or the users' naming that the file's title contradicts (the title
    // names a conjecture of someone the label's scheme does not: "Selfridge's Conjecture" in a
    // folder labelled `e938`) decides nothing: the file's own words outrank any label.
    if let Some(id) = labelled.problem_id.as_deref() {
        if title_contradicts(&title(&words, file.path), id) {
            return Identity {
                evidence: Some(Evidence::Title),
                ..Identity::default()
            };
        }
    }
    labelled
}

/// tracking.db's problem, in the canonical spelling when a scheme reads all of it (`Erdos
/// 850`, `erdos850` → `erdos_850`, so that the files it names and those naming themselves
/// `erdos_850` are one problem), tracking.db's own spelling an alias of it.
fn by_tracking(id: &str) -> Identity {
    let canonical = scheme::whole(id).unwrap_or_else(|| id.trim().to_string());
    let mut identity = Identity::of(canonical, Evidence::Tracking);
    identity.aliases = aliases_of(identity.problem_id.as_deref(), [id]);
    identity
}

/// The problem the file's path or the users' naming labels it with.
fn by_labels(file: &FileView<'_>, ctx: &Context, words: &str, catalogue: bool) -> Identity {
    if let Some(identity) = by_path(file.path) {
        return identity;
    }
    // A catalogue's own file is named by its entry; a result of one (an Aristotle output, a
    // slot of the users' pipeline) is named as the users name their files.
    let attempt_of_entry = file.outline.header.is_some() || file.naming.slot.is_some();
    if catalogue && !attempt_of_entry {
        if let Some(id) = stem_id(file.path) {
            return Identity::of(id, Evidence::CatalogueEntry);
        }
    }
    // A result of an entry carries the catalogue's attribute on the entry's statement: the
    // file's own words name the problem by that theorem (`ramsey_pair` under `@[category
    // research open]` in `slot961_ramsey_pair_result.lean`).
    if catalogue && attempt_of_entry {
        if let Some(id) = by_attributed_name(file) {
            return Identity::of(id, Evidence::Attribute);
        }
    }
    by_sketch(file, ctx, words)
}

/// The problem a result of a catalogue entry states under the catalogue's attribute: the
/// attributed theorem the users' name of the file names (any spelling), else the only one;
/// its name as an id (`RamseyPair` → `ramsey_pair`, as the entry's own file is named). A
/// file stating several attributed theorems its users' name does not pick names none.
fn by_attributed_name(file: &FileView<'_>) -> Option<String> {
    let attributed: Vec<&str> = file
        .outline
        .declarations
        .iter()
        .filter(|d| !d.user_command && d.attributes.iter().any(|a| is_problem_category(a)))
        .map(|d| d.name.rsplit('.').next().unwrap_or(&d.name))
        .collect();
    let key = |n: &str| crate::sql::problem_key(n);
    let named = file.naming.problem_id.as_deref().map(key);
    let chosen = attributed
        .iter()
        .find(|n| named.as_deref() == Some(key(n).as_str()))
        .or_else(|| (attributed.len() == 1).then(|| &attributed[0]))?;
    let words: Vec<String> = scheme::atoms(chosen).into_iter().map(|a| a.text).collect();
    (!words.is_empty()).then(|| words.join("_"))
}

/// Whether `title` names a named conjecture (`Selfridge's Conjecture`, `the Collatz
/// conjecture`) that the scheme id `id` is not: the scheme's own words (`erdos` of
/// `erdos_938`) are nowhere in the title. A label that is no scheme's id (the users' campaign
/// naming) is about whatever conjecture the title names, and is not contradicted.
fn title_contradicts(title: &str, id: &str) -> bool {
    if scheme::whole(id).is_none() {
        return false;
    }
    let atoms = scheme::atoms(title);
    let named = !conjectures_named(title).is_empty();
    let words: Vec<String> = scheme::atoms(id)
        .into_iter()
        .filter(|a| !a.digits)
        .map(|a| a.text)
        .collect();
    named && !words.iter().any(|w| atoms.iter().any(|a| a.text == *w))
}

/// The people whose conjecture `title` names (`Selfridge's Conjecture` → `selfridge`, `TUZA'S
/// CONJECTURE` → `tuza`, `the Collatz conjecture` → `collatz`), lowercase: a capitalized name
/// before "conjecture", not a word that names no one (`the main conjecture`).
fn conjectures_named(title: &str) -> Vec<String> {
    let atoms = scheme::atoms(title);
    let mut out = Vec::new();
    for (i, a) in atoms.iter().enumerate() {
        if !a.text.starts_with("conjecture") || i == 0 {
            continue;
        }
        // `Selfridge's`: the name is before the possessive `s`.
        let mut k = i - 1;
        if atoms[k].text == "s" && k > 0 {
            k -= 1;
        }
        let name = &atoms[k];
        let capital = title
            .get(name.span.clone())
            .and_then(|t| t.chars().next())
            .is_some_and(char::is_uppercase);
        if capital && !name.digits && !NOT_NAMES.contains(&name.text.as_str()) {
            out.push(name.text.clone());
        }
    }
    out
}

/// The conjecture a file is about by its own words, twice: its title names someone's
/// conjecture (`TUZA'S CONJECTURE - FULL PROBLEM`) and it states a theorem named after that
/// conjecture (`theorem tuza_conjecture`). The problem is `<name>_conjecture`. Either alone
/// decides nothing (a title may name the conjecture a case belongs to, a theorem name is only
/// a name).
fn by_named_conjecture(file: &FileView<'_>, words: &str) -> Option<String> {
    let names = conjectures_named(&title(words, file.path));
    file.outline
        .declarations
        .iter()
        .filter(|d| d.is_theorem_like())
        .find_map(|d| {
            let own = d.name.rsplit('.').next().unwrap_or(&d.name);
            let atoms = scheme::atoms(own);
            match atoms.as_slice() {
                [name, c] if c.text == "conjecture" && names.contains(&name.text) => {
                    Some(format!("{}_conjecture", name.text))
                }
                _ => None,
            }
        })
}

/// Words before "Conjecture" in a title that name no one.
const NOT_NAMES: &[&str] = &[
    "the",
    "a",
    "an",
    "main",
    "our",
    "this",
    "key",
    "final",
    "open",
    "strong",
    "weak",
    "general",
    "new",
    "original",
    "full",
    "modified",
    "auxiliary",
];

/// The first scheme id the declarations carrying a catalogue attribute are named after; and
/// whether the file has such declarations at all (a catalogue entry).
fn by_attribute(outline: &Outline) -> (Option<String>, bool) {
    let stated: Vec<&Declaration> = outline
        .declarations
        .iter()
        .filter(|d| d.attributes.iter().any(|a| is_problem_category(a)))
        .collect();
    let id = stated
        .iter()
        .find_map(|d| named_after(&d.full_name).or_else(|| named_after(&d.name)));
    (id, !stated.is_empty())
}

/// `category research open`, `category research solved`, `category undergraduate`, …: a
/// statement of a problem (not `category test` or `category API`, which check a definition).
fn is_problem_category(attribute: &str) -> bool {
    let mut words = attribute.split_whitespace();
    words.next() == Some("category")
        && words
            .next()
            .is_some_and(|w| !w.eq_ignore_ascii_case("test") && !w.eq_ignore_ascii_case("api"))
}

/// The problem a declaration name (or one of its namespaces) is named after: a scheme id at
/// the start of one of its components (`Erdos975.erdos_975.variants.x`, `putnam_1986_b4`,
/// `imo2025_p3_subproblem`), not one merely mentioned inside it (`bound_of_erdos_850`).
pub fn named_after(full_name: &str) -> Option<String> {
    full_name.split('.').find_map(|component| {
        let atoms = scheme::atoms(component);
        scheme::find_in(&atoms, Mode::Name, 0)
            .filter(|m| m.atoms.start == 0)
            .map(|m| m.id)
    })
}

/// Whether claims named after problems (`named`) make a collection: they name several
/// problems and none of them has most of the claims. A file of one problem whose lemma cites
/// another (`erdos_975_main`, `erdos_975_bound`, `erdos_974_lemma`) is no collection.
fn is_collection(named: &[(usize, String)]) -> bool {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (_, id) in named {
        *counts.entry(id.as_str()).or_default() += 1;
    }
    let most = counts.values().copied().max().unwrap_or(0);
    counts.len() > 1 && 2 * most <= named.len()
}

/// The theorems and lemmas named after a problem, by declaration index, with that problem.
fn claims_named(outline: &Outline) -> Vec<(usize, String)> {
    outline
        .declarations
        .iter()
        .enumerate()
        .filter(|(_, d)| matches!(d.kind.as_str(), "theorem" | "lemma"))
        .filter_map(|(i, d)| Some((i, named_after(&d.full_name)?)))
        .collect()
}

/// How a declaration's name is named after a problem ([`named_after_problem`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum NamedAfter {
    /// Its own name is the problem, in any spelling (`putnam_1986_b4`, `Imo2025P4` or
    /// `imo2025_p4` for `imo_2025_p4`, `erdos975` for `erdos_975`).
    Exactly,
    /// Only an enclosing namespace is named after the problem (`Imo2025P4.main`,
    /// `erdos_975.variants.x`): the declaration belongs to the problem, but its name does not
    /// say that it states it.
    ByNamespace,
}

/// How the declaration `full_name` is named after problem `id`, compared through the scheme
/// table rather than as strings, so that every spelling of an id names it; `None` when it is
/// not named after it (`bound_of_erdos_850` merely mentions erdos_850; `erdos_850_bound` is a
/// claim about it, not its statement).
pub fn named_after_problem(full_name: &str, id: &str) -> Option<NamedAfter> {
    let id = id.trim();
    if id.is_empty() {
        return None;
    }
    // The id as a scheme reads it, when the scheme reads all of it (`erdos_850`, not a sketch
    // id `erdos_850_triples` that merely starts with one).
    let target = scheme::whole(id);
    let keys = [
        Some(crate::sql::problem_key(id)),
        target.as_deref().map(crate::sql::problem_key),
    ];
    // A component is the problem when it is one of its keys, or a scheme reads all of it as
    // the problem (`imo1964_p1b` is part b of imo_1964_p1).
    let names = |component: &str| -> bool {
        let key = crate::sql::problem_key(component);
        if keys.iter().flatten().any(|k| *k == key) {
            return true;
        }
        target.is_some() && scheme::whole(component) == target
    };
    let mut components: Vec<&str> = full_name.split('.').filter(|c| !c.is_empty()).collect();
    let own = components.pop()?;
    if names(own) {
        Some(NamedAfter::Exactly)
    } else {
        components
            .iter()
            .any(|c| names(c))
            .then_some(NamedAfter::ByNamespace)
    }
}

/// The problem the file's declarations are named after: the one most of them name (the first
/// named breaks ties). Lean's own declarations only: a project's command read as a declaration
/// (`problem singapore2019_r1_p11`, a round its layout's `Singapore2019P11` leaves out) is
/// named as the project likes, no evidence of a scheme id beyond what its layout says.
fn by_declaration(file: &FileView<'_>) -> Option<String> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    for d in file.outline.declarations.iter().filter(|d| !d.user_command) {
        if let Some(id) = named_after(&d.full_name) {
            match counts.iter_mut().find(|(c, _)| *c == id) {
                Some((_, n)) => *n += 1,
                None => counts.push((id, 1)),
            }
        }
    }
    let mut best: Option<(String, usize)> = None;
    for (id, n) in counts {
        if best.as_ref().is_none_or(|(_, b)| n > *b) {
            best = Some((id, n));
        }
    }
    best.map(|(id, _)| id)
}

/// A benchmark's file whose name is its id: it states a theorem named exactly as the file
/// (`induction_12dvd4expnp1p20` in `induction_12dvd4expnp1p20.lean`). A file named for its
/// role beside it (`…_solution.lean`, `…_statement.lean`) stating that theorem is the same
/// problem.
fn benchmark_stem(file: &FileView<'_>) -> Option<String> {
    let stem = file.path.file_stem()?.to_str()?;
    let base = ROLES
        .iter()
        .find_map(|role| {
            let cut = stem.len().checked_sub(role.len() + 1)?;
            let (head, tail) = (stem.get(..cut)?, stem.get(cut..)?);
            tail.strip_prefix(['_', '-'])
                .is_some_and(|t| t.eq_ignore_ascii_case(role))
                .then_some(head)
        })
        .unwrap_or(stem);
    // A name with a separator or a digit, or a full name (`Matroid.indepEmpty`), is an id; a
    // plain word (`Basic`) is not.
    let id_like = base.contains(['_', '.']) || base.chars().any(|c| c.is_ascii_digit());
    let named = file.outline.declarations.iter().any(|d| {
        matches!(d.kind.as_str(), "theorem" | "lemma")
            && [stem, base]
                .iter()
                .any(|n| d.name == *n || d.full_name == *n)
    });
    (id_like && named).then(|| base.to_ascii_lowercase())
}

/// What a file beside a problem's statement may be named for.
const ROLES: &[&str] = &["solution", "sol", "proof", "statement", "answer", "formal"];

/// The file's own words: its comments before its first declaration (the module docstring,
/// the sketch's description), without Aristotle's header, bounded.
fn own_words(outline: &Outline, text: &str) -> String {
    let first_declaration = outline
        .declarations
        .first()
        .map_or(text.len(), |d| d.span.start);
    let mut words = String::new();
    for c in &outline.comments {
        if c.span.start >= first_declaration || words.len() >= OWN_WORDS_BYTES {
            break;
        }
        if c.kind == CommentKind::Line {
            continue;
        }
        let Some(body) = text.get(c.span.clone()) else {
            continue;
        };
        if is_aristotle_header(body) {
            continue;
        }
        let room = OWN_WORDS_BYTES.saturating_sub(words.len());
        let mut cut = body.len().min(room);
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        words.push_str(&body[..cut]);
        words.push('\n');
    }
    words
}

/// Aristotle's own comments (its header, what it proved or negated): its words, not the file
/// author's.
fn is_aristotle_header(comment: &str) -> bool {
    [
        "edited by Aristotle",
        "project request had uuid",
        "by Aristotle:",
        "@Aristotle-Harmonic",
    ]
    .iter()
    .any(|mark| comment.contains(mark))
}

/// The title of the file's own words: the first paragraph (up to a blank line, a few lines at
/// most), without a first line that only repeats the file's name.
fn title(words: &str, path: &Path) -> String {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let mut lines = Vec::new();
    for line in words.lines() {
        let line = line
            .trim()
            .trim_start_matches("/-")
            .trim_end_matches("-/")
            .trim();
        let line = line.trim_start_matches(['!', '-', '#', '*', ' ']);
        if line.is_empty() {
            if lines.is_empty() {
                continue;
            }
            break;
        }
        if lines.is_empty() && !stem.is_empty() && line.trim_end_matches(".lean") == stem {
            continue;
        }
        lines.push(line);
        if lines.len() == TITLE_LINES {
            break;
        }
    }
    lines.join("\n")
}

/// The problem the file name or the nearest folders name: the file name alone first, then
/// with one folder more at a time (`ErdosProblems/975`, `imo2025/p1`,
/// `Erdos975/Helpers/Bounds`). Folders named by a request uuid say nothing.
fn by_path(path: &Path) -> Option<Identity> {
    let stem = path.file_stem()?.to_str()?;
    let mut parts: Vec<&str> = vec![stem];
    for dir in path.ancestors().skip(1).take(FOLDER_LEVELS) {
        let Some(name) = dir.file_name().and_then(|n| n.to_str()) else {
            break;
        };
        parts.push(name);
    }
    for levels in 1..=parts.len() {
        let joined: Vec<&str> = parts[..levels].iter().rev().copied().collect();
        if joined
            .first()
            .is_some_and(|d| naming::leading_uuid(d).is_some() || naming::is_hex_fragment(d))
        {
            continue;
        }
        let text = joined.join("/");
        let Some(m) = scheme::find(&text, Mode::Name) else {
            continue;
        };
        // A contest the table does not know is read from one name (`Bulgaria1998P2.lean`),
        // never assembled from folders: `archive/2025/P3.lean` is a file of an archive's year,
        // not problem 3 of a contest called archive. A known one may be (`IMO/2019/P1.lean`).
        if m.scheme == "contest" && text[m.span.clone()].contains('/') {
            continue;
        }
        let evidence = if levels == 1 {
            Evidence::FileName
        } else {
            Evidence::Folder
        };
        let mut spellings = vec![&text[m.span.clone()]];
        if levels == 1 && m.span.start == 0 {
            spellings.push(stem);
        }
        let aliases = aliases_of(Some(&m.id), spellings);
        return Some(Identity {
            problem_id: Some(m.id),
            evidence: Some(evidence),
            aliases,
            ..Identity::default()
        });
    }
    None
}

/// The file name as an id (`GoldbachConjecture` → `goldbach_conjecture`); a bare number is
/// the catalogue's number, named with its folder (`GreensOpenProblems/12` →
/// `greens_open_problems_12`), so that two catalogues' entries 12 never meet.
fn stem_id(path: &Path) -> Option<String> {
    let stem = path.file_stem()?.to_str()?;
    let mut words: Vec<String> = scheme::atoms(stem).into_iter().map(|a| a.text).collect();
    if words.iter().all(|w| w.chars().all(|c| c.is_ascii_digit())) {
        let folder = path.parent()?.file_name()?.to_str()?;
        let mut named: Vec<String> = scheme::atoms(folder).into_iter().map(|a| a.text).collect();
        named.append(&mut words);
        words = named;
    }
    (!words.is_empty()).then(|| words.join("_"))
}

/// The users' own naming, for their files only; a sketch whose comment names a campaign
/// target joins it.
fn by_sketch(file: &FileView<'_>, ctx: &Context, words: &str) -> Identity {
    // A module of a package is no sketch, unless it is a benchmark's statement named by its
    // id (a benchmark's `Test/` split included); a module of a project Aristotle returned is
    // named by the project's directory, which is the users' naming of the whole project.
    let project_named = file.naming.problem_from_dir && file.naming.in_project;
    if !project_named && ctx.layout.is_library(file.path) {
        return match benchmark_stem(file) {
            Some(id) => Identity::of(id, Evidence::FileName),
            None => Identity::none(Evidence::Library),
        };
    }
    // A test checks something: no problem by name alone. A benchmark's split may be called
    // `Test/` (miniF2F's `Valid/` and `Test/`): a file there stating the theorem it is named
    // after is the benchmark's statement, as in its `Valid/` sibling.
    if ctx.layout.is_test(file.path) {
        return match benchmark_stem(file) {
            Some(id) if !layout::is_named_test(file.path) => Identity::of(id, Evidence::FileName),
            _ => Identity::none(Evidence::Test),
        };
    }
    let named = file.naming.problem_id.clone();
    let is_target = named.as_deref().is_some_and(|n| ctx.campaigns.is_target(n));
    if !is_target {
        if let Some(target) = ctx.campaigns.named_in(&title(words, file.path)) {
            return Identity::of(target.to_string(), Evidence::Campaign);
        }
    }
    // A file stating a theorem named exactly as the file is named by its whole name (a
    // benchmark's file, `induction_12dvd4expnp1p20.lean`), never by a shortened sketch name.
    if let Some(id) = benchmark_stem(file) {
        return Identity::of(id, Evidence::FileName);
    }
    // A file of its own name that states no theorem or lemma (a script, a module of
    // definitions) asks nothing: it creates no problem, though it may belong to one other
    // files are named after. A file that did not parse whole may state more than was read.
    let states = file.outline.error_nodes > 0
        || file
            .outline
            .declarations
            .iter()
            .any(|d| matches!(d.kind.as_str(), "theorem" | "lemma"));
    // The users' name counts only where it names a problem: a campaign target or a scheme's
    // id, never a word about the file or the run.
    match named.as_deref().map(|n| ctx.named_problem(n)) {
        Some(Some(id)) if states || file.naming.problem_from_dir || is_target => {
            return Identity::of(id, Evidence::Sketch)
        }
        Some(Some(_)) => return Identity::default(),
        _ => {}
    }
    // A name that names no problem: a theorem the file states named as a campaign target
    // decides, then what its slot siblings (the same submission) are named after, then the
    // file's own words beyond its title (a campaign target they name: "the foundation for
    // proving τ ≤ 8 for general ν = 4"; the theorem they call the final one, when it is of a
    // campaign's family), else the campaign target its folders name.
    if let Some(id) = by_target_theorem(file, ctx) {
        return Identity::of(id, Evidence::Theorem);
    }
    if let Some(id) = file.naming.slot.and_then(|slot| ctx.slots.get(&slot)) {
        return Identity::of(id.clone(), Evidence::Slot);
    }
    if let Some(target) = ctx.campaigns.named_in(words) {
        return Identity::of(target.to_string(), Evidence::Campaign);
    }
    // A target its title names with words between its family and its parameter ("Tuza's
    // conjecture ν = 4" names `tuza_nu4`).
    let heading = title(words, file.path);
    if let Some(target) = ctx.campaigns.named_apart_in(&heading) {
        return Identity::of(target.to_string(), Evidence::Campaign);
    }
    if let Some(id) = by_final_theorem(file, ctx, words) {
        return Identity::of(id, Evidence::Theorem);
    }
    if let Some(target) = by_folder_campaign(file.path, &ctx.campaigns) {
        return Identity::of(target, Evidence::CampaignFolder);
    }
    // A conjecture its title names and a theorem it states is named after: its own words
    // twice, before what its definitions share with other problems' files.
    if let Some(id) = by_named_conjecture(file, words) {
        return Identity::of(id, Evidence::Theorem);
    }
    // A file whose own definitions are a known problem's files' is a step of it; of several
    // problems' equally, a step of their campaign and a problem of none.
    let own = defined_by(file);
    match ctx.signatures.problem_of(own.iter().copied()) {
        signature::Match::One(id) => return Identity::of(id, Evidence::Definitions),
        signature::Match::Several(_) => return Identity::none(Evidence::Step),
        signature::Match::None => {}
    }
    // A file whose lemmas, name and statement alike, are those one known problem's files
    // state is a step of it (`slot440_bridge_contains_shared`, whose lemmas the campaign's
    // assemblies restate); of several problems' equally, a step of their campaign.
    match ctx.lemmas.problem_of(
        lemmas::stated_keys(file.text.as_bytes())
            .iter()
            .map(String::as_str),
    ) {
        signature::Match::One(id) => return Identity::of(id, Evidence::Lemmas),
        signature::Match::Several(_) => return Identity::none(Evidence::Step),
        signature::Match::None => {}
    }
    // A named theorem, conjecture or problem its title names that its users' name is about
    // ("Wolstenholme's Theorem" in `slot594_wolstenholme_theorem_result.lean`): its own words
    // and its name agree. After the campaign's evidence: a title names the conjecture a
    // campaign's case belongs to ("Tuza's Conjecture for ν ≤ 3"), the case is the problem.
    if let Some((id, alias)) = named.as_deref().and_then(|n| by_named_result(&heading, n)) {
        let mut identity = Identity::of(id, Evidence::Comment);
        identity.aliases = aliases_of(identity.problem_id.as_deref(), [alias.as_str()]);
        return identity;
    }
    // The same, with a theorem it states in the name's place ("Feit-Thompson prime conjecture
    // at p=3, q=1583" over `theorem feit_thompson_p3_q1583` in a sketch named `ft_p3_…`): its
    // title and its theorem, its own words twice. The sketch name is no alias of it then.
    if let Some((id, _)) = stated_claims(file)
        .find_map(|d| by_named_result(&heading, d.name.rsplit('.').next().unwrap_or(&d.name)))
    {
        return Identity::of(id, Evidence::Comment);
    }
    // Last, the users' sketch name itself, for a file that states something (or a project
    // Aristotle returned, named by its directory): the problem it was submitted for, as weak
    // as evidence gets (`slot483_spoke_extraction.lean` is a step of a campaign its words
    // never name). A problem resting on it alone says so wherever its status is shown.
    // Only a file of the submission pipeline (its path or its Aristotle header says so) is
    // named by the users: elsewhere a name that fits no scheme is a file name
    // (`book/Chapter3/Lemma2.lean`, `Levels/L05.lean`, a package's `Main.lean`), no problem.
    let pipeline = file.naming.pipeline
        || file.outline.header.is_some()
        || file
            .path
            .file_stem()
            .and_then(|s| s.to_str())
            .is_some_and(|s| ctx.outputs.contains(&s.to_ascii_lowercase()));
    match named {
        Some(id) if pipeline && (states || file.naming.problem_from_dir) => {
            Identity::of(id, Evidence::Topic)
        }
        _ => Identity::default(),
    }
}

/// What a title names as a result of someone (`Wolstenholme's Theorem`, `the Feit-Thompson
/// prime conjecture`, `Lehmer's Totient Problem`) that the users' sketch name `named` is
/// about: the sketch name's first atoms are written in the title as a name (capitalized), and
/// a kind word (conjecture, theorem, problem) follows them within a few words. The problem is
/// the sketch's atoms the title writes there and the kind (`feit_thompson_conjecture` of
/// `feit_thompson_bounded` under "Feit-Thompson Prime Conjecture"), the sketch name an alias.
/// Either alone decides nothing: a title names the conjecture a case belongs to, a sketch
/// name is only a name.
fn by_named_result(title: &str, named: &str) -> Option<(String, String)> {
    let sketch: Vec<String> = scheme::atoms(named).into_iter().map(|a| a.text).collect();
    let first = sketch.first()?;
    // A name is a word of someone's (`grimm`), not a word that names no one (`main`) or a kind.
    if first.len() < 3
        || first.chars().all(|c| c.is_ascii_digit())
        || NOT_NAMES.contains(&first.as_str())
        || RESULT_KINDS.contains(&first.as_str())
    {
        return None;
    }
    let atoms = scheme::atoms(title);
    for (p, a) in atoms.iter().enumerate() {
        let capital = title
            .get(a.span.clone())
            .and_then(|t| t.chars().next())
            .is_some_and(char::is_uppercase);
        if a.text != *first || !capital {
            continue;
        }
        // The kind word within the name and a few words after it.
        let window = atoms.iter().enumerate().skip(p + 1).take(RESULT_NAME_WORDS);
        let Some((q, kind)) = window
            .filter_map(|(q, b)| RESULT_KINDS.iter().find(|k| b.text == **k).map(|k| (q, *k)))
            .next()
        else {
            continue;
        };
        // A possessive after other words names someone else's result ("Notes toward Smith's
        // Conjecture"): the name's own possessive follows it at once ("Carmichael's Totient").
        if atoms
            .get(p + 2..q)
            .unwrap_or(&[])
            .iter()
            .any(|b| b.text == "s")
        {
            continue;
        }
        // The name as the title writes it: the capitalized words joined to it by hyphens
        // ("Agoh-Giuga" of `giuga_…`, "Feit-Thompson" of `feit_…`), whichever of them the
        // name starts with; then the name's other atoms written before the kind, in order.
        let capital_at = |i: usize| {
            title
                .get(atoms[i].span.clone())
                .and_then(|t| t.chars().next())
                .is_some_and(char::is_uppercase)
        };
        let hyphen_before = |i: usize| {
            title
                .get(atoms[i - 1].span.end..atoms[i].span.start)
                .is_some_and(|g| !g.is_empty() && g.chars().all(|c| HYPHENS.contains(&c)))
        };
        let mut start = p;
        while start > 0 && hyphen_before(start) && capital_at(start - 1) {
            start -= 1;
        }
        let mut end = p + 1;
        while end < q && hyphen_before(end) && capital_at(end) {
            end += 1;
        }
        let mut words: Vec<&str> = atoms[start..end].iter().map(|b| b.text.as_str()).collect();
        let mut next = 1;
        for b in &atoms[end..q] {
            while next < sketch.len() && words.contains(&sketch[next].as_str()) {
                next += 1;
            }
            if next < sketch.len() && b.text == sketch[next] {
                words.push(&sketch[next]);
                next += 1;
            }
        }
        let id = format!("{}_{kind}", words.join("_"));
        return Some((id, named.to_string()));
    }
    None
}

/// Atoms after a name's first word within which a title's kind word must come ("Carmichael's
/// Totient Conjecture": `s`, `totient`, `conjecture`).
const RESULT_NAME_WORDS: usize = 4;

/// Words a title names a result of someone with.
const RESULT_KINDS: &[&str] = &["conjecture", "theorem", "problem"];

/// What joins the names of a result's people ("Agoh-Giuga", "Erdős–Straus").
const HYPHENS: &[char] = &['-', '‐', '‑', '–', '—'];

/// The names the file's own Lean definitions give (`def`, `abbrev`, `structure`, …).
fn defined_by<'a>(file: &'a FileView<'_>) -> Vec<&'a str> {
    file.outline
        .declarations
        .iter()
        .filter(|d| !d.user_command && !d.is_theorem_like() && signature::is_defining(&d.kind))
        .map(|d| d.name.as_str())
        .collect()
}

/// The theorems and lemmas the file states (Lean's declarations only).
fn stated_claims<'a>(file: &'a FileView<'_>) -> impl Iterator<Item = &'a Declaration> {
    file.outline
        .declarations
        .iter()
        .filter(|d| !d.user_command && matches!(d.kind.as_str(), "theorem" | "lemma"))
}

/// A theorem or lemma the file states whose name is a campaign target (`theorem tuza_nu4` in
/// `slot384_maximality_coverage.lean`).
fn by_target_theorem(file: &FileView<'_>, ctx: &Context) -> Option<String> {
    stated_claims(file)
        .find(|d| ctx.campaigns.is_target(&d.name))
        .map(|d| d.name.clone())
}

/// The theorem the file's own words call its final or main one ("3. tuza_nu_le_3: Final
/// theorem"), when its name is a problem of a campaign: it names a target (`tau_le_8_path4`:
/// `tau_le_8`), or it is of a target's family (`tuza_nu_le_3` beside `tuza_nu3`). A step's
/// "main theorem" of no campaign's family (`edge_in_sym2`) names no problem. The first line
/// that calls one so decides.
fn by_final_theorem(file: &FileView<'_>, ctx: &Context, words: &str) -> Option<String> {
    let names: std::collections::HashSet<&str> =
        stated_claims(file).map(|d| d.name.as_str()).collect();
    let name = words.lines().find_map(|line| {
        let lower = line.to_lowercase();
        if !FINAL_THEOREM_WORDS.iter().any(|w| lower.contains(w)) {
            return None;
        }
        line.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '\'')))
            .map(|token| token.rsplit('.').next().unwrap_or(token))
            .find(|token| names.contains(token))
    })?;
    if let Some(target) = ctx.campaigns.named_in(name) {
        return Some(target.to_string());
    }
    ctx.campaigns
        .has_family(name)
        .then(|| scheme::whole(name).unwrap_or_else(|| name.to_ascii_lowercase()))
}

/// How a sketch's own words call the theorem that is its target.
const FINAL_THEOREM_WORDS: &[&str] = &[
    "final theorem",
    "main theorem",
    "main result",
    "final result",
    "target theorem",
];

/// The campaign target the folders above `path` name, the nearest first (`tuza/nu4/`:
/// `tuza_nu4`). Folders named by a request uuid say nothing.
fn by_folder_campaign(path: &Path, campaigns: &Campaigns) -> Option<String> {
    let mut folders: Vec<&str> = Vec::new();
    for dir in path.ancestors().skip(1).take(FOLDER_LEVELS) {
        let Some(name) = dir.file_name().and_then(|n| n.to_str()) else {
            break;
        };
        if naming::leading_uuid(name).is_some() || naming::is_hex_fragment(name) {
            continue;
        }
        folders.push(name);
        let text: Vec<&str> = folders.iter().rev().copied().collect();
        if let Some(target) = campaigns.named_in(&text.join("/")) {
            return Some(target.to_string());
        }
    }
    None
}

/// The spellings whose key differs from `id`'s, each once.
fn aliases_of<'a>(id: Option<&str>, spellings: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let Some(id) = id else {
        return Vec::new();
    };
    let key = crate::sql::problem_key(id);
    let mut out: Vec<String> = Vec::new();
    for s in spellings {
        let s = s.trim();
        let k = crate::sql::problem_key(s);
        if !s.is_empty() && k != key && !out.iter().any(|o| crate::sql::problem_key(o) == k) {
            out.push(s.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lean::ParsedFile;

    fn identity_of(path: &str, text: &str) -> Identity {
        let parsed = ParsedFile::parse(text.to_string());
        let outline = Outline::of(path, &parsed);
        let naming = naming::from_path(Path::new(path));
        identify(
            &FileView {
                path: Path::new(path),
                text: &parsed.text,
                outline: &outline,
                naming: &naming,
            },
            &Context::default(),
            None,
        )
    }

    #[test]
    fn a_case_is_the_problem_then_another_known_problem() {
        let submissions = [
            ("1", "path_4"),
            ("2", "path_4"),
            ("3", "tau_le_8"),
            ("4", "tau_le_8"),
        ]
        .map(|(s, id)| (s.to_string(), id.to_string()));
        let context = Context {
            campaigns: super::super::campaign::Campaigns::new(submissions, []),
            ..Context::default()
        };
        // Another target after the problem's id, in any spelling, or a scheme's id.
        for name in [
            "tau_le_8_path4",
            "tau_le_8_path4_adaptive",
            "TauLe8.tau_le_8_path_4",
            "tauLe8Path4",
            "tau_le_8_erdos_850",
        ] {
            assert!(context.states_case_of(name, "tau_le_8"), "{name}");
        }
        // The problem itself, a word that names no problem, another problem's case, a case
        // of itself.
        for (name, problem) in [
            ("tau_le_8", "tau_le_8"),
            ("tau_le_8_small", "tau_le_8"),
            ("hit_target", "hit"),
            ("tau_le_8_path4", "path_4"),
            ("tau_le_8_tau_le_8", "tau_le_8"),
            ("path4", "tau_le_8"),
            // What is claimed of the path, not a case of it.
            ("path4_tau_le_8", "path_4"),
        ] {
            assert!(
                !context.states_case_of(name, problem),
                "{name} of {problem}"
            );
        }
    }

    #[test]
    fn names_with_any_characters_are_read_without_panicking() {
        // Multi-byte characters where a role suffix or a scheme would be cut.
        for name in ["M₂_M₁", "₂_inter", "x₂_solution", "é", "₂", "_sol"] {
            let path = format!("bench/{name}.lean");
            let text = format!("theorem {name} : True := trivial\n");
            let _ = identity_of(&path, &text);
        }
        let found = identity_of(
            "bench/disjoint_inter_M₂_solution.lean",
            "theorem disjoint_inter_M₂ : True := trivial\n",
        );
        assert_eq!(found.problem_id.as_deref(), Some("disjoint_inter_m₂"));
    }

    #[test]
    fn a_collection_names_several_problems_none_most() {
        let collection = identity_of(
            "contests/selection.lean",
            "theorem imo1959_p1 : True := trivial\ntheorem imo1964_p1 : True := trivial\n\
             theorem usamo1990_p1 : True := trivial\n",
        );
        assert_eq!(collection.problem_id, None);
        assert_eq!(collection.evidence, Some(Evidence::Collection));
        assert_eq!(collection.stated.len(), 3);
        // Most claims name erdos_975; a lemma citing erdos_974 does not make a collection.
        let one = identity_of(
            "work/bounds.lean",
            "theorem erdos_975_main : True := trivial\ntheorem erdos_975_bound : True := trivial\n\
             lemma erdos_974_lemma : True := trivial\n",
        );
        assert_eq!(one.problem_id.as_deref(), Some("erdos_975"));
        assert!(one.stated.is_empty());
        // A collection whose path names a problem is that problem's; its other claims state
        // theirs.
        let titled = identity_of(
            "ErdosProblems/938.lean",
            "theorem erdos_938_bound : True := trivial\ntheorem erdos_364_mod : True := trivial\n",
        );
        assert_eq!(titled.problem_id.as_deref(), Some("erdos_938"));
        assert_eq!(titled.stated, [(1, "erdos_364".to_string())]);
    }

    #[test]
    fn declarations_are_named_after_a_problem_in_any_spelling() {
        use NamedAfter::*;
        let cases: &[(&str, &str, Option<NamedAfter>)] = &[
            ("putnam_1986_b4", "putnam_1986_b4", Some(Exactly)),
            ("Compfiles.Imo2025P4", "imo_2025_p4", Some(Exactly)),
            ("Imo2025P4.imo2025_p4", "imo_2025_p4", Some(Exactly)),
            ("Imo1964P1.imo_1964_p1b'", "imo_1964_p1", Some(Exactly)),
            ("erdos975", "erdos_975", Some(Exactly)),
            ("Imo2025P4.main", "imo_2025_p4", Some(ByNamespace)),
            (
                "Erdos975.erdos_975.variants.x",
                "erdos_975",
                Some(ByNamespace),
            ),
            ("bound_of_erdos_850", "erdos_850", None),
            ("erdos_850_bound", "erdos_850", None),
            ("imo2025_p1_left", "imo_2025_p1", None),
            ("erdos_8500", "erdos_850", None),
            // Ids no scheme reads compare whole.
            ("tuza_nu4", "tuza_nu4", Some(Exactly)),
            ("TuzaNu4", "tuza_nu4", Some(Exactly)),
            ("tuza_nu4_bound", "tuza_nu4", None),
            ("erdos_850", "erdos_850_triples", None),
        ];
        for (name, id, want) in cases {
            assert_eq!(named_after_problem(name, id), *want, "{name} / {id}");
        }
    }

    #[test]
    fn a_title_naming_another_conjecture_contradicts_a_scheme_label() {
        let selfridge = "Selfridge's Conjecture: infinitely many odd squarefree Sierpiński numbers";
        assert!(title_contradicts(selfridge, "erdos_938"));
        // The label's scheme named in the title, a title naming no one's conjecture, a label
        // of the users' campaign naming: no contradiction.
        assert!(!title_contradicts(
            "The Erdős–Selfridge Conjecture",
            "erdos_938"
        ));
        assert!(!title_contradicts(
            "The main conjecture, step 2",
            "erdos_938"
        ));
        assert!(!title_contradicts(selfridge, "tuza_nu4"));
        assert!(!title_contradicts(
            "Tuza's Conjecture for ν ≤ 3",
            "tuza_nu3"
        ));
    }

    #[test]
    fn a_title_names_whose_conjecture() {
        for (title, want) in [
            ("TUZA'S CONJECTURE - FULL PROBLEM", &["tuza"][..]),
            (
                "Selfridge's Conjecture: odd squarefree numbers",
                &["selfridge"],
            ),
            ("the Collatz conjecture for n < 100", &["collatz"]),
            ("The main conjecture, step 2", &[]),
            ("a conjecture of ours", &[]),
        ] {
            assert_eq!(conjectures_named(title), want, "{title}");
        }
    }

    #[test]
    fn a_copy_whose_title_contradicts_its_label_outranks_every_label() {
        use Evidence::*;
        let members = [(Some("erdos_938"), Some(Sketch)), (None, Some(Title))];
        assert_eq!(of_copies(members), None);
        let members = [(Some("erdos_938"), Some(Folder)), (None, None)];
        assert_eq!(of_copies(members).as_deref(), Some("erdos_938"));
        // Stronger evidence than a title (a theorem named after the problem) still decides.
        let members = [(Some("erdos_12"), Some(Theorem)), (None, Some(Title))];
        assert_eq!(of_copies(members).as_deref(), Some("erdos_12"));
    }

    #[test]
    fn an_unknown_contest_is_never_assembled_from_folders() {
        let id = |p: &str| by_path(Path::new(p)).and_then(|i| i.problem_id);
        assert_eq!(id("w/archive/2025/P3.lean"), None);
        assert_eq!(id("w/results/2026/p1.lean"), None);
        assert_eq!(
            id("w/Compfiles/Bulgaria1998P2.lean").as_deref(),
            Some("bulgaria_1998_p2")
        );
        assert_eq!(
            id("w/Problems/IMO/2019/P1.lean").as_deref(),
            Some("imo_2019_p1")
        );
        assert_eq!(
            id("w/putnam/1988/b1.lean").as_deref(),
            Some("putnam_1988_b1")
        );
    }

    #[test]
    fn own_words_outrank_a_name_and_a_folder() {
        let found = identity_of(
            "work/putnam_1990_a1.lean",
            "/-! # Erdős Problem 975 -/\ntheorem t : True := trivial\n",
        );
        assert_eq!(
            (found.problem_id.as_deref(), found.evidence),
            (Some("erdos_975"), Some(Evidence::Comment))
        );
        // Aristotle's header is its words, not the author's.
        let found = identity_of(
            "work/putnam_1990_a1.lean",
            "/-\nThis file was edited by Aristotle.\nThe following was proved by Aristotle:\n- erdos_975\n-/\ntheorem t : True := trivial\n",
        );
        assert_eq!(found.problem_id.as_deref(), Some("putnam_1990_a1"));
    }
}
