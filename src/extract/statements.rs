//! What a file states of its problem: the main statement, the variants beside it, and what a
//! catalogue says of each in the literature; and which of its proofs only check finitely many
//! cases of a statement.
//!
//! - **Main statement.** An input's is the theorem it asks ([`super::findings`]' target); when
//!   that is a variant, the theorem it is a variant of, if the file states it; when the file
//!   also states the problem's own theorem (a catalogue attribute marks it, or it is named
//!   after the problem), that one, and what it asks is a variant of it. Any other file
//!   names its main statement by its own words: the theorem its leading comment names
//!   (`Erdős Problem #1004: erdos_1004`), a theorem a catalogue attribute marks as a research
//!   problem (`@[category research open]`), else the theorem named after the problem in any
//!   spelling (`Imo2025P4` or `imo2025_p4` for `imo_2025_p4`, compared through
//!   [`crate::problem::named_after_problem`]; one the project's own declaration command makes
//!   first, and such a typed declaration counts whatever its proof's shape), else the first
//!   theorem a project's own command declares (compfiles' `problem singapore2019_r1_p2`: the
//!   project marks its statements so; an answer it asks, `determine solution : ℕ`, is data
//!   and never one), else the theorem named as the file is (a
//!   benchmark's `imo1959_p1_numbertheory` in `imo1959_p1_numbertheory.lean`), else a theorem
//!   the file calls `main`. Weakest of all, a sketch that asks nothing (an input without a
//!   hole) states the theorem it would ask, unless that checks finitely many cases; the
//!   knowledge base takes that only for a problem the users' sketches name, and only when every
//!   such sketch states the same theorem. A declaration the file itself disproves is never a
//!   statement of the problem.
//! - **Variants.** A theorem with a `variants` component in its name (`erdos_1.variants.weak`),
//!   or whose name extends the main theorem's (`erdos_1.parts.i` beside `erdos_1`), or a case
//!   of the problem (its name is the problem's id followed by another known problem's,
//!   `tau_le_8_path4` of `tau_le_8` where `path_4` is known; see
//!   [`crate::problem::Context::states_case_of`]), asked or not, is a variant: listed under
//!   the problem with its own status, never its statement.
//! - **Literature status.** `@[category research open]` says `open`, `research solved` (and
//!   `research formally solved …`) says `solved`: the catalogue's word, stored apart from ours.

use crate::kb::StatementRecord;
use crate::lean::{Declaration, Outline};

use super::verdict::{Verdict, VerdictKind};

/// Evidence ranks of a main statement ([`StatementRecord::rank`]).
const ASKED: i64 = 0;
const NAMED_BY_FILE: i64 = 1;
const NAMED_AFTER_PROBLEM: i64 = 2;
/// The main theorem of a sketch that asks nothing, or of an output: taken only when every
/// file of this rank agrees.
const SKETCH_MAIN: i64 = crate::kb::SKETCH_MAIN;

/// Names by which a file calls a theorem its main one.
const MAIN_NAMES: &[&str] = &["main", "maintheorem", "mainresult"];

/// Tactics that settle a statement by deciding finitely many cases.
const CASE_CHECKS: &[&str] = &[
    "decide",
    "native_decide",
    "bv_decide",
    "interval_cases",
    "fin_cases",
];

/// Words by which a file calls what it states an open question.
const OPEN_WORDS: &[&str] = &[
    "open conjecture",
    "open problem",
    "open question",
    "remains open",
    "still open",
    "unsolved",
    "status: open",
];

fn display_name(d: &Declaration) -> &str {
    if d.full_name.is_empty() {
        &d.name
    } else {
        &d.full_name
    }
}

fn is_claim(d: &Declaration) -> bool {
    d.is_theorem_like()
}

/// A named, typed declaration of a command the project defines (`problem p : P := …`).
fn project_declared(d: &Declaration) -> bool {
    d.user_command && d.typed && !d.name.is_empty()
}

/// A `.variants.` declaration: a variant of a problem stated next to the problem itself.
pub fn is_variant(d: &Declaration) -> bool {
    display_name(d)
        .split('.')
        .any(|part| part == "variants" || part == "variant")
}

