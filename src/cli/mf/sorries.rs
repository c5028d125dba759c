//! `mf sorries` (being written).

use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args)]
pub struct SorriesArgs {}

pub fn run(_args: SorriesArgs) -> Result<ExitCode> {
    anyhow::bail!("`mf sorries` is not available in this build yet")
}
