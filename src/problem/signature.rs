//! A campaign's definitions: the names the files of a known problem define (`isTrianglePacking`,
//! `isPath4`, `trianglePackingNumber`), so that a sketch named only by topic words
//! (`slot539_bridge_apex_constraint.lean`) whose own definitions are a campaign's is read as a
//! step of it, not as a problem of its own.
//!
//! The users' sketches are self-contained: each defines again what its campaign works with, so
//! a step shares definition names with the files of its target. A name many problems define
//! (`IsPrime'`, `V`) says little; one only a campaign defines says much: each shared name
//! weighs by how few problems define it. A step whose definitions are equally those of several
//! targets (`isTrianglePacking`, defined by every target of the ν = 4 campaign) is a step of the
//! campaign, of no target in particular ([`Match::Several`]).
//!
//! The known problems' definitions are read from every file of the run before any is parsed
//! (bytes already read for the survey), lexically: a column-0 `def`/`abbrev`/`structure`/
//! `inductive`/`class`/`opaque` outside comments and strings. A file's own definitions come
//! from its outline.

use std::collections::{HashMap, HashSet};

use crate::lean::lexical;

/// Definition names a file must share with a problem's files before they say anything.
const MIN_SHARED: usize = 2;

/// Submissions of a problem that must define a name before it is the problem's.
const MIN_SUBMISSIONS: usize = 2;

/// Shortest definition name that counts: `A`, `M4` name anything.
const MIN_NAME_CHARS: usize = 3;

/// Bytes of a file read for its definition names, at most.
const SCAN_BYTES: usize = 512 * 1024;

/// Keywords that begin a definition whose name counts.
const DEFINING: &[&str] = &["def", "abbrev", "structure", "inductive", "class", "opaque"];

/// Words that may precede the keyword on its line.
const MODIFIERS: &[&str] = &[
    "noncomputable",
    "private",
    "protected",
    "partial",
    "unsafe",
    "nonrec",
    "public",
];

/// What a file's definitions say of its problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Match {
    /// They are one problem's more than any other's.
    One(String),
    /// They are equally those of several problems: a step of their campaign.
    Several(Vec<String>),
    /// They are no known problem's.
    None,
}

/// Which known problems define which names.
#[derive(Debug, Default)]
pub struct Signatures {
    /// Definition name → the problems whose files define it.
    by_name: HashMap<String, HashSet<String>>,
    /// Problems with at least one definition.
    problems: usize,
}

impl Signatures {
    /// `files`: each file's known problem, its submission (its slot, else its request, else
    /// the file: an input and its output are one) and the names it defines. A name is a
    /// problem's definition when [`MIN_SUBMISSIONS`] of its submissions define it: what a
    /// campaign keeps defining, not what one of its files happened to.
    pub fn new<I, N>(files: I) -> Signatures
    where
        I: IntoIterator<Item = (String, String, N)>,
        N: IntoIterator<Item = String>,
    {
        Signatures::of_submissions(files, MIN_SUBMISSIONS)
    }

    /// As [`Signatures::new`], a name being a problem's when `min` of its submissions define
    /// it (a lemma's key, name and statement alike, says enough from one).
    pub fn of_submissions<I, N>(files: I, min: usize) -> Signatures
    where
        I: IntoIterator<Item = (String, String, N)>,
        N: IntoIterator<Item = String>,
    {
        let mut submissions: HashMap<(String, String), HashSet<String>> = HashMap::new();
        for (problem, submission, names) in files {
            for name in names.into_iter().filter(|n| counts(n)) {
                submissions
                    .entry((name, problem.clone()))
                    .or_default()
                    .insert(submission.clone());
            }
        }
        let mut by_name: HashMap<String, HashSet<String>> = HashMap::new();
        let mut problems = HashSet::new();
        for ((name, problem), s) in submissions {
            if s.len() >= min {
                problems.insert(problem.clone());
                by_name.entry(name).or_default().insert(problem);
            }
        }
        Signatures {
            by_name,
            problems: problems.len(),
        }
    }

