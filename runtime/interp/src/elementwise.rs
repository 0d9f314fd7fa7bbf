//! Upstream element-wise ops (`arith`, `math`) and tensor construction
//! (`tensor.splat`, `tensor.extract`, dense constants) on one rank's data.

use coco_dialects::ir::int_attr;
use melior::ir::{Attribute, AttributeLike};

use crate::{
    compute::Context,
    error::{Error, Result},
    integer,
    tensor::{DType, Data, Scalar, Tensor},
};

fn map(cx: &Context, x: &Tensor, f: impl Fn(f64) -> f64) -> Result<Tensor> {
    let x = floats(cx, x)?;
    Ok(float_tensor(
        cx,
        x.iter().map(|&v| cx.dtype.round(f(v))).collect(),
    ))
}

fn zip(cx: &Context, a: &Tensor, b: &Tensor, f: impl Fn(f64, f64) -> f64) -> Result<Tensor> {
    let (a, b) = (floats(cx, a)?, floats(cx, b)?);
    Ok(float_tensor(
        cx,
        a.iter()
            .zip(b)
            .map(|(&x, &y)| cx.dtype.round(f(x, y)))
            .collect(),
    ))
}

/// An integer op on the elements of `x` (of type `x.dtype`), wrapped to
/// the result type.
fn map_int(cx: &Context, x: &Tensor, f: impl Fn(DType, i64) -> i64) -> Result<Tensor> {
    let dtype = x.dtype;
    let x = ints(cx, x)?;
    Ok(int_tensor(
        cx,
        x.iter()
            .map(|&v| integer::wrap(cx.dtype, f(dtype, v)))
            .collect(),
    ))
}

/// A binary integer op (operands of one type), wrapped to the result type.
fn zip_int(
    cx: &Context,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(DType, i64, i64) -> i64,
) -> Result<Tensor> {
    let dtype = a.dtype;
    let (a, b) = (ints(cx, a)?, ints(cx, b)?);
    Ok(int_tensor(
        cx,
        a.iter()
            .zip(b)
            .map(|(&x, &y)| integer::wrap(cx.dtype, f(dtype, x, y)))
            .collect(),
    ))
}

fn floats<'t>(cx: &Context, x: &'t Tensor) -> Result<&'t [f64]> {
    match &x.data {
        Data::Float(v) => Ok(v),
        Data::Int(_) => Err(mismatch(cx, x, "floats")),
    }
}

fn ints<'t>(cx: &Context, x: &'t Tensor) -> Result<&'t [i64]> {
    match &x.data {
        Data::Int(v) => Ok(v),
        Data::Float(_) => Err(mismatch(cx, x, "integers")),
    }
}

fn mismatch(cx: &Context, x: &Tensor, expected: &str) -> Error {
    Error::Unsupported {
        location: cx.location.to_string(),
        op: cx.name.to_string(),
        detail: format!(" (on {} elements: it takes {expected})", x.dtype),
    }
}

fn float_tensor(cx: &Context, data: Vec<f64>) -> Tensor {
    Tensor {
        dtype: cx.dtype,
        shape: cx.shape.to_vec(),
        data: Data::Float(data),
    }
}

fn int_tensor(cx: &Context, data: Vec<i64>) -> Tensor {
    Tensor {
        dtype: cx.dtype,
        shape: cx.shape.to_vec(),
        data: Data::Int(data),
    }
}

/// IEEE `maximum`/`minimum`: NaN propagates.
fn maximum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

