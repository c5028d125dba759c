//! In-file allow comments: `-- mf:allow RULE` silences RULE on the next line.
//!
//! Only line comments count (they are comment nodes of the tree, so the text of a string cannot
//! pose as one). Several rules may follow, separated by spaces or commas:
//! `-- mf:allow native-decide, debug-command`. A second `--` ends the list, so a reason may
//! follow: `-- mf:allow sorry -- waiting for upstream`. Unknown names are ignored, so a misspelt
//! rule silences nothing and its finding stays visible.

use std::collections::HashMap;

use super::Rule;
use crate::lean::outline::for_each_descendant;
use crate::lean::ParsedFile;

const MARKER: &str = "mf:allow";

/// The allow comments of one file: line → rules allowed on it.
#[derive(Debug, Default)]
pub struct Directives {
    by_line: HashMap<usize, Vec<Rule>>,
}

impl Directives {
    /// Whether a finding of `rule` starting on `line` is allowed.
    pub fn allows(&self, line: usize, rule: Rule) -> bool {
        self.by_line.get(&line).is_some_and(|r| r.contains(&rule))
    }
}

/// Collects the allow comments of `file`.
pub fn directives(file: &ParsedFile) -> Directives {
    let mut directives = Directives::default();
    // Most files have none: one text search spares a walk of the whole tree.
    if memchr::memmem::find(file.text.as_bytes(), MARKER.as_bytes()).is_none() {
        return directives;
    }
    let mut cursor = file.root().walk();
    for_each_descendant(&mut cursor, |node| {
        if node.kind() != "line_comment" {
            return;
        }
        let rules = parse(file.text_of(node));
        if !rules.is_empty() {
            let next_line = node.start_position().row + 2;
            directives
                .by_line
                .entry(next_line)
                .or_default()
                .extend(rules);
        }
    });
    directives
}

/// The rules named by one line comment's text (`-- mf:allow a, b`), empty when it is not an
/// allow comment.
fn parse(comment: &str) -> Vec<Rule> {
    let Some(body) = comment.strip_prefix("--") else {
        return Vec::new();
    };
    let Some(list) = body.trim_start().strip_prefix(MARKER) else {
        return Vec::new();
    };
    if !list.is_empty() && !list.starts_with(char::is_whitespace) {
        return Vec::new();
    }
    list.split(|c: char| c == ',' || c.is_whitespace())
        .take_while(|w| !w.starts_with("--"))
        .filter_map(|w| w.parse().ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_lists_and_ignores_everything_else() {
        assert_eq!(parse("-- mf:allow sorry"), vec![Rule::Sorry]);
        assert_eq!(
            parse("--mf:allow native-decide,debug-command  axiom"),
            vec![Rule::NativeDecide, Rule::DebugCommand, Rule::Axiom]
        );
        assert_eq!(
            parse("-- mf:allow sorry -- axiom is not in the list"),
            vec![Rule::Sorry]
        );
        assert_eq!(parse("-- mf:allow sory"), vec![]);
        assert_eq!(parse("-- mf:allowed sorry"), vec![]);
        assert_eq!(parse("-- see mf:allow sorry"), vec![]);
        assert_eq!(parse("-- mf:allow"), vec![]);
    }
}
