//! The crate graph follows the layers (docs/architecture.md): a crate may
//! depend only on the crates [`ALLOWED`] lists for it, a crate's folder (its
//! wing) may use only the folders [`WINGS`] lists for it, and the crates
//! that ship to clusters or must stay small link neither MLIR nor LLVM.
//!
//! Read from `cargo metadata`, so a new `[dependencies]` line that breaks
//! the layering fails the suite, whatever the code does with it.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// Every workspace crate and the workspace crates it may depend on (normal,
/// build and dev dependencies alike), lowest layer first. This is the only
/// place the allowed edges are written.
pub const ALLOWED: &[(&str, &[&str])] = &[
    // shared leaf
    ("coco-base", &[]),
    // the compiler: dialects, the pass framework, the CoCoNet passes
    ("coco-dialects", &["coco-base"]),
    ("coco-pass", &["coco-dialects"]),
    ("coco-passes", &["coco-base", "coco-dialects", "coco-pass"]),
    // BigTest: model, solver layer, analysis, its passes
    ("coco-dataflow", &["coco-base"]),
    ("coco-smt", &[]),
    (
        "coco-bigtest",
        &[
            "coco-base",
            "coco-dialects",
            "coco-pass",
            "coco-dataflow",
            "coco-smt",
        ],
    ),
    (
        "coco-bigtest-passes",
        &["coco-dialects", "coco-pass", "coco-bigtest"],
    ),
    // df programs exported as PySpark jobs (from the model, no MLIR)
    ("coco-spark", &["coco-base", "coco-dataflow"]),
    // PySpark jobs read as df programs (text out, no MLIR); the pytest
    // module writes the model's values as the export writes Python
    ("coco-pyspark", &["coco-dataflow", "coco-spark"]),
    // the runtime's format, then the compiler's lowering that writes it
    ("coco-bundle", &["coco-base"]),
    (
        "coco-lowering",
        &["coco-base", "coco-bundle", "coco-dialects"],
    ),
    // the runtime
    ("coco-interp", &["coco-base", "coco-dialects"]),
    ("coco-runtime", &["coco-base", "coco-bundle"]),
    // tools and tests sit on top; the fault harness drives the built
    // tools as processes and links none of them
    ("coco-fault", &[]),
    (
        "coco-tools",
        &[
            "coco-base",
            "coco-dialects",
            "coco-dataflow",
            "coco-bigtest",
            "coco-bigtest-passes",
            "coco-spark",
            "coco-pyspark",
            "coco-pass",
            "coco-passes",
            "coco-bundle",
            "coco-lowering",
            "coco-interp",
            "coco-runtime",
        ],
    ),
    (
        "coco-filetests",
        &[
            "coco-base",
            "coco-dialects",
            "coco-pass",
            "coco-passes",
            // ptxas on the PTX of every schedule (`compiled.rs`)
            "coco-lowering",
            "coco-bundle",
            "coco-interp",
            "coco-runtime",
            "coco-tools",
            "coco-fault",
            // Python's text functions as the interpreter gives them,
            // against CPython (`cpython_text.rs`)
            "coco-dataflow",
        ],
    ),
];

/// Folders are wings: a crate under the first folder may depend only on
/// crates under the listed folders. The compiler reaches into one other
/// wing, for the bundle format its lowering writes (as IREE's compiler
/// writes its runtime's schemas); it never uses BigTest, whose passes build
/// on the compiler's framework instead.
pub const WINGS: &[(&str, &[&str])] = &[
    ("base", &[]),
    ("compiler", &["base", "compiler", "runtime/bundle"]),
    ("runtime", &["base", "runtime", "compiler/dialects"]),
    ("bigtest", &["base", "compiler", "bigtest"]),
    ("bench", &[]),
    ("tools", &["base", "compiler", "runtime", "bigtest"]),
    (
        "test",
        &["base", "compiler", "runtime", "bigtest", "tools", "bench"],
    ),
];

/// Crates that must not depend on MLIR or LLVM, even indirectly: the bundle
/// executor ships to clusters as a small binary, and the shared leaf, the
/// bundle format and the df model are used without an MLIR context.
pub const WITHOUT_MLIR: &[&str] = &[
    "coco-base",
    "coco-bundle",
    "coco-runtime",
    "coco-dataflow",
    "coco-spark",
    "coco-pyspark",
    "coco-smt",
    "coco-fault",
];

const MLIR_OR_LLVM: &[&str] = &["mlir-sys", "melior", "llvm-sys", "inkwell"];

