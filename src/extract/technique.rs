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

/// Tactics that structure a whole proof when they are a top-level step.
const STRUCTURAL: &[&str] = &[
    "induction",
    "induction'",
    "interval_cases",
    "fin_cases",
    "by_contra",
    "by_contra!",
    "contrapose",
    "contrapose!",
];

/// Closing tactics that carry a proof by themselves.
const CARRIERS: &[&str] = &[
    "nlinarith",
    "linarith",
    "polyrith",
    "positivity",
    "omega",
    "norm_num",
    "linear_combination",
    "native_decide",
    "decide",
    "aesop",
    "grind",
    "field_simp",
    "ring",
    "ring_nf",
    "gcongr",
    "bound",
    "tauto",
    "calc",
];

/// Closing tactics whose technique is the lemma they apply.
const APPLYING: &[&str] = &[
    "exact",
    "apply",
    "refine",
    "refine'",
    "simpa",
    "exact_mod_cast",
    "convert",
    "rw",
    "rwa",
];

/// Lemmas that make a proof an induction.
fn is_induction_principle(name: &str) -> bool {
    let last = name.rsplit('.').next().unwrap_or(name);
    last.contains("induction") || last.starts_with("strong_rec") || last == "rec"
}

/// The technique that carries a proof, read from its spine (its top-level steps):
/// 1. a structuring step (`induction`, `interval_cases`, `by_contra`, …) or an induction
///    principle applied at top level (`Nat.strong_induction_on`);
/// 2. the closing step when it carries the proof by itself (`nlinarith`, `omega`, `calc`, …);
/// 3. the key lemma the closing step (or a term-mode proof) applies (`key lemma
///    Finset.card_le_card`);
/// 4. else the most used characteristic tactic anywhere ([`primary`] without the decisive
///    `decide`/`calc`, which nested inside a `have` prove a side fact, not the theorem).
///
/// Generic labels (simplification, rewriting, term-mode proof) come only from step 4.
pub fn of_proof(proof: &super::uses::Proof, tactics: &BTreeMap<String, usize>) -> Option<String> {
    for step in &proof.spine {
        if STRUCTURAL.contains(&step.head.as_str()) {
            return Some(technique_name(step.head.trim_end_matches('\'')));
        }
        if step.constant.as_deref().is_some_and(is_induction_principle) {
            return Some(technique_name("induction"));
        }
    }
    if let Some(last) = proof.spine.last() {
        if APPLYING.contains(&last.head.as_str()) {
            if let Some(lemma) = &last.constant {
                return Some(format!("key lemma {lemma}"));
            }
        }
        if CARRIERS.contains(&last.head.as_str()) {
            return Some(technique_name(&last.head));
        }
    }
    if let Some(lemma) = &proof.term_head {
        return Some(if is_induction_principle(lemma) {
            technique_name("induction")
        } else {
            format!("key lemma {lemma}")
        });
    }
    without_incidental(tactics)
}

/// The approach of an attempt whose proofs name no technique: never recommended.
pub const UNKNOWN_APPROACH: &str = "unknown approach";

/// [`primary`] without `decide`, `native_decide` and `calc`, which name a proof only as its
/// spine (nested, they prove side facts).
pub fn without_incidental(tactics: &BTreeMap<String, usize>) -> Option<String> {
    let mut nested = tactics.clone();
    for incidental in ["decide", "native_decide", "calc"] {
        nested.remove(incidental);
    }
    primary(&nested)
}

/// Whether a technique label says little about how a proof works (measured by the corpus
/// test; a label of [`of_proof`] is generic only when nothing better was found).
pub fn is_generic(label: &str) -> bool {
    matches!(
        label,
        "simplification"
            | "rewriting"
            | "term-mode proof"
            | "reflexivity (rfl)"
            | "exact"
            | "apply"
            | "cases"
            | "contradiction"
            | "unfolding definitions"
            | "case analysis"
            | "trivial"
            | "infer_instance"
            | "convert"
    )
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

    fn proof(steps: &[(&str, Option<&str>)]) -> super::super::uses::Proof {
        super::super::uses::Proof {
            spine: steps
                .iter()
                .map(|(h, c)| super::super::uses::Step {
                    head: h.to_string(),
                    constant: c.map(str::to_string),
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn the_spine_wins_over_an_incidental_decide_or_calc() {
        // `decide` proves a side fact inside a `have`; nlinarith closes the theorem.
        let t = counts(&[("have", 2), ("decide", 1), ("calc", 1), ("nlinarith", 1)]);
        let p = proof(&[("have", None), ("have", None), ("nlinarith", None)]);
        assert_eq!(
            of_proof(&p, &t).as_deref(),
            Some("nonlinear arithmetic (nlinarith)")
        );
        // With the old rule the nested decide named the proof.
        assert_eq!(primary(&t).as_deref(), Some("finite computation (decide)"));
    }

    #[test]
    fn structure_then_key_lemma_then_closer() {
        let t = counts(&[("induction", 1), ("simp", 3)]);
        let p = proof(&[("intro", None), ("induction", None)]);
        assert_eq!(of_proof(&p, &t).as_deref(), Some("induction"));
        let p = proof(&[("refine", Some("Nat.strong_induction_on"))]);
        assert_eq!(
            of_proof(&p, &counts(&[("refine", 1)])).as_deref(),
            Some("induction")
        );
        let p = proof(&[("have", None), ("exact", Some("Finset.card_le_card"))]);
        assert_eq!(
            of_proof(&p, &counts(&[("exact", 1), ("have", 1)])).as_deref(),
            Some("key lemma Finset.card_le_card")
        );
        let term = super::super::uses::Proof {
            term_head: Some("Nat.le_succ".into()),
            ..Default::default()
        };
        assert_eq!(
            of_proof(&term, &BTreeMap::new()).as_deref(),
            Some("key lemma Nat.le_succ")
        );
    }

    #[test]
    fn generic_labels_only_when_nothing_better_exists() {
        let p = proof(&[("simp", None), ("rfl", None)]);
        let label = of_proof(&p, &counts(&[("simp", 2), ("rfl", 1)])).unwrap();
        assert_eq!(label, "simplification");
        assert!(is_generic(&label));
        assert!(!is_generic("key lemma Finset.card_le_card"));
    }

    #[test]
    fn glue_alone_names_no_technique() {
        assert_eq!(primary(&counts(&[("have", 3), ("intro", 2)])), None);
        assert_eq!(primary(&BTreeMap::new()), None);
    }
}
