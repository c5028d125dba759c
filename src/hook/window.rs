//! Parsing only the commands an edit touched.
//!
//! The hook must answer in milliseconds, and parsing a 130 KB result file takes tens of them.
//! An edit changes one stretch of the file; every command outside it is byte-identical before
//! and after, so it cannot be newly holed, added or restated. The hook therefore parses a
//! *window*: the whole top-level commands around the change, cut at command boundaries.
//!
//! A boundary is a line that starts, at column 0 and outside comments and strings, with a
//! command keyword (`theorem`, `namespace`, `@[`, `/--`, `#eval`, …): the grammar closes every
//! block there, so the commands before and after parse the same in a window as in the whole
//! file. The window is prefixed with the `namespace`/`section` commands open at its start
//! (rebuilt from the boundaries before it), so full names come out as in the whole file, and
//! the outline's line numbers are shifted back to the file's.
//!
//! When the cut cannot be trusted (a window that does not parse cleanly, `#exit` before the
//! change, a change that alters the lexical state at the far boundary), the caller parses the
//! whole file instead.

use std::ops::Range;

use crate::lean::idents::components;
use crate::lean::lexical::{self, is_ident_byte};
use crate::lean::{Outline, ParsedFile};

/// Keywords that begin a top-level command (after optional modifiers).
#[rustfmt::skip]
const COMMAND_KEYWORDS: &[&str] = &[
    "theorem", "lemma", "def", "abbrev", "instance", "example", "axiom", "opaque", "structure",
    "class", "inductive", "private", "protected", "noncomputable", "partial", "unsafe", "nonrec",
    "public", "meta", "local", "scoped", "namespace", "section", "end", "open", "export",
    "variable", "universe", "set_option", "attribute", "deriving", "mutual", "omit", "include",
    "import", "module", "notation", "infix", "infixl", "infixr", "prefix", "postfix", "macro",
    "macro_rules", "syntax", "elab", "elab_rules", "declare_syntax_cat", "initialize",
    "builtin_initialize", "add_decl_doc", "alias",
];

#[rustfmt::skip]
const MODIFIERS: &[&str] = &[
    "private", "protected", "noncomputable", "partial", "unsafe", "nonrec", "public", "meta",
];

/// The bytes [`Layout::of`] stops at: a line's end, and the first bytes of comments, strings
/// and character literals.
const OPENS: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let bytes = b"\n-/\"r'";
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
};

/// Where the commands of a text start, read lexically.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Byte offsets of command boundaries, ascending.
    pub boundaries: Vec<usize>,
    /// Byte ranges of comments and string literals, ascending.
    pub non_code: Vec<Range<usize>>,
    /// Offset of a column-0 `#exit`: everything after it is not Lean.
    pub exit: Option<usize>,
}

impl Layout {
    /// Scans `text` once: comments (nested `/- -/`, `--`), strings (`"…"` with escapes, raw
    /// `r#"…"#`), character literals, and the boundaries between them.
    pub fn of(text: &str) -> Layout {
        let mut layout = Layout::default();
        layout.scan(text, 0, |_| false);
        layout
    }

    /// The layout of `new`, an edit of `old` whose layout is `self`: what comes before the
    /// line of the first changed byte, and what comes after the first line start past the
    /// change where both scans stand at the start of the same line in the same state, is
    /// taken from `self` (the bytes from there on are the same, and the scan looks back at
    /// most one byte, a line break); only the lines between are scanned. Equal to
    /// [`Layout::of`]`(new)`.
    pub fn edited(&self, old: &str, new: &str) -> Layout {
        if self.exit.is_some() {
            return Layout::of(new);
        }
        let (o, n) = (old.as_bytes(), new.as_bytes());
        let prefix = common_prefix(o, n);
        let suffix = common_suffix(o, n, o.len().min(n.len()) - prefix);
        // A line start of the shared prefix at which the old scan stood in its top state:
        // not inside a comment or string (nor just after one that ends with the line break).
        let line_start = |at: usize| {
            o[..at]
                .iter()
                .rposition(|&c| c == b'\n')
                .map_or(0, |k| k + 1)
        };
        let crossed = |at: usize| {
            let k = self.non_code.partition_point(|r| r.end < at);
            self.non_code
                .get(k)
                .filter(|r| r.start < at)
                .map(|r| r.start)
        };
        let mut from = line_start(prefix);
        while let Some(start) = crossed(from) {
            from = line_start(start);
        }
        let mut layout = Layout {
            boundaries: self
                .boundaries
                .iter()
                .copied()
                .take_while(|&b| b < from)
                .collect(),
            non_code: self
                .non_code
                .iter()
                .take_while(|r| r.start < from)
                .cloned()
                .collect(),
            exit: None,
        };
        // Scans the new text until a line start in the shared suffix that the old scan also
        // stood at: from there on both are the same, shifted by the change in length.
        let (new_change_end, delta) = (n.len() - suffix, n.len() as isize - o.len() as isize);
        let resync = layout.scan(new, from, |j| {
            let at = (j as isize - delta) as usize;
            j >= new_change_end && (at == 0 || o[at - 1] == b'\n') && crossed(at).is_none()
        });
        if let Some(j) = resync {
            let at = (j as isize - delta) as usize;
            let shift = |p: usize| (p as isize + delta) as usize;
            let b = self.boundaries.partition_point(|&b| b < at);
            layout
                .boundaries
                .extend(self.boundaries[b..].iter().map(|&b| shift(b)));
            let r = self.non_code.partition_point(|r| r.start < at);
            layout.non_code.extend(
                self.non_code[r..]
                    .iter()
                    .map(|r| shift(r.start)..shift(r.end)),
            );
        }
        layout
    }

