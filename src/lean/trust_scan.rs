//! Trust escapes in text the parser could not read, or reads as one token.
//!
//! A checker must never call a file clean because it could not read part of it. Where the
//! syntax tree has ERROR or MISSING nodes, the whole top-level commands that contain them are
//! scanned lexically (outside comments, strings and character literals) for the words that
//! escape the kernel: `sorry`, `admit`, `axiom`, `native_decide`, `implemented_by`, … So is
//! the Lean code inside the text the grammar reads without structure ([`super::opaque`]: the
//! terms of HTML in a term, the Lean code blocks of Verso documents, a metaprogram's code and
//! its quotations' antiquotations). Lint, `mf verify` and the edit hook all read these hits
//! ([`lexical_escapes`]), so the three agree on such text.

use std::ops::Range;

use super::lexical::non_code_at;
use super::opaque::{self, Opaque};
use super::syntax::{for_each_descendant_where, Occurrences, ParsedFile};

/// A word that lets something unchecked into a proof.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Escape {
    /// `sorry`, or `sorryAx` (what it elaborates to).
    Sorry,
    Admit,
    Axiom,
    /// `native_decide`, or `ofReduceBool` (the axiom it rests on).
    NativeDecide,
    /// `implemented_by`, `extern` or `csimp`: compiled code stands in for a definition. (An
    /// `unsafe` definition reaches a proof only through `implemented_by`, so `unsafe` itself,
    /// common in metaprograms, is not an escape.)
    ImplementedBy,
    /// `skipKernelTC` (`set_option debug.skipKernelTC`).
    SkipKernelTc,
}

/// Which escape a word is, if any.
fn escape_of(word: &str) -> Option<Escape> {
    Some(match word {
        "sorry" | "sorryAx" => Escape::Sorry,
        "admit" => Escape::Admit,
        "axiom" => Escape::Axiom,
        "native_decide" | "ofReduceBool" => Escape::NativeDecide,
        "implemented_by" | "extern" | "csimp" => Escape::ImplementedBy,
        "skipKernelTC" => Escape::SkipKernelTc,
        _ => return None,
    })
}

/// One escape word found by the scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub escape: Escape,
    /// The word as written (`sorry`, `sorryAx`, `extern`, …).
    pub word: &'static str,
    /// Its byte range in the file.
    pub span: Range<usize>,
    /// Where it was read: `None` in a command that did not parse, else the opaque text.
    pub opaque: Option<Opaque>,
}

/// What a hit's finding says about where it is, after "`sorry` in …".
pub fn describe_region(opaque: Option<Opaque>) -> &'static str {
    match opaque {
        None => "a part of the file mf could not parse (read as plain text; fix the syntax so it can be checked)",
        Some(Opaque::Html) => "Lean code inside HTML in a term, which mf reads as one token (read lexically, not parsed)",
        Some(Opaque::VersoCode) => "Lean code of a Verso document (a `lean` code block or role), which Lean elaborates and mf reads as markup (read lexically, not parsed)",
        Some(Opaque::Metaprogram) => "a metaprogram's code, which mf reads as a token soup (read lexically, not parsed)",
    }
}

/// The words [`escape_of`] knows, as substrings to find before any walk (`sorry` also finds
/// `sorryAx`).
const ESCAPE_NEEDLES: &[&str] = &[
    "sorry",
    "admit",
    "axiom",
    "native_decide",
    "ofReduceBool",
    "implemented_by",
    "extern",
    "csimp",
    "skipKernelTC",
];

/// Every escape word read lexically, in file order: in the commands that did not parse
/// ([`unparsed_escapes`]) and in the code of opaque text elsewhere ([`opaque_escapes`]).
pub fn lexical_escapes(file: &ParsedFile) -> Vec<Hit> {
    let regions = unparsed_regions(file);
    let opaque = opaque_escapes(file, &regions);
    with_unparsed(file, &regions, opaque)
}

/// The hits in the `regions` (ascending, from [`unparsed_regions`]) and `opaque`, in file order.
fn with_unparsed(file: &ParsedFile, regions: &[Range<usize>], opaque: Vec<Hit>) -> Vec<Hit> {
    let mut hits: Vec<Hit> = regions
        .iter()
        .flat_map(|r| scan(&file.text, r.clone()))
        .collect();
    hits.extend(opaque);
    hits.sort_by_key(|h| h.span.start);
    hits
}

