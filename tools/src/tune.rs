//! `coco-translate --tune-gemms FILE`: measures cache blockings for the
//! program's CPU GEMMs on this machine and records the fastest of each in
//! FILE, a tile table that `--gemm-tiles FILE` (coco-translate, coco-run)
//! applies to GEMMs without a `coco.tile` (docs/gemm.md, "Tuned tiles").
//!
//! Each GEMM shape is compiled once as a program of one matmul per
//! candidate blocking (the same operands, a `coco.tile` each), and every
//! kernel is timed in this process on one thread (`coco_runtime::
//! time_kernels`: the fastest of several runs). The default blocking is
//! always a candidate, so a tuned table is never slower than no table on
//! the machine that measured it, noise aside.

use std::{fmt::Write as _, path::Path};

use coco_lowering::{
    compile,
    gemm::{
        self,
        tuned::{GemmKey, TileTable, TunedTile},
        Blocking, Gemm,
    },
    native, write_bundle, Options,
};
use coco_runtime::job::TempDir;

use crate::source;

const PROGRAM: &str = "coco-translate";

/// Rows of A per block (`MC`) tried; columns (`NC`) stay the default.
const ROWS: [usize; 3] = [96, 192, 384];

/// Depths (`KC`) tried: around the default of the kind of helper.
const DEPTHS: [usize; 3] = [128, 256, 512];
const DOT_DEPTHS: [usize; 3] = [256, 512, 1024];

/// The candidate blockings of `gemm`: distinct as the helper runs them
/// (clamped to the matrix, rounded to register tiles), the default first.
fn candidates(gemm: &Gemm) -> Vec<Blocking> {
    let depths = if gemm.bf16_dot { DOT_DEPTHS } else { DEPTHS };
    let default = Blocking {
        depth: if gemm.bf16_dot {
            gemm::BF16_DOT_DEPTH
        } else {
            gemm::DEFAULT_BLOCKING.depth
        },
        ..gemm::DEFAULT_BLOCKING
    };
    let mut seen: Vec<Blocking> = Vec::new();
    let mut out = Vec::new();
    let all = std::iter::once(default).chain(ROWS.iter().flat_map(|&rows| {
        depths.iter().map(move |&depth| Blocking {
            rows,
            cols: gemm::DEFAULT_BLOCKING.cols,
            depth,
        })
    }));
    for blocking in all {
        let effective = Gemm { blocking, ..*gemm }.effective_blocking();
        if !seen.contains(&effective) {
            seen.push(effective);
            out.push(effective);
        }
    }
    out
}

/// One program computing `a b` once per blocking, each with its tile.
fn program(gemm: &Gemm, blockings: &[Blocking]) -> String {
    let t = gemm.element.name();
    let (m, n, k) = (gemm.m, gemm.n, gemm.k);
    let ta = format!("tensor<{m}x{k}x{t}, #coco.replicated>");
    let tb = format!("tensor<{k}x{n}x{t}, #coco.replicated>");
    let tc = format!("tensor<{m}x{n}x{t}, #coco.replicated>");
    let mut body = String::new();
    let mut results = Vec::new();
    for (i, b) in blockings.iter().enumerate() {
        let _ = writeln!(
            body,
            "  %c{i} = coco.matmul %a, %b {{coco.tile = array<i64: {}, {}, {}>}} : {ta}, {tb} -> {tc}",
            b.rows, b.cols, b.depth
        );
        results.push(format!("%c{i}"));
    }
    let types = vec![tc.as_str(); blockings.len()].join(", ");
    format!(
        "func.func @tune(%a: {ta}, %b: {tb}) -> ({types}) {{\n{body}  return {} : {types}\n}}\n",
        results.join(", ")
    )
}

