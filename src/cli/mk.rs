//! The `mk` command.

use std::process::ExitCode;

/// Entry point of `mk`.
pub fn main() -> ExitCode {
    ExitCode::SUCCESS
}
