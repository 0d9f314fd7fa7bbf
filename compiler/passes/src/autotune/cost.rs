//! The cost model (see docs/autotune.md): alpha-beta costs for collectives
//! (ring and tree, the cheaper one; intra- or inter-node link by group size),
//! roofline costs for kernels (bytes over memory bandwidth or flops over
//! peak, plus a launch), fused regions counting only their external bytes
//! and one launch, and overlap regions as the longer of their two streams
//! plus fill and drain.

use coco_dialects::{
    coco::{
        facts::{facts, Cost, Traffic},
        ops, DistTensor, Layout, Mesh,
    },
    ir::{as_op, body_ops, int_attr, op_name},
};
use std::collections::HashSet;

use coco_dialects::rewrite::users;
use melior::ir::{operation::OperationRef, Operation, Type, ValueLike};

use super::machine::Machine;

/// Predicted time in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Estimate {
    pub communication_us: f64,
    pub computation_us: f64,
    /// With overlap, less than the sum of the two.
    pub total_us: f64,
}

impl Estimate {
    fn add(&mut self, other: Estimate) {
        self.communication_us += other.communication_us;
        self.computation_us += other.computation_us;
        self.total_us += other.total_us;
    }
}

fn element_bytes(ty: Type) -> f64 {
    let raw = melior::ir::TypeLike::to_raw(&ty);
    // SAFETY: pure type queries.
    unsafe {
        if mlir_sys::mlirTypeIsAF64(raw) {
            8.0
        } else if mlir_sys::mlirTypeIsAF16(raw) || mlir_sys::mlirTypeIsABF16(raw) {
            2.0
        } else if mlir_sys::mlirIntegerTypeGetWidth(raw) == 1 && mlir_sys::mlirTypeIsAInteger(raw) {
            1.0
        } else {
            4.0
        }
    }
}

pub struct CostModel<'m> {
    pub machine: &'m Machine,
    pub ranks: usize,
    /// The program's `coco.mesh`, whose axes split tensors and carry
    /// collectives (`None`: one axis over all ranks).
    pub mesh: Option<Mesh>,
}

