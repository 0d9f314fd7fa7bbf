//! The code map cannot drift (as rust-analyzer's tidy tests keep its own
//! docs honest): every workspace crate, and every source file of every
//! workspace crate, is named in the "## Code map" of docs/architecture.md.
//! A new crate or file without a line there fails `docs::code-map`, with
//! the list of what is missing.
//!
//! The rule, kept simple enough to write docs by:
//!
//! - **Crates.** Each workspace crate (from `cargo metadata`) has a `### `
//!   heading inside "## Code map" that names its folder, relative to the
//!   repository root and with a trailing slash, and its package name, both
//!   as code spans: ``### `runtime/interp/` (`coco-interp`)``. Its files
//!   are looked for in that section only (up to the next heading). A
//!   heading whose first code span is a folder (ends in `/`) that holds no
//!   workspace crate is reported too (a crate that was removed or moved).
//! - **Files.** Every `src/**/*.rs` file of the crate must be named in a
//!   code span of its section. Code spans are read as paths: whitespace is
//!   dropped, shell braces are expanded (`cpu/{elf,peers}.rs` names
//!   `cpu/elf.rs` and `cpu/peers.rs`), everything up to the last `src/` is
//!   cut (`runtime/interp/src/seeded.rs` is `seeded.rs`), and `*` stands
//!   for any name within one folder (`bin/*.rs`). A file at path `P` under
//!   `src/` is named by a span equal to `P`; a file in a folder whose name
//!   is unique in the crate may instead be named by its bare name
//!   (`header.rs`) when its folder (`npy/`) is named anywhere in the
//!   section. A name that occurs twice in a crate (`cpu/peers.rs` and
//!   `cuda/peers.rs`) needs its folder written out, so a second file of
//!   that name is never covered by the first one's line.
//! - **Exempt**: `src/lib.rs` and `src/main.rs` (the crate's heading is
//!   their line); a folder's `mod.rs` is named by its folder (`kernel/`).
//!   Files outside `src/` (`build.rs`, `tests/`, the filetest binary) are
//!   not checked.
//!
//! What it does not catch: a line for a file that no longer exists, and a
//! description that stopped being true. Those stay the reviewer's job.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// One workspace crate: its package name, its folder relative to the
/// repository root (`runtime/interp`), and its `src/**/*.rs` files relative
/// to `src/` with `/` separators (`cpu/peers.rs`), sorted.
#[derive(Clone, Debug)]
pub struct Crate {
    pub name: String,
    pub folder: String,
    pub files: Vec<String>,
}

/// The workspace crates of `metadata` (`cargo metadata` output) with their
/// source files, read from disk under `root`.
pub fn workspace_crates(metadata: &Value, root: &Path) -> Result<Vec<Crate>, String> {
    let members: BTreeSet<&str> = metadata["workspace_members"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let workspace_root = metadata["workspace_root"]
        .as_str()
        .map(PathBuf::from)
        .unwrap_or_else(|| root.to_path_buf());
    let mut crates = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        if !package["id"]
            .as_str()
            .is_some_and(|id| members.contains(id))
        {
            continue;
        }
        let name = package["name"].as_str().unwrap_or_default().to_string();
        let manifest = PathBuf::from(package["manifest_path"].as_str().unwrap_or_default());
        let dir = manifest
            .parent()
            .ok_or_else(|| format!("{name}: manifest path without a folder"))?;
        let folder = dir
            .strip_prefix(&workspace_root)
            .map_err(|_| format!("{name}: {} is outside the workspace", dir.display()))?
            .to_string_lossy()
            .replace('\\', "/");
        let files = rust_files(&root.join(&folder).join("src"))?;
        crates.push(Crate {
            name,
            folder,
            files,
        });
    }
    crates.sort_by(|a, b| a.folder.cmp(&b.folder));
    Ok(crates)
}

/// Every `.rs` file under `src`, relative to it, sorted.
fn rust_files(src: &Path) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(_) if dir == src => return Ok(out),
            Err(e) => return Err(format!("{}: {e}", dir.display())),
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(src).expect("under src");
                out.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A `### ` section of the code map: its heading's code spans and the
/// expanded code spans of its body.
struct Section {
    heading: Vec<String>,
    spans: Vec<String>,
}