/// What a catalogue attribute of `d` says of it in the literature: `open` or `solved`.
pub fn literature_status(d: &Declaration) -> Option<&'static str> {
    d.attributes.iter().find_map(|a| {
        let words: Vec<&str> = a.split_whitespace().collect();
        match words.as_slice() {
            ["category", "research", "open", ..] => Some("open"),
            ["category", "research", rest @ ..] if rest.contains(&"solved") => Some("solved"),
            _ => None,
        }
    })
}

/// Whether the file's comments call what it states open (`This is an open conjecture`).
pub fn calls_itself_open(outline: &Outline, text: &str) -> bool {
    outline.comments.iter().any(|c| {
        text.get(c.span.clone())
            .is_some_and(|t| open_words().is_match(t))
    })
}

/// [`OPEN_WORDS`] in any case, found without lowercasing the text: the words are ASCII, and
/// the only chars outside ASCII whose lowercase holds an ASCII char are the Kelvin sign (`k`,
/// in no word) and `İ` (`i` and a combining dot; no word ends in `i`), so an
/// ASCII-case-insensitive match is exactly a match in the lowercased text (a test checks
/// every char).
fn open_words() -> &'static aho_corasick::AhoCorasick {
    static WORDS: std::sync::OnceLock<aho_corasick::AhoCorasick> = std::sync::OnceLock::new();
    WORDS.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(OPEN_WORDS)
            .expect("fixed patterns")
    })
}

/// Whether `d` checks finitely many cases: its statement bounds a variable it quantifies over
/// (a `∀` or a binder of the theorem) by a number (`∀ n < 500`, `(n : ℕ) (h : n ≤ 500)`,
/// `∀ n : Fin 500`, `∀ S : Finset (Fin 9)`, `∀ n ∈ Finset.range 500`, `n ∈ Icc 1 500`) and its proof decides the cases
/// (`decide`, `native_decide`, `interval_cases`, …). Such a proof establishes the cases, not a
/// statement about all numbers. A bound on anything else (`∃ C, C.card ≤ 2`) leaves the
/// statement general, whatever tactic closes a side goal.
pub fn is_bounded_check(d: &Declaration) -> bool {
    d.tactics.keys().any(|t| CASE_CHECKS.contains(&t.as_str())) && bounds_a_variable(&d.statement)
}

/// Whether a statement bounds one of its quantified variables by a numeric literal.
fn bounds_a_variable(statement: &str) -> bool {
    let mut tokens: Vec<&str> = Vec::new();
    let mut start = None;
    for (i, c) in statement.char_indices() {
        let punct = matches!(c, '(' | ')' | '[' | ']' | '{' | '}' | ',' | '⦃' | '⦄');
        if c.is_whitespace() || punct {
            if let Some(s) = start.take() {
                tokens.push(&statement[s..i]);
            }
            if punct {
                tokens.push(&statement[i..i + c.len_utf8()]);
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        tokens.push(&statement[s..]);
    }
    let is_ident = |t: &str| {
        t.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && t.chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '\'' | '.'))
    };
    // Variables the statement quantifies over: those a `∀` binds (`∀ a b : T,`, `∀ n < 5,`,
    // `∀ (n : ℕ),`) and those of a binder group (`(n : ℕ)`, `{a b : ℕ}`).
    let mut bound: Vec<&str> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        let opens_group = matches!(*t, "(" | "{" | "⦃");
        if *t == "∀" || opens_group {
            let names = tokens[i + 1..]
                .iter()
                .take_while(|n| **n == "(" || is_ident(n))
                .filter(|n| **n != "(");
            bound.extend(names);
        }
    }
    // A bound is a literal that ends the operand: `n < 500,` bounds `n`; `n ≤ 2 ^ n` does not.
    let bound_at = |i: usize| {
        let literal = tokens
            .get(i)
            .is_some_and(|t| t.chars().all(|c| c.is_ascii_digit()));
        let continued = tokens.get(i + 1).is_some_and(|t| {
            matches!(*t, "^" | "*" | "+" | "-" | "/" | "•" | "%") || t.starts_with('^')
        });
        literal && !continued
    };
    let last = |i: usize| {
        tokens
            .get(i)
            .map(|t| t.rsplit('.').next().unwrap_or(t))
            .unwrap_or("")
    };
    (0..tokens.len()).any(|i| {
        if !bound.contains(&tokens[i]) {
            return false;
        }
        // Further variables of the same group (`∀ a b : Fin 5`) share its bound.
        let mut j = i + 1;
        while j < tokens.len() && bound.contains(&tokens[j]) {
            j += 1;
        }
        match tokens.get(j).copied().unwrap_or("") {
            "<" | "≤" | "<=" => bound_at(j + 1),
            // Its type is built on `Fin N` (`Fin 500`, `Finset (Finset (Fin 9))`): finitely
            // many values, explicitly bounded.
            ":" => {
                let mut depth = 0i32;
                tokens[j + 1..]
                    .iter()
                    .enumerate()
                    .take_while(|(_, t)| {
                        match **t {
                            "(" | "[" | "{" => depth += 1,
                            ")" | "]" | "}" => depth -= 1,
                            _ => {}
                        }
                        depth >= 0 && !(depth == 0 && matches!(**t, "," | ":="))
                    })
                    .any(|(k, _)| last(j + 1 + k) == "Fin" && bound_at(j + 2 + k))
            }
            "∈" => match last(j + 1) {
                "range" | "Iio" | "Iic" => bound_at(j + 2),
                "Icc" | "Ico" | "Ioc" | "Ioo" => bound_at(j + 3),
                _ => false,
            },
            _ => false,
        }
    })
}