impl CostModel<'_> {
    /// Into how many parts the ranks split dimension `dim` of `tensor`.
    fn parts(&self, tensor: &DistTensor, dim: usize) -> f64 {
        match (&self.mesh, tensor.layout) {
            (_, Some(Layout::Sliced(d))) if d as usize == dim => match &self.mesh {
                Some(mesh) => mesh.size() as f64,
                None => self.ranks as f64,
            },
            (Some(mesh), None) => tensor
                .placement(mesh)
                .map_or(1.0, |p| p.parts(mesh, dim) as f64),
            _ => 1.0,
        }
    }

    /// `(global bytes, local bytes, local elements, 16-bit)` of a tensor
    /// value.
    fn tensor_size(&self, ty: Type) -> Option<(f64, f64, f64, bool)> {
        let tensor = DistTensor::from_type(ty)?;
        let elements: f64 = tensor.shape.iter().map(|d| d.unwrap_or(1) as f64).product();
        let size = element_bytes(tensor.element);
        let split: f64 = (0..tensor.rank()).map(|d| self.parts(&tensor, d)).product();
        let local = elements / split;
        Some((elements * size, local * size, local, size == 2.0))
    }

    /// Into how many parts the axes other than a collective's own split its
    /// tensor: each row of ranks along the axis moves one such part.
    fn other_axes_parts(&self, op: &Operation, ty: Type) -> f64 {
        let (Some(mesh), Some(axis)) = (&self.mesh, coco_dialects::ir::str_attr(op, "axis")) else {
            return 1.0;
        };
        let Some(own) = mesh.axis(&axis) else {
            return 1.0;
        };
        let Some(placement) = DistTensor::from_type(ty).and_then(|t| t.placement(mesh).ok()) else {
            return 1.0;
        };
        placement
            .0
            .iter()
            .enumerate()
            .filter(|(a, layout)| *a != own && layout.is_sliced())
            .map(|(a, _)| mesh.axes[a].1 as f64)
            .product()
    }

    /// The ranks a collective runs among, and how many consecutive ranks
    /// they span (which decides whether it crosses nodes): the whole
    /// world, or one axis of the mesh, whose ranks lie `stride` apart.
    fn group_of(&self, op: &Operation) -> (usize, usize) {
        let axis = coco_dialects::ir::str_attr(op, "axis");
        match (&self.mesh, axis) {
            (Some(mesh), Some(axis)) => match mesh.axis(&axis) {
                Some(a) => {
                    let size = mesh.axes[a].1;
                    let stride: usize = mesh.axes[a + 1..].iter().map(|(_, n)| n).product();
                    (size, size * stride)
                }
                None => (self.ranks, self.ranks),
            },
            _ => (self.ranks, self.ranks),
        }
    }

    /// Latency (us) and inverse bandwidth (us per byte) of a link.
    fn alpha_beta(link: &super::machine::Link) -> (f64, f64) {
        (link.latency_us, 1.0 / (link.bandwidth_gbps * 1e3))
    }

    /// A ring reduce_scatter (or all_gather) of `bytes` over `p` peers.
    fn ring_half(p: f64, bytes: f64, (alpha, beta): (f64, f64)) -> (f64, f64) {
        ((p - 1.0) * alpha, (p - 1.0) / p * bytes * beta)
    }

    /// A reduce_scatter (or all_gather) as NCCL runs it: one ring inside a
    /// node, or two levels (inside nodes, then across nodes on the node's
    /// share) when the group spans nodes.
    fn scatter_like(&self, bytes: f64, (ranks, span): (usize, usize)) -> (f64, f64) {
        let p = ranks as f64;
        let intra = Self::alpha_beta(&self.machine.intra_node);
        if span <= self.machine.devices_per_node {
            return Self::ring_half(p, bytes, intra);
        }
        // A group whose ranks lie apart: as many of them share a node as
        // the node holds of its span.
        let per_node = (self.machine.devices_per_node as f64 * p / span as f64).clamp(1.0, p);
        let nodes = p / per_node;
        let inside = Self::ring_half(per_node, bytes, intra);
        let across = Self::ring_half(
            nodes,
            bytes / per_node,
            Self::alpha_beta(&self.machine.inter_node),
        );
        (inside.0 + across.0, inside.1 + across.1)
    }

    /// `(latency part, bandwidth part)` of a collective moving a tensor of
    /// `bytes` global bytes among all ranks.
    pub fn collective_parts(&self, name: &str, bytes: f64) -> (f64, f64) {
        self.collective_parts_among(name, bytes, (self.ranks, self.ranks))
    }

    /// [`CostModel::collective_parts`] among `group.0` ranks spanning
    /// `group.1` consecutive ones (one mesh axis).
    fn collective_parts_among(&self, name: &str, bytes: f64, group: (usize, usize)) -> (f64, f64) {
        let (ranks, span) = group;
        if ranks <= 1 {
            return (0.0, 0.0);
        }
        let p = ranks as f64;
        let log_p = p.log2().ceil();
        let (alpha, beta) = Self::alpha_beta(self.machine.link(span));
        let Cost::Collective(traffic) = facts(name).cost else {
            return (0.0, 0.0);
        };
        match traffic {
            Traffic::AllReduce => {
                // Ring (= reduce_scatter + all_gather) or NCCL's double
                // binary tree: logarithmic latency, still bandwidth-optimal.
                let half = self.scatter_like(bytes, group);
                let ring = (2.0 * half.0, 2.0 * half.1);
                let tree = (2.0 * log_p * alpha, 2.0 * (p - 1.0) / p * bytes * beta);
                if ring.0 + ring.1 <= tree.0 + tree.1 {
                    ring
                } else {
                    tree
                }
            }
            Traffic::ScatterLike => self.scatter_like(bytes, group),
            Traffic::Rooted => (log_p * alpha, bytes * beta),
            Traffic::PointToPoint => (alpha, bytes * beta),
        }
    }

    /// `(bytes moved, flops, uses 16-bit units)` of one computation on one rank.
    fn work(&self, op: &Operation) -> (f64, f64, bool) {
        let name = op_name(op);
        let mut bytes = 0.0;
        let mut half = false;
        for ty in op
            .operands()
            .map(|v| v.r#type())
            .chain(op.results().map(|r| r.r#type()))
        {
            if let Some((_, local, _, h)) = self.tensor_size(ty) {
                bytes += local;
                half |= h;
            }
        }
        let out_elements = op
            .result(0)
            .ok()
            .and_then(|r| self.tensor_size(r.r#type()))
            .map_or(0.0, |s| s.2);
        let flops = match facts(&name).cost {
            Cost::Matmul => {
                let k = op
                    .operand(0)
                    .ok()
                    .and_then(|v| DistTensor::from_type(v.r#type()))
                    .map_or(1.0, |t| {
                        let k = t.shape.get(1).copied().flatten().unwrap_or(1) as f64;
                        k / self.parts(&t, 1)
                    });
                2.0 * out_elements * k
            }
            Cost::LayerNorm => 8.0 * out_elements,
            Cost::Reduction => {
                2.0 * op
                    .operand(0)
                    .ok()
                    .and_then(|v| self.tensor_size(v.r#type()))
                    .map_or(0.0, |s| s.2)
            }
            _ => out_elements,
        };
        (bytes, flops, half)
    }

    fn roofline(&self, bytes: f64, flops: f64, half: bool) -> f64 {
        let device = &self.machine.device;
        let peak = if half {
            device.peak_tflops_f16
        } else {
            device.peak_tflops_f32
        };
        let memory = bytes / (device.memory_bandwidth_gbps * 1e3);
        let compute = flops / (peak * 1e6);
        device.kernel_launch_us + memory.max(compute)
    }

    /// Ops that cost nothing at run time (the op facts table): constants are
    /// materialised at compile time, slicing a replicated tensor is an
    /// offset view.
    fn is_free(name: &str) -> bool {
        facts(name).cost == Cost::Free
    }

    fn collective(&self, op: &Operation) -> Estimate {
        let name = op_name(op);
        let ty = if name == ops::RECV {
            op.result(0).ok().map(|r| r.r#type())
        } else {
            op.operand(0).ok().map(|v| v.r#type())
        };
        let bytes = ty.and_then(|t| self.tensor_size(t)).map_or(0.0, |s| s.0)
            / ty.map_or(1.0, |t| self.other_axes_parts(op, t));
        let (latency, bandwidth) = self.collective_parts_among(&name, bytes, self.group_of(op));
        let time = latency + bandwidth;
        Estimate {
            communication_us: time,
            computation_us: 0.0,
            total_us: time,
        }
    }

    /// One kernel for the computations among `members`, reading and writing
    /// only the values that cross the group's boundary. Inside a fused
    /// collective (`in_collective`) the computation runs in the collective's
    /// kernel: no launch, and the slices flowing from the reduce_scatter and
    /// into the all_gather never go through memory.
    fn fused(&self, members: &[OperationRef], in_collective: bool) -> Estimate {
        let member_ops: HashSet<usize> = members.iter().map(|m| m.to_raw().ptr as usize).collect();
        // Values computed by the group itself; what free ops (slices, views)
        // or, outside fused collectives, collectives produce is still read
        // from memory.
        let produced: HashSet<usize> = members
            .iter()
            .map(as_op)
            .filter(|op| {
                let name = op_name(op);
                let comm = coco_dialects::coco::ops::is_collective(&name);
                !Self::is_free(&name) && (!comm || in_collective)
            })
            .flat_map(|op| op.results().map(|r| r.to_raw().ptr as usize))
            .collect();
        let (mut bytes, mut flops, mut half, mut any) = (0.0, 0.0, false, false);
        for member in members {
            let op = as_op(member);
            let name = op_name(op);
            if coco_dialects::coco::ops::is_collective(&name) || Self::is_free(&name) {
                continue;
            }
            any = true;
            let (_, f, h) = self.work(op);
            flops += f;
            half |= h;
            // Inputs from outside the group are read once.
            for v in op
                .operands()
                .filter(|v| !produced.contains(&(v.to_raw().ptr as usize)))
            {
                bytes += self.tensor_size(v.r#type()).map_or(0.0, |s| s.1);
            }
            // Results leave through memory when used outside the group, except
            // slices a fused collective's all_gather takes in flight.
            for r in op.results() {
                let escapes = users(r.into()).iter().any(|u| {
                    // SAFETY: users are live ops.
                    let user = unsafe { OperationRef::from_raw(*u) };
                    let user_name = op_name(as_op(&user));
                    let in_flight = in_collective && user_name == ops::ALL_GATHER;
                    !in_flight
                        && (!member_ops.contains(&(u.ptr as usize)) || user_name == ops::YIELD)
                });
                if escapes {
                    bytes += self.tensor_size(r.r#type()).map_or(0.0, |s| s.1);
                }
            }
        }
        if !any {
            return Estimate::default();
        }
        let mut time = self.roofline(bytes, flops, half);
        if in_collective {
            // The computation runs inside the collective's kernel.
            time -= self.machine.device.kernel_launch_us;
        }
        Estimate {
            communication_us: 0.0,
            computation_us: time,
            total_us: time,
        }
    }

    fn region_members<'c, 'a>(
        op: &'a Operation<'c>,
    ) -> Vec<melior::ir::operation::OperationRef<'c, 'a>> {
        body_ops(op)
    }

    /// The cost of one top-level op.
    pub fn op_cost(&self, op: &Operation) -> Estimate {
        let name = op_name(op);
        if Self::is_free(&name) {
            return Estimate::default();
        }
        match name.as_str() {
            n if coco_dialects::coco::ops::is_collective(n) => self.collective(op),
            ops::FUSED_KERNEL => {
                let members = Self::region_members(op);
                self.fused(&members, false)
            }
            ops::FUSED_COLLECTIVE => {
                let members = Self::region_members(op);
                let mut estimate = Estimate::default();
                for m in members
                    .iter()
                    .map(as_op)
                    .filter(|m| coco_dialects::coco::ops::is_collective(&op_name(m)))
                {
                    estimate.add(self.collective(m));
                }
                estimate.add(self.fused(&members, true));
                estimate
            }
            ops::OVERLAP => {
                // CoCoNet's overlap issues one collective that consumes chunks
                // as the producer signals them: the collective's latency is
                // paid once, the producer pays a launch per chunk, and the
                // shorter stream hides behind the longer one except for one
                // chunk (fill and drain).
                let chunks = int_attr(op, "chunks").unwrap_or(1).max(1) as f64;
                let (mut compute, mut comm) = (Estimate::default(), Estimate::default());
                for member in Self::region_members(op) {
                    let m = as_op(&member);
                    let cost = self.op_cost(m);
                    if op_name(m) == ops::MATMUL {
                        compute.add(cost);
                    } else {
                        comm.add(cost);
                    }
                }
                let c = compute.total_us + (chunks - 1.0) * self.machine.device.kernel_launch_us;
                let m = comm.total_us;
                let total = c.max(m) + c.min(m) / chunks;
                Estimate {
                    communication_us: comm.communication_us,
                    computation_us: compute.computation_us + comm.computation_us,
                    total_us: total,
                }
            }
            _ => {
                let (bytes, flops, half) = self.work(op);
                let time = self.roofline(bytes, flops, half);
                Estimate {
                    communication_us: 0.0,
                    computation_us: time,
                    total_us: time,
                }
            }
        }
    }

    /// The predicted time of every function of `module` (stages run in
    /// sequence, as the interpreter runs them).
    pub fn estimate(&self, module: &Operation) -> Estimate {
        let mut total = Estimate::default();
        for func in body_ops(module) {
            let func = as_op(&func);
            if op_name(func) != "func.func" {
                continue;
            }
            for op in body_ops(func) {
                total.add(self.op_cost(as_op(&op)));
            }
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autotune::machine::Machine;

    fn model(machine: &Machine, ranks: usize) -> CostModel<'_> {
        CostModel {
            machine,
            ranks,
            mesh: None,
        }
    }

    fn total((latency, bandwidth): (f64, f64)) -> f64 {
        latency + bandwidth
    }

    #[test]
    fn one_rank_communicates_nothing() {
        let machine = Machine::load("v100-cluster").unwrap();
        assert_eq!(
            model(&machine, 1).collective_parts(ops::ALL_REDUCE, 1e9),
            (0.0, 0.0)
        );
    }

    #[test]
    fn a_ring_half_moves_p_minus_one_over_p_of_the_bytes() {
        let (latency, bandwidth) = CostModel::ring_half(4.0, 1000.0, (2.0, 0.5));
        assert_eq!(latency, 6.0);
        assert_eq!(bandwidth, 375.0);
    }

    #[test]
    fn all_reduce_costs_reduce_scatter_plus_all_gather_inside_a_node() {
        let machine = Machine::load("h100-node").unwrap();
        let cost = model(&machine, machine.devices_per_node);
        let bytes = 64.0 * 1024.0 * 1024.0;
        let all_reduce = total(cost.collective_parts(ops::ALL_REDUCE, bytes));
        let split = total(cost.collective_parts(ops::REDUCE_SCATTER, bytes))
            + total(cost.collective_parts(ops::ALL_GATHER, bytes));
        // The ring is the split; the tree may only be cheaper.
        assert!(
            all_reduce <= split * (1.0 + 1e-12),
            "{all_reduce} > {split}"
        );
    }

    #[test]
    fn an_axis_collective_runs_among_that_axis_on_the_links_it_spans() {
        let machine = Machine::load("v100-cluster").unwrap();
        let n = machine.devices_per_node;
        // dp across nodes, tp inside each: [dp = 4, tp = n].
        let cost = CostModel {
            machine: &machine,
            ranks: 4 * n,
            mesh: Some(Mesh {
                axes: vec![("dp".into(), 4), ("tp".into(), n)],
            }),
        };
        let bytes = 64.0 * 1024.0 * 1024.0;
        let tp = total(cost.collective_parts_among(ops::ALL_REDUCE, bytes, (n, n)));
        let dp = total(cost.collective_parts_among(ops::ALL_REDUCE, bytes, (4, 4 * n)));
        let inside = total(model(&machine, n).collective_parts(ops::ALL_REDUCE, bytes));
        assert_eq!(tp, inside);
        assert!(dp > tp, "{dp} <= {tp}");
    }

    #[test]
    fn crossing_nodes_costs_more_than_staying_inside_one() {
        let machine = Machine::load("v100-cluster").unwrap();
        let inside = model(&machine, machine.devices_per_node);
        let across = model(&machine, machine.devices_per_node * 4);
        let bytes = 256.0 * 1024.0 * 1024.0;
        assert!(
            total(across.collective_parts(ops::REDUCE_SCATTER, bytes))
                > total(inside.collective_parts(ops::REDUCE_SCATTER, bytes))
        );
    }

    #[test]
    fn bandwidth_terms_grow_with_bytes_and_latency_terms_do_not() {
        let machine = Machine::load("cpu-host").unwrap();
        let cost = model(&machine, 4);
        for name in [ops::ALL_REDUCE, ops::ALL_GATHER, ops::BROADCAST, ops::SEND] {
            let small = cost.collective_parts(name, 1e3);
            let large = cost.collective_parts(name, 1e6);
            assert_eq!(small.0, large.0, "{name}");
            assert!(large.1 > small.1, "{name}");
        }
    }
}
