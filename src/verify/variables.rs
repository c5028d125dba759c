//! Section variables Lean would add to a theorem's statement.
//!
//! A theorem's real statement can be weaker than its text: Lean (4.10 and later) adds to it the
//! section variables that the statement mentions, the variables those depend on, every
//! instance-implicit variable whose dependencies are all added (so `variable [Fact False]`,
//! which depends on nothing, is added to every theorem in scope), and anything named by
//! `include`. The spec check refuses a theorem that would receive any of them, so
//! `variable [h : Fact False]` cannot make `theorem foo : 1 = 2` provable.
//!
//! Mentions are counted conservatively: an identifier of the statement whose first component is
//! a variable's name counts, unless the declaration's own binders bind that name. Older Lean
//! versions also added variables used only in the proof; that is not detected here.

use std::collections::HashSet;

use tree_sitter::Node;

use crate::lean::idents::components;
use crate::lean::outline::collapse_whitespace;
use crate::lean::syntax::tokens;
use crate::lean::ParsedFile;

const BINDER_KINDS: &[&str] = &[
    "explicit_binder",
    "implicit_binder",
    "instance_binder",
    "strict_implicit_binder",
];

/// A section variable (or `include`) that Lean would add to the statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hypothesis {
    pub line: usize,
    /// The binder or command as written, whitespace collapsed.
    pub text: String,
}

/// One binder of a `variable` command.
struct Binder<'t> {
    node: Node<'t>,
    names: Vec<&'t str>,
    instance: bool,
    /// First components of the identifiers in its type.
    mentions: Vec<&'t str>,
}

/// What Lean would add to the statement of `decl` (a `declaration` node of `file`).
pub fn added_hypotheses(file: &ParsedFile, decl: Node<'_>) -> Vec<Hypothesis> {
    let commands = commands_in_scope(file, decl);
    let mut out = Vec::new();
    let mut binders = Vec::new();
    for command in commands {
        if command.kind() == "include" {
            out.push(hypothesis(file, command));
            continue;
        }
        let mut cursor = command.walk();
        for child in command.named_children(&mut cursor) {
            if BINDER_KINDS.contains(&child.kind()) || child.kind() == "identifier" {
                binders.push(binder(file, child));
            }
        }
    }
    let included = included(&binders, &statement_mentions(file, decl));
    let mut added: Vec<usize> = included.into_iter().collect();
    added.sort_unstable();
    out.extend(added.into_iter().map(|i| hypothesis(file, binders[i].node)));
    out.sort_by_key(|h| h.line);
    out
}

fn hypothesis(file: &ParsedFile, node: Node<'_>) -> Hypothesis {
    let text = match node.kind() {
        "include" => file.text_of(node).lines().next().unwrap_or("").to_string(),
        _ => file.text_of(node).to_string(),
    };
    Hypothesis {
        line: node.start_position().row + 1,
        text: collapse_whitespace(&text),
    }
}

