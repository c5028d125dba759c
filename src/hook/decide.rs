//! The gate's engine: does going from an earlier version of a `.lean` file to its current text
//! gut a proof, add an axiom, change a statement, remove a complete proof or use a false lemma?
//!
//! It compares the versions declaration by declaration with the engine of `mf diff`
//! ([`crate::lean::compare`]) and gives a [`Decision`]: lines to block on and lines of advice.
//! PostToolUse, PreToolUse (through [`super::gate`]), Stop and `mf splice` all ask it; each
//! renders the answer its own way.
//!
//! - **blocks** when a declaration that had proof code and no `sorry`/`admit` now has one, or
//!   when an `axiom` was added (the proof gate's invariant: axioms are silent unsoundness);
//! - **advises** when the file references a lemma tracking.db lists as false (identifier
//!   tokens of code only: `foo` never matches `foo_bar`, nor a comment), when a theorem's
//!   statement changed, and when a complete proof was removed.
//!
//! It never blocks for a `sorry` in a comment or string (the grammar knows), for one that was
//! already there, or for a new declaration stated with `sorry`.
//!
//! Only the commands around the change are parsed ([`window`]); a window that does not parse
//! cleanly falls back to the whole files, and `tests/hook_windows.rs` checks on corpus edits
//! that both decide alike. A removed complete proof is advised on unless an added declaration
//! carries the same body (a rename). With several candidate earlier versions (an ambiguous
//! undo, see [`super::baseline`]), only what all of them agree on is reported.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::{Hash, Hasher};
use std::ops::Range;

use super::baseline::{Baseline, Origin};
use super::by_line::{declaration_at, ByLine};
use super::clip;
use super::journal;
use super::window::{self, Layout, Window};
use crate::kb::Event;
use crate::lean::compare::{DeclarationDiff, FileComparison, Status};
use crate::lean::idents::{self, NameSet};
use crate::lean::trust_scan::{self, Escape};
use crate::lean::{Declaration, Outline, Sorry};
use crate::tracking::FalseLemma;

/// What the engine decided, before a hook renders it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Decision {
    /// One line per reason to block (empty: do not block).
    pub blocks: Vec<String>,
    /// Lines shown to the agent whether or not the edit is blocked.
    pub advice: Vec<String>,
}

/// The decision for a file whose text is now `current`, given what it was before.
pub fn decide(
    name: &str,
    current: &str,
    before: &Baseline,
    false_lemmas: &[FalseLemma],
) -> Decision {
    decide_with(name, current, before, false_lemmas, Parse::Windows)
}

/// How much of a file [`decide_with`] parses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parse {
    /// The commands around the change (see [`window`]), the whole file when they cannot be
    /// cut cleanly. What the hook does.
    Windows,
    /// Always the whole file: slower, and the reference the windows are tested against.
    Whole,
}

/// [`decide`], parsing as `parse` says.
pub fn decide_with(
    name: &str,
    current: &str,
    before: &Baseline,
    false_lemmas: &[FalseLemma],
    parse: Parse,
) -> Decision {
    decide_journaled(name, current, before, false_lemmas, parse, false).0
}

/// [`decide_with`], and, when `journal` is set, the edit's declaration-level events for the
/// session journal (none when the earlier version is unknown or ambiguous: the journal
/// records only what is sure). Without a journal to write, they are not read off at all:
/// they walk the changed bodies' trees, and the decision does not depend on them.
pub fn decide_journaled(
    name: &str,
    current: &str,
    before: &Baseline,
    false_lemmas: &[FalseLemma],
    parse: Parse,
    journal: bool,
) -> (Decision, Vec<Event>) {
    let mut events = Vec::new();
    // The first earlier version's layout is read once: the new text's is derived from it (an
    // edit changes a few lines of a file both scans would read whole).
    let first = match before {
        Baseline::Known { texts, .. } => texts.first(),
        Baseline::Unknown { .. } => None,
    };
    let mut first_layout = first.map(|t| Layout::of(t));
    let layout = match (first, &first_layout) {
        (Some(old), Some(l)) => l.edited(old, current),
        _ => Layout::of(current),
    };
    let mut new = NewFile {
        name,
        text: current,
        layout,
        whole: None,
        parse,
        journal,
    };
    let mut decision = Decision::default();
    if let Baseline::Known { texts, origin } = before {
        // Each candidate earlier version gives its findings; keep those all agree on.
        let mut agreed: Option<(Findings, Findings)> = None;
        // When every candidate guts some proof, the edit guts one, whichever it was.
        let mut every_blocks = true;
        let mut any_block = Findings::new();
        for text in texts {
            let (blocks, advice, changes) = compare(text, first_layout.take(), &mut new, *origin);
            if texts.len() == 1 {
                events = changes;
            }
            every_blocks &= !blocks.is_empty();
            any_block.extend(blocks.iter().map(|(k, v)| (k.clone(), v.clone())));
            agreed = Some(match agreed {
                None => (blocks, advice),
                Some((b, a)) => (intersect(b, &blocks), intersect(a, &advice)),
            });
        }
        if let Some((blocks, advice)) = agreed {
            decision.blocks = blocks.into_values().collect();
            decision.advice = advice.into_values().collect();
        }
        if decision.blocks.is_empty() && every_blocks && texts.len() > 1 {
            decision.blocks.push(format!(
                "- the earlier version is ambiguous ({} ways to undo the edit), and each of them had a complete proof this edit holed or lacked an axiom it adds; one of:",
                texts.len()
            ));
            decision.blocks.extend(any_block.into_values());
        }
    }
    decision
        .advice
        .extend(false_lemma_advice(&mut new, false_lemmas));
    (decision, events)
}

