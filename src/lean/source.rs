//! Reading Lean source files: bytes in, UTF-8 text out, or a one-line reason why not.

use std::fmt;
use std::path::{Path, PathBuf};

/// Files larger than this are refused rather than parsed: the biggest real result file is
/// about 1.3 MB, so anything this large is almost certainly not hand-written Lean.
pub const MAX_SOURCE_BYTES: u64 = 64 * 1024 * 1024;

const UTF8_BOM: &str = "\u{feff}";

/// A Lean source file decoded as UTF-8.
#[derive(Debug, Clone)]
pub struct Source {
    /// The path as given by the user (or found by a directory walk).
    pub path: PathBuf,
    /// The file's text without a leading byte-order mark.
    pub text: String,
    /// Whether the file started with a UTF-8 byte-order mark (stripped from `text`).
    pub had_bom: bool,
}

/// Why a file could not be read as Lean source.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    /// The file could not be read at all.
    #[error("{path}: cannot read: {reason}")]
    Io { path: PathBuf, reason: String },
    /// The file contains NUL bytes, so it is binary (often a gzip download), not Lean.
    #[error("{path}: binary file (NUL byte at offset {offset}); not Lean source{hint}")]
    Binary {
        path: PathBuf,
        offset: usize,
        hint: BinaryHint,
    },
    /// The file is not valid UTF-8, which Lean requires.
    #[error("{path}:{line}: invalid UTF-8 (byte offset {offset}); re-save the file as UTF-8")]
    InvalidUtf8 {
        path: PathBuf,
        line: usize,
        offset: usize,
    },
    /// The file is too large to be Lean worth parsing.
    #[error("{path}: file is {size} bytes, over the {limit}-byte limit for Lean sources")]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
}

/// A hint appended to the binary-file error when the file's magic bytes say what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryHint {
    None,
    Gzip,
}

impl fmt::Display for BinaryHint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BinaryHint::None => Ok(()),
            BinaryHint::Gzip => f.write_str(" (gzip data: decompress it with `gunzip` first)"),
        }
    }
}

impl SourceError {
    /// Whether the file is not Lean text at all (binary, compressed, not UTF-8), as opposed to
    /// a Lean file that could not be read: the former is skipped under a directory walk.
    pub fn is_not_text(&self) -> bool {
        matches!(
            self,
            SourceError::Binary { .. } | SourceError::InvalidUtf8 { .. }
        )
    }

    /// The path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            SourceError::Io { path, .. }
            | SourceError::Binary { path, .. }
            | SourceError::InvalidUtf8 { path, .. }
            | SourceError::TooLarge { path, .. } => path,
        }
    }
}

impl Source {
    /// Reads and decodes a regular file of at most [`MAX_SOURCE_BYTES`] (a FIFO, device or
    /// socket is refused without being opened for a blocking read).
    pub fn read(path: &Path) -> Result<Source, SourceError> {
        let bytes = read_source_bytes(path)?;
        Source::from_bytes(path, bytes)
    }

    /// Decodes bytes already in memory (for example a hook payload).
    pub fn from_bytes(path: &Path, bytes: Vec<u8>) -> Result<Source, SourceError> {
        if let Some(offset) = memchr_nul(&bytes) {
            let hint = if bytes.starts_with(&[0x1f, 0x8b]) {
                BinaryHint::Gzip
            } else {
                BinaryHint::None
            };
            return Err(SourceError::Binary {
                path: path.to_path_buf(),
                offset,
                hint,
            });
        }
        match String::from_utf8(bytes) {
            Ok(mut text) => {
                let had_bom = text.starts_with(UTF8_BOM);
                if had_bom {
                    text.drain(..UTF8_BOM.len());
                }
                Ok(Source {
                    path: path.to_path_buf(),
                    text,
                    had_bom,
                })
            }
            Err(e) => {
                let offset = e.utf8_error().valid_up_to();
                let line = 1 + e.as_bytes()[..offset]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
                Err(SourceError::InvalidUtf8 {
                    path: path.to_path_buf(),
                    line,
                    offset,
                })
            }
        }
    }

    /// Wraps text that is already a `String` (tests, stdin).
    pub fn from_text(path: &Path, text: String) -> Source {
        Source::from_bytes(path, text.into_bytes()).unwrap_or_else(|_| Source {
            path: path.to_path_buf(),
            text: String::new(),
            had_bom: false,
        })
    }
}

/// The bytes of a source file: a regular file of at most [`MAX_SOURCE_BYTES`].
pub fn read_source_bytes(path: &Path) -> Result<Vec<u8>, SourceError> {
    use crate::files::FileError;
    crate::files::read_regular(path, MAX_SOURCE_BYTES).map_err(|e| match e {
        FileError::TooLarge { size, limit, .. } => SourceError::TooLarge {
            path: path.to_path_buf(),
            size,
            limit,
        },
        other => SourceError::Io {
            path: path.to_path_buf(),
            reason: other.reason(),
        },
    })
}

fn memchr_nul(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> Result<Source, SourceError> {
        Source::from_bytes(Path::new("t.lean"), bytes.to_vec())
    }

    #[test]
    fn strips_bom_and_remembers_it() {
        let s = decode(b"\xef\xbb\xbftheorem t : True := trivial\n").unwrap();
        assert!(s.had_bom);
        assert!(s.text.starts_with("theorem"));
    }

    #[test]
    fn nul_bytes_are_binary_and_gzip_is_named() {
        let e = decode(b"\x1f\x8b\x08\x00rest").unwrap_err();
        assert!(matches!(e, SourceError::Binary { offset: 3, .. }));
        assert!(e.to_string().contains("gzip"), "{e}");
    }

    #[test]
    fn invalid_utf8_names_line_and_offset() {
        let e = decode(b"line one\nline \xff two\n").unwrap_err();
        match e {
            SourceError::InvalidUtf8 { line, offset, .. } => {
                assert_eq!((line, offset), (2, 14));
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn missing_file_says_so() {
        let e = Source::read(Path::new("/definitely/not/here.lean")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/definitely/not/here.lean: cannot read: no such file or directory"
        );
    }
}
