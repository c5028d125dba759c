//! Lean's lexical layer without a parse: where comments, strings and character literals are.
//!
//! Used where the syntax tree cannot be (text the parser could not read, a cut of a file that
//! has not been parsed yet). Every function is linear in what it scans.

/// Whether `b` can continue an identifier (bytes of non-ASCII characters always can).
pub fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'\'' | b'!' | b'?') || b >= 0x80
}

/// The byte offsets at which a line of `text` starts outside comments, strings and character
/// literals ([`non_code_at`]), the text's start first: where a column-0 command may begin.
pub fn code_line_starts(text: &str) -> Vec<usize> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        if line_start {
            out.push(i);
        }
        match non_code_at(text, i) {
            // A comment or string ends on its own line or a later one, never at a line start.
            Some(len) => {
                line_start = false;
                i += len.max(1);
            }
            None if bytes[i] == b'\n' => {
                line_start = true;
                i += 1;
            }
            // Nothing before the next byte that may start a comment, string or character
            // literal, or end the line, can change what is read: skipped in one step.
            None => {
                line_start = false;
                i += 1;
                i += bytes[i..]
                    .iter()
                    .position(|&c| MAY_MATTER[c as usize])
                    .unwrap_or(bytes.len() - i);
            }
        }
    }
    out
}

/// The bytes at which [`non_code_at`] may find a comment, string or character literal (`-`,
/// `/`, `"`, `r`, `'`), and the line end, after which a line starts.
const MAY_MATTER: [bool; 256] = {
    let mut t = [false; 256];
    let mut k = 0;
    let bytes = b"-/\"r'\n";
    while k < bytes.len() {
        t[bytes[k] as usize] = true;
        k += 1;
    }
    t
};

/// The length of the comment (`--`, nested `/- -/`), string (`"…"` with escapes, raw
/// `r#"…"#`) or character literal that starts at byte `i` of `text`, if one does. An
/// unterminated one runs to the end of the text, as it does for Lean.
pub fn non_code_at(text: &str, i: usize) -> Option<usize> {
    let b = text.as_bytes();
    let n = b.len();
    let start = i;
    let mut i = i;
    match *b.get(i)? {
        b'-' if b.get(i + 1) == Some(&b'-') => {
            i = memchr::memchr(b'\n', &b[i..]).map_or(n, |k| i + k);
            Some(i - start)
        }
        b'/' if b.get(i + 1) == Some(&b'-') => {
            let mut depth = 1;
            i += 2;
            while i < n && depth > 0 {
                if b[i] == b'/' && b.get(i + 1) == Some(&b'-') {
                    depth += 1;
                    i += 2;
                } else if b[i] == b'-' && b.get(i + 1) == Some(&b'/') {
                    depth -= 1;
                    i += 2;
                } else {
                    i += 1;
                }
            }
            Some(i.min(n) - start)
        }
        b'"' => {
            i += 1;
            while i < n && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            Some((i + 1).min(n) - start)
        }
        b'r' if (i == 0 || !is_ident_byte(b[i - 1]))
            && raw_string_hashes(&b[i + 1..]).is_some() =>
        {
            let hashes = raw_string_hashes(&b[i + 1..]).unwrap_or(0);
            i += 2 + hashes;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let end =
                memchr::memmem::find(&b[i.min(n)..], &close).map_or(n, |k| i + k + close.len());
            Some(end.min(n) - start)
        }
        b'\''
            if i == 0
                || !(is_ident_byte(b[i - 1]) || matches!(b[i - 1], b'.' | b')' | b']' | b'}')) =>
        {
            char_literal_len(&text[i..])
        }
        _ => None,
    }
}

/// `#`s of a raw string opener after its `r` (`"` → 0, `#"` → 1), if it is one.
fn raw_string_hashes(after_r: &[u8]) -> Option<usize> {
    let hashes = after_r.iter().take_while(|&&c| c == b'#').count();
    (after_r.get(hashes) == Some(&b'"')).then_some(hashes)
}

/// Length of a character literal at the start of `s` (`'a'`, `'\n'`, `'\x41'`, `'∀'`).
fn char_literal_len(s: &str) -> Option<usize> {
    let mut chars = s.char_indices().skip(1);
    let (_, c) = chars.next()?;
    if c == '\\' {
        // An escape: the closing quote follows within a few characters.
        return s[2..]
            .char_indices()
            .take(10)
            .find(|(_, c)| *c == '\'')
            .map(|(k, _)| 2 + k + 1);
    }
    if c == '\'' || c == '\n' {
        return None;
    }
    let (k, close) = chars.next()?;
    (close == '\'').then_some(k + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(text: &str, at: usize) -> Option<&str> {
        non_code_at(text, at).map(|len| &text[at..at + len])
    }

    #[test]
    fn comments_strings_and_char_literals() {
        assert_eq!(span("x -- sorry\ny", 2), Some("-- sorry"));
        assert_eq!(
            span("/- a /- b -/ sorry -/ x", 0),
            Some("/- a /- b -/ sorry -/")
        );
        assert_eq!(span(r#""a \" sorry" x"#, 0), Some(r#""a \" sorry""#));
        assert_eq!(span(r###"r#"sorry"# x"###, 0), Some(r###"r#"sorry"#"###));
        assert_eq!(span("f 'a' x", 2), Some("'a'"));
        assert_eq!(span("f '\\n' x", 2), Some("'\\n'"));
        // A prime continues an identifier: `h'` is not a literal's start.
        assert_eq!(span("h' x", 1), None);
        assert_eq!(span("sorry", 0), None);
        // Unterminated: to the end of the text.
        assert_eq!(span("/- open", 0), Some("/- open"));
        assert_eq!(span("\"open\\", 0), Some("\"open\\"));
    }
}