/// Every escape word in the code of opaque text ([`opaque::code_ranges`]) outside the
/// `skip` ranges (ascending; the unparsed commands, scanned whole). Only subtrees whose text
/// holds an escape word are entered, so a file without one costs one text search.
pub fn opaque_escapes(file: &ParsedFile, skip: &[Range<usize>]) -> Vec<Hit> {
    let mut hits = Vec::new();
    let Some(words) = words_of(file) else {
        return hits;
    };
    let mut cursor = file.root().walk();
    for_each_descendant_where(
        &mut cursor,
        |n| words.any_in(n.byte_range()),
        |n| opaque_hits(n, &file.text, &words, skip, &mut hits),
    );
    hits
}

/// The escape words' occurrences in the text; `None` when there are none to find (or the parse
/// was abandoned: its tree is a stand-in).
fn words_of(file: &ParsedFile) -> Option<Occurrences> {
    if file.aborted {
        return None;
    }
    // A vectorized search per word: building an automaton for them cost a hook more than
    // searching a 130 KB file for each.
    let words = Occurrences::of_each(ESCAPE_NEEDLES, &file.text);
    words.any_in(0..file.text.len()).then_some(words)
}

/// The hits in the code of `n` when it is opaque text holding an escape word outside `skip`.
fn opaque_hits(
    n: tree_sitter::Node<'_>,
    text: &str,
    words: &Occurrences,
    skip: &[Range<usize>],
    hits: &mut Vec<Hit>,
) {
    let at = n.start_byte();
    let k = skip.partition_point(|r| r.end <= at);
    if !words.any_in(n.byte_range()) || skip.get(k).is_some_and(|r| r.start <= at) {
        return;
    }
    if let Some((kind, ranges)) = opaque::code_ranges(n, text) {
        for r in ranges {
            hits.extend(scan(text, r).into_iter().map(|h| Hit {
                opaque: Some(kind),
                ..h
            }));
        }
    }
}

/// [`lexical_escapes`] for a walk that visits every node anyway (lint's): it hands each node
/// of an opaque kind to [`LexicalEscapes::visit`] and takes the hits with
/// [`LexicalEscapes::finish`], so that hole-dense files (every `sorry` is an escape word) are
/// not walked a second time.
pub struct LexicalEscapes {
    regions: Vec<Range<usize>>,
    words: Option<Occurrences>,
    opaque: Vec<Hit>,
}

impl LexicalEscapes {
    pub fn new(file: &ParsedFile) -> LexicalEscapes {
        LexicalEscapes {
            regions: unparsed_regions(file),
            words: words_of(file),
            opaque: Vec::new(),
        }
    }

    /// Whether a node of this kind can be opaque text holding code ([`opaque::code_ranges`]).
    pub fn is_opaque_kind(kind: &str) -> bool {
        opaque::CODE_KINDS.contains(&kind)
    }

    /// One node of the walk (in document order, every node whose kind
    /// [`LexicalEscapes::is_opaque_kind`]).
    pub fn visit(&mut self, n: tree_sitter::Node<'_>, text: &str) {
        if let Some(words) = &self.words {
            opaque_hits(n, text, words, &self.regions, &mut self.opaque);
        }
    }

    /// Every hit, as [`lexical_escapes`] returns them.
    pub fn finish(self, file: &ParsedFile) -> Vec<Hit> {
        with_unparsed(file, &self.regions, self.opaque)
    }
}

/// The byte ranges of the top-level commands that contain an ERROR or MISSING node, merged
/// and ascending; the whole text when the tree is an error at its root or the parse was
/// abandoned (its tree is a stand-in).
pub fn unparsed_regions(file: &ParsedFile) -> Vec<Range<usize>> {
    let errors = file.errors().list();
    if errors.is_empty() {
        return Vec::new();
    }
    let root = file.root();
    if file.aborted || root.is_error() || root.is_missing() {
        return std::iter::once(0..file.text.len()).collect();
    }
    super::merge_ranges(errors.iter().map(|e| e.command.clone()))
}