    /// Scans `text` from `from`, a line start where the scan is in its top state, adding to
    /// this layout; at each line start, stops there when `stop` says so (returns it).
    fn scan(
        &mut self,
        text: &str,
        from: usize,
        mut stop: impl FnMut(usize) -> bool,
    ) -> Option<usize> {
        let b = text.as_bytes();
        let n = b.len();
        let layout = self;
        let mut i = from;
        let mut line_start = true;
        while i < n {
            if line_start {
                if stop(i) {
                    return Some(i);
                }
                line_start = false;
                if starts_command(&b[i..]) {
                    layout.boundaries.push(i);
                }
                if b[i..].starts_with(b"#exit") && !b.get(i + 5).is_some_and(|c| is_ident_byte(*c))
                {
                    layout.exit = Some(i);
                    return None;
                }
            }
            // Only these bytes can open a comment, string or character literal, and only with
            // the byte after them that `non_code_at` requires: the others are passed over
            // without a call (a hook scans both versions of the file).
            let next = b.get(i + 1).copied();
            let may_open = match b[i] {
                b'\n' => {
                    line_start = true;
                    i += 1;
                    continue;
                }
                b'-' | b'/' => next == Some(b'-'),
                b'r' => matches!(next, Some(b'"' | b'#')),
                b'"' | b'\'' => true,
                _ => false,
            };
            if may_open {
                if let Some(len) = lexical::non_code_at(text, i) {
                    layout.non_code.push(i..i + len);
                    i += len;
                    continue;
                }
            }
            i += 1;
            while i < n && !OPENS[b[i] as usize] {
                i += 1;
            }
        }
        None
    }

    /// Whether byte `pos` is inside a comment or string.
    pub fn in_non_code(&self, pos: usize) -> bool {
        let k = self.non_code.partition_point(|r| r.end <= pos);
        self.non_code.get(k).is_some_and(|r| r.start <= pos)
    }

    /// Where a window containing `pos` can start: the last boundary at or before `pos`, moved
    /// back over the attributes, doc comments and lone modifiers that belong to its command
    /// (0 when there is none).
    fn window_start(&self, text: &str, pos: usize) -> usize {
        let mut k = self.boundaries.partition_point(|&b| b <= pos);
        while k >= 2 && attaches(first_line(text, self.boundaries[k - 2])) {
            k -= 1;
        }
        if k == 0 {
            0
        } else {
            self.boundaries[k - 1]
        }
    }

    /// The first boundary at or after `pos`.
    fn boundary_at_or_after(&self, pos: usize) -> Option<usize> {
        let k = self.boundaries.partition_point(|&b| b < pos);
        self.boundaries.get(k).copied()
    }
}

fn first_line(text: &str, at: usize) -> &str {
    text[at..].lines().next().unwrap_or("")
}

/// Whether a command line belongs to the command after it: an attribute, a doc comment, or
/// modifiers on a line of their own.
fn attaches(line: &str) -> bool {
    line.starts_with("@[")
        || line.starts_with("/--")
        || line.split_whitespace().all(|w| MODIFIERS.contains(&w))
}

/// Whether a line starting with `rest` starts a command.
fn starts_command(rest: &[u8]) -> bool {
    if rest.starts_with(b"@[") || rest.starts_with(b"/--") || rest.starts_with(b"/-!") {
        return true;
    }
    if rest.first() == Some(&b'#') && rest.get(1).is_some_and(u8::is_ascii_alphabetic) {
        return true;
    }
    let word_len = rest.iter().take_while(|&&c| is_ident_byte(c)).count();
    let word = &rest[..word_len];
    COMMAND_KEYWORDS.iter().any(|k| k.as_bytes() == word)
}