/// Measures every GEMM of `gemms` (the generated ones; library calls have
/// no blocking) compiled as `options` says, records the fastest blocking
/// of each in the table at `path` (created, or updated: other entries
/// stay), and says what it found.
pub fn tune_gemms(gemms: &[Gemm], options: &Options, path: &Path) -> Result<String, String> {
    // Only a new file or an existing tile table is written: anything else
    // (a project's Cargo.toml is TOML too) is the user's and left alone.
    let mut table = if path.exists() {
        TileTable::load(path).map_err(|e| {
            format!("--tune-gemms: {e}; it writes only a new file or a tile table, so the file is left alone")
        })?
    } else {
        TileTable::default()
    };
    let cpu = native::cpu_name(&options.cpu);
    let mut report = String::new();
    let _ = writeln!(
        report,
        "{:<26} {:>5} {:>8} {:>18} {:>10} {:>18} {:>10} {:>8}",
        "gemm (m x n x k)", "type", "arith", "default", "ms", "fastest", "ms", "speedup"
    );
    // A batched product runs its 2-D helper per matrix: tune that.
    let mut shapes: Vec<Gemm> = Vec::new();
    for gemm in gemms.iter().filter(|g| !g.library) {
        let plain = Gemm {
            batch: None,
            rounds_to: None,
            ..*gemm
        };
        if !shapes.iter().any(|s| same_key(s, &plain)) {
            shapes.push(plain);
        }
    }
    if shapes.is_empty() {
        report.push_str("(the program has no generated CPU GEMMs: nothing to tune)\n");
        return Ok(report);
    }
    for gemm in &shapes {
        let blockings = candidates(gemm);
        let times = measure(gemm, &blockings, options)?;
        let (best, best_s) = blockings
            .iter()
            .zip(&times)
            .min_by(|a, b| a.1.total_cmp(b.1))
            .map(|(b, t)| (*b, *t))
            .expect("at least the default blocking");
        let show = |b: &Blocking| format!("{}x{}x{}", b.rows, b.cols, b.depth);
        let _ = writeln!(
            report,
            "{:<26} {:>5} {:>8} {:>18} {:>10.3} {:>18} {:>10.3} {:>7.2}x",
            format!("{} x {} x {}", gemm.m, gemm.n, gemm.k),
            gemm.element.name(),
            gemm.arithmetic.name(),
            show(&blockings[0]),
            times[0] * 1e3,
            show(&best),
            best_s * 1e3,
            times[0] / best_s
        );
        table.insert(TunedTile {
            key: GemmKey {
                cpu: cpu.clone(),
                m: gemm.m,
                n: gemm.n,
                k: gemm.k,
                element: gemm.element,
                arithmetic: gemm.arithmetic,
            },
            tile: [best.rows, best.cols, best.depth],
            ms: best_s * 1e3,
        });
    }
    table.save(path).map_err(|e| e.to_string())?;
    let _ = writeln!(
        report,
        "{} GEMM(s) tuned for {cpu}: {} (apply with --gemm-tiles)",
        shapes.len(),
        path.display()
    );
    Ok(report)
}

/// Whether `a` and `b` are measured as one: the table's key.
fn same_key(a: &Gemm, b: &Gemm) -> bool {
    (a.m, a.n, a.k, a.element, a.arithmetic) == (b.m, b.n, b.k, b.element, b.arithmetic)
}

/// Seconds per run of `gemm` with each of `blockings`, in order.
fn measure(gemm: &Gemm, blockings: &[Blocking], options: &Options) -> Result<Vec<f64>, String> {
    let text = program(gemm, blockings);
    let context = coco_dialects::context();
    let module = source::load(&context, &text, "<tuning program>")?;
    let tuning_options = Options {
        ranks: 1,
        entry: None,
        native: true,
        ptx: false,
        cpu: options.cpu.clone(),
        gemm: gemm::Route::Generated,
        gemm_arithmetic: gemm.arithmetic,
        ..Options::default()
    };
    let compiled = compile(&context, &module, "tune.mlir", &tuning_options)
        .map_err(|e| format!("compiling the tuning program: {e}"))?;
    let folder = TempDir::new(PROGRAM, "tune").map_err(|e| {
        format!(
            "cannot create a folder under {}: {e}",
            std::env::temp_dir().display()
        )
    })?;
    write_bundle(&compiled, folder.path()).map_err(|e| e.to_string())?;
    // About 2 GFLOP of runs per candidate, at least 2 and at most 20.
    let flops = 2.0 * (gemm.m * gemm.n * gemm.k) as f64;
    let repeat = (2e9 / flops).clamp(2.0, 20.0) as usize;
    let times = coco_runtime::time_kernels(folder.path(), repeat).map_err(|e| e.to_string())?;
    if times.len() != blockings.len() {
        return Err(format!(
            "internal error: the tuning program ran {} kernels for {} blockings",
            times.len(),
            blockings.len()
        ));
    }
    Ok(times.into_iter().map(|(_, seconds)| seconds).collect())
}
