//! Integer semantics: two's complement at the element width, as the
//! compiled kernels compute (LLVM's `add`, `mul`, ... wrap).
//!
//! An element is an `i64` holding its value: i64 and i32 sign-extended
//! (so an i32 is in `[-2^31, 2^31)`), i1 as 0 or 1. Each op computes on
//! that `i64` and [`wrap`]s the result to the width; ops that read the
//! value as signed or unsigned use [`signed`] and [`unsigned`] (for i1 the
//! signed view of 1 is -1, as in MLIR).
//!
//! Division is total, identically in the interpreter and in kernels (the
//! lowering guards `arith.divsi`/`divui`/`remsi`/`remui`, so no kernel
//! traps): `x / 0 = 0`, `x % 0 = x`, `MIN / -1 = MIN` (the wrapped
//! quotient), `MIN % -1 = 0`, so `a == (a / b) * b + a % b` for every `a`
//! and `b`.

use coco_base::DType;
use coco_dialects::coco::Reduction;

/// `x` reduced to `dtype`'s width, in the storage form.
pub fn wrap(dtype: DType, x: i64) -> i64 {
    match dtype {
        DType::I32 => i64::from(x as i32),
        DType::I1 => x & 1,
        _ => x,
    }
}

/// The signed value of a stored element.
pub fn signed(dtype: DType, x: i64) -> i64 {
    match dtype {
        DType::I1 => -(x & 1),
        _ => x,
    }
}

/// The unsigned value of a stored element.
pub fn unsigned(dtype: DType, x: i64) -> u64 {
    match dtype {
        DType::I32 => u64::from(x as u32),
        DType::I1 => (x & 1) as u64,
        _ => x as u64,
    }
}

/// An f64 as an element (`arith.fptosi`): truncated toward zero and
/// saturated to the type's range, NaN as 0 (the lowering guards its
/// `fptosi`, which LLVM leaves undefined there, the same way); for i1,
/// nonzero is 1.
pub fn from_f64(dtype: DType, x: f64) -> i64 {
    match dtype {
        DType::I1 => i64::from(x != 0.0),
        DType::I32 => i64::from(x as i32),
        _ => x as i64,
    }
}

/// Element `index` of little-endian `bytes`.
pub fn load(dtype: DType, bytes: &[u8], index: usize) -> i64 {
    dtype.load_int(bytes, index)
}

/// Appends element `x`, little-endian.
pub fn store(dtype: DType, x: i64, out: &mut Vec<u8>) {
    match dtype {
        DType::I32 => out.extend_from_slice(&(x as i32).to_le_bytes()),
        DType::I1 => out.push(u8::from(x & 1 != 0)),
        _ => out.extend_from_slice(&x.to_le_bytes()),
    }
}

/// `arith.divsi` (see the module note for 0 and overflow).
pub fn divsi(dtype: DType, a: i64, b: i64) -> i64 {
    let (a, b) = (signed(dtype, a), signed(dtype, b));
    if b == 0 {
        0
    } else {
        // At width < 64, MIN / -1 is out of range only until wrapped.
        wrap(dtype, a.wrapping_div(b))
    }
}

/// `arith.remsi`.
pub fn remsi(dtype: DType, a: i64, b: i64) -> i64 {
    let (sa, sb) = (signed(dtype, a), signed(dtype, b));
    if sb == 0 {
        a
    } else {
        wrap(dtype, sa.wrapping_rem(sb))
    }
}

/// `arith.divui`.
pub fn divui(dtype: DType, a: i64, b: i64) -> i64 {
    let (a, b) = (unsigned(dtype, a), unsigned(dtype, b));
    a.checked_div(b).map_or(0, |q| wrap(dtype, q as i64))
}

/// `arith.remui`.
pub fn remui(dtype: DType, a: i64, b: i64) -> i64 {
    let (ua, ub) = (unsigned(dtype, a), unsigned(dtype, b));
    ua.checked_rem(ub).map_or(a, |r| wrap(dtype, r as i64))
}

/// `arith.cmpi` predicates, in the order of the ODS enum.
pub fn compare(dtype: DType, predicate: i64, a: i64, b: i64) -> bool {
    let (sa, sb) = (signed(dtype, a), signed(dtype, b));
    let (ua, ub) = (unsigned(dtype, a), unsigned(dtype, b));
    match predicate {
        0 => sa == sb,
        1 => sa != sb,
        2 => sa < sb,
        3 => sa <= sb,
        4 => sa > sb,
        5 => sa >= sb,
        6 => ua < ub,
        7 => ua <= ub,
        8 => ua > ub,
        _ => ua >= ub,
    }
}

/// Two elements combined by `kind` (avg sums; [`average`] finishes it).
/// i32 and i64 wrap and compare signed, as MPI's native integer
/// reductions do; i1 reduces logically (sum and max are `or`, prod and
/// min are `and`), as the executor's rank-order fold of 0/1 bytes does.
pub fn combine(dtype: DType, kind: Reduction, a: i64, b: i64) -> i64 {
    if dtype == DType::I1 {
        let (a, b) = (a != 0, b != 0);
        return i64::from(match kind {
            Reduction::Sum | Reduction::Avg | Reduction::Max => a || b,
            Reduction::Prod | Reduction::Min => a && b,
        });
    }
    wrap(
        dtype,
        match kind {
            Reduction::Sum | Reduction::Avg => a.wrapping_add(b),
            Reduction::Prod => a.wrapping_mul(b),
            Reduction::Min => a.min(b),
            Reduction::Max => a.max(b),
        },
    )
}

/// A sum of `count` elements divided by `count`, rounded toward zero.
pub fn average(dtype: DType, sum: i64, count: usize) -> i64 {
    if dtype == DType::I1 {
        return sum;
    }
    divsi(DType::I64, sum, count as i64)
}