/// The words a command line that opens or closes a scope can start with.
#[rustfmt::skip]
const SCOPE_STARTS: &[&str] = &[
    "namespace", "section", "end", "mutual", "private", "protected", "noncomputable",
    "partial", "unsafe", "nonrec", "public", "meta",
];

/// Whether a command line starting at `rest` may open or close a scope: it starts with one
/// of [`SCOPE_STARTS`] (necessary, not sufficient).
fn may_change_scope(rest: &[u8]) -> bool {
    SCOPE_STARTS.iter().any(|w| rest.starts_with(w.as_bytes()))
}

/// The `namespace`/`section` commands open at `pos`, as text that reopens them.
pub fn scope_header(text: &str, layout: &Layout, pos: usize) -> String {
    let mut scopes = Scopes::default();
    scopes.advance(text, layout, pos);
    scopes.header()
}

/// A scope open at some point of a file.
enum Scope<'t> {
    Namespace(&'t str),
    Section,
}

/// The scopes open at a point of a file, read off its boundaries in order: moving on to a
/// later point reads only the boundaries in between.
#[derive(Default)]
struct Scopes<'t> {
    stack: Vec<Scope<'t>>,
    in_mutual: bool,
    /// Boundaries read so far (an index into the layout's).
    read: usize,
}

impl<'t> Scopes<'t> {
    /// Reads the boundaries before `pos` not read yet.
    fn advance(&mut self, text: &'t str, layout: &Layout, pos: usize) {
        while let Some(&b) = layout.boundaries.get(self.read).filter(|&&b| b < pos) {
            self.read += 1;
            // Most commands are declarations: only a line that starts with a scope word or a
            // modifier (`noncomputable section`) can open or close a scope.
            if !may_change_scope(&text.as_bytes()[b..]) {
                continue;
            }
            let line = text[b..].lines().next().unwrap_or("");
            let line = line.split("--").next().unwrap_or("").trim_end();
            let mut words = line.split_whitespace().peekable();
            while words.peek().is_some_and(|w| MODIFIERS.contains(w)) {
                words.next();
            }
            match words.next() {
                Some("mutual") => self.in_mutual = true,
                Some("namespace") => {
                    if let Some(name) = words.next() {
                        self.stack
                            .extend(components(name).into_iter().map(Scope::Namespace));
                    }
                }
                Some("section") => self.stack.push(Scope::Section),
                Some("end") if self.in_mutual => self.in_mutual = false,
                Some("end") => {
                    let depth = words.next().map_or(1, |n| components(n).len());
                    for _ in 0..depth {
                        self.stack.pop();
                    }
                }
                _ => {}
            }
        }
    }

    /// Text that reopens the scopes.
    fn header(&self) -> String {
        let mut header = String::new();
        for s in &self.stack {
            match s {
                Scope::Namespace(n) => {
                    header.push_str("namespace ");
                    header.push_str(n);
                    header.push('\n');
                }
                Scope::Section => header.push_str("section\n"),
            }
        }
        header
    }
}

/// The windows of an old and a new text around their difference: `(old range, new range)`,
/// or `None` when the texts are equal or no trustworthy cut exists.
pub fn change_windows(
    old: &str,
    old_layout: &Layout,
    new: &str,
    new_layout: &Layout,
) -> Option<(Range<usize>, Range<usize>)> {
    let prefix = common_prefix(old.as_bytes(), new.as_bytes());
    let max_suffix = old.len().min(new.len()) - prefix;
    let suffix = common_suffix(old.as_bytes(), new.as_bytes(), max_suffix);
    let (old_change_end, new_change_end) = (old.len() - suffix, new.len() - suffix);
    if prefix == old.len() && prefix == new.len() {
        return None;
    }
    if old_layout.exit.is_some_and(|e| e <= prefix) || new_layout.exit.is_some_and(|e| e <= prefix)
    {
        return None;
    }
    // The prefix is identical, so the boundaries before the change are the same in both.
    let start = old_layout
        .window_start(old, prefix)
        .min(new_layout.window_start(new, prefix));
    // The first boundary after the change in the old text that is also one in the new text
    // (the shared suffix must be read in the same lexical state on both sides).
    let delta = new.len() as isize - old.len() as isize;
    let mut from = old_change_end;
    let (old_end, new_end) = loop {
        match old_layout.boundary_at_or_after(from) {
            None => break (old.len(), new.len()),
            Some(b) => {
                let nb = (b as isize + delta) as usize;
                if nb >= new_change_end && new_layout.boundaries.binary_search(&nb).is_ok() {
                    break (b, nb);
                }
                from = b + 1;
            }
        }
    };
    if old_layout.exit.is_some_and(|e| e < old_end) != new_layout.exit.is_some_and(|e| e < new_end)
    {
        return None;
    }
    Some((start..old_end, start..new_end))
}