/// Indices of the binders Lean includes, given the variable names the statement mentions.
fn included(binders: &[Binder<'_>], mentioned: &HashSet<&str>) -> HashSet<usize> {
    // The latest binder of a name is the one in scope.
    let binder_of = |name: &str, before: usize| {
        (0..before)
            .rev()
            .find(|&i| binders[i].names.contains(&name))
    };
    let mut included: HashSet<usize> = HashSet::new();
    for name in mentioned {
        if let Some(i) = binder_of(name, binders.len()) {
            included.insert(i);
        }
    }
    loop {
        let before = included.len();
        for (i, b) in binders.iter().enumerate() {
            let deps: Vec<usize> = b.mentions.iter().filter_map(|m| binder_of(m, i)).collect();
            if included.contains(&i) {
                included.extend(deps);
            } else if b.instance && deps.iter().all(|d| included.contains(d)) {
                included.insert(i);
            }
        }
        if included.len() == before {
            return included;
        }
    }
}

fn binder<'t>(file: &'t ParsedFile, node: Node<'t>) -> Binder<'t> {
    let instance = node.kind() == "instance_binder";
    if node.kind() == "identifier" {
        return Binder {
            node,
            names: vec![file.text_of(node)],
            instance,
            mentions: Vec::new(),
        };
    }
    let toks = tokens(node);
    let colon = toks.iter().position(|t| file.text_of(*t) == ":");
    let idents = |range: &[Node<'t>]| -> Vec<&'t str> {
        range
            .iter()
            .filter(|t| t.kind() == "identifier")
            .map(|t| first_component(file.text_of(*t)))
            .collect()
    };
    let (names, mentions) = match colon {
        Some(c) => (idents(&toks[..c]), idents(&toks[c + 1..])),
        None if instance => (Vec::new(), idents(&toks)),
        None => (idents(&toks), Vec::new()),
    };
    Binder {
        node,
        names,
        instance,
        mentions,
    }
}

fn first_component(name: &str) -> &str {
    components(name).first().copied().unwrap_or(name)
}

/// Names the statement of `decl` mentions and does not bind itself.
fn statement_mentions<'t>(file: &'t ParsedFile, decl: Node<'t>) -> HashSet<&'t str> {
    let start = decl
        .child_by_field_name("name")
        .or_else(|| decl.child_by_field_name("kind"))
        .map_or(decl.start_byte(), |n| n.end_byte());
    let end = decl
        .child_by_field_name("body")
        .map_or(decl.end_byte(), |b| b.start_byte());
    let mut bound = HashSet::new();
    let mut cursor = decl.walk();
    for child in decl.named_children(&mut cursor) {
        if BINDER_KINDS.contains(&child.kind()) {
            bound.extend(binder(file, child).names);
        }
    }
    tokens(decl)
        .into_iter()
        .filter(|t| t.kind() == "identifier" && t.start_byte() >= start && t.end_byte() <= end)
        .map(|t| first_component(file.text_of(t)))
        .filter(|n| !bound.contains(n))
        .collect()
}

/// The `variable` and `include` commands whose scope covers `decl`, in file order.
fn commands_in_scope<'t>(file: &'t ParsedFile, decl: Node<'t>) -> Vec<Node<'t>> {
    let is_variable = |n: &Node<'_>| matches!(n.kind(), "variable" | "include");
    // Frames of open namespaces and sections; the bottom frame is the file.
    let mut frames: Vec<Vec<Node<'t>>> = vec![Vec::new()];
    let root = file.root();
    let mut cursor = root.walk();
    for node in root.named_children(&mut cursor) {
        if node.end_byte() > decl.start_byte() {
            break;
        }
        match node.kind() {
            "namespace" | "section" => frames.push(Vec::new()),
            "end" if frames.len() > 1 => {
                frames.pop();
            }
            // `variable … in cmd` scopes over `cmd` only.
            _ if is_variable(&node) && node.child_by_field_name("command").is_none() => {
                if let Some(frame) = frames.last_mut() {
                    frame.push(node);
                }
            }
            _ => {}
        }
    }
    let mut commands = frames.concat();
    // Wrappers around the declaration itself: `variable [h] in theorem …`, also under `open … in`.
    let mut wrappers = Vec::new();
    let mut node = decl.parent();
    while let Some(n) = node {
        if is_variable(&n) {
            wrappers.push(n);
        }
        node = n.parent();
    }
    wrappers.reverse();
    commands.extend(wrappers);
    commands
}

#[cfg(test)]
mod tests {
    use super::*;

    fn added(text: &str, name: &str) -> Vec<(usize, String)> {
        let file = ParsedFile::parse(text.to_string());
        let mut found = None;
        let mut cursor = file.root().walk();
        crate::lean::outline::for_each_descendant(&mut cursor, |n| {
            if n.kind() == "declaration"
                && n.child_by_field_name("name").map(|x| file.text_of(x)) == Some(name)
            {
                found = Some(n);
            }
        });
        added_hypotheses(&file, found.expect("declaration"))
            .into_iter()
            .map(|h| (h.line, h.text))
            .collect()
    }

    #[test]
    fn instance_variables_without_dependencies_are_always_added() {
        let text = "variable [h : Fact False]\ntheorem foo : 1 = 2 := h.out.elim\n";
        assert_eq!(added(text, "foo"), [(1, "[h : Fact False]".to_string())]);
    }

    #[test]
    fn mentioned_variables_bring_their_dependencies_and_instances() {
        let text = "variable {V : Type*} [Fintype V] [DecidableEq V] (n : ℕ)\n\
                    theorem foo (G : SimpleGraph V) : G = G := rfl\n";
        assert_eq!(
            added(text, "foo"),
            [
                (1, "{V : Type*}".to_string()),
                (1, "[Fintype V]".to_string()),
                (1, "[DecidableEq V]".to_string()),
            ]
        );
    }

    #[test]
    fn self_contained_statements_receive_nothing() {
        let text = "variable {V : Type*} [Fintype V] (n : ℕ)\n\
                    theorem foo {V : Type*} [Fintype V] (G : SimpleGraph V) : G = G := rfl\n";
        assert_eq!(added(text, "foo"), []);
    }

    #[test]
    fn closed_scopes_and_one_command_wrappers_do_not_leak() {
        let text = "section\nvariable [h : Fact False]\nend\n\
                    variable [Fact False] in\ntheorem other : True := trivial\n\
                    theorem foo : 1 = 1 := rfl\n";
        assert_eq!(added(text, "foo"), []);
        let text = "open Nat in\nvariable [h : Fact False] in\ntheorem foo : 1 = 2 := h.out.elim\n";
        assert_eq!(added(text, "foo"), [(2, "[h : Fact False]".to_string())]);
    }

    #[test]
    fn include_is_always_reported() {
        let text = "variable (h : False)\ninclude h\ntheorem foo : 1 = 2 := h.elim\n";
        assert_eq!(added(text, "foo"), [(2, "include h".to_string())]);
    }
}
