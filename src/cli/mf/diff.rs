//! `mf diff` (being written).

use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args)]
pub struct DiffArgs {}

pub fn run(_args: DiffArgs) -> Result<ExitCode> {
    anyhow::bail!("`mf diff` is not available in this build yet")
}