    /// The problem whose files' definitions `names` (a file's own) are: the one sharing the
    /// most weight, each shared name weighing by how few problems define it, when it shares
    /// [`MIN_SHARED`] names or more.
    pub fn problem_of<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> Match {
        let names: HashSet<&str> = names.into_iter().filter(|n| counts(n)).collect();
        let mut score: HashMap<&str, (f64, usize)> = HashMap::new();
        for name in names {
            let Some(problems) = self.by_name.get(name) else {
                continue;
            };
            let weight = (self.problems as f64 / problems.len() as f64).ln();
            for p in problems {
                let s = score.entry(p.as_str()).or_default();
                s.0 += weight;
                s.1 += 1;
            }
        }
        let mut ranked: Vec<(&str, f64)> = score
            .into_iter()
            .filter(|(_, (_, shared))| *shared >= MIN_SHARED)
            .map(|(p, (w, _))| (p, w))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        let Some(&(best, top)) = ranked.first() else {
            return Match::None;
        };
        // Equal weights (within rounding) are a tie.
        let tied: Vec<String> = ranked
            .iter()
            .take_while(|(_, w)| (top - w).abs() <= 1e-9 * top.abs().max(1.0))
            .map(|(p, _)| p.to_string())
            .collect();
        if tied.len() > 1 {
            Match::Several(tied)
        } else {
            Match::One(best.to_string())
        }
    }
}

/// Whether a declaration keyword (an outline's `kind`: `def`, `class inductive`, …) defines a
/// name that counts.
pub fn is_defining(kind: &str) -> bool {
    kind.split_whitespace().any(|k| DEFINING.contains(&k))
}

/// Whether a definition name says something: long enough to be a word.
fn counts(name: &str) -> bool {
    name.chars().count() >= MIN_NAME_CHARS
}

/// The names a Lean file defines at column 0 (`def isPath4`, `noncomputable def
/// trianglePackingNumber`, `@[simp] abbrev V12`, `structure Cycle4`), read lexically: outside
/// comments, strings and character literals ([`lexical::non_code_at`]); the first
/// [`SCAN_BYTES`] only.
pub fn defined_names(bytes: &[u8]) -> Vec<String> {
    let text = scan_text(bytes);
    definitions_at(&text, &lexical::code_line_starts(&text))
}

/// What the identity passes read of a file: its first [`SCAN_BYTES`], as text.
pub fn scan_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    String::from_utf8_lossy(&bytes[..bytes.len().min(SCAN_BYTES)])
}

/// [`defined_names`] of `text`, whose lines outside comments and strings start at `starts`
/// ([`lexical::code_line_starts`]).
pub fn definitions_at(text: &str, starts: &[usize]) -> Vec<String> {
    starts
        .iter()
        .filter_map(|&i| definition_at(&text[i..]))
        .map(str::to_string)
        .collect()
}

