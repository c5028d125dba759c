//! What a proof is made of, read from its syntax tree: the constants it refers to and its
//! spine (the top-level tactic steps).
//!
//! # Which identifiers are constants
//!
//! Without elaboration a local (`h`, `hx_pos`, `ih`) and a lemma (`mul_pos`) are both
//! identifiers, so a proof's identifier counts as a constant when it is
//! - qualified by a namespace of at least two characters starting with a capital
//!   (`Finset.card_le_card`, `Nat.Prime.two_le`; not `h.le`, `S.card`), or
//! - a lemma name with projections (`card_eq_one.mp`, `Finset.mem_filter.mpr.trans`): the name
//!   up to its first lowercase segment with an `_` is the constant, tested by the rules here, or
//! - a declaration of the same file, or
//! - unqualified, contains `_` (`mul_pos`, `sq_nonneg`) and does not look like a hypothesis
//!   (`h_pos`, `hx_lt`, `ih_n`: `h`/`ih`/`H` plus at most two characters before the `_`),
//!
//! and in every case is not a name the declaration binds: its signature's lowercase words, names
//! introduced by `have`/`set`/`let`/`obtain`/`intro`/`rintro`/`choose`/`generalize` (before
//! their `:` or `:=`) and `rcases`/`cases`/`induction` patterns (after `with`). A tactic's own
//! name (its `head`) is never a use. The rules err towards leaving a lemma out rather than
//! indexing a local as one.

use std::collections::{BTreeMap, HashSet};

use tree_sitter::Node;

use crate::lean::{Outline, ParsedFile};

/// One top-level step of a tactic proof (`t <;> rest` and `open … in t` are read as `t`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Step {
    pub head: String,
    /// The lemma the step applies: for `exact`/`apply`/`refine`/`convert` (and `simpa … using`)
    /// the head of the applied term (after `@`, through projections such as `.mp`/`|>.1` and
    /// `<|`), never a constant inside its arguments, ascriptions, `⟨…⟩` or `fun` bodies; for
    /// other tactics (`rw [LEMMA]`) the first constant they name. Same-file theorems, lemmas
    /// and axioms count, other same-file declarations (`def`, `structure`, …) never; a
    /// [`GLUE`] head yields to its first argument that applies a lemma; none for a step on
    /// hypotheses only (`rw [LEMMA] at h`).
    pub constant: Option<String>,
    /// The applied term's head when it is no constant (a hypothesis, a `have`'s name).
    pub local: Option<String>,
    /// A real case split: `rcases`/`obtain`/`rintro` with alternatives `|` in the pattern,
    /// `cases`/`match` with two or more alternatives, `cases` followed by two bullets,
    /// `by_cases`/`split_ifs`/`split` followed by two bullets or by `<;>`.
    pub splits: bool,
    /// The step provides an explicit witness: `use`/`exists`/`existsi`, or (a step of the
    /// declaration's own proof of an `∃` statement) `exact`/`refine` of an anonymous
    /// constructor `⟨w, …⟩`.
    pub witness: bool,
    /// For `have NAME … := …`: the name it introduces (`this` when unnamed).
    pub binds: Option<String>,
    /// For `have NAME … := …`: its own proof (spine and tactic counts, or term head).
    pub proof: Option<Box<Proof>>,
}

/// What one declaration's proof is made of.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Proof {
    /// Constants the proof refers to, in order of first use, each once.
    pub uses: Vec<String>,
    /// Top-level tactic steps, in order (empty for a term-mode proof).
    pub spine: Vec<Step>,
    /// For a term-mode proof, the head constant of the term (`Finset.card_le_card h`).
    pub term_head: Option<String>,
    /// Tactic counts of a nested proof (a `have`'s); empty for a declaration's own proof, whose
    /// counts the outline keeps.
    pub tactics: BTreeMap<String, usize>,
    /// Tactics inside term-level `by` blocks of the closing step (`exact ⟨⟨n - 5, by omega⟩,
    /// h⟩`): they close side goals and never name the proof.
    pub side_tactics: BTreeMap<String, usize>,
    /// Tactic counts of the proof's own block (its steps, bullets and `<;>` included), without
    /// the tactics of nested `by` blocks (a `have … := by …`, an argument's `by`).
    pub top_tactics: BTreeMap<String, usize>,
}

/// How deeply nested a term's head is looked for (parentheses, `▸`, glue arguments,
/// constructor parts): real proofs apply their lemma within a few levels, and a bound keeps
/// the reader's recursion shallow on generated text nested 100,000 deep.
const MAX_TERM_DEPTH: usize = 32;

/// Tactics whose leading identifiers are names they bind (up to `:`/`:=`).
const BINDING_HEADS: &[&str] = &[
    "have",
    "set",
    "let",
    "obtain",
    "intro",
    "intros",
    "rintro",
    "choose",
    "generalize",
    "suffices",
];
/// Tactics whose identifiers after `with` are names they bind.
const PATTERN_HEADS: &[&str] = &[
    "rcases",
    "cases",
    "cases'",
    "induction",
    "induction'",
    "match",
];

/// Node kind and field ids the walks compare against: an id is one integer comparison, a
/// kind's name a string built (and checked as UTF-8) on every call.
struct Ids {
    identifier: u16,
    tactic: u16,
    by_block: u16,
    head: std::num::NonZeroU16,
}

