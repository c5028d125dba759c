//! The rule checks: one walk over the syntax tree, plus the outline for full names.
//!
//! Which node kinds each rule matches is listed on [`Rule`](super::Rule); the grammar's node
//! contract is in `grammar/README.md`.

use std::collections::HashMap;

use tree_sitter::Node;

use super::{LintConfig, Rule};
use crate::lean::idents;
use crate::lean::outline::for_each_descendant;
use crate::lean::syntax::{tokens, Position};
use crate::lean::trust_scan::{self, Escape, LexicalEscapes};
use crate::lean::{Outline, ParsedFile};

/// Debug commands that should not stay in a checked-in file.
const DEBUG_COMMANDS: &[&str] = &["#eval", "#check", "#print", "#reduce", "#exit"];

/// The command that turns the command it wraps into a test of that command's output.
const GUARD: &str = "#guard_msgs";

/// Named node kinds [`Checker::node`] reads.
const CHECKED_KINDS: &[&str] = &[
    "sorry",
    "admit",
    "identifier",
    "declaration",
    "attribute",
    "tactic",
    "set_option",
    "hash_command",
    "exit_command",
];

/// For a named node of a kind some rule reads (one of [`CHECKED_KINDS`], or opaque code for
/// [`LexicalEscapes`]): its kind and whether it is opaque; `None` for any other node. Read
/// once per kind id from the grammar: the walk asks it of every node of the file.
fn kind_of(node: Node<'_>) -> Option<(&'static str, bool)> {
    static KINDS: std::sync::OnceLock<Vec<Option<(&'static str, bool)>>> =
        std::sync::OnceLock::new();
    let kinds = KINDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_lean::LANGUAGE.into();
        (0..lang.node_kind_count() as u16)
            .map(|id| {
                let name = lang.node_kind_for_id(id)?;
                if !lang.node_kind_is_named(id) {
                    return None;
                }
                let opaque = LexicalEscapes::is_opaque_kind(name);
                let checked = CHECKED_KINDS.iter().find(|k| **k == name).copied();
                match (checked, opaque) {
                    (Some(kind), _) => Some((kind, opaque)),
                    (None, true) => Some(("", true)),
                    (None, false) => None,
                }
            })
            .collect()
    });
    kinds.get(node.kind_id() as usize).copied().flatten()
}

/// A finding before configuration (severity, allow comments) is applied.
#[derive(Debug)]
pub struct Raw {
    pub rule: Rule,
    pub start: Position,
    pub end: Position,
    pub message: String,
}

struct Checker<'f, 'c> {
    file: &'f ParsedFile,
    config: &'c LintConfig,
    out: Vec<Raw>,
    /// Start byte of each `declaration` node → its `name` node.
    declaration_names: HashMap<usize, Node<'f>>,
    /// The escape words read lexically, gathered during the walk (taken when it ends).
    escapes: Option<LexicalEscapes>,
}

/// Runs every enabled rule over `file`.
pub fn run(file: &ParsedFile, config: &LintConfig) -> Vec<Raw> {
    let mut checker = Checker {
        file,
        config,
        out: Vec::new(),
        declaration_names: HashMap::new(),
        escapes: Some(LexicalEscapes::new(file)),
    };
    checker.walk();
    if config.enabled(Rule::DuplicateDeclaration) {
        checker.duplicates();
    }
    if config.enabled(Rule::FalseLemmaReference) {
        checker.false_lemma_references();
    }
    if config.enabled(Rule::ParseError) {
        checker.parse_errors();
    }
    checker.out
}

