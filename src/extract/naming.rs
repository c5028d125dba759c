//! Slot number and problem id from a result file's name.
//!
//! The pipeline names files `slot614_erdos_850_prime_factor_triples_result.lean`,
//! `slot611_ft_p3_cubic_character_contradiction_result.lean`, `erdos128_finset_v3.lean`, …

use std::path::Path;

/// What a file name says about the submission it came from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileNaming {
    pub slot: Option<i64>,
    pub problem_id: Option<String>,
}

/// Words that decorate a result file's name without naming the problem.
const DECORATIONS: &[&str] = &["result", "results", "aristotle", "output", "extracted"];

/// Reads slot and problem id from the file's name (not its directories).
///
/// The problem id is the problem family and its number or variant: `erdos_850`, `ft_p3`,
/// `tuza_nu4`, `erdos_128` (from `erdos128`); failing that, the first three words of the name
/// as the spec's extractor did.
pub fn from_path(path: &Path) -> FileNaming {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let mut words: Vec<&str> = stem.split(['_', '-']).filter(|w| !w.is_empty()).collect();
    let mut slot = None;
    if let Some(first) = words.first() {
        if let Some(n) = slot_number(first) {
            slot = Some(n);
            words.remove(0);
        }
    }
    while words
        .last()
        .is_some_and(|w| DECORATIONS.contains(&w.to_ascii_lowercase().as_str()))
    {
        words.pop();
    }
    FileNaming {
        slot,
        problem_id: problem_id(&words),
    }
}

/// `slot614` → 614, `slot224c` → 224 (lettered variants of one slot).
fn slot_number(word: &str) -> Option<i64> {
    let rest = word
        .strip_prefix("slot")
        .or_else(|| word.strip_prefix("Slot"))?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    let tail = &rest[digits.len()..];
    if digits.is_empty() || !tail.chars().all(|c| c.is_ascii_alphabetic()) || tail.len() > 2 {
        return None;
    }
    digits.parse().ok()
}

fn problem_id(words: &[&str]) -> Option<String> {
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    let first = lower.first()?;
    // `erdos128` → `erdos_128`
    let letters: String = first
        .chars()
        .take_while(char::is_ascii_alphabetic)
        .collect();
    let digits = &first[letters.len()..];
    if !letters.is_empty() && !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()) {
        return Some(format!("{letters}_{digits}"));
    }
    if let Some(second) = lower.get(1) {
        let alphabetic_first = first.chars().all(|c| c.is_ascii_alphabetic());
        if alphabetic_first && second.chars().any(|c| c.is_ascii_digit()) {
            return Some(format!("{first}_{second}"));
        }
    }
    Some(lower.iter().take(3).cloned().collect::<Vec<_>>().join("_"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naming(name: &str) -> (Option<i64>, Option<String>) {
        let n = from_path(Path::new(name));
        (n.slot, n.problem_id)
    }

    #[test]
    fn slot_and_problem_from_result_names() {
        assert_eq!(
            naming("sub/slot614_erdos_850_prime_factor_triples_result.lean"),
            (Some(614), Some("erdos_850".into()))
        );
        assert_eq!(
            naming("slot611_ft_p3_cubic_character_contradiction_result.lean"),
            (Some(611), Some("ft_p3".into()))
        );
        assert_eq!(
            naming("slot17_tuza_nu4.lean"),
            (Some(17), Some("tuza_nu4".into()))
        );
        assert_eq!(
            naming("slot224c_different_edges.lean"),
            (Some(224), Some("different_edges".into()))
        );
        assert_eq!(
            naming("erdos128_finset_v3.lean"),
            (None, Some("erdos_128".into()))
        );
        assert_eq!(
            naming("erdos_1059_erdos_1059.lean"),
            (None, Some("erdos_1059".into()))
        );
    }

    #[test]
    fn names_without_slot_or_problem() {
        assert_eq!(naming("slot667_result.lean"), (Some(667), None));
        assert_eq!(naming("Main.lean"), (None, Some("main".into())));
        assert_eq!(
            naming("leinster_cyclic_perfect_group.lean"),
            (None, Some("leinster_cyclic_perfect".into()))
        );
        assert_eq!(
            naming("slotted_thing.lean"),
            (None, Some("slotted_thing".into()))
        );
    }
}
