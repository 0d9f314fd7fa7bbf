//! Neural-network layers: `coco.softmax` and `coco.layer_norm` (two row
//! reductions along the last dimension, then one parallel
//! `linalg.generic` that normalises, all in the accumulation type and
//! rounded once at the end), and `coco.dropout` (one parallel
//! `linalg.generic` that hashes each element's global index with the
//! interpreter's counter-based RNG, SplitMix64 on i64, and keeps or zeroes
//! it).

use std::fmt::Write as _;

use coco_bundle::DType;

use coco_dialects::{
    coco::{DistTensor, Reduction},
    ir::{float_attr, int_attr},
};
use melior::ir::{Operation, ValueLike};

use super::{
    identity_map, map, parallel,
    types::{convert, float_literal, tensor_type, widen, KernelType},
    Computed, Emitter, Tensor,
};
use crate::error::{Error, Result};

// The constants of the interpreter's `rng` module (runtime/interp), which
// the kernels must reproduce bit for bit: SplitMix64's, the factor
// `rng::uniform` multiplies the counter by, and the basis `rng::key` folds
// key parts into ("coco").
const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;
const MIX1: u64 = 0xbf58_476d_1ce4_e5b9;
const MIX2: u64 = 0x94d0_49bb_1331_11eb;
const SPREAD: u64 = 0xd6e8_feb8_6659_fd93;
const KEY_BASIS: u64 = 0x636f_636f;