/// The file as the tool left it: its text, layout and, once needed, its whole parse.
struct NewFile<'a> {
    name: &'a str,
    text: &'a str,
    layout: Layout,
    whole: Option<Window>,
    parse: Parse,
    /// Whether the edit's journal events are wanted.
    journal: bool,
}

impl NewFile<'_> {
    fn whole(&mut self) -> &Window {
        let (name, text) = (self.name, self.text);
        self.whole.get_or_insert_with(|| window::whole(name, text))
    }
}

/// Compares one earlier version with the new file: the windows around the change when they
/// parse cleanly, the whole files otherwise.
fn compare(
    old_text: &str,
    old_layout: Option<Layout>,
    new: &mut NewFile<'_>,
    origin: Origin,
) -> (Findings, Findings, Vec<Event>) {
    if old_text == new.text {
        return (Findings::new(), Findings::new(), Vec::new());
    }
    if old_text.is_empty() && new.parse == Parse::Windows {
        if let Some(found) = compare_new_file(new, origin) {
            return found;
        }
    }
    let journal_wanted = new.journal;
    let old_layout = old_layout.unwrap_or_else(|| Layout::of(old_text));
    let cut = window::change_windows(old_text, &old_layout, new.text, &new.layout)
        .filter(|_| new.parse == Parse::Windows);
    // A window that is the whole file is parsed once: when it (or the other side's window)
    // does not parse cleanly, its parse is the whole file's.
    let mut old_whole = None;
    let mut windows = None;
    if let Some((o, n)) = cut {
        let old_is_whole = o.start == 0 && o.end == old_text.len();
        match window::parse_or_whole(new.name, old_text, &old_layout, o) {
            Err(whole) => old_whole = whole.map(|w| *w),
            Ok(old_w) => match window::parse_or_whole(new.name, new.text, &new.layout, n) {
                Ok(new_w) => windows = Some((old_w, new_w)),
                Err(whole) => {
                    if old_is_whole {
                        old_whole = Some(old_w);
                    }
                    if new.whole.is_none() {
                        new.whole = whole.map(|w| *w);
                    }
                }
            },
        }
    }
    let (old_w, new_w);
    // Windows are only used when both parse cleanly; otherwise the whole files are compared,
    // and the parts of the new one that did not parse are scanned for escapes too.
    let (old, new) = match windows {
        Some((o, n)) => {
            (old_w, new_w) = (o, n);
            (&old_w, &new_w)
        }
        None => {
            old_w = old_whole.unwrap_or_else(|| window::whole(new.name, old_text));
            (&old_w, new.whole())
        }
    };
    let c = FileComparison::of(&old.text, &old.outline, &new.text, &new.outline);
    let (mut blocks, mut advice) = findings(
        &c,
        (&old.text, &old.outline),
        (&new.text, &new.outline),
        origin,
    );
    // Escape words read lexically: in the parts of the new file that did not parse (only
    // when the whole files are compared: windows parse cleanly) and in opaque text's code.
    lexical_findings(old, new, origin, &mut blocks, &mut advice);
    let events = if journal_wanted {
        journal::events(&c, &new.file, &new.outline)
    } else {
        Vec::new()
    };
    (blocks, advice, events)
}

/// The words without which a command of a file with no earlier text gives no finding and no
/// journal event: every declaration of such a file is added, and an added declaration is
/// judged only for being an `axiom` or (in the journal) for holding a `sorry`/`admit` hole,
/// and the lexical scan looks for these words only.
const ESCAPE_WORDS: [&str; 3] = ["sorry", "admit", "axiom"];

