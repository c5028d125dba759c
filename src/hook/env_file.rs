//! `$CLAUDE_ENV_FILE`: the lines SessionStart hands to the session's shell.
//!
//! Claude Code sources this file before each Bash command, so what SessionStart appends here
//! is what `mk` in the agent's shell sees: the same knowledge.db the hooks use, and `mf`/`mk`
//! on PATH. The file must be a regular file: a FIFO or device named by the variable is refused
//! without blocking (opened non-blocking, checked with `fstat` on the open handle).

use std::io::{Read, Write};
use std::path::Path;

/// Largest env file read back to find lines already there.
const MAX_ENV_FILE_BYTES: u64 = 1024 * 1024;

/// `export NAME='value'` with the value single-quoted for POSIX shells.
pub fn export_line(name: &str, value: &str) -> String {
    format!("export {name}={}\n", shell_quote(value))
}

/// `export PATH='dir':"$PATH"`.
pub fn path_line(dir: &Path) -> String {
    format!(
        "export PATH={}:\"$PATH\"\n",
        shell_quote(&dir.to_string_lossy())
    )
}

/// Appends each line not yet in the file (a resumed or compacted session runs SessionStart
/// again with the same file). Creates the file when missing; refuses anything but a regular
/// file.
pub fn append_lines(env_file: &Path, lines: &[String]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true).append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A FIFO without a reader would block `open` for writing forever.
        options.custom_flags(libc::O_NONBLOCK);
    }
    let mut f = options.open(env_file)?;
    if let Some(kind) = crate::files::kind_of(&f.metadata()?) {
        return Err(std::io::Error::other(format!(
            "is {kind}, not a regular file; the session's shell does not get the exports"
        )));
    }
    let mut existing = String::new();
    (&mut f)
        .take(MAX_ENV_FILE_BYTES)
        .read_to_string(&mut existing)
        .map_err(|e| std::io::Error::other(format!("cannot read it: {e}")))?;
    let mut out = String::new();
    if !existing.is_empty() && !existing.ends_with('\n') {
        out.push('\n');
    }
    let missing: Vec<&String> = lines
        .iter()
        .filter(|l| !existing.lines().any(|e| format!("{e}\n") == **l))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    for l in missing {
        out.push_str(l);
    }
    f.write_all(out.as_bytes())
}

/// Single-quotes a string for POSIX shells.
fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_quoted_and_appended_once() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("env");
        std::fs::write(&file, "export A=1").unwrap();
        let lines = [
            path_line(Path::new("/opt/it's here/bin")),
            export_line("MATH_FORGE_DB", "/d/k.db"),
        ];
        append_lines(&file, &lines).unwrap();
        append_lines(&file, &lines).unwrap();
        assert_eq!(
            std::fs::read_to_string(&file).unwrap(),
            "export A=1\nexport PATH='/opt/it'\\''s here/bin':\"$PATH\"\nexport MATH_FORGE_DB='/d/k.db'\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let err = append_lines(&fifo, &[export_line("A", "b")]).unwrap_err();
        assert!(
            err.to_string().contains("not a regular file")
                || err.raw_os_error() == Some(libc::ENXIO),
            "{err}"
        );
    }
}
