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

    use std::ffi::{c_char, c_uint, c_void};

    extern "C" {
        fn tree_sitter_lean_external_scanner_create() -> *mut c_void;
        fn tree_sitter_lean_external_scanner_destroy(payload: *mut c_void);
        fn tree_sitter_lean_external_scanner_serialize(
            payload: *mut c_void,
            buffer: *mut c_char,
        ) -> c_uint;
        fn tree_sitter_lean_external_scanner_deserialize(
            payload: *mut c_void,
            buffer: *const c_char,
            length: c_uint,
        );
    }

    /// The scanner's state: a 7-byte header (overflow, last token, notation depth, what the
    /// next line break goes on with and its column), then the block stack as runs of equal
    /// entries, each one little-endian word: the entry in the low 24 bits, the run's length
    /// minus 1 above them.
    fn state(runs: &[(u32, u32)]) -> Vec<u8> {
        let mut out = vec![0, 0, 0xFF, 0xFF, 0, 0, 0];
        for &(entry, count) in runs {
            out.extend_from_slice(&(entry | (count - 1) << 24).to_le_bytes());
        }
        out
    }

    /// Deserializes `state` and serializes it again.
    fn round_trip(state: &[u8]) -> Vec<u8> {
        let mut buffer = [0 as c_char; 1024];
        // SAFETY: the scanner is created, used and destroyed here; the buffer has the
        // runtime's size (TREE_SITTER_SERIALIZATION_BUFFER_SIZE).
        unsafe {
            let s = tree_sitter_lean_external_scanner_create();
            tree_sitter_lean_external_scanner_deserialize(
                s,
                state.as_ptr() as *const c_char,
                state.len() as c_uint,
            );
            let n = tree_sitter_lean_external_scanner_serialize(s, buffer.as_mut_ptr());
            tree_sitter_lean_external_scanner_destroy(s);
            buffer[..n as usize].iter().map(|&b| b as u8).collect()
        }
    }

    #[test]
    fn equal_blocks_serialize_in_a_few_bytes_whatever_their_depth() {
        // 250 blocks (the most the scanner keeps) at the clamped column with the same flags,
        // as nested `by`s on one long line give: one word.
        let deepest = state(&[(0x05FF, 250)]);
        assert_eq!(round_trip(&deepest), deepest);
        assert_eq!(deepest.len(), 11);
        // Bytes the scanner did not write (more entries than it keeps) are cut at its depth.
        let too_deep = state(&[(0x05FF, 200), (0x05FF, 200), (0x0400, 5)]);
        assert_eq!(round_trip(&too_deep), state(&[(0x05FF, 200), (0x05FF, 50)]));
    }

    #[test]
    fn the_deepest_state_of_distinct_blocks_fits_the_buffer() {
        // Distinct entries with every flag bit up to bit 23: the largest state.
        let runs: Vec<(u32, u32)> = (0..250u32).map(|i| (0xFF_FE00 | i, 1)).collect();
        let deepest = state(&runs);
        assert!(deepest.len() <= 1024, "{} bytes", deepest.len());
        assert_eq!(round_trip(&deepest), deepest);
        // Runs and single entries mixed keep their order.
        let mixed = state(&[(2, 1), (4, 3), (2, 1)]);
        assert_eq!(round_trip(&mixed), mixed);
        // No block: the header alone.
        let empty = state(&[]);
        assert_eq!(round_trip(&empty), empty);
    }

    #[test]
    fn the_line_break_state_is_serialized() {
        // a `let` line at column 4 (EOL_LET) after an operator outside every block
        // (EOL_OP | EOL_TOP): kept as it is
        let mut with_let = state(&[(2, 1)]);
        with_let[5] = 1 | 2 | 4;
        with_let[6] = 4;
        assert_eq!(round_trip(&with_let), with_let);
        // a line that ended with an operator inside a block (EOL_OP alone)
        let mut op_only = state(&[(0x0402, 2)]);
        op_only[5] = 1;
        assert_eq!(round_trip(&op_only), op_only);
    }
}
