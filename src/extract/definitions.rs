//! Which definitions of its own file a theorem's statement is about.
//!
//! Two files may state `A.card = 3` under the same theorem name and mean different things,
//! because each defines `A` itself. A theorem's statement is read together with the
//! definitions of its file that it names — `def`, `abbrev`, `structure`, `inductive`, …:
//! every declaration that is not a theorem — and, in turn, the definitions those name, up to
//! the declarations before it. Their text, whitespace collapsed, is digested into
//! [`NewFinding::definitions`](crate::kb::NewFinding), part of the fact's identity.
//!
//! Names are read lexically (identifier-like runs, each dotted component too), which
//! over-approximates: a word that happens to name a definition adds that definition to the
//! digest, and the worst outcome is a fact stored twice, never two facts merged. Each
//! definition's text is scanned once; the closure is a worklist, no recursion.

use std::collections::HashMap;

use crate::lean::Outline;

/// Declarations whose meaning does not enter a statement that names them (their proofs do
/// not change what the statement says): theorems (Lean's or a project's command that states
/// one) and examples.
fn is_proof(d: &crate::lean::Declaration) -> bool {
    d.is_theorem_like() || d.kind == "example"
}

/// The declarations `wanted` by every name they can be written as: full name, and each suffix
/// of it after a dot (`A.B.c`, `B.c`, `c`), each name with the indices of `decls` it may mean.
pub(crate) fn by_written_name(
    decls: &[crate::lean::Declaration],
    wanted: impl Fn(usize, &crate::lean::Declaration) -> bool,
) -> HashMap<&str, Vec<usize>> {
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, d) in decls.iter().enumerate() {
        if !wanted(i, d) {
            continue;
        }
        let full = if d.full_name.is_empty() {
            d.name.as_str()
        } else {
            d.full_name.as_str()
        };
        let mut rest = full;
        loop {
            by_name.entry(rest).or_default().push(i);
            match rest.split_once('.') {
                Some((_, tail)) if !tail.is_empty() => rest = tail,
                _ => break,
            }
        }
    }
    by_name
}

/// For each declaration of `outline` (read from `text`): the digest of the same-file
/// definitions its statement depends on, or `None` when it names none.
pub fn digests(outline: &Outline, text: &str) -> Vec<Option<String>> {
    let decls = &outline.declarations;
    let by_name = by_written_name(decls, |_, d| !is_proof(d) && !d.name.is_empty());
    if by_name.is_empty() {
        return vec![None; decls.len()];
    }
    let named_in = |s: &str, before: usize, out: &mut Vec<usize>| {
        for word in words(s) {
            // The word as written (`A`, `G.cover`) and each of its dotted components
            // (`A.card` names `A`); a component only matches a whole name (`hA` is not `A`).
            let mut look = |c: &str| {
                if let Some(found) = by_name.get(c) {
                    out.extend(found.iter().copied().filter(|&j| j < before));
                }
            };
            look(word);
            // A word without a dot is its own only component: looked up once.
            if word.contains('.') {
                word.split('.').filter(|c| !c.is_empty()).for_each(look);
            }
        }
    };
    // What each definition names, and its text with whitespace collapsed (what the digest
    // reads), each computed once, when first needed.
    let mut refs_of: Vec<Option<Vec<usize>>> = vec![None; decls.len()];
    let mut collapsed: Vec<Option<Vec<u8>>> = vec![None; decls.len()];
    // `seen[j] == i + 1`: definition `j` is in the closure of declaration `i` (one array for
    // all declarations, no clearing).
    let mut seen = vec![0usize; decls.len()];
    let mut out = Vec::with_capacity(decls.len());
    for (i, d) in decls.iter().enumerate() {
        if !is_proof(d) {
            out.push(None);
            continue;
        }
        let mut direct = Vec::new();
        named_in(&d.statement, i, &mut direct);
        if direct.is_empty() {
            out.push(None);
            continue;
        }
        let mut work = direct;
        let mut closure = Vec::new();
        while let Some(j) = work.pop() {
            if std::mem::replace(&mut seen[j], i + 1) == i + 1 {
                continue;
            }
            closure.push(j);
            let refs = refs_of[j].get_or_insert_with(|| {
                let mut r = Vec::new();
                if let Some(body) = text.get(decls[j].span.clone()) {
                    named_in(body, j, &mut r);
                }
                r
            });
            work.extend(refs.iter().copied().filter(|&k| seen[k] != i + 1));
        }
        closure.sort_unstable();
        let mut hasher = blake3::Hasher::new();
        for j in closure {
            let words = collapsed[j].get_or_insert_with(|| {
                let def = text.get(decls[j].span.clone()).unwrap_or("");
                let mut words = Vec::with_capacity(def.len() + 1);
                for w in def.split_whitespace() {
                    words.extend_from_slice(w.as_bytes());
                    words.push(b' ');
                }
                words.push(0x1f);
                words
            });
            hasher.update(words);
        }
        out.push(Some(hasher.finalize().to_hex()[..16].to_string()));
    }
    out
}

