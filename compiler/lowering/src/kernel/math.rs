//! Transcendental functions as arithmetic the CPU vectorises. libm's
//! `tanhf` and `expf` are scalar calls, and LLVM vectorises neither (coco
//! links no vector math library): the GeLU of a Megatron MLP spent more
//! time in `tanhf` than in either GEMM, and softmax in `expf`. On the CPU,
//! f32 and 16-bit `math.tanh` and `math.exp` (computed in f32) become the
//! rational and polynomial approximations of Cephes, Eigen and XLA, within
//! a few ulp of libm's, which `--check`'s tolerance for transcendental
//! programs covers (tests: test/runtime/tanh.mlir, exp.mlir). f64 and the
//! GPU (libdevice) keep the library functions.

use std::fmt::Write as _;

use coco_bundle::DType;

use super::{types::convert, Target};

/// The lines defining `name` as `op` (`math.tanh` or `math.exp`) of `x`
/// when the target computes it as arithmetic; `None` otherwise.
pub(super) fn vectorised(
    target: Target,
    op: &str,
    x: &str,
    ty: DType,
    name: &str,
) -> Option<String> {
    if target.is_gpu() || !matches!(ty, DType::F32 | DType::F16 | DType::BF16) {
        return None;
    }
    let body: fn(&mut Lines, &str, &str, &str) = match op {
        "math.tanh" => rational_tanh,
        "math.exp" => polynomial_exp,
        _ => return None,
    };
    let mut lines = Lines(String::new());
    let f = if ty == DType::F32 {
        x.to_string()
    } else {
        lines.push(format!("{name}_f = arith.extf {x} : {ty} to f32"));
        format!("{name}_f")
    };
    if ty == DType::F32 {
        body(&mut lines, &f, name, name);
    } else {
        let out = format!("{name}_o");
        body(&mut lines, &f, name, &out);
        let (round, _) = convert(DType::F32, ty, &out, name);
        lines.0.push_str(&round);
    }
    Some(lines.0)
}

/// Generic-body lines, indented as `linalg.generic` bodies are.
struct Lines(String);

impl Lines {
    fn push(&mut self, line: String) {
        let _ = writeln!(self.0, "      {line}");
    }

    /// `c[0] + x * (c[1] + x * (...))` by Horner's rule, as `{name}_{tag}*`.
    fn horner(&mut self, name: &str, tag: &str, x: &str, coefficients: &[&str]) -> String {
        let last = coefficients.len() - 1;
        let mut acc = format!("{name}_{tag}{last}");
        self.push(format!(
            "{acc} = arith.constant {} : f32",
            coefficients[last]
        ));
        for i in (0..last).rev() {
            self.push(format!(
                "{name}_{tag}k{i} = arith.constant {} : f32",
                coefficients[i]
            ));
            self.push(format!("{name}_{tag}m{i} = arith.mulf {x}, {acc} : f32"));
            self.push(format!(
                "{name}_{tag}{i} = arith.addf {name}_{tag}m{i}, {name}_{tag}k{i} : f32"
            ));
            acc = format!("{name}_{tag}{i}");
        }
        acc
    }
}

/// tanh: Eigen's and XLA's fast tanh, an odd degree-13 numerator over an
/// even degree-6 denominator on the input clamped to ±7.905 (where tanh
/// rounds to ±1 in f32); below 4e-4 the input itself.
fn rational_tanh(l: &mut Lines, x: &str, name: &str, out: &str) {
    const ALPHA: [&str; 7] = [
        "4.89352455891786e-03",
        "6.37261928875436e-04",
        "1.48572235717979e-05",
        "5.12229709037114e-08",
        "-8.60467152213735e-11",
        "2.00018790482477e-13",
        "-2.76076847742355e-16",
    ];
    const BETA: [&str; 4] = [
        "4.89352518554385e-03",
        "2.26843463243900e-03",
        "1.18534705686654e-04",
        "1.19825839466702e-06",
    ];
    l.push(format!(
        "{name}_c = arith.constant 7.90531110763549805 : f32"
    ));
    l.push(format!(
        "{name}_nc = arith.constant -7.90531110763549805 : f32"
    ));
    l.push(format!("{name}_lo = arith.minimumf {x}, {name}_c : f32"));
    l.push(format!(
        "{name}_v = arith.maximumf {name}_lo, {name}_nc : f32"
    ));
    l.push(format!("{name}_x2 = arith.mulf {name}_v, {name}_v : f32"));
    let x2 = format!("{name}_x2");
    let p = l.horner(name, "p", &x2, &ALPHA);
    let q = l.horner(name, "q", &x2, &BETA);
    l.push(format!("{name}_px = arith.mulf {name}_v, {p} : f32"));
    l.push(format!("{name}_r = arith.divf {name}_px, {q} : f32"));
    l.push(format!("{name}_a = math.absf {x} : f32"));
    l.push(format!("{name}_t = arith.constant 4.0e-04 : f32"));
    l.push(format!(
        "{name}_tiny = arith.cmpf olt, {name}_a, {name}_t : f32"
    ));
    l.push(format!(
        "{out} = arith.select {name}_tiny, {x}, {name}_r : f32"
    ));
}