/// [`compare`] for a file with no earlier text (a Write creating it): only the commands around
/// the occurrences of [`ESCAPE_WORDS`] (anywhere: in code, comments or strings, so the
/// grammar's reading decides) are parsed, as windows, and judged as the whole file would be;
/// the other commands cannot give a finding or an event. `None` when the file has `#exit`, a
/// Verso document, or a window that does not parse cleanly: the caller then parses the whole file, so what could not
/// be parsed is judged as before.
fn compare_new_file(new: &NewFile<'_>, origin: Origin) -> Option<(Findings, Findings, Vec<Event>)> {
    let bytes = new.text.as_bytes();
    // A Verso document's markup (`#doc … =>`, `#docs … :=`) runs over command lines to the
    // end of the file or its closing fence, where the layout sees boundaries.
    if new.layout.exit.is_some() || memchr::memmem::find(bytes, b"#doc").is_some() {
        return None;
    }
    let mut at: Vec<usize> = ESCAPE_WORDS
        .iter()
        .flat_map(|w| memchr::memmem::find_iter(bytes, w.as_bytes()))
        .collect();
    at.sort_unstable();
    let (mut blocks, mut advice, mut events) = (Findings::new(), Findings::new(), Vec::new());
    if at.is_empty() {
        return Some((blocks, advice, events));
    }
    let mut cursor = window::WindowCursor::new(new.text, &new.layout);
    let placed = window::covering(&new.layout, new.text, &at)
        .into_iter()
        .map(|range| cursor.place(range))
        .collect::<Option<Vec<_>>>()?;
    let (name, text, journal_wanted) = (new.name, new.text, new.journal);
    // Each window is parsed and judged on its own, as the whole file would be around it.
    let judge = |placed: window::Placed, empty: &Window| {
        let w = placed.parse(name, text)?;
        let c = FileComparison::of("", &empty.outline, &w.text, &w.outline);
        let (mut b, mut a) = findings(&c, ("", &empty.outline), (&w.text, &w.outline), origin);
        lexical_findings(empty, &w, origin, &mut b, &mut a);
        let e = if journal_wanted {
            journal::events(&c, &w.file, &w.outline)
        } else {
            Vec::new()
        };
        Some((b, a, e))
    };
    for (b, a, e) in judged_in_parallel(name, placed, judge)? {
        blocks.extend(b);
        advice.extend(a);
        events.extend(e);
    }
    Some((blocks, advice, events))
}

/// Window bytes from which [`judged_in_parallel`] uses more than one thread: below it the
/// threads' start-up costs more than they save.
const PARALLEL_BYTES: usize = 32 * 1024;

/// Most threads [`judged_in_parallel`] uses.
const MAX_THREADS: usize = 4;

/// `judge` of each placed window (with the empty file's window beside it), in window order;
/// None when any is None. A new file can be a window per declaration, all of it parsed: the
/// windows are split into runs of about equal bytes, one per thread, so that the hook's wall
/// time is a fraction of the parse where cores are free. The answer does not depend on the
/// split: each window is judged alone, and the results are put back in order.
fn judged_in_parallel<T: Send>(
    name: &str,
    placed: Vec<window::Placed>,
    judge: impl Fn(window::Placed, &Window) -> Option<T> + Sync,
) -> Option<Vec<T>> {
    let bytes: usize = placed.iter().map(|p| p.range.len()).sum();
    let threads = if bytes < PARALLEL_BYTES {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(MAX_THREADS)
            .min(placed.len())
    };
    let run = |part: Vec<window::Placed>| -> Option<Vec<T>> {
        let empty = window::whole(name, "");
        part.into_iter().map(|p| judge(p, &empty)).collect()
    };
    if threads <= 1 {
        return run(placed);
    }
    // Contiguous runs of about `bytes / threads` each.
    let mut parts: Vec<Vec<window::Placed>> = Vec::with_capacity(threads);
    let (share, mut filled) = (bytes.div_ceil(threads), 0);
    for p in placed {
        let len = p.range.len();
        let full = parts.len() == threads;
        match parts.last_mut() {
            Some(part) if filled < share || full => part.push(p),
            _ => {
                parts.push(vec![p]);
                filled = 0;
            }
        }
        filled += len;
    }
    let mut parts = parts.into_iter();
    let first = parts.next().unwrap_or_default();
    let run = &run;
    std::thread::scope(|s| {
        // A part whose thread cannot be started is judged here, after the first.
        let others: Vec<Result<_, Vec<window::Placed>>> = parts
            .map(|part| {
                let (tx, rx) = std::sync::mpsc::channel();
                let spawned = std::thread::Builder::new().spawn_scoped(s, move || {
                    let part = rx.recv().unwrap_or_default();
                    run(part)
                });
                match spawned {
                    Ok(handle) => {
                        let _ = tx.send(part);
                        Ok(handle)
                    }
                    Err(_) => Err(part),
                }
            })
            .collect();
        let mut out = run(first);
        for other in others {
            let part = match other {
                // A thread that panicked is a bug: None, and the caller parses the whole file.
                Ok(handle) => handle.join().ok().flatten(),
                Err(part) => run(part),
            };
            out = match (out, part) {
                (Some(mut o), Some(p)) => {
                    o.extend(p);
                    Some(o)
                }
                _ => None,
            };
        }
        out
    })
}

/// Hashes of the trimmed lines of a file, by line start.
#[derive(Default)]
struct LineHashes(HashMap<usize, u64>);

