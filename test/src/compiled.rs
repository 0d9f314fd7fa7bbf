//! Differential proof of the compiler: every example, as written and under
//! the schedules the passes produce, compiled to native kernels and run by
//! the bundle executor on 1, 2 and 4 MPI ranks (1 and 4 in CI's variant,
//! [`world_sizes`]) must give the reference
//! interpreter's outputs bit for bit (`coco-run --check
//! --exact-reductions --gemm-arithmetic ordered`, which fold collectives in
//! rank order and round GEMM products as the interpreter does), or within
//! tolerance for programs with exp or tanh.

use std::{
    collections::HashMap,
    hash::{DefaultHasher, Hash, Hasher},
    path::Path,
    sync::{Mutex, OnceLock},
};

use coco_lowering::ptxas::KernelResources;

use crate::{coco_opt, coco_run};

/// The world sizes every schedule runs on with `COCO_SLOW_TESTS=1`.
pub const WORLD_SIZES: &[usize] = &[1, 2, 4];

/// The world sizes of CI's variant for the program as written: one rank
/// and a multi-rank world that splits every sliced dimension (2 ranks run
/// in the interpreter's differential trials and the runtime filetests on
/// every push).
pub const CI_WORLD_SIZES: &[usize] = &[1, 4];

/// CI's variant for the transformed schedules: the multi-rank world, where
/// the collectives they rewrite move data.
pub const CI_SCHEDULE_WORLD_SIZES: &[usize] = &[4];

/// [`WORLD_SIZES`] or, by default, [`CI_WORLD_SIZES`].
pub fn world_sizes() -> &'static [usize] {
    if crate::slow_tests() {
        WORLD_SIZES
    } else {
        CI_WORLD_SIZES
    }
}

/// Examples whose every compiled schedule takes about a minute on the
/// 2-core CI machine: CI compiles them as written and under the paper's
/// `fused-rs-c-ag`, and the other schedules with `COCO_SLOW_TESTS=1`.
const HEAVY: &[&str] = &["megatron_attention.mlir"];

/// Whether schedule `name` of example `path` waits for `COCO_SLOW_TESTS=1`.
pub fn heavy_in_ci(path: &str, name: &str) -> bool {
    HEAVY.iter().any(|heavy| path.ends_with(heavy))
        && !matches!(name, "as-written" | "fused-rs-c-ag")
}

/// The world sizes schedule `name` runs on out of `sizes` (the program's
/// own): all of them for the program as written and with
/// `COCO_SLOW_TESTS=1`; otherwise those of [`CI_SCHEDULE_WORLD_SIZES`] it
/// allows.
pub fn schedule_world_sizes(name: &str, sizes: &'static [usize]) -> Vec<usize> {
    if crate::slow_tests() || name == "as-written" {
        return sizes.to_vec();
    }
    let chosen: Vec<usize> = sizes
        .iter()
        .copied()
        .filter(|n| CI_SCHEDULE_WORLD_SIZES.contains(n))
        .collect();
    if chosen.is_empty() {
        sizes.iter().copied().max().into_iter().collect()
    } else {
        chosen
    }
}

/// ptxas's reports by (hash and length of the PTX, chip).
type Assembled = HashMap<(u64, usize, String), Vec<KernelResources>>;

/// ptxas's report on `ptx` for `chip`, assembled once per distinct text in
/// this process: many schedules of an example lower to the same PTX, and
/// ptxas is deterministic, so one answer serves them all. Failures are not
/// kept (each caller reports its own).
fn assemble(ptxas: &Path, ptx: &str, chip: &str) -> Result<Vec<KernelResources>, String> {
    static ASSEMBLED: OnceLock<Mutex<Assembled>> = OnceLock::new();
    let mut hasher = DefaultHasher::new();
    ptx.hash(&mut hasher);
    let key = (hasher.finish(), ptx.len(), chip.to_string());
    let assembled = ASSEMBLED.get_or_init(Default::default);
    if let Some(kernels) = assembled.lock().map_err(|e| e.to_string())?.get(&key) {
        return Ok(kernels.clone());
    }
    let kernels = coco_lowering::ptxas::assemble(ptxas, ptx, chip).map_err(|e| e.to_string())?;
    assembled
        .lock()
        .map_err(|e| e.to_string())?
        .insert(key, kernels.clone());
    Ok(kernels)
}

