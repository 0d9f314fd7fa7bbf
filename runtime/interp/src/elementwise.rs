//! Upstream element-wise ops (`arith`, `math`) and tensor construction
//! (`tensor.splat`, `tensor.extract`, dense constants) on one rank's data.

use coco_dialects::{coco::Layout, ir::int_attr};
use melior::ir::{Attribute, AttributeLike};

use crate::{
    compute::Context,
    error::{Error, Result},
    tensor::{DType, Tensor},
};

fn map(cx: &Context, x: &Tensor, f: impl Fn(f64) -> f64) -> Tensor {
    Tensor {
        dtype: cx.dtype,
        shape: cx.shape.to_vec(),
        data: x.data.iter().map(|&v| cx.dtype.round(f(v))).collect(),
    }
}

fn zip(cx: &Context, a: &Tensor, b: &Tensor, f: impl Fn(f64, f64) -> f64) -> Tensor {
    let data = a
        .data
        .iter()
        .zip(&b.data)
        .map(|(&x, &y)| cx.dtype.round(f(x, y)))
        .collect();
    Tensor {
        dtype: cx.dtype,
        shape: cx.shape.to_vec(),
        data,
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

/// `arith.cmpi` predicates (values are exact integers in f64).
fn compare_int(predicate: i64, a: f64, b: f64) -> bool {
    let (ua, ub) = (a as i64 as u64, b as i64 as u64);
    match predicate {
        0 => a == b,
        1 => a != b,
        2 => a < b,
        3 => a <= b,
        4 => a > b,
        5 => a >= b,
        6 => ua < ub,
        7 => ua <= ub,
        8 => ua > ub,
        _ => ua >= ub,
    }
}

/// Runs an element-wise or tensor op; `Ok(None)` when unsupported.
pub fn run(cx: &Context, inputs: &[&Tensor]) -> Result<Option<Tensor>> {
    let unary = |f: fn(f64) -> f64| map(cx, inputs[0], f);
    let binary = |f: fn(f64, f64) -> f64| zip(cx, inputs[0], inputs[1], f);
    let out = match cx.name {
        "arith.constant" => constant(cx)?,
        "arith.addf" | "arith.addi" => binary(|a, b| a + b),
        "arith.subf" | "arith.subi" => binary(|a, b| a - b),
        "arith.mulf" | "arith.muli" => binary(|a, b| a * b),
        "arith.divf" => binary(|a, b| a / b),
        "arith.divsi" => {
            if inputs[1].data.contains(&0.0) {
                return Err(Error::Program(format!(
                    "{}: integer division by zero",
                    cx.location
                )));
            }
            binary(|a, b| (a / b).trunc())
        }
        "arith.remf" => binary(|a, b| a % b),
        "arith.maximumf" => binary(maximum),
        "arith.minimumf" => binary(minimum),
        "arith.maxnumf" | "arith.maxsi" => binary(f64::max),
        "arith.minnumf" | "arith.minsi" => binary(f64::min),
        "arith.negf" => unary(|a| -a),
        "arith.extf" | "arith.truncf" | "arith.sitofp" | "arith.index_cast" => unary(|a| a),
        "arith.fptosi" => unary(f64::trunc),
        "arith.cmpf" | "arith.cmpi" => {
            let predicate = int_attr(cx.op, "predicate").unwrap_or(0);
            let float = cx.name == "arith.cmpf";
            let data = inputs[0]
                .data
                .iter()
                .zip(&inputs[1].data)
                .map(|(&a, &b)| {
                    f64::from(if float {
                        compare_float(predicate, a, b)
                    } else {
                        compare_int(predicate, a, b)
                    })
                })
                .collect();
            Tensor {
                dtype: DType::I1,
                shape: cx.shape.to_vec(),
                data,
            }
        }
        "arith.select" => {
            let (cond, a, b) = (inputs[0], inputs[1], inputs[2]);
            let data = (0..a.len())
                .map(|i| {
                    let c = if cond.len() == 1 {
                        cond.data[0]
                    } else {
                        cond.data[i]
                    };
                    if c != 0.0 {
                        a.data[i]
                    } else {
                        b.data[i]
                    }
                })
                .collect();
            Tensor {
                dtype: cx.dtype,
                shape: cx.shape.to_vec(),
                data,
            }
        }
        "math.sqrt" => unary(f64::sqrt),
        "math.rsqrt" => unary(|a| 1.0 / a.sqrt()),
        "math.exp" => unary(f64::exp),
        "math.log" => unary(f64::ln),
        "math.tanh" => unary(f64::tanh),
        "math.absf" => unary(f64::abs),
        "math.floor" => unary(f64::floor),
        "math.ceil" => unary(f64::ceil),
        "math.powf" => binary(f64::powf),
        "tensor.splat" => Tensor::filled(cx.dtype, cx.shape.to_vec(), inputs[0].data[0]),
        "tensor.extract" if inputs.len() == 1 && inputs[0].len() == 1 => {
            Tensor::filled(cx.dtype, Vec::new(), inputs[0].data[0])
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
                mlir_sys::mlirFloatAttrGetValueDouble(raw),
            ));
        }
        if mlir_sys::mlirAttributeIsAInteger(raw) {
            return Ok(Tensor::filled(
                cx.dtype,
                Vec::new(),
                mlir_sys::mlirIntegerAttrGetValueInt(raw) as f64,
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
                mlir_sys::mlirFloatAttrGetValueDouble(splat)
            } else if mlir_sys::mlirAttributeIsAInteger(splat) {
                mlir_sys::mlirIntegerAttrGetValueInt(splat) as f64
            } else {
                f64::from(mlir_sys::mlirDenseElementsAttrGetBoolSplatValue(raw) != 0)
            };
            return Ok(Tensor::filled(cx.dtype, cx.shape.to_vec(), value));
        }
        let count = mlir_sys::mlirElementsAttrGetNumElements(raw) as usize;
        let data: Vec<f64> = (0..count as isize)
            .map(|i| match cx.dtype {
                DType::F64 => mlir_sys::mlirDenseElementsAttrGetDoubleValue(raw, i),
                DType::F32 => f64::from(mlir_sys::mlirDenseElementsAttrGetFloatValue(raw, i)),
                DType::F16 | DType::BF16 => {
                    let bits =
                        *(mlir_sys::mlirDenseElementsAttrGetRawData(raw) as *const u16).offset(i);
                    if cx.dtype == DType::F16 {
                        half::f16::from_bits(bits).to_f64()
                    } else {
                        half::bf16::from_bits(bits).to_f64()
                    }
                }
                DType::I64 => mlir_sys::mlirDenseElementsAttrGetInt64Value(raw, i) as f64,
                DType::I32 => f64::from(mlir_sys::mlirDenseElementsAttrGetInt32Value(raw, i)),
                DType::I1 => f64::from(mlir_sys::mlirDenseElementsAttrGetBoolValue(raw, i)),
            })
            .collect();
        let mut global_shape = cx.shape.to_vec();
        if let Some(Layout::Sliced(dim)) = cx.layout {
            global_shape[dim as usize] *= cx.group_size;
        }
        let full = Tensor {
            dtype: cx.dtype,
            shape: global_shape,
            data,
        };
        Ok(match cx.layout {
            Some(Layout::Sliced(dim)) => full.slice(dim as usize, cx.group_size, cx.rank),
            _ => full,
        })
    }
}
