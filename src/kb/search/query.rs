//! Turning any user text into a safe FTS5 query.
//!
//! Users type identifiers, Lean, Unicode math and the odd SQL fragment. FTS5's own query syntax
//! would reject most of that (`:` is a column filter, `-` and `(` are operators, a lone `"` is
//! unterminated), so we never pass user text through: every term becomes a quoted FTS5 string
//! and only the operators we build ourselves reach FTS5.
//!
//! Supported syntax: words (implicit AND), `"exact phrases"`, `OR` between terms, `NOT term`.
//! `AND` and `NEAR` are accepted and ignored. Words of three or more characters also match as
//! prefixes (`induct` finds `induction`).

/// Upper bounds keep a pasted wall of text from producing a pathological query.
const MAX_TERMS: usize = 32;
const MAX_TERM_CHARS: usize = 200;
/// Shorter words match exactly only: a one- or two-letter prefix would expand to most of the
/// vocabulary.
const MIN_PREFIX_CHARS: usize = 3;

/// A parsed search: groups joined by OR, each an AND of terms minus excluded terms.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ParsedQuery {
    pub groups: Vec<Group>,
}

/// Terms that must all match, and terms that must not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Group {
    pub must: Vec<Term>,
    pub not: Vec<Term>,
}

/// One word or quoted phrase, as typed (control characters removed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    pub text: String,
    pub phrase: bool,
}

impl ParsedQuery {
    /// Parses user text. Never fails; text with nothing searchable gives an empty query.
    pub fn parse(input: &str) -> ParsedQuery {
        let clean: String = input
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let mut groups = Vec::new();
        let mut group = Group::default();
        let mut negate = false;
        let mut count = 0;
        for (raw, phrase) in split(&clean) {
            if count >= MAX_TERMS {
                break;
            }
            let mut word = raw.as_str();
            if !phrase {
                match word {
                    "AND" | "NEAR" => continue,
                    "OR" => {
                        if !group.must.is_empty() {
                            groups.push(std::mem::take(&mut group));
                        }
                        negate = false;
                        continue;
                    }
                    "NOT" => {
                        negate = true;
                        continue;
                    }
                    _ => {}
                }
                if let Some(rest) = word.strip_prefix("NEAR(") {
                    word = rest;
                }
            }
            let text: String = word.chars().take(MAX_TERM_CHARS).collect();
            if !has_token_chars(&text) {
                continue;
            }
            count += 1;
            let term = Term { text, phrase };
            if std::mem::take(&mut negate) {
                group.not.push(term);
            } else {
                group.must.push(term);
            }
        }
        if !group.must.is_empty() {
            groups.push(group);
        }
        ParsedQuery { groups }
    }

    /// True when there is nothing to search for.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The FTS5 MATCH expression, or `None` when empty. Only quoted strings and operators we
    /// emit ourselves appear in it, so it always parses. Words of three or more characters
    /// also match as prefixes.
    pub fn to_fts5(&self) -> Option<String> {
        self.expression(true)
    }

    /// [`ParsedQuery::to_fts5`] without prefix matching: whole words only. Much cheaper on a
    /// large index, since FTS5 merges the doclists of every word a prefix expands to.
    pub fn to_fts5_words(&self) -> Option<String> {
        self.expression(false)
    }

    fn expression(&self, prefixes: bool) -> Option<String> {
        if self.groups.is_empty() {
            return None;
        }
        let groups: Vec<String> = self
            .groups
            .iter()
            .map(|g| {
                let mut s = g
                    .must
                    .iter()
                    .map(|t| term_expr(t, prefixes))
                    .collect::<Vec<_>>()
                    .join(" AND ");
                for t in &g.not {
                    s.push_str(" NOT ");
                    s.push_str(&quote(&t.text));
                }
                format!("({s})")
            })
            .collect();
        Some(groups.join(" OR "))
    }
}