/// The schedules each example is compiled under: as written, the
/// autotuner's choice, and the CoCoNet pipelines.
/// The schedule of [`SCHEDULES`] that computes reductions from slices.
pub const PARTIAL_REDUCE: &str = "fused-partial-reduce";
/// [`PARTIAL_REDUCE`] without fusion (also only for programs that reduce).
pub const PARTIAL_REDUCE_UNFUSED: &str = "partial-reduce";

pub const SCHEDULES: &[(&str, &[&str])] = &[
    ("as-written", &[]),
    // Planned for the largest world size it runs on: a choice for 4 ranks
    // runs on 2 and 1 too, where one for the preset's 256 need not run at
    // all (the autotuner refuses what 256 ranks cannot divide).
    ("autotuned", &["--coco-autotune=v100-cluster", "--autotune-ranks=4"]),
    (
        "fused-rs-c-ag",
        &["--pass-pipeline=builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-fuse)"],
    ),
    // Only for programs with a norm or reduce_elements (elsewhere it is
    // fused-rs-c-ag): partial reductions and a scalar all_reduce inside the
    // fused collective.
    (
        PARTIAL_REDUCE,
        &["--pass-pipeline=builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-as-slice,canonicalize,coco-partial-reduce,canonicalize,cse,coco-fuse)"],
    ),
    // The same without coco-fuse: each computation a kernel of its own, so
    // a norm's kernel is given the squares rather than squaring in its loop.
    (
        PARTIAL_REDUCE_UNFUSED,
        &["--pass-pipeline=builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-partial-reduce)"],
    ),
    (
        "overlap-chunked",
        &["--pass-pipeline=builtin.module(coco-overlap{chunks=2})"],
    ),
    (
        "fused-overlap-tiled",
        &["--pass-pipeline=builtin.module(coco-split,coco-reorder,canonicalize,cse,coco-fuse,coco-overlap,coco-tile)"],
    ),
];

