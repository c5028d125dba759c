//! `completions SHELL` and `man` for both binaries, generated from their clap definitions.

use std::io::Write;

use clap_complete::Shell;

/// Arguments of `completions`.
#[derive(clap::Args, Debug)]
pub struct GenerateArgs {
    /// The shell to complete for
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Writes `shell`'s completion script for `command` (named `bin`) to `out`.
pub fn completions(
    mut command: clap::Command,
    bin: &str,
    shell: Shell,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    clap_complete::generate(shell, &mut command, bin, out);
    out.flush()
}

/// Writes `command`'s man page (roff) to `out`.
pub fn man(command: clap::Command, out: &mut dyn Write) -> std::io::Result<()> {
    clap_mangen::Man::new(command).render(out)?;
    out.flush()
}
