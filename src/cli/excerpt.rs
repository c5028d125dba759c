//! The source line under a diagnostic, as rustc shows it: the whole line when it is short,
//! else a window around the flagged column with `...` where it was cut. One `sorry` on a
//! 500 KB line prints a hundred-odd characters, never the line.
//!
//! All spans of one line are cut in one pass over it (two cursors that only move forward), so
//! 50,000 findings on one line cost the line once, not once each.

/// Columns a tab advances.
pub const TAB_WIDTH: usize = 4;
/// Longest line shown whole, in characters; longer ones are cut to about this width.
pub const MAX_WIDTH: usize = 120;
/// Characters kept before the flagged column when a line is cut.
pub const BEFORE: usize = 40;

/// What to print for one span: the text (tabs expanded), and where the carets go under it, in
/// display columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Excerpt {
    pub text: String,
    pub caret_at: usize,
    pub caret_len: usize,
}

/// Excerpts of `line` for `spans`: (start, end) character columns, 0-based, end exclusive
/// (`None`: to the end of the line), in ascending order of start.
pub fn excerpts(line: &str, spans: &[(usize, Option<usize>)]) -> Vec<Excerpt> {
    let short = line.chars().nth(MAX_WIDTH).is_none();
    let mut from = Cursor::new(line);
    let mut to = Cursor::new(line);
    spans
        .iter()
        .map(|&(start, end)| {
            let (lo, hi) = if short {
                (0, usize::MAX)
            } else {
                let lo = start.saturating_sub(BEFORE);
                (lo, lo + MAX_WIDTH)
            };
            let a = from.seek(lo);
            let b = to.seek(hi.max(lo));
            let window = &line[a..b];
            let cut_left = a > 0;
            let cut_right = b < line.len();
            let mut text = String::new();
            if cut_left {
                text.push_str("...");
            }
            let (mut caret_at, mut caret_len) = (text.len(), 0);
            let stop = end.unwrap_or(usize::MAX).max(start + 1);
            for (i, c) in window.chars().enumerate() {
                let col = lo + i;
                let w = if c == '\t' { TAB_WIDTH } else { 1 };
                if col < start {
                    caret_at += w;
                } else if col < stop {
                    caret_len += w;
                }
                if c == '\t' {
                    text.push_str(&" ".repeat(TAB_WIDTH));
                } else {
                    text.push(c);
                }
            }
            let text = if cut_right {
                text + "..."
            } else {
                text.trim_end().to_string()
            };
            Excerpt {
                text,
                caret_at,
                caret_len: caret_len.max(1),
            }
        })
        .collect()
}

/// A position in a line that moves forward only: byte offset of a character column.
struct Cursor<'a> {
    line: &'a str,
    byte: usize,
    column: usize,
}

impl<'a> Cursor<'a> {
    fn new(line: &'a str) -> Self {
        Cursor {
            line,
            byte: 0,
            column: 0,
        }
    }

    /// The byte offset of character column `column` (the line's end past it); a column behind
    /// the cursor gives the cursor's place (callers ask in ascending order).
    fn seek(&mut self, column: usize) -> usize {
        let mut chars = self.line[self.byte..].char_indices();
        while self.column < column {
            match chars.next() {
                Some((_, c)) => {
                    self.byte += c.len_utf8();
                    self.column += 1;
                }
                None => break,
            }
        }
        self.byte
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_line_is_shown_whole() {
        let e = excerpts("\tℕ sorry  ", &[(3, Some(8))]);
        assert_eq!(
            e,
            [Excerpt {
                text: "    ℕ sorry".into(),
                caret_at: 6,
                caret_len: 5
            }]
        );
    }

    #[test]
    fn a_long_line_is_cut_around_each_span() {
        let line = format!("{}sorry{}", "x".repeat(250_000), "y".repeat(250_000));
        let e = excerpts(&line, &[(250_000, Some(250_005)), (250_002, None)]);
        assert_eq!(e[0].text.len(), 3 + MAX_WIDTH + 3);
        assert!(e[0].text.starts_with("...xxx") && e[0].text.ends_with("yyy..."));
        assert_eq!(&e[0].text[e[0].caret_at..e[0].caret_at + 5], "sorry");
        assert_eq!(e[0].caret_len, 5);
        // To the end of the line: carets to the end of the window.
        assert_eq!(e[1].caret_len, MAX_WIDTH - BEFORE);
    }

    #[test]
    fn a_span_at_the_start_of_a_long_line_is_not_cut_on_the_left() {
        let line = format!("sorry{}", "é".repeat(1000));
        let e = excerpts(&line, &[(0, Some(5))]);
        assert!(e[0].text.starts_with("sorryé") && e[0].text.ends_with("é..."));
        assert_eq!((e[0].caret_at, e[0].caret_len), (0, 5));
    }
}