/// The output of `cargo metadata --format-version 1` for the workspace.
pub fn metadata() -> Result<Value, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1"])
        .current_dir(crate::repo_root())
        .output()
        .map_err(|e| format!("cannot run cargo metadata: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "cargo metadata failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    serde_json::from_slice(&output.stdout).map_err(|e| format!("cargo metadata: {e}"))
}

/// Every violation of [`ALLOWED`] and [`WITHOUT_MLIR`] in `metadata`, one
/// per line; `Ok` when there is none.
pub fn check(metadata: &Value) -> Result<(), String> {
    let allowed: BTreeMap<&str, BTreeSet<&str>> = ALLOWED
        .iter()
        .map(|(name, deps)| (*name, deps.iter().copied().collect()))
        .collect();
    let packages = metadata["packages"].as_array().cloned().unwrap_or_default();
    let members: BTreeSet<String> = metadata["workspace_members"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| m.as_str().map(str::to_string))
        .collect();
    let mut problems = Vec::new();
    let mut workspace = BTreeSet::new();
    for package in packages
        .iter()
        .filter(|p| p["id"].as_str().is_some_and(|id| members.contains(id)))
    {
        let name = package["name"].as_str().unwrap_or_default();
        workspace.insert(name.to_string());
        let Some(may_use) = allowed.get(name) else {
            problems.push(format!(
                "{name} is not in test/src/layers.rs ALLOWED: give it a layer"
            ));
            continue;
        };
        let wing = folder_of(package["manifest_path"].as_str().unwrap_or_default());
        for dependency in package["dependencies"].as_array().into_iter().flatten() {
            // Path dependencies are the workspace's own crates.
            let Some(path) = dependency["path"].as_str() else {
                continue;
            };
            let target = dependency["name"].as_str().unwrap_or_default();
            if !may_use.contains(target) {
                problems.push(format!(
                    "{name} depends on {target}, which its layer may not use"
                ));
            }
            if let Some(problem) = wing_problem(name, &wing, target, &folder_of(path)) {
                problems.push(problem);
            }
        }
    }
    for name in allowed.keys() {
        if !workspace.contains(*name) {
            problems.push(format!(
                "ALLOWED names {name}, which is not a workspace crate"
            ));
        }
    }
    problems.extend(mlir_problems(metadata));
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// A path's folder relative to the repository (`compiler/pass` for
/// `.../compiler/pass/Cargo.toml` or `.../compiler/pass`).
fn folder_of(path: &str) -> String {
    let root = crate::repo_root();
    let path = std::path::Path::new(path);
    let path = if path.ends_with("Cargo.toml") {
        path.parent().unwrap_or(path)
    } else {
        path
    };
    path.strip_prefix(&root)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| path.to_string_lossy().into_owned())
}

/// Why crate `name` in folder `from` may not use `target` in folder `to`,
/// by [`WINGS`].
fn wing_problem(name: &str, from: &str, target: &str, to: &str) -> Option<String> {
    let wing = from.split('/').next().unwrap_or_default();
    let Some((_, may_use)) = WINGS.iter().find(|(w, _)| *w == wing) else {
        return Some(format!(
            "{name} lives in {from}/, a folder test/src/layers.rs WINGS does not name"
        ));
    };
    let inside = |folder: &str| to == folder || to.starts_with(&format!("{folder}/"));
    (!may_use.iter().any(|folder| inside(folder))).then(|| {
        format!("{name} ({from}/) depends on {target} ({to}/): the {wing}/ wing may not use that folder")
    })
}

/// Crates of [`WITHOUT_MLIR`] that reach MLIR or LLVM through the resolved
/// graph (normal and build dependencies: what their binaries link).
fn mlir_problems(metadata: &Value) -> Vec<String> {
    let nodes = metadata["resolve"]["nodes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let name_of = |id: &str| -> String {
        metadata["packages"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|p| p["id"].as_str() == Some(id))
            .and_then(|p| p["name"].as_str())
            .unwrap_or_default()
            .to_string()
    };
    let mut edges: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for node in &nodes {
        let id = node["id"].as_str().unwrap_or_default().to_string();
        let linked: Vec<String> = node["deps"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| {
                d["dep_kinds"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|k| k["kind"].as_str() != Some("dev"))
            })
            .filter_map(|d| d["pkg"].as_str().map(str::to_string))
            .collect();
        edges.insert(id, linked);
    }
    let mut problems = Vec::new();
    for node in &nodes {
        let id = node["id"].as_str().unwrap_or_default();
        let name = name_of(id);
        if !WITHOUT_MLIR.contains(&name.as_str()) {
            continue;
        }
        let mut seen = BTreeSet::new();
        let mut stack = vec![id.to_string()];
        while let Some(current) = stack.pop() {
            if !seen.insert(current.clone()) {
                continue;
            }
            let current_name = name_of(&current);
            if MLIR_OR_LLVM.contains(&current_name.as_str()) {
                problems.push(format!("{name} links {current_name} (MLIR/LLVM)"));
                break;
            }
            stack.extend(edges.get(&current).cloned().unwrap_or_default());
        }
    }
    problems
}

/// `metadata` with one more path dependency `from` → `to` (at `to`'s real
/// folder): the check must reject an edge its tables do not allow.
pub fn with_edge(metadata: &Value, from: &str, to: &str) -> Value {
    let path = metadata["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|p| p["name"] == to)
        .and_then(|p| p["manifest_path"].as_str())
        .map(|m| m.trim_end_matches("/Cargo.toml").to_string())
        .unwrap_or_else(|| "/wrong/edge".into());
    let mut changed = metadata.clone();
    if let Some(packages) = changed["packages"].as_array_mut() {
        for package in packages {
            if package["name"] == from {
                if let Some(deps) = package["dependencies"].as_array_mut() {
                    deps.push(serde_json::json!({
                        "name": to,
                        "path": path,
                        "kind": null,
                    }));
                }
            }
        }
    }
    changed
}
