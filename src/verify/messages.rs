//! Reading Lean's text output: `FILE:LINE:COL: error: …` messages and the sorry warning.
//!
//! A message starts with a header line, either `FILE:LINE:COL: SEVERITY: TEXT` (Lean's own,
//! with a 0-based column; newer versions may add a tag as in `error(lean.unknownIdentifier):`)
//! or `SEVERITY: TEXT` at the start of a line (lake, and Lean errors without a position).
//! Every following line up to the next header belongs to the message (goals, expected types).

use serde::Serialize;

/// How serious a Lean message is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Error,
    Warning,
    Info,
}

/// One message Lean (or lake) printed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LeanMessage {
    pub severity: Level,
    /// The file as Lean printed it; `None` for a message without a position.
    pub file: Option<String>,
    /// 1-based line.
    pub line: Option<usize>,
    /// 1-based column (Lean prints 0-based columns; one is added).
    pub column: Option<usize>,
    /// The text after the severity, continuation lines included, trailing blank lines dropped.
    pub message: String,
}

impl LeanMessage {
    /// The first line of the message text.
    pub fn headline(&self) -> &str {
        self.message.lines().next().unwrap_or("")
    }

    /// Whether this is the warning Lean gives for a declaration that contains `sorry`.
    pub fn is_sorry_warning(&self) -> bool {
        mentions_sorry_use(&self.message)
    }
}

/// Splits Lean's combined output into messages. Lines before the first header are dropped.
pub fn parse(output: &str) -> Vec<LeanMessage> {
    let mut messages: Vec<LeanMessage> = Vec::new();
    for line in output.lines() {
        if let Some(message) = header(line) {
            messages.push(message);
        } else if let Some(last) = messages.last_mut() {
            last.message.push('\n');
            last.message.push_str(line);
        }
    }
    for m in &mut messages {
        let trimmed = m.message.trim_end().len();
        m.message.truncate(trimmed);
    }
    messages
}

/// Whether any line of `output` says a declaration uses `sorry`, whatever the quotes
/// (`'sorry'`, `` `sorry` ``, `‘sorry’`, `"sorry"`, none).
pub fn mentions_sorry_use(output: &str) -> bool {
    output.lines().any(|line| {
        line.find("declaration uses").is_some_and(|at| {
            line[at + "declaration uses".len()..]
                .trim_start()
                .trim_start_matches(|c: char| !c.is_alphanumeric() && !c.is_whitespace())
                .starts_with("sorry")
        })
    })
}

fn severity_word(s: &str) -> Option<(Level, &str)> {
    for (word, level) in [
        ("error", Level::Error),
        ("warning", Level::Warning),
        ("information", Level::Info),
        ("info", Level::Info),
    ] {
        if let Some(rest) = s.strip_prefix(word) {
            // An optional tag: `error(lean.unknownIdentifier): …`.
            let rest = match rest.strip_prefix('(') {
                Some(tagged) => &tagged[tagged.find(')')? + 1..],
                None => rest,
            };
            if let Some(text) = rest.strip_prefix(':') {
                return Some((level, text.strip_prefix(' ').unwrap_or(text)));
            }
        }
    }
    None
}

/// Parses a header line, or returns `None` for a continuation line.
fn header(line: &str) -> Option<LeanMessage> {
    if let Some((severity, text)) = severity_word(line) {
        // `lake build` puts the severity first: `error: FILE:LINE:COL: TEXT`.
        let (file, row, col, text) = match position(text, |_| true) {
            Some((file, row, col, rest)) => {
                (Some(file.to_string()), Some(row), Some(col + 1), rest)
            }
            None => (None, None, None, text),
        };
        return Some(LeanMessage {
            severity,
            file,
            line: row,
            column: col,
            message: text.to_string(),
        });
    }
    // `FILE:LINE:COL: SEVERITY: TEXT`.
    let (file, row, col, rest) = position(line, |rest| severity_word(rest).is_some())?;
    let (severity, text) = severity_word(rest)?;
    Some(LeanMessage {
        severity,
        file: Some(file.to_string()),
        line: Some(row),
        column: Some(col + 1),
        message: text.to_string(),
    })
}