fn ids() -> &'static Ids {
    static IDS: std::sync::OnceLock<Ids> = std::sync::OnceLock::new();
    IDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_lean::LANGUAGE.into();
        Ids {
            identifier: lang.id_for_node_kind("identifier", true),
            tactic: lang.id_for_node_kind("tactic", true),
            by_block: lang.id_for_node_kind("by_block", true),
            head: lang
                .field_id_for_name("head")
                .expect("the grammar names a tactic's head"),
        }
    })
}

/// The proofs of `outline`'s declarations, by declaration index.
pub fn proofs(file: &ParsedFile, outline: &Outline) -> Vec<Proof> {
    proofs_where(file, outline, |_| true)
}

/// [`proofs`], read only for the declarations whose index `wanted` accepts (the others get an
/// empty [`Proof`]): a caller that reads only theorems' proofs need not walk definitions.
pub fn proofs_where(
    file: &ParsedFile,
    outline: &Outline,
    wanted: impl Fn(usize) -> bool,
) -> Vec<Proof> {
    let declared: HashSet<&str> = outline
        .declarations
        .iter()
        .flat_map(|d| [d.name.as_str(), d.full_name.as_str()])
        .filter(|n| !n.is_empty())
        .collect();
    // Same-file declarations that state no proposition (`def`, `abbrev`, `structure`,
    // `instance`, …; a theorem, lemma or axiom does): uses, but never the lemma a step applies.
    let not_lemmas: HashSet<&str> = outline
        .declarations
        .iter()
        .filter(|d| !(d.is_theorem_like() || d.kind == "axiom"))
        .flat_map(|d| [d.name.as_str(), d.full_name.as_str()])
        .filter(|n| !n.is_empty())
        .collect();
    // A name a theorem of another namespace shares stays a lemma.
    let lemmas: HashSet<&str> = outline
        .declarations
        .iter()
        .filter(|d| d.is_theorem_like() || d.kind == "axiom")
        .flat_map(|d| [d.name.as_str(), d.full_name.as_str()])
        .collect();
    let not_lemmas: HashSet<&str> = not_lemmas
        .into_iter()
        .filter(|n| !lemmas.contains(n))
        .collect();
    let root = file.root();
    outline
        .declarations
        .iter()
        .enumerate()
        .map(|(i, decl)| match &decl.body {
            Some(body) if !body.is_empty() && wanted(i) => {
                let signature: HashSet<&str> = decl
                    .statement
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '\'' || c == '.'))
                    .filter(|w| !w.is_empty())
                    .collect();
                match root.descendant_for_byte_range(body.start, body.end) {
                    Some(node) => {
                        let names = Names {
                            declared: &declared,
                            not_lemmas: &not_lemmas,
                        };
                        proof_of(file, node, &names, &signature, decl)
                    }
                    None => Proof::default(),
                }
            }
            _ => Proof::default(),
        })
        .collect()
}

/// The same file's declaration names.
struct Names<'a> {
    declared: &'a HashSet<&'a str>,
    not_lemmas: &'a HashSet<&'a str>,
}

fn proof_of<'t>(
    file: &ParsedFile,
    body: Node<'t>,
    names: &Names<'_>,
    signature: &HashSet<&str>,
    decl: &crate::lean::Declaration,
) -> Proof {
    let declared = names.declared;
    let text = |n: Node<'_>| file.text_of(n);
    // Names the proof binds, and every identifier in order (with whether it is a tactic head).
    let mut bound: HashSet<&str> = HashSet::new();
    let walked = ProofNodes::of(body);
    let idents = walked.idents;
    let tactics = walked.tactics;
    // Tactics and identifiers are in document order, so the identifiers inside a range are
    // one run, found by binary search: a long proof of many `have`s stays linear.
    static BINDING_ENDS: std::sync::OnceLock<aho_corasick::AhoCorasick> =
        std::sync::OnceLock::new();
    let binding = BINDING_ENDS.get_or_init(|| {
        aho_corasick::AhoCorasick::new([":=", " : ", "←"]).expect("fixed patterns")
    });
    for (t, head) in tactics.iter().zip(&walked.heads) {
        let Some(head) = head.map(text) else {
            continue;
        };
        let whole = text(*t);
        let start = t.start_byte();
        let range = if BINDING_HEADS.contains(&head) {
            // The leftmost of the three ends the names (the first match is the earliest).
            let end = binding.find(whole).map_or(whole.len(), |m| m.start());
            Some(start..start + end)
        } else if PATTERN_HEADS.contains(&head) {
            whole.find(" with ").map(|w| start + w..t.end_byte())
        } else {
            None
        };
        if let Some(range) = range {
            let from = idents.partition_point(|(n, _)| n.start_byte() < range.start);
            for (n, is_head) in idents[from..]
                .iter()
                .take_while(|(n, _)| n.start_byte() < range.end)
            {
                if !is_head && n.end_byte() <= t.end_byte() {
                    bound.insert(text(*n));
                }
            }
        }
    }
    let is_use = |name: &str| {
        let first = name.split('.').next().unwrap_or(name);
        name != decl.name
            && name != decl.full_name
            && !bound.contains(name)
            && !bound.contains(first)
            // The signature names types too (`Finset ℕ`): only its lowercase words are binders.
            && (!signature.contains(first) || first.starts_with(char::is_uppercase))
            && is_constant(name, declared)
    };
    let mut uses: Vec<String> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for (n, is_head) in &idents {
        let name = resolve(text(*n), declared);
        if !is_head && is_use(name) && seen.insert(name) {
            uses.push(name.to_string());
        }
    }
    let ctx = Ctx {
        file,
        declared,
        not_lemmas: names.not_lemmas,
        idents: &idents,
        tactics: &tactics,
        heads: &walked.heads,
        blocks: &walked.blocks,
        is_use: &is_use,
        existential: conclusion(&decl.statement).contains('∃'),
    };
    let (spine, side_tactics, top_tactics) = match first_by_block(body) {
        Some(block) => {
            let (spine, side) = ctx.spine(block, 0);
            (spine, side, ctx.top_counts(block))
        }
        None => (Vec::new(), BTreeMap::new(), BTreeMap::new()),
    };
    let term_head = if spine.is_empty() && !has_by_block(body) {
        let parts: Vec<Node<'_>> = if body.kind() == "value" {
            let mut cursor = body.walk();
            body.children(&mut cursor)
                .filter(|c| c.kind() != ":=")
                .collect()
        } else {
            vec![body]
        };
        match ctx.applied_head(&parts) {
            Head::Constant(c) => Some(c),
            _ => None,
        }
    } else {
        None
    };
    Proof {
        uses,
        spine,
        term_head,
        tactics: BTreeMap::new(),
        side_tactics,
        top_tactics,
    }
}

