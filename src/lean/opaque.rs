//! The Lean code inside the parts of a file that the grammar reads without structure.
//!
//! Three kinds of text are tokens (or token soups) of the syntax tree although Lean
//! elaborates code inside them:
//!
//! - **HTML in a term** (`jsx_element`: doc-gen4's and ProofWidgets' JSX, Verso's `{{ }}`):
//!   the terms in `{…}` / `[…]` among the children and attributes are Lean; tag names,
//!   attribute names and the text between tags are not.
//! - **Verso markup** (`verso_markup`, the body of `#doc` / `#docs`): a fenced code block or a
//!   code role whose name says Lean (`lean`, `leanTerm`, `savedLean`, but not `leanOutput`,
//!   which holds Lean's messages) is elaborated by Verso; the rest is prose.
//! - **Metaprograms** (`syntax_command` of a kind that holds code: `elab`, `macro`,
//!   `initialize`, …): the soup outside syntax quotations is the metaprogram's own code.
//!   What a syntax quotation holds is syntax data, not code of this file (`` `(tactic| sorry) ``
//!   builds a piece of syntax; the definition that quotes it uses no `sorry`), except its
//!   antiquotations `$(…)`, which are terms the metaprogram runs.
//!
//! [`code_ranges`] gives the byte ranges of that code, for the lexical scan of
//! [`super::trust_scan`]. Every reader is linear in its text and bounded in depth; where a
//! reader meets text it does not expect, it takes the whole token as code (fail closed: a
//! word there is reported rather than missed).

use std::ops::Range;

use tree_sitter::Node;

use super::syntax::for_each_descendant_where;

/// What kind of opaque text a code range was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Opaque {
    /// HTML written in a term (`jsx_element`).
    Html,
    /// A Lean code block or role of a Verso document (`verso_markup`).
    VersoCode,
    /// A metaprogram's code: an `elab`/`macro`/`initialize`… body outside its quotations, or
    /// an antiquotation `$(…)` in a syntax quotation.
    Metaprogram,
}

/// Syntax commands whose soup holds code run by Lean (an elaborator, a macro's `do` block, an
/// initializer, a simproc, a definition); the others (`notation`, `syntax`, `infix`, …) hold
/// only syntax and templates, data like a quotation.
const CODE_COMMANDS: &[&str] = &[
    "macro",
    "macro_rules",
    "elab",
    "elab_rules",
    "initialize",
    "builtin_initialize",
    "simproc",
    "dsimproc",
    "irreducible_def",
];

/// Node kinds whose text a parent's soup does not own: each is read on its own.
fn is_opaque_kind(kind: &str) -> bool {
    matches!(kind, "jsx_element" | "verso_markup" | "syntax_quotation")
}

/// The node kinds [`code_ranges`] reads: only a node of one of these can be opaque text that
/// holds code.
pub const CODE_KINDS: [&str; 4] = [
    "jsx_element",
    "verso_markup",
    "syntax_quotation",
    "syntax_command",
];

/// The code inside `node` when it is opaque text that holds some, with what kind of text it
/// is; `None` for any other node. The ranges are ascending and disjoint. A node inside
/// another opaque node has code ranges of its own, never overlapping its parent's: a
/// quotation's antiquotations exclude the quotations nested in them, a metaprogram's code
/// excludes its quotations and HTML.
pub fn code_ranges(node: Node<'_>, text: &str) -> Option<(Opaque, Vec<Range<usize>>)> {
    let ranges = match node.kind() {
        "jsx_element" => return Some((Opaque::Html, jsx_code(text, node.byte_range()))),
        "verso_markup" => return Some((Opaque::VersoCode, verso_code(text, node.byte_range()))),
        "syntax_quotation" => antiquotations(node, text),
        "syntax_command" => {
            let keyword = node.child_by_field_name("keyword")?;
            if !CODE_COMMANDS.contains(&&text[keyword.byte_range()]) {
                return None;
            }
            let mut holes = Vec::new();
            outermost_opaque(node, &mut holes);
            subtract(node.byte_range(), &holes)
        }
        _ => return None,
    };
    Some((Opaque::Metaprogram, ranges))
}

/// The ranges of the outermost opaque nodes below `node` (not `node` itself).
fn outermost_opaque(node: Node<'_>, out: &mut Vec<Range<usize>>) {
    let mut cursor = node.walk();
    for_each_descendant_where(
        &mut cursor,
        |n| !is_opaque_kind(n.kind()),
        |n| {
            if is_opaque_kind(n.kind()) {
                out.push(n.byte_range());
            }
        },
    );
}

