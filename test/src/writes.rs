//! Every file coco writes goes through the staged writer
//! (`coco_base::staged`: a temporary sibling created exclusively, renamed
//! into place; links replaced, FIFOs and devices refused). This trial reads
//! the code of every library and tool and lists each place that opens a
//! file for writing by other means; [`KNOWN`] names the few that may, and
//! why. A new `File::create` or `fs::write` fails the suite until it goes
//! through the staged writer or is added here with its reason.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
};

/// What opens a file for writing in Rust's standard library.
const WRITES: [&str; 5] = [
    "File::create(",
    "fs::write(",
    "fs::copy(",
    ".write(true)",
    ".append(true)",
];

/// The folders whose code ships (tests, benchmarks, build scripts and the
/// fault harness write scratch files of their own and are not listed).
const SHIPPED: [&str; 5] = ["base", "compiler", "runtime", "bigtest", "tools/src"];

/// Each file allowed to write other than through `write_file`, how many
/// times, and why that is safe.
pub const KNOWN: &[(&str, usize, &str)] = &[
    (
        "base/src/staged.rs",
        2,
        "the staged writer itself: the sibling it creates exclusively, then opens without following links",
    ),
    (
        "base/src/npy.rs",
        1,
        "writes into the path of a `Staged` file it then commits",
    ),
    (
        "compiler/lowering/src/lib.rs",
        1,
        "write_bundle fills a folder that its callers created fresh (`Staged::dir` or a private scratch folder)",
    ),
    (
        "compiler/lowering/src/ptxas.rs",
        1,
        "ptxas's input, in a private scratch folder it created",
    ),
    (
        "base/src/job.rs",
        1,
        "the `.coco-owner` file, created exclusively (create_new) in the job's own folder",
    ),
    (
        "bigtest/spark/src/local.rs",
        1,
        "the paths job, in a private scratch folder it created",
    ),
    (
        "bigtest/analysis/src/output.rs",
        3,
        "files inside the staging folder of `generate -o`, committed whole by rename",
    ),
];

/// The number of file writes in `text`, Rust source: comments and the
/// unit tests (`#[cfg(test)] mod tests`, at the end of a file) left out.
pub fn writes_in(text: &str) -> usize {
    let code = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    code.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| {
            WRITES
                .iter()
                .map(|w| line.matches(w).count())
                .sum::<usize>()
        })
        .sum()
}

/// The file writes of every shipped source file under `root`, by path
/// relative to it.
pub fn scan(root: &Path) -> BTreeMap<String, usize> {
    let mut found = BTreeMap::new();
    for folder in SHIPPED {
        let mut stack = vec![root.join(folder)];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let path: PathBuf = entry.path();
                let name = entry.file_name().to_string_lossy().into_owned();
                if path.is_dir() {
                    if !matches!(name.as_str(), "tests" | "benches" | "target") {
                        stack.push(path);
                    }
                } else if name.ends_with(".rs") && name != "build.rs" {
                    let count = writes_in(&std::fs::read_to_string(&path).unwrap_or_default());
                    if count > 0 {
                        let relative = path.strip_prefix(root).unwrap_or(&path);
                        found.insert(relative.to_string_lossy().into_owned(), count);
                    }
                }
            }
        }
    }
    found
}

/// Errors listing every difference between `found` and [`KNOWN`].
pub fn check(found: &BTreeMap<String, usize>) -> Result<(), String> {
    let mut problems = Vec::new();
    for (file, count) in found {
        match KNOWN.iter().find(|(known, _, _)| known == file) {
            Some((_, allowed, _)) if allowed == count => {}
            Some((_, allowed, _)) => problems.push(format!(
                "{file}: {count} file write(s), {allowed} known (test/src/writes.rs)"
            )),
            None => problems.push(format!(
                "{file}: {count} file write(s) outside the staged writer \
                 (use coco_base::staged::write_file, or add the file to KNOWN in test/src/writes.rs with the reason it is safe)"
            )),
        }
    }
    for (file, _, _) in KNOWN {
        if !found.contains_key(*file) {
            problems.push(format!(
                "{file}: listed in test/src/writes.rs KNOWN but writes no file any more: remove it"
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}