impl<'f> Checker<'f, '_> {
    fn text(&self, node: Node<'_>) -> &'f str {
        &self.file.text[node.byte_range()]
    }

    fn push(&mut self, rule: Rule, from: Node<'_>, to: Node<'_>, message: String) {
        if !self.config.enabled(rule) {
            return;
        }
        self.out.push(Raw {
            rule,
            start: self.file.start_of(from),
            end: self.file.end_of(to),
            message,
        });
    }

    fn walk(&mut self) {
        let root = self.file.root();
        let mut cursor = root.walk();
        for_each_descendant(&mut cursor, |n| self.node(n));
        self.lexical_escapes();
    }

    fn node(&mut self, node: Node<'f>) {
        // Keywords and punctuation (e.g. the `sorry` token inside a `sorry` node) and named
        // kinds no rule reads are `None`: most nodes, passed with one table lookup.
        let Some((kind, opaque)) = kind_of(node) else {
            return;
        };
        if opaque {
            if let Some(escapes) = &mut self.escapes {
                escapes.visit(node, &self.file.text);
            }
        }
        match kind {
            "sorry" => self.push(
                Rule::Sorry,
                node,
                node,
                "`sorry` leaves a proof unfinished".into(),
            ),
            "admit" => self.push(
                Rule::Admit,
                node,
                node,
                "`admit` leaves a proof unfinished".into(),
            ),
            "identifier" => self.identifier(node),
            "declaration" => self.declaration(node),
            "attribute" => self.attribute(node),
            "tactic" => self.tactic(node),
            "set_option" => self.set_option(node),
            "hash_command" | "exit_command" => self.hash_command(node),
            _ => {}
        }
    }

    /// Escape words in the commands the parser could not read and in the code of text it
    /// reads as one token (HTML in a term, Verso's Lean code blocks, a metaprogram's code),
    /// found lexically ([`trust_scan`]): neither may hide a hole, an axiom or a trusted
    /// compiler. A word the tree already reported (the rest of the command parsed) is not
    /// repeated.
    fn lexical_escapes(&mut self) {
        let Some(escapes) = self.escapes.take() else {
            return;
        };
        let hits = escapes.finish(self.file);
        if hits.is_empty() {
            return;
        }
        let mut reported: Vec<(Rule, Position, Position)> =
            self.out.iter().map(|f| (f.rule, f.start, f.end)).collect();
        reported.sort_unstable();
        for hit in hits {
            let rule = rule_of(hit.escape);
            let start = self.file.position(hit.span.start);
            // The finding of this rule that starts last at or before the word covers it?
            let k = reported.partition_point(|&(r, s, _)| (r, s) <= (rule, start));
            let reported = k > 0 && {
                let (r, _, end) = reported[k - 1];
                r == rule && start < end
            };
            if reported || !self.config.enabled(rule) {
                continue;
            }
            let end = self.file.position(hit.span.end);
            self.out.push(Raw {
                rule,
                start,
                end,
                message: format!(
                    "`{}` in {}",
                    hit.word,
                    trust_scan::describe_region(hit.opaque)
                ),
            });
        }
    }

    fn identifier(&mut self, node: Node<'f>) {
        let text = self.text(node);
        let last = idents::components(text).last().copied().unwrap_or("");
        if matches!(last, "sorryAx" | "ofReduceBool") && quoted_data(node, &self.file.text) {
            // Syntax a metaprogram builds (`` `(sorryAx _ true) ``): a term of the file that
            // elaborates the syntax, not of this one (see `crate::lean::opaque`).
            return;
        }
        match last {
            "sorryAx" => self.push(
                Rule::Sorry,
                node,
                node,
                "`sorryAx` is `sorry` written out: the proof is unfinished".into(),
            ),
            "ofReduceBool" => self.push(
                Rule::NativeDecide,
                node,
                node,
                "`Lean.ofReduceBool` trusts the compiler's evaluation instead of the kernel".into(),
            ),
            _ => {}
        }
    }

    fn declaration(&mut self, node: Node<'f>) {
        let name = node.child_by_field_name("name");
        if let Some(name) = name {
            self.declaration_names.insert(node.start_byte(), name);
        }
        let Some(kind) = node.child_by_field_name("kind") else {
            return;
        };
        if self.text(kind) == "axiom" {
            let shown = name.map_or("(unnamed)", |n| self.text(n));
            self.push(
                Rule::Axiom,
                kind,
                name.unwrap_or(kind),
                format!("axiom `{shown}` is assumed without proof; prove it as a theorem instead"),
            );
        }
    }

    fn attribute(&mut self, node: Node<'f>) {
        let Some(first) = first_token(node) else {
            return;
        };
        let what = match self.text(first) {
            "implemented_by" => {
                "`implemented_by` replaces the definition with other code when compiled"
            }
            "extern" => "`extern` replaces the definition with foreign code when compiled",
            "csimp" => "`csimp` replaces one function by another when compiled",
            _ => return,
        };
        let attribute = crate::lean::outline::collapse_whitespace(self.text(node));
        self.push(
            Rule::ImplementedBy,
            node,
            node,
            format!("`@[{attribute}]`: {what}; proofs that evaluate it trust that code"),
        );
    }

    fn tactic(&mut self, node: Node<'f>) {
        let Some(head) = node.child_by_field_name("head") else {
            return;
        };
        let message = match self.text(head) {
            "native_decide" => {
                "`native_decide` trusts the compiler through the axiom `Lean.ofReduceBool`; prefer `decide`"
            }
            "decide" if self.has_native_flag(node) => {
                "`decide +native` trusts the compiler through the axiom `Lean.ofReduceBool`; prefer `decide`"
            }
            "set_option" => {
                // The tactic form `set_option NAME VALUE in TACTIC`.
                let tokens = tokens(node);
                if let (Some(&name), Some(&value)) = (tokens.get(1), tokens.get(2)) {
                    self.option(head, name, value);
                }
                return;
            }
            _ => return,
        };
        self.push(Rule::NativeDecide, head, head, message.into());
    }

    /// Whether a `decide` tactic is given `+native` (or `native := true`).
    fn has_native_flag(&self, node: Node<'f>) -> bool {
        let texts: Vec<&str> = tokens(node).into_iter().map(|t| self.text(t)).collect();
        texts.windows(2).any(|w| w == ["+", "native"])
            || texts.contains(&"+native")
            || texts.windows(3).any(|w| w == ["native", ":=", "true"])
    }

    /// The command `set_option NAME VALUE [in …]`.
    fn set_option(&mut self, node: Node<'f>) {
        let name = node.child_by_field_name("name");
        let value = node.child_by_field_name("value");
        if let (Some(keyword), Some(name), Some(value)) = (node.child(0), name, value) {
            self.option(keyword, name, value);
        }
    }

    /// One option setting, from the `set_option` keyword to the value.
    fn option(&mut self, keyword: Node<'f>, name: Node<'f>, value: Node<'f>) {
        match (self.text(name), self.text(value)) {
            ("maxHeartbeats", "0") => self.push(
                Rule::MaxHeartbeatsZero,
                keyword,
                value,
                "`set_option maxHeartbeats 0` removes the time limit; give a finite limit such as 400000".into(),
            ),
            ("debug.skipKernelTC", "true") => self.push(
                Rule::SkipKernelTc,
                keyword,
                value,
                "`set_option debug.skipKernelTC true` stops the kernel from checking proofs".into(),
            ),
            _ => {}
        }
    }

    fn hash_command(&mut self, node: Node<'f>) {
        let Some(first) = first_token(node) else {
            return;
        };
        let command = self.text(first);
        if !DEBUG_COMMANDS.contains(&command) {
            return;
        }
        // `#guard_msgs in #eval …` is a test whose output Lean checks, not a leftover.
        let guarded = node.parent().is_some_and(|p| {
            p.kind() == "hash_command" && first_token(p).is_some_and(|t| self.text(t) == GUARD)
        });
        if !guarded {
            self.push(
                Rule::DebugCommand,
                first,
                first,
                format!("`{command}` is a debug command; remove it before committing"),
            );
        }
    }

    fn duplicates(&mut self) {
        // Only names are compared: the proofs (in a hole-dense file, most of the tree) are
        // not read.
        let outline = Outline::declarations_only("", self.file);
        let mut first_line: HashMap<&str, usize> = HashMap::new();
        let mut found = Vec::new();
        for decl in &outline.declarations {
            if decl.full_name.is_empty() {
                continue;
            }
            match first_line.get(decl.full_name.as_str()) {
                None => {
                    first_line.insert(&decl.full_name, decl.line);
                }
                Some(&line) => {
                    if let Some(&name) = self.declaration_names.get(&decl.span.start) {
                        found.push((
                            name,
                            format!("`{}` is already declared on line {line}", decl.full_name),
                        ));
                    }
                }
            }
        }
        for (name, message) in found {
            self.push(Rule::DuplicateDeclaration, name, name, message);
        }
    }

    fn false_lemma_references(&mut self) {
        let references = idents::references(self.file, &self.config.false_lemmas);
        for r in references {
            let message = if r.token == r.name {
                format!("`{}` is recorded as false in tracking.db", r.name)
            } else {
                format!(
                    "`{}` refers to `{}`, recorded as false in tracking.db",
                    r.token, r.name
                )
            };
            self.out.push(Raw {
                rule: Rule::FalseLemmaReference,
                start: r.start,
                end: r.end,
                message,
            });
        }
    }

    fn parse_errors(&mut self) {
        let errors = self.file.errors().list();
        let Some(first) = errors.first() else {
            return;
        };
        let message = match errors.len() {
            1 => format!(
                "mf could not parse this part of the file ({}); findings in it may be missed",
                first.describe()
            ),
            n => format!(
                "mf could not parse {n} parts of this file (the first is here: {}); findings in them may be missed",
                first.describe()
            ),
        };
        if self.config.enabled(Rule::ParseError) {
            self.out.push(Raw {
                rule: Rule::ParseError,
                start: self.file.position(first.span.start),
                end: self.file.position(first.span.end),
                message,
            });
        }
    }
}

