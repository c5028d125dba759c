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

/// Byte ranges sorted by start, with those that overlap or touch merged into one: the
/// ascending, disjoint form that a binary search over them needs.
pub fn merge_ranges(
    ranges: impl IntoIterator<Item = std::ops::Range<usize>>,
) -> Vec<std::ops::Range<usize>> {
    let mut ranges: Vec<_> = ranges.into_iter().collect();
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<std::ops::Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn ranges_merge_when_they_overlap_or_touch() {
        let d = super::merge_ranges([5..9, 0..2, 8..12, 12..13, 20..20]);
        assert_eq!(d, [0..2, 5..13, 20..20]);
    }
}
