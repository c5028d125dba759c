//! Running `lake env lean FILE` with a time limit.
//!
//! The child runs in its own process group; on timeout the whole group (lake, lean and
//! anything they started) is killed, so no compiler is left running behind the gate.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde::Serialize;

/// How long output readers may take to finish once the process has exited or been killed.
const DRAIN: Duration = Duration::from_secs(5);

/// Files that mark the root of a Lake project.
const LAKEFILES: &[&str] = &["lakefile.lean", "lakefile.toml"];

/// What one run of Lean did.
#[derive(Debug, Clone, Serialize)]
pub struct LeanRun {
    /// The command line, program first.
    pub command: Vec<String>,
    /// The directory it ran in.
    pub project: String,
    /// The exit code, when the process exited on its own.
    pub exit_code: Option<i32>,
    /// The signal that ended it, when one did.
    pub signal: Option<i32>,
    pub timed_out: bool,
    pub seconds: f64,
    /// Bytes of output not kept: of each stream only the first and last 4 MiB are read into
    /// memory, and `output` marks where the rest was dropped.
    pub dropped_bytes: u64,
    /// stdout, a newline, then stderr (Lean splits its messages between the two).
    #[serde(skip)]
    pub output: String,
}

/// The first executable called `program` on `$PATH`.
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| is_executable(p))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// The nearest directory at or above `file`'s directory that holds a lakefile.
pub fn find_project(file: &Path) -> Option<PathBuf> {
    let start = file.parent()?;
    start
        .ancestors()
        .find(|dir| LAKEFILES.iter().any(|f| dir.join(f).is_file()))
        .map(Path::to_path_buf)
}

/// Runs `LAKE env lean FILE` in `project`, killing it after `timeout`.
pub fn run_lean(
    lake: &Path,
    project: &Path,
    file: &Path,
    timeout: Duration,
) -> std::io::Result<LeanRun> {
    let started = Instant::now();
    let mut command = Command::new(lake);
    command
        .args(["env", "lean"])
        .arg(file)
        .current_dir(project)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        command.process_group(0);
    }
    let mut child = command.spawn()?;
    let pid = child.id();
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());

    let (done_tx, done_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done_tx.send(child.wait());
    });
    let (status, timed_out) = match done_rx.recv_timeout(timeout) {
        Ok(status) => (status?, false),
        Err(_) => {
            kill_group(pid);
            let status = done_rx
                .recv()
                .map_err(|_| std::io::Error::other("lost the lean process"))??;
            (status, true)
        }
    };
    // Anything the run left behind would keep the output pipes open.
    kill_group(pid);
    let stdout = stdout.recv_timeout(DRAIN).unwrap_or_default();
    let stderr = stderr.recv_timeout(DRAIN).unwrap_or_default();
    let mut output = stdout.text();
    output.push('\n');
    output.push_str(&stderr.text());

    let (exit_code, signal) = describe(status);
    Ok(LeanRun {
        command: vec![
            lake.display().to_string(),
            "env".into(),
            "lean".into(),
            file.display().to_string(),
        ],
        project: project.display().to_string(),
        exit_code,
        signal,
        timed_out,
        seconds: started.elapsed().as_secs_f64(),
        dropped_bytes: stdout.dropped + stderr.dropped,
        output,
    })
}

/// Bytes of each output stream kept from its start, and from its end: Lean's messages are
/// small, and a run that prints gigabytes must not hold them all in memory.
const KEEP_HEAD: usize = 4 * 1024 * 1024;
const KEEP_TAIL: usize = 4 * 1024 * 1024;

/// One output stream, bounded: its head, its tail, and how many bytes between them were
/// dropped.
#[derive(Debug, Default)]
struct Captured {
    head: Vec<u8>,
    tail: Vec<u8>,
    dropped: u64,
}

impl Captured {
    fn read_from(pipe: &mut impl Read, keep_head: usize, keep_tail: usize) -> Captured {
        let mut c = Captured::default();
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            let n = match pipe.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            };
            let mut chunk = &buf[..n];
            let room = keep_head - c.head.len();
            let taken = room.min(chunk.len());
            c.head.extend_from_slice(&chunk[..taken]);
            chunk = &chunk[taken..];
            c.tail.extend_from_slice(chunk);
            // Trim the tail only once it is twice the size kept: linear overall.
            if c.tail.len() > 2 * keep_tail.max(1) {
                let cut = c.tail.len() - keep_tail;
                c.dropped += cut as u64;
                c.tail.drain(..cut);
            }
        }
        if c.tail.len() > keep_tail {
            let cut = c.tail.len() - keep_tail;
            c.dropped += cut as u64;
            c.tail.drain(..cut);
        }
        c
    }

    /// The text kept, with a line saying what was dropped in between.
    fn text(&self) -> String {
        let mut out = String::from_utf8_lossy(&self.head).into_owned();
        if self.dropped > 0 {
            out.push_str(&format!(
                "\n[mf: {} bytes of output dropped here]\n",
                self.dropped
            ));
        }
        out.push_str(&String::from_utf8_lossy(&self.tail));
        out
    }
}

/// Reads a pipe to its end on a thread, keeping its head and tail; the result arrives on the
/// returned channel.
fn drain(pipe: Option<impl Read + Send + 'static>) -> mpsc::Receiver<Captured> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let captured = match pipe {
            Some(mut pipe) => Captured::read_from(&mut pipe, KEEP_HEAD, KEEP_TAIL),
            None => Captured::default(),
        };
        let _ = tx.send(captured);
    });
    rx
}

#[cfg(unix)]
fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) has no memory effects; a negative pid names the process group the
        // child leads (it was started with process_group(0)).
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
fn kill_group(_pid: u32) {}

fn describe(status: ExitStatus) -> (Option<i32>, Option<i32>) {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        (status.code(), status.signal())
    }
    #[cfg(not(unix))]
    {
        (status.code(), None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_keeps_head_and_tail_and_counts_the_rest() {
        let data: Vec<u8> = (0..1000u32)
            .flat_map(|i| format!("{i:04}\n").into_bytes())
            .collect();
        let c = Captured::read_from(&mut &data[..], 10, 10);
        assert_eq!(c.head, b"0000\n0001\n");
        assert_eq!(c.tail, b"0998\n0999\n");
        assert_eq!(c.dropped, 5000 - 20);
        assert_eq!(
            c.text(),
            "0000\n0001\n\n[mf: 4980 bytes of output dropped here]\n0998\n0999\n"
        );
        let small = Captured::read_from(&mut &b"short"[..], 10, 10);
        assert_eq!((small.text(), small.dropped), ("short".to_string(), 0));
    }
}
