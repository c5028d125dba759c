//! `mf extract` (being written).

use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args)]
pub struct ExtractArgs {}

pub fn run(_args: ExtractArgs) -> Result<ExitCode> {
    anyhow::bail!("`mf extract` is not available in this build yet")
}