/// Bytes compared at once by [`common_prefix`] and [`common_suffix`] (a slice comparison is a
/// vectorized `memcmp`; an edit leaves most of a file equal on both sides).
const CHUNK: usize = 64;

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let max = a.len().min(b.len());
    let mut n = 0;
    while n + CHUNK <= max && a[n..n + CHUNK] == b[n..n + CHUNK] {
        n += CHUNK;
    }
    while n < max && a[n] == b[n] {
        n += 1;
    }
    // Never split a UTF-8 character: back up to a character start.
    while n > 0 && n < a.len() && (a[n] & 0xC0) == 0x80 {
        n -= 1;
    }
    n
}

fn common_suffix(a: &[u8], b: &[u8], max: usize) -> usize {
    let max = max.min(a.len()).min(b.len());
    let (la, lb) = (a.len(), b.len());
    let mut n = 0;
    while n + CHUNK <= max && a[la - n - CHUNK..la - n] == b[lb - n - CHUNK..lb - n] {
        n += CHUNK;
    }
    while n < max && a[la - n - 1] == b[lb - n - 1] {
        n += 1;
    }
    while n > 0 && (a[a.len() - n] & 0xC0) == 0x80 {
        n -= 1;
    }
    n
}

/// A window of a file, parsed: its text (scope header + the file's bytes `range`), tree and
/// outline with the file's line numbers.
pub struct Window {
    pub text: String,
    pub file: ParsedFile,
    pub outline: Outline,
    /// Add to a line of `text` to get the file's line.
    pub line_shift: isize,
}

impl Window {
    /// The file's line for a 1-based line of the window's text.
    pub fn file_line(&self, line: usize) -> usize {
        (line as isize + self.line_shift).max(1) as usize
    }
}

/// Parses `text[range]` behind the scopes open at its start. `None` when the window does not
/// parse cleanly (the caller then parses the whole file).
pub fn parse(name: &str, text: &str, layout: &Layout, range: Range<usize>) -> Option<Window> {
    parse_or_whole(name, text, layout, range).ok()
}

/// [`parse`], keeping what a window that does not parse cleanly cost when it is the whole
/// file (`0..text.len()`: no scope is open at byte 0, so its text is the file's): `Err` holds
/// that parse, which is [`whole`]'s, so the caller that falls back to the whole file does not
/// parse it a second time (a file that is one command, such as a deep or unclosed proof, has
/// no smaller window). `Err(None)` for a smaller window.
pub fn parse_or_whole(
    name: &str,
    text: &str,
    layout: &Layout,
    range: Range<usize>,
) -> Result<Window, Option<Box<Window>>> {
    let header = scope_header(text, layout, range.start);
    let lines_before = memchr::memchr_iter(b'\n', &text.as_bytes()[..range.start]).count();
    parse_behind(name, text, range, header, lines_before)
}

/// Windows of one file parsed in order: each [`WindowCursor::parse`] reads only the
/// boundaries and lines between the previous window and its own, where [`parse`] reads all
/// of them from the file's start (a new file can have a window per declaration).
pub struct WindowCursor<'t> {
    text: &'t str,
    layout: &'t Layout,
    scopes: Scopes<'t>,
    /// Lines ending before byte `counted`.
    lines: usize,
    counted: usize,
}

impl<'t> WindowCursor<'t> {
    pub fn new(text: &'t str, layout: &'t Layout) -> WindowCursor<'t> {
        WindowCursor {
            text,
            layout,
            scopes: Scopes::default(),
            lines: 0,
            counted: 0,
        }
    }

    /// [`parse`] of `range`, which must start at or after the previous range's start.
    pub fn parse(&mut self, name: &str, range: Range<usize>) -> Option<Window> {
        self.place(range)?.parse(name, self.text)
    }

    /// What [`WindowCursor::parse`] reads in order (the scopes open at `range` and the lines
    /// before it), so that the window can be parsed apart from the others, on any thread.
    pub fn place(&mut self, range: Range<usize>) -> Option<Placed> {
        let (text, start) = (self.text, range.start);
        if start < self.counted {
            return None;
        }
        self.scopes.advance(text, self.layout, start);
        self.lines += memchr::memchr_iter(b'\n', &text.as_bytes()[self.counted..start]).count();
        self.counted = start;
        Some(Placed {
            range,
            header: self.scopes.header(),
            lines: self.lines,
        })
    }
}

