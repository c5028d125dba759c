//! Reading a `.lean` file for a hook: regular files only, bounded, UTF-8.

use std::path::Path;

use crate::lean::Source;

/// Files larger than this are not checked: the largest real result file is about 1.3 MB, and
/// the hook must answer within its timeout.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The text of `path` (byte-order mark removed), `Ok(None)` when it does not exist. Anything
/// else that is not a readable regular UTF-8 file of at most `limit` bytes is an error naming
/// the file. The open never blocks (a FIFO is refused, not waited on).
pub fn read_text(path: &Path, limit: u64) -> Result<Option<String>, String> {
    match read_bytes(path, limit)? {
        None => Ok(None),
        Some(bytes) => Source::from_bytes(path, bytes)
            .map(|s| Some(s.text))
            .map_err(|e| e.to_string()),
    }
}

/// The bytes of `path`, `Ok(None)` when it does not exist; a regular file of at most `limit`
/// bytes only, opened without blocking ([`crate::files::read_regular`]).
pub fn read_bytes(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, String> {
    match crate::files::read_regular(path, limit) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(crate::files::FileError::Missing { .. }) => Ok(None),
        Err(crate::files::FileError::TooLarge { size, .. }) => Err(format!(
            "{}: {size} bytes, over the hook's {limit}-byte limit",
            path.display()
        )),
        Err(e) => Err(e.to_string()),
    }
}