/// The identifiers and tactics of a proof, from one walk of its tree.
struct ProofNodes<'t> {
    /// Every identifier in document order, with whether it is its parent's `head`.
    idents: Vec<(Node<'t>, bool)>,
    /// Every tactic in document order.
    tactics: Vec<Node<'t>>,
    /// For each tactic, its `head` child (the tactic's name), seen by the same walk.
    heads: Vec<Option<Node<'t>>>,
    /// For each tactic, the id of the nearest `by_block` above it, inside the proof.
    blocks: Vec<Option<usize>>,
}

impl<'t> ProofNodes<'t> {
    /// Walks `body` and its descendants with one cursor (no recursion): the cursor knows each
    /// node's field, and a stack knows the `by` block and the tactic around it, so no node asks
    /// for its parent (`Node::parent` walks down from the root every time) and no tactic looks
    /// for its head among its children.
    fn of(body: Node<'t>) -> ProofNodes<'t> {
        let k = ids();
        let mut out = ProofNodes {
            idents: Vec::new(),
            tactics: Vec::new(),
            heads: Vec::new(),
            blocks: Vec::new(),
        };
        let body_kind = body.kind_id();
        if body_kind == k.identifier {
            let is_head = body
                .parent()
                .and_then(|p| p.child_by_field_id(k.head.get()))
                .is_some_and(|h| h.id() == body.id());
            out.idents.push((body, is_head));
        } else if body_kind == k.tactic {
            out.tactics.push(body);
            out.heads.push(body.child_by_field_id(k.head.get()));
            out.blocks.push(None);
        }
        let mut cursor = body.walk();
        if !cursor.goto_first_child() {
            return out;
        }
        // `around[k]`: the nearest `by_block` at or above the parent of the nodes at depth k+1,
        // and the index (in `tactics`) of that parent when it is a tactic.
        let mut around: Vec<(Option<usize>, Option<usize>)> = vec![(
            (body_kind == k.by_block).then(|| body.id()),
            (body_kind == k.tactic).then_some(0),
        )];
        loop {
            let node = cursor.node();
            let (block, parent_tactic) = *around.last().expect("the body's level");
            let kind = node.kind_id();
            // A node's field is asked only where it matters (an identifier's, or a tactic's
            // child's): finding it costs the cursor a search of the parent's field map.
            let is_head = (kind == k.identifier || parent_tactic.is_some())
                && cursor.field_id() == Some(k.head);
            if is_head {
                // The first `head` child, as `child_by_field_id` would answer.
                if let Some(t) = parent_tactic {
                    out.heads[t].get_or_insert(node);
                }
            }
            let mut tactic = None;
            if kind == k.identifier {
                out.idents.push((node, is_head));
            } else if kind == k.tactic {
                tactic = Some(out.tactics.len());
                out.tactics.push(node);
                out.heads.push(None);
                out.blocks.push(block);
            }
            // A leaf has no first child: the cursor's answer is the test.
            if cursor.goto_first_child() {
                around.push((
                    if kind == k.by_block {
                        Some(node.id())
                    } else {
                        block
                    },
                    tactic,
                ));
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return out;
                }
                around.pop();
                if around.is_empty() {
                    return out;
                }
            }
        }
    }
}

/// The type of a declaration's statement: what follows its first `:` outside brackets.
fn conclusion(statement: &str) -> &str {
    let mut depth = 0i32;
    for (i, c) in statement.char_indices() {
        match c {
            '(' | '[' | '{' | '⦃' | '⟨' => depth += 1,
            ')' | ']' | '}' | '⦄' | '⟩' => depth -= 1,
            ':' if depth == 0 && !statement[i + 1..].starts_with('=') => {
                return &statement[i + 1..];
            }
            _ => {}
        }
    }
    ""
}

/// How deep `have`s inside `have`s are read for their own spines.
const MAX_HAVE_DEPTH: usize = 3;

