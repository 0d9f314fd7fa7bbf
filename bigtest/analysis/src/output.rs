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
//! folders of the output; it is what marks a folder as one. Runs into one
//! DIR commit one at a time (a lock on the folder DIR is in), each looking
//! at DIR afresh, so overlapping runs leave the last one's output whole.

use crate::error::{Error, Result};
use coco_dataflow::text::escape;
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
    pub fn new(output: &Path) -> Result<OutputFolder> {
        let previous = current_output(output)?;
        let (parent, name) = split_output(output)?;
        std::fs::create_dir_all(&parent).map_err(|source| Error::CreateParent {
            output: shown(output),
            folder: shown(&parent),
            source,
        })?;
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
    pub fn claim(&mut self, path: &Path, owner: &str) -> Result<()> {
        let clash = |other: &str, at: &Path| {
            Err(Error::SharedFile {
                owner: escape(owner).into_owned(),
                other: escape(other).into_owned(),
                path: shown(&self.output.join(at)),
            })
        };
        if !is_relative(path) {
            return Err(Error::ClaimOutside {
                owner: escape(owner).into_owned(),
                path: shown(path),
            });
        }
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
    pub fn write(&mut self, path: &Path, owner: &str, contents: &str) -> Result<()> {
        self.claim(path, owner)?;
        let file = self.staging.join(path);
        if let Some(folder) = file.parent() {
            std::fs::create_dir_all(folder).map_err(|source| Error::CreateFolder {
                folder: shown(folder),
                source,
            })?;
        }
        std::fs::write(&file, contents).map_err(|source| Error::Write {
            file: shown(&file),
            source,
        })
    }

    /// Puts the output in place. Returns warnings (folders of the previous
    /// output kept because they hold files coco-bigtest did not write).
    ///
    /// One run at a time does this ([`OutputFolder::lock`]), and each looks
    /// again at what DIR holds now: runs into one DIR that overlap replace
    /// one another's output whole, the last to commit winning, and never
    /// leave files of one beside another's.
    pub fn commit(mut self) -> Result<Vec<String>> {
        let _lock = self.lock()?;
        self.previous = current_output(&self.output)?;
        let entries = self.entries();
        let manifest = manifest_text(&entries);
        self.committed = true;
        let Some(previous) = self.previous.clone() else {
            std::fs::write(self.staging.join(MANIFEST), manifest)
                .map_err(|source| Error::WriteManifest { source })?;
            return std::fs::rename(&self.staging, &self.output)
                .map(|()| Vec::new())
                .map_err(|source| {
                    self.committed = false;
                    Error::MoveOutput {
                        output: shown(&self.output),
                        source,
                    }
                });
        };
        let result = self.replace(&previous, &entries, &manifest);
        // Only empty folders can be left in staging by now.
        let _ = std::fs::remove_dir_all(&self.staging);
        result
    }

    /// Takes the lock on the folder DIR is in (`flock` on the folder
    /// itself, so nothing is left behind, and a run that dies releases it),
    /// waiting up to [`LOCK_WAIT`] for another run's commit to end.
    fn lock(&self) -> Result<std::fs::File> {
        let parent = self.staging.parent().unwrap_or(Path::new("."));
        let failed = |source: std::io::Error| Error::Lock {
            folder: shown(parent),
            output: shown(&self.output),
            source,
        };
        let parent = std::fs::canonicalize(parent).map_err(failed)?;
        let folder = coco_base::file::open_for_lock(&parent).map_err(failed)?;
        let start = std::time::Instant::now();
        while !coco_base::file::try_lock(&folder).map_err(failed)? {
            if start.elapsed() > LOCK_WAIT {
                return Err(Error::LockHeld {
                    output: shown(&self.output),
                    folder: shown(&parent),
                    seconds: LOCK_WAIT.as_secs(),
                });
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        Ok(folder)
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
    ) -> Result<Vec<String>> {
        // Refuse before changing anything.
        for entry in entries.iter().chain(previous) {
            self.check_inside(entry)?;
        }
        for entry in entries.iter().filter(|e| !e.ends_with('/')) {
            let target = self.output.join(entry);
            if !previous.contains(entry) && std::fs::symlink_metadata(&target).is_ok() {
                return Err(Error::NotWrittenByUs {
                    path: shown(&target),
                });
            }
        }
        // The union first, so an interrupted replacement still lists every
        // file of either output.
        let union: BTreeSet<String> = previous.union(entries).cloned().collect();
        self.put_manifest(&manifest_text(&union), "union")?;
        for folder in entries.iter().filter(|e| e.ends_with('/')) {
            let folder = self.output.join(folder);
            std::fs::create_dir_all(&folder).map_err(|source| Error::CreateFolder {
                folder: shown(&folder),
                source,
            })?;
        }
        for entry in entries.iter().filter(|e| !e.ends_with('/')) {
            let (from, to) = (self.staging.join(entry), self.output.join(entry));
            std::fs::rename(&from, &to).map_err(|source| Error::MoveIntoPlace {
                file: shown(&to),
                source,
            })?;
        }
        let mut warnings = Vec::new();
        let stale: Vec<&String> = previous.difference(entries).collect();
        for file in stale.iter().filter(|e| !e.ends_with('/')) {
            let file = self.output.join(file);
            match std::fs::remove_file(&file) {
                Err(source) if source.kind() != ErrorKind::NotFound => {
                    return Err(Error::Remove {
                        file: shown(&file),
                        source,
                    })
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
                    shown(&path)
                ));
            }
        }
        self.put_manifest(manifest, "final")?;
        Ok(warnings)
    }

    /// Writes the manifest in staging and renames it over the output's.
    fn put_manifest(&self, text: &str, which: &str) -> Result<()> {
        let staged = self.staging.join(format!("{MANIFEST}.{which}"));
        let target = self.output.join(MANIFEST);
        std::fs::write(&staged, text)
            .and_then(|()| std::fs::rename(&staged, &target))
            .map_err(|source| Error::Write {
                file: shown(&target),
                source,
            })
    }

    /// Errors when a folder on the way to `entry` inside the output is a
    /// symbolic link: writing or removing through it would leave `-o`.
    fn check_inside(&self, entry: &str) -> Result<()> {
        let mut path = self.output.clone();
        let parts: Vec<&str> = entry.trim_end_matches('/').split('/').collect();
        for part in &parts[..parts.len().saturating_sub(1)] {
            path.push(part);
            if std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink()) {
                return Err(Error::SymbolicLink {
                    path: shown(&path),
                    output: shown(&self.output),
                });
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

/// How long a commit waits for another run's commit into the same folder.
const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(120);

/// What `output` is now: `None` when it does not exist, else the entries
/// of its manifest ([`previous_entries`]).
fn current_output(output: &Path) -> Result<Option<BTreeSet<String>>> {
    match std::fs::symlink_metadata(output) {
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(source) => Err(Error::OutputUnreadable {
            output: shown(output),
            source,
        }),
        Ok(meta) if !meta.is_dir() => Err(Error::OutputNotFolder {
            output: shown(output),
        }),
        Ok(_) => previous_entries(output).map(Some),
    }
}

/// The entries of the manifest in `output`; none for an empty folder. A
/// non-empty folder without a manifest is not an output: refused.
fn previous_entries(output: &Path) -> Result<BTreeSet<String>> {
    let manifest = output.join(MANIFEST);
    let text = match std::fs::read_to_string(&manifest) {
        Ok(text) if text.starts_with(HEADER) => text,
        Ok(_) => {
            return Err(Error::NotManifest {
                output: shown(output),
                manifest: shown(&manifest),
            })
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let mut items =
                std::fs::read_dir(output).map_err(|source| Error::OutputUnreadable {
                    output: shown(output),
                    source,
                })?;
            if items.next().is_none() {
                return Ok(BTreeSet::new());
            }
            return Err(Error::ForeignFolder {
                output: shown(output),
            });
        }
        Err(source) => {
            return Err(Error::ReadManifest {
                manifest: shown(&manifest),
                source,
            })
        }
    };
    let mut entries = BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let path = Path::new(line.trim_end_matches('/'));
        if !is_relative(path) {
            return Err(Error::ManifestOutside {
                manifest: shown(&manifest),
                line: n + 1,
                path: shown(path),
            });
        }
        entries.insert(line.to_string());
    }
    Ok(entries)
}

/// Whether `path` is relative, non-empty, and made of plain names only (no
/// `..`, `.`, root or NUL), so joined to the output it stays inside.
fn is_relative(path: &Path) -> bool {
    path.components().all(|c| matches!(c, Component::Normal(_)))
        && path.components().next().is_some()
        && !path.to_string_lossy().contains('\0')
}

/// A path as messages show it ([`escape`]d: a name holding a newline or an
/// escape sequence stays on its line and inert).
fn shown(path: &Path) -> String {
    escape(&path.display().to_string()).into_owned()
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
fn split_output(output: &Path) -> Result<(PathBuf, String)> {
    let resolved = match std::fs::canonicalize(output) {
        Ok(path) => path,
        Err(_) => output.to_path_buf(),
    };
    let name = resolved
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::NotFolderName {
            output: shown(output),
        })?;
    let parent = resolved
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    Ok((parent, name))
}

/// A new folder `.NAME.coco-bigtest-PID-N` in `parent`.
fn create_staging(parent: &Path, name: &str) -> Result<PathBuf> {
    for n in 0.. {
        let staging = parent.join(format!(".{name}.coco-bigtest-{}-{n}", std::process::id()));
        match std::fs::create_dir(&staging) {
            Ok(()) => return Ok(staging),
            Err(e) if e.kind() == ErrorKind::AlreadyExists && n < 100 => continue,
            Err(source) => {
                return Err(Error::CreateStaging {
                    folder: shown(&staging),
                    source,
                })
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

    fn generate(output: &Path, files: &[(&str, &str)]) -> Result<Vec<String>> {
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
        assert!(matches!(err, Error::ForeignFolder { .. }), "{err}");
        assert!(
            err.to_string()
                .contains("not empty and holds no coco-bigtest-manifest.txt"),
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
            matches!(&err, Error::NotWrittenByUs { path } if path.ends_with("b.txt")),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("b.txt exists and was not written by coco-bigtest"),
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
            matches!(&err, Error::ManifestOutside { line: 2, path, .. } if path == "../victim.txt"),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains(":2: \"../victim.txt\" is not a path inside the output folder"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Several runs replace one output at once, each with files of its own
    /// (a different number of cases, every file holding the run's number):
    /// the output ends as one run's, whole, its manifest listing exactly
    /// its files. A run that loses may fail, with an error, but never mix.
    /// Without the commit lock, files of one run sat beside another's
    /// manifest in most rounds.
    #[test]
    fn concurrent_runs_leave_one_run_s_output_whole() {
        let dir = scratch("concurrent");
        let out = dir.join("out");
        for round in 0..6 {
            let runs = 8;
            let barrier = std::sync::Barrier::new(runs);
            let results: Vec<Result<Vec<String>>> = std::thread::scope(|scope| {
                let handles: Vec<_> = (0..runs)
                    .map(|run| {
                        let (out, barrier) = (&out, &barrier);
                        scope.spawn(move || {
                            let text = format!("{run}\n");
                            let mut staged = OutputFolder::new(out)?;
                            for case in 0..1 + (run + round) % 4 {
                                for file in ["a.txt", "b.txt", "report.txt"] {
                                    let path = match case {
                                        0 => PathBuf::from(file),
                                        _ => Path::new(&format!("case-{case}")).join(file),
                                    };
                                    staged.write(&path, "test", &text)?;
                                }
                            }
                            barrier.wait();
                            staged.commit()
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            for result in &results {
                if let Err(e) = result {
                    let e = e.to_string();
                    assert!(e.starts_with("cannot ") || e.contains("-o"), "{e}");
                }
            }
            assert!(results.iter().any(Result::is_ok), "{results:?}");
            let files = listing(&out);
            let manifest = std::fs::read_to_string(out.join(MANIFEST)).unwrap();
            let listed: Vec<String> = manifest
                .lines()
                .filter(|l| !l.starts_with('#') && !l.ends_with('/'))
                .map(String::from)
                .chain([MANIFEST.to_string()])
                .collect();
            let mut listed_sorted = listed.clone();
            listed_sorted.sort();
            assert_eq!(files, listed_sorted, "round {round}: manifest\n{manifest}");
            let texts: BTreeSet<String> = files
                .iter()
                .filter(|f| *f != MANIFEST)
                .map(|f| std::fs::read_to_string(out.join(f)).unwrap())
                .collect();
            assert_eq!(texts.len(), 1, "round {round}: a mixed output: {texts:?}");
            // Nothing of the runs is left beside the output.
            assert_eq!(
                std::fs::read_dir(&dir).unwrap().count(),
                1,
                "{:?}",
                std::fs::read_dir(&dir).unwrap().collect::<Vec<_>>()
            );
        }
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
        assert!(matches!(err, Error::SharedFile { .. }), "{err}");
        assert!(
            err.to_string()
                .starts_with("source \"b\" and source \"a\" would both write"),
            "{err}"
        );
        let err = staged
            .claim(Path::new(MANIFEST), "source \"m\"")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("coco-bigtest's own coco-bigtest-manifest.txt"),
            "{err}"
        );
        staged
            .claim(Path::new("case-1/a.txt"), "source \"a\"")
            .unwrap();
        let err = staged
            .claim(Path::new("case-1"), "source \"c\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("source \"c\" and source \"a\""), "{err}");
        let err = staged.claim(Path::new("../x"), "source \"d\"").unwrap_err();
        assert!(matches!(err, Error::ClaimOutside { .. }), "{err}");
        assert_eq!(
            err.to_string(),
            "source \"d\": \"../x\" is not a path inside the output folder"
        );
        drop(staged);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
