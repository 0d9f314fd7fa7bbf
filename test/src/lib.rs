//! The filetest harness (named after cranelift-filetests).
//!
//! A test is a `.mlir` file under `test/` with `// RUN:` lines, as in LLVM's
//! lit: `// RUN: coco-opt %s --split-input-file | FileCheck %s`. Stages are
//! separated by `|`; `coco-opt` stages run in-process through
//! `coco_tools::opt::run`, so the whole suite links MLIR once; `FileCheck` is
//! LLVM's own (llvm-19-tools). `not` expects a non-zero exit and `2>&1`
//! merges stderr into stdout. A RUN line with FileCheck is decided by its
//! CHECK lines; one without FileCheck that prints something is an insta
//! snapshot in `test/snapshots` (reviewed with `cargo insta review`), since
//! there the output itself is the spec. `// REQUIRES: slow` files run only
//! with `COCO_SLOW_TESTS=1`.

pub mod builders;
pub mod compiled;
pub mod cpython_text;
pub mod differential;
pub mod docs_drift;
pub mod export_limits;
pub mod export_names;
pub mod fuzz;
pub mod gpu_resources;
pub mod layers;
pub mod natural_data;
pub mod oracles;
pub mod pyspark_jobs;
pub mod random_programs;
pub mod run_line;
pub mod runner;
pub mod spark;
pub mod spark_cli;
pub mod spark_coverage;
pub mod world_sizes;
pub mod writes;

use std::path::{Path, PathBuf};

/// Whether the slow cases run (`COCO_SLOW_TESTS=1`): `REQUIRES: slow`
/// files and the larger world sizes. CI runs without; bench/ and releases
/// with.
pub fn slow_tests() -> bool {
    std::env::var_os("COCO_SLOW_TESTS").is_some_and(|v| v == "1")
}

/// The `test/` directory (the harness's working directory).
pub fn test_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    test_dir()
        .parent()
        .expect("test/ has a parent")
        .to_path_buf()
}

/// NVIDIA's tools for the PTX checks (`%cuda` in RUN lines): the
/// nvidia-cuda-nvcc-cu12 wheel's `nvidia/cuda_nvcc` in the project's
/// `.venv` (scripts/setup.sh installs it), or `$COCO_TEST_CUDA_PATH`. When
/// neither exists the path still names the expected place, so that
/// coco-translate's error says what is missing.
pub fn cuda_path() -> PathBuf {
    if let Some(path) = std::env::var_os("COCO_TEST_CUDA_PATH") {
        return PathBuf::from(path);
    }
    let lib = repo_root().join(".venv/lib");
    let found = std::fs::read_dir(&lib).ok().and_then(|entries| {
        entries
            .flatten()
            .map(|e| e.path().join("site-packages/nvidia/cuda_nvcc"))
            .find(|p| p.is_dir())
    });
    found.unwrap_or_else(|| lib.join("python3/site-packages/nvidia/cuda_nvcc"))
}

/// Every `.mlir` file under `dir`, sorted, as paths relative to `base`.
pub fn mlir_files(dir: &Path, base: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path
                    .file_name()
                    .is_some_and(|n| n != "snapshots" && n != "target")
                {
                    stack.push(path);
                }
            } else if path.extension().is_some_and(|e| e == "mlir") {
                out.push(relative(&path, base));
            }
        }
    }
    out.sort();
    out
}

/// `path` relative to `base`, with `..` where needed.
pub fn relative(path: &Path, base: &Path) -> PathBuf {
    let path: Vec<_> = path.components().collect();
    let base: Vec<_> = base.components().collect();
    let common = path.iter().zip(&base).take_while(|(a, b)| a == b).count();
    let mut out = PathBuf::new();
    for _ in common..base.len() {
        out.push("..");
    }
    for component in &path[common..] {
        out.push(component);
    }
    out
}

/// Runs coco-opt in-process with `args` (without the program name).
pub fn coco_opt(args: &[&str], stdin: Option<&[u8]>) -> coco_tools::Output {
    let mut full = vec!["coco-opt".to_string()];
    full.extend(args.iter().map(|s| s.to_string()));
    coco_tools::opt::run(&full, stdin)
}

/// Runs coco-run in-process with `args` (without the program name).
pub fn coco_run(args: &[&str]) -> coco_tools::Output {
    let mut full = vec!["coco-run".to_string()];
    full.extend(args.iter().map(|s| s.to_string()));
    coco_tools::run::run(&full)
}

/// `coco-run PATH --backend reference --ranks RANKS --seed 1 EXTRA...`.
pub fn run_reference(path: &str, ranks: usize, extra: &[&str]) -> coco_tools::Output {
    let ranks = ranks.to_string();
    let mut args = vec![
        path,
        "--backend",
        "reference",
        "--ranks",
        &ranks,
        "--seed",
        "1",
    ];
    args.extend(extra);
    coco_run(&args)
}

/// Generated docs (`docs/dialects/*.md`, `docs/passes.md`) match their
/// sources; with `COCO_BLESS=1` they are rewritten instead.
pub fn docs_current() -> Result<(), String> {
    let docs = repo_root().join("docs");
    let mut expected: Vec<(PathBuf, String)> = coco_dialects::docs::GENERATED_DIALECT_DOCS
        .iter()
        .map(|(name, text)| {
            let header = "<!-- Generated by mlir-tblgen --gen-dialect-doc from compiler/dialects/td; do not edit.\n     \
                          Regenerate: COCO_BLESS=1 cargo test -p coco-filetests --test filetests -- docs -->\n\n";
            (docs.join("dialects").join(name), format!("{header}{text}"))
        })
        .collect();
    expected.push((
        docs.join("passes.md"),
        coco_pass::docs::passes_markdown(&coco_tools::passes::REGISTRY),
    ));
    expected.push((docs.join("gpu-resources.md"), gpu_resources::markdown()?));
    let bless = std::env::var("COCO_BLESS").is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    for (path, text) in expected {
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current == text {
            continue;
        }
        if bless {
            std::fs::create_dir_all(path.parent().expect("has a parent"))
                .map_err(|e| e.to_string())?;
            std::fs::write(&path, text).map_err(|e| e.to_string())?;
        } else {
            stale.push(path.display().to_string());
        }
    }
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "generated docs are stale: {}\nregenerate with COCO_BLESS=1 cargo test -p coco-filetests --test filetests -- docs",
            stale.join(", ")
        ))
    }
}
