//! `coco-run --check`: every output against the reference interpreter's.
//!
//! Compiled kernels compute what the interpreter computes, in the same
//! order, so element-wise code matches bitwise; libm's exp/tanh and MPI's
//! native reductions (on three or more ranks, without --exact-reductions)
//! may differ in the last bits. The tolerance is relative to the element
//! type: |a - b| <= tol * max(1, |b|), tol = 2^-17 for f32 (about 64 ulp),
//! 2^-7 for f16 (8 ulp), 2^-6 for bf16 (2 ulp at 1: torch.testing's bf16
//! rtol, 1.6e-2; a fused GEMM's one-ulp difference in a bf16 intermediate
//! becomes two after a layer norm), 2^-40 for f64, 0 for integers. Elements compare
//! exactly (integers as integers, not through f64, so 2^53 + 1 differs
//! from 2^53), and "bitwise equal" means every element's bits agree.

use std::fmt::Write as _;

use coco_interp::{DType, HostValue, Scalar, Spec};

pub struct Report {
    pub text: String,
    pub passed: bool,
}

pub fn tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::F64 => 2f64.powi(-40),
        DType::F32 => 2f64.powi(-17),
        DType::F16 => 2f64.powi(-7),
        DType::BF16 => 2f64.powi(-6),
        DType::I64 | DType::I32 | DType::I1 => 0.0,
    }
}

/// The relative error of `got` against `expected` (0 when they are the
/// same number; NaN against NaN is 0, against a number infinite). Integers
/// differ exactly: any difference is above 0, even beyond 2^53.
fn error(got: Scalar, expected: Scalar) -> f64 {
    match (got, expected) {
        (Scalar::Int(x), Scalar::Int(y)) => {
            x.abs_diff(y) as f64 / (y.unsigned_abs() as f64).max(1.0)
        }
        _ => {
            let (x, y) = (got.to_f64(), expected.to_f64());
            if x.is_nan() || y.is_nan() {
                if x.is_nan() && y.is_nan() {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else if x == y {
                0.0
            } else {
                (x - y).abs() / y.abs().max(1.0)
            }
        }
    }
}

/// Compares `results` with `reference` output by output (matched by name).
pub fn compare(
    reference: &[(Spec, HostValue)],
    results: &[(Spec, HostValue)],
) -> Result<Report, String> {
    let mut text = String::from("check against the reference interpreter:\n");
    let mut passed = true;
    for (spec, expected) in reference {
        let got = results
            .iter()
            .find(|(s, _)| s.name == spec.name)
            .map(|(_, v)| v)
            .ok_or_else(|| format!("the run produced no output '{}'", spec.name))?;
        let (a, b) = (got.scalars(), expected.scalars());
        if a.len() != b.len() {
            return Err(format!(
                "output '{}' has {} elements, the reference {}",
                spec.name,
                a.len(),
                b.len()
            ));
        }
        let tol = tolerance(spec.dtype);
        let mut max_error: f64 = 0.0;
        let mut worst = 0usize;
        let mut bitwise = true;
        let mut failed = false;
        for (i, (&x, &y)) in a.iter().zip(&b).enumerate() {
            if x.bits() != y.bits() && !(x.is_nan() && y.is_nan()) {
                bitwise = false;
            }
            let error = error(x, y);
            if error > max_error {
                max_error = error;
                worst = i;
            }
            if error > tol {
                failed = true;
            }
        }
        // Both sides overflowed everywhere: equal, and proof of nothing.
        let finite = |v: &Scalar| !matches!(v, Scalar::Float(x) if !x.is_finite());
        let vacuous = !b.is_empty() && !a.iter().chain(&b).any(finite);
        let verdict = if bitwise && vacuous {
            "bitwise equal, but every element is NaN or infinite on both sides: nothing was compared (draw smaller inputs: --input, or {coco.input = ...})".to_string()
        } else if bitwise {
            "bitwise equal".to_string()
        } else if failed {
            format!(
                "FAILED: largest error {max_error:.3e} at element {worst} ({} vs {}), tolerance {tol:.1e}",
                a[worst], b[worst]
            )
        } else {
            format!("largest relative error {max_error:.3e} (tolerance {tol:.1e})")
        };
        passed &= !failed;
        let _ = writeln!(text, "  {}: {verdict}", spec.name);
    }
    Ok(Report { text, passed })
}
