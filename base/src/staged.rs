//! Outputs written whole or not at all: a [`Staged`] output is written to a
//! temporary sibling of its target (same folder, so same file system), then
//! renamed over the target by [`Staged::commit`]. A failed or interrupted
//! write leaves the old target as it was, and a reader never sees half an
//! output, or a folder that mixes a new file with old ones. Renaming
//! replaces a symbolic link at the target; it never writes through it.
//!
//! Siblings are named `.coco-tmp-TOKEN` (and `.coco-old-TOKEN` while a
//! folder is being replaced), TOKEN 16 random hexadecimal digits: short, so
//! that any target name the file system accepts (up to 255 bytes) has a
//! sibling it accepts too. The writer holds an advisory lock (`flock`) on
//! each sibling while it lives; a later [`Staged`] in the same folder
//! removes the siblings whose lock it can take, those of a writer that was
//! killed. A held lock proves a live writer even in another PID namespace
//! (a container sharing the folder), where its pid would say nothing.
//! A sibling is locked before it takes its name, as `.coco-new-TOKEN`,
//! which no sweep touches: a writer killed in that instant leaves one such
//! empty file behind rather than ever letting a sweep take a live sibling.

use std::{
    collections::hash_map::RandomState,
    fs::File,
    hash::{BuildHasher, Hasher},
    io,
    path::{Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

/// The prefixes of the siblings' names.
const TEMP: &str = ".coco-tmp-";
const OLD: &str = ".coco-old-";
/// A sibling's name from its creation until it is locked: no sweep looks
/// at it, so none can take it in the instant before its writer's lock.
const NEW: &str = ".coco-new-";

/// A file or folder being written at [`Staged::path`], to become `target`.
pub struct Staged {
    temp: PathBuf,
    target: PathBuf,
    dir: bool,
    committed: bool,
    /// The sibling, open and locked while this writer lives.
    _lock: Option<File>,
}

/// 16 hexadecimal digits, unique in practice: the standard library's
/// randomly keyed hasher over the pid, a counter and the time.
pub fn token() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u32(std::process::id());
    hasher.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    if let Ok(now) = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH) {
        hasher.write_u128(now.as_nanos());
    }
    format!("{:016x}", hasher.finish())
}

fn sibling(target: &Path, kind: &str) -> PathBuf {
    target.with_file_name(format!("{kind}{}", token()))
}

/// A temporary sibling of `target`, made by `create` and locked before it
/// takes its sibling name. Created under its sibling name, it would be
/// unlocked for an instant, and another writer's sweep in the same folder
/// (two pipeline stages writing their outputs at once) could take its
/// lock and remove it under its writer. The lock is on the file, so it
/// holds across the rename.
fn create_locked(
    target: &Path,
    create: impl Fn(&Path) -> io::Result<()>,
) -> io::Result<(PathBuf, File)> {
    let token = token();
    let fresh = target.with_file_name(format!("{NEW}{token}"));
    create(&fresh)?;
    let staged = locked(&fresh).and_then(|lock| {
        let temp = target.with_file_name(format!("{TEMP}{token}"));
        std::fs::rename(&fresh, &temp)?;
        Ok((temp, lock))
    });
    if staged.is_err() {
        remove(&fresh);
    }
    staged
}

/// Whether `name` is a sibling's name: a prefix and 16 hexadecimal digits.
fn is_sibling(name: &str) -> bool {
    [TEMP, OLD].iter().any(|prefix| {
        name.strip_prefix(prefix)
            .is_some_and(|t| t.len() == 16 && t.bytes().all(|b| b.is_ascii_hexdigit()))
    })
}

/// Removes the siblings in `parent` whose writer is gone: those whose lock
/// this process can take.
fn remove_stale(target: &Path) {
    let parent = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        if !entry.file_name().to_str().is_some_and(is_sibling) {
            continue;
        }
        let path = entry.path();
        let Ok(file) = crate::file::open_for_lock(&path) else {
            continue;
        };
        // Held: its writer is alive, in whatever PID namespace.
        if crate::file::try_lock(&file).unwrap_or(false) {
            remove(&path);
        }
    }
}

fn remove(path: &Path) {
    let _ = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(_) => Ok(()),
    };
}

/// `path`, just created by this process, opened and locked. Where the file
/// system has no locks (`flock` fails), unlocked: a sweep cannot take the
/// lock there either, so it leaves the sibling alone.
fn locked(path: &Path) -> io::Result<File> {
    let file = crate::file::open_for_lock(path)?;
    let _ = crate::file::lock(&file);
    Ok(file)
}