/// The first token of `node`, comments skipped.
fn first_token(node: Node<'_>) -> Option<Node<'_>> {
    let mut node = node;
    while node.child_count() > 0 {
        let mut cursor = node.walk();
        let next = node.children(&mut cursor).find(|c| !c.is_extra())?;
        node = next;
    }
    Some(node)
}

/// The rule that reports an escape word in parsed code.
fn rule_of(escape: Escape) -> Rule {
    match escape {
        Escape::Sorry => Rule::Sorry,
        Escape::Admit => Rule::Admit,
        Escape::Axiom => Rule::Axiom,
        Escape::NativeDecide => Rule::NativeDecide,
        Escape::ImplementedBy => Rule::ImplementedBy,
        Escape::SkipKernelTc => Rule::SkipKernelTc,
    }
}

/// Whether `node` is inside a syntax quotation and not in one of its antiquotations `$(…)`:
/// syntax data, not code of this file.
fn quoted_data(node: Node<'_>, text: &str) -> bool {
    let mut at = node;
    while let Some(parent) = at.parent() {
        match parent.kind() {
            "syntax_quotation" => return true,
            "parens"
                if parent.prev_sibling().is_some_and(|p| {
                    p.end_byte() == parent.start_byte() && text[p.byte_range()].ends_with('$')
                }) =>
            {
                return false
            }
            _ => {}
        }
        at = parent;
    }
    false
}
