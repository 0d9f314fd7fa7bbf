//! Differential proof of semantic preservation: a program and its
//! transformed form run on the reference interpreter, on the same seeded
//! inputs and several world sizes, must produce the same outputs.
//!
//! Outputs are compared as global tensors (replicated values from rank 0,
//! sliced values concatenated, local values per rank), so transformations
//! that change layouts (as-slice) compare like any other.

use coco_dialects::{context, diagnostics::DiagnosticCollector, load_module};
use coco_interp::{input_specs, random_inputs, Error as InterpError, HostValue, Scalar, Spec};

use crate::coco_opt;

/// World sizes every differential test tries, where the shapes allow:
/// one rank, even and odd worlds. 8 ranks costs as much as the others
/// together in the interpreter, so it runs with `COCO_SLOW_TESTS=1`.
pub fn world_sizes() -> &'static [usize] {
    if crate::slow_tests() {
        &[1, 2, 3, 4, 8]
    } else {
        &[1, 2, 3, 4]
    }
}

/// How outputs must agree.
#[derive(Clone, Copy, Debug)]
pub enum Agreement {
    /// Same bits (the transformation does not reassociate floating point).
    Bitwise,
    /// `|a - b| <= tol * max(1, |a|)`.
    Relative(f64),
}

/// How a program transformed by `pipeline` must agree with its original:
/// bitwise, except where `coco-partial-reduce` reassociates float sums
/// (per-slice sums in the blocked order, then the slices in rank order,
/// against the whole tensor's blocked order; both are within a few ulps of
/// exact). 1e-4 relative admits that and still fails on any wrong scale,
/// sign, or missing term.
pub fn agreement_for(pipeline: &str) -> Agreement {
    if pipeline.contains("coco-partial-reduce") {
        Agreement::Relative(1e-4)
    } else {
        Agreement::Bitwise
    }
}

pub type Outputs = Vec<(Spec, HostValue)>;

fn run(
    text: &str,
    name: &str,
    ranks: usize,
    seed: u64,
) -> Result<Result<Outputs, InterpError>, String> {
    let context = context();
    let collector = DiagnosticCollector::attach(&context);
    let module = load_module(&context, text, name).map_err(|e| {
        format!(
            "{e}: {}",
            collector
                .take()
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        )
    })?;
    let module_op = module.as_operation();
    let specs = input_specs(&module_op, None).map_err(|e| e.to_string())?;
    let inputs = random_inputs(&specs, ranks, seed);
    let limits = coco_interp::Limits::from_env().map_err(|e| e.to_string())?;
    Ok(coco_interp::run(&module_op, ranks, None, &inputs, &limits))
}

/// What one interpreter run of a program gave.
#[derive(Clone)]
enum Ran {
    Outputs(std::sync::Arc<Outputs>),
    /// The shapes or stages do not divide by the world size.
    NotDivisible,
    Failed(String),
}

/// [`run`], remembered by (program text, world size, seed). The
/// interpreter is deterministic, so the original program that every
/// pipeline is compared against, and the many pipelines that leave a
/// program unchanged, run once per world size instead of once per trial.
fn run_once(text: &str, name: &str, ranks: usize, seed: u64) -> Result<Ran, String> {
    use std::{
        collections::HashMap,
        sync::{Arc, Mutex, OnceLock},
    };
    /// (program text, world size, seed).
    type Key = (String, usize, u64);
    static RUNS: OnceLock<Mutex<HashMap<Key, Ran>>> = OnceLock::new();
    let runs = RUNS.get_or_init(Default::default);
    let key = (text.to_string(), ranks, seed);
    if let Some(ran) = runs.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(ran.clone());
    }
    let ran = match run(text, name, ranks, seed)? {
        Ok(outputs) => Ran::Outputs(Arc::new(outputs)),
        Err(InterpError::NotDivisible { .. } | InterpError::NotDivisibleByStages { .. }) => {
            Ran::NotDivisible
        }
        Err(e) => Ran::Failed(e.to_string()),
    };
    runs.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, ran.clone());
    Ok(ran)
}

