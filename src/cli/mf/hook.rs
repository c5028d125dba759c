//! `mf hook` (being written).

use std::process::ExitCode;

use anyhow::Result;

#[derive(clap::Args)]
pub struct HookArgs {}

pub fn run(_args: HookArgs) -> Result<ExitCode> {
    anyhow::bail!("`mf hook` is not available in this build yet")
}
