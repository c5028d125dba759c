//! Line-level text helpers: carriage returns, indentation, line endings.

/// `text` with every `\r` that precedes a `\n` replaced by a space (same length, same offsets).
pub(crate) fn without_carriage_returns(text: &str) -> String {
    if !text.contains('\r') {
        return text.to_string();
    }
    let mut bytes = text.as_bytes().to_vec();
    for i in 0..bytes.len().saturating_sub(1) {
        if bytes[i] == b'\r' && bytes[i + 1] == b'\n' {
            bytes[i] = b' ';
        }
    }
    // Only ASCII bytes were replaced by ASCII bytes, so the text is still UTF-8.
    String::from_utf8(bytes).expect("replacing ASCII with ASCII keeps UTF-8 valid")
}

/// Byte offset of the start of the line containing `byte`.
pub(crate) fn line_start(text: &str, byte: usize) -> usize {
    text[..byte].rfind('\n').map_or(0, |i| i + 1)
}

/// Width of the leading spaces and tabs of `line`, in characters.
pub(crate) fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches([' ', '\t']).len()
}

/// The column of `byte` in characters from the start of its line (0-based), as Lean counts.
pub(crate) fn column(text: &str, byte: usize) -> usize {
    text[line_start(text, byte)..byte].chars().count()
}

/// Whether only spaces and tabs precede `byte` on its line.
pub(crate) fn begins_line(text: &str, byte: usize) -> bool {
    text[line_start(text, byte)..byte]
        .chars()
        .all(|c| c == ' ' || c == '\t')
}

/// The line ending to write at `byte`: the one ending its line, or, on a last line without
/// one, the file's first line ending (`\n` for a one-line file).
pub(crate) fn line_ending_at(text: &str, byte: usize) -> &'static str {
    let rest = &text[byte..];
    let found = match rest.find('\n') {
        Some(i) => Some(i + byte),
        None => text.find('\n'),
    };
    match found {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Proof text as lines with line endings normalized, leading blank lines and trailing
/// whitespace dropped, and the indentation common to all non-blank lines removed. Blank lines
/// inside are kept (empty). `None` when the text holds nothing but whitespace.
pub(crate) fn dedent(proof: &str) -> Option<Vec<String>> {
    let lines: Vec<&str> = proof.lines().map(|l| l.trim_end()).collect();
    let first = lines.iter().position(|l| !l.is_empty())?;
    let last = lines.iter().rposition(|l| !l.is_empty())?;
    let lines = &lines[first..=last];
    let common = lines
        .iter()
        .filter(|l| !l.is_empty())
        .map(|l| indentation(l))
        .min()
        .unwrap_or(0);
    Some(
        lines
            .iter()
            .map(|l| if l.is_empty() { "" } else { &l[common..] }.to_string())
            .collect(),
    )
}

/// Joins dedented lines for insertion at a point: the first line goes where the insertion
/// starts, every further line is indented by `indent` spaces plus its own relative indentation.
pub(crate) fn lay_out(lines: &[String], indent: usize, eol: &str) -> String {
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i == 0 {
            out.push_str(line.trim_start());
            continue;
        }
        out.push_str(eol);
        if !line.is_empty() {
            out.extend(std::iter::repeat_n(' ', indent));
            out.push_str(line);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carriage_returns_become_spaces_only_before_newlines() {
        assert_eq!(without_carriage_returns("a\r\nb\rc\r\n"), "a \nb\rc \n");
    }

    #[test]
    fn columns_count_characters() {
        let text = "x\n  · sorry";
        let byte = text.find("sorry").unwrap();
        assert_eq!(column(text, byte), 4);
        assert!(!begins_line(text, byte));
        assert!(begins_line(text, text.find('·').unwrap()));
    }

    #[test]
    fn line_endings_follow_the_line_or_the_file() {
        assert_eq!(line_ending_at("a\r\nb := sorry", 8), "\r\n");
        assert_eq!(line_ending_at("a := sorry\r\nb", 5), "\r\n");
        assert_eq!(line_ending_at("a := sorry\nb\r\n", 5), "\n");
        assert_eq!(line_ending_at("a := sorry", 5), "\n");
    }

    #[test]
    fn dedent_strips_common_indentation_and_blank_edges() {
        let lines = dedent("\n\n    intro x\r\n      simp\n\n    ring  \n\n").unwrap();
        assert_eq!(lines, vec!["intro x", "  simp", "", "ring"]);
        assert_eq!(dedent(" \n\t\n"), None);
    }

    #[test]
    fn lay_out_indents_all_but_the_first_line() {
        let lines: Vec<String> = ["by", "  simp", "", "  ring"].map(String::from).to_vec();
        assert_eq!(
            lay_out(&lines, 4, "\r\n"),
            "by\r\n      simp\r\n\r\n      ring"
        );
    }
}
