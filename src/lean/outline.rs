//! What a syntax tree says about a file: declarations, sorries, axioms, tactics, imports.
//!
//! The outline relies on the node contract documented in `grammar/README.md`: `declaration`
//! nodes with `kind`, `name`, `modifier`, `attributes` and `body` fields; `sorry`/`admit` leaves;
//! `tactic` nodes with a `head` field; flat `namespace`/`section`/`end` commands.

use std::collections::BTreeMap;
use std::num::NonZeroU16 as FieldId;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use serde::Serialize;
use tree_sitter::Node;

use super::header::AristotleHeader;
pub(crate) use super::syntax::{for_each_descendant, for_each_descendant_where};
use super::syntax::{is_orphan_doc_comment, Occurrences, ParsedFile};

/// Everything math-forge reads from one Lean file.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Outline {
    pub path: String,
    /// ERROR and MISSING nodes in the tree; 0 means the file parsed cleanly.
    pub error_nodes: usize,
    pub imports: Vec<String>,
    pub header: Option<AristotleHeader>,
    pub declarations: Vec<Declaration>,
    pub sorries: Vec<Sorry>,
    pub axioms: Vec<Axiom>,
    /// Every comment, in file order (Aristotle's verdicts live here).
    #[serde(skip)]
    pub comments: Vec<Comment>,
}

/// One declaration (theorem, def, structure, …).
#[derive(Debug, Clone, Serialize)]
pub struct Declaration {
    /// The keyword, e.g. `theorem` or `class inductive`.
    pub kind: String,
    /// The name as written; empty for an anonymous instance or an example.
    pub name: String,
    /// The name with its enclosing namespaces.
    pub full_name: String,
    pub line: usize,
    pub end_line: usize,
    pub modifiers: Vec<String>,
    pub attributes: Vec<String>,
    /// Source text from the name to the token that begins the body, whitespace collapsed.
    pub statement: String,
    pub sorry_count: usize,
    /// Tactic name → how many steps of this declaration's proof start with it.
    pub tactics: BTreeMap<String, usize>,
    /// Part of the declaration did not parse (its header did): its holes and tactics may be
    /// incomplete. Serialized only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub parse_error: bool,
    /// Byte range of the whole declaration (attributes and modifiers included).
    #[serde(skip)]
    pub span: Range<usize>,
    /// Byte range of the body, from the `:=`, `where` or `|` that begins it.
    #[serde(skip)]
    pub body: Option<Range<usize>>,
    /// A project's own command read by its shape (`problem p (n : ℕ) : P := by …`, see
    /// [`user_declaration_shape`]): `kind` is the command's word, not a Lean keyword.
    /// Serialized only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub user_command: bool,
    /// Whether it states a theorem (see [`Declaration::is_theorem_like`]).
    #[serde(skip)]
    pub theorem_like: bool,
    /// Whether its signature gives a type (`: T`).
    #[serde(skip)]
    pub typed: bool,
}

impl Declaration {
    /// Whether the declaration has proof or value code at all.
    pub fn has_body(&self) -> bool {
        self.body.is_some()
    }

    /// Whether the declaration states a theorem whose body is its proof: a `theorem` or
    /// `lemma`, or a project's own declaration-shaped command (`kind` not a Lean keyword)
    /// whose value is a tactic proof (`:= by …`: Lean's `by` elaborates against a goal) or
    /// whose type is a proposition at its top level (a relation `=` `≤` `↔` `∣` `∈` …, a
    /// connective `∧` `∨` `¬`, or `∀`/`∃` in front). compfiles' `problem` is thus a theorem,
    /// its `determine answer : ℕ := 3` a definition. A command whose term proves a predicate
    /// applied to arguments (`: IsLeast S 3 := ⟨…⟩`) cannot be told from a definition by its
    /// own syntax; it states a theorem when its command is a theorem kind in the file: another
    /// declaration of the same command has a proposition for its type (a definition's type
    /// is never one). Otherwise it is read as a definition.
    pub fn is_theorem_like(&self) -> bool {
        self.theorem_like
    }
}

/// Kinds of Lean's own theorem commands.
fn theorem_kind(kind: &str) -> bool {
    matches!(kind, "theorem" | "lemma")
}

/// Operators that make a proposition of the terms around them, at the top level of a type.
const PROP_OPERATORS: &[&str] = &[
    "=", "≠", "<", ">", "≤", "≥", "↔", "∣", "∈", "∉", "⊆", "⊂", "⊇", "⊃", "∧", "∨", "¬", "≡",
    "<->", "/\\", "\\/", "<=", ">=",
];

/// The parts of a declaration-shaped user command (`WORD name binders* : type := value`, or
/// with a `|` alternative or `where` for `:= value`, the type optional).
pub(crate) struct UserDeclaration<'t> {
    pub(crate) head: Node<'t>,
    pub(crate) name: Node<'t>,
    /// The children of the type, between the `:` and the body.
    pub(crate) type_parts: Vec<Node<'t>>,
    /// The token that begins the body (`:=`, `|`, `where`).
    pub(crate) body_start: Node<'t>,
    /// The first part of the value after `:=`, if the body is one.
    pub(crate) value_first: Option<Node<'t>>,
}

/// Whether a `user_command` node has the shape of a declaration: its word (an identifier, so
/// no Lean keyword: the grammar reads those as their own commands) is followed by a name,
/// binders (bracket groups or plain names), optionally `:` and a type, and a body that starts
/// with `:=`, `|` or `where` and holds something. Lean cannot know what a project's command
/// means; this shape is the one of `theorem`/`def`, which such commands expand to.
pub(crate) fn user_declaration_shape<'t>(
    node: Node<'t>,
    text: &str,
) -> Option<UserDeclaration<'t>> {
    let head = node.child_by_field_name("head")?;
    if head.kind() != "identifier" {
        return None;
    }
    let mut parts = Vec::new();
    let mut cursor = node.walk();
    let mut past_head = false;
    for child in node.children(&mut cursor) {
        if past_head && !child.is_extra() && child.start_byte() < child.end_byte() {
            parts.push(child);
        }
        past_head |= child.id() == head.id();
    }
    let mut parts = parts.into_iter().peekable();
    let name = parts.next().filter(|n| n.kind() == "identifier")?;
    let word = |n: Node<'_>| &text[n.byte_range()];
    let is_body_start = |n: Node<'_>| {
        (!n.is_named() && matches!(word(n), ":=" | "|"))
            || (n.kind() == "identifier" && word(n) == "where")
    };
    // binders
    while let Some(&p) = parts.peek() {
        let binder = matches!(p.kind(), "parens" | "braces" | "brackets" | "strict_braces")
            || (p.kind() == "identifier" && word(p) != "where");
        if !binder {
            break;
        }
        parts.next();
    }
    let mut type_parts = Vec::new();
    if parts
        .peek()
        .is_some_and(|p| !p.is_named() && word(*p) == ":")
    {
        parts.next();
        while let Some(&p) = parts.peek() {
            if is_body_start(p) {
                break;
            }
            type_parts.push(p);
            parts.next();
        }
        if type_parts.is_empty() {
            return None;
        }
    }
    let body_start = parts.next().filter(|p| is_body_start(*p))?;
    let value_first = parts.next()?;
    Some(UserDeclaration {
        head,
        name,
        type_parts,
        value_first: (word(body_start) == ":=").then_some(value_first),
        body_start,
    })
}

