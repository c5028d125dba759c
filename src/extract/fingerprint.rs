//! A statement's fingerprint: what makes two files' statements the same mathematics,
//! whatever the theorems are called and however they are laid out.
//!
//! The statement is read as tokens (comments and whitespace gone; identifiers, numbers and
//! strings whole, every other character a token of its own, so `x≤-1` and `x ≤ -1` agree),
//! without the theorem's own name. Variables it binds (its signature's binder groups, and
//! what `∀`, `∃`, `fun`, `λ`, `∑`, `∏`, `⋃`, `⋂`, `⨆`, `⨅`, `∫`, `let` and a set-builder
//! `{x | …}` bind) are renamed by their order of first appearance, so `∀ a b, a + b = b + a`
//! and `∀ x y, x + y = y + x` agree. Notation stays as written: `a ∣ b` and `b % a = 0` are
//! different statements here.
//!
//! A statement means what the file's own definitions say: every definition of the file it
//! names (and those they name, up to the declarations before it) enters the fingerprint, its
//! text read the same way. So do the file's notations, macros, `variable`s and `open`s,
//! whatever they name. Two files that each define `isTrianglePacking` state the same thing
//! only if their definitions agree too. Names the file does not define are the library's
//! (Mathlib's) and compared as written; a file that imports a project's own modules, whose
//! definitions it does not show, shares a fingerprint only with files importing the same
//! modules.
//!
//! A fingerprint errs towards different: a bound variable it cannot recognise stays as
//! written, which can only keep two statements apart, never merge different ones.

use std::collections::HashMap;

use crate::lean::{Declaration, Outline};

/// Tokens after which variables are bound until `,`, `=>`, `↦`, `:` or a binder predicate.
const BINDERS: &[&str] = &[
    "∀", "∃", "fun", "λ", "∑", "∏", "⋃", "⋂", "⨆", "⨅", "∫", "let", "forall", "exists", "Σ", "Π",
];

/// Tokens that end a binder list (what follows is a type, a bound or the body).
const BINDER_ENDS: &[&str] = &[
    ",", "=>", "↦", ":", "∈", "∉", "<", ">", "≤", "≥", "≠", "⊆", "⊂", "in", "|", ":=", "=",
];

/// Command words that change what the file's statements mean without being declarations
/// the outline lists: notations, macros, syntax, and `variable`s.
const CONTEXT_COMMANDS: &[&str] = &[
    "notation",
    "infix",
    "infixl",
    "infixr",
    "prefix",
    "postfix",
    "macro",
    "macro_rules",
    "syntax",
    "elab",
    "variable",
    "open",
];

/// Libraries whose names mean the same in every project that imports them; any other import
/// is a project's own module, whose definitions the file cannot show.
const LIBRARIES: &[&str] = &[
    "Mathlib",
    "Std",
    "Batteries",
    "Lean",
    "Init",
    "Aesop",
    "Qq",
    "Plausible",
    "ProofWidgets",
    "ImportGraph",
    "LeanSearchClient",
];

/// The fingerprint of declaration `index`'s statement in `outline` (read from `text`): a
/// blake3 digest, hex, of its normalized statement and of the file's definitions and
/// notations it may depend on. `None` for a declaration without a statement.
pub fn of_declaration(outline: &Outline, text: &str, index: usize) -> Option<String> {
    let decl = outline.declarations.get(index)?;
    let mut statement = tokens(&decl.statement);
    // The statement begins with the theorem's own name: that is no part of what it says.
    if !decl.name.is_empty() && statement.first() == Some(&decl.name.as_str()) {
        statement.remove(0);
    }
    // A placeholder (`: True`, `: False`) states no problem: two sketches' placeholders are
    // not one problem.
    let placeholder = matches!(statement.as_slice(), [":", "True" | "False"]);
    if statement.is_empty() || placeholder {
        return None;
    }
    let mut hasher = blake3::Hasher::new();
    hasher.update(alpha_renamed(&statement, 0).as_bytes());
    for j in definitions_named(outline, text, index, &statement) {
        let d = &outline.declarations[j];
        let body = tokens(text.get(d.span.clone()).unwrap_or(""));
        // Its signature's binders follow its name.
        let last = d.name.rsplit('.').next().unwrap_or(&d.name);
        let after_name = body
            .iter()
            .position(|t| *t == d.name || *t == last)
            .map_or(body.len(), |i| i + 1);
        hasher.update(&[0x1e]);
        hasher.update(alpha_renamed(&body, after_name).as_bytes());
    }
    for line in context_lines(text) {
        hasher.update(&[0x1d]);
        hasher.update(alpha_renamed(&tokens(line), 0).as_bytes());
    }
    // A name a project's own module defines means what that module says, which this file
    // does not show: files importing different project modules never share a fingerprint.
    let mut own: Vec<&str> = outline
        .imports
        .iter()
        .map(String::as_str)
        .filter(|m| !LIBRARIES.contains(&m.split('.').next().unwrap_or(m)))
        .collect();
    own.sort_unstable();
    own.dedup();
    for m in own {
        hasher.update(&[0x1c]);
        hasher.update(m.as_bytes());
    }
    Some(hasher.finalize().to_hex()[..32].to_string())
}