impl LineHashes {
    fn of(&mut self, file: &crate::lean::ParsedFile, byte: usize) -> u64 {
        let span = file.line_span(byte);
        *self.0.entry(span.start).or_insert_with(|| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            file.text[span].trim().hash(&mut h);
            h.finish()
        })
    }
}

/// `sorry`, `admit` and `axiom` words that the edit put into a part of the file that does not
/// parse, or into the code of text the grammar reads as one token (HTML in a term, a Verso
/// Lean code block, a metaprogram's code), found lexically ([`trust_scan::lexical_escapes`]):
/// the tree cannot say which proof they are in, so a word that was not on the same line
/// before is blocked as a new hole or axiom would be (advised on, for a hole in a file with no
/// earlier version, as a hole in a new declaration would be). A hole the outline puts inside a
/// declaration is judged with that declaration, above.
fn lexical_findings(
    old: &Window,
    new: &Window,
    origin: Origin,
    blocks: &mut Findings,
    advice: &mut Findings,
) {
    let hits = kept_escapes(new, true);
    if hits.is_empty() {
        return;
    }
    // Each escape word on each line of the earlier version, wherever it was; lines are
    // compared by a hash of their trimmed text, computed once per line.
    let mut before: HashMap<(&str, u64), usize> = HashMap::new();
    let mut old_lines = LineHashes::default();
    for h in trust_scan::scan(&old.file.text, 0..old.file.text.len()) {
        *before
            .entry((h.word, old_lines.of(&old.file, h.span.start)))
            .or_default() += 1;
    }
    let mut new_lines = LineHashes::default();
    for h in hits {
        let key = (h.word, new_lines.of(&new.file, h.span.start));
        match before.get_mut(&key) {
            Some(n) if *n > 0 => {
                *n -= 1;
                continue;
            }
            _ => {}
        }
        // The file's line: a window's text starts with its scope header.
        let line = new.file_line(new.file.position(h.span.start).line);
        let what = if h.escape == Escape::Axiom {
            "an axiom"
        } else {
            "a hole"
        };
        let text = match h.opaque {
            None => format!(
                "- `{}` at line {line} is in a part of the file mf could not parse, so it is read as {what} in code it cannot check. Fix the syntax there (`mf parse --errors FILE` lists where it fails) or remove it.",
                h.word
            ),
            Some(_) => format!(
                "- `{}` at line {line} is in {}, so it is read as {what}. Remove it, or finish the proof there.",
                h.word,
                trust_scan::describe_region(h.opaque)
            ),
        };
        let key = format!("unparsed {line:010} {}", h.word);
        if h.escape != Escape::Axiom && origin == Origin::Nothing {
            advice.insert(key, text);
        } else {
            blocks.insert(key, text);
        }
    }
}

/// What the declaration-level rules above already judge: the bytes of the holes the tree
/// read or the outline gives a declaration, and the spans of `axiom` declarations.
fn judged_elsewhere(outline: &Outline) -> (HashSet<usize>, Vec<&Range<usize>>) {
    let holes = outline
        .sorries
        .iter()
        .filter(|s| !s.lexical || s.declaration.is_some())
        .map(|s| s.byte)
        .collect();
    let axioms = outline
        .declarations
        .iter()
        .filter(|d| d.kind == "axiom")
        .map(|d| &d.span)
        .collect();
    (holes, axioms)
}

/// The lexical escape hits [`lexical_findings`] judges: `sorry`, `admit` and `axiom` words
/// the tree and the outline did not already account for. With `precheck`, the tree is not
/// walked when a text search shows there can be none ([`may_hold_lexical_escape`]); the
/// answer is the same either way.
fn kept_escapes(new: &Window, precheck: bool) -> Vec<trust_scan::Hit> {
    let (holes, axioms) = judged_elsewhere(&new.outline);
    if precheck && !may_hold_lexical_escape(&new.file.text, &holes, &axioms) {
        return Vec::new();
    }
    trust_scan::lexical_escapes(&new.file)
        .into_iter()
        .filter(|h| match h.escape {
            Escape::Sorry | Escape::Admit => !holes.contains(&h.span.start),
            Escape::Axiom => !axioms.iter().any(|a| a.contains(&h.span.start)),
            _ => false,
        })
        .collect()
}