/// Tactics whose applied term's head is the lemma they apply.
const TERM_APPLYING: &[&str] = &[
    "exact",
    "apply",
    "refine",
    "refine'",
    "convert",
    "convert_to",
    "exact_mod_cast",
    "apply_mod_cast",
];

/// Logical and order combinators of core Lean and Mathlib: glue, never the key lemma. When an
/// applied term's head is one of them, its head is its first argument that is an applied lemma
/// (`le_trans (Finset.card_le_card h) hB` → `Finset.card_le_card`), else none.
const GLUE: &[&str] = &[
    "le_trans",
    "lt_trans",
    "lt_of_lt_of_le",
    "lt_of_le_of_lt",
    "Eq.symm",
    "Eq.trans",
    "Eq.mp",
    "Eq.mpr",
    "Ne.symm",
    "Iff.intro",
    "Iff.symm",
    "And.intro",
    "congr_arg",
    "congrArg",
    "congr_fun",
    "congrFun",
    "Or.inl",
    "Or.inr",
    "absurd",
    "False.elim",
    "Exists.intro",
    "id",
    "trivial",
];

/// Whether `name` is a [`GLUE`] combinator, or a namespaced copy of one (`Nat.le_trans`,
/// `Nat.lt_of_lt_of_le`), or the symmetry or transitivity of a relation (`Nat.ModEq.symm`,
/// `Int.ModEq.trans`, `Finset.Subset.trans`).
fn is_glue(name: &str) -> bool {
    if GLUE.contains(&name) {
        return true;
    }
    let (namespace, last) = name.rsplit_once('.').unwrap_or(("", name));
    let namespaced_copy = GLUE.contains(&last) && !last.contains('.');
    let relation_step = !namespace.is_empty()
        && namespace
            .rsplit('.')
            .next()
            .is_some_and(|r| r.starts_with(char::is_uppercase))
        && matches!(
            last,
            "symm" | "trans" | "trans_le" | "trans_lt" | "le" | "mp" | "mpr"
        );
    namespaced_copy || relation_step
}

/// Tactic heads the outline does not count (bullets, `<;>`, brackets).
const NOT_COUNTED: &[&str] = &["·", ".", "<;>", "(", "{", "["];

/// The head of an applied term.
enum Head {
    Constant(String),
    Local(String),
    Other,
}

/// What the spine of a proof is read with.
struct Ctx<'a, 't> {
    file: &'a ParsedFile,
    declared: &'a HashSet<&'a str>,
    /// Same-file declarations that are no theorem or lemma: never an applied lemma.
    not_lemmas: &'a HashSet<&'a str>,
    idents: &'a [(Node<'t>, bool)],
    tactics: &'a [Node<'t>],
    /// For each of `tactics`, its `head` child.
    heads: &'a [Option<Node<'t>>],
    /// For each of `tactics`, the id of the nearest `by_block` above it inside the proof.
    blocks: &'a [Option<usize>],
    is_use: &'a dyn Fn(&str) -> bool,
    /// The declaration's statement concludes with an `∃` (somewhere in its type).
    existential: bool,
}