/// Whether `d` is a definition a statement can mean through its name (not a theorem: its
/// proof does not change what a statement naming it says).
fn is_definition(d: &Declaration) -> bool {
    !d.is_theorem_like() && d.kind != "example" && !d.name.is_empty()
}

/// The definitions of the file before declaration `index` that `statement` names, and those
/// they name in turn, in file order. A worklist, no recursion.
fn definitions_named(
    outline: &Outline,
    text: &str,
    index: usize,
    statement: &[&str],
) -> Vec<usize> {
    let decls = &outline.declarations;
    let by_name = super::definitions::by_written_name(decls, |j, d| j < index && is_definition(d));
    if by_name.is_empty() {
        return Vec::new();
    }
    let named = |toks: &[&str], before: usize, out: &mut Vec<usize>| {
        for t in toks {
            let mut look = |c: &str| {
                if let Some(found) = by_name.get(c) {
                    out.extend(found.iter().copied().filter(|&j| j < before));
                }
            };
            look(t);
            if t.contains('.') {
                t.split('.').filter(|c| !c.is_empty()).for_each(&mut look);
            }
        }
    };
    let mut seen = vec![false; decls.len()];
    let mut work = Vec::new();
    named(statement, index, &mut work);
    let mut closure = Vec::new();
    while let Some(j) = work.pop() {
        if std::mem::replace(&mut seen[j], true) {
            continue;
        }
        closure.push(j);
        let body = text.get(decls[j].span.clone()).unwrap_or("");
        let mut more = Vec::new();
        named(&tokens(body), j, &mut more);
        work.extend(more.into_iter().filter(|&k| !seen[k]));
    }
    closure.sort_unstable();
    closure
}

/// The file's notation, macro, syntax and `variable` commands: each line that begins with
/// one (after `local`/`scoped` and attributes), as written.
fn context_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines().filter(|line| {
        let mut rest = line.trim_end();
        if rest.starts_with(char::is_whitespace) {
            return false;
        }
        if rest.starts_with("@[") {
            rest = rest.find(']').map_or("", |i| rest[i + 1..].trim_start());
        }
        for modifier in ["local ", "scoped "] {
            rest = rest.strip_prefix(modifier).unwrap_or(rest);
        }
        let word = rest
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        CONTEXT_COMMANDS.contains(&word)
    })
}

/// Whether `c` may begin an identifier (Lean's letters; `λ`, `Π`, `Σ` are notation).
fn ident_start(c: char) -> bool {
    (c.is_alphabetic() || c == '_') && !matches!(c, 'λ' | 'Π' | 'Σ')
}

/// Whether `c` may continue an identifier (subscripts, primes, `!`, `?` included).
fn ident_char(c: char) -> bool {
    ident_start(c)
        || c.is_alphanumeric()
        || matches!(c, '\'' | '!' | '?')
        || ('\u{2080}'..='\u{209C}').contains(&c)
        || ('\u{1D62}'..='\u{1D6A}').contains(&c)
}

/// The tokens of `s`: comments and whitespace dropped; identifiers (dotted, `«…»` quoted),
/// numbers and string literals whole; any other character a token of its own.
fn tokens(s: &str) -> Vec<&str> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let next_char = |i: usize| s[i..].chars().next();
    while i < s.len() {
        let Some(c) = next_char(i) else { break };
        if c.is_whitespace() {
            i += c.len_utf8();
        } else if s[i..].starts_with("--") {
            i = s[i..].find('\n').map_or(s.len(), |n| i + n);
        } else if s[i..].starts_with("/-") {
            // Nested block comment.
            let mut depth = 0usize;
            let mut j = i;
            while j < s.len() {
                if s[j..].starts_with("/-") {
                    depth += 1;
                    j += 2;
                } else if s[j..].starts_with("-/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += next_char(j).map_or(1, char::len_utf8);
                }
            }
            i = j;
        } else if c == '"' {
            let mut j = i + 1;
            while j < s.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(s.len());
            out.push(&s[i..end]);
            i = end;
        } else if ident_start(c) || c == '«' {
            let start = i;
            loop {
                // One component: `«…»` or identifier characters.
                if s[i..].starts_with('«') {
                    i = s[i..].find('»').map_or(s.len(), |n| i + n + '»'.len_utf8());
                } else {
                    while let Some(c) = next_char(i).filter(|&c| ident_char(c)) {
                        i += c.len_utf8();
                    }
                }
                // A dot followed by another component continues the name.
                let continues = s[i..].starts_with('.')
                    && next_char(i + 1).is_some_and(|c| ident_start(c) || c == '«');
                if !continues {
                    break;
                }
                i += 1;
            }
            out.push(&s[start..i]);
        } else if c.is_ascii_digit() {
            let start = i;
            while i < s.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            // A decimal: digits, a dot, digits (not `h.1` or a range `1..5`).
            if s[i..].starts_with('.') && s[i + 1..].starts_with(|c: char| c.is_ascii_digit()) {
                i += 1;
                while i < s.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
            }
            out.push(&s[start..i]);
        } else {
            out.push(&s[i..i + c.len_utf8()]);
            i += c.len_utf8();
        }
    }
    out
}

