//! The folder `coco-bigtest generate -o DIR` writes, written so that it
//! never loses what it did not write.
//!
//! Everything goes first into a fresh staging folder beside DIR, and every
//! file has one owner: two sources whose data would land in one file (or in
//! a report) are an error naming both, not a silent overwrite. [`OutputFolder::commit`]
//! then renames the staging folder to DIR when DIR does not exist, or, when
//! DIR is empty or a previous output, renames each file into place (each
//! rename is atomic) and removes only what the previous output's manifest
//! lists and this one does not. A DIR holding anything else is refused
//! before any work is done. The manifest ([`MANIFEST`]) lists the files and
//! folders of the output; it is what marks a folder as one.

use std::{
    collections::{BTreeMap, BTreeSet},
    io::ErrorKind,
    path::{Component, Path, PathBuf},
};

/// The manifest's file name, in the top folder of every output.
pub const MANIFEST: &str = "coco-bigtest-manifest.txt";

/// The first line of a manifest: a file that does not start with it is not
/// one, however it is named.
const HEADER: &str = "# coco-bigtest generate output";

/// An output being written: the staging folder and who claimed each file.
pub struct OutputFolder {
    output: PathBuf,
    staging: PathBuf,
    /// The previous output's entries, when `output` is one (an empty folder
    /// is one with no entries); `None` when `output` does not exist.
    previous: Option<BTreeSet<String>>,
    /// Relative file path → owner (`source "lines" at f.mlir:3:5`).
    files: BTreeMap<PathBuf, String>,
    /// Folders the files need, with the owner of the first file in each.
    folders: BTreeMap<PathBuf, String>,
    committed: bool,
}

impl OutputFolder {
    /// Checks that `output` may be written (missing, empty, or a previous
    /// output) and creates the staging folder beside it.
    pub fn new(output: &Path) -> Result<OutputFolder, String> {
        let shown = output.display();
        let previous = match std::fs::symlink_metadata(output) {
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => return Err(format!("-o {shown}: {e}")),
            Ok(meta) if !meta.is_dir() => {
                return Err(format!("-o {shown}: exists and is not a folder"))
            }
            Ok(_) => Some(previous_entries(output)?),
        };
        let (parent, name) = split_output(output)?;
        std::fs::create_dir_all(&parent)
            .map_err(|e| format!("-o {shown}: cannot create {}: {e}", parent.display()))?;
        let staging = create_staging(&parent, &name)?;
        let mut staged = OutputFolder {
            output: output.to_path_buf(),
            staging,
            previous,
            files: BTreeMap::new(),
            folders: BTreeMap::new(),
            committed: false,
        };
        staged.claim(
            Path::new(MANIFEST),
            &format!("coco-bigtest's own {MANIFEST}"),
        )?;
        Ok(staged)
    }

    /// Where the files are until [`OutputFolder::commit`]: read them back there.
    pub fn dir(&self) -> &Path {
        &self.staging
    }

    /// Reserves `path` (relative to the output) for `owner`. Another owner
    /// of the same file, of a folder on its way or of a file inside it is
    /// an error naming both.
    pub fn claim(&mut self, path: &Path, owner: &str) -> Result<(), String> {
        let clash = |other: &str, at: &Path| {
            Err(format!(
                "{owner} and {other} would both write {}; give one of them another name (a source's data file is the base name of its path, or <name>.txt for inline records)",
                self.output.join(at).display()
            ))
        };
        check_relative(path).map_err(|e| format!("{owner}: {e}"))?;
        if let Some(other) = self.files.get(path) {
            return if other == owner {
                Ok(())
            } else {
                clash(other, path)
            };
        }
        if let Some(other) = self.folders.get(path) {
            return clash(other, path);
        }
        for folder in path.ancestors().skip(1) {
            if folder.as_os_str().is_empty() {
                break;
            }
            if let Some(other) = self.files.get(folder) {
                return clash(other, folder);
            }
        }
        for folder in path.ancestors().skip(1) {
            if folder.as_os_str().is_empty() {
                break;
            }
            self.folders
                .entry(folder.to_path_buf())
                .or_insert_with(|| owner.to_string());
        }
        self.files.insert(path.to_path_buf(), owner.to_string());
        Ok(())
    }