/// Runs one example under one schedule on each of `world_sizes`.
pub fn check(path: &str, schedule: &[&str], world_sizes: &[usize]) -> Result<(), String> {
    // exp and tanh are libm in the interpreter and MLIR's expansions in the
    // kernels (docs/getting-started.md): within tolerance, not bitwise.
    let source = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let transcendental = ["math.exp", "math.tanh", "coco.softmax"]
        .iter()
        .any(|op| source.contains(op));
    let mut args = vec![path];
    args.extend(schedule);
    let out = coco_opt(&args, None);
    if out.code != 0 {
        return Err(format!(
            "coco-opt {} failed:\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let dir = std::env::temp_dir().join("coco-filetests").join("compiled");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let name = format!(
        "{}-{}.mlir",
        path.replace(['/', '.'], "_"),
        schedule
            .join("_")
            .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
    );
    let file = dir.join(name);
    std::fs::write(&file, &out.stdout).map_err(|e| e.to_string())?;
    // PTX for the largest world it runs on (a mesh program has only one).
    let ptx_ranks = world_sizes.iter().copied().max().unwrap_or(4).to_string();
    check_ptx(&file.to_string_lossy(), &ptx_ranks)?;
    for &ranks in world_sizes {
        let stdout = checked_run(&file.to_string_lossy(), ranks, &[])?;
        if !agrees(&stdout, transcendental) {
            return Err(format!(
                "{ranks} ranks: outputs are not bitwise equal{}:\n{stdout}",
                if transcendental {
                    " or within tolerance"
                } else {
                    ""
                }
            ));
        }
    }
    Ok(())
}

/// `coco-run FILE --backend cpu --check --exact-reductions` with the test
/// suite's seed on `ranks` ranks, plus `extra` (and `--gemm-arithmetic
/// ordered` unless `extra` chooses): its standard output, or why it failed.
fn checked_run(file: &str, ranks: usize, extra: &[&str]) -> Result<String, String> {
    let ranks_text = ranks.to_string();
    let mut args = vec![
        file,
        "--backend",
        "cpu",
        "--ranks",
        &ranks_text,
        "--seed",
        "5",
        "--check",
        "--exact-reductions",
    ];
    if !extra.contains(&"--gemm-arithmetic") {
        args.extend(["--gemm-arithmetic", "ordered"]);
    }
    args.extend(extra);
    let run = coco_run(&args);
    let stdout = String::from_utf8_lossy(&run.stdout).into_owned();
    if run.code != 0 {
        return Err(format!(
            "{ranks} ranks: coco-run {} failed:\n{stdout}{}",
            extra.join(" "),
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    Ok(stdout)
}

/// Whether `--check` compared at least one output and found each bitwise
/// equal, or (`tolerated`) within tolerance; an output that was NaN or
/// infinite everywhere on both sides compared nothing and does not agree.
/// coco-run has failed already if any output is out of tolerance.
fn agrees(check_stdout: &str, tolerated: bool) -> bool {
    let verdicts: Vec<&str> = check_stdout
        .lines()
        .filter(|l| l.starts_with("  "))
        .collect();
    !verdicts.is_empty()
        && verdicts.iter().all(|l| {
            l.ends_with("bitwise equal") || (tolerated && l.contains("largest relative error"))
        })
}

/// `path` as written with the native kernels' reductions in the GPU's
/// tree order (`--cpu-reductions tree`), on each of `world_sizes`: the
/// trees' indexing (strided partials, rows of any dimensions, bounds)
/// runs, and must agree with the interpreter within `--check`'s tolerance
/// (the order differs, so not bitwise).
pub fn check_tree_reductions(path: &str, world_sizes: &[usize]) -> Result<(), String> {
    for &ranks in world_sizes {
        let stdout = checked_run(path, ranks, &["--cpu-reductions", "tree"])?;
        if !agrees(&stdout, true) {
            return Err(format!(
                "{ranks} ranks: --cpu-reductions tree: outputs are not within tolerance:\n{stdout}"
            ));
        }
    }
    Ok(())
}

/// `path` as written with its GEMMs in fused multiply-adds (coco-run's
/// default, docs/gemm.md), on each of `world_sizes`: within `--check`'s
/// tolerance of the interpreter (one rounding per product instead of two,
/// so not bitwise).
pub fn check_fused_gemms(path: &str, world_sizes: &[usize]) -> Result<(), String> {
    for &ranks in world_sizes {
        let stdout = checked_run(path, ranks, &["--gemm-arithmetic", "fused"])?;
        if !agrees(&stdout, true) {
            return Err(format!(
                "{ranks} ranks: --gemm-arithmetic fused: outputs are not within tolerance:\n{stdout}"
            ));
        }
    }
    Ok(())
}

/// `path` as written with its GEMMs as the GPU's tiled kernels run on the
/// CPU (`--gemm gpu-tiles`, ordered arithmetic), on each of `world_sizes`:
/// the tiles' indexing (blocks, shared tiles, each thread's rows and
/// columns, vector loads) at the example's shapes, within `--check`'s
/// tolerance (bitwise where the program's other kernels are).
pub fn check_gpu_tiles(path: &str, world_sizes: &[usize]) -> Result<(), String> {
    for &ranks in world_sizes {
        let stdout = checked_run(path, ranks, &["--gemm", "gpu-tiles"])?;
        if !agrees(&stdout, true) {
            return Err(format!(
                "{ranks} ranks: --gemm gpu-tiles: outputs are not within tolerance:\n{stdout}"
            ));
        }
    }
    Ok(())
}

/// The chips every PTX is assembled for: the A100's and the H100's.
pub const PTXAS_CHIPS: &[&str] = &["sm_80", "sm_90"];

/// Every kernel of the program has a GPU launch list whose entry points
/// are defined exactly once in the PTX; the PTX with coco's fallback math
/// needs nothing outside itself (no `.extern`); and NVIDIA's ptxas
/// assembles it, and the PTX with libdevice linked, for every chip of
/// [`PTXAS_CHIPS`] without an error or a warning and without spilling a
/// register.
fn check_ptx(file: &str, ranks: &str) -> Result<(), String> {
    let cuda = crate::cuda_path().display().to_string();
    let translate = |extra: &[&str]| -> Result<String, String> {
        let mut args: Vec<String> = ["coco-translate", file, "--ranks", ranks]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(extra.iter().map(|s| s.to_string()));
        let out = coco_tools::translate::run(&args, None);
        if out.code != 0 {
            return Err(format!(
                "coco-translate {} failed:\n{}",
                extra.join(" "),
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let plan_text = translate(&["--emit=plan"])?;
    let plan = coco_bundle::Plan::parse(&plan_text, std::path::Path::new("plan.toml"))
        .map_err(|e| e.to_string())?;
    // Emitted for the oldest chip of PTXAS_CHIPS, whose PTX the newer
    // chips' ptxas also takes; with coco's fallback math, then libdevice.
    let fallback = translate(&["--emit=ptx", "--chip", PTXAS_CHIPS[0]])?;
    let libdevice = translate(&["--emit=ptx", "--chip", PTXAS_CHIPS[0], "--cuda-path", &cuda])?;
    if fallback.contains(".extern") {
        return Err("the PTX declares external functions".into());
    }
    for kernel in &plan.kernels {
        if kernel.gpu_launches.is_empty() {
            return Err(format!(
                "kernel {} ({:?}) has no GPU launches",
                kernel.name, kernel.computes
            ));
        }
        for launch in &kernel.gpu_launches {
            let definitions = fallback
                .matches(&format!(".visible .entry {}(", launch.entry))
                .count();
            if definitions != 1 {
                return Err(format!(
                    "entry {} is defined {definitions} times in the PTX",
                    launch.entry
                ));
            }
        }
    }
    let ptxas = crate::cuda_path().join("bin/ptxas");
    for (math, ptx) in [("fallback math", &fallback), ("libdevice", &libdevice)] {
        for chip in PTXAS_CHIPS {
            let kernels =
                assemble(&ptxas, ptx, chip).map_err(|e| format!("{math}, {chip}: {e}"))?;
            if let Some(k) = kernels.iter().find(|k| k.spill_stores + k.spill_loads > 0) {
                return Err(format!(
                    "{math}, {chip}: {} spills ({} bytes stored, {} loaded)",
                    k.entry, k.spill_stores, k.spill_loads
                ));
            }
        }
    }
    Ok(())
}

/// `path` under a differential pipeline (`--pass-pipeline`), compiled for
/// `ranks` with libdevice linked and assembled by ptxas for every chip of
/// [`PTXAS_CHIPS`] without an error, a warning or a spill. The PTX is
/// emitted once, for the oldest chip: ptxas takes it for the newer ones.
/// `assembled` holds the programs already assembled: a pipeline that
/// leaves the program as another one did (many leave an example as
/// written) gives the same PTX, so it is not assembled again.
pub fn assemble_pipeline(
    path: &str,
    pipeline: &str,
    ranks: usize,
    assembled: &mut std::collections::HashSet<Vec<u8>>,
) -> Result<(), String> {
    let out = coco_opt(
        &[path, &format!("--pass-pipeline=builtin.module({pipeline})")],
        None,
    );
    if out.code != 0 {
        return Err(format!(
            "{pipeline} failed on {path}:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if !assembled.insert(out.stdout.clone()) {
        return Ok(());
    }
    let cuda = crate::cuda_path().display().to_string();
    let args: Vec<String> = [
        "coco-translate",
        "-",
        "--emit=ptx",
        "--ranks",
        &ranks.to_string(),
        "--chip",
        PTXAS_CHIPS[0],
        "--cuda-path",
        &cuda,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let translated = coco_tools::translate::run(&args, Some(&out.stdout));
    if translated.code != 0 {
        return Err(format!(
            "coco-translate --ranks {ranks} failed:\n{}",
            String::from_utf8_lossy(&translated.stderr)
        ));
    }
    let ptx = String::from_utf8_lossy(&translated.stdout);
    if ptx.is_empty() {
        return Ok(());
    }
    let ptxas = crate::cuda_path().join("bin/ptxas");
    for chip in PTXAS_CHIPS {
        let kernels = assemble(&ptxas, &ptx, chip).map_err(|e| format!("{chip}: {e}"))?;
        if let Some(k) = kernels.iter().find(|k| k.spill_stores + k.spill_loads > 0) {
            return Err(format!("{chip}: {} spills", k.entry));
        }
    }
    Ok(())
}

/// Runs `path` as written on one GPU with the CUDA backend and checks it
/// against the interpreter (exp and tanh are approximations on the GPU, so
/// within tolerance rather than bitwise).
pub fn check_cuda(path: &str) -> Result<(), String> {
    let run = coco_run(&[
        path,
        "--backend",
        "cuda",
        "--ranks",
        "1",
        "--seed",
        "5",
        "--check",
    ]);
    if run.code != 0 {
        return Err(format!(
            "coco-run --backend cuda failed:\n{}{}",
            String::from_utf8_lossy(&run.stdout),
            String::from_utf8_lossy(&run.stderr)
        ));
    }
    Ok(())
}