fn minimum(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// `arith.cmpf` predicates, in the order of the ODS enum.
fn compare_float(predicate: i64, a: f64, b: f64) -> bool {
    let unordered = a.is_nan() || b.is_nan();
    match predicate {
        0 => false,
        1 => !unordered && a == b,
        2 => !unordered && a > b,
        3 => !unordered && a >= b,
        4 => !unordered && a < b,
        5 => !unordered && a <= b,
        6 => !unordered && a != b,
        7 => !unordered,
        8 => unordered || a == b,
        9 => unordered || a > b,
        10 => unordered || a >= b,
        11 => unordered || a < b,
        12 => unordered || a <= b,
        13 => unordered || a != b,
        14 => unordered,
        _ => true,
    }
}

/// `x` (an integer of type `from`, as its signed value) to the float
/// `to`, rounded once: i64 to f32 directly, since through f64 it would
/// round twice; every other pair is exact through f64 or (16-bit floats
/// from i64 beyond 2^53) only ties could differ.
fn int_to_float(to: DType, x: i64) -> f64 {
    match to {
        DType::F32 => f64::from(x as f32),
        _ => to.round(x as f64),
    }
}

fn uint_to_float(to: DType, x: u64) -> f64 {
    match to {
        DType::F32 => f64::from(x as f32),
        _ => to.round(x as f64),
    }
}

/// Runs an element-wise or tensor op; `Ok(None)` when unsupported.
pub fn run(cx: &Context, inputs: &[&Tensor]) -> Result<Option<Tensor>> {
    let unary = |f: fn(f64) -> f64| map(cx, inputs[0], f);
    let binary = |f: fn(f64, f64) -> f64| zip(cx, inputs[0], inputs[1], f);
    let int_unary = |f: fn(DType, i64) -> i64| map_int(cx, inputs[0], f);
    let int_binary = |f: fn(DType, i64, i64) -> i64| zip_int(cx, inputs[0], inputs[1], f);
    let to = cx.dtype;
    let out = match cx.name {
        "arith.constant" => constant(cx)?,
        "arith.addf" => binary(|a, b| a + b)?,
        "arith.subf" => binary(|a, b| a - b)?,
        "arith.mulf" => binary(|a, b| a * b)?,
        "arith.divf" => binary(|a, b| a / b)?,
        "arith.remf" => binary(|a, b| a % b)?,
        "arith.maximumf" => binary(maximum)?,
        "arith.minimumf" => binary(minimum)?,
        "arith.maxnumf" => binary(f64::max)?,
        "arith.minnumf" => binary(f64::min)?,
        "arith.negf" => unary(|a| -a)?,
        "arith.extf" | "arith.truncf" => unary(|a| a)?,
        "arith.addi" => int_binary(|_, a, b| a.wrapping_add(b))?,
        "arith.subi" => int_binary(|_, a, b| a.wrapping_sub(b))?,
        "arith.muli" => int_binary(|_, a, b| a.wrapping_mul(b))?,
        "arith.divsi" => int_binary(integer::divsi)?,
        "arith.divui" => int_binary(integer::divui)?,
        "arith.remsi" => int_binary(integer::remsi)?,
        "arith.remui" => int_binary(integer::remui)?,
        "arith.andi" => int_binary(|_, a, b| a & b)?,
        "arith.ori" => int_binary(|_, a, b| a | b)?,
        "arith.xori" => int_binary(|_, a, b| a ^ b)?,
        "arith.maxsi" => int_binary(|t, a, b| {
            if integer::signed(t, a) >= integer::signed(t, b) {
                a
            } else {
                b
            }
        })?,
        "arith.minsi" => int_binary(|t, a, b| {
            if integer::signed(t, a) <= integer::signed(t, b) {
                a
            } else {
                b
            }
        })?,
        "arith.maxui" => int_binary(|t, a, b| {
            if integer::unsigned(t, a) >= integer::unsigned(t, b) {
                a
            } else {
                b
            }
        })?,
        "arith.minui" => int_binary(|t, a, b| {
            if integer::unsigned(t, a) <= integer::unsigned(t, b) {
                a
            } else {
                b
            }
        })?,
        // Widening keeps the value (signed or unsigned); narrowing keeps
        // the low bits, which `wrap` does.
        "arith.extsi" | "arith.index_cast" => int_unary(integer::signed)?,
        "arith.extui" | "arith.index_castui" => int_unary(|t, a| integer::unsigned(t, a) as i64)?,
        "arith.trunci" => int_unary(|_, a| a)?,
        "arith.sitofp" => {
            let from = inputs[0].dtype;
            let x = ints(cx, inputs[0])?;
            float_tensor(
                cx,
                x.iter()
                    .map(|&v| int_to_float(to, integer::signed(from, v)))
                    .collect(),
            )
        }
        "arith.uitofp" => {
            let from = inputs[0].dtype;
            let x = ints(cx, inputs[0])?;
            float_tensor(
                cx,
                x.iter()
                    .map(|&v| uint_to_float(to, integer::unsigned(from, v)))
                    .collect(),
            )
        }
        "arith.fptosi" => {
            let x = floats(cx, inputs[0])?;
            int_tensor(cx, x.iter().map(|&v| integer::from_f64(to, v)).collect())
        }
        "arith.cmpf" | "arith.cmpi" => {
            let predicate = int_attr(cx.op, "predicate").unwrap_or(0);
            let data = if cx.name == "arith.cmpf" {
                let (a, b) = (floats(cx, inputs[0])?, floats(cx, inputs[1])?);
                a.iter()
                    .zip(b)
                    .map(|(&a, &b)| i64::from(compare_float(predicate, a, b)))
                    .collect()
            } else {
                let dtype = inputs[0].dtype;
                let (a, b) = (ints(cx, inputs[0])?, ints(cx, inputs[1])?);
                a.iter()
                    .zip(b)
                    .map(|(&a, &b)| i64::from(integer::compare(dtype, predicate, a, b)))
                    .collect()
            };
            Tensor {
                dtype: DType::I1,
                shape: cx.shape.to_vec(),
                data: Data::Int(data),
            }
        }
        "arith.select" => {
            let (cond, a, b) = (ints(cx, inputs[0])?, inputs[1], inputs[2]);
            let pick = |i: usize| (if cond.len() == 1 { cond[0] } else { cond[i] }) != 0;
            Tensor {
                dtype: cx.dtype,
                shape: cx.shape.to_vec(),
                data: Data::choose(&a.data, &b.data, pick),
            }
        }
        "math.sqrt" => unary(f64::sqrt)?,
        "math.rsqrt" => unary(|a| 1.0 / a.sqrt())?,
        "math.exp" => unary(f64::exp)?,
        "math.log" => unary(f64::ln)?,
        "math.tanh" => unary(f64::tanh)?,
        "math.erf" => unary(libm::erf)?,
        "math.absf" => unary(f64::abs)?,
        "math.floor" => unary(f64::floor)?,
        "math.ceil" => unary(f64::ceil)?,
        "math.powf" => binary(f64::powf)?,
        "tensor.splat" => Tensor::filled(cx.dtype, cx.shape.to_vec(), inputs[0].get(0)),
        "tensor.extract" if inputs.len() == 1 && inputs[0].len() == 1 => {
            Tensor::filled(cx.dtype, Vec::new(), inputs[0].get(0))
        }
        _ => return Ok(None),
    };
    Ok(Some(out))
}

/// `arith.constant`: a scalar, or a dense tensor (each rank takes its slice
/// when the result is sliced).
fn constant(cx: &Context) -> Result<Tensor> {
    let attr = cx
        .op
        .attribute("value")
        .map_err(|e| Error::Program(e.to_string()))?;
    let raw = attr.to_raw();
    // SAFETY: pure queries on a valid attribute.
    unsafe {
        if mlir_sys::mlirAttributeIsAFloat(raw) {
            return Ok(Tensor::filled(
                cx.dtype,
                Vec::new(),
                Scalar::Float(mlir_sys::mlirFloatAttrGetValueDouble(raw)),
            ));
        }
        if mlir_sys::mlirAttributeIsAInteger(raw) {
            return Ok(Tensor::filled(
                cx.dtype,
                Vec::new(),
                Scalar::Int(mlir_sys::mlirIntegerAttrGetValueInt(raw)),
            ));
        }
        if !mlir_sys::mlirAttributeIsADenseElements(raw) {
            return Err(Error::Unsupported {
                location: cx.location.to_string(),
                op: "arith.constant".into(),
                detail: format!(" (value {})", Attribute::from_raw(raw)),
            });
        }
        if mlir_sys::mlirDenseElementsAttrIsSplat(raw) {
            let splat = mlir_sys::mlirDenseElementsAttrGetSplatValue(raw);
            let value = if mlir_sys::mlirAttributeIsAFloat(splat) {
                Scalar::Float(mlir_sys::mlirFloatAttrGetValueDouble(splat))
            } else if mlir_sys::mlirAttributeIsAInteger(splat) {
                Scalar::Int(mlir_sys::mlirIntegerAttrGetValueInt(splat))
            } else {
                Scalar::Int(i64::from(
                    mlir_sys::mlirDenseElementsAttrGetBoolSplatValue(raw) != 0,
                ))
            };
            return Ok(Tensor::filled(cx.dtype, cx.shape.to_vec(), value));
        }
        let count = mlir_sys::mlirElementsAttrGetNumElements(raw) as usize;
        let values = (0..count as isize).map(|i| match cx.dtype {
            DType::F64 => Scalar::Float(mlir_sys::mlirDenseElementsAttrGetDoubleValue(raw, i)),
            DType::F32 => Scalar::Float(f64::from(mlir_sys::mlirDenseElementsAttrGetFloatValue(
                raw, i,
            ))),
            DType::F16 | DType::BF16 => {
                let bits =
                    *(mlir_sys::mlirDenseElementsAttrGetRawData(raw) as *const u16).offset(i);
                Scalar::Float(if cx.dtype == DType::F16 {
                    half::f16::from_bits(bits).to_f64()
                } else {
                    half::bf16::from_bits(bits).to_f64()
                })
            }
            DType::I64 => Scalar::Int(mlir_sys::mlirDenseElementsAttrGetInt64Value(raw, i)),
            DType::I32 => Scalar::Int(i64::from(mlir_sys::mlirDenseElementsAttrGetInt32Value(
                raw, i,
            ))),
            DType::I1 => Scalar::Int(i64::from(mlir_sys::mlirDenseElementsAttrGetBoolValue(
                raw, i,
            ))),
        });
        let global_shape: Vec<usize> = cx
            .shape
            .iter()
            .zip(cx.blocks)
            .map(|(l, (count, _))| l * count)
            .collect();
        let full = Tensor::from_scalars(cx.dtype, global_shape, values);
        Ok(crate::compute::block_of(&full, cx.blocks))
    }
}
