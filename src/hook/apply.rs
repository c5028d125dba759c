//! The file as a Write, Edit or MultiEdit would leave it, computed before the tool runs.
//!
//! Follows the tools' documented semantics: Write replaces the whole file; Edit replaces
//! `old_string` by `new_string`, which must occur exactly once unless `replace_all`; MultiEdit
//! applies its edits in order, each to the result of the previous one; an empty `old_string`
//! on a file that does not exist creates it. A file with CRLF line endings takes LF strings
//! (Claude Code converts them). An edit the tool itself would reject is `Err`: the tool fails
//! on its own, so there is nothing to gate.

use super::payload::{EditOp, ToolInput};

/// The text after the tool, given the text before (`None`: the file does not exist).
pub fn after(tool: &str, before: Option<&str>, input: &ToolInput) -> Result<String, String> {
    match tool {
        "Write" => input
            .content
            .clone()
            .ok_or_else(|| "the Write payload has no content".to_string()),
        "Edit" => {
            let edit = input
                .edit
                .as_ref()
                .ok_or_else(|| "the Edit payload has no old_string/new_string".to_string())?;
            apply_all(before, std::slice::from_ref(edit))
        }
        "MultiEdit" if !input.edits.is_empty() => apply_all(before, &input.edits),
        "MultiEdit" => Err("the MultiEdit payload has no edits".into()),
        other => Err(format!("{other} does not write a file")),
    }
}

fn apply_all(before: Option<&str>, edits: &[EditOp]) -> Result<String, String> {
    let mut text = match before {
        Some(t) => t.to_string(),
        None => {
            // Only a first edit with an empty old_string creates a file.
            let first = &edits[0];
            if !first.old_string.is_empty() {
                return Err("the file does not exist, so the edit will fail".into());
            }
            let mut t = first.new_string.clone();
            for e in &edits[1..] {
                t = apply_one(&t, e)?;
            }
            return Ok(t);
        }
    };
    for (i, e) in edits.iter().enumerate() {
        text = apply_one(&text, e).map_err(|why| {
            if edits.len() > 1 {
                format!("edit {} of {}: {why}", i + 1, edits.len())
            } else {
                why
            }
        })?;
    }
    Ok(text)
}

fn apply_one(text: &str, e: &EditOp) -> Result<String, String> {
    if e.old_string.is_empty() {
        return Err("an empty old_string on an existing file".into());
    }
    // The occurrences are found once, by a vectorized search (a hook applies an edit to a
    // whole result file), and the replacement is built from them: the same non-overlapping,
    // leftmost occurrences as `str::matches` and `str::replace`.
    let (mut old, mut new) = (
        std::borrow::Cow::Borrowed(e.old_string.as_str()),
        std::borrow::Cow::Borrowed(e.new_string.as_str()),
    );
    let mut at = occurrences(text, &old);
    if at.is_empty() && text.contains("\r\n") && !e.old_string.contains('\r') {
        old = e.old_string.replace('\n', "\r\n").into();
        new = e.new_string.replace('\n', "\r\n").into();
        at = occurrences(text, &old);
    }
    if at.is_empty() {
        return Err("old_string is not in the file, so the edit will fail".into());
    }
    if !e.replace_all && at.len() > 1 {
        return Err(format!(
            "old_string occurs {} times without replace_all, so the edit will fail",
            at.len()
        ));
    }
    let mut out = String::with_capacity(text.len() + at.len() * new.len());
    let mut from = 0;
    for p in at {
        out.push_str(&text[from..p]);
        out.push_str(&new);
        from = p + old.len();
    }
    out.push_str(&text[from..]);
    Ok(out)
}

/// Byte offsets of the non-overlapping occurrences of `needle` in `text`, leftmost first.
fn occurrences(text: &str, needle: &str) -> Vec<usize> {
    memchr::memmem::find_iter(text.as_bytes(), needle.as_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(old: &str, new: &str, all: bool) -> EditOp {
        EditOp {
            old_string: old.into(),
            new_string: new.into(),
            replace_all: all,
        }
    }

    fn edit(e: EditOp) -> ToolInput {
        ToolInput {
            edit: Some(e),
            ..Default::default()
        }
    }

    /// The edit is applied as `str::replacen`/`str::replace` would, overlapping and repeated
    /// needles included.
    #[test]
    fn replacement_matches_std() {
        let texts = [
            "aaaa",
            "abab aba",
            "x\r\ny\r\nx\r\ny",
            "αβα β",
            "theorem t := by\n  rfl\n",
        ];
        let needles = ["a", "aa", "aba", "b", "x\ny", "β", "rfl", "α", "zz"];
        for t in texts {
            for n in needles {
                for all in [false, true] {
                    let got = apply_one(t, &op(n, "<>", all));
                    let count = t.matches(n).count();
                    if count == 0 {
                        if !t.contains("\r\n") {
                            assert!(got.is_err(), "{t:?} {n:?}");
                        }
                        continue;
                    }
                    let want = if all {
                        Ok(t.replace(n, "<>"))
                    } else if count > 1 {
                        Err(format!("old_string occurs {count} times without replace_all, so the edit will fail"))
                    } else {
                        Ok(t.replacen(n, "<>", 1))
                    };
                    assert_eq!(got, want, "{t:?} {n:?} {all}");
                }
            }
        }
    }

    #[test]
    fn edit_semantics() {
        let t = Some("a b a");
        assert_eq!(
            after("Edit", t, &edit(op("b", "c", false))).unwrap(),
            "a c a"
        );
        assert_eq!(
            after("Edit", t, &edit(op("a", "x", true))).unwrap(),
            "x b x"
        );
        assert!(after("Edit", t, &edit(op("a", "x", false))).is_err());
        assert!(after("Edit", t, &edit(op("z", "x", false))).is_err());
        assert_eq!(
            after("Edit", Some("x\r\ny\r\n"), &edit(op("x\ny", "x\nz", false))).unwrap(),
            "x\r\nz\r\n"
        );
        assert_eq!(
            after("Edit", None, &edit(op("", "new", false))).unwrap(),
            "new"
        );
        assert!(after("Edit", None, &edit(op("a", "b", false))).is_err());
    }

    #[test]
    fn multi_edit_applies_in_order() {
        let input = ToolInput {
            edits: vec![op("one", "1", false), op("1 two", "1 2", false)],
            ..Default::default()
        };
        assert_eq!(after("MultiEdit", Some("one two"), &input).unwrap(), "1 2");
        let bad = ToolInput {
            edits: vec![op("one", "1", false), op("one", "2", false)],
            ..Default::default()
        };
        let err = after("MultiEdit", Some("one two"), &bad).unwrap_err();
        assert!(err.starts_with("edit 2 of 2"), "{err}");
    }

    #[test]
    fn write_replaces() {
        let input = ToolInput {
            content: Some("new".into()),
            ..Default::default()
        };
        assert_eq!(after("Write", Some("old"), &input).unwrap(), "new");
        assert_eq!(after("Write", None, &input).unwrap(), "new");
    }
}