/// Declarations a verdict of the file disproves, where Aristotle loaded the code before it
/// ([`super::verdict::loaded_before`]): after a load failure a negation may instantiate what
/// Lean never elaborated.
pub fn disproved(verdicts: &[Verdict]) -> Vec<usize> {
    verdicts
        .iter()
        .filter(|v| matches!(v.kind, VerdictKind::False { .. }))
        .filter(|v| super::verdict::loaded_before(verdicts, v.span.start))
        .filter_map(|v| v.declaration)
        .collect()
}

/// The problem key of a name: lowercase without `_`, `-` and spaces (as problem ids compare).
fn key(s: &str) -> String {
    crate::sql::problem_key(s)
}

/// What one file states of its problem `problem`. `stem` is the file's name without `.lean`;
/// `asked` is the index of the theorem an input asks (`None` for other files); `sketch` the
/// theorem a sketch that asks nothing would ask, the weakest evidence; `named` the names its
/// leading comment gives; `cases` the declarations that state a case of the problem (variants,
/// never its statement).
#[allow(clippy::too_many_arguments)]
pub fn of_file(
    outline: &Outline,
    stem: &str,
    problem: &str,
    asked: Option<usize>,
    sketch: Option<usize>,
    named: &[String],
    disproved: &[usize],
    cases: &[usize],
) -> Vec<StatementRecord> {
    let decls = &outline.declarations;
    let named_after = |i: usize| {
        crate::problem::named_after_problem(display_name(&decls[i]), problem)
            == Some(crate::problem::NamedAfter::Exactly)
    };
    // A project's own typed declaration named after the problem states it, whatever its proof's
    // shape (`problem imo1962_p1 : IsLeast S x := ⟨…⟩`): an answer is named for its role
    // (`determine solution : ℕ := …`), never as the problem.
    let claim = |i: usize| is_claim(&decls[i]) || (project_declared(&decls[i]) && named_after(i));
    let usable = |i: usize| claim(i) && !disproved.contains(&i) && !cases.contains(&i);
    let by_name = |name: &str| {
        (0..decls.len()).find(|&i| usable(i) && !is_variant(&decls[i]) && names(&decls[i], name))
    };
    let by_comment = named.iter().find_map(|n| by_name(n));
    let catalogued = || {
        (0..decls.len()).find(|&i| {
            usable(i)
                && !is_variant(&decls[i])
                && literature_status(&decls[i]).is_some()
                && !extends_another(decls, i)
        })
    };
    // A theorem whose own name is the problem in any spelling (a namespace named after it says
    // its declarations belong to it, not which one states it); the last one, one the
    // project's own statement command declares first (compfiles' `problem imo1964_p1b` over
    // a restatement `theorem imo_1964_p1b'` beside it).
    let after_problem = || {
        let named = |i: &usize| usable(*i) && !is_variant(&decls[*i]) && named_after(*i);
        (0..decls.len())
            .rev()
            .filter(named)
            .find(|&i| decls[i].user_command)
            .or_else(|| (0..decls.len()).rev().find(named))
    };
    // What the project's own theorem command declares (`problem singapore2019_r1_p2 : … :=
    // by …`, named as the project likes) is what the file states; its plain theorems are
    // steps. The first one (part a of a problem in parts). A command that also declares data
    // in the file (a typed declaration that states no theorem: `determine solution : ℕ :=
    // 153846` beside `determine f : ℕ → ℕ := by exact id`) is an answer command, whatever
    // the shape of one of its values.
    let declares_data = |kind: &str| {
        decls
            .iter()
            .any(|d| d.user_command && d.kind == kind && d.typed && !d.is_theorem_like())
    };
    let project_statement = || {
        (0..decls.len()).find(|&i| {
            usable(i)
                && !is_variant(&decls[i])
                && decls[i].user_command
                && !declares_data(&decls[i].kind)
        })
    };
    // What an input asks beside the problem's own theorem, which the same file states (a
    // catalogue attribute marks it, or it is named after the problem), is a variant of it (a
    // step, a special case), not the problem's statement. (A sketch's leading comment names
    // what it asks and what it uses, not which theorem is the problem's.)
    let mut asked_variant = None;
    let main: Option<(usize, i64)> = match asked.filter(|i| !cases.contains(i)) {
        Some(i) if is_variant(&decls[i]) => base_name(display_name(&decls[i]))
            .and_then(&by_name)
            .map(|j| (j, ASKED)),
        // Beside the problem's own theorem, what the input asks is a variant, catalogued or
        // not; a catalogue attribute on the asked theorem only keeps another catalogued
        // theorem from being taken for the problem's.
        Some(i) => match (literature_status(&decls[i]).is_none())
            .then(catalogued)
            .flatten()
            .or_else(after_problem)
        {
            Some(j) if j != i && !named_after(i) => {
                asked_variant = Some(i);
                Some((j, ASKED))
            }
            _ => Some((i, ASKED)),
        },
        // A file asking a case (or, without a hole, stating one as its target) states the
        // problem only by the problem's own theorem beside it: what its comment lists or its
        // other claims are steps of the case.
        None if asked.or(sketch).is_some_and(|i| cases.contains(&i)) => after_problem().map(|j| {
            (
                j,
                if asked.is_some() {
                    ASKED
                } else {
                    NAMED_AFTER_PROBLEM
                },
            )
        }),
        None => {
            // A benchmark names its statement as its file: `imo1959_p1_numbertheory` in
            // `imo1959_p1_numbertheory.lean`; the last one.
            let named_as_file = || {
                (0..decls.len()).rev().find(|&i| {
                    usable(i)
                        && !is_variant(&decls[i])
                        && !stem.is_empty()
                        && names(&decls[i], stem)
                })
            };
            let called_main = || {
                (0..decls.len()).rev().find(|&i| {
                    usable(i)
                        && !is_variant(&decls[i])
                        && MAIN_NAMES.contains(&key(&decls[i].name).as_str())
                })
            };
            by_comment
                .or_else(catalogued)
                .map(|i| (i, NAMED_BY_FILE))
                .or_else(|| {
                    after_problem()
                        .or_else(project_statement)
                        .or_else(named_as_file)
                        .or_else(called_main)
                        .map(|i| (i, NAMED_AFTER_PROBLEM))
                })
                .or_else(|| {
                    // A check of finitely many cases is evidence about a statement, never the
                    // statement a sketch's problem is about.
                    sketch
                        .filter(|&i| {
                            usable(i) && !is_variant(&decls[i]) && !is_bounded_check(&decls[i])
                        })
                        .map(|i| (i, SKETCH_MAIN))
                })
        }
    };
    let record = |i: usize, variant: bool, rank: i64| StatementRecord {
        theorem_name: display_name(&decls[i]).to_string(),
        statement: decls[i].statement.clone(),
        variant,
        rank,
        literature: literature_status(&decls[i]).map(str::to_string),
        fingerprint: None,
    };
    let mut out = Vec::new();
    if let Some((i, rank)) = main {
        out.push(record(i, false, rank));
    }
    let main_name = main.map(|(i, _)| display_name(&decls[i]).to_string());
    for (i, decl) in decls.iter().enumerate() {
        let case = cases.contains(&i) && is_claim(decl) && !disproved.contains(&i);
        if !(usable(i) || case) || main.is_some_and(|(m, _)| m == i) {
            continue;
        }
        let name = display_name(decl);
        let under_main = main_name.as_deref().is_some_and(|m| {
            name.len() > m.len() && name.starts_with(m) && name[m.len()..].starts_with('.')
        });
        if is_variant(decl) || under_main || asked_variant == Some(i) || case {
            let rank = match main {
                Some((_, r)) => r,
                None if asked == Some(i) => ASKED,
                None => NAMED_AFTER_PROBLEM,
            };
            out.push(record(i, true, rank));
        }
    }
    out
}