impl Staged {
    /// An empty file, created at [`Staged::path`] for the caller to write
    /// (`File::create` or `std::fs::write` on it). Fails when the folder
    /// does not exist or cannot be written.
    pub fn file(target: &Path) -> io::Result<Staged> {
        remove_stale(target);
        let (temp, lock) = create_locked(target, |path| {
            std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
                .map(drop)
        })?;
        Ok(Staged {
            temp,
            target: target.to_path_buf(),
            dir: false,
            committed: false,
            _lock: Some(lock),
        })
    }

    /// An empty folder, created at [`Staged::path`].
    pub fn dir(target: &Path) -> io::Result<Staged> {
        remove_stale(target);
        let (temp, lock) = create_locked(target, |path| std::fs::create_dir(path))?;
        Ok(Staged {
            temp,
            target: target.to_path_buf(),
            dir: true,
            committed: false,
            _lock: Some(lock),
        })
    }

    /// Where to write.
    pub fn path(&self) -> &Path {
        &self.temp
    }

    /// Puts the written output in place of the target. A file replaces a
    /// file; a folder replaces a folder (the caller decides whether the old
    /// one may go), which is renamed aside first and removed after, so the
    /// target is the old folder or the new one, except for the instant
    /// between two renames.
    pub fn commit(mut self) -> io::Result<()> {
        if !self.dir || !self.target.is_dir() {
            std::fs::rename(&self.temp, &self.target)?;
            self.committed = true;
            return Ok(());
        }
        let old = sibling(&self.target, OLD);
        // Locked while aside, so that no other writer's sweep takes it.
        let _old_lock = locked(&self.target)?;
        std::fs::rename(&self.target, &old)?;
        if let Err(e) = std::fs::rename(&self.temp, &self.target) {
            let _ = std::fs::rename(&old, &self.target);
            return Err(e);
        }
        self.committed = true;
        remove(&old);
        Ok(())
    }
}

/// Writes `bytes` to the file `target`, whole or not at all: the one way
/// coco writes a file that a user names (`-o FILE`, `--pytest FILE`, a
/// tile table). A symbolic link at `target` is replaced by the file, never
/// written through, so a planted link (dangling or not) cannot lead the
/// write outside; a regular file keeps its permissions. A FIFO, a device,
/// a socket or a folder at `target` is refused ([`NotAFile`] says which):
/// writing into one in place would block, or write somewhere other than a
/// file, and standard output is the tools' `-o -`.
pub fn write_file(target: &Path, bytes: &[u8]) -> io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let permissions = match std::fs::symlink_metadata(target) {
        Ok(meta) if meta.file_type().is_symlink() => None,
        Ok(meta) if meta.is_file() => Some(meta.permissions()),
        Ok(meta) => return Err(io::Error::other(NotAFile(crate::file::kind(&meta)))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let staged = Staged::file(target)?;
    // The sibling was created exclusively a moment ago; opened without
    // following links and without blocking, so that one swapped in since
    // is refused rather than written through.
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(staged.path())?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other(NotAFile("a special file")));
    }
    file.write_all(bytes)?;
    if let Some(permissions) = permissions {
        file.set_permissions(permissions)?;
    }
    drop(file);
    staged.commit()
}

/// Why [`write_file`] refused its target: what the target is, in
/// [`crate::file::kind`]'s words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotAFile(pub &'static str);

impl std::fmt::Display for NotAFile {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "it is {}, and coco writes only regular files", self.0)
    }
}

