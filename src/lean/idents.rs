//! Identifier occurrences: where a file's code names one of a set of declarations.
//!
//! Used by `mf lint` (references to false lemmas) and by the hooks. Only `identifier` nodes of
//! the syntax tree count, so names inside comments and strings never match, and the name a
//! declaration *declares* (its `name` field) is not a reference to itself.
//!
//! # When a token references a name
//!
//! Both sides are split into dot-separated components (`«…»` quoting ignored, a leading
//! `_root_.` or `@` dropped). A token references the name `L₁.….Lₙ` when some component
//! `Tᵢ` of the token equals `Lₙ` and the components before it agree with `L₁…Lₙ₋₁` on their
//! common tail (one is a suffix of the other). Components after `Tᵢ` are ignored. So for the
//! name `foo`:
//!
//! - `foo`, `Ns.foo`, `h.foo`, `foo.mp`, `(foo h).le` match — a qualified reference, generalized
//!   field notation, or a projection of the lemma;
//! - `foo_bar`, `bar_foo`, `foo'`, `Ns.foo_bar` never match: components are compared whole.
//!
//! and for the qualified name `Ns.foo`: `foo` (written inside `namespace Ns` or after
//! `open Ns`), `Ns.foo`, `Root.Ns.foo` and `Ns.foo.symm` match, `Other.foo` does not.
//! Without resolving `open`s and namespaces this over-approximates a little (`foo` also matches
//! `Ns.foo` where another `foo` is meant), which is right for a warning.

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::Node;

use super::syntax::{ParsedFile, Position};

/// A set of declaration names to look for.
#[derive(Debug, Clone, Default)]
pub struct NameSet {
    /// The names as given.
    names: Vec<String>,
    /// Components of each name, unquoted.
    components: Vec<Vec<String>>,
    /// Last component → indices into `names`.
    by_last: HashMap<String, Vec<usize>>,
}

impl NameSet {
    /// A set of the given names; blank names are ignored, surrounding whitespace is trimmed.
    pub fn new<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> NameSet {
        let mut set = NameSet::default();
        for name in names {
            let name = name.as_ref().trim();
            let parts: Vec<String> = name_parts(name).map(str::to_string).collect();
            let Some(last) = parts.last().cloned() else {
                continue;
            };
            if set.names.iter().any(|n| n == name) {
                continue;
            }
            set.by_last.entry(last).or_default().push(set.names.len());
            set.names.push(name.to_string());
            set.components.push(parts);
        }
        set
    }

    /// Whether the set has no names.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The names in the set, as given.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The names of the set that `token` references (see the module documentation).
    pub fn referenced_by(&self, token: &str) -> Vec<&str> {
        // Most tokens share no component with any name: answer those without allocating.
        let plain = !token.contains('«');
        if plain
            && !token
                .split('.')
                .any(|p| self.by_last.contains_key(p.trim_start_matches('@')))
        {
            return Vec::new();
        }
        let token: Vec<&str> = name_parts(token).collect();
        let mut found: Vec<usize> = Vec::new();
        for (i, part) in token.iter().enumerate() {
            let Some(candidates) = self.by_last.get(*part) else {
                continue;
            };
            let before = &token[..i];
            for &c in candidates {
                let qualifier = &self.components[c][..self.components[c].len() - 1];
                if tails_agree(before, qualifier) && !found.contains(&c) {
                    found.push(c);
                }
            }
        }
        found.sort_unstable();
        found.into_iter().map(|c| self.names[c].as_str()).collect()
    }
}

/// Whether the shorter of `a` and `b` is a suffix of the longer.
fn tails_agree(a: &[&str], b: &[String]) -> bool {
    a.iter().rev().zip(b.iter().rev()).all(|(x, y)| *x == y)
}

/// The components of a dotted name with `«»` quoting removed and a leading `@` or `_root_`
/// dropped: `@_root_.A.«b.c»` → `A`, `b.c`.
fn name_parts(name: &str) -> impl Iterator<Item = &str> {
    let name = name.strip_prefix('@').unwrap_or(name);
    let mut parts = components(name).into_iter().peekable();
    if parts.peek() == Some(&"_root_") {
        parts.next();
    }
    parts.map(|p| {
        p.strip_prefix('«')
            .and_then(|p| p.strip_suffix('»'))
            .unwrap_or(p)
    })
}