/// Whether `text` may hold a `sorry`, `admit` or `axiom` hit that [`lexical_findings`] keeps:
/// a hit starts where one of those words occurs in the text, and is dropped when it is a hole
/// the outline already judged (`holes`) or an axiom inside an `axiom` declaration. When every
/// occurrence is one of those, no walk of the tree for opaque text and no scan of unparsed
/// commands can find anything kept, so neither is made (a new file whose holes are all in
/// parsed proofs pays three substring searches).
fn may_hold_lexical_escape(text: &str, holes: &HashSet<usize>, axioms: &[&Range<usize>]) -> bool {
    let bytes = text.as_bytes();
    let judged_hole = |at: usize| holes.contains(&at);
    // The axiom declaration starting last at or before `at` (a bounded look per word; when
    // it does not hold `at`, the full check decides).
    let mut spans: Vec<&Range<usize>> = axioms.to_vec();
    spans.sort_unstable_by_key(|r| r.start);
    let in_axiom = |at: usize| {
        let k = spans.partition_point(|r| r.start <= at);
        k > 0 && spans[k - 1].contains(&at)
    };
    memchr::memmem::find_iter(bytes, b"sorry").any(|at| !judged_hole(at))
        || memchr::memmem::find_iter(bytes, b"admit").any(|at| !judged_hole(at))
        || memchr::memmem::find_iter(bytes, b"axiom").any(|at| !in_axiom(at))
}

/// Findings keyed so that candidates can be intersected; values are the lines shown.
type Findings = BTreeMap<String, String>;

fn intersect(mut a: Findings, b: &Findings) -> Findings {
    a.retain(|k, _| b.contains_key(k));
    a
}

fn findings(
    c: &FileComparison,
    (old_text, old): (&str, &Outline),
    (new_text, new): (&str, &Outline),
    origin: Origin,
) -> (Findings, Findings) {
    let mut blocks = Findings::new();
    let mut advice = Findings::new();
    let new_sorries = ByLine::of(&new.sorries, |s| s.line);
    for d in c.newly_holed() {
        let key = format!(
            "hole {} {}",
            d.label(),
            d.new.as_ref().map_or(0, |s| s.line)
        );
        blocks.insert(key, holed_line(d, &new_sorries));
    }
    for d in c.added_axioms() {
        let key = format!(
            "axiom {} {}",
            d.full_name,
            d.new.as_ref().map_or(0, |s| s.line)
        );
        let line = d.new.as_ref().map_or(0, |s| s.line);
        let what = if origin == Origin::Nothing {
            "axiom in a file with no earlier version"
        } else {
            "new axiom"
        };
        blocks.insert(
            key,
            format!(
                "- {} (line {line}): {what}. An axiom is an unchecked assumption: every proof that uses it is unsound, and the proof gate rejects it.",
                d.label()
            ),
        );
    }
    for d in c.restated_theorems() {
        let (old, new) = (d.old.as_ref(), d.new.as_ref());
        let line = new.map_or(0, |s| s.line);
        let key = format!(
            "restated {} {}",
            d.label(),
            d.new.as_ref().map_or(0, |s| s.line)
        );
        advice.insert(
            key,
            format!(
                "{} (line {line}): statement changed from `{}` to `{}`. A proof of the new statement is not a proof of the old one; make sure the change is intended.",
                d.label(),
                clip(old.map_or("", |s| s.statement.as_str()), 160),
                clip(new.map_or("", |s| s.statement.as_str()), 160),
            ),
        );
    }
    let removed = c.removed_proofs();
    // A proof that moved to a declaration of another name (a rename) is not gone. The added
    // bodies are only read when a proof was removed (a new file's every declaration is added).
    let added_bodies: HashSet<String> = if removed.is_empty() {
        HashSet::new()
    } else {
        let new_declarations = ByLine::of(&new.declarations, |d| d.line);
        c.declarations
            .iter()
            .filter(|d| d.status == Status::Added)
            .filter_map(|d| declaration_at(&new_declarations, d.new.as_ref()?.line, &d.full_name))
            .filter_map(|d| body_of(new_text, d))
            .collect()
    };
    let old_declarations = ByLine::of(&old.declarations, |d| d.line);
    for d in removed {
        let moved = d
            .old
            .as_ref()
            .and_then(|s| declaration_at(&old_declarations, s.line, &d.full_name))
            .and_then(|o| body_of(old_text, o))
            .is_some_and(|b| added_bodies.contains(&b));
        if moved {
            continue;
        }
        let key = format!("removed {}", d.label());
        let line = d.old.as_ref().map_or(0, |s| s.line);
        advice.insert(
            key,
            format!(
                "{} (was line {line}) had a complete proof and is gone. If it was renamed or moved, keep its proof; do not restate it with sorry.",
                d.label()
            ),
        );
    }
    (blocks, advice)
}

