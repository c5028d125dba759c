//! Reading a `.lean` file for a hook: regular files only, bounded, UTF-8.

use std::io::Read;
use std::path::Path;

use crate::lean::source::describe_io_error;
use crate::lean::Source;

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
/// bytes only, opened without blocking.
pub fn read_bytes(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, String> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let f = match options.open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{}: {}", path.display(), describe_io_error(&e))),
    };
    let meta = f
        .metadata()
        .map_err(|e| format!("{}: {}", path.display(), describe_io_error(&e)))?;
    if !meta.is_file() {
        return Err(format!("{}: not a regular file", path.display()));
    }
    if meta.len() > limit {
        return Err(format!(
            "{}: {} bytes, over the hook's {limit}-byte limit",
            path.display(),
            meta.len()
        ));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    f.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("{}: {}", path.display(), describe_io_error(&e)))?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "{}: grew over the hook's {limit}-byte limit while read",
            path.display()
        ));
    }
    Ok(Some(bytes))
}