/// The name a definition starting at the beginning of `line` defines.
fn definition_at(line: &str) -> Option<&str> {
    let line = line.split('\n').next().unwrap_or("");
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let mut rest = line;
    // `@[simp, reducible] noncomputable def …`
    if let Some(after) = rest.strip_prefix("@[") {
        rest = after.split_once(']')?.1.trim_start();
    }
    let mut words = rest.split_whitespace();
    let mut word = words.next()?;
    while MODIFIERS.contains(&word) {
        word = words.next()?;
    }
    if !DEFINING.contains(&word) {
        return None;
    }
    let mut name = words.next()?;
    if word == "class" && name == "inductive" {
        name = words.next()?;
    }
    let end = name.find(['(', '{', '[', ':', '⦃']).unwrap_or(name.len());
    let name = &name[..end];
    let identifier = name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '«');
    identifier.then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_zero_definitions_outside_comments_and_strings() {
        let text = "import Mathlib\n\
            /-- doc -/\n\
            def isPath4 (M : Finset V) : Prop := True\n\
            noncomputable def trianglePackingNumber : ℕ := 0\n\
            @[simp] abbrev V12 := Fin 12\n\
            private structure Cycle4 where\n\
            class inductive Shape\n\
            /- def inComment : ℕ := 0\n\
            /- nested -/ def stillComment := 1 -/\n\
            -- def lineComment := 2\n\
            def s := \"\n\
            def inString := 3\"\n  \
            def indented := 4\n\
            theorem t : True := trivial\n\
            def x:ℕ := 5\n\
            def quote : Char := '\"'\n\
            def afterChar := 6\n";
        assert_eq!(
            defined_names(text.as_bytes()),
            [
                "isPath4",
                "trianglePackingNumber",
                "V12",
                "Cycle4",
                "Shape",
                "s",
                "x",
                "quote",
                "afterChar"
            ]
        );
    }

    /// The skip to the next byte that may matter reads what a byte-by-byte reading reads,
    /// on every fixture and on text with every kind of literal at every place.
    #[test]
    fn skipping_reads_what_every_byte_reads() {
        fn by_byte(bytes: &[u8]) -> Vec<String> {
            let text = String::from_utf8_lossy(&bytes[..bytes.len().min(SCAN_BYTES)]);
            let (mut out, mut i, mut line_start) = (Vec::new(), 0, true);
            while i < text.len() {
                if line_start {
                    if let Some(name) = definition_at(&text[i..]) {
                        out.push(name.to_string());
                    }
                }
                match lexical::non_code_at(&text, i) {
                    Some(len) => {
                        line_start = false;
                        i += len.max(1);
                    }
                    None => {
                        line_start = text.as_bytes()[i] == b'\n';
                        i += 1;
                    }
                }
            }
            out
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut texts: Vec<Vec<u8>> = ignore::Walk::new(dir)
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "lean"))
            .filter_map(|e| std::fs::read(e.path()).ok())
            .collect();
        assert!(texts.len() > 10);
        texts.push(
            b"def a' := 'x'\ndef b := r#\"\ndef c\"#\ndef d := x'\ndef e := \"\\\"\ndef f\" -- \ndef g\n/-\ndef h -/def i\ndef j\xff := 1\n".to_vec(),
        );
        for t in &texts {
            assert_eq!(defined_names(t), by_byte(t));
        }
    }

    fn signatures() -> Signatures {
        let files = [
            (
                "path_4",
                "slot1",
                vec!["isTrianglePacking", "isMaxPacking", "isPath4"],
            ),
            (
                "path_4",
                "slot2",
                vec!["isTrianglePacking", "sharesEdgeWith", "isPath4"],
            ),
            ("path_4", "slot3", vec!["isMaxPacking", "onlyOnce"]),
            (
                "cycle_4",
                "slot4",
                vec!["isTrianglePacking", "isMaxPacking", "isCycle4"],
            ),
            (
                "cycle_4",
                "slot5",
                vec!["isTrianglePacking", "isMaxPacking", "isCycle4"],
            ),
            (
                "tau_le_8",
                "slot6",
                vec!["isTrianglePacking", "isMaxPacking", "sharesEdgeWith"],
            ),
            (
                "tau_le_8",
                "slot7",
                vec!["isTrianglePacking", "isMaxPacking", "sharesEdgeWith"],
            ),
            // An input and its output: one submission.
            ("erdos_364", "slot8", vec!["Nat.Powerful", "IsPowerful"]),
            ("erdos_364", "slot8", vec!["Nat.Powerful", "IsPowerful"]),
            ("erdos_940", "slot9", vec!["Nat.Powerful", "sumOfPowers"]),
            ("erdos_940", "slot10", vec!["Nat.Powerful", "sumOfPowers"]),
        ];
        Signatures::new(files.iter().map(|(p, s, names)| {
            (
                p.to_string(),
                s.to_string(),
                names.iter().map(|n| n.to_string()).collect::<Vec<_>>(),
            )
        }))
    }

    #[test]
    fn a_step_joins_the_problem_whose_definitions_it_shares_most() {
        let s = signatures();
        // `isPath4` only path_4 defines: it outweighs what every target defines.
        assert_eq!(
            s.problem_of(["isTrianglePacking", "isMaxPacking", "isPath4", "bridge"]),
            Match::One("path_4".into())
        );
        // What several targets define equally: a step of their campaign, of none in particular.
        assert_eq!(
            s.problem_of(["isTrianglePacking", "isMaxPacking", "apexOf"]),
            Match::Several(vec!["cycle_4".into(), "path_4".into(), "tau_le_8".into()])
        );
        // One shared name, or short names, say nothing.
        assert_eq!(s.problem_of(["isPath4", "grimm"]), Match::None);
        assert_eq!(s.problem_of(["A", "B", "M4"]), Match::None);
        assert_eq!(s.problem_of(["GrimmHolds", "checkGrimm"]), Match::None);
        // What one submission of a problem defines is not the problem's: `onlyOnce` (one
        // slot), `IsPowerful` (an input and its output).
        assert_eq!(s.problem_of(["onlyOnce", "isPath4"]), Match::None);
        assert_eq!(
            s.problem_of(["IsPowerful", "sumOfPowers", "Nat.Powerful"]),
            Match::One("erdos_940".into())
        );
    }
}