/// Identifier-like runs of `s`: letters, digits, `_`, `'`, `.`, `!`, `?` and subscripts.
fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '\'' | '.' | '!' | '?')))
        .map(|w| w.trim_matches('.'))
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lean::ParsedFile;

    fn digests_of(src: &str) -> Vec<(String, Option<String>)> {
        let file = ParsedFile::parse(src.to_string());
        let outline = Outline::of("t.lean", &file);
        outline
            .declarations
            .iter()
            .map(|d| d.name.clone())
            .zip(digests(&outline, src))
            .collect()
    }

    fn digest(src: &str, name: &str) -> Option<String> {
        digests_of(src)
            .into_iter()
            .find(|(n, _)| n == name)
            .unwrap()
            .1
    }

    #[test]
    fn a_statement_is_read_with_the_definitions_it_names() {
        let nine =
            "def A : Finset (Fin 9) := {0, 1, 2}\n\ntheorem A_card : A.card = 3 := by decide\n";
        let ten =
            "def A : Finset (Fin 10) := {0, 3, 4}\n\ntheorem A_card : A.card = 3 := by decide\n";
        let nine_again =
            "def A : Finset (Fin 9) :=\n  {0, 1, 2}\n\ntheorem A_card : A.card = 3 := by\n  rfl\n";
        assert!(digest(nine, "A_card").is_some());
        assert_ne!(digest(nine, "A_card"), digest(ten, "A_card"));
        // Layout and proofs do not change what the statement says.
        assert_eq!(digest(nine, "A_card"), digest(nine_again, "A_card"));
    }

    #[test]
    fn definitions_named_by_definitions_count_too_and_library_names_do_not() {
        let a = "def n0 : ℕ := 3\ndef B : Finset ℕ := Finset.range n0\n\n\
                 theorem B_card : B.card = 3 := by simp [B, n0]\n\
                 theorem plain (k : ℕ) : k ≤ k + 1 := Nat.le_succ k\n";
        let b = a.replace(":= 3", ":= 4");
        assert_ne!(digest(a, "B_card"), digest(&b, "B_card"));
        assert_eq!(digest(a, "plain"), None, "names no definition of the file");
        // A theorem of the file is no definition: naming it changes nothing.
        let c = "theorem helper : 1 = 1 := rfl\ntheorem uses_helper : helper = helper := rfl\n";
        assert_eq!(digest(c, "uses_helper"), None);
    }

    #[test]
    fn namespaced_definitions_are_found_by_their_short_names() {
        let src = "namespace G\ndef cover : Finset ℕ := {1}\nend G\nopen G\n\
                   theorem cover_card : cover.card = 1 := rfl\n";
        let other = src.replace("{1}", "{2}");
        assert!(digest(src, "cover_card").is_some());
        assert_ne!(digest(src, "cover_card"), digest(&other, "cover_card"));
    }
}
