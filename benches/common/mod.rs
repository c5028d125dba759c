//! Shared by the benchmarks: where the real corpus is.

use std::path::PathBuf;

/// `../shared/corpus` beside the project, or `$MF_CORPUS`.
pub fn corpus_dir() -> PathBuf {
    let dir = std::env::var_os("MF_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    assert!(
        dir.is_dir(),
        "corpus not found at {}; set MF_CORPUS",
        dir.display()
    );
    dir
}
