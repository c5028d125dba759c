//! `mf lint` (being written).

use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args)]
pub struct LintArgs {}

pub fn run(_args: LintArgs) -> Result<ExitCode> {
    anyhow::bail!("`mf lint` is not available in this build yet")
}