/// `range` without the ascending, disjoint `holes` inside it.
fn subtract(range: Range<usize>, holes: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut at = range.start;
    for h in holes {
        if h.start > at {
            out.push(at..h.start);
        }
        at = at.max(h.end);
    }
    if at < range.end {
        out.push(at..range.end);
    }
    out
}

/// The antiquotations `$(…)` of a syntax quotation (not those of quotations nested in it),
/// each without the quotations and HTML nested in it.
fn antiquotations(quotation: Node<'_>, text: &str) -> Vec<Range<usize>> {
    let is_antiquotation = |n: Node<'_>| {
        n.kind() == "parens"
            && n.prev_sibling().is_some_and(|p| {
                p.end_byte() == n.start_byte() && text[p.byte_range()].ends_with('$')
            })
    };
    let mut found = Vec::new();
    let mut cursor = quotation.walk();
    for_each_descendant_where(
        &mut cursor,
        |n| !is_opaque_kind(n.kind()) && !is_antiquotation(n),
        |n| {
            if is_antiquotation(n) {
                found.push(n);
            }
        },
    );
    let mut out = Vec::new();
    for a in found {
        let mut holes = Vec::new();
        outermost_opaque(a, &mut holes);
        out.extend(subtract(a.byte_range(), &holes));
    }
    out
}

// ---- HTML in a term ----

/// Nesting of elements and bracketed terms the reader follows (the grammar's scanner accepts
/// at most 32); deeper, the whole element is taken as code.
const JSX_DEPTH: usize = 40;

/// The Lean terms of the HTML element spanning `range` of `text`.
pub fn jsx_code(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    // Not what the scanner reads: fail closed, the whole element counts as code.
    let end = range.end.min(text.len());
    jsx_read(text, range.clone()).unwrap_or_else(|| std::iter::once(range.start..end).collect())
}

/// The terms of the element spanning `range`, or `None` where the text is not an element as
/// the scanner reads one.
fn jsx_read(text: &str, range: Range<usize>) -> Option<Vec<Range<usize>>> {
    let text = &text[..range.end.min(text.len())];
    let mut r = Jsx {
        t: text,
        b: text.as_bytes(),
        i: range.start,
        out: Vec::new(),
    };
    r.element(0)?;
    r.out.retain(|x| !x.is_empty());
    Some(r.out)
}

/// A reader of one element, mirroring the grammar's scanner (`jsx_element_rest`).
struct Jsx<'t> {
    t: &'t str,
    b: &'t [u8],
    i: usize,
    out: Vec<Range<usize>>,
}

/// The scanner's `is_ascii_word`: a character that continues a word.
fn is_word_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'\'' | b'!' | b'?')
}

const OPEN_ANGLE: &[u8] = "⟨".as_bytes();
const CLOSE_ANGLE: &[u8] = "⟩".as_bytes();

