//! Campaign targets: the problems the users name many files after (`tau_le_8`, `tuza_nu4`,
//! `path_4`), so that a sketch whose own name is only a step of the campaign
//! (`slot288_inline_cover.lean`) but whose leading comment names the target in words
//! ("PATH_4 τ ≤ 8 - Inline Cover") joins that target's problem.
//!
//! A target is a family with a parameter (its id holds a digit: `tuza_nu4`, not
//! `inline_cover`) whose family is a word (three letters or more: `path_4`, not `k_4` or `nu_2`),
//! named by the users' own naming of files of two submissions or more (an input and its
//! output are one submission: `slot223b_independence_ge_2` and its `…_aristotle` output name
//! no campaign), or fixed by tracking.db. Catalogue and contest ids are not targets: a
//! comment naming one is read by the schemes.

use std::collections::HashMap;

use super::scheme::{self, Mode};

/// Submissions a users' name must be given to before it is a campaign target.
const MIN_SUBMISSIONS: usize = 2;

/// Words that number a piece of an argument or name a type, not a problem family: `case_1`,
/// `step_2`, `lemma_14`, `fin_12` are never targets.
const NOT_FAMILIES: &[&str] = &[
    "case", "cases", "step", "part", "lemma", "claim", "round", "phase", "stage", "fin", "iter",
    "attempt", "version", "option", "approach", "method", "test", "slot", "sorry", "try", "fix",
    "pattern", "config", "scenario", "level",
];

/// The campaign targets of a run.
#[derive(Debug, Default)]
pub struct Campaigns {
    targets: Vec<Target>,
    /// First atom → targets starting with it.
    by_first: HashMap<String, Vec<usize>>,
}

#[derive(Debug)]
struct Target {
    id: String,
    atoms: Vec<String>,
}

/// The submission a file belongs to, as campaign targets and definitions count them: its slot,
/// else its request uuid (an input and its `_aristotle` output are one submission), else the
/// file itself.
pub fn submission(file: &str, slot: Option<i64>, uuid: Option<&str>) -> String {
    match (slot, uuid) {
        (Some(slot), _) => format!("slot {slot}"),
        (None, Some(uuid)) => format!("uuid {}", uuid.to_ascii_lowercase()),
        (None, None) => file.to_string(),
    }
}

