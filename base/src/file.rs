//! Files read as untrusted input (`.npy` inputs, a bundle's `kernels.so`
//! and `kernels.ptx`): only regular files are opened, so that a FIFO does
//! not block the reader and a link to a device (`/dev/zero`) does not feed
//! it forever, and what a path is instead is said in the error.

use std::{fs::File, fs::Metadata, io, path::Path};

/// For messages: what a path is (`a directory`, `a FIFO`, `a device`, ...).
pub fn kind(metadata: &Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let kind = metadata.file_type();
    if kind.is_file() {
        "a regular file"
    } else if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else {
        "a special file"
    }
}

/// Why [`open_regular`] opened nothing.
#[derive(Debug)]
pub enum OpenError {
    /// The path does not exist or cannot be opened.
    Io(io::Error),
    /// The path (its links followed) is something else: [`kind`]'s words.
    NotRegular(&'static str),
}

impl std::fmt::Display for OpenError {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            OpenError::Io(e) => write!(f, "{e}"),
            OpenError::NotRegular(kind) => write!(f, "{kind} is not a regular file"),
        }
    }
}

/// Opens `path` (links followed) for reading when it is a regular file,
/// with its metadata. It is checked before opening (opening a FIFO waits
/// for a writer) and again on the opened file, in case the path changed in
/// between; the open itself does not block.
pub fn open_regular(path: &Path) -> Result<(File, Metadata), OpenError> {
    use std::os::unix::fs::OpenOptionsExt;
    let before = std::fs::metadata(path).map_err(OpenError::Io)?;
    if !before.is_file() {
        return Err(OpenError::NotRegular(kind(&before)));
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nonblocking())
        .open(path)
        .map_err(OpenError::Io)?;
    let metadata = file.metadata().map_err(OpenError::Io)?;
    if !metadata.is_file() {
        return Err(OpenError::NotRegular(kind(&metadata)));
    }
    Ok((file, metadata))
}

/// `O_NONBLOCK`: no effect on a regular file, and no wait on a FIFO
/// swapped in after the first check.
fn nonblocking() -> i32 {
    libc::O_NONBLOCK
}

/// Opens `path`, a file or folder itself (a link is refused, not
/// followed), without blocking, to take its lock ([`try_lock`]).
pub fn open_for_lock(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let meta = std::fs::symlink_metadata(path)?;
    if !(meta.is_file() || meta.is_dir()) {
        return Err(io::Error::other(format!(
            "{} is not a file or folder",
            kind(&meta)
        )));
    }
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
        .open(path)
}

/// Takes the exclusive advisory lock (`flock`) on `file`, waiting for it.
/// A lock belongs to the open file: it is released when every descriptor
/// of it is closed, so when its process ends, however it ends.
pub fn lock(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    loop {
        // SAFETY: flock(2) on a descriptor `file` owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } == 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// Takes the exclusive advisory lock on `file` if nobody holds it:
/// `Ok(false)` when another open file (of any process, in any PID
/// namespace of this machine, or on another machine of a shared file
/// system that supports locks) holds it.
pub fn try_lock(file: &File) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock(2) on a descriptor `file` owns.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let error = io::Error::last_os_error();
    if error.raw_os_error() == Some(libc::EWOULDBLOCK) {
        Ok(false)
    } else {
        Err(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_open() {
        let dir = std::env::temp_dir().join(format!("coco-file-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let plain = dir.join("plain");
        std::fs::write(&plain, "x").unwrap();
        assert_eq!(open_regular(&plain).unwrap().1.len(), 1);
        // One open file holds the lock; another (this process's too) cannot
        // take it until the first is closed.
        let holder = open_for_lock(&plain).unwrap();
        lock(&holder).unwrap();
        assert!(!try_lock(&open_for_lock(&plain).unwrap()).unwrap());
        drop(holder);
        assert!(try_lock(&open_for_lock(&plain).unwrap()).unwrap());
        let zero = dir.join("zero");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        let error = open_regular(&zero).unwrap_err().to_string();
        assert_eq!(error, "a device is not a regular file");
        assert!(open_for_lock(&zero).is_err());
        let fifo = dir.join("fifo");
        if std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success())
        {
            let error = open_regular(&fifo).unwrap_err().to_string();
            assert_eq!(error, "a FIFO is not a regular file");
        }
        let error = open_regular(&dir).unwrap_err().to_string();
        assert_eq!(error, "a directory is not a regular file");
        assert!(matches!(
            open_regular(&dir.join("absent")),
            Err(OpenError::Io(e)) if e.kind() == io::ErrorKind::NotFound
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