impl std::error::Error for NotAFile {}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            remove(&self.temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test's own folder, removed when the test ends, passed or not.
    struct Scratch(PathBuf);

    impl std::ops::Deref for Scratch {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl AsRef<Path> for Scratch {
        fn as_ref(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn scratch(name: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("coco-staged-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_file_appears_whole_and_a_dropped_one_not_at_all() {
        let dir = scratch("file");
        let target = dir.join("out.txt");
        std::fs::write(&target, "old").unwrap();
        let staged = Staged::file(&target).unwrap();
        std::fs::write(staged.path(), "new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        staged.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");

        let staged = Staged::file(&target).unwrap();
        std::fs::write(staged.path(), "half").unwrap();
        drop(staged);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names(&dir), ["out.txt"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folder_replaces_the_old_one_only_when_committed() {
        let dir = scratch("dir");
        let target = dir.join("b");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("stale.txt"), "").unwrap();
        let staged = Staged::dir(&target).unwrap();
        std::fs::write(staged.path().join("new.txt"), "").unwrap();
        drop(staged);
        assert_eq!(names(&target), ["stale.txt"]);

        let staged = Staged::dir(&target).unwrap();
        std::fs::write(staged.path().join("new.txt"), "").unwrap();
        staged.commit().unwrap();
        assert_eq!(names(&target), ["new.txt"]);
        assert_eq!(names(&dir), ["b"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_link_at_the_target_is_replaced_not_followed() {
        let dir = scratch("link");
        let outside = dir.join("outside.txt");
        std::fs::write(&outside, "precious").unwrap();
        let target = dir.join("out.txt");
        std::os::unix::fs::symlink(&outside, &target).unwrap();
        let staged = Staged::file(&target).unwrap();
        std::fs::write(staged.path(), "new").unwrap();
        staged.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
        assert!(!std::fs::symlink_metadata(&target)
            .unwrap()
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn any_name_the_file_system_takes_can_be_staged() {
        let dir = scratch("long");
        // 255 bytes: NAME_MAX, the longest name most file systems take.
        let target = dir.join("n".repeat(255));
        let staged = Staged::file(&target).unwrap();
        std::fs::write(staged.path(), "x").unwrap();
        staged.commit().unwrap();
        let staged = Staged::dir(&dir.join("d".repeat(255))).unwrap();
        staged.commit().unwrap();
        assert_eq!(names(&dir), ["d".repeat(255), "n".repeat(255)]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn writers_in_one_folder_never_remove_each_others_siblings() {
        // Each write sweeps the folder; flock conflicts between open files
        // of one process as between processes, so threads stand in for
        // the ranks that write a pipeline's outputs side by side.
        let dir = scratch("concurrent");
        let writers: Vec<_> = (0..8)
            .map(|w| {
                let dir = dir.to_path_buf();
                std::thread::spawn(move || {
                    for i in 0..200 {
                        let target = dir.join(format!("out{w}-{i}"));
                        let staged = Staged::file(&target).unwrap();
                        std::fs::write(staged.path(), b"x").unwrap();
                        staged.commit().unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        assert_eq!(names(&dir).len(), 8 * 200);
    }

    #[test]
    fn only_siblings_of_gone_writers_are_removed() {
        let dir = scratch("stale");
        let target = dir.join("b");
        // A writer that was killed: its sibling is not locked.
        let dead = dir.join(".coco-tmp-00000000deadbeef");
        std::fs::create_dir(&dead).unwrap();
        std::fs::write(dir.join(".coco-old-0123456789abcdef"), "").unwrap();
        // A live writer (in another PID namespace, say): locked.
        let live = Staged::file(&dir.join("c")).unwrap();
        let live_name = live.path().file_name().unwrap().to_owned();
        // Not a sibling's name: never touched.
        std::fs::write(dir.join(".coco-tmp-thesis"), "mine").unwrap();
        std::fs::write(dir.join(".b.tmp-4194305-0"), "mine").unwrap();
        let staged = Staged::dir(&target).unwrap();
        staged.commit().unwrap();
        let mut expected = vec![
            ".b.tmp-4194305-0".to_string(),
            ".coco-tmp-thesis".to_string(),
            live_name.to_string_lossy().into_owned(),
            "b".to_string(),
        ];
        expected.sort();
        assert_eq!(names(&dir), expected);
        drop(live);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn write_file_replaces_links_and_keeps_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = scratch("write-file");
        let outside = dir.join("outside.txt");
        std::fs::write(&outside, "precious").unwrap();
        let link = dir.join("link.txt");
        std::os::unix::fs::symlink(&outside, &link).unwrap();
        write_file(&link, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
        assert!(std::fs::symlink_metadata(&link).unwrap().is_file());
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "new");

        let dangling = dir.join("dangling.txt");
        std::os::unix::fs::symlink(dir.join("made-through-the-link"), &dangling).unwrap();
        write_file(&dangling, b"new").unwrap();
        assert!(!dir.join("made-through-the-link").exists());
        assert!(std::fs::symlink_metadata(&dangling).unwrap().is_file());

        let script = dir.join("run.sh");
        std::fs::write(&script, "old").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o750)).unwrap();
        write_file(&script, b"new").unwrap();
        let mode = std::fs::metadata(&script).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o750);
        assert_eq!(
            names(&dir),
            ["dangling.txt", "link.txt", "outside.txt", "run.sh"]
        );
    }

    #[test]
    fn write_file_refuses_fifos_devices_and_folders_at_once() {
        let dir = scratch("write-file-special");
        let fifo = dir.join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .is_ok_and(|s| s.success());
        let mut refused = vec![(dir.to_path_buf(), "a directory")];
        if made {
            refused.push((fifo, "a FIFO"));
        }
        if Path::new("/dev/null").exists() {
            refused.push((PathBuf::from("/dev/null"), "a device"));
        }
        for (target, kind) in refused {
            let error = write_file(&target, b"x").unwrap_err();
            let why = error.get_ref().and_then(|e| e.downcast_ref::<NotAFile>());
            assert_eq!(why, Some(&NotAFile(kind)), "{}", target.display());
        }
        assert!(names(&dir).iter().all(|n| !n.starts_with(".coco")));
    }
}