impl Campaigns {
    /// `named`: the users' problem name of each file (one entry per file), with the
    /// submission the file belongs to (its slot, else its request uuid, else the file itself);
    /// `fixed`: ids tracking.db gives, targets whatever their count.
    pub fn new(
        named: impl IntoIterator<Item = (String, String)>,
        fixed: impl IntoIterator<Item = String>,
    ) -> Campaigns {
        let mut submissions: HashMap<String, std::collections::HashSet<String>> = HashMap::new();
        for (submission, id) in named {
            submissions.entry(id).or_default().insert(submission);
        }
        let mut chosen: std::collections::HashSet<String> = submissions
            .into_iter()
            .filter(|(id, s)| s.len() >= MIN_SUBMISSIONS && is_family_with_parameter(id, false))
            .map(|(id, _)| id)
            .collect();
        chosen.extend(
            fixed
                .into_iter()
                .filter(|id| is_family_with_parameter(id, true)),
        );
        let mut targets: Vec<Target> = chosen
            .into_iter()
            .map(|id| Target {
                atoms: scheme::atoms(&id).into_iter().map(|a| a.text).collect(),
                id,
            })
            .collect();
        targets.sort_by(|a, b| a.id.cmp(&b.id));
        let mut by_first: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, t) in targets.iter().enumerate() {
            if let Some(first) = t.atoms.first() {
                by_first.entry(first.clone()).or_default().push(i);
            }
        }
        Campaigns { targets, by_first }
    }

    /// Whether `id` is a campaign target.
    pub fn is_target(&self, id: &str) -> bool {
        self.targets.iter().any(|t| t.id == id)
    }

    /// The target `text` starts with, atom by atom in any spelling (`path4_adaptive` starts
    /// with `path_4`); of two, the longer.
    pub fn named_first(&self, text: &str) -> Option<&str> {
        let atoms: Vec<String> = scheme::atoms(text).into_iter().map(|a| a.text).collect();
        self.by_first
            .get(atoms.first()?)?
            .iter()
            .map(|&t| &self.targets[t])
            .filter(|target| atoms.starts_with(&target.atoms))
            .max_by_key(|target| target.atoms.len())
            .map(|target| target.id.as_str())
    }

    /// Whether `name` starts with the family word of a target (`tuza_nu_le_3`: the family of
    /// `tuza_nu3`), and then holds a parameter.
    pub fn has_family(&self, name: &str) -> bool {
        let atoms = scheme::atoms(name);
        atoms
            .first()
            .is_some_and(|first| self.by_first.contains_key(&first.text) && !first.digits)
            && atoms.iter().any(|a| a.digits)
    }

    /// The target `text` names first (a title names its subject first), if any; of two
    /// starting at the same word, the longer.
    pub fn named_in(&self, text: &str) -> Option<&str> {
        let atoms: Vec<String> = scheme::atoms(text).into_iter().map(|a| a.text).collect();
        for (pos, atom) in atoms.iter().enumerate() {
            let found = self
                .by_first
                .get(atom)
                .into_iter()
                .flatten()
                .map(|&t| &self.targets[t])
                .filter(|target| {
                    atoms
                        .get(pos..pos + target.atoms.len())
                        .is_some_and(|window| window == target.atoms.as_slice())
                })
                .max_by_key(|target| target.atoms.len());
            if let Some(target) = found {
                return Some(&target.id);
            }
        }
        None
    }
}

/// Atoms a title may put between a target's family word and the rest of it ("Tuza's
/// conjecture ν = 4": `s`, `conjecture`).
const APART_WORDS: usize = 3;

impl Campaigns {
    /// The target `text` names with a few words between its family word and the rest of its
    /// name, on one line ("Tuza's conjecture ν = 4" names `tuza_nu4`; "Tuza's conjecture for
    /// ν ≤ 3" names no `tuza_nu3`, `le` being no word between): the words between hold no
    /// digit, so that a parameter is never skipped. The first such target of the first line
    /// that has one.
    pub fn named_apart_in(&self, text: &str) -> Option<&str> {
        for line in text.lines() {
            let atoms = scheme::atoms(line);
            for (pos, atom) in atoms.iter().enumerate() {
                let Some(targets) = self.by_first.get(&atom.text) else {
                    continue;
                };
                for &t in targets {
                    let target = &self.targets[t];
                    let rest = &target.atoms[1..];
                    if rest.is_empty() {
                        continue;
                    }
                    let found = (pos + 2..=pos + 1 + APART_WORDS).any(|start| {
                        atoms[pos + 1..start.min(atoms.len())]
                            .iter()
                            .all(|a| !a.digits && !RELATION_ATOMS.contains(&a.text.as_str()))
                            && atoms
                                .get(start..start + rest.len())
                                .is_some_and(|w| w.iter().map(|a| &a.text).eq(rest.iter()))
                    });
                    if found {
                        return Some(&target.id);
                    }
                }
            }
        }
        None
    }
}

/// Atoms that state a relation: a name holding one between a family word and a parameter is
/// a claim of its own, not the target's name written apart.
const RELATION_ATOMS: &[&str] = &["le", "ge", "lt", "gt", "eq", "ne"];