    /// Claims `path` for `owner` and writes `contents` there.
    pub fn write(&mut self, path: &Path, owner: &str, contents: &str) -> Result<(), String> {
        self.claim(path, owner)?;
        let file = self.staging.join(path);
        if let Some(folder) = file.parent() {
            std::fs::create_dir_all(folder)
                .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        }
        std::fs::write(&file, contents).map_err(|e| format!("cannot write {}: {e}", file.display()))
    }

    /// Puts the output in place. Returns warnings (folders of the previous
    /// output kept because they hold files coco-bigtest did not write).
    pub fn commit(mut self) -> Result<Vec<String>, String> {
        let entries = self.entries();
        let manifest = manifest_text(&entries);
        self.committed = true;
        let Some(previous) = self.previous.clone() else {
            std::fs::write(self.staging.join(MANIFEST), manifest)
                .map_err(|e| format!("cannot write the manifest: {e}"))?;
            return std::fs::rename(&self.staging, &self.output)
                .map(|()| Vec::new())
                .map_err(|e| {
                    self.committed = false;
                    format!("cannot move the output into {}: {e}", self.output.display())
                });
        };
        let result = self.replace(&previous, &entries, &manifest);
        // Only empty folders can be left in staging by now.
        let _ = std::fs::remove_dir_all(&self.staging);
        result
    }

    /// Every folder and file of this output, as the manifest lists them.
    fn entries(&self) -> BTreeSet<String> {
        let folders = self.folders.keys().map(|f| format!("{}/", slashed(f)));
        let files = self
            .files
            .keys()
            .filter(|f| f.as_os_str() != MANIFEST)
            .map(|f| slashed(f));
        folders.chain(files).collect()
    }

    fn replace(
        &self,
        previous: &BTreeSet<String>,
        entries: &BTreeSet<String>,
        manifest: &str,
    ) -> Result<Vec<String>, String> {
        // Refuse before changing anything.
        for entry in entries.iter().chain(previous) {
            self.check_inside(entry)?;
        }
        for entry in entries.iter().filter(|e| !e.ends_with('/')) {
            let target = self.output.join(entry);
            if !previous.contains(entry) && std::fs::symlink_metadata(&target).is_ok() {
                return Err(format!(
                    "{} exists and was not written by coco-bigtest (it is not in {MANIFEST}); move it away or choose another -o",
                    target.display()
                ));
            }
        }
        // The union first, so an interrupted replacement still lists every
        // file of either output.
        let union: BTreeSet<String> = previous.union(entries).cloned().collect();
        self.put_manifest(&manifest_text(&union), "union")?;
        for folder in entries.iter().filter(|e| e.ends_with('/')) {
            let folder = self.output.join(folder);
            std::fs::create_dir_all(&folder)
                .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        }
        for entry in entries.iter().filter(|e| !e.ends_with('/')) {
            let (from, to) = (self.staging.join(entry), self.output.join(entry));
            std::fs::rename(&from, &to)
                .map_err(|e| format!("cannot move {} into place: {e}", to.display()))?;
        }
        let mut warnings = Vec::new();
        let stale: Vec<&String> = previous.difference(entries).collect();
        for file in stale.iter().filter(|e| !e.ends_with('/')) {
            let file = self.output.join(file);
            match std::fs::remove_file(&file) {
                Err(e) if e.kind() != ErrorKind::NotFound => {
                    return Err(format!("cannot remove {}: {e}", file.display()))
                }
                _ => {}
            }
        }
        // Deepest first, so a folder's subfolders are gone before it.
        for folder in stale.iter().rev().filter(|e| e.ends_with('/')) {
            let path = self.output.join(folder);
            if std::fs::remove_dir(&path).is_err() && path.exists() {
                warnings.push(format!(
                    "kept {}: it holds files coco-bigtest did not write",
                    path.display()
                ));
            }
        }
        self.put_manifest(manifest, "final")?;
        Ok(warnings)
    }

    /// Writes the manifest in staging and renames it over the output's.
    fn put_manifest(&self, text: &str, which: &str) -> Result<(), String> {
        let staged = self.staging.join(format!("{MANIFEST}.{which}"));
        let target = self.output.join(MANIFEST);
        std::fs::write(&staged, text)
            .and_then(|()| std::fs::rename(&staged, &target))
            .map_err(|e| format!("cannot write {}: {e}", target.display()))
    }

