//! Reading and replacing users' files safely.
//!
//! Reads take regular files only (a FIFO, device or socket named as a source would block or
//! never end) and are bounded. Replacing a file takes an advisory lock, re-checks that the
//! content is still what was read, writes a temporary file beside it and renames it over,
//! keeping mode and owner; a file with several hard links is rewritten in place under the lock
//! so that every link sees the change. Read-only files are refused.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{Read, Seek, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Why a user's file could not be read or replaced; each renders as one line naming the path.
#[derive(Debug)]
pub enum FileError {
    Missing {
        path: PathBuf,
    },
    NotRegular {
        path: PathBuf,
        kind: &'static str,
    },
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
    ReadOnly {
        path: PathBuf,
    },
    Changed {
        path: PathBuf,
    },
    Io {
        path: PathBuf,
        reason: String,
    },
}

impl std::fmt::Display for FileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path().display(), self.reason())
    }
}

impl std::error::Error for FileError {}

impl FileError {
    /// The path the error is about.
    pub fn path(&self) -> &Path {
        match self {
            FileError::Missing { path }
            | FileError::NotRegular { path, .. }
            | FileError::TooLarge { path, .. }
            | FileError::ReadOnly { path }
            | FileError::Changed { path }
            | FileError::Io { path, .. } => path,
        }
    }

    /// What went wrong, without the path.
    pub fn reason(&self) -> String {
        match self {
            FileError::Missing { .. } => "no such file or directory".into(),
            FileError::NotRegular { kind, .. } => {
                format!("is {kind}, not a regular file; give the path of a file")
            }
            FileError::TooLarge { size, limit, .. } => {
                format!("{size} bytes, over the {limit}-byte limit")
            }
            FileError::ReadOnly { .. } => {
                "is read-only; make it writable (chmod u+w) to change it".into()
            }
            FileError::Changed { .. } => {
                "changed while mf was working on it; nothing written, run the command again".into()
            }
            FileError::Io { reason, .. } => reason.clone(),
        }
    }

    fn io(path: &Path, e: &std::io::Error) -> FileError {
        if e.kind() == std::io::ErrorKind::NotFound {
            return FileError::Missing {
                path: path.to_path_buf(),
            };
        }
        FileError::Io {
            path: path.to_path_buf(),
            reason: describe_io_error(e),
        }
    }
}

/// Turns an I/O error into the short phrase users expect ("no such file", "permission denied").
pub fn describe_io_error(e: &std::io::Error) -> String {
    use std::io::ErrorKind::*;
    match e.kind() {
        NotFound => "no such file or directory".into(),
        PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// What a non-regular file is, for messages (`None` for a regular file).
pub fn kind_of(meta: &Metadata) -> Option<&'static str> {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_file() {
        None
    } else if t.is_dir() {
        Some("a directory")
    } else if t.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if t.is_char_device() {
        Some("a character device")
    } else if t.is_block_device() {
        Some("a block device")
    } else if t.is_socket() {
        Some("a socket")
    } else {
        Some("not a file")
    }
}

/// Opens `path` for reading if it is a regular file: the type is checked before opening, and
/// the open does not block (`O_NONBLOCK`), so a FIFO swapped in meanwhile cannot hang it; the
/// opened descriptor's type is checked again.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), FileError> {
    let meta = std::fs::metadata(path).map_err(|e| FileError::io(path, &e))?;
    if let Some(kind) = kind_of(&meta) {
        return Err(FileError::NotRegular {
            path: path.to_path_buf(),
            kind,
        });
    }
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| FileError::io(path, &e))?;
    let meta = file.metadata().map_err(|e| FileError::io(path, &e))?;
    if let Some(kind) = kind_of(&meta) {
        return Err(FileError::NotRegular {
            path: path.to_path_buf(),
            kind,
        });
    }
    Ok((file, meta))
}

/// The bytes of the regular file at `path`, at most `limit` of them.
pub fn read_regular(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let (file, meta) = open_regular(path)?;
    read_bounded(path, file, meta.len(), limit)
}

