//! The `mf` command.

use std::process::ExitCode;

/// Entry point of `mf`.
pub fn main() -> ExitCode {
    ExitCode::SUCCESS
}
