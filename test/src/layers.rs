//! The crate graph follows the layers (docs/architecture.md): a crate may
//! depend only on the crates [`ALLOWED`] lists for it, and the crates that
//! ship to clusters or must stay small link neither MLIR nor LLVM.
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
    // the compiler
    ("coco-dialects", &["coco-base"]),
    // BigTest: model, solver layer, analysis
    ("coco-dataflow", &["coco-base"]),
    ("coco-smt", &[]),
    (
        "coco-bigtest",
        &["coco-base", "coco-dialects", "coco-dataflow", "coco-smt"],
    ),
    (
        "coco-passes",
        &["coco-base", "coco-dialects", "coco-bigtest"],
    ),
    // df programs exported as PySpark jobs (from the model, no MLIR)
    ("coco-spark", &["coco-dataflow"]),
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
            "coco-spark",
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
            "coco-passes",
            // ptxas on the PTX of every schedule (`compiled.rs`)
            "coco-lowering",
            "coco-bundle",
            "coco-interp",
            "coco-runtime",
            "coco-tools",
            "coco-fault",
        ],
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
        for dependency in package["dependencies"].as_array().into_iter().flatten() {
            // Path dependencies are the workspace's own crates.
            if dependency["path"].is_null() {
                continue;
            }
            let target = dependency["name"].as_str().unwrap_or_default();
            if !may_use.contains(target) {
                problems.push(format!(
                    "{name} depends on {target}, which its layer may not use"
                ));
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

/// `metadata` with one more path dependency `from` → `to`: the check must
/// reject an edge its table does not allow.
pub fn with_edge(metadata: &Value, from: &str, to: &str) -> Value {
    let mut changed = metadata.clone();
    if let Some(packages) = changed["packages"].as_array_mut() {
        for package in packages {
            if package["name"] == from {
                if let Some(deps) = package["dependencies"].as_array_mut() {
                    deps.push(serde_json::json!({
                        "name": to,
                        "path": "/wrong/edge",
                        "kind": null,
                    }));
                }
            }
        }
    }
    changed
}
