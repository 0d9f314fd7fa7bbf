//! A private directory per case, with a snapshot of every file in it, so
//! that a run that writes or deletes outside the output directory it was
//! given is caught: the snapshot before and after must differ only inside
//! the directories the case allows.

use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

pub struct Sandbox {
    pub root: PathBuf,
}

/// Path (relative to the sandbox) → content hash (`None` for directories,
/// FIFOs and other non-files; symlinks by their target).
pub type Snapshot = BTreeMap<PathBuf, Option<u64>>;

impl Sandbox {
    /// A fresh, empty directory `base/name` (an old one is removed: the
    /// harness owns everything under its output directory).
    pub fn new(base: &Path, name: &str) -> std::io::Result<Sandbox> {
        let root = base.join(name);
        if root.exists() {
            remove_all(&root)?;
        }
        std::fs::create_dir_all(&root)?;
        Ok(Sandbox { root })
    }

    pub fn path(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    pub fn write(&self, relative: &str, bytes: &[u8]) -> std::io::Result<PathBuf> {
        let path = self.path(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, bytes)?;
        Ok(path)
    }

    pub fn snapshot(&self) -> Snapshot {
        let mut snapshot = Snapshot::new();
        walk(&self.root, &self.root, &mut snapshot);
        snapshot
    }

    /// What changed between `before` and now outside the `allowed`
    /// directories (relative to the sandbox): one line per path.
    pub fn changes_outside(&self, before: &Snapshot, allowed: &[&str]) -> Vec<String> {
        let after = self.snapshot();
        // The allowed folders and the folders on the way to them.
        let inside = |p: &Path| {
            allowed
                .iter()
                .any(|a| p.starts_with(a) || Path::new(a).starts_with(p))
        };
        let mut changes = Vec::new();
        for (path, hash) in before {
            if inside(path) {
                continue;
            }
            match after.get(path) {
                None => changes.push(format!("deleted {}", path.display())),
                Some(h) if h != hash => changes.push(format!("changed {}", path.display())),
                _ => {}
            }
        }
        for path in after.keys() {
            if !before.contains_key(path) && !inside(path) {
                changes.push(format!("created {}", path.display()));
            }
        }
        changes
    }
}

fn walk(root: &Path, dir: &Path, snapshot: &mut Snapshot) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let relative = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            let target = std::fs::read_link(&path).unwrap_or_default();
            snapshot.insert(relative, Some(hash(target.as_os_str().as_encoded_bytes())));
        } else if kind.is_dir() {
            snapshot.insert(relative, None);
            walk(root, &path, snapshot);
        } else if kind.is_file() {
            let bytes = std::fs::read(&path).unwrap_or_default();
            snapshot.insert(relative, Some(hash(&bytes)));
        } else {
            snapshot.insert(relative, None);
        }
    }
}

fn hash(bytes: &[u8]) -> u64 {
    let mut hasher = DefaultHasher::new();
    bytes.hash(&mut hasher);
    hasher.finish()
}

/// Removes a tree, making read-only directories writable first (cases
/// create some on purpose).
pub fn remove_all(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if let Ok(meta) = std::fs::symlink_metadata(path) {
        if meta.is_dir() {
            let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755));
            for entry in std::fs::read_dir(path)?.flatten() {
                remove_all(&entry.path())?;
            }
            return std::fs::remove_dir(path);
        }
        return std::fs::remove_file(path);
    }
    Ok(())
}