    /// Errors when a folder on the way to `entry` inside the output is a
    /// symbolic link: writing or removing through it would leave `-o`.
    fn check_inside(&self, entry: &str) -> Result<(), String> {
        let mut path = self.output.clone();
        let parts: Vec<&str> = entry.trim_end_matches('/').split('/').collect();
        for part in &parts[..parts.len().saturating_sub(1)] {
            path.push(part);
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(format!(
                    "{} is a symbolic link; coco-bigtest writes only inside -o {}",
                    path.display(),
                    self.output.display()
                ));
            }
        }
        Ok(())
    }
}

impl Drop for OutputFolder {
    fn drop(&mut self) {
        if !self.committed {
            // The staging folder is this run's own: nothing else is in it.
            let _ = std::fs::remove_dir_all(&self.staging);
        }
    }
}

/// The entries of the manifest in `output`; none for an empty folder. A
/// non-empty folder without a manifest is not an output: refused.
fn previous_entries(output: &Path) -> Result<BTreeSet<String>, String> {
    let shown = output.display();
    let manifest = output.join(MANIFEST);
    let text = match std::fs::read_to_string(&manifest) {
        Ok(text) if text.starts_with(HEADER) => text,
        Ok(_) => {
            return Err(format!(
                "-o {shown}: {} is not a coco-bigtest manifest; refusing to write into a folder coco-bigtest did not create",
                manifest.display()
            ))
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let mut items =
                std::fs::read_dir(output).map_err(|e| format!("-o {shown}: {e}"))?;
            if items.next().is_none() {
                return Ok(BTreeSet::new());
            }
            return Err(format!(
                "-o {shown}: the folder is not empty and holds no {MANIFEST}, so it is not an earlier coco-bigtest output; refusing to write into it (choose a new or empty folder)"
            ));
        }
        Err(e) => return Err(format!("cannot read {}: {e}", manifest.display())),
    };
    let mut entries = BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        check_relative(Path::new(line.trim_end_matches('/')))
            .map_err(|e| format!("{}:{}: \"{line}\" {e}", manifest.display(), n + 1))?;
        entries.insert(line.to_string());
    }
    Ok(entries)
}

/// `path` is relative, non-empty, and made of plain names only (no `..`,
/// `.`, root or NUL), so joined to the output it stays inside.
fn check_relative(path: &Path) -> Result<(), String> {
    let plain = path.components().all(|c| matches!(c, Component::Normal(_)))
        && path.components().next().is_some()
        && !path.to_string_lossy().contains('\0');
    if plain {
        Ok(())
    } else {
        Err(format!(
            "\"{}\" is not a path inside the output folder",
            path.display()
        ))
    }
}

fn slashed(path: &Path) -> String {
    path.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn manifest_text(entries: &BTreeSet<String>) -> String {
    let mut text = format!(
        "{HEADER}: the files and folders below. The next `coco-bigtest generate -o`\n\
         # into this folder replaces them; it leaves everything else alone.\n"
    );
    for entry in entries {
        text.push_str(entry);
        text.push('\n');
    }
    text
}

/// The folder `output` is in and its own name, with `.` and `..` resolved
/// where `output` exists.
fn split_output(output: &Path) -> Result<(PathBuf, String), String> {
    let resolved = match std::fs::canonicalize(output) {
        Ok(path) => path,
        Err(_) => output.to_path_buf(),
    };
    let name = resolved
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| format!("-o {}: not a folder name", output.display()))?;
    let parent = resolved
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    Ok((parent, name))
}