/// A window placed in its file by [`WindowCursor::place`], not parsed yet.
pub struct Placed {
    pub range: Range<usize>,
    header: String,
    lines: usize,
}

impl Placed {
    /// The window of `text` (the cursor's text), parsed: [`WindowCursor::parse`].
    pub fn parse(self, name: &str, text: &str) -> Option<Window> {
        parse_behind(name, text, self.range, self.header, self.lines).ok()
    }
}

/// Parses `text[range]` behind `header` (the scopes open at its start); `lines_before` is
/// the number of lines of `text` before the range.
fn parse_behind(
    name: &str,
    text: &str,
    range: Range<usize>,
    header: String,
    lines_before: usize,
) -> Result<Window, Option<Box<Window>>> {
    let is_whole = range.start == 0 && range.end == text.len();
    let header_lines = header.matches('\n').count();
    let mut window_text = header;
    window_text.push_str(text.get(range.clone()).ok_or(None)?);
    let file = crate::cursor::parse(&window_text);
    // Whether it parsed cleanly, without listing the errors of a window about to be dropped
    // (a walk of every node with an error, as long as the parse itself on a file of them):
    // the list is empty exactly when the root has no error (see `SyntaxErrors`), and an
    // abandoned parse's stand-in root is an error.
    let clean = !file.aborted && !file.root().has_error();
    debug_assert_eq!(clean, !file.has_errors());
    if !clean {
        if !is_whole {
            return Err(None);
        }
        debug_assert_eq!(window_text, text);
        let outline = Outline::of(name, &file);
        return Err(Some(Box::new(Window {
            text: window_text,
            file,
            outline,
            line_shift: 0,
        })));
    }
    let mut outline = Outline::of(name, &file);
    let line_shift = lines_before as isize - header_lines as isize;
    let shift = |line: &mut usize| {
        *line = (*line as isize + line_shift).max(1) as usize;
    };
    for d in &mut outline.declarations {
        shift(&mut d.line);
        shift(&mut d.end_line);
    }
    for s in &mut outline.sorries {
        shift(&mut s.line);
    }
    for a in &mut outline.axioms {
        shift(&mut a.line);
    }
    Ok(Window {
        text: window_text,
        file,
        outline,
        line_shift,
    })
}

/// The whole file as a window (no header, no shift).
pub fn whole(name: &str, text: &str) -> Window {
    let file = crate::cursor::parse(text);
    let outline = Outline::of(name, &file);
    Window {
        text: text.to_string(),
        file,
        outline,
        line_shift: 0,
    }
}