/// The `### ` sections of the "## Code map" of `docs`.
fn code_map_sections(docs: &str) -> Result<Vec<Section>, String> {
    let mut lines = docs.lines().skip_while(|l| l.trim_end() != "## Code map");
    if lines.next().is_none() {
        return Err("docs/architecture.md has no \"## Code map\" heading".into());
    }
    let mut sections = Vec::new();
    let mut current: Option<(String, String)> = None;
    let mut in_fence = false;
    for line in lines {
        if line.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if line.starts_with("## ") {
            break;
        }
        if let Some(heading) = line.strip_prefix("### ") {
            sections.extend(current.take());
            current = Some((heading.to_string(), String::new()));
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    sections.extend(current);
    Ok(sections
        .into_iter()
        .map(|(heading, body)| Section {
            heading: code_spans(&heading),
            spans: code_spans(&body)
                .iter()
                .flat_map(|span| expand_braces(span))
                .map(|span| after_src(&span).to_string())
                .collect(),
        })
        .collect())
}

/// The code spans of `text` (single backticks; a span may cross lines),
/// with whitespace dropped.
fn code_spans(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(|span| span.chars().filter(|c| !c.is_whitespace()).collect())
        .collect()
}

/// Shell brace expansion: `a/{b,c}.rs` → `a/b.rs`, `a/c.rs`; nested and
/// repeated groups too. Unbalanced braces are left as they are.
fn expand_braces(span: &str) -> Vec<String> {
    let Some(open) = span.find('{') else {
        return vec![span.to_string()];
    };
    let mut depth = 0;
    let mut close = None;
    let mut commas = Vec::new();
    for (i, c) in span[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + i);
                    break;
                }
            }
            ',' if depth == 1 => commas.push(open + i),
            _ => {}
        }
    }
    let Some(close) = close else {
        return vec![span.to_string()];
    };
    let (prefix, suffix) = (&span[..open], &span[close + 1..]);
    let mut cuts = vec![open];
    cuts.extend(commas);
    cuts.push(close);
    let mut out = Vec::new();
    for pair in cuts.windows(2) {
        let choice = &span[pair[0] + 1..pair[1]];
        out.extend(expand_braces(&format!("{prefix}{choice}{suffix}")));
        if out.len() > 10_000 {
            break;
        }
    }
    out
}

/// The part of a path after its last `src/` (all of it when it has none).
fn after_src(span: &str) -> &str {
    match span.rfind("src/") {
        Some(i) if i == 0 || span[..i].ends_with('/') => &span[i + 4..],
        _ => span,
    }
}

/// Whether `pattern` (with `*` for any run of characters other than `/`)
/// matches all of `text`.
fn glob_match(pattern: &str, text: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == text,
        Some((head, tail)) => {
            let Some(rest) = text.strip_prefix(head) else {
                return false;
            };
            rest.char_indices()
                .map(|(i, _)| i)
                .chain([rest.len()])
                .take_while(|&i| !rest[..i].contains('/'))
                .any(|i| glob_match(tail, &rest[i..]))
        }
    }
}

/// Whether some span names the folder `dir` (`npy`): as `npy/`, `npy/...`
/// or `.../npy/...`.
fn names_folder(spans: &[String], dir: &str) -> bool {
    let at_start = format!("{dir}/");
    let inside = format!("/{dir}/");
    spans
        .iter()
        .any(|s| s.starts_with(&at_start) || s.contains(&inside))
}

/// Whether `file` (relative to `src/`) is named by `spans` under the rule of
/// the module doc; `names` counts each file name in the crate.
fn is_named(file: &str, spans: &[String], names: &BTreeMap<&str, usize>) -> bool {
    let (dir, name) = match file.rsplit_once('/') {
        Some((dir, name)) => (Some(dir), name),
        None => (None, file),
    };
    match (dir, name) {
        (None, "lib.rs" | "main.rs") => return true,
        (Some(dir), "mod.rs") => return names_folder(spans, dir),
        _ => {}
    }
    if spans.iter().any(|s| glob_match(s, file)) {
        return true;
    }
    let Some(dir) = dir else {
        return false;
    };
    let parent = dir.rsplit('/').next().unwrap_or(dir);
    names.get(name) == Some(&1) && spans.iter().any(|s| s == name) && names_folder(spans, parent)
}

