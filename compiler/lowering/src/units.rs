//! The units a coco function is cut into (kernels, communication, peer
//! launches, overlapped matmuls), as the partitioner makes them and the
//! fused-collective rewrite merges them, and which units read each value.

use std::collections::{HashMap, HashSet};

use coco_dialects::{
    coco::Mesh,
    ir::{as_op, defining_op},
};
use melior::ir::{operation::OperationRef, Value};

use crate::ir::{contiguous_slice, key, operand, Values};

/// One part of a function's plan.
pub(crate) enum Unit<'c, 'a> {
    Kernel(Vec<OperationRef<'c, 'a>>),
    Communication(OperationRef<'c, 'a>),
    /// The one-kernel fused collective (`Step::PeerLaunch`, see
    /// `fused_collective`): reduce_scatters whose results only `ops` read,
    /// `ops`, and all_gathers of what `ops` compute, as one kernel that
    /// reads and writes the peers' buffers.
    Peer {
        reduce_scatters: Vec<OperationRef<'c, 'a>>,
        ops: Vec<OperationRef<'c, 'a>>,
        all_gathers: Vec<OperationRef<'c, 'a>>,
    },
    /// `coco.overlap chunks N` around a 2-D matmul and the all_reduce of
    /// its result: N row chunks, each a kernel on stream 0 and an
    /// all_reduce on stream 1 once an event says the chunk is ready.
    Overlap {
        matmul: OperationRef<'c, 'a>,
        all_reduce: OperationRef<'c, 'a>,
        chunks: usize,
    },
}

/// Which units read each value, by value identity; the tail (updates and
/// results) counts as unit `TAIL`.
pub(crate) type Readers = HashMap<usize, HashSet<usize>>;

const TAIL: usize = usize::MAX;

impl<'c: 'a, 'a> Unit<'c, 'a> {
    /// Every op of the unit.
    pub(crate) fn ops(&self) -> Vec<OperationRef<'c, 'a>> {
        match self {
            Unit::Kernel(ops) => ops.clone(),
            Unit::Communication(op) => vec![*op],
            Unit::Peer {
                reduce_scatters,
                ops,
                all_gathers,
            } => reduce_scatters
                .iter()
                .chain(ops)
                .chain(all_gathers)
                .copied()
                .collect(),
            Unit::Overlap {
                matmul, all_reduce, ..
            } => vec![*matmul, *all_reduce],
        }
    }
}

/// The readers of every value the units and the tail use. Reading a view
/// reads the value it views too.
pub(crate) fn readers<'c: 'a, 'a>(
    units: &[Unit<'c, 'a>],
    tail: &[OperationRef<'c, 'a>],
    values: &Values<'c, 'a>,
    group: &Mesh,
) -> Readers {
    let mut readers = Readers::new();
    let mut read = |value: Value<'c, 'a>, unit: usize| {
        let mut value = value;
        loop {
            readers.entry(key(value)).or_default().insert(unit);
            match defining_op(value) {
                Some(op) if contiguous_slice(as_op(&op), group, values).is_some() => {
                    match operand(as_op(&op), 0) {
                        Some(base) => value = values.resolve(base),
                        None => break,
                    }
                }
                _ => break,
            }
        }
    };
    let readers_of = units
        .iter()
        .enumerate()
        .flat_map(|(index, unit)| unit.ops().into_iter().map(move |op| (index, op)))
        .chain(tail.iter().map(|op| (TAIL, *op)));
    for (unit, op) in readers_of {
        for i in 0..as_op(&op).operand_count() {
            for source in operand(as_op(&op), i)
                .map(|v| values.sources(v))
                .unwrap_or_default()
            {
                read(source, unit);
            }
        }
    }
    readers
}
