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

/// Tactics that apply a lemma to the main goal and leave its hypotheses as goals.
const APPLYING_TO_GOAL: &[&str] = &["apply", "refine", "refine'", "convert", "convert_to"];

/// Steps that only close goals left over by an applied lemma (side conditions).
const LEFTOVER_CLOSERS: &[&str] = &[
    "aesop",
    "omega",
    "norm_num",
    "simp",
    "simp_all",
    "simpa",
    "linarith",
    "nlinarith",
    "positivity",
    "exact",
    "exacts",
    "assumption",
    "rfl",
    "decide",
    "native_decide",
    "ring",
    "ring_nf",
    "field_simp",
    "tauto",
    "trivial",
    "norm_cast",
    "exact_mod_cast",
    "push_cast",
    "gcongr",
    "bound",
    "grind",
    "contradiction",
    "·",
    ".",
    "all_goals",
    "any_goals",
    "case",
    "next",
    "try",
];

/// Tactics that, nested only (inside a `have`, a bullet, a term-level `by`), never name a
/// proof: as top-level steps they are read from the spine.
const SPINE_ONLY: &[&str] = &[
    "decide",
    "native_decide",
    "calc",
    "induction",
    "interval_cases",
    "fin_cases",
];

/// The technique that carries a proof, read from its spine (its top-level steps; `t <;> rest`
/// is `t`):
/// 1. a structuring step (`induction`, `interval_cases`, `by_contra`, …), a case split of the
///    main goal (`rcases h with rfl | rfl`, `obtain h | h := …`, `by_cases`/`split_ifs`/`split`
///    followed by bullets or `<;>`: `case analysis`) or an induction principle applied at top
///    level (`Nat.strong_induction_on`);
/// 2. the lemma applied to the main goal (`apply`/`refine`/`convert LEMMA …`) when the later
///    steps only close its leftover goals (`aesop`, `omega`, bullets, …); applying a top-level
///    `have NAME … := by …` so (`convert h_main using 2`) gives that `have`'s technique;
/// 3. the key lemma the closing step (or a term-mode proof) applies: the head of the applied
///    term (`key lemma Finset.card_le_card`; a theorem, lemma or axiom of the same file
///    included, never a `def`/`structure`/`instance`, never a glue combinator such as
///    `le_trans`, whose first applied-lemma argument is the head instead, and for `⟨…⟩` the
///    head of its only part that applies a lemma); a `have NAME … := by …` of the spine that
///    the closing step applies gives its own technique; `rw [LEMMA] at h` applies nothing to
///    the goal;
/// 4. the closing step when it carries the proof by itself (`nlinarith`, `omega`, `calc`, …);
/// 5. an explicit witness (`use w`, `exact ⟨w, …⟩` for an `∃` statement): `explicit witness
///    (use)`;
/// 6. else [`fallback`]: the most used characteristic tactic of the top-level block (else of
///    the nested ones), without those that name a proof only as spine steps; `exact` only when
///    it is the proof's only tactic.
///
/// Generic labels (simplification, rewriting, term-mode proof) come from steps 1 (a case split)
/// and 6 only.
pub fn of_proof(proof: &super::uses::Proof, tactics: &BTreeMap<String, usize>) -> Option<String> {
    label(proof, tactics, 0)
}

/// The technique of a declaration: [`of_proof`] when its proof was read, else [`primary`] of
/// its tactic counts.
pub fn of_declaration(
    proof: Option<&super::uses::Proof>,
    tactics: &BTreeMap<String, usize>,
) -> Option<String> {
    match proof {
        Some(p) => of_proof(p, tactics),
        None => primary(tactics),
    }
}