/// `erdos_1.variants.weak` → `erdos_1`: the theorem a variant belongs to.
fn base_name(name: &str) -> Option<&str> {
    let i = name.find(".variants.").or_else(|| name.find(".variant."))?;
    Some(&name[..i])
}

/// Whether `decls[i]`'s name extends another claim's of the file (`erdos_1.parts.i` beside
/// `erdos_1`): a part or variant of that one, not a main statement.
fn extends_another(decls: &[Declaration], i: usize) -> bool {
    let name = display_name(&decls[i]);
    decls.iter().enumerate().any(|(j, d)| {
        let other = display_name(d);
        j != i
            && is_claim(d)
            && name.len() > other.len()
            && name.starts_with(other)
            && name[other.len()..].starts_with('.')
    })
}

/// Whether `decl` is the declaration `named`: its full name, or its last components.
fn names(decl: &Declaration, named: &str) -> bool {
    let full = display_name(decl);
    full == named || decl.name == named || full.ends_with(&format!(".{named}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lean::ParsedFile;

    fn outline(text: &str) -> Outline {
        Outline::of("t.lean", &ParsedFile::parse(text.to_string()))
    }

    fn summary(records: &[StatementRecord]) -> Vec<(String, bool, i64, Option<String>)> {
        records
            .iter()
            .map(|r| {
                (
                    r.theorem_name.clone(),
                    r.variant,
                    r.rank,
                    r.literature.clone(),
                )
            })
            .collect()
    }

    #[test]
    fn a_catalogue_file_states_its_main_theorem_and_variants() {
        let text = "namespace Erdos7\n\n\
            @[category research open, AMS 11]\ntheorem erdos_7 : ∀ n : ℕ, n ≤ n + 1 := by\n  sorry\n\n\
            @[category research solved, AMS 11]\ntheorem erdos_7.variants.weak : ∀ n : ℕ, n ≤ n + 2 := by\n  omega\n\n\
            @[category research solved, AMS 11]\ntheorem erdos_7.EPS_bound : True := by\n  sorry\n\n\
            lemma helper : True := trivial\n\nend Erdos7\n";
        let o = outline(text);
        // An output (nothing asked): the catalogue attribute names the main theorem.
        let got = of_file(&o, "t", "erdos_7", None, None, &[], &[], &[]);
        let o_ = |s: &str| Some(s.to_string());
        assert_eq!(
            summary(&got),
            [
                ("Erdos7.erdos_7".into(), false, 1, o_("open")),
                ("Erdos7.erdos_7.variants.weak".into(), true, 1, o_("solved")),
                ("Erdos7.erdos_7.EPS_bound".into(), true, 1, o_("solved")),
            ]
        );
        // An input asking a variant states the main theorem it is a variant of.
        let weak = o
            .declarations
            .iter()
            .position(|d| d.name == "erdos_7.variants.weak")
            .unwrap();
        let got = of_file(&o, "t", "erdos_7", Some(weak), None, &[], &[], &[]);
        assert_eq!(got[0].theorem_name, "Erdos7.erdos_7");
        assert_eq!(got[0].rank, 0);
        assert!(!got[0].variant);
        // A declaration the file disproves is no statement of the problem.
        let main = o
            .declarations
            .iter()
            .position(|d| d.name == "erdos_7")
            .unwrap();
        let got = of_file(&o, "t", "erdos_7", None, None, &[], &[main], &[]);
        assert!(got.iter().all(|r| r.variant), "{got:?}");
    }

    #[test]
    fn an_input_asking_a_case_states_the_problem_only_by_its_own_theorem() {
        // The case asked is a variant; the component its comment lists is no statement.
        let text = "/-\n  PROVEN COMPONENTS: helper_lemma\n-/\n\
            theorem helper_lemma : 1 = 1 := rfl\n\n\
            theorem tau_le_8_path4 (n : ℕ) (h : n = 4) : n ≤ 8 := by\n  sorry\n";
        let o = outline(text);
        let named = ["helper_lemma".to_string()];
        let got = of_file(&o, "t", "tau_le_8", Some(1), None, &named, &[], &[1]);
        assert_eq!(
            summary(&got),
            [("tau_le_8_path4".into(), true, ASKED, None)]
        );
        // Not a case: what it asks is its statement.
        let got = of_file(&o, "t", "tau_le_8", Some(1), None, &named, &[], &[]);
        assert_eq!(
            summary(&got),
            [("tau_le_8_path4".into(), false, ASKED, None)]
        );
        // Beside the problem's own theorem, that one is the statement.
        let with_own = outline(&format!(
            "{text}\ntheorem tau_le_8 (n : ℕ) (h : n ≤ 4) : n ≤ 8 := by\n  omega\n"
        ));
        let got = of_file(&with_own, "t", "tau_le_8", Some(1), None, &named, &[], &[1]);
        assert_eq!(
            summary(&got),
            [
                ("tau_le_8".into(), false, ASKED, None),
                ("tau_le_8_path4".into(), true, ASKED, None)
            ]
        );
    }

    #[test]
    fn what_an_input_asks_beside_the_problems_own_theorem_is_a_variant() {
        let text = "theorem erdos_12 : ∀ n : ℕ, n ≤ n * n + 1 := by\n  sorry\n\n\
            theorem small_case : 3 ≤ 3 * 3 + 1 := by\n  sorry\n";
        let o = outline(text);
        let asked = o
            .declarations
            .iter()
            .position(|d| d.name == "small_case")
            .unwrap();
        let got = of_file(&o, "t", "erdos_12", Some(asked), None, &[], &[], &[]);
        assert_eq!(
            summary(&got),
            [
                ("erdos_12".into(), false, 0, None),
                ("small_case".into(), true, 0, None),
            ]
        );
        // The same file for another problem states nothing named after it: what it asks is the
        // statement.
        let got = of_file(&o, "t", "erdos_13", Some(asked), None, &[], &[], &[]);
        assert_eq!(summary(&got), [("small_case".into(), false, 0, None)]);
        // Asking the problem's own theorem states it.
        let got = of_file(&o, "t", "erdos_12", Some(0), None, &[], &[], &[]);
        assert_eq!(summary(&got), [("erdos_12".into(), false, 0, None)]);
    }

    #[test]
    fn variants_only_state_no_main_statement() {
        let o = outline("theorem foo.variants.a : True := by\n  sorry\n\ntheorem foo.variants.b : 1 = 1 := by\n  sorry\n");
        let got = of_file(&o, "t", "foo", Some(1), None, &[], &[], &[]);
        assert!(got.iter().all(|r| r.variant), "{got:?}");
        assert_eq!(got.len(), 2);
    }

    #[test]
    fn a_file_names_its_main_theorem_by_its_comment_or_the_problem() {
        let o = outline("/- Problem: key_claim -/\ntheorem side : True := trivial\n\ntheorem key_claim : 1 = 1 := rfl\n");
        let got = of_file(
            &o,
            "t",
            "whatever",
            None,
            None,
            &["key_claim".into()],
            &[],
            &[],
        );
        assert_eq!(summary(&got), [("key_claim".into(), false, 1, None)]);
        let o =
            outline("theorem side : True := trivial\n\ntheorem Putnam_1986_B4 : 1 = 1 := rfl\n");
        let got = of_file(&o, "t", "putnam_1986_b4", None, None, &[], &[], &[]);
        assert_eq!(summary(&got), [("Putnam_1986_B4".into(), false, 2, None)]);
        // Nothing names one: no statement.
        assert!(of_file(&o, "t", "other", None, None, &[], &[], &[]).is_empty());
    }

    #[test]
    fn bounded_checks_are_finite_ranges_decided() {
        let o = outline(
            "theorem a : ∀ n : Fin 500, 1 < (n : ℕ) → ∃ k : Fin 500, (k : ℕ) < n := by\n  native_decide\n\n\
             theorem b : ∀ n < 100, n * n ≠ 2 := by\n  decide\n\n\
             theorem c : ∀ n ∈ Finset.Icc 1 50, n ≠ 0 := by\n  decide\n\n\
             theorem d (n : ℕ) : n < n + 1 := by\n  omega\n\n\
             theorem e : ∀ n : ℕ, n * 0 = 0 := by\n  decide\n\n\
             theorem f (n : ℕ) : n ≤ 2 ^ n := by\n  have : (0 : ℕ) < 1 := by decide\n  omega\n\n\
             theorem g (G : ℕ → Prop) : ∀ M : Finset ℕ, ∃ C : Finset ℕ, C.card ≤ 2 ∧ C ⊆ M ∨ G 0 := by\n  have : (1 : ℕ) ≤ 2 := by decide\n  sorry\n\n\
             theorem h (n : ℕ) (hn : n ≤ 40) : n * n ≠ 2 := by\n  interval_cases n <;> decide\n\n\
             theorem i : ∀ a b : Fin 6, a + b = b + a := by\n  decide\n\n\
             theorem j (x : ℕ) : x * 0 < 1 := by\n  decide\n\n\
             theorem k : ∀ S : Finset (Finset (Fin 9)), S.card ≤ 4 → S.card ≤ 5 := by\n  decide\n\n\
             theorem l : ∃ C : Finset (Fin 9), C.card ≤ 8 := by\n  decide\n",
        );
        let bounded: Vec<bool> = o.declarations.iter().map(is_bounded_check).collect();
        // A bound on an existential's size (`C.card ≤ 2`) or on no variable (`x * 0 < 1`)
        // states no finite range of cases.
        assert_eq!(
            bounded,
            [true, true, true, false, false, false, false, true, true, false, true, false]
        );
        let text = "/-! This is an open conjecture. -/\ntheorem t : True := trivial\n";
        assert!(calls_itself_open(&outline(text), text));
        let text = "/-! The set is closed. -/\ntheorem t : True := trivial\n";
        assert!(!calls_itself_open(&outline(text), text));
        // Any case, in ASCII text and in text with other letters (lowercased in full).
        for comment in [
            "-- Status: OPEN",
            "/- This REMAINS Open. -/",
            "/-! Erdős: an Open Problem. -/",
            "-- ÉTAT: still open",
        ] {
            let text = format!("{comment}\ntheorem t : True := trivial\n");
            assert!(calls_itself_open(&outline(&text), &text), "{comment}");
        }
        for comment in [
            "-- Erdős: closed",
            "-- opened, then solved",
            "-- un-solved",
            "-- STİLL OPEN",
        ] {
            let text = format!("{comment}\ntheorem t : True := trivial\n");
            assert!(!calls_itself_open(&outline(&text), &text), "{comment}");
        }
    }

    /// What lets [`open_words`] skip lowercasing: a char outside ASCII lowercases to ASCII only
    /// as the Kelvin sign's `k` and `İ`'s `i` (followed by a combining dot, which no word
    /// holds), no word holds a `k`, and none ends in `i`.
    #[test]
    fn open_words_match_as_the_lowercased_text_would() {
        for c in (0x80..=0x10FFFF).filter_map(char::from_u32) {
            let lower: String = c.to_lowercase().collect();
            let ascii: Vec<char> = lower.chars().filter(char::is_ascii).collect();
            match c {
                '\u{212A}' => assert_eq!(lower, "k"),
                '\u{130}' => assert_eq!(lower, "i\u{307}"),
                _ => assert!(ascii.is_empty(), "{c:?} lowercases to {lower:?}"),
            }
        }
        for w in OPEN_WORDS {
            assert!(w.is_ascii() && *w == w.to_lowercase(), "{w}");
            assert!(!w.contains('k') && !w.ends_with('i'), "{w}");
        }
    }
}