/// The input as one identifier candidate (`erdos_850`, `Finset.card_le_card`, `"erdos 850"`):
/// trimmed, quotes and control characters removed. `None` when nothing is left.
pub fn identifier_candidate(input: &str) -> Option<String> {
    let s: String = input
        .chars()
        .filter(|c| !c.is_control() && *c != '"')
        .take(MAX_TERM_CHARS)
        .collect();
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// Quotes text as an FTS5 string: `"` doubled, the whole wrapped in `"`.
pub fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

fn term_expr(t: &Term, prefixes: bool) -> String {
    let q = quote(&t.text);
    if !prefixes || t.phrase || last_token_chars(&t.text) < MIN_PREFIX_CHARS {
        q
    } else {
        // The exact form is listed too so that whole-word matches outrank prefix-only ones.
        format!("({q} OR {q}*)")
    }
}

/// Length of the last token of `s`, the one FTS5 applies a `*` prefix to.
fn last_token_chars(s: &str) -> usize {
    s.trim_end_matches(|c: char| !c.is_alphanumeric())
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric())
        .count()
}

/// Whether the unicode61 tokenizer would find a token in `s`. A term without one becomes the
/// empty phrase, which matches nothing and would empty the whole AND.
fn has_token_chars(s: &str) -> bool {
    s.chars().any(char::is_alphanumeric)
}

/// Splits on whitespace, keeping `"quoted phrases"` together (an unterminated quote runs to the
/// end). Returns (text, was_quoted).
fn split(s: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == '"' {
            chars.next();
            let phrase: String = chars.by_ref().take_while(|&c| c != '"').collect();
            let phrase = phrase.trim();
            if !phrase.is_empty() {
                out.push((phrase.to_string(), true));
            }
        } else {
            let mut word = String::new();
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() || c == '"' {
                    break;
                }
                word.push(c);
                chars.next();
            }
            out.push((word, false));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fts(q: &str) -> Option<String> {
        ParsedQuery::parse(q).to_fts5()
    }

    #[test]
    fn words_become_quoted_prefix_terms() {
        assert_eq!(fts("induct"), Some(r#"(("induct" OR "induct"*))"#.into()));
        assert_eq!(fts("n le"), Some(r#"("n" AND "le")"#.into()));
    }

    #[test]
    fn whole_words_variant_has_no_prefixes() {
        let q = ParsedQuery::parse("induct OR card NOT xyz");
        assert_eq!(
            q.to_fts5_words(),
            Some(r#"("induct") OR ("card" NOT "xyz")"#.into())
        );
    }

    #[test]
    fn operators() {
        assert_eq!(fts("ab OR cd"), Some(r#"("ab") OR ("cd")"#.into()));
        assert_eq!(fts("ab NOT cd"), Some(r#"("ab" NOT "cd")"#.into()));
        assert_eq!(fts("ab AND cd"), Some(r#"("ab" AND "cd")"#.into()));
        // Nothing to subtract from: dropped, not an error.
        assert_eq!(fts("NOT cd"), None);
        assert_eq!(fts("OR OR"), None);
        assert_eq!(fts("ab OR"), Some(r#"("ab")"#.into()));
    }

    #[test]
    fn phrases_and_hostile_text() {
        assert_eq!(fts(r#""card le""#), Some(r#"("card le")"#.into()));
        assert_eq!(
            fts(r#"ab "unterminated"#),
            Some(r#"("ab" AND "unterminated")"#.into())
        );
        assert_eq!(fts("* : ( ) - ∀ ≤"), None);
        assert_eq!(fts("a:b"), Some(r#"("a:b")"#.into()));
        assert_eq!(fts("a:bcd;"), Some(r#"(("a:bcd;" OR "a:bcd;"*))"#.into()));
        assert_eq!(fts("a\0b"), Some(r#"("a" AND "b")"#.into()));
        assert_eq!(
            fts("'; DROP \"x\"\"y"),
            Some(r#"(("DROP" OR "DROP"*) AND "x" AND "y")"#.into())
        );
        assert_eq!(quote(r#"a"b"#), r#""a""b""#);
    }

    #[test]
    fn identifier_candidate_strips_quotes() {
        assert_eq!(
            identifier_candidate(r#"  "erdos_850"  "#).as_deref(),
            Some("erdos_850")
        );
        assert_eq!(identifier_candidate("\"\""), None);
    }
}
