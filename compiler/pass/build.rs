//! Extracts the upstream pass list (argument and one-line summary) from
//! `mlir-opt --help`, so `coco-opt --list-passes` and `--<pass>` flags know
//! every pass `mlirRegisterAllPasses` registers. The MLIR 19 C API cannot
//! enumerate the pass registry.

use std::{env, fmt::Write as _, fs, path::PathBuf, process::Command};

fn main() {
    let prefix = env::var("MLIR_SYS_190_PREFIX").unwrap_or_else(|_| "/usr/lib/llvm-19".into());
    let mlir_opt = PathBuf::from(prefix).join("bin/mlir-opt");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MLIR_SYS_190_PREFIX");
    let help = Command::new(&mlir_opt)
        .arg("--help")
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {} ({e}); run scripts/setup.sh",
                mlir_opt.display()
            )
        });
    let text = String::from_utf8_lossy(&help.stdout);

    let mut entries = Vec::new();
    let mut in_passes = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if trimmed == "Passes:" || trimmed == "Pass Pipelines:" {
            in_passes = true;
            continue;
        }
        if !in_passes {
            continue;
        }
        if indent < 4 {
            in_passes = false;
            continue;
        }
        if indent != 6 || !trimmed.starts_with("--") {
            continue;
        }
        let (name, summary) = match trimmed.split_once(" - ") {
            Some((name, summary)) => (name.trim(), summary.trim()),
            None => (trimmed.trim(), ""),
        };
        let name = name.trim_start_matches("--");
        let name = name.split('=').next().unwrap_or(name);
        entries.push((name.to_string(), summary.to_string()));
    }
    assert!(
        entries.len() > 100,
        "found only {} passes in mlir-opt --help",
        entries.len()
    );

    let mut out = String::from("/// Upstream passes and pipelines: (argument, summary).\npub const UPSTREAM_PASSES: &[(&str, &str)] = &[\n");
    for (name, summary) in entries {
        writeln!(out, "    ({name:?}, {summary:?}),").unwrap();
    }
    out.push_str("];\n");
    let path = PathBuf::from(env::var("OUT_DIR").unwrap()).join("upstream_passes.rs");
    fs::write(path, out).unwrap();
}
