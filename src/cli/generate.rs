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

/// Arguments of `man`.
#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// Write the page and one per subcommand (the pages it refers to: mf-lint.1, …) into
    /// this directory, instead of printing the main page
    #[arg(long, value_name = "DIR")]
    pub dir: Option<std::path::PathBuf>,
}

/// `man`: the main page on `out`, or with `--dir` every page written into the directory (the
/// main page refers to one per subcommand, `mf-lint(1)`, which then exist) and their names on
/// `out`.
pub fn man(command: clap::Command, args: &ManArgs, out: &mut dyn Write) -> std::io::Result<()> {
    match &args.dir {
        None => clap_mangen::Man::new(command).render(out)?,
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| in_dir(dir, e))?;
            clap_mangen::generate_to(command, dir).map_err(|e| in_dir(dir, e))?;
            let mut pages: Vec<_> = std::fs::read_dir(dir)
                .map_err(|e| in_dir(dir, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "1"))
                .collect();
            pages.sort();
            for page in pages {
                writeln!(out, "{}", page.display())?;
            }
        }
    }
    out.flush()
}

/// An I/O error that names the directory it happened in.
fn in_dir(dir: &std::path::Path, e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("{}: {e}", dir.display()))
}