/// Windows of `text` covering the byte positions `at` (sorted), merged when they overlap.
pub fn covering(layout: &Layout, text: &str, at: &[usize]) -> Vec<Range<usize>> {
    crate::lean::merge_ranges(at.iter().map(|&p| {
        let start = layout.window_start(text, p);
        let end = layout.boundary_at_or_after(p + 1).unwrap_or(text.len());
        start..end
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`Layout::of`] as first written, a call per candidate byte: the reference for the
    /// faster scan.
    fn layout_reference(text: &str) -> Layout {
        let b = text.as_bytes();
        let n = b.len();
        let mut layout = Layout::default();
        let mut i = 0;
        while i < n {
            if i == 0 || b[i - 1] == b'\n' {
                if starts_command(&b[i..]) {
                    layout.boundaries.push(i);
                }
                if b[i..].starts_with(b"#exit") && !b.get(i + 5).is_some_and(|c| is_ident_byte(*c))
                {
                    layout.exit = Some(i);
                    break;
                }
            }
            if matches!(b[i], b'-' | b'/' | b'"' | b'r' | b'\'') {
                if let Some(len) = lexical::non_code_at(text, i) {
                    layout.non_code.push(i..i + len);
                    i += len;
                    continue;
                }
            }
            i += 1;
        }
        layout
    }

    #[test]
    fn layout_scan_agrees_with_the_reference() {
        let mut texts: Vec<String> = vec![TEXT.to_string()];
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        for entry in ignore::Walk::new(dir).flatten() {
            if entry.path().extension().is_some_and(|e| e == "lean") {
                if let Ok(t) = std::fs::read_to_string(entry.path()) {
                    texts.push(t);
                }
            }
        }
        assert!(texts.len() > 10, "the fixtures hold Lean files");
        // Short texts of the bytes the scan treats specially, every one of them ending
        // anywhere (unterminated comments, strings, raw strings, char literals).
        let alphabet: &[&str] = &[
            "\n", "-", "/", "\"", "r", "#", "'", "\\", "a", " ", "theorem", "#exit", "end", "x.",
            "«",
        ];
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..4000 {
            let mut t = String::new();
            for _ in 0..(seed % 24) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                t.push_str(alphabet[(seed >> 33) as usize % alphabet.len()]);
            }
            texts.push(t);
        }
        for t in &texts {
            assert_eq!(Layout::of(t), layout_reference(t), "{t:?}");
        }
    }

    #[test]
    fn every_modifier_may_start_a_scope_line() {
        for m in MODIFIERS {
            assert!(SCOPE_STARTS.contains(m), "{m}");
        }
        // A line the filter passes over starts with no word scope_header acts on.
        for line in [
            "theorem namespace_x : True",
            "@[simp] theorem a",
            "/-- end -/",
            "open Nat in",
            "#eval 1",
        ] {
            assert!(!may_change_scope(line.as_bytes()), "{line}");
            let first = line.split("--").next().unwrap().split_whitespace().next();
            assert!(
                !matches!(first, Some("mutual" | "namespace" | "section" | "end")),
                "{line}"
            );
        }
        for line in [
            "namespace A",
            "end A",
            "noncomputable section",
            "mutual",
            "section",
        ] {
            assert!(may_change_scope(line.as_bytes()), "{line}");
        }
    }

    const TEXT: &str = "import Mathlib\n\nnamespace A.B\n\n/-- doc\ntheorem fake : x -/\ntheorem t1 : True := by\n  trivial\n-- theorem not_a_boundary\ndef s : String := \"\ntheorem in_string\"\n\nsection\nend\nnoncomputable section\nlemma l2 : 'a' = 'a' := rfl\nend\nend B\ntheorem t3 : True := trivial\n";

    fn starts(text: &str) -> Vec<&str> {
        Layout::of(text)
            .boundaries
            .iter()
            .map(|&b| text[b..].lines().next().unwrap())
            .collect()
    }

    #[test]
    fn boundaries_skip_comments_and_strings() {
        assert_eq!(
            starts(TEXT),
            [
                "import Mathlib",
                "namespace A.B",
                "/-- doc",
                "theorem t1 : True := by",
                "def s : String := \"",
                "section",
                "end",
                "noncomputable section",
                "lemma l2 : 'a' = 'a' := rfl",
                "end",
                "end B",
                "theorem t3 : True := trivial",
            ]
        );
        let l = Layout::of(TEXT);
        assert!(l.in_non_code(TEXT.find("not_a_boundary").unwrap()));
        assert!(l.in_non_code(TEXT.find("in_string").unwrap()));
        assert!(!l.in_non_code(TEXT.find("t1").unwrap()));
    }

    #[test]
    fn primes_raw_strings_and_exit() {
        let text = "def h' : Nat := 1\ndef r := r#\"a \" \ntheorem x\"#\ntheorem y : h' = 1 := rfl\n#exit\ntheorem z : True := trivial\n";
        assert_eq!(
            starts(text),
            [
                "def h' : Nat := 1",
                "def r := r#\"a \" ",
                "theorem y : h' = 1 := rfl",
                "#exit"
            ]
        );
        assert_eq!(Layout::of(text).exit, text.find("#exit"));
    }

    #[test]
    fn scopes_at_a_position() {
        let l = Layout::of(TEXT);
        let at = |s: &str| scope_header(TEXT, &l, TEXT.find(s).unwrap());
        assert_eq!(at("theorem t1"), "namespace A\nnamespace B\n");
        assert_eq!(at("lemma l2"), "namespace A\nnamespace B\nsection\n");
        assert_eq!(at("theorem t3"), "namespace A\n");
    }

    #[test]
    fn windows_cover_the_change_and_keep_names_and_lines() {
        let old = TEXT;
        let new = TEXT.replace("  trivial\n", "  sorry\n");
        let (lo, ln) = (Layout::of(old), Layout::of(&new));
        let (o, n) = change_windows(old, &lo, &new, &ln).unwrap();
        assert_eq!(
            &old[o.clone()],
            "/-- doc\ntheorem fake : x -/\ntheorem t1 : True := by\n  trivial\n-- theorem not_a_boundary\n"
        );
        assert_eq!(o.start, n.start);
        let w = parse("t", &new, &ln, n).unwrap();
        let d = &w.outline.declarations[0];
        assert_eq!((d.full_name.as_str(), d.line, d.end_line), ("A.B.t1", 7, 8));
        assert_eq!(w.outline.sorries[0].line, 8);
        assert_eq!(change_windows(old, &lo, old, &lo), None);
    }

    /// The layout derived from an earlier version's is the one scanned whole, for edits that
    /// open or close comments and strings, add or remove lines, commands and `#exit`, on every
    /// fixture.
    #[test]
    fn an_edited_layout_is_the_scanned_one() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
        let mut texts = vec![TEXT.to_string()];
        for entry in ignore::Walk::new(dir).flatten() {
            if entry.path().extension().is_some_and(|e| e == "lean") {
                if let Ok(t) = std::fs::read_to_string(entry.path()) {
                    texts.push(t);
                }
            }
        }
        let inserts = [
            "",
            "x",
            "\n",
            "/-",
            "-/",
            "/- a\nb -/",
            "\"",
            "--",
            "-- c\n",
            "'",
            "r#\"",
            "\"#",
            "theorem x : True := trivial\n",
            "\nnamespace N\n",
            "#exit\n",
            "\n#exit\n",
            "«",
        ];
        let mut compared = 0;
        for old in &texts {
            let layout = Layout::of(old);
            let mut cuts: Vec<usize> = (0..=8).map(|k| old.len() * k / 8).collect();
            cuts.extend(
                layout
                    .non_code
                    .iter()
                    .take(3)
                    .flat_map(|r| [r.start, r.end]),
            );
            cuts.extend(layout.boundaries.iter().take(3).copied());
            for &at in &cuts {
                let at = (0..=at.min(old.len()))
                    .rev()
                    .find(|&k| old.is_char_boundary(k))
                    .unwrap();
                let end = (at..=(at + 7).min(old.len()))
                    .rev()
                    .find(|&k| old.is_char_boundary(k))
                    .unwrap();
                for ins in inserts {
                    for cut_to in [at, end] {
                        let new = format!("{}{ins}{}", &old[..at], &old[cut_to..]);
                        assert_eq!(
                            layout.edited(old, &new),
                            Layout::of(&new),
                            "{old:?} -> {new:?}"
                        );
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 1000, "{compared}");
    }

    /// Windows parsed in order by one cursor are those [`parse`] gives one by one: the same
    /// text (scope header), names and file lines.
    #[test]
    fn a_cursor_parses_windows_as_parse_does() {
        let text = format!("{TEXT}\nnamespace C\nsection\ntheorem t9 : True := by\n  sorry\nend\nend C\ntheorem t10 : True := sorry\n");
        let layout = Layout::of(&text);
        let at: Vec<usize> = text.match_indices("True").map(|(p, _)| p).collect();
        let ranges = covering(&layout, &text, &at);
        assert!(ranges.len() >= 3, "{ranges:?}");
        let mut cursor = WindowCursor::new(&text, &layout);
        for r in ranges {
            let one = parse("t", &text, &layout, r.clone()).unwrap();
            let ordered = cursor.parse("t", r).unwrap();
            assert_eq!(one.text, ordered.text);
            assert_eq!(one.line_shift, ordered.line_shift);
            let names = |w: &Window| {
                w.outline
                    .declarations
                    .iter()
                    .map(|d| (d.full_name.clone(), d.line, d.end_line))
                    .collect::<Vec<_>>()
            };
            assert_eq!(names(&one), names(&ordered));
            assert!(!names(&one).is_empty());
        }
        assert!(
            cursor.parse("t", 0..4).is_none(),
            "a range before the last one"
        );
    }

    /// The chunked prefix and suffix are the byte-by-byte ones, backed up to a character
    /// start.
    #[test]
    fn common_prefix_and_suffix_are_bytewise() {
        let base = "αβγ theorem x : 1 = 1 := by\n  rfl\n".repeat(9);
        let mut cases = Vec::new();
        for at in [0, 1, 2, 5, 63, 64, 65, 130, base.len() / 2, base.len() - 1] {
            let at = (0..=at).rev().find(|&k| base.is_char_boundary(k)).unwrap();
            for insert in ["", "x", "ω", "sorry\n"] {
                cases.push(format!("{}{insert}{}", &base[..at], &base[at..]));
                cases.push(format!("{}{insert}", &base[..at]));
                cases.push(format!("{insert}{}", &base[at..]));
            }
        }
        let naive_prefix = |a: &[u8], b: &[u8]| {
            let mut n = a.iter().zip(b).take_while(|(x, y)| x == y).count();
            while n > 0 && n < a.len() && (a[n] & 0xC0) == 0x80 {
                n -= 1;
            }
            n
        };
        let naive_suffix = |a: &[u8], b: &[u8], max: usize| {
            let mut n = a
                .iter()
                .rev()
                .zip(b.iter().rev())
                .take(max)
                .take_while(|(x, y)| x == y)
                .count();
            while n > 0 && (a[a.len() - n] & 0xC0) == 0x80 {
                n -= 1;
            }
            n
        };
        for a in cases.iter().chain([&base]) {
            for b in cases.iter().chain([&base]) {
                let (a, b) = (a.as_bytes(), b.as_bytes());
                let p = common_prefix(a, b);
                assert_eq!(p, naive_prefix(a, b));
                let max = a.len().min(b.len()) - p;
                assert_eq!(common_suffix(a, b, max), naive_suffix(a, b, max));
            }
        }
    }

    #[test]
    fn attributes_and_lone_modifiers_stay_with_their_declaration() {
        let old = "theorem a : True := trivial\n/-- doc -/\n@[simp]\n/- note -/\n\nnoncomputable\ntheorem b : True := trivial\n";
        let new = old.replace("b : True := trivial", "b : True := sorry");
        let (lo, ln) = (Layout::of(old), Layout::of(&new));
        let (o, _) = change_windows(old, &lo, &new, &ln).unwrap();
        assert!(old[o].starts_with("/-- doc -/\n@[simp]"));
        let w = parse(
            "t",
            &new,
            &ln,
            change_windows(old, &lo, &new, &ln).unwrap().1,
        )
        .unwrap();
        assert_eq!(
            w.outline.declarations[0].line, 3,
            "the declaration starts at its attribute"
        );
    }

    #[test]
    fn a_change_after_exit_is_not_windowed() {
        let old = "theorem a : True := trivial\n#exit\ntheorem b : True := trivial\n";
        let new = old.replace("b : True := trivial", "b : True := sorry");
        assert_eq!(
            change_windows(old, &Layout::of(old), &new, &Layout::of(&new)),
            None
        );
    }

    #[test]
    fn an_unclosed_comment_moves_the_far_boundary() {
        // The edit opens a comment that swallows the next theorem: the window must reach past
        // it to where both texts agree again (here: the end).
        let old = "theorem a : True := trivial\ntheorem b : True := trivial\ntheorem c : True := trivial\n";
        let new = old.replace(
            "theorem a : True := trivial\n",
            "theorem a : True := trivial /-\n",
        );
        let (o, n) = change_windows(old, &Layout::of(old), &new, &Layout::of(&new)).unwrap();
        assert_eq!((o.end, n.end), (old.len(), new.len()));
    }

    /// A window that is the whole file keeps its parse when it does not parse cleanly: it is
    /// the whole file's, so the caller that falls back to the whole file need not parse again.
    #[test]
    fn a_whole_file_window_keeps_its_parse() {
        let text = "namespace N\ntheorem t (x : Nat) : x = x := by\n  exact ( [ x\n\ntheorem u : 1 = 1 := sorry\n";
        let l = Layout::of(text);
        let Err(Some(w)) = parse_or_whole("t", text, &l, 0..text.len()) else {
            panic!("a whole-file window with errors gives its parse back");
        };
        let reference = whole("t", text);
        assert!(w.file.has_errors());
        assert_eq!(w.text, reference.text);
        assert_eq!(w.line_shift, reference.line_shift);
        assert_eq!(w.file.root().to_sexp(), reference.file.root().to_sexp());
        let json = |o: &Outline| serde_json::to_string(o).unwrap();
        assert_eq!(json(&w.outline), json(&reference.outline));
        assert!(parse(text, text, &l, 0..text.len()).is_none());
        // A smaller window that does not parse gives nothing back.
        let start = text.find("theorem t").unwrap();
        assert!(matches!(
            parse_or_whole("t", text, &l, start..text.len()),
            Err(None)
        ));
        // A clean whole-file window is the whole parse too.
        let clean = "theorem a : True := trivial\n";
        let w = parse("t", clean, &Layout::of(clean), 0..clean.len()).unwrap();
        let reference = whole("t", clean);
        assert_eq!(json(&w.outline), json(&reference.outline));
        assert_eq!((w.text.as_str(), w.line_shift), (clean, 0));
    }

    #[test]
    fn covering_windows_merge() {
        let l = Layout::of(TEXT);
        let w = covering(
            &l,
            TEXT,
            &[TEXT.find("t1").unwrap(), TEXT.find("trivial").unwrap()],
        );
        assert_eq!(w.len(), 1);
        assert_eq!(
            &TEXT[w[0].clone()],
            "/-- doc\ntheorem fake : x -/\ntheorem t1 : True := by\n  trivial\n-- theorem not_a_boundary\n"
        );
    }
}