fn compare(
    before: &Outputs,
    after: &Outputs,
    agreement: Agreement,
    ranks: usize,
) -> Result<(), String> {
    if before.len() != after.len() {
        return Err(format!(
            "{ranks} ranks: {} outputs before, {} after",
            before.len(),
            after.len()
        ));
    }
    for ((spec_a, a), (spec_b, b)) in before.iter().zip(after) {
        if spec_a.name != spec_b.name
            || spec_a.global_shape != spec_b.global_shape
            || spec_a.dtype != spec_b.dtype
        {
            return Err(format!(
                "{ranks} ranks: output {} changed type: {spec_a:?} vs {spec_b:?}",
                spec_a.name
            ));
        }
        let (x, y) = (a.scalars(), b.scalars());
        for (i, (&p, &q)) in x.iter().zip(&y).enumerate() {
            let same = match (agreement, p, q) {
                (Agreement::Bitwise, _, _) | (_, Scalar::Int(_), Scalar::Int(_)) => {
                    p.bits() == q.bits()
                }
                (Agreement::Relative(tol), _, _) => {
                    let (p, q) = (p.to_f64(), q.to_f64());
                    (p - q).abs() <= tol * p.abs().max(1.0) || (p.is_nan() && q.is_nan())
                }
            };
            if !same {
                return Err(format!(
                    "{ranks} ranks: output {} differs at element {i}: {p} before, {q} after ({agreement:?})",
                    spec_a.name
                ));
            }
        }
    }
    Ok(())
}

/// Runs `path` before and after `pipeline` on every world size in
/// [`world_sizes`] that the shapes allow; returns one line per size.
pub fn check(path: &str, pipeline: &str, agreement: Agreement) -> Result<String, String> {
    check_ranks(path, pipeline, agreement, world_sizes())
}

/// [`check`] on the given world sizes.
pub fn check_ranks(
    path: &str,
    pipeline: &str,
    agreement: Agreement,
    world_sizes: &[usize],
) -> Result<String, String> {
    let source = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let transformed = transform(path, pipeline)?;
    let mut report = Vec::new();
    let mut compared = 0;
    for &ranks in world_sizes {
        let seed = 0x5eed + ranks as u64;
        let before = run_once(&source, path, ranks, seed)?;
        let after = run_once(&transformed, "transformed.mlir", ranks, seed)?;
        match (before, after) {
            (Ran::Outputs(before), Ran::Outputs(after)) => {
                compare(&before, &after, agreement, ranks)?;
                compared += 1;
                report.push(format!("{ranks} ranks: {} outputs agree", before.len()));
            }
            (Ran::NotDivisible, _) | (_, Ran::NotDivisible) => {
                report.push(format!(
                    "{ranks} ranks: skipped (shapes or stages not divisible)"
                ));
            }
            (Ran::Failed(e), _) => {
                return Err(format!("{ranks} ranks: the original program fails: {e}"))
            }
            (_, Ran::Failed(e)) => {
                return Err(format!("{ranks} ranks: the transformed program fails: {e}"))
            }
        }
    }
    if compared == 0 {
        return Err(format!(
            "{path} under {pipeline}: no world size could be compared"
        ));
    }
    Ok(report.join("\n"))
}

/// World sizes of the schedule-space check: its dozens of programs per
/// example make it the costliest trial, and each pass alone already runs
/// on [`world_sizes`]; the even worlds (where splits apply) in CI, all of
/// them with `COCO_SLOW_TESTS=1`.
fn schedule_space_world_sizes() -> &'static [usize] {
    if crate::slow_tests() {
        world_sizes()
    } else {
        // CI's variant: every distinct schedule on a multi-rank world that
        // splits every sliced dimension (each pipeline alone also runs on
        // 1, 2, 3 and 4 ranks in the per-pipeline trials).
        &[4]
    }
}

