//! `coco-run --check`: every output against the reference interpreter's.
//!
//! Compiled kernels compute what the interpreter computes, in the same
//! order, so element-wise code matches bitwise; libm's exp/tanh and MPI's
//! native reductions (on three or more ranks, without --exact-reductions)
//! may differ in the last bits. The tolerance is relative to the element
//! type: |a - b| <= tol * max(1, |b|), tol = 2^-17 for f32 (about 64 ulp),
//! 2^-7 for f16/bf16, 2^-40 for f64, 0 for integers.

use std::fmt::Write as _;

use coco_interp::{DType, HostValue, Spec};

pub struct Report {
    pub text: String,
    pub passed: bool,
}

pub fn tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::F64 => 2f64.powi(-40),
        DType::F32 => 2f64.powi(-17),
        DType::F16 | DType::BF16 => 2f64.powi(-7),
        DType::I64 | DType::I32 | DType::I1 => 0.0,
    }
}

fn flat(value: &HostValue) -> Vec<f64> {
    match value {
        HostValue::Global(t) => t.data.clone(),
        HostValue::PerRank(parts) => parts.iter().flat_map(|p| p.data.iter().copied()).collect(),
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
        let (a, b) = (flat(got), flat(expected));
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
            if x.to_bits() != y.to_bits() && !(x.is_nan() && y.is_nan()) {
                bitwise = false;
            }
            let error = if x.is_nan() || y.is_nan() {
                if x.is_nan() && y.is_nan() {
                    0.0
                } else {
                    f64::INFINITY
                }
            } else if x == y {
                0.0
            } else {
                (x - y).abs() / y.abs().max(1.0)
            };
            if error > max_error {
                max_error = error;
                worst = i;
            }
            if error > tol {
                failed = true;
            }
        }
        let verdict = if bitwise {
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
