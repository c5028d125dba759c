//! Lean 4 source → syntax tree → outline.
