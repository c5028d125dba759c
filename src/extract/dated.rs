//! The date a file states for itself: a `Label: DATE` line of its leading block comment, as
//! pipelines write when they generate a file (`Generated: 2026-01-04T16:15:34.654492`).
//!
//! A search result shows this date (else the file's modification time), not the time it was
//! extracted: a result from January stays from January however often it is re-read.

/// How far into the file the leading comment is read (the Aristotle header's bound).
const MAX_HEAD_BYTES: usize = 16 * 1024;

/// The first `Label: DATE` line of the file's leading block comment, the date as written
/// (`2026-01-04T16:15:34.654492`, `2026-01-01 20:04:04`, `2026-01-04`, with a `Z` or `±HH:MM`
/// offset if it has one). The label is words (letters, spaces, `-`, `_`), the date ISO 8601.
/// `None` when the file does not start with a block comment or the comment states no date;
/// a doc comment (`/--`, `/-!`) documents code, never the file's production.
pub fn stated_date(text: &str) -> Option<String> {
    let text = text.trim_start_matches('\u{feff}').trim_start();
    if !text.starts_with("/-") || text.starts_with("/--") || text.starts_with("/-!") {
        return None;
    }
    let mut end = text.len().min(MAX_HEAD_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[2..end];
    let head = head.find("-/").map_or(head, |i| &head[..i]);
    head.lines().find_map(|line| {
        let (label, value) = line.split_once(':')?;
        let label = label.trim();
        let is_label = !label.is_empty()
            && label.len() <= 40
            && label
                .chars()
                .all(|c| c.is_alphabetic() || matches!(c, ' ' | '-' | '_'));
        is_label.then(|| iso_date_prefix(value.trim())).flatten()
    })
}

/// The ISO 8601 date (and time, and offset) `value` starts with, when it is only that.
fn iso_date_prefix(value: &str) -> Option<String> {
    let b = value.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .is_some_and(|s| s.iter().all(u8::is_ascii_digit))
    };
    let is_date = digits(0..4)
        && b.get(4) == Some(&b'-')
        && digits(5..7)
        && b.get(7) == Some(&b'-')
        && digits(8..10);
    if !is_date {
        return None;
    }
    let mut end = 10;
    if matches!(b.get(10), Some(b'T' | b' ')) && digits(11..13) && b.get(13) == Some(&b':') {
        if !digits(14..16) {
            return None;
        }
        end = 16;
        if b.get(16) == Some(&b':') && digits(17..19) {
            end = 19;
            if b.get(19) == Some(&b'.') {
                end = 20 + b[20..].iter().take_while(|c| c.is_ascii_digit()).count();
            }
        }
        match b.get(end) {
            Some(b'Z') => end += 1,
            Some(b'+' | b'-') if digits(end + 1..end + 3) && b.get(end + 3) == Some(&b':') => {
                if !digits(end + 4..end + 6) {
                    return None;
                }
                end += 6;
            }
            _ => {}
        }
    }
    // The date is the whole value ("2026-01-04, maybe" is prose, not a date).
    value[end..]
        .trim()
        .is_empty()
        .then(|| value[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_labelled_date_in_the_leading_comment() {
        let sketch = "/-\nErdős Problem #723: erdos_723.leq_11\nSource: Formal Conjectures\n\
                      Generated: 2026-01-04T16:15:34.654492\n\nSubmit via: aristotle -/\n";
        assert_eq!(
            stated_date(sketch).as_deref(),
            Some("2026-01-04T16:15:34.654492")
        );
        let library = "\n/-\nTuza Scaffolding Library\nGenerated: 2026-01-01 20:04:04\n-/";
        assert_eq!(stated_date(library).as_deref(), Some("2026-01-01 20:04:04"));
        for (value, date) in [
            ("2026-01-04", Some("2026-01-04")),
            ("2026-01-04T16:15Z", Some("2026-01-04T16:15Z")),
            (
                "2026-01-04T16:15:34+02:00",
                Some("2026-01-04T16:15:34+02:00"),
            ),
            ("2026-01-04, more or less", None),
            ("2026-1-4", None),
            ("soon", None),
        ] {
            let text = format!("/- Completed at: {value} -/");
            assert_eq!(stated_date(&text).as_deref(), date, "{value}");
        }
    }

    #[test]
    fn no_date_outside_a_leading_block_comment() {
        assert_eq!(stated_date("-- Generated: 2026-01-04\n"), None);
        assert_eq!(
            stated_date("/-- Generated: 2026-01-04 -/\ndef x := 1"),
            None
        );
        assert_eq!(
            stated_date("import Mathlib\n/- Generated: 2026-01-04 -/"),
            None
        );
        // After the comment closes, a date is the code's, not the file's.
        assert_eq!(stated_date("/- header -/\n/- Date: 2026-01-04 -/"), None);
        // A URL's colon is no label.
        assert_eq!(stated_date("/- see https://x.org/2026-01-04 -/"), None);
    }
}