impl Jsx<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn at(&self, k: usize) -> Option<u8> {
        self.b.get(self.i + k).copied()
    }

    fn starts(&self, s: &[u8]) -> bool {
        self.b[self.i.min(self.b.len())..].starts_with(s)
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn tag_chars(&mut self) {
        while self
            .peek()
            .is_some_and(|c| is_word_byte(c) || matches!(c, b'.' | b'-' | b':'))
        {
            self.i += 1;
        }
    }

    /// A string literal at its `"`.
    fn string(&mut self) -> Option<()> {
        self.i += 1;
        loop {
            match self.peek()? {
                b'"' => {
                    self.i += 1;
                    return Some(());
                }
                b'\\' => self.i += 2,
                _ => self.i += 1,
            }
        }
    }

    /// Whether a raw string (`r"…"`, `r#"…"#`, `r##"…"##`, …) starts here.
    fn raw_string_here(&self) -> bool {
        self.peek() == Some(b'r') && matches!(self.at(1), Some(b'"' | b'#'))
    }

    /// A raw string at its `r` (the scanner's `jsx_raw_string`): it ends at the first `"`
    /// followed by as many `#` as it began with.
    fn raw_string(&mut self) -> Option<()> {
        self.i += 1;
        let hashes = self.b[self.i..].iter().take_while(|&&c| c == b'#').count();
        self.i += hashes;
        if self.peek()? != b'"' {
            return None;
        }
        self.i += 1;
        loop {
            let quote = memchr::memchr(b'"', &self.b[self.i..])?;
            self.i += quote + 1;
            let rest = &self.b[self.i..];
            if rest.len() >= hashes && rest[..hashes].iter().all(|&c| c == b'#') {
                self.i += hashes;
                return Some(());
            }
        }
    }

    /// A comment at its `--` or `/-`.
    fn comment(&mut self) -> Option<()> {
        let len = super::lexical::non_code_at(self.t, self.i)?;
        self.i += len;
        Some(())
    }

    /// An element at its `<`.
    fn element(&mut self, depth: usize) -> Option<()> {
        if depth > JSX_DEPTH {
            return None;
        }
        self.i += 1;
        if !self.peek()?.is_ascii_alphabetic() && self.peek()? != b'_' {
            return None;
        }
        self.tag_chars();
        // attributes
        loop {
            self.skip_space();
            match self.peek()? {
                b'>' => {
                    self.i += 1;
                    break;
                }
                b'/' => {
                    self.i += 1;
                    while self.peek() == Some(b' ') {
                        self.i += 1;
                    }
                    return (self.peek()? == b'>').then(|| self.i += 1);
                }
                b'{' | b'[' => {
                    self.term(depth + 1)?;
                    continue;
                }
                b'"' => self.string()?,
                c if c.is_ascii_alphabetic() || c == b'_' => self.tag_chars(),
                _ => return None,
            }
            while self.peek() == Some(b' ') {
                self.i += 1;
            }
            if self.peek() == Some(b'=') {
                self.i += 1;
                while self.peek() == Some(b' ') {
                    self.i += 1;
                }
                match self.peek()? {
                    b'"' => self.string()?,
                    b'{' | b'[' | b'(' => self.term(depth + 1)?,
                    b'r' if self.raw_string_here() => self.raw_string()?,
                    b's' | b'r' if self.at(1) == Some(b'!') && self.at(2) == Some(b'"') => {
                        self.i += 2;
                        self.string()?;
                    }
                    _ => return None,
                }
            }
        }
        // children
        loop {
            self.skip_space();
            match self.peek()? {
                b'<' => match self.at(1)? {
                    b'/' => {
                        self.i += 2;
                        self.tag_chars();
                        while self.peek() == Some(b' ') {
                            self.i += 1;
                        }
                        return (self.peek()? == b'>').then(|| self.i += 1);
                    }
                    b'!' => {
                        // `<!-- … -->`
                        let close = memchr::memmem::find(&self.b[self.i..], b"-->")?;
                        self.i += close + 3;
                    }
                    _ => self.element(depth + 1)?,
                },
                b'{' | b'[' => self.term(depth + 1)?,
                b'"' => self.string()?,
                b'}' | b']' | b'>' | b'$' => return None,
                c => {
                    if matches!(c, b's' | b'm' | b'f' | b'r')
                        && self.at(1) == Some(b'!')
                        && self.at(2) == Some(b'"')
                    {
                        self.i += 2;
                        self.string()?;
                        continue;
                    }
                    if (c == b'-' || c == b'/') && self.at(1) == Some(b'-') {
                        self.comment()?;
                        continue;
                    }
                    // raw text
                    while self.peek().is_some_and(|c| {
                        !matches!(c, b'[' | b'{' | b'<' | b'>' | b'}' | b']' | b'$')
                    }) {
                        self.i += 1;
                    }
                }
            }
        }
    }

    /// A Lean term in brackets, at its opening bracket: its text is code, except the HTML
    /// elements nested in it, whose own terms are.
    fn term(&mut self, depth: usize) -> Option<()> {
        if depth > JSX_DEPTH {
            return None;
        }
        let mut closers: Vec<&[u8]> = Vec::new();
        let open = |s: &Self| -> Option<(&'static [u8], usize)> {
            match s.peek()? {
                b'(' => Some((b")", 1)),
                b'[' => Some((b"]", 1)),
                b'{' => Some((b"}", 1)),
                _ if s.starts(OPEN_ANGLE) => Some((CLOSE_ANGLE, OPEN_ANGLE.len())),
                _ => None,
            }
        };
        let (closer, len) = open(self)?;
        closers.push(closer);
        self.i += len;
        let mut segment = self.i;
        let mut after_word = false;
        while let Some(&closer) = closers.last() {
            let c = self.peek()?;
            if c == b'"' {
                self.string()?;
                after_word = false;
            } else if !after_word && self.raw_string_here() {
                self.raw_string()?;
                after_word = false;
            } else if c == b'\'' && !after_word {
                // a character literal (a prime after a word is part of it)
                self.i += 1;
                if self.peek() == Some(b'\\') {
                    self.i += 1;
                }
                self.i += 1;
                while self.peek().is_some_and(|c| c & 0xC0 == 0x80) {
                    self.i += 1;
                }
                if self.peek() == Some(b'\'') {
                    self.i += 1;
                }
            } else if (c == b'-' || c == b'/') && self.at(1) == Some(b'-') {
                self.comment()?;
                after_word = false;
            } else if c == b'<'
                && !after_word
                && self
                    .at(1)
                    .is_some_and(|d| d.is_ascii_alphabetic() || d == b'_')
            {
                self.out.push(segment..self.i);
                self.element(depth + 1)?;
                segment = self.i;
                after_word = false;
            } else if let Some((inner, len)) = open(self) {
                if closers.len() >= JSX_DEPTH {
                    return None;
                }
                closers.push(inner);
                self.i += len;
                after_word = false;
            } else if self.starts(closer) {
                closers.pop();
                if closers.is_empty() {
                    self.out.push(segment..self.i);
                }
                self.i += closer.len();
                after_word = true;
            } else if matches!(c, b')' | b']' | b'}') || self.starts(CLOSE_ANGLE) {
                return None;
            } else {
                after_word = is_word_byte(c) || c >= 0x80;
                self.i += 1;
            }
        }
        Some(())
    }
}

