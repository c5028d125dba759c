//! Runs the grammar's corpus tests (`test/corpus/*.txt`) without the
//! tree-sitter CLI.
//!
//! The files use tree-sitter's corpus format:
//!
//! ```text
//! ==================
//! Test name
//! :skip            (optional attributes)
//! ==================
//!
//! source
//!
//! ---
//!
//! (expected s-expression)
//! ```
//!
//! A test passes when the s-expression of the parse tree equals the expected
//! one after whitespace normalisation (field names are compared only when the
//! expected output contains some).  `:skip` skips a test; `:error` only
//! requires the tree to contain an error.  Every failing case is reported by
//! file and name before the test fails.

use std::fs;
use std::path::{Path, PathBuf};

struct Case {
    file: String,
    name: String,
    skip: bool,
    error: bool,
    input: String,
    expected: String,
}

/// A delimiter line is at least three `c` characters, optionally followed by a
/// suffix.  Returns the suffix.
fn delimiter(line: &str, c: char) -> Option<&str> {
    let trimmed = line.trim_end_matches(['\r', '\n']);
    let n = trimmed.len() - trimmed.trim_start_matches(c).len();
    if n < 3 {
        return None;
    }
    Some(&trimmed[n..])
}

fn parse_corpus_file(path: &Path) -> Vec<Case> {
    let content = fs::read_to_string(path).expect("readable corpus file");
    let file = path.file_name().unwrap().to_string_lossy().to_string();
    let lines: Vec<&str> = content.split_inclusive('\n').collect();
    let suffix = lines
        .iter()
        .find_map(|l| delimiter(l, '='))
        .unwrap_or("")
        .to_string();

    // Locate headers: `===` line, name/attribute lines, closing `===` line.
    struct Header {
        start: usize,
        body: usize,
        name: String,
        skip: bool,
        error: bool,
    }
    let mut headers = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if delimiter(lines[i], '=') == Some(suffix.as_str()) {
            let mut j = i + 1;
            let mut name = String::new();
            let (mut skip, mut error, mut ok) = (false, false, false);
            while j < lines.len() {
                if delimiter(lines[j], '=') == Some(suffix.as_str()) {
                    ok = !name.is_empty();
                    break;
                }
                let t = lines[j].trim();
                if t.is_empty() {
                    break;
                }
                match t.split('(').next().unwrap() {
                    ":skip" => skip = true,
                    ":error" => error = true,
                    ":fail-fast" | ":cst" | ":language" | ":platform" => {}
                    _ => {
                        if !name.is_empty() {
                            name.push(' ');
                        }
                        name.push_str(t);
                    }
                }
                j += 1;
            }
            if ok {
                headers.push(Header {
                    start: i,
                    body: j + 1,
                    name,
                    skip,
                    error,
                });
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }

    let mut cases = Vec::new();
    for (k, h) in headers.iter().enumerate() {
        let end = headers.get(k + 1).map_or(lines.len(), |n| n.start);
        let body = &lines[h.body..end];
        // The divider is the longest `---` line (the last one on ties).
        let mut best: Option<(usize, usize)> = None;
        for (idx, l) in body.iter().enumerate() {
            if let Some(sfx) = delimiter(l, '-') {
                if sfx == suffix {
                    let len = l.trim_end().len();
                    if best.is_none_or(|(bl, _)| len >= bl) {
                        best = Some((len, idx));
                    }
                }
            }
        }
        let Some((_, div)) = best else {
            panic!("{file}: test {:?} has no `---` divider", h.name);
        };
        let mut input: String = body[..div].concat();
        if input.ends_with('\n') {
            input.pop();
        }
        if input.ends_with('\r') {
            input.pop();
        }
        let expected = normalize(&body[div + 1..].concat());
        cases.push(Case {
            file: file.clone(),
            name: h.name.clone(),
            skip: h.skip,
            error: h.error,
            input,
            expected,
        });
    }
    cases
}

/// Collapse whitespace, drop `;` comment lines, remove spaces before `)`.
fn normalize(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for line in s.lines() {
        if line.trim_start().starts_with(';') {
            continue;
        }
        out.push_str(line);
        out.push(' ');
    }
    let mut res = String::with_capacity(out.len());
    let mut space = false;
    for ch in out.chars() {
        if ch.is_whitespace() {
            space = true;
            continue;
        }
        if space && !res.is_empty() && ch != ')' {
            res.push(' ');
        }
        space = false;
        res.push(ch);
    }
    res
}

/// Remove `field: ` prefixes from an s-expression.
fn strip_fields(sexp: &str) -> String {
    let mut out = String::with_capacity(sexp.len());
    for tok in sexp.split(' ') {
        if tok.ends_with(':')
            && tok.len() > 1
            && tok[..tok.len() - 1]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(tok);
    }
    out
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("test")
        .join("corpus")
}

#[test]
fn corpus() {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_lean::LANGUAGE.into())
        .expect("load Lean grammar");

    let mut files: Vec<PathBuf> = fs::read_dir(corpus_dir())
        .expect("test/corpus exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no corpus files found");

    let (mut total, mut skipped) = (0usize, 0usize);
    let mut failures = Vec::new();
    for path in &files {
        for case in parse_corpus_file(path) {
            if case.skip {
                skipped += 1;
                continue;
            }
            total += 1;
            let tree = parser.parse(&case.input, None).expect("parse");
            let root = tree.root_node();
            if case.error {
                if !root.has_error() {
                    failures.push(format!(
                        "{} / {}: expected an error, got {}",
                        case.file,
                        case.name,
                        root.to_sexp()
                    ));
                }
                continue;
            }
            let mut actual = normalize(&root.to_sexp());
            if !case.expected.contains(": (") {
                actual = strip_fields(&actual);
            }
            if actual != case.expected {
                failures.push(format!(
                    "{} / {}:\n    expected: {}\n    actual:   {}",
                    case.file, case.name, case.expected, actual
                ));
            }
        }
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    eprintln!(
        "corpus: {} cases, {} failed, {} skipped",
        total,
        failures.len(),
        skipped
    );
    assert!(
        failures.is_empty(),
        "{} corpus case(s) failed",
        failures.len()
    );
}
