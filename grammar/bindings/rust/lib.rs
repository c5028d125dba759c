//! Lean 4 grammar for tree-sitter.
//!
//! ```
//! let mut parser = tree_sitter::Parser::new();
//! parser.set_language(&tree_sitter_lean::LANGUAGE.into()).unwrap();
//! let tree = parser.parse("theorem t : True := trivial\n", None).unwrap();
//! assert!(!tree.root_node().has_error());
//! ```
//!
//! Node names are documented in `grammar/README.md`.

use tree_sitter_language::LanguageFn;

extern "C" {
    fn tree_sitter_lean() -> *const ();
}

/// The tree-sitter [`LanguageFn`] for Lean 4.
pub const LANGUAGE: LanguageFn = unsafe { LanguageFn::from_raw(tree_sitter_lean) };

/// The content of the [`node-types.json`] file for this grammar.
pub const NODE_TYPES: &str = include_str!("../../src/node-types.json");

/// Syntax highlighting query.
pub const HIGHLIGHTS_QUERY: &str = include_str!("../../queries/highlights.scm");

#[cfg(test)]
mod tests {
    #[test]
    fn can_load_grammar() {
        let mut parser = tree_sitter::Parser::new();
        parser
            .set_language(&super::LANGUAGE.into())
            .expect("Error loading Lean parser");
    }
}
