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

/// `path` without `.` components and with each `..` taking back the component before it
/// (lexically, links not followed): the one spelling under which the journal and `mf verify`
/// key a file, whichever way it was named (`./F.lean`, `dir/../F.lean`).
pub fn lexically_normal(path: &Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out = std::path::PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                let last_is_normal =
                    matches!(out.components().next_back(), Some(Component::Normal(_)));
                if last_is_normal {
                    out.pop();
                } else if !matches!(out.components().next_back(), Some(Component::RootDir)) {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexically_normal_drops_dots() {
        for (given, want) in [
            ("/p/./F.lean", "/p/F.lean"),
            ("/p/q/../F.lean", "/p/F.lean"),
            ("/../F.lean", "/F.lean"),
            ("../a/./F.lean", "../a/F.lean"),
            ("/p/F.lean", "/p/F.lean"),
        ] {
            assert_eq!(
                lexically_normal(Path::new(given)),
                Path::new(want),
                "{given}"
            );
        }
    }
}