impl<'v, 'c: 'a, 'a> Emitter<'v, 'c, 'a> {
    /// `out = exp(x)` in `acc` as generic-body lines: arithmetic on the
    /// CPU (`math::vectorised`), `math.exp` elsewhere.
    fn exp_lines(&self, x: &str, acc: DType, out: &str) -> String {
        super::math::vectorised(self.target, "math.exp", x, acc, out)
            .unwrap_or_else(|| format!("      {out} = math.exp {x} : {acc}\n"))
    }

    /// Per row: `exp(x - max) / sum(exp(x - max))` in the accumulation type.
    pub(super) fn softmax(&mut self, op: &Operation<'c>, out: &Computed<'c, 'a>) -> Result<()> {
        let x = self.operand(op, 0, &out.location)?;
        let element = out.element;
        let acc = x.element.accumulator();
        let rank = x.shape.len();
        let (wa, xa) = widen(x.element, acc, "%a", "%x");
        // The row maximum: `maximumf` where rows are vectorised (MLIR 19's
        // linalg vectorizer has no `maxnumf` combiner). The softmax is the
        // same either way: a NaN in a row makes the row's sum, and so every
        // output of the row, NaN under both, and a maximum of +0 or -0
        // subtracts the same.
        let max = if self.vectorises_rows(&x.shape) {
            "maximumf"
        } else {
            "maxnumf"
        };
        let m = self.reduce_rows(
            &[(&x, false)],
            acc,
            acc.infinity(true),
            &format!("{wa}      %n = arith.{max} %acc, {xa} : {acc}\n"),
            Reduction::Max,
        );
        let rows = x.shape[..rank - 1].to_vec();
        let m_t = Tensor {
            name: m,
            element: acc,
            shape: rows.clone(),
        };
        let sum = self.reduce_rows(
            &[(&x, false), (&m_t, true)],
            acc,
            "0.0",
            &format!(
                "{wa}      %d = arith.subf {xa}, %b : {acc}\n{}      %n = arith.addf %acc, %e : {acc}\n",
                self.exp_lines("%d", acc, "%e")
            ),
            Reduction::Sum,
        );
        let row_map = map(rank, &(0..rank - 1).collect::<Vec<_>>());
        let e = self.empty(&x.shape, element);
        let (round, r) = convert(acc, element, "%q", "%r");
        let exp = self.exp_lines("%d", acc, "%ex");
        self.line(&format!(
            "{} = linalg.generic {{indexing_maps = [{id}, {row_map}, {row_map}, {id}], iterator_types = {}}} ins({}, {}, {sum} : {}, {}, {}) outs({e} : {}) {{\n    ^bb0(%a: {}, %b: {acc}, %c: {acc}, %o: {element}):\n{wa}      %d = arith.subf {xa}, %b : {acc}\n{exp}      %q = arith.divf %ex, %c : {acc}\n{round}      linalg.yield {r} : {element}\n    }} -> {}",
            out.name,
            parallel(rank),
            x.name,
            m_t.name,
            x.ty(),
            m_t.ty(),
            tensor_type(&rows, acc),
            tensor_type(&x.shape, element),
            x.element,
            tensor_type(&x.shape, element),
            id = identity_map(rank),
        ));
        Ok(())
    }

    /// Per row of the last dimension, in the accumulation type:
    /// `(x - mean) * (1 / sqrt(var + eps)) * gamma + beta`, with the final
    /// sum rounded once to the element type, as the interpreter does.
    pub(super) fn layer_norm(&mut self, op: &Operation<'c>, out: &Computed<'c, 'a>) -> Result<()> {
        let x = self.operand(op, 0, &out.location)?;
        let gamma = self.operand(op, 1, &out.location)?;
        let beta = self.operand(op, 2, &out.location)?;
        let epsilon = float_attr(op, "epsilon").unwrap_or(1e-5);
        let element = out.element;
        let acc = x.element.accumulator();
        let rank = x.shape.len();
        let width = x.shape[rank - 1];
        let (wa, xa) = widen(x.element, acc, "%a", "%x");
        let sum = self.reduce_rows(
            &[(&x, false)],
            acc,
            "0.0",
            &format!("{wa}      %n = arith.addf %acc, {xa} : {acc}\n"),
            Reduction::Sum,
        );
        let rows = x.shape[..rank - 1].to_vec();
        let sum_t = Tensor {
            name: sum,
            element: acc,
            shape: rows.clone(),
        };
        let mean = format!("      %w = arith.constant {width}.0 : {acc}\n      %mean = arith.divf %b, %w : {acc}\n");
        let var = self.reduce_rows(
            &[(&x, false), (&sum_t, true)],
            acc,
            "0.0",
            &format!("{wa}{mean}      %d = arith.subf {xa}, %mean : {acc}\n      %sq = arith.mulf %d, %d : {acc}\n      %n = arith.addf %acc, %sq : {acc}\n"),
            Reduction::Sum,
        );
        let row_map = map(rank, &(0..rank - 1).collect::<Vec<_>>());
        let last = map(rank, &[rank - 1]);
        let e = self.empty(&x.shape, element);
        let (wg, ga) = widen(gamma.element, acc, "%g", "%gw");
        let (wb, ba) = widen(beta.element, acc, "%be", "%bw");
        let eps = float_literal(acc.round(epsilon));
        let (round, r) = convert(acc, element, "%y", "%r");
        self.line(&format!(
            "{} = linalg.generic {{indexing_maps = [{id}, {row_map}, {row_map}, {last}, {last}, {id}], iterator_types = {}}} ins({}, {}, {var}, {}, {} : {}, {}, {}, {}, {}) outs({e} : {}) {{\n    ^bb0(%a: {}, %b: {acc}, %v: {acc}, %g: {}, %be: {}, %o: {element}):\n{wa}{mean}      %var = arith.divf %v, %w : {acc}\n      %eps = arith.constant {eps} : {acc}\n      %ve = arith.addf %var, %eps : {acc}\n      %sd = math.sqrt %ve : {acc}\n      %one = arith.constant 1.0 : {acc}\n      %inv = arith.divf %one, %sd : {acc}\n      %d = arith.subf {xa}, %mean : {acc}\n      %nm = arith.mulf %d, %inv : {acc}\n{wg}      %ng = arith.mulf %nm, {ga} : {acc}\n{wb}      %y = arith.addf %ng, {ba} : {acc}\n{round}      linalg.yield {r} : {element}\n    }} -> {}",
            out.name,
            parallel(rank),
            x.name,
            sum_t.name,
            gamma.name,
            beta.name,
            x.ty(),
            sum_t.ty(),
            tensor_type(&rows, acc),
            gamma.ty(),
            beta.ty(),
            tensor_type(&x.shape, element),
            x.element,
            gamma.element,
            beta.element,
            tensor_type(&x.shape, element),
            id = identity_map(rank),
        ));
        Ok(())
    }

    /// The interpreter's counter-based dropout: element `i` (global linear
    /// index) is dropped when `uniform(key(seed), i) < prob`; the hash is
    /// SplitMix64 in i64 inside the kernel, the key a compile-time constant.
    pub(super) fn dropout(&mut self, op: &Operation<'c>, out: &Computed<'c, 'a>) -> Result<()> {
        let x = self.operand(op, 0, &out.location)?;
        let dist = DistTensor::from_type(out.value.r#type());
        let placement = self.placement_of(out.value.r#type());
        let blocks: Vec<Option<(String, String)>> = (0..x.shape.len())
            .map(|d| self.block_index(&placement, d))
            .collect();
        let global = dist
            .and_then(|t| t.static_shape())
            .ok_or_else(|| Error::unsupported(&out.location, "dropout of a dynamic shape"))?;
        let prob = float_attr(op, "prob").unwrap_or(0.0);
        let seed = int_attr(op, "seed").unwrap_or(0) as u64;
        let element = out.element;
        let rank = x.shape.len();
        let scale = element.round(1.0 / (1.0 - prob));
        let body = format!(
            "{}{}      %ctr = arith.muli %dgi{rank}, %spread : i64\n      %in = arith.xori %key, %ctr : i64\n{}      %bits = arith.shrui %h, %sh11 : i64\n      %drop = arith.cmpi ult, %bits, %threshold : i64\n      %scale = arith.constant {} : {element}\n      %kept = arith.mulf %a, %scale : {element}\n      %zero = arith.constant 0.0 : {element}\n      %y = arith.select %drop, %zero, %kept : {element}\n",
            rng_constants(seed, prob),
            global_index(&x, &blocks, &global),
            MIX,
            float_literal(scale)
        );
        let e = self.empty(&x.shape, element);
        self.line(&format!(
            "{} = linalg.generic {{indexing_maps = [{id}, {id}], iterator_types = {}}} ins({} : {}) outs({e} : {}) {{\n    ^bb0(%a: {element}, %o: {element}):\n{body}      linalg.yield %y : {element}\n    }} -> {}",
            out.name,
            parallel(rank),
            x.name,
            x.ty(),
            tensor_type(&x.shape, element),
            tensor_type(&x.shape, element),
            id = identity_map(rank),
        ));
        Ok(())
    }
}

/// SplitMix64's finaliser, as the interpreter's `rng::mix`.
fn rng_mix(mut x: u64) -> u64 {
    x = x.wrapping_add(GOLDEN);
    x = (x ^ (x >> 30)).wrapping_mul(MIX1);
    x = (x ^ (x >> 27)).wrapping_mul(MIX2);
    x ^ (x >> 31)
}

/// `rng_mix` of `%in` into `%h`, in the kernel.
const MIX: &str = "      %ha = arith.addi %in, %golden : i64\n      %hb = arith.shrui %ha, %sh30 : i64\n      %hc = arith.xori %ha, %hb : i64\n      %hd = arith.muli %hc, %mix1 : i64\n      %he = arith.shrui %hd, %sh27 : i64\n      %hf = arith.xori %hd, %he : i64\n      %hg = arith.muli %hf, %mix2 : i64\n      %hh = arith.shrui %hg, %sh31 : i64\n      %h = arith.xori %hg, %hh : i64\n";

/// The hash's constants, the stream key of `seed`, and the drop threshold
/// for `prob`, as i64 constants (MLIR has no unsigned literals).
fn rng_constants(seed: u64, prob: f64) -> String {
    // `rng::key(&[seed])`, mixed once more as `rng::uniform` mixes its key:
    // done here, it leaves one mix per element.
    let mixed_key = rng_mix(rng_mix(KEY_BASIS ^ seed));
    // u < prob with u = n / 2^53 and an integer n: n < ceil(prob * 2^53).
    let threshold = (prob * (1u64 << 53) as f64).ceil().max(0.0) as u64;
    format!(
        "      %golden = arith.constant {} : i64\n      %mix1 = arith.constant {} : i64\n      %mix2 = arith.constant {} : i64\n      %sh30 = arith.constant 30 : i64\n      %sh27 = arith.constant 27 : i64\n      %sh31 = arith.constant 31 : i64\n      %sh11 = arith.constant 11 : i64\n      %key = arith.constant {} : i64\n      %spread = arith.constant {} : i64\n      %threshold = arith.constant {} : i64\n",
        GOLDEN as i64,
        MIX1 as i64,
        MIX2 as i64,
        mixed_key as i64,
        SPREAD as i64,
        threshold as i64,
    )
}

/// Lines computing `%dgi{rank}`, an element's row-major index in the
/// global tensor of shape `global`: along a sliced dimension the local
/// part starts at the rank's block index (`blocks[d]`: the lines that
/// compute it in the loop body, and its `index` value) times its local
/// size.
fn global_index(x: &Tensor, blocks: &[Option<(String, String)>], global: &[i64]) -> String {
    let rank = x.shape.len();
    let mut strides = vec![1i64; rank];
    for d in (0..rank.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * global[d + 1];
    }
    let mut index = String::from("      %dgi0 = arith.constant 0 : i64\n");
    for (d, stride) in strides.iter().enumerate() {
        let _ = write!(
            index,
            "      %dl{d} = linalg.index {d} : index\n      %dli{d} = arith.index_cast %dl{d} : index to i64\n"
        );
        let coordinate = match &blocks[d] {
            Some((lines, block)) => {
                index.push_str(lines);
                let _ = write!(
                    index,
                    "      %dr{d} = arith.index_cast {block} : index to i64\n      %dn{d} = arith.constant {} : i64\n      %do{d} = arith.muli %dr{d}, %dn{d} : i64\n      %dc{d} = arith.addi %dli{d}, %do{d} : i64\n",
                    x.shape[d]
                );
                format!("%dc{d}")
            }
            None => format!("%dli{d}"),
        };
        let _ = write!(
            index,
            "      %ds{d} = arith.constant {stride} : i64\n      %dp{d} = arith.muli {coordinate}, %ds{d} : i64\n      %dgi{} = arith.addi %dgi{d}, %dp{d} : i64\n",
            d + 1
        );
    }
    index
}