/// Every crate and file of `crates` that `docs` (the text of
/// docs/architecture.md) does not name in its code map, one per line.
pub fn check(docs: &str, crates: &[Crate]) -> Result<(), String> {
    let sections = code_map_sections(docs)?;
    let mut problems = Vec::new();
    for krate in crates {
        let folder = format!("{}/", krate.folder);
        let section = sections
            .iter()
            .find(|s| s.heading.contains(&folder) && s.heading.contains(&krate.name));
        let Some(section) = section else {
            problems.push(format!(
                "crate {} ({folder}): no \"### `{folder}` (`{}`)\" section in the code map",
                krate.name, krate.name
            ));
            continue;
        };
        let mut names: BTreeMap<&str, usize> = BTreeMap::new();
        for file in &krate.files {
            *names
                .entry(file.rsplit('/').next().unwrap_or(file))
                .or_default() += 1;
        }
        for file in &krate.files {
            if !is_named(file, &section.spans, &names) {
                problems.push(format!(
                    "{folder}src/{file}: not named in the `{folder}` section of the code map"
                ));
            }
        }
    }
    let folders: BTreeSet<String> = crates.iter().map(|c| format!("{}/", c.folder)).collect();
    for section in &sections {
        if let Some(first) = section.heading.first() {
            if first.ends_with('/') && !folders.contains(first) {
                problems.push(format!(
                    "the code map has a section for {first}, which holds no workspace crate"
                ));
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "docs/architecture.md's code map is missing {} item(s) (rule: test/src/docs_drift.rs):\n{}",
            problems.len(),
            problems.join("\n")
        ))
    }
}

/// The trial `docs::code-map`: the real docs against the real workspace.
pub fn check_workspace() -> Result<(), String> {
    let root = crate::repo_root();
    let docs = std::fs::read_to_string(root.join("docs/architecture.md"))
        .map_err(|e| format!("docs/architecture.md: {e}"))?;
    let metadata = crate::layers::metadata()?;
    let crates = workspace_crates(&metadata, &root)?;
    if crates.is_empty() {
        return Err("cargo metadata lists no workspace crate".into());
    }
    check(&docs, &crates)
}

/// The check reports what is missing, so `docs::code-map` cannot pass by
/// finding nothing: fabricated docs missing one file, a file hidden behind
/// a namesake, a crate without a section, and the real docs with one
/// fabricated file added to a real crate.
pub fn self_test() -> Result<(), String> {
    if expand_braces("{x,y}/{m,n}.rs") != ["x/m.rs", "x/n.rs", "y/m.rs", "y/n.rs"]
        || expand_braces("a{b") != ["a{b"]
        || !glob_match("bin/*.rs", "bin/coco-opt.rs")
        || glob_match("*.rs", "bin/coco-opt.rs")
    {
        return Err("brace expansion or globs are broken".into());
    }
    let krate = Crate {
        name: "coco-probe".into(),
        folder: "probe/crate".into(),
        files: [
            "lib.rs",
            "alpha.rs",
            "beta.rs",
            "nested/mod.rs",
            "nested/unique.rs",
            "cpu/peers.rs",
            "cuda/peers.rs",
            "bin/tool.rs",
        ]
        .map(String::from)
        .to_vec(),
    };
    let docs = |body: &str| {
        format!(
            "# A\n\n## Code map\n\n### `probe/crate/` (`coco-probe`)\n\n{body}\n\n## Passes\n\n`gamma.rs`\n"
        )
    };
    let complete = "`alpha.rs` (a), `probe/crate/src/beta.rs`, `nested/` (`unique.rs`),\n\
                    `{cpu,\ncuda}/peers.rs`, `bin/*.rs`.";
    let crates = std::slice::from_ref(&krate);
    check(&docs(complete), crates).map_err(|e| format!("complete docs were refused: {e}"))?;
    let expect_missing = |text: &str, crates: &[Crate], missing: &str| -> Result<(), String> {
        match check(text, crates) {
            Err(message) if message.contains(missing) => Ok(()),
            other => Err(format!("{missing} was not reported as missing: {other:?}")),
        }
    };
    expect_missing(
        &docs(&complete.replace("`alpha.rs` (a), ", "")),
        crates,
        "probe/crate/src/alpha.rs",
    )?;
    expect_missing(
        &docs(&complete.replace("`{cpu,\ncuda}/peers.rs`", "`cuda/peers.rs`")),
        crates,
        "probe/crate/src/cpu/peers.rs",
    )?;
    expect_missing(
        &docs(&complete.replace("`nested/` ", "")),
        crates,
        "probe/crate/src/nested/unique.rs",
    )?;
    let mut unknown = krate.clone();
    unknown.name = "coco-unmapped".into();
    expect_missing(&docs(complete), &[unknown], "crate coco-unmapped")?;
    // The real docs, with a file no line can name added to a real crate.
    let root = crate::repo_root();
    let real_docs = std::fs::read_to_string(root.join("docs/architecture.md"))
        .map_err(|e| format!("docs/architecture.md: {e}"))?;
    let mut real = workspace_crates(&crate::layers::metadata()?, &root)?;
    let first = real
        .first_mut()
        .ok_or("cargo metadata lists no workspace crate")?;
    first.files.push("fabricated_drift_probe.rs".into());
    let folder = first.folder.clone();
    expect_missing(
        &real_docs,
        &real,
        &format!("{folder}/src/fabricated_drift_probe.rs"),
    )
}