impl<'t> Ctx<'_, 't> {
    fn text(&self, n: Node<'_>) -> &str {
        self.file.text_of(n)
    }

    /// The steps of a `by` block, and the tactics inside term-level `by`s of its closing step.
    fn spine(&self, block: Node<'t>, depth: usize) -> (Vec<Step>, BTreeMap<String, usize>) {
        let mut cursor = block.walk();
        let written: Vec<Node<'t>> = block
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "tactic")
            .collect();
        let tops: Vec<Node<'t>> = written.iter().map(|t| self.unwrap(*t)).collect();
        let mut steps: Vec<Step> = tops.iter().map(|t| self.step(*t, depth)).collect();
        for i in 0..steps.len() {
            let bullets = steps[i + 1..]
                .iter()
                .take_while(|s| matches!(s.head.as_str(), "·" | "." | "case" | "next"))
                .count();
            let chained = written[i].id() != tops[i].id();
            match steps[i].head.as_str() {
                // `cases h` / `cases' h with a b` is a split when bullets (or `case`/`next`)
                // follow it.
                "cases" | "cases'" | "rcases" if bullets >= 2 => steps[i].splits = true,
                // `by_cases h : P`, `split_ifs`, `split`: when the cases go on as bullets or
                // after `<;>`.
                "by_cases" | "by_cases!" | "split_ifs" | "split" => {
                    steps[i].splits = bullets >= 2 || chained;
                }
                _ => {}
            }
        }
        let side = match (tops.last(), steps.last()) {
            (Some(t), Some(s)) if TERM_APPLYING.contains(&s.head.as_str()) => {
                self.counts_within(*t, false)
            }
            _ => BTreeMap::new(),
        };
        (steps, side)
    }

    /// `t <;> rest`, `open X in t`, `set_option o v in t` → `t`.
    fn unwrap(&self, mut t: Node<'t>) -> Node<'t> {
        for _ in 0..16 {
            let head = self.head_of(t).map(|h| self.text(h)).unwrap_or_default();
            let mut cursor = t.walk();
            let inner = match head {
                "<;>" => t.named_children(&mut cursor).find(|c| c.kind() == "tactic"),
                "open" | "set_option" => t
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() == "tactic")
                    .last(),
                _ => None,
            };
            match inner {
                Some(i) => t = i,
                None => break,
            }
        }
        t
    }

    /// The `head` child of tactic `t` (its name), as the walk saw it: tactics are in document
    /// order, so `t` is found by binary search (a `t <;> u` and its `t` start at one byte).
    fn head_of(&self, t: Node<'t>) -> Option<Node<'t>> {
        let from = self
            .tactics
            .partition_point(|x| x.start_byte() < t.start_byte());
        self.tactics[from..]
            .iter()
            .take_while(|x| x.start_byte() == t.start_byte())
            .position(|x| x.id() == t.id())
            .map_or_else(
                || t.child_by_field_id(ids().head.get()),
                |k| self.heads[from + k],
            )
    }

    /// The tactics that start inside `node`, by index: `tactics` are in document order (a
    /// pre-order walk), so they are one run, found by binary search; reading every `have` of a
    /// long proof stays linear.
    fn tactics_in(&self, node: Node<'t>) -> std::ops::Range<usize> {
        let from = self
            .tactics
            .partition_point(|t| t.start_byte() < node.start_byte());
        let len = self.tactics[from..].partition_point(|t| t.start_byte() < node.end_byte());
        from..from + len
    }

    /// Counts of the heads of the tactics inside `node` whose index `keep` accepts (bullets,
    /// `<;>` and brackets are not counted).
    fn count_heads(&self, node: Node<'t>, keep: impl Fn(usize) -> bool) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for i in self.tactics_in(node) {
            let t = &self.tactics[i];
            if t.end_byte() > node.end_byte() || !keep(i) {
                continue;
            }
            if let Some(head) = self.heads[i].map(|h| self.text(h)) {
                if !NOT_COUNTED.contains(&head) {
                    // A head already counted is not allocated again (most of a proof's are).
                    match counts.get_mut(head) {
                        Some(n) => *n += 1,
                        None => {
                            counts.insert(head.to_string(), 1);
                        }
                    }
                }
            }
        }
        counts
    }

    /// Counts of the tactic heads of `block` itself (its steps, bullets and `<;>` parts), not
    /// of the `by` blocks nested in it.
    fn top_counts(&self, block: Node<'t>) -> BTreeMap<String, usize> {
        self.count_heads(block, |i| self.blocks[i] == Some(block.id()))
    }

    /// Counts of the tactic heads strictly inside `node` (with `node`'s own when `itself`).
    fn counts_within(&self, node: Node<'t>, itself: bool) -> BTreeMap<String, usize> {
        self.count_heads(node, |i| itself || self.tactics[i].id() != node.id())
    }

    fn step(&self, t: Node<'t>, depth: usize) -> Step {
        let head_node = self.head_of(t);
        let head = head_node.map(|h| self.text(h)).unwrap_or_default();
        let after_head: Vec<Node<'t>> = {
            let mut cursor = t.walk();
            t.children(&mut cursor)
                .filter(|c| head_node.is_none_or(|h| c.start_byte() >= h.end_byte()))
                .collect()
        };
        let mut step = Step {
            head: head.to_string(),
            ..Step::default()
        };
        let applied = if TERM_APPLYING.contains(&head) {
            Some(self.applied_head(&after_head))
        } else if head.starts_with("simpa") {
            after_head
                .iter()
                .position(|c| c.kind() == "identifier" && self.text(*c) == "using")
                .map(|i| self.applied_head(&after_head[i + 1..]))
        } else {
            None
        };
        match applied {
            Some(Head::Constant(c)) => step.constant = Some(c),
            Some(Head::Local(l)) => step.local = Some(l),
            Some(Head::Other) => {}
            None => step.constant = self.first_constant(t),
        }
        // `rw [LEMMA] at h` rewrites a hypothesis: it applies no lemma to the main goal.
        if let Some(at) = after_head
            .iter()
            .position(|c| c.kind() == "identifier" && self.text(*c) == "at")
        {
            let goal = after_head[at + 1..]
                .iter()
                .any(|c| matches!(self.text(*c), "⊢" | "|-"));
            if !goal {
                step.constant = None;
                step.local = None;
            }
        }
        step.splits = self.splits(head, t, &after_head);
        step.witness = match head {
            "use" | "use!" | "exists" | "existsi" => true,
            "exact" | "refine" | "refine'" => {
                // `⟨w, …⟩` whose first part is a term, not a hole left for later steps.
                depth == 0
                    && self.existential
                    && after_head.first().is_some_and(|c| {
                        let mut cursor = c.walk();
                        let first = c.named_children(&mut cursor).next();
                        c.kind() == "anonymous_constructor"
                            && first.is_some_and(|f| !matches!(self.text(f), "_" | "?_"))
                            && first.is_some_and(|f| !self.text(f).starts_with('?'))
                    })
            }
            _ => false,
        };
        if head == "have" {
            self.read_have(&mut step, &after_head, depth);
        }
        step
    }

    /// The first constant a step names anywhere (not its tactic name).
    fn first_constant(&self, t: Node<'t>) -> Option<String> {
        // `idents` are in document order: the ones inside `t` are one run (binary search).
        let from = self
            .idents
            .partition_point(|(n, _)| n.start_byte() < t.start_byte());
        self.idents[from..]
            .iter()
            .take_while(|(n, _)| n.start_byte() < t.end_byte())
            .filter(|(n, h)| !h && n.end_byte() <= t.end_byte())
            .map(|(n, _)| resolve(self.text(*n), self.declared))
            .find(|name| (self.is_use)(name) && !self.not_lemmas.contains(name))
            .map(str::to_string)
    }

    /// The head of the term made of `parts`: its first part after `@` (inside parentheses,
    /// their first part), or the function of a trailing `x |> f`, or of `e` in `h ▸ e`; for a
    /// [`GLUE`] head its first argument that is an applied lemma; for an anonymous constructor
    /// without holes (`⟨w, hw, LEMMA x |>.mpr h⟩`) the head of its only part whose head is a
    /// lemma.
    fn applied_head(&self, parts: &[Node<'t>]) -> Head {
        self.applied_head_within(parts, 0)
    }

    /// [`Ctx::applied_head`] at `depth` levels of nesting: a term nested deeper than
    /// [`MAX_TERM_DEPTH`] (parentheses, casts, glue arguments, constructor parts) has no head
    /// this reader names, so the walk stays bounded however deep the text nests.
    fn applied_head_within(&self, parts: &[Node<'t>], depth: usize) -> Head {
        if depth >= MAX_TERM_DEPTH {
            return Head::Other;
        }
        let parts: Vec<Node<'t>> = parts
            .iter()
            .copied()
            .skip_while(|p| {
                (p.kind() == "operator" && self.text(*p) == "@")
                    || (p.kind() == "identifier" && self.text(*p) == "mod_cast")
            })
            .collect();
        // `h ▸ e` casts `e`: its head is `e`'s.
        if let Some(cast) = parts
            .iter()
            .position(|p| p.kind() == "operator" && self.text(*p) == "▸")
        {
            return self.applied_head_within(&parts[cast + 1..], depth + 1);
        }
        let mut parts = parts.into_iter();
        let Some(first) = parts.next() else {
            return Head::Other;
        };
        let mut head = match first.kind() {
            "identifier" => self.name_head(first),
            "parens" => {
                let mut cursor = first.walk();
                let inner: Vec<Node<'t>> = first.named_children(&mut cursor).collect();
                self.applied_head_within(&inner, depth + 1)
            }
            "anonymous_constructor" => self.constructor_head(first, depth + 1),
            _ => Head::Other,
        };
        let rest: Vec<Node<'t>> = parts.collect();
        if let Head::Constant(c) = &head {
            if is_glue(c) {
                head = rest
                    .iter()
                    .take_while(|p| !matches!(p.kind(), "operator"))
                    .find_map(|p| match p.kind() {
                        "identifier" | "parens" => match self.applied_head_within(&[*p], depth + 1)
                        {
                            Head::Constant(c) => Some(Head::Constant(c)),
                            _ => None,
                        },
                        _ => None,
                    })
                    .unwrap_or(Head::Other);
            }
        }
        for w in rest.windows(2) {
            if w[0].kind() == "operator" && self.text(w[0]) == "|>" && w[1].kind() == "identifier" {
                head = self.name_head(w[1]);
            }
        }
        head
    }

    /// The head of `⟨a, b, …⟩`: the head of its only part whose head is a lemma, when it has
    /// no hole (`?_`, `_`) left for later steps.
    fn constructor_head(&self, node: Node<'t>, depth: usize) -> Head {
        let mut cursor = node.walk();
        let mut components: Vec<Vec<Node<'t>>> = vec![Vec::new()];
        for c in node.children(&mut cursor) {
            match c.kind() {
                "," => components.push(Vec::new()),
                "⟨" | "⟩" => {}
                _ => components.last_mut().expect("one component").push(c),
            }
        }
        let mut lemmas = Vec::new();
        for part in &components {
            if part.is_empty() {
                continue;
            }
            if part
                .iter()
                .any(|p| matches!(self.text(*p), "?_" | "_") || self.text(*p).starts_with('?'))
            {
                return Head::Other;
            }
            if let Head::Constant(c) = self.applied_head_within(part, depth) {
                lemmas.push(c);
            }
        }
        match lemmas.len() {
            1 => Head::Constant(lemmas.remove(0)),
            _ => Head::Other,
        }
    }

    fn name_head(&self, ident: Node<'t>) -> Head {
        let name = resolve(self.text(ident), self.declared);
        if self.not_lemmas.contains(name) {
            Head::Other
        } else if (self.is_use)(name) {
            Head::Constant(name.to_string())
        } else {
            let first = name.trim_start_matches('@');
            let first = first.split('.').next().unwrap_or(first);
            Head::Local(first.to_string())
        }
    }

    /// Whether a step splits the goal into cases (see [`Step::splits`]).
    fn splits(&self, head: &str, t: Node<'t>, after_head: &[Node<'t>]) -> bool {
        let whole = self.text(t);
        let args = &whole[head.len().min(whole.len())..];
        match head {
            "rcases" | "rcases'" => args
                .find(" with ")
                .is_some_and(|w| has_alternatives(&args[w..])),
            "obtain" => {
                let end = [":=", " : "]
                    .iter()
                    .filter_map(|p| args.find(p))
                    .min()
                    .unwrap_or(args.len());
                has_alternatives(&args[..end])
            }
            "rintro" | "rintros" => has_alternatives(args),
            "cases" | "cases'" | "match" => {
                let mut alternatives = 0;
                for c in after_head {
                    if c.kind() == "tactic_alternative" {
                        alternatives += 1;
                    } else if c.kind() == "with_clause" {
                        let mut cursor = c.walk();
                        alternatives += c
                            .named_children(&mut cursor)
                            .filter(|a| a.kind() == "tactic_alternative")
                            .count();
                    }
                }
                alternatives >= 2
            }
            _ => false,
        }
    }

    /// `have NAME … := by …` / `have NAME … := term`: the name and its own proof.
    fn read_have(&self, step: &mut Step, after_head: &[Node<'t>], depth: usize) {
        step.binds = match after_head.first() {
            Some(c) if c.kind() == "identifier" => Some(self.text(*c).to_string()),
            Some(c) if matches!(c.kind(), ":" | ":=") => Some("this".to_string()),
            _ => None,
        };
        if depth >= MAX_HAVE_DEPTH {
            return;
        }
        let Some(assign) = after_head.iter().position(|c| c.kind() == ":=") else {
            return;
        };
        let value = &after_head[assign + 1..];
        let proof = match value.first() {
            Some(b) if b.kind() == "by_block" => {
                let (spine, side_tactics) = self.spine(*b, depth + 1);
                Proof {
                    spine,
                    tactics: self.counts_within(*b, false),
                    side_tactics,
                    ..Proof::default()
                }
            }
            Some(_) => Proof {
                term_head: match self.applied_head(value) {
                    Head::Constant(c) => Some(c),
                    _ => None,
                },
                ..Proof::default()
            },
            None => return,
        };
        step.proof = Some(Box::new(proof));
    }
}

/// Whether an rcases pattern has alternatives (`rfl | h`, `⟨x, rfl | rfl⟩`).
fn has_alternatives(pattern: &str) -> bool {
    let chars: Vec<char> = pattern.chars().collect();
    chars.iter().enumerate().any(|(i, c)| {
        *c == '|'
            && !matches!(chars.get(i + 1), Some('>' | '|'))
            && !matches!(i.checked_sub(1).map(|j| chars[j]), Some('<' | '|'))
    })
}

/// The constant an identifier token names (see [`constant_name`]), or the longest prefix of it
/// that is a declaration of the file (`aux.mp` → `aux`).
fn resolve<'s>(token: &'s str, declared: &HashSet<&str>) -> &'s str {
    let name = constant_name(token);
    if declared.contains(name) {
        return name;
    }
    let mut prefix = name;
    while let Some((head, _)) = prefix.rsplit_once('.') {
        if declared.contains(head) {
            return head;
        }
        prefix = head;
    }
    name
}