/// A declaration's body with whitespace collapsed.
fn body_of(text: &str, d: &Declaration) -> Option<String> {
    let body = text.get(d.body.clone()?)?;
    Some(body.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// `- theorem foo (lines 3-9): had proof code without sorry/admit; now has sorry at line 5. …`
fn holed_line(d: &DeclarationDiff, new_sorries: &ByLine<'_, Sorry>) -> String {
    let side = d
        .new
        .as_ref()
        .expect("a newly holed declaration exists in the new file");
    let holes: Vec<String> = new_sorries
        .in_lines(side.line..=side.end_line)
        .filter(|s| s.declaration.as_deref().unwrap_or("") == d.full_name)
        .map(|s| format!("{} at line {}", s.keyword, s.line))
        .collect();
    let lines = if side.line == side.end_line {
        format!("line {}", side.line)
    } else {
        format!("lines {}-{}", side.line, side.end_line)
    };
    let removed: Vec<&str> = d
        .hunks
        .iter()
        .flat_map(|h| h.lines.iter())
        .filter_map(|l| l.strip_prefix('-'))
        .filter(|l| !l.trim().is_empty())
        .collect();
    let mut out = format!(
        "- {} ({lines}): had proof code without sorry/admit, now has {}.",
        d.label(),
        if holes.is_empty() {
            format!("{} hole(s)", side.holes)
        } else {
            holes.join(", ")
        }
    );
    if !removed.is_empty() {
        const SHOWN: usize = 8;
        out.push_str(" The edit removed:");
        for l in removed.iter().take(SHOWN) {
            out.push_str("\n    ");
            out.push_str(&clip(l, 160));
        }
        if removed.len() > SHOWN {
            out.push_str(&format!("\n    … ({} more lines)", removed.len() - SHOWN));
        }
    }
    out
}

/// One line per false lemma the file's code references or declares.
fn false_lemma_advice(new: &mut NewFile<'_>, lemmas: &[FalseLemma]) -> Vec<String> {
    let names = NameSet::new(lemmas.iter().filter_map(|l| l.lemma_name.as_deref()));
    if names.is_empty() {
        return Vec::new();
    }
    // Only the commands where a name occurs as code text are parsed.
    let lasts: BTreeSet<&str> = names
        .names()
        .iter()
        .filter_map(|n| idents::components(n).last().copied())
        .map(|c| c.trim_start_matches('«').trim_end_matches('»'))
        .filter(|c| !c.is_empty())
        .collect();
    let mut at = word_positions(new.text, &lasts);
    at.retain(|&p| !new.layout.in_non_code(p));
    if at.is_empty() {
        return Vec::new();
    }
    at.sort_unstable();
    let ranges = window::covering(&new.layout, new.text, &at);
    let parsed: Option<Vec<Window>> = match new.parse {
        Parse::Windows => ranges
            .into_iter()
            .map(|r| window::parse(new.name, new.text, &new.layout, r))
            .collect(),
        Parse::Whole => None,
    };
    let windows: Vec<&Window> = match &parsed {
        Some(ws) => ws.iter().collect(),
        None => vec![new.whole()],
    };
    // name → lines where it is used, lines where it is declared.
    let mut seen: BTreeMap<&str, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
    for w in windows {
        for r in idents::references(&w.file, &names) {
            let name = names
                .names()
                .iter()
                .find(|n| **n == r.name)
                .map_or("", String::as_str);
            seen.entry(name)
                .or_default()
                .0
                .push(w.file_line(r.start.line));
        }
        for d in &w.outline.declarations {
            if d.full_name.is_empty() {
                continue;
            }
            for name in names.referenced_by(&d.full_name) {
                seen.entry(name).or_default().1.push(d.line);
            }
        }
    }
    let mut out = Vec::new();
    for (name, (used, declared)) in seen {
        let lemma = lemmas
            .iter()
            .find(|l| l.lemma_name.as_deref().map(str::trim) == Some(name));
        let mut line = format!("`{name}` is listed as FALSE in tracking.db, and this file ");
        let mut parts = Vec::new();
        if !declared.is_empty() {
            parts.push(format!("states it ({})", line_list(&declared)));
        }
        if !used.is_empty() {
            parts.push(format!("uses it ({})", line_list(&used)));
        }
        line.push_str(&parts.join(" and "));
        line.push('.');
        if let Some(l) = lemma {
            if let Some(why) = l.why_false.as_deref().filter(|s| !s.trim().is_empty()) {
                line.push_str(&format!(" Why: {}.", clip(why.trim_end_matches('.'), 160)));
            }
            if let Some(cx) = l.counterexample.as_deref().filter(|s| !s.trim().is_empty()) {
                line.push_str(&format!(
                    " Counterexample: {}.",
                    clip(cx.trim_end_matches('.'), 120)
                ));
            }
            if let Some(avoid) = l.avoid_pattern.as_deref().filter(|s| !s.trim().is_empty()) {
                line.push_str(&format!(
                    " Avoid: {}.",
                    clip(avoid.trim_end_matches('.'), 120)
                ));
            }
        }
        line.push_str(&format!(" Details: `mk failed {name}`."));
        out.push(line);
    }
    out
}

/// Byte positions where one of `words` occurs in `text` as a whole word (between characters
/// that cannot continue a Lean identifier). Plain words are found in one pass over the text;
/// a word with other characters (a `«quoted name»`) is searched for on its own.
/// Up to this many words, [`word_positions`] searches for each on its own.
const FEW_WORDS: usize = 8;

fn word_positions(text: &str, words: &BTreeSet<&str>) -> Vec<usize> {
    fn ident_char(c: char) -> bool {
        c.is_alphanumeric() || matches!(c, '_' | '\'' | '!' | '?')
    }
    let (plain, odd): (Vec<&str>, Vec<&str>) =
        words.iter().partition(|w| w.chars().all(ident_char));
    let mut out = Vec::new();
    // A plain word is a whole run of identifier characters, so it occurs where a search for
    // it finds it between two characters that are not: a search of the text (a hook runs this
    // on every edit) instead of hashing every word of the file. The longest
    // pattern at each start is the only one that can end at a word's end.
    let mut found = |start: usize, end: usize| {
        let before = text[..start].chars().next_back();
        let after = text[end..].chars().next();
        if !before.is_some_and(ident_char) && !after.is_some_and(ident_char) {
            out.push(start);
        }
    };
    if plain.len() <= FEW_WORDS {
        // A few words: one vectorized substring search each is many times faster than the
        // automaton. A whole-word occurrence is found by either (no other occurrence of an
        // identifier word can overlap its start), and the positions are sorted below.
        for w in &plain {
            for start in memchr::memmem::find_iter(text.as_bytes(), w.as_bytes()) {
                found(start, start + w.len());
            }
        }
    } else {
        let finder = aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostLongest)
            .build(&plain)
            .expect("identifier words build an automaton");
        for m in finder.find_iter(text) {
            found(m.start(), m.end());
        }
    }
    for w in odd {
        out.extend(text.match_indices(w).map(|(p, _)| p));
    }
    out.sort_unstable();
    out
}

/// `line 4`, `lines 4, 9, 12`, `lines 4, 9, 12 and 3 more`.
fn line_list(lines: &[usize]) -> String {
    let mut lines = lines.to_vec();
    lines.sort_unstable();
    lines.dedup();
    const SHOWN: usize = 5;
    let shown: Vec<String> = lines.iter().take(SHOWN).map(usize::to_string).collect();
    let mut s = format!(
        "line{} {}",
        if lines.len() == 1 { "" } else { "s" },
        shown.join(", ")
    );
    if lines.len() > SHOWN {
        s.push_str(&format!(" and {} more", lines.len() - SHOWN));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture_texts() -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut texts = Vec::new();
        for entry in ignore::Walk::new(dir).flatten() {
            if entry.path().extension().is_some_and(|e| e == "lean") {
                if let Ok(t) = std::fs::read_to_string(entry.path()) {
                    texts.push(t);
                }
            }
        }
        assert!(texts.len() > 10, "the fixtures hold Lean files");
        texts
    }

    /// The text search that skips the walk for lexical escapes never skips one that counts:
    /// on every fixture, as it is and with escape words added in code, comments, strings,
    /// unparsed commands and axiom declarations, the kept hits are those of the full walk.
    #[test]
    fn the_escape_precheck_never_hides_a_hit() {
        let mut texts = fixture_texts();
        let additions = [
            "\ntheorem extra : True := by\n  sorry\n",
            "\n-- sorry admit axiom\n/- sorry -/\ndef s := \"axiom sorry\"\n",
            "\ntheorem broken : True := by\n  exact ( [ sorry\n",
            "\naxiom cheat : False\n",
            "\ntheorem t2 : True := by\n  exact (sorryAx _ )\n#check nosorry\n",
            "\naxiom a1 : True\ntheorem t3 : True := by\n  have := (axiom)\n",
        ];
        let base = texts.clone();
        for t in base.iter().take(40) {
            for a in additions {
                texts.push(format!("{t}{a}"));
            }
        }
        for a in additions {
            texts.push(a.to_string());
        }
        let mut skipped = 0;
        let mut found = 0;
        for t in &texts {
            let w = window::whole("f.lean", t);
            let fast = kept_escapes(&w, true);
            let full = kept_escapes(&w, false);
            assert_eq!(fast, full, "{t}");
            skipped += usize::from(full.is_empty());
            found += usize::from(!full.is_empty());
        }
        assert!(skipped > 0 && found > 0, "{skipped} {found}");
    }

    /// The precheck's own answers on small texts.
    #[test]
    fn the_escape_precheck_reads_judged_holes_and_axioms() {
        let check = |t: &str| {
            let w = window::whole("f.lean", t);
            let (holes, axioms) = judged_elsewhere(&w.outline);
            may_hold_lexical_escape(t, &holes, &axioms)
        };
        assert!(!check("theorem a : True := by\n  sorry\n"));
        assert!(!check("axiom b : False\ntheorem a : True := by\n  admit\n"));
        assert!(!check("theorem a : True := trivial\n"));
        assert!(check("-- sorry\ntheorem a : True := trivial\n"));
        assert!(check("def s : String := \"sorry\"\n"));
        assert!(check("def axiomatic : Nat := 1\n"));
    }

    /// A hole put into a metaprogram's code (read lexically) inside an edit's window is
    /// reported at its line in the file, as parsing the whole file reports it (the window's
    /// text starts with its scope header, lines earlier).
    #[test]
    fn lexical_findings_in_a_window_give_the_files_line() {
        let before = format!(
            "namespace A\n\n{}elab \"foo\" : tactic => do\n  pure ()\n\nend A\n",
            "theorem t : True := trivial\n\n".repeat(10)
        );
        let after = before.replace("  pure ()\n", "  let _ := sorry\n  pure ()\n");
        let baseline = Baseline::Known {
            texts: vec![before.clone()],
            origin: Origin::ToolResponse,
        };
        let windows = decide_with("f.lean", &after, &baseline, &[], Parse::Windows);
        let whole = decide_with("f.lean", &after, &baseline, &[], Parse::Whole);
        assert_eq!(windows, whole);
        assert!(
            windows.blocks[0].contains("`sorry` at line 24 "),
            "{windows:?}"
        );
    }

    /// Journal events are read off only when a journal is written; the decision is the same.
    /// A new file whose windows are judged on several threads gets the decision and the
    /// journal events (in order) that the whole file's parse gives.
    #[test]
    fn a_large_new_file_judged_on_threads_is_judged_as_a_whole() {
        let mut text = String::from("import Mathlib\n\nnamespace N\n\n");
        for i in 0..1200 {
            let hole = if i % 2 == 0 { "sorry" } else { "simp" };
            text += &format!(
                "theorem t{i} (n m : Nat) (h{i} : n ≤ m) : n + {i} ≤ m + {i} := by\n  have key_{i} := Nat.add_le_add_right h{i} {i}\n  {hole}\n\n"
            );
            if i % 97 == 0 {
                text += &format!("axiom ax{i} : {i} = {i}\n\n");
            }
        }
        text += "end N\n";
        // Half the declarations are windows: more than a thread's share.
        assert!(text.len() / 2 > 2 * PARALLEL_BYTES, "{}", text.len());
        let baseline = Baseline::Known {
            texts: vec![String::new()],
            origin: Origin::Nothing,
        };
        let (dw, ew) = decide_journaled("f.lean", &text, &baseline, &[], Parse::Windows, true);
        let (dh, eh) = decide_journaled("f.lean", &text, &baseline, &[], Parse::Whole, true);
        assert_eq!(dw, dh);
        assert_eq!(dw.blocks.len(), 13, "{dw:?}");
        assert_eq!(ew.len(), 600);
        assert_eq!(ew, eh);
    }

    #[test]
    fn events_only_when_journaled() {
        let before = "theorem a (n : Nat) : n + 0 = n := by\n  simp [Nat.add_zero]\n";
        let after = before.replace("simp [Nat.add_zero]", "sorry");
        let baseline = Baseline::Known {
            texts: vec![before.to_string()],
            origin: Origin::ToolResponse,
        };
        for parse in [Parse::Windows, Parse::Whole] {
            let (d1, events) = decide_journaled("f.lean", &after, &baseline, &[], parse, true);
            let (d2, none) = decide_journaled("f.lean", &after, &baseline, &[], parse, false);
            assert_eq!(d1, d2);
            assert!(!d1.blocks.is_empty());
            assert_eq!(events.len(), 1, "{events:?}");
            assert_eq!(events[0].kind, Some(crate::kb::EventKind::HoleOpened));
            assert!(none.is_empty());
        }
    }

    /// A few words searched one by one are found where the automaton finds them.
    #[test]
    fn few_words_are_found_as_the_automaton_finds_them() {
        let text = "theorem t : foo_bar = x.foo_bar' := by\n  exact foo_bar\n-- foo_barx foo_bar\n\
                    lemma «foo» : ∀ n, n.succ_le = succ_le_foo_bar := succ_le foo_bar.two";
        for words in [
            vec!["foo_bar", "succ_le"],
            vec!["foo_bar", "foo", "bar", "two", "n", "x"],
            vec!["succ_le_foo_bar", "succ_le", "foo_bar"],
        ] {
            let few: BTreeSet<&str> = words.iter().copied().collect();
            let padding: Vec<String> = (0..FEW_WORDS).map(|k| format!("absent_{k}")).collect();
            let many: BTreeSet<&str> = few
                .iter()
                .copied()
                .chain(padding.iter().map(String::as_str))
                .collect();
            assert!(few.len() <= FEW_WORDS && many.len() > FEW_WORDS);
            assert_eq!(
                word_positions(text, &few),
                word_positions(text, &many),
                "{words:?}"
            );
            assert!(!word_positions(text, &few).is_empty());
        }
    }

    #[test]
    fn whole_words_only() {
        let text = "foo foo_bar h.foo foo' (foo) «a b» x«a b»y";
        let words: BTreeSet<&str> = ["foo", "a b"].into_iter().collect();
        let found: Vec<&str> = word_positions(text, &words)
            .into_iter()
            .map(|p| &text[p..p + 3])
            .collect();
        assert_eq!(found, ["foo", "foo", "foo", "a b", "a b"]);
    }
}