fn label(
    proof: &super::uses::Proof,
    tactics: &BTreeMap<String, usize>,
    depth: usize,
) -> Option<String> {
    let key = |lemma: &str| {
        if is_induction_principle(lemma) {
            technique_name("induction")
        } else {
            format!("key lemma {lemma}")
        }
    };
    for step in &proof.spine {
        if STRUCTURAL.contains(&step.head.as_str()) {
            return Some(technique_name(step.head.trim_end_matches('\'')));
        }
        if step.splits {
            return Some("case analysis".to_string());
        }
        if step.constant.as_deref().is_some_and(is_induction_principle) {
            return Some(technique_name("induction"));
        }
    }
    for (i, step) in proof.spine.iter().enumerate() {
        let rest = &proof.spine[i + 1..];
        if APPLYING_TO_GOAL.contains(&step.head.as_str())
            && !rest.is_empty()
            && rest
                .iter()
                .all(|s| LEFTOVER_CLOSERS.contains(&s.head.as_str()))
        {
            if let Some(lemma) = &step.constant {
                return Some(key(lemma));
            }
            if let Some(l) = have_label(&proof.spine[..i], step, depth) {
                return Some(l);
            }
        }
    }
    if let Some((last, before)) = proof.spine.split_last() {
        if APPLYING.contains(&last.head.as_str()) {
            if let Some(lemma) = &last.constant {
                return Some(key(lemma));
            }
            if let Some(l) = have_label(before, last, depth) {
                return Some(l);
            }
        }
        if CARRIERS.contains(&last.head.as_str()) {
            return Some(technique_name(&last.head));
        }
    }
    if let Some(lemma) = &proof.term_head {
        return Some(key(lemma));
    }
    if proof.spine.iter().any(|s| s.witness) {
        return Some(technique_name("use"));
    }
    fallback(proof, tactics)
}

/// The technique of the `have` of `before` (the steps before `step`) whose name `step`
/// applies (`exact h_main`, `convert h_main using 2`), when it is informative.
fn have_label(
    before: &[super::uses::Step],
    step: &super::uses::Step,
    depth: usize,
) -> Option<String> {
    let local = step.local.as_deref()?;
    let have = before
        .iter()
        .rev()
        .find(|s| s.binds.as_deref() == Some(local))?;
    let inner = have.proof.as_deref()?;
    if depth >= 4 {
        return None;
    }
    label(inner, &inner.tactics, depth + 1).filter(|l| !is_generic(l))
}

/// The most used characteristic tactic of a proof's own block (its top-level steps, bullets
/// included), else of the whole proof (nested `have … := by …` and argument `by`s included),
/// primes dropped (`induction'` is `induction`), without the tactics that name a proof only as
/// spine steps ([`SPINE_ONLY`]) and those in term-level `by`s of its closing step; `exact` only
/// when the proof uses no other tactic. A generic label used once yields to the first lemma of
/// a top-level `rw [LEMMA]`/`apply LEMMA` (one that rewrites the goal, not `at h`).
pub fn fallback(proof: &super::uses::Proof, tactics: &BTreeMap<String, usize>) -> Option<String> {
    let only_exact = tactics.keys().all(|t| t == "exact");
    let best = most_used(&proof.top_tactics, proof, only_exact)
        .or_else(|| most_used(tactics, proof, only_exact));
    let label = best.as_ref().map(|(_, t)| technique_name(t));
    if best.as_ref().is_none_or(|(n, _)| *n <= 1) && label.as_deref().is_none_or(is_generic) {
        let lemma = proof.spine.iter().find_map(|s| {
            matches!(s.head.as_str(), "rw" | "rewrite" | "rwa" | "apply")
                .then_some(s.constant.as_ref())
                .flatten()
        });
        if let Some(lemma) = lemma {
            return Some(format!("key lemma {lemma}"));
        }
    }
    label
}