/// `tuza_nu4`, `tau_le_8`, `path_4`: a word and a parameter. A catalogue or contest id is no
/// campaign target, and neither is a bare symbol family (`k_4`) unless tracking.db fixed it.
fn is_family_with_parameter(id: &str, fixed: bool) -> bool {
    let atoms = scheme::atoms(id);
    let family_is_word = atoms.first().is_some_and(|a| {
        !a.digits && (fixed || (a.text.len() >= 3 && !NOT_FAMILIES.contains(&a.text.as_str())))
    });
    family_is_word && atoms.iter().any(|a| a.digits) && scheme::find(id, Mode::Name).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn campaigns() -> Campaigns {
        let named = [
            ("slot1", "tau_le_8"),
            ("slot2", "tau_le_8"),
            ("slot3", "tau_le_8"),
            ("slot4", "path_4"),
            ("slot5", "path_4"),
            ("slot6", "tuza_nu4"),
            ("slot7", "inline_cover"),
            ("slot8", "inline_cover"),
            ("slot9", "k_4"),
            ("slot10", "k_4"),
            ("slot11", "erdos_850"),
            ("slot12", "erdos_850"),
            ("slot13", "lemma_14"),
            ("slot14", "case_1"),
            ("slot15", "case_1"),
            // An input and its output: one submission.
            ("slot16", "independence_ge_2"),
            ("slot16", "independence_ge_2"),
            ("a.lean", "gap_5"),
            ("b.lean", "gap_5"),
            // A family of two letters is a symbol, not a word.
            ("slot17", "nu_2"),
            ("slot18", "nu_2"),
        ];
        Campaigns::new(
            named.iter().map(|(s, n)| (s.to_string(), n.to_string())),
            ["ft_p3".to_string()],
        )
    }

    #[test]
    fn targets_are_families_with_a_parameter() {
        let c = campaigns();
        for id in ["tau_le_8", "path_4", "ft_p3", "gap_5"] {
            assert!(c.is_target(id), "{id}");
        }
        // One submission, no parameter, a symbol family, a catalogue id: no target.
        for id in [
            "tuza_nu4",
            "inline_cover",
            "k_4",
            "erdos_850",
            "lemma_14",
            "case_1",
            "independence_ge_2",
            "nu_2",
        ] {
            assert!(!c.is_target(id), "{id}");
        }
    }

    #[test]
    fn a_comment_names_the_target_in_its_own_words() {
        let c = campaigns();
        assert_eq!(
            c.named_in("slot288: PATH_4 τ ≤ 8 - Inline Cover"),
            Some("path_4")
        );
        assert_eq!(c.named_in("τ ≤ 8 for cycle 4"), Some("tau_le_8"));
        assert_eq!(c.named_in("Final approach for path4"), Some("path_4"));
        assert_eq!(c.named_in("K4 with a pendant triangle"), None);
        assert_eq!(c.named_in("the ft p3 cubic character"), Some("ft_p3"));
        assert_eq!(c.named_in("tau le 9"), None);
    }

    #[test]
    fn a_title_names_a_target_with_words_between_its_family_and_parameter() {
        let named = [
            ("s1", "tuza_nu4"),
            ("s2", "tuza_nu4"),
            ("s3", "tuza_nu3"),
            ("s4", "tuza_nu3"),
        ];
        let c = Campaigns::new(
            named.iter().map(|(s, n)| (s.to_string(), n.to_string())),
            [],
        );
        assert_eq!(
            c.named_in("ADAPTIVE COVER for Tuza's conjecture ν = 4"),
            None
        );
        assert_eq!(
            c.named_apart_in("ADAPTIVE COVER for Tuza's conjecture ν = 4"),
            Some("tuza_nu4")
        );
        assert_eq!(
            c.named_apart_in("Tuza's Conjecture, case ν = 3"),
            Some("tuza_nu3")
        );
        // A relation or a number between: no target's name written apart. Too far apart, on
        // two lines: none either.
        assert_eq!(c.named_apart_in("Tuza's conjecture for ν ≤ 4"), None);
        assert_eq!(c.named_apart_in("Tuza 2 nu 4"), None);
        assert_eq!(
            c.named_apart_in("Tuza's bound, a very long way from nu 4"),
            None
        );
        assert_eq!(c.named_apart_in("Tuza's conjecture\nν = 4"), None);
    }
}