/// Every escape word in the parts of `file` that did not parse, in file order.
pub fn unparsed_escapes(file: &ParsedFile) -> Vec<Hit> {
    unparsed_regions(file)
        .into_iter()
        .flat_map(|r| scan(&file.text, r))
        .collect()
}

/// Every escape word in `range` of `text`, read lexically: words inside comments, strings,
/// character literals, `«quoted»` identifiers and `` `name `` literals do not count. `range`
/// must start outside a comment or string (a command or token start).
pub fn scan(text: &str, range: Range<usize>) -> Vec<Hit> {
    let b = text.as_bytes();
    let end = range.end.min(b.len());
    let mut hits = Vec::new();
    let mut i = range.start;
    // Whether the previous character continues a word (a word starts only after one that
    // does not), and whether the word about to start is a `` `name `` literal.
    let mut after_word = false;
    let mut name_literal = false;
    while i < end {
        if let Some(len) = non_code_at(text, i) {
            i += len;
            after_word = false;
            name_literal = false;
            continue;
        }
        let Some(c) = text[i..].chars().next() else {
            break;
        };
        let len = c.len_utf8();
        if c == '«' {
            // A quoted identifier: its text is a name, not code.
            i = text[i..end]
                .find('»')
                .map_or(end, |k| i + k + '»'.len_utf8());
            after_word = true;
            continue;
        }
        if is_word_char(c) {
            let start = i;
            let word_end = text[i..end]
                .char_indices()
                .find(|&(_, c)| !is_word_char(c))
                .map_or(end, |(k, _)| i + k);
            if !after_word && !name_literal {
                if let Some(escape) = escape_of(&text[start..word_end]) {
                    hits.push(Hit {
                        escape,
                        word: static_word(&text[start..word_end]),
                        span: start..word_end,
                        opaque: None,
                    });
                }
            }
            i = word_end;
            after_word = true;
            name_literal = false;
            continue;
        }
        name_literal = c == '`';
        after_word = false;
        i += len;
    }
    hits
}

/// Characters of an identifier component (dots separate components, so `Lean.sorryAx` and
/// `debug.skipKernelTC` yield their last word).
fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '\'' | '!' | '?')
}

/// `word` as the `'static` word of [`ESCAPE_NEEDLES`] (or `sorryAx`, which `sorry` finds),
/// or "" for any other word.
fn static_word(word: &str) -> &'static str {
    ESCAPE_NEEDLES
        .iter()
        .chain(&["sorryAx"])
        .find(|w| **w == word)
        .copied()
        .unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<&'static str> {
        scan(text, 0..text.len())
            .into_iter()
            .map(|h| h.word)
            .collect()
    }

    #[test]
    fn finds_escape_words_in_code_only() {
        assert_eq!(
            words("exact sorry -- admit\n/- axiom /- nested -/ sorry -/ \"sorry\" 'a' admit"),
            vec!["sorry", "admit"]
        );
        assert_eq!(
            words("Lean.sorryAx _ x; set_option debug.skipKernelTC"),
            vec!["sorryAx", "skipKernelTC"]
        );
        assert_eq!(
            words("@[implemented_by f, csimp] unsafe def extern"),
            vec!["implemented_by", "csimp", "extern"]
        );
    }

    #[test]
    fn longer_words_quoted_names_and_name_literals_are_not_escapes() {
        assert!(words("sorry_free admit' axioms my_sorry xsorry").is_empty());
        assert!(words("«sorry» `sorry ``admit").is_empty());
        // Symbols next to a word do not hide it.
        assert_eq!(words("⟨sorry, (admit)⟩"), vec!["sorry", "admit"]);
    }

    #[test]
    fn regions_are_the_commands_that_hold_errors() {
        let text = "theorem a : True := trivial\n\ntheorem b : True := by\n  exact (foo ]\n  sorry\n\ntheorem c : True := trivial\n";
        let file = ParsedFile::parse(text.to_string());
        let regions = unparsed_regions(&file);
        assert_eq!(regions.len(), 1, "{regions:?}");
        let region = &text[regions[0].clone()];
        assert!(region.starts_with("theorem b"), "{region}");
        assert!(!region.contains("theorem c"), "{region}");
        assert!(
            unparsed_regions(&ParsedFile::parse("theorem a : True := trivial\n".into())).is_empty()
        );
    }
}
