//! A campaign's lemmas: the statements the files of a known problem state (`theorem
//! bridge_contains_shared … : v ∈ T`), so that a sketch named only by topic words
//! (`slot440_bridge_contains_shared.lean`) whose lemmas are word for word those a known
//! problem's files state is read as a step of that problem.
//!
//! The users' sketches copy proven lemmas from one submission into the next: a step's lemma is
//! restated, name and statement alike, in the files of the problem it serves. A lemma is
//! identified by its name and its statement text without whitespace or comments (not its
//! proof): the same name over another statement is another lemma. The keys are stored with the
//! file's definition names ([`super::signature::defined_names`]), marked by [`MARK`], and
//! weighed the same way ([`super::signature::Signatures`]): a lemma many problems' files state
//! says little, one only a problem's files state says much.
//!
//! Read lexically, like the definitions: a column-0 `theorem`/`lemma` outside comments and
//! strings, its statement up to `:=` outside brackets, or up to the next column-0 line.

use crate::lean::lexical;

/// What marks a lemma's key among a file's definition names: no Lean identifier starts so.
pub const MARK: char = '⊢';

/// Bytes of one statement read, at most: a longer one is no key (it is not compared).
const STATEMENT_BYTES: usize = 4096;

/// Hex digits of the statement's hash a key keeps.
const HASH_HEX: usize = 16;

/// Whether a stored definition name is a lemma's key ([`stated_keys`]).
pub fn is_key(name: &str) -> bool {
    name.starts_with(MARK)
}

/// The keys of the lemmas and theorems a Lean file states at column 0: [`MARK`], the name as
/// written, `:` and a hash of the statement without whitespace or comments (`⊢bridge_contains_
/// shared:3f…`); what [`super::signature::scan_text`] reads only.
pub fn stated_keys(bytes: &[u8]) -> Vec<String> {
    let text = super::signature::scan_text(bytes);
    keys_at(&text, &lexical::code_line_starts(&text))
}

/// [`stated_keys`] of `text`, whose lines outside comments and strings start at `starts`
/// ([`lexical::code_line_starts`]).
pub fn keys_at(text: &str, starts: &[usize]) -> Vec<String> {
    let mut out = Vec::new();
    for &i in starts {
        if let Some((name, after)) = claim_at(&text[i..]) {
            if let Some(statement) = statement_from(text, i + after) {
                let hash = blake3::hash(statement.as_bytes()).to_hex();
                out.push(format!("{MARK}{name}:{}", &hash[..HASH_HEX]));
            }
        }
    }
    out
}

/// The name a `theorem` or `lemma` starting at the beginning of `line` states, and the byte
/// offset just after it.
fn claim_at(line: &str) -> Option<(&str, usize)> {
    let first = line.split('\n').next().unwrap_or("");
    if first.starts_with(char::is_whitespace) {
        return None;
    }
    let mut rest = first;
    if let Some(after) = rest.strip_prefix("@[") {
        rest = after.split_once(']')?.1.trim_start();
    }
    while let Some(after) = ["private ", "protected ", "nonrec "]
        .iter()
        .find_map(|m| rest.strip_prefix(m))
    {
        rest = after.trim_start();
    }
    let after_keyword = ["theorem ", "lemma "]
        .iter()
        .find_map(|k| rest.strip_prefix(k))?
        .trim_start();
    let end = after_keyword
        .find(|c: char| c.is_whitespace() || matches!(c, '(' | '{' | '[' | ':' | '⦃'))
        .unwrap_or(after_keyword.len());
    let name = &after_keyword[..end];
    let identifier = name
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '«');
    let offset = first.len() - after_keyword.len() + end;
    identifier.then_some((name, offset))
}

/// The statement starting at byte `start` of `text`, without whitespace or comments: up to
/// `:=` outside brackets, or the next line starting at column 0; `None` when it is longer than
/// [`STATEMENT_BYTES`] or empty.
fn statement_from(text: &str, start: usize) -> Option<String> {
    let b = text.as_bytes();
    let mut out = String::new();
    let mut depth = 0usize;
    let mut i = start;
    while i < b.len() && i - start <= STATEMENT_BYTES {
        if let Some(len) = lexical::non_code_at(text, i) {
            // A comment is left out; a string or character literal is part of the statement.
            if !matches!(b[i], b'-' | b'/') {
                out.push_str(&text[i..i + len]);
            }
            i += len.max(1);
            continue;
        }
        match b[i] {
            b'\n' if b.get(i + 1).is_some_and(|c| !c.is_ascii_whitespace()) => break,
            b':' if depth == 0 && b.get(i + 1) == Some(&b'=') => {
                return (!out.is_empty()).then_some(out);
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        let c = text[i..].chars().next()?;
        if !c.is_whitespace() {
            out.push(c);
        }
        i += c.len_utf8();
    }
    // Up to the next command: a statement whose proof follows on its own (`where`, `|`).
    (i - start <= STATEMENT_BYTES && !out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<String> {
        stated_keys(text.as_bytes())
    }

    #[test]
    fn a_lemma_is_its_name_and_statement_not_its_layout_comments_or_proof() {
        let a = keys(
            "/-- doc -/\nlemma bridge_contains_shared (T E : Finset V)\n    \
             (h : (T ∩ E).card ≥ 2) : -- why\n    v ∈ T := by\n  simp\n",
        );
        let b = keys(
            "theorem bridge_contains_shared (T E : Finset V) (h : (T ∩ E).card ≥ 2) :\n  \
             v ∈ T := by omega\n",
        );
        assert_eq!(a.len(), 1);
        assert!(a[0].starts_with("⊢bridge_contains_shared:"), "{a:?}");
        assert_eq!(a, b, "layout, comments, keyword and proof change nothing");
        // The same name over another statement is another lemma; so is another name.
        let c = keys("lemma bridge_contains_shared (T E : Finset V) : v ∈ E := by simp\n");
        let d = keys(
            "lemma bridge_contains_apex (T E : Finset V) (h : (T ∩ E).card ≥ 2) : v ∈ T := x\n",
        );
        assert_ne!(a, c);
        assert_ne!(a, d);
    }

    #[test]
    fn only_column_zero_claims_outside_comments_and_strings() {
        let text = "/- lemma in_comment : True := trivial -/\n\
            def s := \"\nlemma in_string : True := trivial\"\n  \
            lemma indented : True := trivial\n\
            @[simp] private theorem shown (n : ℕ) : n = n := rfl\n\
            theorem opt (h : x = 1 := by rfl) : True := trivial\n\
            theorem cases : ∀ n : ℕ, n = n\n  | _ => rfl\n";
        let names: Vec<String> = keys(text)
            .into_iter()
            .map(|k| {
                k.trim_start_matches(MARK)
                    .split(':')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(names, ["shown", "opt", "cases"]);
        // `:=` inside brackets does not end the statement.
        let opt = keys("theorem opt (h : x = 1 := by rfl) : True := trivial\n");
        let other = keys("theorem opt (h : x = 1) : True := trivial\n");
        assert_ne!(opt, other);
        assert!(keys("theorem t : True := trivial\n")
            .iter()
            .all(|k| is_key(k)));
    }
}
