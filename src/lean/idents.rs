//! Where a file's code names one of a set of declarations (false lemmas, for the hooks).
//!
//! Only `identifier` nodes of the syntax tree count, so a name inside a comment or a string
//! never matches, and the name a declaration declares (its `name` field) is not a reference.
//! Names are compared component by component (`«…»` quoting, a leading `@` and `_root_.`
//! ignored): the token `T₁.….Tₘ` references `L₁.….Lₙ` when some `Tᵢ = Lₙ` and the components
//! before `Tᵢ` agree with `L₁…Lₙ₋₁` on their common tail. So `foo` is referenced by `foo`,
//! `Ns.foo`, `h.foo` and `foo.mp`, never by `foo_bar` or `foo'`; `Ns.foo` is referenced by `foo`
//! and `Ns.foo.symm`, not by `Other.foo`.
//!
//! The `lint` branch has a matcher with the same intent and API (`NameSet`, `references`);
//! when both are on main, one of them goes.

use std::collections::HashMap;
use std::ops::Range;

use super::syntax::{ParsedFile, Position};

/// A set of declaration names to look for.
#[derive(Debug, Clone, Default)]
pub struct NameSet {
    names: Vec<String>,
    /// Components of each name, unquoted.
    parts: Vec<Vec<String>>,
    /// Last component → indices of the names ending with it.
    by_last: HashMap<String, Vec<usize>>,
}

/// One identifier token that references a name of a [`NameSet`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The name of the set, as given.
    pub name: String,
    /// The token as written.
    pub token: String,
    pub start: Position,
    pub end: Position,
    pub bytes: Range<usize>,
}

impl NameSet {
    /// The given names, trimmed; blank and repeated names are dropped.
    pub fn new<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> NameSet {
        let mut set = NameSet::default();
        for name in names {
            let name = name.as_ref().trim();
            let parts: Vec<String> = name_parts(name).map(str::to_string).collect();
            let Some(last) = parts.last() else { continue };
            if set.names.iter().any(|n| n == name) {
                continue;
            }
            set.by_last
                .entry(last.clone())
                .or_default()
                .push(set.names.len());
            set.names.push(name.to_string());
            set.parts.push(parts);
        }
        set
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The names, as given.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The names of the set that `token` references, in the order they were given.
    pub fn referenced_by(&self, token: &str) -> Vec<&str> {
        let token: Vec<&str> = name_parts(token).collect();
        let mut found: Vec<usize> = Vec::new();
        for (i, part) in token.iter().enumerate() {
            for &n in self.by_last.get(*part).map_or(&[][..], Vec::as_slice) {
                let qualifier = &self.parts[n][..self.parts[n].len() - 1];
                let agree = token[..i]
                    .iter()
                    .rev()
                    .zip(qualifier.iter().rev())
                    .all(|(a, b)| *a == b);
                if agree && !found.contains(&n) {
                    found.push(n);
                }
            }
        }
        found.sort_unstable();
        found.into_iter().map(|n| self.names[n].as_str()).collect()
    }
}

/// Every reference in `file`'s code to a name of `names`, in document order.
pub fn references(file: &ParsedFile, names: &NameSet) -> Vec<Reference> {
    let mut out = Vec::new();
    if names.is_empty() {
        return out;
    }
    let mut cursor = file.root().walk();
    'walk: loop {
        let node = cursor.node();
        if node.kind() == "identifier" {
            let declared = node.parent().is_some_and(|p| {
                p.kind() == "declaration" && p.child_by_field_name("name") == Some(node)
            });
            let token = file.text_of(node);
            if !declared {
                for name in names.referenced_by(token) {
                    out.push(Reference {
                        name: name.to_string(),
                        token: token.to_string(),
                        start: Position::start_of(&file.text, node),
                        end: Position::end_of(&file.text, node),
                        bytes: node.byte_range(),
                    });
                }
            }
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    out
}

/// The components of a dotted name without `«»`, a leading `@` or `_root_`:
/// `@_root_.A.«b.c»` → `A`, `b.c`.
fn name_parts(name: &str) -> impl Iterator<Item = &str> {
    let name = name.strip_prefix('@').unwrap_or(name);
    let mut parts = Vec::new();
    let (mut start, mut quoted) = (0, false);
    for (i, c) in name.char_indices() {
        match c {
            '«' => quoted = true,
            '»' => quoted = false,
            '.' if !quoted => {
                parts.push(&name[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&name[start..]);
    parts.retain(|p| !p.is_empty());
    if parts.first() == Some(&"_root_") {
        parts.remove(0);
    }
    parts.into_iter().map(|p| {
        p.strip_prefix('«')
            .and_then(|p| p.strip_suffix('»'))
            .unwrap_or(p)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refs(names: &[&str], token: &str) -> Vec<String> {
        NameSet::new(names)
            .referenced_by(token)
            .into_iter()
            .map(String::from)
            .collect()
    }

    #[test]
    fn whole_components_only() {
        for token in [
            "foo",
            "Ns.foo",
            "h.foo",
            "foo.mp",
            "@foo",
            "«foo»",
            "_root_.foo",
        ] {
            assert_eq!(refs(&["foo"], token), ["foo"], "{token}");
        }
        for token in ["foo_bar", "bar_foo", "foo'", "Ns.foo_bar", "fo", "Foo"] {
            assert!(refs(&["foo"], token).is_empty(), "{token}");
        }
    }

    #[test]
    fn qualified_names_need_an_agreeing_qualifier() {
        for token in ["foo", "Ns.foo", "A.Ns.foo", "Ns.foo.symm"] {
            assert_eq!(refs(&["Ns.foo"], token), ["Ns.foo"], "{token}");
        }
        for token in ["Other.foo", "Ns.Other.foo", "Ns", "Ns.bar"] {
            assert!(refs(&["Ns.foo"], token).is_empty(), "{token}");
        }
    }

    #[test]
    fn code_only_and_not_the_declared_name() {
        let text = "/-- uses foo -/\ntheorem foo : True := trivial\n-- foo here\n\
                    theorem bar : True := by\n  have := \"foo\"\n  exact foo\n\
                    theorem baz : True := foo_bar\n";
        let file = ParsedFile::parse(text.to_string());
        let found = references(&file, &NameSet::new(["foo"]));
        let at: Vec<(usize, &str)> = found
            .iter()
            .map(|r| (r.start.line, r.token.as_str()))
            .collect();
        assert_eq!(at, [(6, "foo")]);
        assert!(references(&file, &NameSet::new(Vec::<String>::new())).is_empty());
    }
}