// ---- Verso markup ----

/// Whether a Verso code block or role of this name holds Lean that Verso elaborates: a name
/// one of whose words (split at `.`, `_` and lower-to-upper case changes) is `lean`, and none
/// `output` (`leanOutput` holds the messages Lean printed, to be compared, not run).
fn is_lean_name(name: &str) -> bool {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in name.chars() {
        let boundary = c == '.' || c == '_' || c == '-' || (c.is_uppercase() && prev_lower);
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        if c.is_alphanumeric() {
            word.extend(c.to_lowercase());
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    if !word.is_empty() {
        words.push(word);
    }
    words.iter().any(|w| w == "lean") && !words.iter().any(|w| w == "output")
}

/// The name at the start of `s` (a code block's or role's): letters, digits, `_`, `.`, `'`.
fn name_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | '\'')))
        .unwrap_or(s.len());
    &s[..end]
}

/// The Lean code in the Verso markup spanning `range` of `text`: the contents of fenced code
/// blocks (three or more backticks, closed by a line holding the same fence) and of code
/// roles (`{lean}`…``) whose name says Lean (see [`is_lean_name`]). A block never closed runs
/// to the end of the markup.
pub fn verso_code(text: &str, range: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    // The open fenced block: its fence length, whether it is Lean, where its content starts.
    let mut block: Option<(usize, bool, usize)> = None;
    let mut at = range.start;
    let end = range.end.min(text.len());
    while at < end {
        let line_end = memchr::memchr(b'\n', &text.as_bytes()[at..end]).map_or(end, |k| at + k);
        let line = &text[at..line_end];
        let trimmed = line.trim_start();
        let fence = trimmed.bytes().take_while(|&c| c == b'`').count();
        match block {
            Some((open, lean, start)) => {
                if fence == open && trimmed[fence..].trim().is_empty() {
                    if lean {
                        out.push(start..at);
                    }
                    block = None;
                }
            }
            None if fence >= 3 => {
                let name = name_at(trimmed[fence..].trim_start());
                block = Some((fence, is_lean_name(name), (line_end + 1).min(end)));
            }
            None => code_roles(text, at..line_end, &mut out),
        }
        at = line_end + 1;
    }
    if let Some((_, true, start)) = block {
        out.push(start..end);
    }
    out
}