/// A new folder `.NAME.coco-bigtest-PID-N` in `parent`.
fn create_staging(parent: &Path, name: &str) -> Result<PathBuf, String> {
    for n in 0.. {
        let staging = parent.join(format!(".{name}.coco-bigtest-{}-{n}", std::process::id()));
        match std::fs::create_dir(&staging) {
            Ok(()) => return Ok(staging),
            Err(e) if e.kind() == ErrorKind::AlreadyExists && n < 100 => continue,
            Err(e) => {
                return Err(format!(
                    "cannot create a staging folder beside the output, {}: {e}",
                    staging.display()
                ))
            }
        }
    }
    unreachable!("the loop returns")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh folder for one test.
    fn scratch(test: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("coco-output-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn generate(output: &Path, files: &[(&str, &str)]) -> Result<Vec<String>, String> {
        let mut staged = OutputFolder::new(output)?;
        for (path, text) in files {
            staged.write(Path::new(path), "test", text)?;
        }
        staged.commit()
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut all = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() {
                all.extend(listing(&path).into_iter().map(|p| format!("{name}/{p}")));
            } else {
                all.push(name);
            }
        }
        all.sort();
        all
    }

    #[test]
    fn a_new_output_appears_whole_with_its_manifest() {
        let dir = scratch("new");
        let out = dir.join("out");
        generate(&out, &[("a.txt", "1\n"), ("case-1/a.txt", "2\n")]).unwrap();
        assert_eq!(listing(&out), ["a.txt", "case-1/a.txt", MANIFEST]);
        let manifest = std::fs::read_to_string(out.join(MANIFEST)).unwrap();
        assert!(
            manifest.ends_with("\na.txt\ncase-1/\ncase-1/a.txt\n"),
            "{manifest}"
        );
        // No staging folder is left beside it.
        assert_eq!(
            listing(&dir),
            listing(&out)
                .iter()
                .map(|p| format!("out/{p}"))
                .collect::<Vec<_>>()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_foreign_folder_is_refused_and_left_alone() {
        let dir = scratch("foreign");
        std::fs::create_dir_all(dir.join("case-1")).unwrap();
        std::fs::write(dir.join("case-1/precious.txt"), "keep").unwrap();
        let err = generate(&dir, &[("a.txt", "1\n")]).unwrap_err();
        assert!(
            err.contains("not empty and holds no coco-bigtest-manifest.txt"),
            "{err}"
        );
        assert_eq!(listing(&dir), ["case-1/precious.txt"]);
        let parent = dir.parent().unwrap();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let leftovers = std::fs::read_dir(parent)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(&format!(".{name}."))
            })
            .count();
        assert_eq!(leftovers, 0);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_previous_output_is_replaced_and_other_files_kept() {
        let dir = scratch("previous");
        generate(
            &dir,
            &[
                ("a.txt", "1\n"),
                ("case-1/a.txt", "2\n"),
                ("case-2/a.txt", "3\n"),
            ],
        )
        .unwrap();
        std::fs::write(dir.join("notes.txt"), "mine").unwrap();
        std::fs::write(dir.join("case-2/mine.txt"), "mine").unwrap();
        let warnings = generate(&dir, &[("a.txt", "new\n"), ("case-1/a.txt", "new\n")]).unwrap();
        assert_eq!(
            listing(&dir),
            [
                "a.txt",
                "case-1/a.txt",
                "case-2/mine.txt",
                MANIFEST,
                "notes.txt"
            ]
        );
        assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "new\n");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("case-2"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_file_the_manifest_does_not_list_is_not_overwritten() {
        let dir = scratch("unlisted");
        generate(&dir, &[("a.txt", "1\n")]).unwrap();
        std::fs::write(dir.join("b.txt"), "mine").unwrap();
        let err = generate(&dir, &[("a.txt", "2\n"), ("b.txt", "2\n")]).unwrap_err();
        assert!(
            err.contains("b.txt exists and was not written by coco-bigtest"),
            "{err}"
        );
        assert_eq!(std::fs::read_to_string(dir.join("b.txt")).unwrap(), "mine");
        assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "1\n");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_manifest_cannot_point_outside() {
        let dir = scratch("escape");
        std::fs::write(dir.join(MANIFEST), format!("{HEADER}\n../victim.txt\n")).unwrap();
        let err = generate(&dir, &[("a.txt", "1\n")]).unwrap_err();
        assert!(
            err.contains("is not a path inside the output folder"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn two_owners_of_one_file_are_an_error_naming_both() {
        let dir = scratch("clash");
        let mut staged = OutputFolder::new(&dir.join("out")).unwrap();
        staged
            .write(Path::new("times.txt"), "source \"a\"", "")
            .unwrap();
        let err = staged
            .write(Path::new("times.txt"), "source \"b\"", "")
            .unwrap_err();
        assert!(
            err.starts_with("source \"b\" and source \"a\" would both write"),
            "{err}"
        );
        let err = staged
            .claim(Path::new(MANIFEST), "source \"m\"")
            .unwrap_err();
        assert!(
            err.contains("coco-bigtest's own coco-bigtest-manifest.txt"),
            "{err}"
        );
        staged
            .claim(Path::new("case-1/a.txt"), "source \"a\"")
            .unwrap();
        let err = staged
            .claim(Path::new("case-1"), "source \"c\"")
            .unwrap_err();
        assert!(err.contains("source \"c\" and source \"a\""), "{err}");
        let err = staged.claim(Path::new("../x"), "source \"d\"").unwrap_err();
        assert!(err.contains("not a path inside"), "{err}");
        drop(staged);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
