//! The proof cursor: the holes of a file as a work list, and putting a proof in place.
//!
//! Agents fill holes one at a time. [`holes`] lists every `sorry`/`admit` in file order with
//! the declaration and the `have`/`show`/`suffices` it sits under; [`splice`] replaces a
//! declaration's proof, or one of its holes, and refuses (leaving the file untouched) unless the
//! result parses as cleanly as the original. [`target`] resolves the declaration a user names.
//!
//! Every function here works on text that [`parse`] has read: CRLF files are parsed with each
//! `\r` of a `\r\n` read as a space, which keeps every byte offset valid for the original text.

pub mod holes;
pub mod splice;
pub mod target;
mod text;

pub use holes::{holes, Enclosing, Hole, HoleOwner, HolePosition};
pub use splice::{
    splice_file, splice_file_checked, splice_text, FileSpliceError, ProofForm, Splice, SpliceError,
    Spliced,
};
pub use target::{find_declaration, TargetError};

use crate::lean::ParsedFile;

/// Parses `text` for the cursor. A `\r` that ends a line is read as a space, so the grammar
/// never sees a carriage return and every offset of the tree is an offset into `text`.
pub fn parse(text: &str) -> ParsedFile {
    ParsedFile::parse(text::without_carriage_returns(text))
}

/// A file parsed by [`crate::lean::batch`] made fit for the cursor: re-parsed as [`parse`]
/// does when its text has CRLF line endings, returned as it is otherwise.
pub fn for_cursor(file: ParsedFile) -> ParsedFile {
    if file.text.contains("\r\n") {
        parse(&file.text)
    } else {
        file
    }
}

/// Parses two versions of a file and compares them declaration by declaration: the one call
/// the PostToolUse hook needs (`compare_texts(old, new).blocks()`).
pub fn compare_texts(old: &str, new: &str) -> crate::lean::compare::FileComparison {
    let (old_file, new_file) = (parse(old), parse(new));
    crate::lean::compare::FileComparison::of(
        old,
        &crate::lean::Outline::of("", &old_file),
        new,
        &crate::lean::Outline::of("", &new_file),
    )
}