/// `FILE:LINE:COL: REST` with `accept(REST)`: (FILE, LINE, 0-based COL, REST). FILE may itself
/// contain colons, so each `: ` is tried in turn.
fn position(
    line: &str,
    mut accept: impl FnMut(&str) -> bool,
) -> Option<(&str, usize, usize, &str)> {
    let mut search = 0;
    while let Some(found) = line[search..].find(": ") {
        let at = search + found;
        search = at + 2;
        let mut parts = line[..at].rsplitn(3, ':');
        let (Some(col), Some(row), Some(file)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let (Ok(col), Ok(row)) = (col.parse::<usize>(), row.parse::<usize>()) else {
            continue;
        };
        if file.is_empty() || !accept(&line[at + 2..]) {
            continue;
        }
        return Some((file, row, col, &line[at + 2..]));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positioned_messages_with_continuations() {
        let out = "\
/p/Foo.lean:12:8: error: unsolved goals
x : ℕ
⊢ x + 0 = x

/p/Foo.lean:3:0: warning: declaration uses 'sorry'
/p/Foo.lean:20:2: error(lean.unknownIdentifier): Unknown identifier `foo`
";
        let m = parse(out);
        assert_eq!(m.len(), 3);
        assert_eq!(m[0].severity, Level::Error);
        assert_eq!(m[0].file.as_deref(), Some("/p/Foo.lean"));
        assert_eq!((m[0].line, m[0].column), (Some(12), Some(9)));
        assert_eq!(m[0].message, "unsolved goals\nx : ℕ\n⊢ x + 0 = x");
        assert!(m[1].is_sorry_warning());
        assert_eq!((m[1].line, m[1].column), (Some(3), Some(1)));
        assert_eq!(m[2].message, "Unknown identifier `foo`");
        assert_eq!(m[2].severity, Level::Error);
    }

    #[test]
    fn messages_without_position_and_colons_in_paths() {
        let m = parse("error: unknown package 'Mathlib'\nC:\\x:y.lean:1:4: info: 42\n");
        assert_eq!(m.len(), 2);
        assert_eq!((m[0].severity, m[0].file.as_deref()), (Level::Error, None));
        assert_eq!(m[0].message, "unknown package 'Mathlib'");
        assert_eq!(m[1].file.as_deref(), Some("C:\\x:y.lean"));
        assert_eq!((m[1].severity, m[1].column), (Level::Info, Some(5)));
    }

    /// `lake build` prints Lean's messages with the severity first.
    #[test]
    fn lake_build_messages_carry_their_position() {
        let out = "\
✖ [7/9] Building Proofs (1.2s)
trace: .> LEAN_PATH=./.lake/build/lib lean ./././Proofs.lean -R ./././. -o x.olean
error: ./././Proofs.lean:5:2: unknown identifier 'foo'
warning: ./././Proofs.lean:9:8: declaration uses 'sorry'
error: Lean exited with code 1
Some required builds logged failures:
- Proofs
error: build failed
";
        let m = parse(out);
        assert_eq!(m.len(), 4, "{m:?}");
        assert_eq!(m[0].file.as_deref(), Some("./././Proofs.lean"));
        assert_eq!((m[0].line, m[0].column), (Some(5), Some(3)));
        assert_eq!(m[0].message, "unknown identifier 'foo'");
        assert!(m[1].is_sorry_warning());
        assert_eq!(m[1].line, Some(9));
        assert_eq!((m[2].file.as_deref(), m[2].line), (None, None));
        assert_eq!(m[2].headline(), "Lean exited with code 1");
    }

    #[test]
    fn text_that_only_looks_like_a_header_is_continuation() {
        let m = parse("a.lean:1:0: error: bad\n  note: errors: none\nnot a header: error: x\n");
        assert_eq!(m.len(), 1);
        assert_eq!(
            m[0].message,
            "bad\n  note: errors: none\nnot a header: error: x"
        );
    }

    #[test]
    fn sorry_warning_in_every_quote_style() {
        for q in [
            "'sorry'",
            "`sorry`",
            "‘sorry’",
            "\"sorry\"",
            "“sorry”",
            "sorry",
        ] {
            let out = format!("f.lean:1:8: warning: declaration uses {q}\n");
            assert!(mentions_sorry_use(&out), "{q}");
            assert!(parse(&out)[0].is_sorry_warning(), "{q}");
        }
        assert!(!mentions_sorry_use(
            "f.lean:1:8: warning: unused variable `sorry_count`"
        ));
        assert!(!mentions_sorry_use("declaration uses 'Classical.choice'"));
    }
}