/// The constant an identifier names: without `@`, without numeric projections
/// (`Classical.not_not.1` → `Classical.not_not`) and without the projections after a lemma
/// name, its first lowercase segment with an `_` (`card_eq_one.mp` → `card_eq_one`,
/// `Finset.mem_filter.mpr.trans` → `Finset.mem_filter`; `Nat.Prime.two_le` stays).
fn constant_name(token: &str) -> &str {
    let mut name = token.trim_start_matches('@');
    while let Some((head, last)) = name.rsplit_once('.') {
        if last.is_empty() || !last.chars().all(|c| c.is_ascii_digit()) {
            break;
        }
        name = head;
    }
    let mut end = 0;
    for (i, segment) in name.split('.').enumerate() {
        end += segment.len() + usize::from(i > 0);
        if segment.contains('_') && segment.starts_with(char::is_lowercase) {
            return &name[..end];
        }
    }
    name
}

/// Whether `name` looks like a constant rather than a local (see the module documentation).
fn is_constant(name: &str, declared: &HashSet<&str>) -> bool {
    if !name.starts_with(char::is_alphabetic) {
        return false; // `_`, `_root_` leftovers, numbers
    }
    if declared.contains(name) {
        return true;
    }
    match name.split_once('.') {
        Some((first, _)) => {
            first.chars().count() >= 2 && first.chars().next().is_some_and(char::is_uppercase)
        }
        None => name.contains('_') && !looks_like_hypothesis(name),
    }
}

