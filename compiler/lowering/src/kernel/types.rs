//! Element types of kernel values as [`DType`]s, and what only kernels need
//! to know about them: the accumulation type, the scalar conversions, and
//! how shaped types and constants are spelled.
//!
//! `DType` (coco-base) already owns the MLIR name (`name`, `Display`),
//! `is_float` and compile-time rounding (`round`); kernels use those
//! directly.

use std::fmt::Write as _;

use coco_bundle::DType;
use coco_dialects::{coco::DistTensor, ir::element_dtype};
use melior::ir::Type;

use crate::error::{Error, Result};

/// The element type of a value of type `ty`: a coco tensor's element, or
/// `ty` itself for a scalar.
pub(super) fn element(ty: Type, location: &str) -> Result<DType> {
    let element = DistTensor::from_type(ty).map_or(ty, |t| t.element);
    element_dtype(element)
        // `element_dtype` also gives `index` (and signed or unsigned
        // integers) a DType; spelled as that DType, the kernel would
        // disagree with the constants and ops that name the original type.
        .filter(|dtype| dtype.name() == element.to_string())
        .ok_or_else(|| {
            Error::unsupported(
                location,
                format!("element type {element} is not compiled to kernels yet"),
            )
        })
}

/// Element-type facts that are lowering decisions rather than facts of the
/// bundle format, so they live here and not on `DType` itself.
pub(super) trait KernelType: Copy {
    /// The type reductions and matmuls accumulate in.
    fn accumulator(self) -> DType;
    /// Zero as a literal of this type.
    fn zero(self) -> &'static str;
    /// Bits of a value (i1: one).
    fn width(self) -> u32;
    /// The scalar op converting `self` to `to` (coco.cast), `None` when
    /// they are equal.
    fn cast_op(self, to: DType) -> Option<&'static str>;
    /// `+inf` (or `-inf` when `negative`) as a literal of this accumulation
    /// type: MLIR parses infinities only as hexadecimal bit patterns.
    fn infinity(self, negative: bool) -> &'static str;
}

impl KernelType for DType {
    fn accumulator(self) -> DType {
        // As the reference interpreter: 16-bit floats accumulate in f32, so
        // kernels and interpreter round at the same points; integers
        // accumulate at their own width, wrapping, which is exact (through
        // f32 an i32 sum would round).
        if self == DType::F64 || !self.is_float() {
            self
        } else {
            DType::F32
        }
    }

    fn zero(self) -> &'static str {
        if self.is_float() {
            "0.0"
        } else {
            "0"
        }
    }

    fn width(self) -> u32 {
        match self {
            DType::I1 => 1,
            other => other.size() as u32 * 8,
        }
    }

    fn cast_op(self, to: DType) -> Option<&'static str> {
        if self == to {
            return None;
        }
        Some(match (self.is_float(), to.is_float()) {
            (true, true) if to.width() > self.width() => "arith.extf",
            (true, true) => "arith.truncf",
            (false, true) => "arith.sitofp",
            (true, false) => "arith.fptosi",
            (false, false) if to.width() > self.width() => "arith.extsi",
            (false, false) => "arith.trunci",
        })
    }

    fn infinity(self, negative: bool) -> &'static str {
        match (self == DType::F64, negative) {
            (true, false) => "0x7FF0000000000000",
            (true, true) => "0xFFF0000000000000",
            (false, false) => "0x7F800000",
            (false, true) => "0xFF800000",
        }
    }
}

pub(super) fn tensor_type(shape: &[usize], element: DType) -> String {
    let mut text = String::from("tensor<");
    for d in shape {
        let _ = write!(text, "{d}x");
    }
    let _ = write!(text, "{element}>");
    text
}

pub(super) fn memref_type(shape: &[usize], element: DType) -> String {
    tensor_type(shape, element).replacen("tensor", "memref", 1)
}

/// `x` as an MLIR float literal (which needs a `.` before any exponent),
/// exact for f64 values.
pub(super) fn float_literal(x: f64) -> String {
    let text = format!("{x:e}");
    match text.split_once('e') {
        Some((mantissa, exponent)) if !mantissa.contains('.') => format!("{mantissa}.0e{exponent}"),
        _ => text,
    }
}

/// `(line, name)`: the float `from` (of type `element`) in the accumulation
/// type `acc`, named `to` when that takes an `arith.extf`.
pub(super) fn widen(element: DType, acc: DType, from: &str, to: &str) -> (String, String) {
    if element == acc {
        (String::new(), from.to_string())
    } else {
        (
            format!("      {to} = arith.extf {from} : {element} to {acc}\n"),
            to.to_string(),
        )
    }
}

/// `(lines, name)`: `from`, of type `from_type`, converted (rounded) to
/// `to_type`, named `to` when that takes a conversion.
///
/// f64 to bf16 rounds once, as the interpreter does: through f32 with
/// round-to-odd (truncate, then set the last bit if inexact), which keeps
/// the second rounding correct (24 >= 8 + 2 bits) where a plain
/// f64-to-f32-to-bf16 chain would round twice, and which every target
/// has (x86 has no f64-to-bf16 instruction, nor sm_80).
pub(super) fn convert(from_type: DType, to_type: DType, from: &str, to: &str) -> (String, String) {
    let mut lines = String::new();
    let mut line = |text: String| {
        lines.push_str("      ");
        lines.push_str(&text);
        lines.push('\n');
    };
    if (from_type, to_type) == (DType::F64, DType::BF16) {
        line(format!("{to}_t = arith.truncf {from} : f64 to f32"));
        line(format!("{to}_back = arith.extf {to}_t : f32 to f64"));
        line(format!("{to}_ax = math.absf {from} : f64"));
        line(format!("{to}_ab = math.absf {to}_back : f64"));
        line(format!(
            "{to}_away = arith.cmpf ogt, {to}_ab, {to}_ax : f64"
        ));
        line(format!(
            "{to}_inexact = arith.cmpf one, {to}_back, {from} : f64"
        ));
        line(format!("{to}_bits = arith.bitcast {to}_t : f32 to i32"));
        line(format!("{to}_one = arith.constant 1 : i32"));
        line(format!("{to}_less = arith.subi {to}_bits, {to}_one : i32"));
        line(format!(
            "{to}_zero = arith.select {to}_away, {to}_less, {to}_bits : i32"
        ));
        line(format!(
            "{to}_oddbits = arith.ori {to}_zero, {to}_one : i32"
        ));
        line(format!(
            "{to}_odd = arith.select {to}_inexact, {to}_oddbits, {to}_bits : i32"
        ));
        line(format!("{to}_f = arith.bitcast {to}_odd : i32 to f32"));
        line(format!("{to} = arith.truncf {to}_f : f32 to bf16"));
        return (lines, to.to_string());
    }
    match from_type.cast_op(to_type) {
        Some(cast) => (
            format!("      {to} = {cast} {from} : {from_type} to {to_type}\n"),
            to.to_string(),
        ),
        None => (String::new(), from.to_string()),
    }
}
