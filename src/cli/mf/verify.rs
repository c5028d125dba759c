//! `mf verify` (being written).

use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args)]
pub struct VerifyArgs {}

pub fn run(_args: VerifyArgs) -> Result<ExitCode> {
    anyhow::bail!("`mf verify` is not available in this build yet")
}