impl UserDeclaration<'_> {
    /// See [`Declaration::is_theorem_like`].
    fn theorem_like(&self, text: &str) -> bool {
        self.value_first.is_some_and(|v| v.kind() == "by_block") || self.prop_typed(text)
    }

    /// Whether its type is a proposition at its top level (a relation, a connective, `∀`/`∃`
    /// in front): the command that declared it is a theorem kind.
    fn prop_typed(&self, text: &str) -> bool {
        self.type_parts
            .iter()
            .enumerate()
            .any(|(i, p)| match p.kind() {
                "operator" => PROP_OPERATORS.contains(&&text[p.byte_range()]),
                "binder_notation" => {
                    i == 0
                        && p.child_by_field_name("binder").is_some_and(|b| {
                            let b = &text[b.byte_range()];
                            b.starts_with('∀')
                                || b.starts_with('∃')
                                || b == "forall"
                                || b == "exists"
                        })
                }
                _ => false,
            })
    }
}

/// A `sorry` or `admit` that is code.
#[derive(Debug, Clone, Serialize)]
pub struct Sorry {
    pub line: usize,
    pub column: usize,
    /// Full name of the enclosing declaration, if any (shared by the declaration's holes).
    pub declaration: Option<Arc<str>>,
    /// `sorry` or `admit`.
    #[serde(skip)]
    pub keyword: &'static str,
    #[serde(skip)]
    pub byte: usize,
    /// Read lexically in text the grammar reads as one token (HTML in a term, a Verso Lean
    /// code block, a metaprogram's code: see [`super::opaque`]), not a node of the tree.
    /// Serialized only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lexical: bool,
}

/// An `axiom` declaration.
#[derive(Debug, Clone, Serialize)]
pub struct Axiom {
    pub name: String,
    pub line: usize,
}

/// A comment at command level, with its byte range.
#[derive(Debug, Clone)]
pub struct Comment {
    pub kind: CommentKind,
    pub span: Range<usize>,
}

/// The four comment forms of Lean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommentKind {
    Line,
    Block,
    Doc,
    ModuleDoc,
}

/// Node kind ids resolved once; comparing ids is much cheaper than comparing strings.
struct Kinds {
    sorry: u16,
    admit: u16,
    tactic: u16,
    /// Kinds whose children can be tactics without a `by` in between.
    tactic_structure: [u16; 4],
    /// Kinds that may be opaque text holding code (see [`super::opaque`]).
    opaque: [u16; super::opaque::CODE_KINDS.len()],
    /// `by_block`: its children are tactics.
    by_block: u16,
    line_comment: u16,
    block_comment: u16,
    doc_comment: u16,
    module_doc: u16,
    /// Field ids of a declaration's parts and of a tactic's head.
    field_kind: Option<FieldId>,
    field_name: Option<FieldId>,
    field_body: Option<FieldId>,
    field_attributes: Option<FieldId>,
    field_modifier: Option<FieldId>,
    field_head: Option<FieldId>,
}

impl Kinds {
    fn comment(&self, id: u16) -> Option<CommentKind> {
        if id == self.line_comment {
            Some(CommentKind::Line)
        } else if id == self.block_comment {
            Some(CommentKind::Block)
        } else if id == self.doc_comment {
            Some(CommentKind::Doc)
        } else if id == self.module_doc {
            Some(CommentKind::ModuleDoc)
        } else {
            None
        }
    }
}

fn kinds() -> &'static Kinds {
    static KINDS: OnceLock<Kinds> = OnceLock::new();
    KINDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_lean::LANGUAGE.into();
        let id = |name: &str| lang.id_for_node_kind(name, true);
        Kinds {
            sorry: id("sorry"),
            admit: id("admit"),
            tactic: id("tactic"),
            tactic_structure: [
                id("tactic"),
                id("tactic_alternative"),
                id("with_clause"),
                id("decreasing_by"),
            ],
            opaque: super::opaque::CODE_KINDS.map(id),
            by_block: id("by_block"),
            line_comment: id("line_comment"),
            block_comment: id("block_comment"),
            doc_comment: id("doc_comment"),
            module_doc: id("module_doc"),
            field_kind: lang.field_id_for_name("kind"),
            field_name: lang.field_id_for_name("name"),
            field_body: lang.field_id_for_name("body"),
            field_attributes: lang.field_id_for_name("attributes"),
            field_modifier: lang.field_id_for_name("modifier"),
            field_head: lang.field_id_for_name("head"),
        }
    })
}

/// The field children of a declaration-like node (see [`Fields::of`]).
#[derive(Default)]
struct Fields<'t> {
    kind: Option<Node<'t>>,
    name: Option<Node<'t>>,
    body: Option<Node<'t>>,
    attributes: Option<Node<'t>>,
    modifiers: Vec<Node<'t>>,
}

impl<'t> Fields<'t> {
    /// The first child of each field (as `child_by_field_name` answers) and every `modifier`.
    /// Attributes and modifiers come before the kind: the cursor reads the children up to the
    /// kind, and the name and body are looked up by field id (a lookup runs over the children
    /// inside the tree, cheaper than the cursor's steps over binders and types).
    fn of(node: Node<'t>) -> Fields<'t> {
        let k = kinds();
        let mut out = Fields::default();
        let mut cursor = node.walk();
        let mut more = cursor.goto_first_child();
        while more && out.kind.is_none() {
            let field = cursor.field_id();
            if field.is_some() {
                if field == k.field_kind {
                    out.kind = Some(cursor.node());
                } else if field == k.field_attributes {
                    out.attributes.get_or_insert(cursor.node());
                } else if field == k.field_modifier {
                    out.modifiers.push(cursor.node());
                }
            }
            more = cursor.goto_next_sibling();
        }
        let by_id = |field: Option<FieldId>| field.and_then(|f| node.child_by_field_id(f.get()));
        out.name = by_id(k.field_name);
        out.body = by_id(k.field_body);
        out
    }
}

/// A tactic can hold another tactic without a `by` only through a block on further lines,
/// `<;>`, `;`, `=>` and `|` alternatives, a bullet or bracket in front, or a combinator
/// keyword in front (`try`, `open … in`, `if`…). These are the strings inside its text; the
/// front is [`nests_in_front`]. A block on further lines is always opened by one of them, so a
/// line break alone makes a tactic worth entering (as it always did) but not a holder of
/// tactic children.
const NESTING_INSIDE: [&str; 4] = ["<;>", ";", "=>", "|"];

/// Whether a tactic's text begins with a bullet, bracket or combinator keyword that holds
/// tactics.
fn nests_in_front(text: &str) -> bool {
    const FRONT: [&str; 21] = [
        "·",
        ".",
        "(",
        "{",
        "[",
        "try",
        "all_goals",
        "any_goals",
        "repeat",
        "iterate",
        "first",
        "focus",
        "classical",
        "with_reducible",
        "fail_if_success",
        "success_if_fail",
        "open",
        "set_option",
        "if",
        "match",
        "calc",
    ];
    FRONT.iter().any(|s| text.starts_with(s))
}

/// Tactic heads that structure a proof rather than name a tactic: focusing bullets, the `<;>`
/// combinator and grouping brackets (`(tac)`, `{ tac }`, `<;> [tac; tac]`); the tactics they
/// hold are counted themselves.
const STRUCTURAL_HEADS: &[&str] = &["·", ".", "<;>", "(", "{", "["];

impl Outline {
    /// Reads the outline of a parsed file.
    pub fn of(path: &str, file: &ParsedFile) -> Outline {
        Outline::with_markers(path, file, markers(&file.text), false)
    }