/// `h_pos`, `hx_lt`, `hab_le`, `ih_n`, `H_1`: a hypothesis name, not a lemma.
fn looks_like_hypothesis(name: &str) -> bool {
    let prefix = name.split('_').next().unwrap_or(name);
    let rest = prefix
        .strip_prefix("ih")
        .or_else(|| prefix.strip_prefix('h'))
        .or_else(|| prefix.strip_prefix('H'));
    rest.is_some_and(|r| r.chars().count() <= 2)
}

/// The first `by_block` at or below `body`, searched breadth-first a few levels deep (the
/// proof's own `by` sits right under the declaration's value).
fn first_by_block(body: Node<'_>) -> Option<Node<'_>> {
    let mut level = vec![body];
    for _ in 0..4 {
        if let Some(b) = level.iter().find(|n| n.kind() == "by_block") {
            return Some(*b);
        }
        let mut next = Vec::new();
        for n in &level {
            let mut cursor = n.walk();
            next.extend(n.named_children(&mut cursor));
        }
        level = next;
    }
    None
}

fn has_by_block(body: Node<'_>) -> bool {
    first_by_block(body).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn namespaced_glue_and_relation_steps_are_glue() {
        for glue in [
            "le_trans",
            "Nat.le_trans",
            "Nat.lt_of_lt_of_le",
            "Nat.ModEq.symm",
            "Int.ModEq.trans",
            "Iff.mp",
        ] {
            assert!(is_glue(glue), "{glue}");
        }
        for lemma in [
            "Finset.card_le_card",
            "Nat.Prime.two_le",
            "Nat.modEq_of_dvd",
            "triangle_card_3",
        ] {
            assert!(!is_glue(lemma), "{lemma}");
        }
        let p = &proofs_of(
            "theorem t (A : Finset ℕ) (hA : A.card = 3) : 2 < A.card := by\n  \
             exact Nat.lt_of_lt_of_le (by norm_num) (Finset.card_le_card (le_refl A) |>.trans hA.ge)\n",
        )[0];
        assert_eq!(
            p.spine.last().and_then(|s| s.constant.as_deref()),
            Some("Finset.card_le_card")
        );
    }

    fn proofs_of(src: &str) -> Vec<Proof> {
        let file = ParsedFile::parse(src.to_string());
        let outline = Outline::of("t.lean", &file);
        proofs(&file, &outline)
    }

    #[test]
    fn qualified_and_underscored_constants_are_uses_locals_are_not() {
        let p = &proofs_of(
            "theorem foo (s t : Finset ℕ) (h_sub : s ⊆ t) : s.card ≤ t.card := by\n  \
             have h2 : 1 ≤ 2 := by decide\n  \
             have key_step : s.card ≤ t.card := Finset.card_le_card h_sub\n  \
             exact le_trans key_step (le_refl _)\n",
        )[0];
        assert_eq!(p.uses, vec!["Finset.card_le_card", "le_trans", "le_refl"]);
        let heads: Vec<&str> = p.spine.iter().map(|s| s.head.as_str()).collect();
        assert_eq!(heads, vec!["have", "have", "exact"]);
        // `le_trans` is glue: its first argument that is an applied lemma is the head.
        assert_eq!(p.spine[2].constant.as_deref(), Some("le_refl"));
    }

    #[test]
    fn same_file_lemmas_and_term_proofs() {
        let ps = proofs_of(
            "lemma aux (n : ℕ) : n ≤ n + 1 := Nat.le_succ n\n\n\
             theorem main (n : ℕ) (h : 2 ≤ n) : n ≤ n + 1 := aux n\n",
        );
        assert_eq!(ps[0].uses, vec!["Nat.le_succ"]);
        assert_eq!(ps[0].term_head.as_deref(), Some("Nat.le_succ"));
        assert_eq!(ps[1].uses, vec!["aux"]);
        assert_eq!(
            ps[1].term_head.as_deref(),
            Some("aux"),
            "a same-file lemma carries the proof too"
        );
        assert!(ps[1].spine.is_empty());
    }

    #[test]
    fn hypothesis_names_are_not_lemmas() {
        assert!(looks_like_hypothesis("h_pos"));
        assert!(looks_like_hypothesis("hx_lt"));
        assert!(looks_like_hypothesis("ih_n"));
        assert!(!looks_like_hypothesis("half_pos"));
        assert!(!looks_like_hypothesis("mul_pos"));
        let none = HashSet::new();
        assert!(!is_constant("S.card", &none));
        assert!(!is_constant("h.le", &none));
        assert!(is_constant("Nat.Prime.two_le", &none));
        assert_eq!(constant_name("@Classical.not_not.1"), "Classical.not_not");
        assert_eq!(constant_name("foo.2.1"), "foo");
    }

    #[test]
    fn lowercase_dotted_lemmas_are_constants_without_their_projections() {
        let p = &proofs_of(
            "theorem t (h_pos : 0 < n) (h : s.card = 1) : Q := by\n  \
             have := card_eq_one.mp h\n  \
             have := h_pos.le\n  \
             have := Finset.mem_filter.mpr.trans foo\n  \
             exact orderOf_dvd_iff_pow_eq_one.mpr (h.trans_le h_pos.le)\n",
        )[0];
        assert_eq!(
            p.uses,
            vec![
                "card_eq_one",
                "Finset.mem_filter",
                "orderOf_dvd_iff_pow_eq_one"
            ]
        );
        assert_eq!(
            p.spine[3].constant.as_deref(),
            Some("orderOf_dvd_iff_pow_eq_one")
        );
        assert_eq!(constant_name("Nat.Prime.two_le"), "Nat.Prime.two_le");
        assert_eq!(constant_name("le_antisymm_iff.mp.trans"), "le_antisymm_iff");
        assert_eq!(constant_name("hx.trans_le"), "hx.trans_le");
    }

    #[test]
    fn steps_record_splits_haves_and_applied_heads() {
        let p = &proofs_of(
            "theorem t (h : A ∨ B) (h₂ : C) : D := by\n  \
             have h_main : C := by\n    \
             nlinarith\n  \
             rcases h with ⟨x, rfl | rfl⟩\n  \
             exact (h_main.trans (foo_le h₂)).le\n",
        )[0];
        assert_eq!(p.spine[0].binds.as_deref(), Some("h_main"));
        let inner = p.spine[0].proof.as_deref().unwrap();
        assert_eq!(inner.spine[0].head, "nlinarith");
        assert_eq!(inner.tactics.get("nlinarith"), Some(&1));
        assert!(p.spine[1].splits);
        assert_eq!(p.spine[2].constant, None);
        assert_eq!(p.spine[2].local.as_deref(), Some("h_main"));
    }
}
