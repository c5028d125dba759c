//! `mf splice` (being written).

use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args)]
pub struct SpliceArgs {}

pub fn run(_args: SpliceArgs) -> Result<ExitCode> {
    anyhow::bail!("`mf splice` is not available in this build yet")
}