/// The code of the Lean roles on one line: `{name args}` right before a code span of `k`
/// backticks, whose text runs to the next run of exactly `k` backticks.
fn code_roles(text: &str, line: Range<usize>, out: &mut Vec<Range<usize>>) {
    let b = text.as_bytes();
    let mut i = line.start;
    while let Some(k) = memchr::memchr(b'{', &b[i..line.end]) {
        i += k + 1;
        let name = name_at(&text[i..line.end]);
        if name.is_empty() {
            continue;
        }
        // the role's closing brace (arguments may hold brackets and strings)
        let mut depth = 1usize;
        let mut j = i;
        while j < line.end && depth > 0 {
            match b[j] {
                b'{' => depth += 1,
                b'}' => depth -= 1,
                b'"' => {
                    j += 1;
                    while j < line.end && b[j] != b'"' {
                        j += if b[j] == b'\\' { 2 } else { 1 };
                    }
                }
                _ => {}
            }
            j += 1;
        }
        if depth > 0 || j >= line.end || b[j] != b'`' {
            continue;
        }
        let ticks = b[j..line.end].iter().take_while(|&&c| c == b'`').count();
        let start = j + ticks;
        // the closing run: exactly as many backticks
        let mut k = start;
        let mut close = None;
        while k < line.end {
            if b[k] == b'`' {
                let run = b[k..line.end].iter().take_while(|&&c| c == b'`').count();
                if run == ticks {
                    close = Some(k);
                    break;
                }
                k += run;
            } else {
                k += 1;
            }
        }
        let Some(close) = close else {
            continue;
        };
        if is_lean_name(name) {
            out.push(start..close);
        }
        i = close + ticks;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jsx(text: &str) -> Vec<&str> {
        jsx_code(text, 0..text.len())
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn html_code_is_the_terms_in_brackets() {
        assert_eq!(jsx("<b>{sorry} sorry</b>"), vec!["sorry"]);
        assert_eq!(
            jsx(r#"<a href={url} title="sorry">[x] text <i>{f <b>no</b> y}</i></a>"#),
            vec!["url", "x", "f ", " y"]
        );
        assert_eq!(jsx("<br/>"), Vec::<&str>::new());
        // raw strings with any number of `#`, as an attribute's value and inside a term
        assert_eq!(
            jsx(r###"<G dot=r##"a [c="#d6"] "# }"## x={f r#"}"#}>{g r"\"}</G>"###),
            vec![r##"f r#"}"#"##, r#"g r"\""#]
        );
        // a term with brackets, strings and a comment inside
        assert_eq!(
            jsx("<p>{(g \"}\" [1]) -- }\n}</p>"),
            vec!["(g \"}\" [1]) -- }\n"]
        );
        // not an element the scanner would accept: all of it is code (fail closed)
        assert_eq!(jsx("<p>{x</p>"), vec!["<p>{x</p>"]);
    }

    /// The reader follows the scanner: on every HTML element of the public and
    /// metaprogramming corpora it reads the element to its end, without falling back.
    #[test]
    fn the_html_reader_reads_every_element_of_the_corpora() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let dirs = [
            root.join("shared/corpus-public"),
            root.join("shared/corpus-meta"),
        ];
        if !dirs.iter().all(|d| d.is_dir()) {
            eprintln!("skipped: ../shared/corpus-public or ../shared/corpus-meta not found");
            return;
        }
        let (files, _) =
            crate::lean::walk::lean_files(&dirs, crate::lean::walk::IgnoreRules::HiddenOnly);
        let (mut elements, mut failed) = (0, Vec::new());
        for path in files {
            let Ok(source) = crate::lean::Source::read(&path) else {
                continue;
            };
            if !source.text.contains("</") && !source.text.contains("/>") {
                continue;
            }
            let file = crate::lean::ParsedFile::parse(source.text);
            let mut cursor = file.root().walk();
            for_each_descendant_where(
                &mut cursor,
                |_| true,
                |n| {
                    if n.kind() == "jsx_element" {
                        elements += 1;
                        let read = jsx_read(&file.text, n.byte_range());
                        if read.is_none() {
                            failed.push(format!(
                                "{}:{}",
                                path.display(),
                                n.start_position().row + 1
                            ));
                        }
                    }
                },
            );
        }
        eprintln!("{elements} HTML elements read");
        assert!(elements > 100, "only {elements} HTML elements");
        assert!(failed.is_empty(), "{failed:?}");
    }

    fn verso(text: &str) -> Vec<&str> {
        verso_code(text, 0..text.len())
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn verso_code_is_lean_blocks_and_roles() {
        let doc = "Prose with sorry and {lean}`sorry` and {name}`sorry`.\n\n```lean demo\nexample : True := sorry\n```\n\n```leanOutput x\nwarning: declaration uses 'sorry'\n```\n\n  ````savedLean\n  def x := 1\n  ````\n";
        assert_eq!(
            verso(doc),
            vec!["sorry", "example : True := sorry\n", "  def x := 1\n"]
        );
        // an unclosed Lean block runs to the end
        assert_eq!(verso("```lean\nsorry"), vec!["sorry"]);
        assert!(is_lean_name("leanTerm") && is_lean_name("Manual.savedLean"));
        assert!(!is_lean_name("leanOutput") && !is_lean_name("anchor") && !is_lean_name("clean"));
    }
}