/// Every distinct program the autotuner's schedule space produces from
/// `path` (pipelines giving the same IR are tried once) agrees with the
/// original on [`schedule_space_world_sizes`] where the shapes allow;
/// returns how many distinct programs were compared.
pub fn check_schedule_space(path: &str) -> Result<usize, String> {
    let source = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let mut programs: Vec<(String, String)> = Vec::new();
    for (_, pipeline) in coco_passes::autotune::schedule_space() {
        if pipeline.is_empty() {
            continue;
        }
        let text = transform(path, &pipeline)?;
        if !programs.iter().any(|(_, t)| *t == text) {
            programs.push((pipeline, text));
        }
    }
    for &ranks in schedule_space_world_sizes() {
        let seed = 0x7e57 + ranks as u64;
        let before = match run_once(&source, path, ranks, seed)? {
            Ran::Outputs(outputs) => outputs,
            Ran::NotDivisible => continue,
            Ran::Failed(e) => {
                return Err(format!("{ranks} ranks: the original program fails: {e}"))
            }
        };
        for (pipeline, text) in &programs {
            match run_once(text, "candidate.mlir", ranks, seed)? {
                Ran::Outputs(after) => compare(&before, &after, agreement_for(pipeline), ranks)
                    .map_err(|e| format!("{pipeline}: {e}"))?,
                Ran::NotDivisible => {}
                Ran::Failed(e) => return Err(format!("{pipeline}, {ranks} ranks: {e}")),
            }
        }
    }
    Ok(programs.len())
}

/// The comparison itself must be able to fail: one ulp in one element of a
/// global or per-rank output is a difference, and a tolerance accepts it.
pub fn self_test() -> Result<(), String> {
    use coco_interp::{DType, Data, Tensor};
    let spec = Spec {
        name: "f.result0".into(),
        dtype: DType::F32,
        global_shape: vec![2],
        layout: None,
        placement: None,
        groups: 1,
        drawn: None,
    };
    let tensor = |x: f64| Tensor {
        dtype: DType::F32,
        shape: vec![2],
        data: Data::Float(vec![1.0, x]),
    };
    let ulp = f64::from(f32::from_bits(1.0f32.to_bits() + 1));
    let a = vec![(spec.clone(), HostValue::Global(tensor(1.0)))];
    let b = vec![(spec.clone(), HostValue::Global(tensor(ulp)))];
    if compare(&a, &b, Agreement::Bitwise, 2).is_ok() {
        return Err("bitwise comparison missed a one-ulp difference".into());
    }
    if compare(&a, &b, Agreement::Relative(1e-6), 2).is_err() {
        return Err("relative comparison rejected a one-ulp difference".into());
    }
    let local = |x: f64| {
        vec![(
            spec.clone(),
            HostValue::PerRank(vec![tensor(1.0), tensor(x)]),
        )]
    };
    if compare(&local(1.0), &local(ulp), Agreement::Bitwise, 2).is_ok() {
        return Err("bitwise comparison missed a difference on rank 1".into());
    }
    // Integers compare exactly, whatever the agreement: through f64,
    // 2^53 + 1 would equal 2^53.
    let int = |x: i64| {
        let spec = Spec {
            dtype: DType::I64,
            ..spec.clone()
        };
        let tensor = Tensor {
            dtype: DType::I64,
            shape: vec![1],
            data: Data::Int(vec![x]),
        };
        vec![(spec, HostValue::Global(tensor))]
    };
    for agreement in [Agreement::Bitwise, Agreement::Relative(1e-6)] {
        if compare(&int(1 << 53), &int((1 << 53) + 1), agreement, 2).is_ok() {
            return Err(format!(
                "{agreement:?} comparison missed 2^53 vs 2^53 + 1 in an i64 output"
            ));
        }
    }
    Ok(())
}

/// `path` after coco-opt runs `pipeline` on it, or coco-opt's diagnostics.
fn transform(path: &str, pipeline: &str) -> Result<String, String> {
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
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
