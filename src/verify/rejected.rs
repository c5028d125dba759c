//! Which declarations Lean's errors lie in: what `mf verify` (on FAIL) and the Bash hook (on
//! `lake build` / `lake env lean` output) mark as rejected attempts in the session journal
//! ([`crate::kb::Kb::mark_rejected`]).

use crate::lean::{Outline, ParsedFile};

/// The declarations of `text` (the file at `path`) that the errors at `errors` (1-based line,
/// the error's first line) lie in: (full name, that first line), each declaration once, with
/// its first error. An error outside every named declaration is attributed to none.
pub fn declarations_with_errors(
    path: &str,
    text: &str,
    errors: &[(usize, String)],
) -> Vec<(String, String)> {
    if errors.is_empty() {
        return Vec::new();
    }
    let parsed = ParsedFile::parse(text.to_string());
    let outline = Outline::of(path, &parsed);
    let mut out: Vec<(String, String)> = Vec::new();
    for (line, headline) in errors {
        let inside = outline
            .declarations
            .iter()
            .filter(|d| !d.full_name.is_empty() && d.line <= *line && *line <= d.end_line)
            .max_by_key(|d| d.line);
        if let Some(d) = inside {
            if !out.iter().any(|(n, _)| *n == d.full_name) {
                out.push((d.full_name.clone(), headline.clone()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_go_to_the_innermost_declaration_they_lie_in() {
        let text = "theorem a : 1 = 1 := by\n  rfl\n\nnamespace N\ntheorem b : 2 = 2 := by\n  simp [foo]\n  exact bar\nend N\n";
        let got = declarations_with_errors(
            "/p/x.lean",
            text,
            &[
                (6, "unknown identifier 'foo'".into()),
                (7, "unknown identifier 'bar'".into()),
                (3, "outside".into()),
                (99, "past the end".into()),
            ],
        );
        assert_eq!(
            got,
            [("N.b".to_string(), "unknown identifier 'foo'".to_string())]
        );
    }
}