/// The most used characteristic tactic among `tactics` and how often it is used (see
/// [`fallback`]).
fn most_used(
    tactics: &BTreeMap<String, usize>,
    proof: &super::uses::Proof,
    only_exact: bool,
) -> Option<(usize, String)> {
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (t, n) in tactics {
        let base = t.trim_end_matches('\'');
        if !SPINE_ONLY.contains(&base) {
            *counts.entry(base.to_string()).or_insert(0) += n;
        }
    }
    for (t, n) in &proof.side_tactics {
        if let Some(c) = counts.get_mut(t.trim_end_matches('\'')) {
            *c = c.saturating_sub(*n);
        }
    }
    counts.retain(|t, n| *n > 0 && CHARACTERISTIC.contains(&t.as_str()));
    if !only_exact {
        counts.remove("exact");
    }
    counts
        .iter()
        .map(|(t, n)| (*n, t.as_str()))
        .max_by(|a, b| a.0.cmp(&b.0).then_with(|| rank(b.1).cmp(&rank(a.1))))
        .map(|(n, t)| (n, t.to_string()))
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
                    ..Default::default()
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

    /// The technique of the last declaration of a hand-written file.
    fn label_of(src: &str) -> Option<String> {
        let file = crate::lean::ParsedFile::parse(src.to_string());
        let outline = crate::lean::Outline::of("t.lean", &file);
        let proofs = super::super::uses::proofs(&file, &outline);
        let last = outline.declarations.len() - 1;
        of_proof(&proofs[last], &outline.declarations[last].tactics)
    }

    #[test]
    fn the_key_lemma_is_the_head_of_the_applied_term() {
        // A type in an ascription, a lemma inside an argument, an anonymous constructor's part,
        // a `|>.1` argument, a `fun` body: none is the key lemma.
        let label = label_of(
            "theorem t (h : 227 ∣ n) : P n := by\n  \
             apply sierpinski_general_modular_reduction (by norm_num : Nat.Prime 227) h\n",
        );
        assert_eq!(
            label.as_deref(),
            Some("key lemma sierpinski_general_modular_reduction")
        );
        let label = label_of(
            "theorem t (n : ℕ) (h : n ≠ 0) : P n := by\n  \
             exact sierpinski_mul_solvable (Nat.pos_of_ne_zero (by aesop)) h\n",
        );
        assert_eq!(label.as_deref(), Some("key lemma sierpinski_mul_solvable"));
        let label = label_of(
            "theorem t (q : ℕ) (hq : Q q) : P q := by\n  \
             exact fibRank_dvd_iff q hq |>.1 (Nat.dvd_trans (dvd_refl _) hq.2)\n",
        );
        assert_eq!(label.as_deref(), Some("key lemma fibRank_dvd_iff"));
        let label = label_of(
            "theorem t (q r : ℕ) (hq : A ∧ B) (hr₃ : r ≠ q) : ∃ q r, A ∧ q ≠ r := by\n  \
             exact ⟨q, r, hq.1, Ne.symm hr₃⟩\n",
        );
        assert_ne!(label.as_deref(), Some("key lemma Ne.symm"));
        let label = label_of(
            "theorem t (k : ℕ) (hk0 : 0 < k) (h_lifting : 0 < k → (∀ m, m ∣ k) → P) : P := by\n  \
             exact h_lifting hk0 fun h => mul_dvd_mul_left _ h\n",
        );
        assert_ne!(label.as_deref(), Some("key lemma mul_dvd_mul_left"));
        let label = label_of(
            "theorem t (h : s.card = 1) : ∃ a, s = {a} := by\n  exact @Finset.card_eq_one.mp h\n",
        );
        assert_eq!(label.as_deref(), Some("key lemma Finset.card_eq_one"));
    }

    #[test]
    fn a_same_file_lemma_or_a_top_level_have_carries_the_proof() {
        let label = label_of(
            "lemma aux (n : ℕ) : n ≤ n + 1 := Nat.le_succ n\n\n\
             theorem main (n : ℕ) : n ≤ n + 1 := by\n  exact aux n\n",
        );
        assert_eq!(label.as_deref(), Some("key lemma aux"));
        // Aristotle's `have h_main …; exact h_main`: the `have`'s own technique.
        let label = label_of(
            "theorem t (x : ℝ) (hx : 0 < x) : 0 ≤ x ^ 2 + x := by\n  \
             have h_main : 0 ≤ x ^ 2 + x := by\n    \
             have h1 : 0 ≤ x := hx.le\n    \
             nlinarith [sq_nonneg x]\n  \
             exact h_main\n",
        );
        assert_eq!(label.as_deref(), Some("nonlinear arithmetic (nlinarith)"));
        let label = label_of(
            "theorem t (n : ℕ) : P n := by\n  \
             have h_main : ∀ m, P m := by\n    \
             intro m\n    \
             induction m with\n    \
             | zero => simp\n    \
             | succ k ih => simp [ih]\n  \
             simpa using h_main n\n",
        );
        assert_eq!(label.as_deref(), Some("induction"));
    }

    #[test]
    fn a_real_case_split_on_the_main_goal_structures_the_proof() {
        let label = label_of(
            "theorem t (h : n = 1 ∨ n = 2) : n < 3 := by\n  \
             rcases h with rfl | rfl\n  \
             · norm_num\n  \
             · norm_num\n",
        );
        assert_eq!(label.as_deref(), Some("case analysis"));
        let label = label_of(
            "theorem t (h : A ∨ B) : C := by\n  \
             obtain ha | hb := h\n  \
             all_goals aesop\n",
        );
        assert_eq!(label.as_deref(), Some("case analysis"));
        let label = label_of(
            "theorem t (h : A ∨ B) : C := by\n  \
             cases' h with ha hb\n  \
             · exact foo_bar ha\n  \
             · exact foo_baz hb\n",
        );
        assert_eq!(label.as_deref(), Some("case analysis"));
        // Destructuring is no split.
        let label = label_of(
            "theorem t (h : ∃ x, 0 < x) : Q := by\n  \
             obtain ⟨x, hx⟩ := h\n  \
             exact foo_of_pos hx\n",
        );
        assert_eq!(label.as_deref(), Some("key lemma foo_of_pos"));
        // `t <;> rest` is `t`.
        let label = label_of(
            "theorem t (q : ℕ) (h : q % 9 < 9) : P q := by\n  \
             interval_cases q % 9 <;> norm_num\n",
        );
        assert_eq!(label.as_deref(), Some("interval case analysis"));
    }

    #[test]
    fn nested_structural_tactics_and_primes_in_the_fallback() {
        // The induction proves a side fact inside a `have`; simp is what the proof does.
        let label = label_of(
            "theorem t (n : ℕ) (h : Q n) : P n := by\n  \
             have h1 : ∀ m, R m := by\n    \
             intro m\n    \
             induction' m with k ih\n    \
             · rfl\n    \
             · assumption\n  \
             simp at h\n  \
             simp [h1]\n  \
             constructor\n",
        );
        assert_eq!(label.as_deref(), Some("simplification"));
        let t = counts(&[("cases'", 2), ("simp", 1)]);
        assert_eq!(fallback(&Default::default(), &t).as_deref(), Some("cases"));
    }

    #[test]
    fn a_side_goal_closer_is_not_the_carrier() {
        let label = label_of(
            "theorem t (n : ℕ) (h : 5 ≤ n) : P n := by\n  \
             convert foo_general n (n - 5) using 2\n  \
             · aesop\n  \
             · omega\n",
        );
        assert_eq!(label.as_deref(), Some("key lemma foo_general"));
        let label = label_of(
            "theorem t (n : ℕ) (h : 5 ≤ n) : P n := by\n  \
             refine bar_lemma ?_ ?_\n  \
             norm_num\n  \
             omega\n",
        );
        assert_eq!(label.as_deref(), Some("key lemma bar_lemma"));
        let label = label_of(
            "theorem t (n : ℕ) (h : 5 ≤ n) (hp : Q (n - 5)) : ∃ m : {k // k + 5 = n}, Q m.1 := by\n  \
             exact ⟨⟨n - 5, by omega⟩, hp⟩\n",
        );
        assert_ne!(label.as_deref(), Some("linear arithmetic (omega)"));
    }

    #[test]
    fn a_rewrite_lemma_beats_a_generic_tie_and_exact_never_wins_over_another_label() {
        let label = label_of(
            "theorem t (a b : ℕ) (h : P (b + a)) : P (a + b) := by\n  \
             simp only [foo] at h\n  \
             rw [Nat.add_comm]\n  \
             exact h\n",
        );
        assert_eq!(label.as_deref(), Some("key lemma Nat.add_comm"));
        let t = counts(&[("exact", 3), ("simp", 1), ("intro", 2)]);
        assert_eq!(
            fallback(&Default::default(), &t).as_deref(),
            Some("simplification")
        );
        // `exact` names a proof only when it is the proof's only tactic.
        let t = counts(&[("exact", 3), ("intro", 2)]);
        assert_eq!(fallback(&Default::default(), &t), None);
        let t = counts(&[("exact", 1)]);
        assert_eq!(fallback(&Default::default(), &t).as_deref(), Some("exact"));
    }

    #[test]
    fn a_definition_or_a_hypothesis_rewrite_is_no_key_lemma() {
        // Item: a same-file `def` unfolded by `rw … at hp` while a local closes the proof.
        let label = label_of(
            "def Primes3Mod4_below (n : ℕ) : Finset ℕ := (Finset.range n).filter (fun p => p ∈ S)\n\n\
             lemma Primes3Mod4_below_subset {n : ℕ} : ∀ p ∈ Primes3Mod4_below n, p ∈ S := by\n  \
             intro p hp\n  \
             rw [Primes3Mod4_below, Finset.mem_filter] at hp\n  \
             exact hp.2\n",
        );
        assert!(
            label.as_deref().is_none_or(|l| !l.starts_with("key lemma")),
            "{label:?}"
        );
        // A `def` applied by the closing step is no key lemma either; a rewrite of the goal
        // by a lemma still is.
        let label = label_of(
            "def good_set (n : ℕ) : Prop := n > 0\n\n\
             theorem t (n : ℕ) (h : 0 < n) : good_set n := by\n  \
             unfold good_set\n  \
             exact good_set h\n",
        );
        assert_ne!(label.as_deref(), Some("key lemma good_set"));
        let label = label_of(
            "theorem t (a b : ℕ) (h : P (b + a)) : P (a + b) := by\n  \
             rw [Nat.add_comm] at h ⊢\n  \
             exact h\n",
        );
        assert_eq!(label.as_deref(), Some("key lemma Nat.add_comm"));
    }

    #[test]
    fn by_cases_split_ifs_and_split_are_case_splits_on_the_main_goal() {
        for src in [
            "theorem t (p : ℕ) : Q p := by\n  by_cases h : Squarefree p <;> simp_all\n",
            "theorem t (a : ℕ) : Q a := by\n  \
             by_cases ha_even : Even a;\n  \
             · simp [ha_even]\n  \
             · simp [ha_even]\n",
            "theorem t (a : ℕ) : Q (if a = 0 then 1 else a) := by\n  \
             split_ifs with h\n  \
             · simp\n  \
             · simp [h]\n",
            "theorem t (a : ℕ) : Q (match a with | 0 => 1 | _ => a) := by\n  split <;> simp\n",
            "theorem t : ∀ n : ℕ, n % 2 = 0 ∨ n % 2 = 1 → Q n := by\n  \
             intro n hn\n  \
             rcases hn with h | h\n  \
             · simp [h]\n  \
             · simp [h]\n",
            "theorem t : ∀ n : ℕ, n % 2 = 0 ∨ n % 2 = 1 → Q n := by\n  \
             intro n hn; obtain h | h := hn <;> simp [h]\n",
        ] {
            assert_eq!(label_of(src).as_deref(), Some("case analysis"), "{src}");
        }
    }

    #[test]
    fn a_constructor_with_one_lemma_part_or_a_witness_names_the_proof() {
        let label = label_of(
            "theorem t (T : ℕ) (h : ∃ m, A m ∧ B m) : ∃ m, A m ∧ C T m := by\n  \
             obtain ⟨m, hm, hm_inter⟩ := h; exact ⟨m, hm, mem_inter_of_foo T m |>.mpr hm_inter⟩\n",
        );
        assert_eq!(label.as_deref(), Some("key lemma mem_inter_of_foo"));
        // No lemma among the parts: the witness names it, never "exact".
        let label = label_of(
            "theorem t (h : ∃ m, A m ∧ B m) : ∃ m, B m := by\n  \
             obtain ⟨m, hm, hb⟩ := h\n  \
             exact ⟨m, hb⟩\n",
        );
        assert_eq!(label.as_deref(), Some("explicit witness (use)"));
        let label = label_of("theorem t : ∃ n : ℕ, n = n := by\n  use 3\n");
        assert_eq!(label.as_deref(), Some("explicit witness (use)"));
        // Two lemma parts: none is the key lemma.
        let label = label_of(
            "theorem t (h : A) : B ∧ C := by\n  \
             intro x\n  \
             exact ⟨foo_left h, foo_right h⟩\n",
        );
        assert_ne!(label.as_deref(), Some("key lemma foo_left"));
        assert_ne!(label.as_deref(), Some("exact"));
    }

    #[test]
    fn glue_combinators_are_no_key_lemma() {
        let label = label_of(
            "theorem t (h : A ⊆ B) (hB : B.card ≤ 3) : A.card ≤ 3 := by\n  \
             exact le_trans (Finset.card_le_card h) hB\n",
        );
        assert_eq!(label.as_deref(), Some("key lemma Finset.card_le_card"));
        let label = label_of("theorem t (x : ℕ) (h : x = 2) : 2 = x := by\n  exact Eq.symm h\n");
        assert_ne!(label.as_deref(), Some("key lemma Eq.symm"));
        let label =
            label_of("theorem t (x : ℕ) (h : 0 < x) : 0 < x ∨ x = 0 := by\n  exact Or.inl h\n");
        assert_ne!(label.as_deref(), Some("key lemma Or.inl"));
        // `h ▸ e` casts `e`: its head is `e`'s.
        let label = label_of(
            "theorem t (a b : ℕ) (h : g = Nat.gcd a b) : d ∣ g := by\n  \
             have h_gcd_odd : Odd 3 := by\n    \
             norm_num\n  \
             exact h ▸ Nat.dvd_gcd (dvd_a d) (dvd_b d)\n",
        );
        assert_eq!(label.as_deref(), Some("key lemma Nat.dvd_gcd"));
    }

    #[test]
    fn applying_a_top_level_have_takes_its_technique() {
        for closing in [
            "convert h_main using 2",
            "refine h_main _ ?_",
            "apply h_main",
        ] {
            let src = format!(
                "theorem t (x : ℝ) (hx : 0 < x) : 0 ≤ x ^ 2 + x := by\n  \
                 have h_main : ∀ y : ℝ, 0 < y → 0 ≤ y ^ 2 + y := by\n    \
                 intro y hy\n    \
                 nlinarith [sq_nonneg y]\n  \
                 {closing}\n  \
                 · simp\n  \
                 · exact hx\n"
            );
            assert_eq!(
                label_of(&src).as_deref(),
                Some("nonlinear arithmetic (nlinarith)"),
                "{closing}"
            );
        }
    }

    #[test]
    fn top_level_tactics_win_the_fallback_over_nested_ones() {
        let label = label_of(
            "theorem t (a b : ℕ) (h : Q a b) : P a b := by\n  \
             have h1 : R a := by\n    \
             norm_num\n    \
             norm_num\n  \
             simp at h\n  \
             constructor\n  \
             · exact h1\n  \
             · exact h.2\n",
        );
        assert_eq!(label.as_deref(), Some("simplification"));
        // Nothing characteristic at top level: the nested tactics decide.
        let label = label_of(
            "theorem t (a b : ℕ) (h : Q a b) : P a b := by\n  \
             have h1 : R a := by\n    \
             norm_num\n  \
             constructor\n  \
             · exact h1\n  \
             · exact h.2\n",
        );
        assert_eq!(label.as_deref(), Some("numerical normalization"));
    }
}
