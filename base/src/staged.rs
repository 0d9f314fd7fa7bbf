//! Outputs written whole or not at all: a [`Staged`] output is written to a
//! temporary sibling of its target (same folder, so same file system), then
//! renamed over the target by [`Staged::commit`]. A failed or interrupted
//! write leaves the old target as it was, and a reader never sees half an
//! output, or a folder that mixes a new file with old ones.
//!
//! Siblings are named `.NAME.tmp-PID-N` (and `.NAME.old-PID-N` while a
//! folder is being replaced). They are removed on drop; those of a process
//! that was killed are removed by the next [`Staged`] of the same target.

use std::{
    io,
    path::{Path, PathBuf},
    sync::atomic::{AtomicUsize, Ordering},
};

/// A file or folder being written at [`Staged::path`], to become `target`.
pub struct Staged {
    temp: PathBuf,
    target: PathBuf,
    dir: bool,
    committed: bool,
}

fn sibling(target: &Path, kind: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let name = target
        .file_name()
        .map_or("output".into(), |n| n.to_string_lossy().into_owned());
    target.with_file_name(format!(".{name}.{kind}-{}-{n}", std::process::id()))
}

/// Removes siblings of `target` left by processes that no longer exist.
fn remove_stale(target: &Path) {
    let (Some(name), Some(parent)) = (target.file_name(), target.parent()) else {
        return;
    };
    let proc = Path::new("/proc");
    if !proc.join("self").exists() {
        return; // no way to tell a live writer from a dead one
    }
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let Some(rest) = file_name.to_str().and_then(|n| n.strip_prefix(&prefix)) else {
            continue;
        };
        let Some(pid) = ["tmp-", "old-"]
            .iter()
            .find_map(|kind| rest.strip_prefix(kind))
            .and_then(|r| r.split('-').next())
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !proc.join(pid.to_string()).exists() {
            remove(&entry.path());
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

impl Staged {
    /// A file to write at [`Staged::path`] (the caller creates it).
    pub fn file(target: &Path) -> Staged {
        remove_stale(target);
        Staged {
            temp: sibling(target, "tmp"),
            target: target.to_path_buf(),
            dir: false,
            committed: false,
        }
    }

    /// An empty folder, created at [`Staged::path`].
    pub fn dir(target: &Path) -> io::Result<Staged> {
        remove_stale(target);
        let staged = Staged {
            temp: sibling(target, "tmp"),
            target: target.to_path_buf(),
            dir: true,
            committed: false,
        };
        std::fs::create_dir(&staged.temp)?;
        Ok(staged)
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
        let old = sibling(&self.target, "old");
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

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("coco-staged-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
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
        let staged = Staged::file(&target);
        std::fs::write(staged.path(), "new").unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        staged.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");

        let staged = Staged::file(&target);
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
    fn leftovers_of_dead_processes_are_removed() {
        let dir = scratch("stale");
        let target = dir.join("b");
        // A pid above the kernel's limit (pid_max <= 2^22) is never alive.
        std::fs::create_dir(dir.join(".b.tmp-4194305-0")).unwrap();
        std::fs::create_dir(dir.join(".c.tmp-4194305-0")).unwrap();
        let staged = Staged::dir(&target).unwrap();
        staged.commit().unwrap();
        assert_eq!(names(&dir), [".c.tmp-4194305-0", "b"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