fn read_bounded(path: &Path, file: File, size: u64, limit: u64) -> Result<Vec<u8>, FileError> {
    let too_large = |size| FileError::TooLarge {
        path: path.to_path_buf(),
        size,
        limit,
    };
    if size > limit {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| FileError::io(path, &e))?;
    if bytes.len() as u64 > limit {
        // It grew while being read.
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// A regular file held under an exclusive advisory lock (`flock`) until dropped, with the
/// content it had when the lock was taken.
pub struct Locked {
    /// The file's real path (symbolic links followed): what is replaced.
    target: PathBuf,
    file: File,
    meta: Metadata,
    /// The content read under the lock.
    pub bytes: Vec<u8>,
}

/// Locks the regular file at `path` and reads it (at most `limit` bytes). Writers that use
/// this wait for each other; the lock is released when the [`Locked`] is dropped.
pub fn lock(path: &Path, limit: u64) -> Result<Locked, FileError> {
    let target = std::fs::canonicalize(path).map_err(|e| FileError::io(path, &e))?;
    // A writer that renamed a new file over the path while this one waited for the lock
    // leaves it holding the old inode: open again until the locked inode is the path's.
    for _ in 0..100 {
        let (file, meta) = open_regular(&target)?;
        flock_within(&file, path, LOCK_WAIT)?;
        let now = std::fs::metadata(&target).map_err(|e| FileError::io(path, &e))?;
        if now.ino() != meta.ino() || now.dev() != meta.dev() {
            continue;
        }
        let meta = file.metadata().map_err(|e| FileError::io(path, &e))?;
        let reader = &file;
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        reader
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| FileError::io(path, &e))?;
        if bytes.len() as u64 > limit {
            return Err(FileError::TooLarge {
                path: path.to_path_buf(),
                size: bytes.len() as u64,
                limit,
            });
        }
        return Ok(Locked {
            target,
            file,
            meta,
            bytes,
        });
    }
    Err(FileError::Changed {
        path: path.to_path_buf(),
    })
}

/// How long [`lock`] waits for another writer of the same file.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Takes an exclusive `flock` on `file`, polling, for at most `wait`.
pub(crate) fn flock_within(
    file: &File,
    path: &Path,
    wait: std::time::Duration,
) -> Result<(), FileError> {
    let start = std::time::Instant::now();
    loop {
        // SAFETY: flock on a descriptor the caller owns.
        let got = unsafe {
            libc::flock(
                std::os::fd::AsRawFd::as_raw_fd(file),
                libc::LOCK_EX | libc::LOCK_NB,
            )
        };
        if got == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.raw_os_error() != Some(libc::EWOULDBLOCK)
            && e.kind() != std::io::ErrorKind::Interrupted
        {
            return Err(FileError::io(path, &e));
        }
        if start.elapsed() >= wait {
            return Err(FileError::Io {
                path: path.to_path_buf(),
                reason: format!(
                    "another process has been changing it for {} ms; try again",
                    start.elapsed().as_millis()
                ),
            });
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

impl Locked {
    /// Replaces the content with `new`, if the file still holds what was read (a writer that
    /// takes no lock, such as an editor, may have changed it). Keeps mode, owner and hard
    /// links; refuses a read-only file. `shown` is the path used in messages.
    pub fn replace(self, shown: &Path, new: &[u8]) -> Result<(), FileError> {
        let io = |e: std::io::Error| FileError::io(shown, &e);
        if self.meta.permissions().mode() & 0o222 == 0 || !writable(&self.target) {
            return Err(FileError::ReadOnly {
                path: shown.to_path_buf(),
            });
        }
        let current = read_regular(&self.target, self.bytes.len() as u64 + 1).map_err(|_| {
            FileError::Changed {
                path: shown.to_path_buf(),
            }
        })?;
        if blake3::hash(&current) != blake3::hash(&self.bytes) {
            return Err(FileError::Changed {
                path: shown.to_path_buf(),
            });
        }
        if self.meta.nlink() > 1 {
            // A rename would split the links: rewrite this inode in place, under the lock.
            let mut file = OpenOptions::new()
                .write(true)
                .open(&self.target)
                .map_err(io)?;
            file.set_len(0).map_err(io)?;
            file.rewind().map_err(io)?;
            file.write_all(new).map_err(io)?;
            return file.sync_all().map_err(io);
        }
        let dir = self.target.parent().unwrap_or(Path::new("."));
        let mut temp = tempfile::Builder::new()
            .prefix(".mf-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(io)?;
        temp.write_all(new).map_err(io)?;
        temp.as_file().sync_all().map_err(io)?;
        let temp_meta = temp.as_file().metadata().map_err(io)?;
        if (temp_meta.uid(), temp_meta.gid()) != (self.meta.uid(), self.meta.gid()) {
            let owned = std::os::unix::fs::fchown(
                temp.as_file(),
                Some(self.meta.uid()),
                Some(self.meta.gid()),
            );
            if owned.is_err() {
                // The owner cannot be kept by a new file: rewrite this one in place.
                drop(temp);
                let mut file = OpenOptions::new()
                    .write(true)
                    .open(&self.target)
                    .map_err(io)?;
                file.set_len(0).map_err(io)?;
                file.write_all(new).map_err(io)?;
                return file.sync_all().map_err(io);
            }
        }
        std::fs::set_permissions(temp.path(), self.meta.permissions()).map_err(io)?;
        temp.persist(&self.target).map_err(|e| io(e.error))?;
        // The lock on the old inode is released when `self.file` drops, after the rename.
        drop(self.file);
        Ok(())
    }
}

/// Whether this process may write the file (`access(2)`, real ids).
fn writable(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: a valid NUL-terminated path.
    unsafe { libc::access(c.as_ptr(), libc::W_OK) == 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.lean");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read_regular(&fifo, 1024).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!(
                "{}: is a FIFO (named pipe), not a regular file; give the path of a file",
                fifo.display()
            )
        );
        let e = read_regular(Path::new("/dev/zero"), 1024).unwrap_err();
        assert_eq!(
            e.to_string(),
            "/dev/zero: is a character device, not a regular file; give the path of a file"
        );
    }

    #[test]
    fn reads_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("big.lean");
        std::fs::write(&f, vec![b'a'; 100]).unwrap();
        assert_eq!(read_regular(&f, 100).unwrap().len(), 100);
        let e = read_regular(&f, 99).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("{}: 100 bytes, over the 99-byte limit", f.display())
        );
    }

    #[test]
    fn replace_keeps_mode_and_hard_links_and_refuses_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("F.lean");
        std::fs::write(&f, "old").unwrap();
        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o640)).unwrap();
        lock(&f, 1024).unwrap().replace(&f, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new");
        let mode = std::fs::metadata(&f).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);

        let link = dir.path().join("G.lean");
        std::fs::hard_link(&f, &link).unwrap();
        lock(&f, 1024).unwrap().replace(&f, b"linked").unwrap();
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "linked");
        assert_eq!(std::fs::metadata(&f).unwrap().nlink(), 2);

        std::fs::set_permissions(&f, std::fs::Permissions::from_mode(0o444)).unwrap();
        let e = lock(&f, 1024).unwrap().replace(&f, b"x").unwrap_err();
        assert!(matches!(e, FileError::ReadOnly { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "linked");
    }

    /// The owner survives a replace. Only root can give a file to someone else, so the test
    /// has something to check only as root.
    #[test]
    fn replace_keeps_the_owner() {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("F.lean");
        std::fs::write(&f, "old").unwrap();
        std::os::unix::fs::chown(&f, Some(65534), Some(65534)).unwrap();
        lock(&f, 1024).unwrap().replace(&f, b"new").unwrap();
        let meta = std::fs::metadata(&f).unwrap();
        assert_eq!((meta.uid(), meta.gid()), (65534, 65534));
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "new");
    }

    #[test]
    fn a_lock_held_elsewhere_is_waited_for_then_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("F.lean");
        std::fs::write(&f, "old").unwrap();
        let held = lock(&f, 1024).unwrap();
        // flock locks belong to the open file description: a second open contends.
        let other = File::open(&f).unwrap();
        let e = flock_within(&other, &f, std::time::Duration::from_millis(50)).unwrap_err();
        assert!(
            e.to_string()
                .contains("another process has been changing it for"),
            "{e}"
        );
        drop(held);
        flock_within(&other, &f, std::time::Duration::from_millis(50)).unwrap();
    }

    #[test]
    fn a_change_behind_the_lock_is_not_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("F.lean");
        std::fs::write(&f, "old").unwrap();
        let locked = lock(&f, 1024).unwrap();
        // An editor that takes no lock writes meanwhile.
        std::fs::write(&f, "editor").unwrap();
        let e = locked.replace(&f, b"mine").unwrap_err();
        assert!(matches!(e, FileError::Changed { .. }), "{e}");
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "editor");
    }
}
