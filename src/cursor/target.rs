//! Resolving the declaration a user names on the command line.

use crate::lean::{Declaration, Outline};

/// Why a name does not pick exactly one declaration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error("no declaration `{query}`{}", did_you_mean(.suggestions))]
    Missing {
        query: String,
        suggestions: Vec<String>,
    },
    #[error("`{query}` is ambiguous: {}; name one in full (or give its line number)", list(.candidates))]
    Ambiguous {
        query: String,
        /// (full name or `kind at line N`, line) of each candidate.
        candidates: Vec<(String, usize)>,
    },
    #[error("no declaration contains line {line}")]
    NoDeclarationAtLine { line: usize },
    #[error("the declaration name is empty; give a name or a line number")]
    Empty,
}

fn did_you_mean(suggestions: &[String]) -> String {
    match suggestions {
        [] => String::new(),
        names => format!(
            " (did you mean {}?)",
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn list(candidates: &[(String, usize)]) -> String {
    candidates
        .iter()
        .map(|(name, line)| format!("`{name}` (line {line})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// How a person refers to a declaration in messages: its full name, or `example at line 3`.
pub fn label(d: &Declaration) -> String {
    if d.full_name.is_empty() {
        format!("{} at line {}", d.kind, d.line)
    } else {
        d.full_name.clone()
    }
}

/// The index in `outline.declarations` of the declaration `query` names.
///
/// `query` is tried as, in order: a line number (the innermost declaration containing that
/// line, which is how an anonymous `example` or `instance` is named); a full name; the name as
/// written; a suffix of full names at a `.` boundary (`foo` finds `Ns.foo`). The first of the
/// name rules that matches anything decides; more than one match is ambiguous.
pub fn find_declaration(outline: &Outline, query: &str) -> Result<usize, TargetError> {
    let decls = &outline.declarations;
    if !query.is_empty() && query.bytes().all(|b| b.is_ascii_digit()) {
        let line: usize = query.parse().unwrap_or(usize::MAX);
        return decls
            .iter()
            .enumerate()
            .filter(|(_, d)| d.line <= line && line <= d.end_line)
            .min_by_key(|(_, d)| d.span.len())
            .map(|(i, _)| i)
            .ok_or(TargetError::NoDeclarationAtLine { line });
    }
    let query = query.strip_prefix("_root_.").unwrap_or(query);
    if query.is_empty() {
        return Err(TargetError::Empty);
    }
    let suffix = format!(".{query}");
    let rules: [&dyn Fn(&Declaration) -> bool; 3] = [
        &|d| !d.full_name.is_empty() && d.full_name == query,
        &|d| !d.name.is_empty() && d.name == query,
        &|d| d.full_name.ends_with(&suffix),
    ];
    for rule in rules {
        let found: Vec<usize> = (0..decls.len()).filter(|&i| rule(&decls[i])).collect();
        match found.as_slice() {
            [] => continue,
            [one] => return Ok(*one),
            many => {
                return Err(TargetError::Ambiguous {
                    query: query.to_string(),
                    candidates: many
                        .iter()
                        .map(|&i| (label(&decls[i]), decls[i].line))
                        .collect(),
                })
            }
        }
    }
    let names: Vec<&str> = decls
        .iter()
        .filter(|d| !d.full_name.is_empty())
        .map(|d| d.full_name.as_str())
        .collect();
    let mut suggestions: Vec<String> = similar::get_close_matches(query, &names, 3, 0.6)
        .into_iter()
        .map(String::from)
        .collect();
    // A short name is closer to the last component than to the whole dotted name.
    if suggestions.is_empty() {
        let lasts: Vec<&str> = names
            .iter()
            .map(|n| n.rsplit('.').next().unwrap_or(n))
            .collect();
        for m in similar::get_close_matches(query, &lasts, 3, 0.6) {
            if let Some(full) = names.iter().find(|n| n.rsplit('.').next() == Some(m)) {
                suggestions.push(full.to_string());
            }
        }
    }
    Err(TargetError::Missing {
        query: query.to_string(),
        suggestions,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn decl(
        kind: &str,
        name: &str,
        full: &str,
        lines: (usize, usize),
        span: (usize, usize),
    ) -> Declaration {
        Declaration {
            kind: kind.into(),
            name: name.into(),
            full_name: full.into(),
            line: lines.0,
            end_line: lines.1,
            modifiers: Vec::new(),
            attributes: Vec::new(),
            statement: String::new(),
            sorry_count: 0,
            tactics: BTreeMap::new(),
            parse_error: false,
            span: span.0..span.1,
            body: None,
            user_command: false,
            theorem_like: matches!(kind, "theorem" | "lemma"),
            typed: true,
        }
    }

    fn outline() -> Outline {
        Outline {
            path: "t.lean".into(),
            declarations: vec![
                decl("theorem", "foo", "A.foo", (1, 3), (0, 30)),
                decl("theorem", "foo", "B.foo", (5, 6), (40, 60)),
                decl("lemma", "bar_lemma", "A.bar_lemma", (8, 9), (70, 90)),
                decl("example", "", "", (11, 12), (100, 120)),
                decl("theorem", "C.baz", "A.C.baz", (14, 15), (130, 150)),
                decl("def", "foo", "foo", (17, 17), (160, 170)),
            ],
            ..Outline::default()
        }
    }

    #[test]
    fn full_name_wins_over_suffix() {
        assert_eq!(find_declaration(&outline(), "A.foo"), Ok(0));
        assert_eq!(find_declaration(&outline(), "foo"), Ok(5));
        assert_eq!(find_declaration(&outline(), "_root_.foo"), Ok(5));
    }

    #[test]
    fn name_as_written_and_unique_suffix() {
        assert_eq!(find_declaration(&outline(), "C.baz"), Ok(4));
        assert_eq!(find_declaration(&outline(), "baz"), Ok(4));
        assert_eq!(find_declaration(&outline(), "bar_lemma"), Ok(2));
    }

    #[test]
    fn ambiguous_suffix_lists_candidates() {
        let mut o = outline();
        o.declarations.pop();
        let e = find_declaration(&o, "foo").unwrap_err();
        assert_eq!(
            e.to_string(),
            "`foo` is ambiguous: `A.foo` (line 1), `B.foo` (line 5); name one in full (or give its line number)"
        );
    }

    #[test]
    fn an_empty_name_names_nothing_not_the_anonymous_declarations() {
        let e = find_declaration(&outline(), "").unwrap_err();
        assert_eq!(e, TargetError::Empty);
    }

    #[test]
    fn line_numbers_name_anonymous_declarations() {
        assert_eq!(find_declaration(&outline(), "12"), Ok(3));
        assert_eq!(
            find_declaration(&outline(), "13"),
            Err(TargetError::NoDeclarationAtLine { line: 13 })
        );
    }

    #[test]
    fn missing_names_come_with_suggestions() {
        let e = find_declaration(&outline(), "bar_lema").unwrap_err();
        assert_eq!(
            e.to_string(),
            "no declaration `bar_lema` (did you mean `A.bar_lemma`?)"
        );
        let e = find_declaration(&outline(), "zzz").unwrap_err();
        assert_eq!(e.to_string(), "no declaration `zzz`");
    }
}