    /// The declarations (kinds, names, full names, lines, spans) without reading proofs or
    /// statements: no holes, no tactics, no comments inside declarations, and every
    /// `statement` empty. What a check of
    /// names needs; a proof full of holes costs nothing here.
    pub fn declarations_only(path: &str, file: &ParsedFile) -> Outline {
        Outline::with_markers(path, file, Occurrences::of_each(&[], ""), true)
    }

    fn with_markers(
        path: &str,
        file: &ParsedFile,
        markers: Occurrences,
        names_only: bool,
    ) -> Outline {
        let mut builder = Builder {
            names_only,
            file,
            scopes: Vec::new(),
            outline: Outline {
                path: path.to_string(),
                error_nodes: file.error_count(),
                imports: Vec::new(),
                header: None,
                declarations: Vec::new(),
                sorries: Vec::new(),
                axioms: Vec::new(),
                comments: Vec::new(),
            },
            markers,
            nesting: None,
            user_declarations: Vec::new(),
        };
        builder.commands(file.root());
        builder.theorem_kinds();
        builder.outline.header = builder.header();
        builder.outline
    }

    /// Total number of `sorry`/`admit` holes in the file.
    pub fn sorry_count(&self) -> usize {
        self.sorries.len()
    }
}

/// One entry of the namespace/section stack: `namespace A.B` pushes `A` then `B`, as Lean does.
enum Scope {
    Namespace(String),
    Section,
}

struct Builder<'f> {
    /// See [`Outline::declarations_only`].
    names_only: bool,
    file: &'f ParsedFile,
    scopes: Vec<Scope>,
    outline: Outline,
    markers: Occurrences,
    /// Where the strings of [`NESTING_INSIDE`] begin, found when a proof is first scanned.
    nesting: Option<Occurrences>,
    /// The project's own declaration commands met: (declaration index, command word,
    /// whether its type is a proposition), for [`Builder::theorem_kinds`].
    user_declarations: Vec<(usize, String, bool)>,
}

/// Where in a file what a proof scan looks for may begin: holes begin with `sorry`/`admit`,
/// comments with `--`/`/-`, and tactics sit inside `by`/`decreasing_by` or inside other tactic
/// structure, so a term whose text holds none of these strings can be skipped whole.
fn markers(text: &str) -> Occurrences {
    Occurrences::of_each(&["by", "--", "/-", "sorry", "admit"], text)
}

/// Siblings [`Builder::scan_proof`] steps over before it jumps to the next marked child.
const SPARSE_STEPS: usize = 4;

/// Lookups in ascending positions (a marker list), for a walk in document order: each
/// lookup starts where the last one ended and gallops forward, so a walk pays about a step
/// per marker passed instead of a binary search per question. A lookup behind the last one
/// is answered by a binary search.
struct Finger<'m> {
    starts: &'m [usize],
    /// Every position before this index is below the last position asked.
    at: usize,
}

impl<'m> Finger<'m> {
    fn new(starts: &'m [usize]) -> Self {
        Finger { starts, at: 0 }
    }

    /// The index of the first position at or after `from`.
    fn seek(&mut self, from: usize) -> usize {
        let s = self.starts;
        if self.at > 0 && s[self.at - 1] >= from {
            return s.partition_point(|&p| p < from);
        }
        // Gallop: the answer is within the first `step` positions from `at`.
        let mut step = 1;
        while self.at + step <= s.len() && s[self.at + step - 1] < from {
            step *= 2;
        }
        let hi = (self.at + step).min(s.len());
        let lo = self.at + step / 2;
        self.at = lo.min(hi) + s[lo.min(hi)..hi].partition_point(|&p| p < from);
        self.at
    }

    /// The first position inside `range`.
    fn first_in(&mut self, range: Range<usize>) -> Option<usize> {
        let i = self.seek(range.start);
        self.starts.get(i).copied().filter(|&p| p < range.end)
    }

    fn any_in(&mut self, range: Range<usize>) -> bool {
        self.first_in(range).is_some()
    }
}