/// exp: Cephes' `expf`. `n = floor(x log2(e) + 1/2)`, `r = x - n ln 2` in
/// two parts, a degree-7 polynomial in r, scaled by 2^n through the
/// exponent bits; above 88.72 +inf, below -87.34 zero (exp is at most
/// 2^-125 there: an absolute error far inside any tolerance), NaN stays NaN.
fn polynomial_exp(l: &mut Lines, x: &str, name: &str, out: &str) {
    const P: [&str; 6] = [
        "5.0000001201e-1",
        "1.6666665459e-1",
        "4.1665795894e-2",
        "8.3334519073e-3",
        "1.3981999507e-3",
        "1.9875691500e-4",
    ];
    l.push(format!("{name}_hi = arith.constant 88.3762626647949 : f32"));
    l.push(format!("{name}_lo = arith.constant -87.3365447 : f32"));
    l.push(format!("{name}_c0 = arith.minimumf {x}, {name}_hi : f32"));
    l.push(format!(
        "{name}_v = arith.maximumf {name}_c0, {name}_lo : f32"
    ));
    l.push(format!(
        "{name}_log2e = arith.constant 1.44269504088896341 : f32"
    ));
    l.push(format!("{name}_half = arith.constant 0.5 : f32"));
    l.push(format!(
        "{name}_fx0 = arith.mulf {name}_v, {name}_log2e : f32"
    ));
    l.push(format!(
        "{name}_fx1 = arith.addf {name}_fx0, {name}_half : f32"
    ));
    l.push(format!("{name}_n = math.floor {name}_fx1 : f32"));
    l.push(format!("{name}_ln1 = arith.constant 0.693359375 : f32"));
    l.push(format!("{name}_ln2 = arith.constant -2.12194440e-4 : f32"));
    l.push(format!("{name}_m1 = arith.mulf {name}_n, {name}_ln1 : f32"));
    l.push(format!("{name}_r1 = arith.subf {name}_v, {name}_m1 : f32"));
    l.push(format!("{name}_m2 = arith.mulf {name}_n, {name}_ln2 : f32"));
    l.push(format!("{name}_r = arith.subf {name}_r1, {name}_m2 : f32"));
    let r = format!("{name}_r");
    let p = l.horner(name, "p", &r, &P);
    // 1 + r + r^2 p(r)
    l.push(format!("{name}_r2 = arith.mulf {r}, {r} : f32"));
    l.push(format!("{name}_y0 = arith.mulf {name}_r2, {p} : f32"));
    l.push(format!("{name}_y1 = arith.addf {name}_y0, {r} : f32"));
    l.push(format!("{name}_one = arith.constant 1.0 : f32"));
    l.push(format!("{name}_y = arith.addf {name}_y1, {name}_one : f32"));
    // 2^n as bits: (n + 127) << 23; n is in [-126, 128] after the clamp
    // (128 only at the clamp's top, where y < 1 keeps the product finite:
    // 2^128 alone would be inf, so scale by 2^(n-1) and 2).
    l.push(format!("{name}_ni = arith.fptosi {name}_n : f32 to i32"));
    l.push(format!("{name}_bias = arith.constant 126 : i32"));
    l.push(format!(
        "{name}_e = arith.addi {name}_ni, {name}_bias : i32"
    ));
    l.push(format!("{name}_sh = arith.constant 23 : i32"));
    l.push(format!(
        "{name}_bits = arith.shli {name}_e, {name}_sh : i32"
    ));
    l.push(format!(
        "{name}_pow = arith.bitcast {name}_bits : i32 to f32"
    ));
    l.push(format!("{name}_two = arith.constant 2.0 : f32"));
    l.push(format!("{name}_s0 = arith.mulf {name}_y, {name}_pow : f32"));
    l.push(format!(
        "{name}_s1 = arith.mulf {name}_s0, {name}_two : f32"
    ));
    // Beyond the clamp: overflow to +inf, underflow to zero.
    l.push(format!("{name}_over = arith.constant 88.7228394 : f32"));
    l.push(format!("{name}_inf = arith.constant 0x7F800000 : f32"));
    l.push(format!("{name}_zero = arith.constant 0.0 : f32"));
    l.push(format!(
        "{name}_big = arith.cmpf ogt, {x}, {name}_over : f32"
    ));
    l.push(format!(
        "{name}_small = arith.cmpf olt, {x}, {name}_lo : f32"
    ));
    l.push(format!(
        "{name}_s2 = arith.select {name}_big, {name}_inf, {name}_s1 : f32"
    ));
    l.push(format!(
        "{out} = arith.select {name}_small, {name}_zero, {name}_s2 : f32"
    ));
}
