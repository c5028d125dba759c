//! Reading and parsing many files in parallel with bounded memory.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::source::{Source, SourceError, MAX_SOURCE_BYTES};
use super::syntax::ParsedFile;

/// Files parsed at once. Results of one chunk are handed over before the next chunk is read,
/// so memory stays bounded by a chunk of files, not by the whole tree.
const CHUNK: usize = 64;

/// A file read and parsed, or the reason it could not be read.
pub type FileResult = Result<(Source, ParsedFile), SourceError>;

/// Parses `files` in parallel; `map` runs on the worker thread for each file (so per-file work
/// such as building an outline is parallel too), and `sink` receives the mapped results in the
/// order of `files`. When `sink` answers [`ControlFlow::Break`] (its reader went away) no
/// further file is read.
pub fn parse_files<T, M, S>(files: &[PathBuf], map: M, mut sink: S)
where
    T: Send,
    M: Fn(FileResult) -> T + Sync + Send,
    S: FnMut(T) -> ControlFlow<()>,
{
    for chunk in files.chunks(CHUNK) {
        let mapped: Vec<T> = chunk
            .par_iter()
            .map(|path| map(read_and_parse(path)))
            .collect();
        for item in mapped {
            if sink(item).is_break() {
                return;
            }
        }
    }
}

/// The command-line path that stands for standard input.
pub const STDIN_ARG: &str = "-";

/// The name standard input goes by in output and messages.
pub const STDIN_NAME: &str = "<stdin>";

/// Reads one file, or standard input for `-`.
pub fn read_named(path: &std::path::Path) -> Result<Source, SourceError> {
    if path.as_os_str() == STDIN_ARG {
        read_stdin()
    } else {
        Source::read(path)
    }
}

/// Reads one file (standard input for `-`) and parses it.
pub fn read_and_parse(path: &std::path::Path) -> FileResult {
    let mut source = read_named(path)?;
    let text = std::mem::take(&mut source.text);
    let parsed = ParsedFile::parse(text);
    Ok((source, parsed))
}

/// Standard input as a source named [`STDIN_NAME`], at most [`MAX_SOURCE_BYTES`] of it.
fn read_stdin() -> Result<Source, SourceError> {
    use std::io::Read;
    let name = PathBuf::from(STDIN_NAME);
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(MAX_SOURCE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| SourceError::Io {
            path: name.clone(),
            reason: crate::files::describe_io_error(&e),
        })?;
    if bytes.len() as u64 > MAX_SOURCE_BYTES {
        return Err(SourceError::TooLarge {
            path: name,
            size: bytes.len() as u64,
            limit: MAX_SOURCE_BYTES,
        });
    }
    Source::from_bytes(&name, bytes)
}

/// Totals reported by `mf parse --stats`.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ParseStats {
    pub files: usize,
    pub clean_files: usize,
    pub error_nodes: usize,
    /// Column-0 declarations in files with parse errors.
    pub declarations_in_unclean_files: usize,
    /// Of those, the ones lost inside ERROR nodes (see [`crate::lean::containment`]).
    pub declarations_lost_to_errors: usize,
    /// Files under a directory skipped because they are not Lean text (binary, not UTF-8).
    pub skipped: usize,
    pub bytes: usize,
    pub seconds: f64,
}

impl ParseStats {
    /// Adds one parsed file of `bytes` bytes with `error_nodes` ERROR/MISSING nodes.
    pub fn add(&mut self, bytes: usize, error_nodes: usize) {
        self.files += 1;
        self.bytes += bytes;
        self.error_nodes += error_nodes;
        if error_nodes == 0 {
            self.clean_files += 1;
        }
    }

    /// Adds how one file's errors were contained.
    pub fn add_containment(&mut self, c: crate::lean::containment::Containment) {
        self.declarations_in_unclean_files += c.column0_declarations;
        self.declarations_lost_to_errors += c.lost_declarations;
    }

    /// Records the wall time since `start`.
    pub fn finish(&mut self, start: Instant) {
        self.seconds = Duration::as_secs_f64(&start.elapsed());
    }

    /// Share of files without ERROR or MISSING nodes, in percent.
    pub fn clean_percent(&self) -> f64 {
        if self.files == 0 {
            100.0
        } else {
            100.0 * self.clean_files as f64 / self.files as f64
        }
    }
}
