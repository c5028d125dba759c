//! Which technique a proof used, read from the tactics it actually runs.

use std::collections::BTreeMap;

/// Tactics that characterize a proof outright when present, most specific first.
const DECISIVE: &[&str] = &[
    "native_decide",
    "decide",
    "induction",
    "calc",
    "interval_cases",
    "fin_cases",
];

/// Tactics that can name a technique by being the most used; generic glue such as `have`,
/// `intro` or `constructor` says nothing about how a proof works.
const CHARACTERISTIC: &[&str] = &[
    "native_decide",
    "decide",
    "omega",
    "simp",
    "ring",
    "norm_num",
    "induction",
    "cases",
    "contradiction",
    "exact",
    "apply",
    "calc",
    "interval_cases",
    "field_simp",
    "zify",
    "push_cast",
    "nlinarith",
    "linarith",
    "positivity",
    "aesop",
    "grind",
    "gcongr",
    "polyrith",
    "fin_cases",
    "bound",
    "ring_nf",
    "simp_all",
    "tauto",
    "simpa",
    "rw",
    "rwa",
    "simp_rw",
    "nth_rewrite",
    "nth_rw",
    "erw",
    "rfl",
    "by_contra",
    "by_contra!",
    "contrapose",
    "contrapose!",
    "use",
    "ext",
    "funext",
    "norm_cast",
    "exact_mod_cast",
    "split_ifs",
    "by_cases",
    "unfold",
    "trivial",
    "infer_instance",
    "fun_prop",
    "continuity",
    "measurability",
    "exact?",
    "apply?",
    "convert",
    "linear_combination",
    "aesop_cat",
];

/// The name a technique is stored under.
fn technique_name(tactic: &str) -> String {
    match tactic {
        "native_decide" => "finite computation (native_decide)",
        "decide" => "finite computation (decide)",
        "omega" => "linear arithmetic (omega)",
        "linarith" => "linear arithmetic (linarith)",
        "nlinarith" => "nonlinear arithmetic (nlinarith)",
        "polyrith" => "polynomial arithmetic (polyrith)",
        "norm_num" => "numerical normalization",
        "ring" | "ring_nf" => "ring tactic",
        "induction" => "induction",
        "interval_cases" => "interval case analysis",
        "fin_cases" => "finite case analysis",
        "field_simp" => "field simplification",
        "calc" => "calculational proof",
        "aesop" | "aesop_cat" => "automated search (aesop)",
        "exact?" | "apply?" => "library search (exact?)",
        "linear_combination" => "linear combination",
        "grind" => "automated reasoning (grind)",
        "simp" | "simp_all" | "simpa" => "simplification",
        "rw" | "rwa" | "simp_rw" | "nth_rewrite" | "nth_rw" | "erw" => "rewriting",
        "rfl" => "reflexivity (rfl)",
        "by_contra" | "by_contra!" | "contrapose" | "contrapose!" => "proof by contradiction",
        "use" => "explicit witness (use)",
        "ext" | "funext" => "extensionality",
        "norm_cast" | "exact_mod_cast" | "push_cast" | "zify" => "cast normalization",
        "split_ifs" | "by_cases" => "case analysis",
        "unfold" => "unfolding definitions",
        "fun_prop" | "continuity" | "measurability" => "automated side conditions",
        other => other,
    }
    .to_string()
}

/// The primary technique of a proof given its tactic counts, as the spec's extractor decided
/// it (decisive tactics first, else the most used characteristic one), but from real tactic
/// steps rather than words anywhere in the file.
pub fn primary(tactics: &BTreeMap<String, usize>) -> Option<String> {
    if let Some(t) = DECISIVE.iter().find(|t| tactics.contains_key(**t)) {
        return Some(technique_name(t));
    }
    CHARACTERISTIC
        .iter()
        .filter_map(|t| tactics.get(*t).map(|n| (*n, *t)))
        // Highest count wins; on a tie the earlier entry of CHARACTERISTIC (reverse for max_by).
        .max_by(|a, b| a.0.cmp(&b.0).then_with(|| rank(b.1).cmp(&rank(a.1))))
        .map(|(_, t)| technique_name(t))
}

fn rank(tactic: &str) -> usize {
    CHARACTERISTIC
        .iter()
        .position(|t| *t == tactic)
        .unwrap_or(usize::MAX)
}

/// Adds `other`'s counts into `into`.
pub fn merge(into: &mut BTreeMap<String, usize>, other: &BTreeMap<String, usize>) {
    for (t, n) in other {
        *into.entry(t.clone()).or_insert(0) += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
        pairs.iter().map(|(t, n)| (t.to_string(), *n)).collect()
    }

    #[test]
    fn decisive_tactics_win_over_frequency() {
        let t = counts(&[("simp", 10), ("induction", 1)]);
        assert_eq!(primary(&t).as_deref(), Some("induction"));
    }

    #[test]
    fn otherwise_the_most_used_characteristic_tactic() {
        let t = counts(&[("have", 20), ("nlinarith", 3), ("simp", 2)]);
        assert_eq!(
            primary(&t).as_deref(),
            Some("nonlinear arithmetic (nlinarith)")
        );
        let tie = counts(&[("omega", 2), ("simp", 2)]);
        assert_eq!(primary(&tie).as_deref(), Some("linear arithmetic (omega)"));
    }

    #[test]
    fn rewriting_and_closing_tactics_name_techniques() {
        let t = counts(&[("have", 2), ("simpa", 1)]);
        assert_eq!(primary(&t).as_deref(), Some("simplification"));
        let t = counts(&[("rw", 3), ("exact", 1)]);
        assert_eq!(primary(&t).as_deref(), Some("rewriting"));
        assert_eq!(
            primary(&counts(&[("rfl", 1)])).as_deref(),
            Some("reflexivity (rfl)")
        );
    }

    #[test]
    fn glue_alone_names_no_technique() {
        assert_eq!(primary(&counts(&[("have", 3), ("intro", 2)])), None);
        assert_eq!(primary(&BTreeMap::new()), None);
    }
}