/// `A.B.«c.d»` → `["A", "B", "«c.d»"]`: splits on dots outside `«…»`, drops empty parts.
pub fn components(name: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut quoted = false;
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
    parts
}

/// One place where code names a member of a [`NameSet`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// The name of the set that is referenced.
    pub name: String,
    /// The identifier token as written.
    pub token: String,
    pub start: Position,
    pub end: Position,
    pub bytes: Range<usize>,
}

/// Every `identifier` node that is code and not the name a declaration declares, in document
/// order.
pub fn code_identifiers(file: &ParsedFile) -> Vec<Node<'_>> {
    code_identifiers_where(file, |_| true)
}

/// [`code_identifiers`], entering a node only where `enter` says so: the identifiers below a
/// node it refuses are left out.
pub fn code_identifiers_where<'f>(
    file: &'f ParsedFile,
    enter: impl Fn(Node<'f>) -> bool,
) -> Vec<Node<'f>> {
    struct Ids {
        identifier: u16,
        declaration: u16,
        name: Option<std::num::NonZeroU16>,
    }
    static IDS: std::sync::OnceLock<Ids> = std::sync::OnceLock::new();
    // Kind and field ids, not names: a name is a string built on every call.
    let k = IDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_lean::LANGUAGE.into();
        Ids {
            identifier: lang.id_for_node_kind("identifier", true),
            declaration: lang.id_for_node_kind("declaration", true),
            name: lang.field_id_for_name("name"),
        }
    });
    let mut out = Vec::new();
    let mut cursor = file.root().walk();
    // The kinds of the cursor's ancestors (`Node::parent` walks down from the root each time).
    let mut parents: Vec<u16> = Vec::new();
    loop {
        let node = cursor.node();
        if node.kind_id() == k.identifier {
            let declared = k.name.is_some()
                && cursor.field_id() == k.name
                && parents.last() == Some(&k.declaration);
            if !declared {
                out.push(node);
            }
        } else if enter(node) && cursor.goto_first_child() {
            parents.push(node.kind_id());
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
            parents.pop();
        }
    }
}

/// Every reference in `file` to a name of `names`, in document order (a token that references
/// two names of the set yields two references).
pub fn references(file: &ParsedFile, names: &NameSet) -> Vec<Reference> {
    if names.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for node in code_identifiers(file) {
        let token = file.text_of(node);
        for name in names.referenced_by(token) {
            out.push(Reference {
                name: name.to_string(),
                token: token.to_string(),
                start: file.start_of(node),
                end: file.end_of(node),
                bytes: node.byte_range(),
            });
        }
    }
    out
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
    fn components_split_outside_guillemets() {
        assert_eq!(components("A.B.«c.d»"), vec!["A", "B", "«c.d»"]);
        assert_eq!(components("Foo"), vec!["Foo"]);
        assert!(components("").is_empty());
    }

    #[test]
    fn short_name_matches_whole_components_only() {
        for token in [
            "foo",
            "Ns.foo",
            "h.foo",
            "foo.mp",
            "A.B.foo.symm",
            "@foo",
            "«foo»",
        ] {
            assert_eq!(refs(&["foo"], token), vec!["foo"], "{token}");
        }
        for token in [
            "foo_bar",
            "bar_foo",
            "foo'",
            "Ns.foo_bar",
            "fo",
            "oo",
            "Foo",
        ] {
            assert!(refs(&["foo"], token).is_empty(), "{token}");
        }
    }

    #[test]
    fn qualified_name_needs_an_agreeing_qualifier() {
        for token in [
            "foo",
            "Ns.foo",
            "Root.Ns.foo",
            "Ns.foo.symm",
            "_root_.Ns.foo",
        ] {
            assert_eq!(refs(&["Ns.foo"], token), vec!["Ns.foo"], "{token}");
        }
        for token in ["Other.foo", "Ns.Other.foo", "Ns", "Ns.bar"] {
            assert!(refs(&["Ns.foo"], token).is_empty(), "{token}");
        }
    }

    #[test]
    fn blank_and_repeated_names_are_ignored() {
        let set = NameSet::new(["", "  ", "foo", " foo "]);
        assert_eq!(set.names(), ["foo"]);
        assert!(NameSet::new(Vec::<String>::new()).is_empty());
    }

    #[test]
    fn one_token_can_reference_several_names() {
        assert_eq!(
            refs(&["foo", "Ns.foo", "bar"], "Ns.foo"),
            vec!["foo", "Ns.foo"]
        );
    }
}