/// Whether token `t` is an identifier.
fn is_ident(t: &str) -> bool {
    t.chars().next().is_some_and(|c| ident_start(c) || c == '«')
}

/// The tokens joined by spaces, with the variables they bind renamed `#0`, `#1`, … in the
/// order they are first bound; a dotted name whose first component is bound keeps the rest
/// (`s.card` → `#1.card`). The signature's binder groups begin at token `signature`.
fn alpha_renamed(toks: &[&str], signature: usize) -> String {
    let bound = bound_names(toks, signature);
    let mut names: HashMap<&str, usize> = HashMap::new();
    for b in &bound {
        let n = names.len();
        names.entry(b).or_insert(n);
    }
    let mut out = String::with_capacity(toks.len() * 4);
    for t in toks {
        if !out.is_empty() {
            out.push(' ');
        }
        let (head, tail) = match t.find('.') {
            Some(i) if is_ident(t) && !t.starts_with('«') => (&t[..i], &t[i..]),
            _ => (*t, ""),
        };
        match names.get(head) {
            Some(n) if is_ident(t) => {
                out.push('#');
                out.push_str(&n.to_string());
                out.push_str(tail);
            }
            _ => out.push_str(t),
        }
    }
    out
}

/// The names `toks` bind, in the order bound: the binder groups that begin it (a
/// declaration's signature, its name dropped), and what binder notation and set-builder
/// braces bind anywhere.
fn bound_names<'t>(toks: &[&'t str], signature: usize) -> Vec<&'t str> {
    let mut bound = Vec::new();
    // Identifiers of a bracket group opening at `open`, before its top-level `:` (all of
    // them when it has none and binds plainly, `{x}`); with the index after the group.
    let group = |open: usize, need_colon: bool, bound: &mut Vec<&'t str>| -> usize {
        let close = match toks[open] {
            "(" => ")",
            "{" => "}",
            "⦃" => "⦄",
            "[" => "]",
            _ => return open + 1,
        };
        let mut depth = 0i32;
        let mut end = toks.len();
        for (k, t) in toks.iter().enumerate().skip(open) {
            if *t == toks[open] {
                depth += 1;
            } else if *t == close {
                depth -= 1;
                if depth == 0 {
                    end = k;
                    break;
                }
            }
        }
        let inner = &toks[(open + 1).min(end)..end];
        let names: Vec<&'t str> = inner
            .iter()
            .take_while(|t| is_ident(t) && !t.contains('.'))
            .copied()
            .collect();
        let after = inner.get(names.len()).copied();
        if !names.is_empty() && (after == Some(":") || (!need_colon && after.is_none())) {
            bound.extend(names);
        }
        end + 1
    };
    // The signature's binder groups.
    let mut i = signature;
    while i < toks.len() && matches!(toks[i], "(" | "{" | "⦃" | "[") {
        i = group(i, toks[i] == "[", &mut bound);
    }
    // Binder notation and set-builders anywhere.
    for k in 0..toks.len() {
        if BINDERS.contains(&toks[k]) {
            let mut j = k + 1;
            // `∃!`
            if toks.get(j) == Some(&"!") {
                j += 1;
            }
            while j < toks.len() {
                let t = toks[j];
                if matches!(t, "(" | "{" | "⦃" | "[") {
                    j = group(j, t == "[", &mut bound);
                } else if is_ident(t) && !t.contains('.') && !BINDER_ENDS.contains(&t) {
                    bound.push(t);
                    j += 1;
                } else {
                    break;
                }
            }
        } else if toks[k] == "{" {
            // `{x | …}`, `{x : T | …}`, `{x ∈ S | …}`
            let Some(&x) = toks.get(k + 1) else { continue };
            if !is_ident(x) || x.contains('.') {
                continue;
            }
            let next = toks.get(k + 2).copied();
            let builder = match next {
                Some("|") => true,
                // A `|` inside these braces, at their own depth, before they close.
                Some(":") | Some("∈") => {
                    let mut depth = 0i32;
                    let mut bar = false;
                    for t in &toks[k + 2..] {
                        match *t {
                            "(" | "[" | "{" | "⦃" => depth += 1,
                            ")" | "]" | "}" | "⦄" => depth -= 1,
                            "|" if depth == 0 => {
                                bar = true;
                                break;
                            }
                            _ => {}
                        }
                        if depth < 0 {
                            break;
                        }
                    }
                    bar
                }
                _ => false,
            };
            if builder {
                bound.push(x);
            }
        }
    }
    bound
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lean::ParsedFile;

    fn fingerprint(src: &str, name: &str) -> Option<String> {
        let file = ParsedFile::parse(src.to_string());
        let outline = Outline::of("t.lean", &file);
        let i = outline
            .declarations
            .iter()
            .position(|d| d.name == name)
            .unwrap();
        of_declaration(&outline, src, i)
    }

    #[test]
    fn names_layout_comments_and_bound_variables_do_not_count() {
        let a = fingerprint(
            "theorem foo (a b : ℕ) (h : a ≤ b) : ∀ c, a + c ≤ b + c := by\n  omega\n",
            "foo",
        );
        let b = fingerprint(
            "/-- the same -/\ntheorem bar (x y : ℕ)\n    (hxy : x ≤ y) : -- a comment\n    ∀ z, x+z ≤ y+z := fun z => by omega\n",
            "bar",
        );
        assert!(a.is_some());
        assert_eq!(a, b);
        // Set-builders and sums bind too.
        let c = fingerprint(
            "theorem c : {n : ℕ | n < 3}.ncard = ∑ i ∈ Finset.range 3, 1 := sorry\n",
            "c",
        );
        let d = fingerprint(
            "theorem d : {m : ℕ | m < 3}.ncard = ∑ j ∈ Finset.range 3, 1 := sorry\n",
            "d",
        );
        assert_eq!(c, d);
        // A placeholder has no fingerprint.
        assert_eq!(fingerprint("theorem p : True := trivial\n", "p"), None);
    }

    #[test]
    fn what_a_statement_says_counts() {
        let base = "theorem t (a b : ℕ) : a + b = b + a := sorry\n";
        for other in [
            "theorem t (a b : ℕ) : a * b = b * a := sorry\n",
            "theorem t (a b : ℤ) : a + b = b + a := sorry\n",
            // Which variable goes where.
            "theorem t (a b : ℕ) : b + a = b + a := sorry\n",
            // Notation as written.
            "theorem t (a b : ℕ) : Nat.add a b = b + a := sorry\n",
        ] {
            assert_ne!(fingerprint(base, "t"), fingerprint(other, "t"), "{other}");
        }
        // A free name is never renamed: two different functions stay apart.
        assert_ne!(
            fingerprint("theorem t (n : ℕ) : f n = 0 := sorry\n", "t"),
            fingerprint("theorem t (n : ℕ) : g n = 0 := sorry\n", "t")
        );
    }

    #[test]
    fn the_files_own_definitions_and_notations_count() {
        let one = "def isPacking (s : Finset ℕ) : Prop := s.card ≤ 2\n\n\
                   theorem t (s : Finset ℕ) : isPacking s := sorry\n";
        let same = "/-- packing -/\ndef isPacking (S : Finset ℕ) : Prop :=\n  S.card ≤ 2\n\n\
                    theorem u (x : Finset ℕ) : isPacking x := by\n  sorry\n";
        let other = "def isPacking (s : Finset ℕ) : Prop := s.card ≤ 3\n\n\
                     theorem t (s : Finset ℕ) : isPacking s := sorry\n";
        assert_eq!(fingerprint(one, "t"), fingerprint(same, "u"));
        assert_ne!(fingerprint(one, "t"), fingerprint(other, "t"));
        let notation = format!("local notation \"τ\" => 8\n{one}");
        assert_ne!(fingerprint(one, "t"), fingerprint(&notation, "t"));
        // A project's own module may define what the statement names; Mathlib's may not.
        let plain = "theorem t (s : Finset ℕ) : isPacking s := sorry\n";
        let of = |imports: &str| fingerprint(&format!("{imports}\n{plain}"), "t");
        assert_eq!(of("import Mathlib"), of("import Mathlib.Data.Finset.Basic"));
        assert_ne!(of("import ProjA.Defs"), of("import ProjB.Defs"));
    }
}