impl<'f> Builder<'f> {
    fn text(&self, node: Node<'_>) -> &'f str {
        &self.file.text[node.byte_range()]
    }

    /// Reads the commands below `root` in document order. Nodes that are not commands
    /// (`mutual`, ERROR, …) are entered through an explicit stack, not recursion: ERROR nodes
    /// can nest as deep as the file is long.
    fn commands(&mut self, root: Node<'f>) {
        // (node, whether its parent is a `mutual` block), next one on top.
        let mut stack: Vec<(Node<'f>, bool)> = Vec::new();
        let push_children = |stack: &mut Vec<(Node<'f>, bool)>, parent: Node<'f>| {
            let inside_mutual = parent.kind() == "mutual";
            let mut cursor = parent.walk();
            let start = stack.len();
            stack.extend(
                parent
                    .named_children(&mut cursor)
                    .map(|c| (c, inside_mutual)),
            );
            stack[start..].reverse();
        };
        push_children(&mut stack, root);
        while let Some((node, inside_mutual)) = stack.pop() {
            match node.kind() {
                "declaration" => self.declaration(node),
                "user_command" => {
                    if !self.user_declaration(node) {
                        push_children(&mut stack, node)
                    }
                }
                "import" => {
                    let mut c = node.walk();
                    for module in node.children_by_field_name("module", &mut c) {
                        self.outline.imports.push(self.text(module).to_string());
                    }
                }
                "namespace" => {
                    if let Some(name) = node.child_by_field_name("name") {
                        for part in split_name(self.text(name)) {
                            self.scopes.push(Scope::Namespace(part));
                        }
                    }
                }
                "section" => self.scopes.push(Scope::Section),
                // `mutual … end` closes the mutual block, not a scope.
                "end" if inside_mutual => {}
                "end" => {
                    let depth = node
                        .child_by_field_name("name")
                        .map_or(1, |n| split_name(self.text(n)).len());
                    for _ in 0..depth {
                        self.scopes.pop();
                    }
                }
                "sorry" | "admit" => self.sorry(node, None),
                _ => match kinds().comment(node.kind_id()) {
                    Some(kind) => self.outline.comments.push(Comment {
                        kind,
                        span: node.byte_range(),
                    }),
                    // A doc comment that no declaration follows is a parse error (counted as
                    // one), but its words are the author's as much as any comment's: what a
                    // file says of itself does not depend on where Lean wants doc comments.
                    None if is_orphan_doc_comment(node, &self.file.text) => {
                        self.outline.comments.push(Comment {
                            kind: CommentKind::Doc,
                            span: node.byte_range(),
                        })
                    }
                    None => {
                        let opaque = kinds().opaque.contains(&node.kind_id());
                        if opaque && self.markers.any_in(node.byte_range()) {
                            self.opaque_holes(node, None);
                        }
                        push_children(&mut stack, node)
                    }
                },
            }
        }
    }

    fn header(&self) -> Option<AristotleHeader> {
        // Aristotle writes its header as the file's first comment; look only before the first
        // command so that a quoted header further down is not mistaken for it.
        self.outline
            .comments
            .iter()
            .take_while(|c| {
                self.outline
                    .declarations
                    .first()
                    .is_none_or(|d| c.span.start < d.span.start)
            })
            .take(3)
            .find_map(|c| AristotleHeader::from_comment(&self.file.text[c.span.clone()]))
            .or_else(|| AristotleHeader::from_file_start(&self.file.text))
    }

    fn qualify(&self, name: &str) -> String {
        if let Some(rooted) = name.strip_prefix("_root_.") {
            return rooted.to_string();
        }
        let mut full = String::new();
        for scope in &self.scopes {
            if let Scope::Namespace(part) = scope {
                full.push_str(part);
                full.push('.');
            }
        }
        if name.is_empty() {
            full.pop();
        } else {
            full.push_str(name);
        }
        full
    }

    fn declaration(&mut self, node: Node<'f>) {
        let fields = Fields::of(node);
        let Some(kind_node) = fields.kind else {
            // Without its keyword the declaration is an error fragment; its holes still count.
            self.holes_outside_declarations(node);
            return;
        };
        let kind = collapse_whitespace(self.text(kind_node));
        let theorem_like = theorem_kind(&kind);
        let head = Head {
            kind,
            kind_end: kind_node.end_byte(),
            name_node: fields.name,
            body: fields.body.map(|b| b.byte_range()),
            user_command: false,
            theorem_like,
            typed: node.child_by_field_name("type").is_some(),
        };
        self.record_declaration(node, head, fields);
    }

    /// A `user_command` of a declaration's shape, recorded as a declaration whose kind is its
    /// word; false (nothing recorded) for any other user command.
    fn user_declaration(&mut self, node: Node<'f>) -> bool {
        let Some(shape) = user_declaration_shape(node, &self.file.text) else {
            return false;
        };
        let head = Head {
            kind: self.text(shape.head).to_string(),
            kind_end: shape.head.end_byte(),
            name_node: Some(shape.name),
            body: Some(shape.body_start.start_byte()..node.end_byte()),
            user_command: true,
            theorem_like: shape.theorem_like(&self.file.text),
            typed: !shape.type_parts.is_empty(),
        };
        let index = self.outline.declarations.len();
        let prop_typed = shape.prop_typed(&self.file.text);
        self.record_declaration(node, head, Fields::of(node));
        if self.outline.declarations.len() > index {
            let word = self.text(shape.head).to_string();
            self.user_declarations.push((index, word, prop_typed));
        }
        true
    }

    /// A project's command is one kind of declaration: one whose type is a proposition in
    /// the file (`problem p : a = b := …`) makes its command a theorem kind there, and every
    /// typed declaration of that command states a theorem, whatever its proof's shape
    /// (`problem q : IsLeast S 3 := ⟨…⟩`). A definition's type is never a proposition, so an
    /// answer command (`determine answer : ℕ := 3`, or `:= by exact 3`) never becomes one.
    fn theorem_kinds(&mut self) {
        let kinds: Vec<&str> = self
            .user_declarations
            .iter()
            .filter(|(_, _, prop)| *prop)
            .map(|(_, word, _)| word.as_str())
            .collect();
        if kinds.is_empty() {
            return;
        }
        for (index, word, _) in &self.user_declarations {
            if let Some(d) = self.outline.declarations.get_mut(*index) {
                if d.typed && kinds.contains(&word.as_str()) {
                    d.theorem_like = true;
                }
            }
        }
    }

    fn record_declaration(&mut self, node: Node<'f>, head: Head<'f>, fields: Fields<'f>) {
        let text = &self.file.text;
        let Head {
            kind,
            kind_end,
            name_node,
            body,
            user_command,
            theorem_like,
            typed,
        } = head;
        let name = name_node.map_or("", |n| self.text(n)).to_string();
        let full_name = if name.is_empty() {
            String::new()
        } else {
            self.qualify(&name)
        };
        let statement_start = name_node.map_or(kind_end, |n| n.start_byte());
        let statement_end = body.as_ref().map_or(node.end_byte(), |b| b.start);

        let modifiers = fields
            .modifiers
            .iter()
            .map(|&m| self.text(m).to_string())
            .collect();
        let attributes = fields
            .attributes
            .map(|attrs| {
                let mut c = attrs.walk();
                attrs
                    .named_children(&mut c)
                    .filter(|a| a.kind() == "attribute")
                    .map(|a| collapse_whitespace(self.text(a)))
                    .collect()
            })
            .unwrap_or_default();

        let start = self.file.start_of(node);
        let mut decl = Declaration {
            kind,
            name,
            full_name,
            line: start.line,
            // Trailing comments are not code: the declaration ends where Lean's range does.
            end_line: self.file.end_of(last_code_node(node)).line,
            modifiers,
            attributes,
            statement: String::new(),
            sorry_count: 0,
            tactics: BTreeMap::new(),
            parse_error: self.file.errors().in_declaration(node),
            span: node.byte_range(),
            body,
            user_command,
            theorem_like,
            typed,
        };
        if self.names_only {
            self.outline.declarations.push(decl);
            return;
        }
        let owner: Option<Arc<str>> = Some(Arc::from(decl.full_name.as_str()));
        let first_comment = self.outline.comments.len();
        // A `by` in the signature (an autoParam such as `(μ : Measure k := by volume_tac)`) is
        // part of the statement, not of the proof.
        self.scan_proof(node, &mut decl, owner, statement_end);
        let statement_comments = self.outline.comments[first_comment..]
            .iter()
            .map(|c| c.span.clone())
            .filter(|c| statement_start <= c.start && c.end <= statement_end);
        let statement_comments: Vec<Range<usize>> = statement_comments.collect();
        let breaks = statement_breaks(
            text,
            node,
            statement_start..statement_end,
            &statement_comments,
        );
        decl.statement = code_text_with_breaks(
            text,
            statement_start..statement_end,
            statement_comments.into_iter(),
            &breaks,
        );
        if decl.kind == "axiom" {
            self.outline.axioms.push(Axiom {
                name: decl.full_name.clone(),
                line: decl.line,
            });
        }
        self.outline.declarations.push(decl);
    }

    /// Counts holes and tactic heads anywhere inside a declaration and records its comments,
    /// in one cursor walk.
    ///
    /// The walk enters a node when something it looks for can be inside: a marker
    /// ([`markers`]) in its text, an error, or tactic structure. It then reads either every
    /// child, where a child can be a tactic (the children of a `by` block or of tactic
    /// structure) or where the node has an error, or else only the children in which a marker
    /// begins, reached by the cursor's jump to the child holding a byte: a child without a
    /// marker there holds no hole, comment or opaque code, and cannot be a tactic (the grammar
    /// puts tactics only in `by` blocks and tactic structure), so nothing in it counts. A
    /// sibling step costs hundreds of instructions where a proof is a long tactic sequence.
    fn scan_proof(
        &mut self,
        node: Node<'f>,
        decl: &mut Declaration,
        owner: Option<Arc<str>>,
        proof_start: usize,
    ) {
        let k = kinds();
        let markers = std::mem::take(&mut self.markers);
        let text = &self.file.text;
        let nesting = self
            .nesting
            .take()
            .unwrap_or_else(|| Occurrences::of_each(&NESTING_INSIDE, text));
        let mut finger = Finger::new(markers.starts());
        // How a node's children are read: `None`, not at all; `Some(true)`, every one (a child
        // may be a tactic, or the node has an error); `Some(false)`, only those in which a
        // marker begins. Whether it is entered at all is decided as before this walk read
        // children sparsely: a marker, an error, or tactic structure (a tactic's own text,
        // its line breaks read only for a tactic with no other reason to be entered).
        let children = |n: Node<'_>, finger: &mut Finger<'_>| -> Option<bool> {
            let id = n.kind_id();
            let range = n.byte_range();
            let marked = n.is_error() || finger.any_in(range.clone());
            if id == k.tactic {
                let holds = nests_in_front(&text[range.clone()]) || nesting.any_in(range.clone());
                let entered = marked || holds || text[range].contains('\n');
                return entered.then(|| holds || n.has_error());
            }
            let structure = k.tactic_structure.contains(&id);
            (marked || structure).then(|| structure || id == k.by_block || n.has_error())
        };
        // Moves the cursor from a node to its first child that ends after the first marker in
        // `from..end` (the child holding it, unless the marker is in a token the tree hides);
        // false, the cursor staying on the node, when no marker begins there. Every child
        // this passes over ends after `from` and holds no marker.
        let marked_child = |cursor: &mut tree_sitter::TreeCursor<'f>,
                            finger: &mut Finger<'_>,
                            from: usize,
                            end: usize| {
            let Some(at) = finger.first_in(from..end) else {
                return false;
            };
            if cursor.goto_first_child_for_byte(at).is_some() {
                return true;
            }
            // The jump finds no child when the byte is in a hidden node none of whose visible
            // children reaches it: step to the first child ending after `from` instead (a
            // child read without need costs time, never a difference).
            if !cursor.goto_first_child() {
                return false;
            }
            while cursor.node().end_byte() <= from {
                if !cursor.goto_next_sibling() {
                    cursor.goto_parent();
                    return false;
                }
            }
            true
        };
        // From a child that ends at `from`, moves the cursor to the next child of its parent
        // that holds the first marker in `from..end`, as [`marked_child`] from the parent
        // would. Where markers are dense (a list of thousands of holes) the next one is
        // usually a step or two away, and a step costs a fraction of the jump, which descends
        // from the parent through the hidden nodes of a long list each time: a few steps are
        // tried first, and a child is taken only when the marker is inside it (the jump would
        // land on that same child); otherwise the jump from the parent decides, as before.
        let next_marked = |cursor: &mut tree_sitter::TreeCursor<'f>,
                           finger: &mut Finger<'_>,
                           from: usize,
                           end: usize| {
            if let Some(at) = finger.first_in(from..end) {
                for _ in 0..SPARSE_STEPS {
                    if !cursor.goto_next_sibling() {
                        break;
                    }
                    let next = cursor.node();
                    if next.end_byte() > at {
                        if next.start_byte() <= at {
                            return true;
                        }
                        break;
                    }
                }
            }
            cursor.goto_parent();
            marked_child(cursor, finger, from, end)
        };
        let mut cursor = node.walk();
        // For each node entered above the cursor: its end, whether every child is read, and
        // whether it has an error (without one, a child ending at its end is its last one that
        // counts: only zero-width tokens can follow).
        let mut entered: Vec<(usize, bool, bool)> = Vec::new();
        let root_dense = node.has_error()
            || k.tactic_structure.contains(&node.kind_id())
            || node.kind_id() == k.by_block;
        let first = if root_dense {
            cursor.goto_first_child()
        } else {
            marked_child(&mut cursor, &mut finger, node.start_byte(), node.end_byte())
        };
        if !first {
            self.markers = markers;
            self.nesting = Some(nesting);
            return;
        }
        entered.push((node.end_byte(), root_dense, node.has_error()));
        'walk: loop {
            let n = cursor.node();
            let id = n.kind_id();
            if let Some(kind) = k.comment(id) {
                self.outline.comments.push(Comment {
                    kind,
                    span: n.byte_range(),
                });
            } else if id == k.sorry || id == k.admit {
                decl.sorry_count += 1;
                self.sorry(n, owner.clone());
            } else if id == k.tactic && n.start_byte() >= proof_start {
                if let Some(head) = k.field_head.and_then(|f| n.child_by_field_id(f.get())) {
                    let head = self.text(head);
                    if !STRUCTURAL_HEADS.contains(&head) {
                        // The name is copied only the first time it is counted.
                        match decl.tactics.get_mut(head) {
                            Some(n) => *n += 1,
                            None => {
                                decl.tactics.insert(head.to_string(), 1);
                            }
                        }
                    }
                }
            } else if k.opaque.contains(&id) && finger.any_in(n.byte_range()) {
                decl.sorry_count += self.opaque_holes(n, owner.clone());
            }
            if n.child_count() > 0 {
                if let Some(dense) = children(n, &mut finger) {
                    let down = if dense && id == k.by_block && !n.has_error() {
                        // Its first child is the `by` keyword, which counts for nothing: start
                        // at the first child after it (one jump instead of two steps).
                        cursor
                            .goto_first_child_for_byte(n.start_byte() + "by".len())
                            .is_some()
                            || cursor.goto_first_child()
                    } else if dense {
                        cursor.goto_first_child()
                    } else {
                        marked_child(&mut cursor, &mut finger, n.start_byte(), n.end_byte())
                    };
                    if down {
                        entered.push((n.end_byte(), dense, n.has_error()));
                        continue;
                    }
                }
            }
            // The next child to read: of the same parent, else of an ancestor's.
            let mut from = n.end_byte();
            loop {
                let &(end, dense, error) = entered.last().expect("the walk stays below the node");
                let moved = if dense {
                    (from < end || error) && cursor.goto_next_sibling()
                } else {
                    next_marked(&mut cursor, &mut finger, from, end) || {
                        // No marked child left: stay on the parent, as a failed step leaves it.
                        entered.pop();
                        if entered.is_empty() {
                            break 'walk;
                        }
                        from = end;
                        continue;
                    }
                };
                if moved {
                    continue 'walk;
                }
                cursor.goto_parent();
                entered.pop();
                if entered.is_empty() {
                    break 'walk;
                }
                from = end;
            }
        }
        self.markers = markers;
        self.nesting = Some(nesting);
    }

    /// The holes in the code of `node` when it is opaque text ([`super::opaque`]), read
    /// lexically and recorded as holes of `declaration`; returns how many.
    fn opaque_holes(&mut self, node: Node<'_>, declaration: Option<Arc<str>>) -> usize {
        let Some((_, ranges)) = super::opaque::code_ranges(node, &self.file.text) else {
            return 0;
        };
        let mut found = 0;
        for range in ranges {
            for hit in super::trust_scan::scan(&self.file.text, range) {
                let keyword = match hit.word {
                    "sorry" => "sorry",
                    "admit" => "admit",
                    _ => continue,
                };
                let pos = self.file.position(hit.span.start);
                self.outline.sorries.push(Sorry {
                    line: pos.line,
                    column: pos.column,
                    declaration: declaration.clone(),
                    keyword,
                    byte: hit.span.start,
                    lexical: true,
                });
                found += 1;
            }
        }
        found
    }

    fn holes_outside_declarations(&mut self, node: Node<'f>) {
        let k = kinds();
        let mut cursor = node.walk();
        for_each_descendant(&mut cursor, |n| {
            if let Some(kind) = k.comment(n.kind_id()) {
                self.outline.comments.push(Comment {
                    kind,
                    span: n.byte_range(),
                });
            } else if n.kind_id() == k.sorry || n.kind_id() == k.admit {
                self.sorry(n, None);
            } else if k.opaque.contains(&n.kind_id()) && self.markers.any_in(n.byte_range()) {
                self.opaque_holes(n, None);
            }
        });
    }

    fn sorry(&mut self, node: Node<'_>, declaration: Option<Arc<str>>) {
        let pos = self.file.start_of(node);
        let keyword = if node.kind_id() == kinds().admit {
            "admit"
        } else {
            "sorry"
        };
        self.outline.sorries.push(Sorry {
            line: pos.line,
            column: pos.column,
            declaration,
            keyword,
            byte: node.start_byte(),
            lexical: false,
        });
    }
}

/// What a declaration's header says, however it was read.
struct Head<'t> {
    kind: String,
    /// Where the kind's keyword or word ends (the statement starts after it when unnamed).
    kind_end: usize,
    name_node: Option<Node<'t>>,
    body: Option<Range<usize>>,
    user_command: bool,
    theorem_like: bool,
    typed: bool,
}

/// `A.B.«c d»` → `["A", "B", "«c d»"]`; dots inside `«…»` do not split.
fn split_name(name: &str) -> Vec<String> {
    super::idents::components(name)
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The last node of `node` that ends in code: trailing comments (which the layout rules keep
/// inside an indented block) and zero-width layout tokens do not count.
fn last_code_node(node: Node<'_>) -> Node<'_> {
    let k = kinds();
    let mut current = node;
    'descend: loop {
        let mut child = current.child(current.child_count().saturating_sub(1));
        while let Some(c) = child {
            let skip = k.comment(c.kind_id()).is_some() || c.start_byte() == c.end_byte();
            if !skip {
                current = c;
                continue 'descend;
            }
            child = c.prev_sibling();
        }
        return current;
    }
}

/// The text of `range` with the comment `spans` inside it cut out, whitespace collapsed: a
/// statement as Lean reads it (a `--` comment would otherwise swallow the rest of the line).
pub(crate) fn code_text(
    text: &str,
    range: Range<usize>,
    comments: impl Iterator<Item = Range<usize>>,
) -> String {
    code_text_with_breaks(text, range, comments, &[])
}

/// Stands for a line break that separates two parts while the text is collapsed (no Lean text
/// holds it).
const BREAK: char = '\u{0}';

/// [`code_text`], with the line breaks at the byte offsets `breaks` (sorted) written `; `: a
/// newline that ends a `let`/`have` binding, or separates two tactics ([`statement_breaks`]),
/// separates what a space would join (the body would become an argument of the bound value).
fn code_text_with_breaks(
    text: &str,
    range: Range<usize>,
    comments: impl Iterator<Item = Range<usize>>,
    breaks: &[usize],
) -> String {
    let mut code = String::with_capacity(range.len());
    let mut breaks = breaks.iter().copied().peekable();
    let mut push = |code: &mut String, from: usize, to: usize| {
        let mut at = from;
        while let Some(b) = breaks.next_if(|&b| b < to) {
            if b >= at {
                code.push_str(text.get(at..b).unwrap_or(""));
                code.push(BREAK);
                at = b;
            }
        }
        code.push_str(text.get(at..to).unwrap_or(""));
    };
    let mut at = range.start;
    for comment in comments {
        if comment.start >= at {
            push(&mut code, at, comment.start);
            code.push(' ');
            at = comment.end;
        }
    }
    push(&mut code, at, range.end);
    let collapsed = collapse_whitespace(&code);
    if !collapsed.contains(BREAK) {
        return collapsed;
    }
    collapsed
        .replace(&format!(" {BREAK}"), &BREAK.to_string())
        .replace(BREAK, ";")
}

/// Byte offsets of the line breaks in a declaration's statement (`range`) that separate what a
/// space would join: the break that ends a `let` or `have` binding, by Lean's rule (the bound
/// value goes on over lines indented further than the keyword, and the first line that is not,
/// outside brackets, is the body; a binding already ended by `;`, or closed by a bracket around
/// it, has no such break), and the break between two tactics of a `by` block in the statement.
fn statement_breaks(
    text: &str,
    decl: Node<'_>,
    range: Range<usize>,
    comments: &[Range<usize>],
) -> Vec<usize> {
    let Some(statement) = text.get(range.clone()) else {
        return Vec::new();
    };
    let might_bind = statement.contains("let") || statement.contains("have");
    if !(might_bind || statement.contains("by")) || !statement.contains('\n') {
        return Vec::new();
    }
    let mut binders = Vec::new();
    let mut tactic_breaks = Vec::new();
    let mut cursor = decl.walk();
    for_each_descendant_where(
        &mut cursor,
        |n| n.start_byte() < range.end && n.end_byte() > range.start,
        |n| {
            let inside = range.start <= n.start_byte() && n.end_byte() <= range.end;
            if n.kind() == "have" && inside {
                binders.push(n.byte_range());
            }
            // A `by` block inside the statement: a line break between two of its tactics
            // separates them, as `;` would.
            if n.kind() == "by_block" && inside {
                let mut steps = n.walk();
                let tactics: Vec<Node<'_>> = n
                    .named_children(&mut steps)
                    .filter(|c| c.kind() == "tactic")
                    .collect();
                for pair in tactics.windows(2) {
                    let gap = pair[0].end_byte()..pair[1].start_byte();
                    let Some(between) = text.get(gap.clone()) else {
                        continue;
                    };
                    if !between.contains(';') {
                        if let Some(i) = between.find('\n') {
                            tactic_breaks.push(gap.start + i);
                        }
                    }
                }
            }
        },
    );
    let mut breaks: Vec<usize> = binders
        .into_iter()
        .filter_map(|binder| binding_break(text, binder, range.end, comments))
        .chain(tactic_breaks)
        .collect();
    breaks.sort_unstable();
    breaks.dedup();
    breaks
}

/// The line break that ends the binding whose head (`let x :=`) spans `binder`, if a line
/// break ends it before `end`.
fn binding_break(
    text: &str,
    binder: Range<usize>,
    end: usize,
    comments: &[Range<usize>],
) -> Option<usize> {
    let line_start = text[..binder.start].rfind('\n').map_or(0, |i| i + 1);
    let keyword_column = text[line_start..binder.start].chars().count();
    let mut depth = 0usize;
    let mut at = binder.end;
    while at < end {
        if let Some(c) = comments.iter().find(|c| c.start <= at && at < c.end) {
            at = c.end;
            continue;
        }
        let ch = text[at..].chars().next()?;
        match ch {
            '(' | '[' | '{' | '⟨' | '⦃' => depth += 1,
            ')' | ']' | '}' | '⟩' | '⦄' => {
                if depth == 0 {
                    return None; // the binding ends inside a bracket around it
                }
                depth -= 1;
            }
            ';' if depth == 0 => return None,
            '\n' if depth == 0 => {
                // The next line with code: a body when not indented past the keyword.
                let mut next = at + 1;
                loop {
                    let line_end = text[next..end.max(next)].find('\n').map(|i| next + i);
                    let line = &text[next..line_end.unwrap_or(end).max(next)];
                    let code = line.trim_start();
                    let commented = comments
                        .iter()
                        .any(|c| c.start == next + line.len() - code.len());
                    if code.is_empty() || commented {
                        match line_end {
                            Some(e) if e < end => {
                                next = e + 1;
                                continue;
                            }
                            _ => return None,
                        }
                    }
                    let indent = line[..line.len() - code.len()].chars().count();
                    if indent <= keyword_column {
                        return Some(at);
                    }
                    break;
                }
            }
            _ => {}
        }
        at += ch.len_utf8();
    }
    None
}

/// Collapses every run of whitespace to one space and trims the ends.
pub fn collapse_whitespace(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for word in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The names-only outline has the same declarations as the full one, and nothing of
    /// their proofs or statements.
    #[test]
    fn declarations_only_has_the_declarations_of_the_full_outline() {
        let text = "namespace A\n\ntheorem t : True := by\n  have h : 1 = 1 := by sorry\n  sorry\n\nsection\ndef f (n : Nat) : Nat := n -- c\nend\n\nend A\n\naxiom B.ax : False\ninstance : Inhabited Nat := ⟨sorry⟩\n";
        let file = ParsedFile::parse(text.to_string());
        let full = Outline::of("", &file);
        let names = Outline::declarations_only("", &file);
        let key = |o: &Outline| -> Vec<(String, String, String, usize, Range<usize>)> {
            o.declarations
                .iter()
                .map(|d| {
                    (
                        d.kind.clone(),
                        d.name.clone(),
                        d.full_name.clone(),
                        d.line,
                        d.span.clone(),
                    )
                })
                .collect()
        };
        assert_eq!(key(&full).len(), 4);
        assert_eq!(key(&names), key(&full));
        assert_eq!(full.sorries.len(), 3);
        assert!(names.sorries.is_empty());
        assert!(names.declarations.iter().all(|d| d.statement.is_empty()));
    }

    /// A doc comment that no declaration follows is an error of the file, yet still one of its
    /// comments, in its place: the words before the first declaration are read the same
    /// whether or not Lean would take the doc comment.
    #[test]
    fn an_orphan_doc_comment_is_an_error_and_still_a_comment() {
        let text = "/-- Submitted: 2025-12-26 --/\n/- Tuza: the cycle case -/\nimport Mathlib\n\ntheorem t : True := trivial\n";
        let file = ParsedFile::parse(text.to_string());
        let outline = Outline::of("t.lean", &file);
        assert_eq!(outline.error_nodes, 1);
        let comments: Vec<(CommentKind, &str)> = outline
            .comments
            .iter()
            .map(|c| (c.kind, &text[c.span.clone()]))
            .collect();
        assert_eq!(
            comments,
            [
                (CommentKind::Doc, "/-- Submitted: 2025-12-26 --/"),
                (CommentKind::Block, "/- Tuza: the cycle case -/"),
            ]
        );
        assert_eq!(outline.declarations.len(), 1);
        assert!(!outline.declarations[0].parse_error);
    }

    /// A tactic used on every line of a long proof is counted each time under one name.
    #[test]
    fn repeated_tactics_are_counted_under_one_name() {
        let mut text = String::from("theorem t (a : Nat) (h : a = 1) : a = 1 := by\n");
        for _ in 0..300 {
            text.push_str("  simp only [h] at *\n  norm_num\n");
        }
        text.push_str("  exact h\n");
        let file = ParsedFile::parse(text);
        let outline = Outline::of("t.lean", &file);
        let tactics: Vec<(&str, usize)> = outline.declarations[0]
            .tactics
            .iter()
            .map(|(k, n)| (k.as_str(), *n))
            .collect();
        assert_eq!(
            tactics,
            vec![("exact", 1), ("norm_num", 300), ("simp", 300)]
        );
    }

    #[test]
    fn names_split_on_dots_outside_guillemets() {
        assert_eq!(split_name("A.B.«c.d»"), vec!["A", "B", "«c.d»"]);
        assert_eq!(split_name("Foo"), vec!["Foo"]);
    }

    /// Skipping terms without markers must never change an outline: compare with a walk that
    /// enters every node, on every fixture and on part of the real corpus when it is present.
    #[test]
    fn skipping_unmarked_terms_changes_nothing() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let (mut files, _) = crate::lean::walk::lean_files(
            &[root.join("fixtures")],
            crate::lean::walk::IgnoreRules::HiddenOnly,
        );
        let corpus = root.join("../shared/corpus");
        if corpus.is_dir() {
            let (more, _) = crate::lean::walk::lean_files(
                &[corpus],
                crate::lean::walk::IgnoreRules::HiddenOnly,
            );
            files.extend(more.into_iter().step_by(10));
        }
        assert!(files.len() > 10, "fixtures not found");
        let mut tactics = 0;
        for path in files {
            let Ok(source) = crate::lean::Source::read(&path) else {
                continue;
            };
            let file = ParsedFile::parse(source.text);
            let everywhere = Occurrences::everywhere(file.text.len());
            let pruned = Outline::of("", &file);
            let full = Outline::with_markers("", &file, everywhere, false);
            assert_eq!(
                serde_json::to_string(&pruned).unwrap(),
                serde_json::to_string(&full).unwrap(),
                "{}",
                path.display()
            );
            tactics += full
                .declarations
                .iter()
                .map(|d| d.tactics.len())
                .sum::<usize>();
        }
        assert!(tactics > 0);
    }

    /// Holes and comments packed in long lists (a few siblings apart, inside brackets and
    /// applications, one per child or several): the walk that steps to the next marked child
    /// finds what the walk reading every child finds.
    #[test]
    fn dense_markers_are_found_by_steps_as_by_jumps() {
        let parts = [
            "sorry",
            "(sorry)",
            "/- c -/ sorry",
            "f sorry x y z",
            "⟨sorry, by simp; sorry⟩",
            "g a b c d e f sorry",
            "admit /- e -/",
        ];
        let items: Vec<&str> = (0..700).map(|i| parts[i % parts.len()]).collect();
        let text = format!(
            "theorem t : True ∧ True := by\n  refine ⟨{}⟩\n\ntheorem u : True := by\n  exact ({})\n",
            items.join(", "),
            items.join(" ")
        );
        let file = ParsedFile::parse(text.clone());
        let pruned = Outline::of("", &file);
        let full = Outline::with_markers("", &file, Occurrences::everywhere(text.len()), false);
        assert_eq!(
            serde_json::to_string(&pruned).unwrap(),
            serde_json::to_string(&full).unwrap()
        );
        // (`admit` is a tactic: in a term it is a name, no hole)
        assert_eq!(pruned.sorries.len(), text.matches("sorry").count());
        assert_eq!(pruned.comments.len(), 2 * 2 * 100);
    }

    /// A line break that ends a `let`/`have` binding in a statement becomes `; `: the body on
    /// the next line is not an argument of the bound value.
    #[test]
    fn a_binding_ended_by_a_line_break_is_kept_apart_from_its_body() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/statements/let_binders.lean");
        let text = std::fs::read_to_string(path).unwrap();
        let file = ParsedFile::parse(text);
        let outline = Outline::of("let_binders.lean", &file);
        let statements: Vec<(&str, &str)> = outline
            .declarations
            .iter()
            .map(|d| (d.name.as_str(), d.statement.as_str()))
            .collect();
        assert_eq!(
            statements,
            [
                (
                    "sqrt_witness",
                    "sqrt_witness (u p : ℕ) : let n := Nat.sqrt (u ^ 2 * p ^ 3); \
                     0 < u ∧ n ^ 2 ≤ u ^ 2 * p ^ 3"
                ),
                (
                    "two_lets",
                    "two_lets (a : ℕ) : let b := a + 1; let c := b * 2; c = 2 * a + 2"
                ),
                (
                    "long_value",
                    "long_value (a : ℕ) : let b := a + 1 + a; b = 2 * a + 1"
                ),
                (
                    "already_separated",
                    "already_separated (a : ℕ) : let b := a; b = a"
                ),
                (
                    "bracketed",
                    "bracketed (a : ℕ) : (let b := a + 1; b) = a + 1"
                ),
                ("no_binding", "no_binding (a : ℕ) : a + 0 = a"),
                (
                    "tactic_block_in_statement",
                    "tactic_block_in_statement (a b : ℕ) (h : a = b) : \
                     (⟨a, by subst h; rfl⟩ : { n : ℕ // n = b }).1 = a"
                )
            ]
        );
    }

    #[test]
    fn whitespace_collapses() {
        assert_eq!(collapse_whitespace("  a\n\t b  c "), "a b c");
    }

    /// A project's declaration-shaped command states a theorem when its value is a tactic
    /// proof or its type is a proposition at the top level; otherwise it is a definition.
    /// A user command with another shape is no declaration; Lean's theorems stay theorems.
    #[test]
    fn user_commands_state_theorems_by_their_shape() {
        let text = "\
determine answer : ℕ := 3
determine pick : ℕ → ℕ
  | 0 => 1
  | n + 1 => n
problem by_tactics (p : Prop) (h : p) : p := by exact h
problem relation : answer = 3 := rfl
problem forall_first : ∀ n : ℕ, n + 0 = n := fun _ => rfl
problem connective (a : ℕ) : a ≤ a ∧ True := ⟨le_refl a, trivial⟩
problem predicate : IsLeast {n : ℕ | 0 < n} 1 := ⟨one_pos, fun _ h => h⟩
block_extension Fancy (title : String) where
  data := title
theorem plain : True := trivial
def value : ℕ := 0
problem_file
my_command 3 := 4
";
        let file = ParsedFile::parse(text.to_string());
        let outline = Outline::of("", &file);
        let got: Vec<(&str, bool, bool)> = outline
            .declarations
            .iter()
            .map(|d| (d.name.as_str(), d.user_command, d.is_theorem_like()))
            .collect();
        assert_eq!(
            got,
            [
                ("answer", true, false),
                ("pick", true, false),
                ("by_tactics", true, true),
                ("relation", true, true),
                ("forall_first", true, true),
                ("connective", true, true),
                // A predicate applied to arguments cannot be told from data by its own
                // syntax; `problem` is a theorem kind here (`relation`'s type is a
                // proposition), so it states one.
                ("predicate", true, true),
                ("Fancy", true, false),
                ("plain", false, true),
                ("value", false, false),
            ]
        );
    }

    /// A command is a theorem kind in a file only by a declaration whose type is a
    /// proposition: a tactic proof of data (`answer a : ℕ := by exact 3`) makes no kind of its
    /// command, and an untyped declaration of a theorem kind is none.
    #[test]
    fn a_command_is_a_theorem_kind_by_a_propositional_type() {
        let theorem_like = |text: &str| -> Vec<(String, bool)> {
            let file = ParsedFile::parse(text.to_string());
            Outline::of("", &file)
                .declarations
                .iter()
                .map(|d| (d.name.clone(), d.is_theorem_like()))
                .collect()
        };
        let alone = "claim least : IsLeast {n : ℕ | 0 < n} 1 := ⟨one_pos, fun _ h => h⟩
";
        assert_eq!(theorem_like(alone), [("least".to_string(), false)]);
        let beside_relation = format!(
            "{alone}claim rel : 1 = 1 := rfl
"
        );
        assert_eq!(
            theorem_like(&beside_relation),
            [("least".to_string(), true), ("rel".to_string(), true)]
        );
        let beside_data = "answer a : ℕ := by exact 3\n\nanswer b : Set ℕ := {1}\n\n\
            claim least : IsLeast {n : ℕ | 0 < n} 1 := ⟨one_pos, fun _ h => h⟩\n";
        assert_eq!(
            theorem_like(beside_data),
            [
                ("a".to_string(), true),
                ("b".to_string(), false),
                ("least".to_string(), false)
            ]
        );
        let untyped = "claim rel : 2 = 2 := rfl
claim f x := x
";
        assert_eq!(
            theorem_like(untyped),
            [("rel".to_string(), true), ("f".to_string(), false)]
        );
    }
}
