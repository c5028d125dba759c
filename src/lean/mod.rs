//! Lean 4 source → syntax tree → outline.
//!
//! [`source`] turns bytes into text (or a precise reason why they are not Lean source),
//! [`syntax`] parses text with the project's tree-sitter grammar, and [`outline`] reads the
//! tree into what the rest of math-forge needs: declarations, sorries, axioms, tactics, imports.

pub mod batch;
pub mod compare;
pub mod containment;
pub mod depends;
pub mod header;
pub mod idents;
pub mod lexical;
pub mod opaque;
pub mod outline;
pub mod source;
pub mod syntax;
pub mod trust_scan;
pub mod walk;

pub use outline::{Declaration, Outline, Sorry};
pub use source::{Source, SourceError};
pub use syntax::ParsedFile;
