//! The stage's collectives on the GPU: NCCL calls on the stage's
//! communicator, with the strided copies of their [`routes`] around the
//! dimension-aware ones (planned once, when the stage is set up, so each
//! stream's staging buffer can be sized for the largest).

use coco_bundle::{DType, Reduction, Step};
use cudarc::driver::sys as cu;
use cudarc::nccl::sys as nccl;

use super::{
    driver::{self, check, check_nccl, nccl_op, nccl_type},
    routes::{self, Route},
    strided::{At, Copy2d, Place},
    Cuda, Device,
};
use crate::error::{Error, Result};

/// Where a collective step runs: its plan stream (whose staging buffer it
/// uses) and that stream's CUDA stream.
#[derive(Clone, Copy)]
pub(super) struct On {
    pub plan: u32,
    pub stream: cu::CUstream,
}

impl On {
    fn nccl(&self) -> nccl::cudaStream_t {
        self.stream as nccl::cudaStream_t
    }
}

impl Cuda {
    /// Each dimension-aware collective's route, and each stream's staging
    /// buffer, as large as the largest route on it needs.
    pub(super) fn plan_routes(&mut self) -> Result<()> {
        let stage = &self.plan.stages[self.stage_index];
        let (size, rank) = (stage.size, self.position);
        let mut need: std::collections::HashMap<u32, usize> = Default::default();
        for (index, step) in stage.steps.iter().enumerate() {
            let route = match step {
                Step::ReduceScatter {
                    input, output, dim, ..
                } => {
                    let (i, o) = (self.buffer(input)?, self.buffer(output)?);
                    let shape = self.shape(input)?;
                    let elem = i.dtype.size();
                    routes::reduce_scatter(shape, elem, *dim, size, rank, i.span(), o.span())
                }
                Step::AllGather {
                    input, output, dim, ..
                } => {
                    let (i, o) = (self.buffer(input)?, self.buffer(output)?);
                    let shape = self.shape(input)?;
                    let elem = i.dtype.size();
                    routes::all_gather(shape, elem, *dim, size, rank, i.span(), o.span())
                }
                Step::AllToAll {
                    input,
                    output,
                    split_dim,
                    concat_dim,
                    ..
                } => {
                    let (i, o) = (self.buffer(input)?, self.buffer(output)?);
                    let shape = self.shape(input)?;
                    let (split, concat) = (*split_dim, *concat_dim);
                    let (elem, span) = (i.dtype.size(), i.span());
                    routes::all_to_all(shape, elem, split, concat, size, span, o.span())
                }
                _ => continue,
            };
            let slot = need.entry(step.stream()).or_default();
            *slot = (*slot).max(route.staging);
            self.routes.insert(index, route);
        }
        for (stream, bytes) in need {
            if bytes > 0 {
                let ptr = self.allocate(bytes)?;
                self.staging.insert(stream, ptr);
            }
        }
        Ok(())
    }

    fn comm(&self) -> Result<nccl::ncclComm_t> {
        self.comm
            .as_ref()
            .map(|c| c.raw())
            .ok_or_else(|| Error::Internal("the stage has no NCCL communicator".into()))
    }

    /// # Safety
    /// `i` and `o` are this stage's buffers of the step, whose shapes the
    /// plan checks fitted to the collective (so for every collective here).
    pub(super) unsafe fn all_reduce(
        &self,
        reduction: Reduction,
        i: Device,
        o: Device,
        on: On,
    ) -> Result<u64> {
        check_nccl(
            nccl::ncclAllReduce(
                i.ptr as _,
                o.ptr as _,
                i.count(),
                nccl_type(i.dtype),
                nccl_op(reduction),
                self.comm()?,
                on.nccl(),
            ),
            "ncclAllReduce",
        )?;
        Ok(i.bytes as u64)
    }

    /// Part `rank` along the step's dimension of the reduction, through the
    /// step's route.
    ///
    /// # Safety
    /// As [`Cuda::all_reduce`].
    pub(super) unsafe fn reduce_scatter(
        &self,
        index: usize,
        reduction: Reduction,
        i: Device,
        o: Device,
        on: On,
    ) -> Result<u64> {
        let route = self.route(index)?;
        self.copies(&route.before, i, o, on)?;
        check_nccl(
            nccl::ncclReduceScatter(
                self.address(route.send, i, o, on.plan)? as _,
                self.address(route.recv, i, o, on.plan)? as _,
                o.count(),
                nccl_type(i.dtype),
                nccl_op(reduction),
                self.comm()?,
                on.nccl(),
            ),
            "ncclReduceScatter",
        )?;
        self.copies(&route.after, i, o, on)?;
        Ok(i.bytes as u64)
    }

    /// Every rank's input concatenated along the step's dimension, through
    /// the step's route.
    ///
    /// # Safety
    /// As [`Cuda::all_reduce`].
    pub(super) unsafe fn all_gather(
        &self,
        index: usize,
        i: Device,
        o: Device,
        on: On,
    ) -> Result<u64> {
        let route = self.route(index)?;
        self.copies(&route.before, i, o, on)?;
        check_nccl(
            nccl::ncclAllGather(
                self.address(route.send, i, o, on.plan)? as _,
                self.address(route.recv, i, o, on.plan)? as _,
                i.count(),
                nccl_type(i.dtype),
                self.comm()?,
                on.nccl(),
            ),
            "ncclAllGather",
        )?;
        self.copies(&route.after, i, o, on)?;
        Ok(i.bytes as u64)
    }

    /// The input (of shape `shape`) split along `split_dim`, part r to rank
    /// r, the parts received concatenated along the route's dimension.
    ///
    /// # Safety
    /// As [`Cuda::all_reduce`].
    pub(super) unsafe fn all_to_all(
        &self,
        index: usize,
        shape: &[usize],
        split_dim: usize,
        i: Device,
        o: Device,
        on: On,
    ) -> Result<u64> {
        let route = self.route(index)?;
        let size = self.plan.stages[self.stage_index].size;
        let part = routes::all_to_all_part(shape, i.dtype.size(), split_dim, size);
        self.copies(&route.before, i, o, on)?;
        let send = self.address(route.send, i, o, on.plan)?;
        let recv = self.address(route.recv, i, o, on.plan)?;
        if size == 1 {
            // Its one part to itself: a copy, no NCCL.
            if part > 0 {
                check(
                    cu::cuMemcpyDtoDAsync_v2(recv, send, part, on.stream),
                    "cuMemcpyDtoDAsync",
                )?;
            }
        } else {
            self.exchange(send, recv, part, i.dtype, size, on)?;
        }
        self.copies(&route.after, i, o, on)?;
        Ok(i.bytes as u64)
    }

    /// `root`'s input on every rank.
    ///
    /// # Safety
    /// As [`Cuda::all_reduce`].
    pub(super) unsafe fn broadcast(
        &self,
        root: usize,
        i: Device,
        o: Device,
        on: On,
    ) -> Result<u64> {
        check_nccl(
            nccl::ncclBroadcast(
                i.ptr as _,
                o.ptr as _,
                i.count(),
                nccl_type(i.dtype),
                root as i32,
                self.comm()?,
                on.nccl(),
            ),
            "ncclBroadcast",
        )?;
        Ok(if self.position == root {
            i.bytes as u64
        } else {
            0
        })
    }

    /// The reduction on `root`; elsewhere a copy of the input.
    ///
    /// # Safety
    /// As [`Cuda::all_reduce`].
    pub(super) unsafe fn reduce(
        &self,
        root: usize,
        reduction: Reduction,
        i: Device,
        o: Device,
        on: On,
    ) -> Result<u64> {
        check_nccl(
            nccl::ncclReduce(
                i.ptr as _,
                o.ptr as _,
                i.count(),
                nccl_type(i.dtype),
                nccl_op(reduction),
                root as i32,
                self.comm()?,
                on.nccl(),
            ),
            "ncclReduce",
        )?;
        // Off the root the output is a copy of the input.
        if self.position != root && i.ptr != o.ptr && i.bytes > 0 {
            check(
                cu::cuMemcpyDtoDAsync_v2(o.ptr, i.ptr, i.bytes, on.stream),
                "cuMemcpyDtoDAsync",
            )?;
        }
        Ok(i.bytes as u64)
    }

    fn route(&self, index: usize) -> Result<Route> {
        self.routes
            .get(&index)
            .cloned()
            .ok_or_else(|| Error::Internal(format!("step {index} has no planned route")))
    }

    /// The device address of `at` for a step with input `i` and output `o`
    /// on plan stream `stream`.
    fn address(&self, at: At, i: Device, o: Device, stream: u32) -> Result<cu::CUdeviceptr> {
        let base = match at.place {
            Place::Input => i.ptr,
            Place::Output => o.ptr,
            Place::Staging => *self
                .staging
                .get(&stream)
                .ok_or_else(|| Error::Internal(format!("stream {stream} has no staging buffer")))?,
        };
        Ok(base + at.offset as u64)
    }

    /// Enqueues a route's strided copies.
    ///
    /// # Safety
    /// The route was planned for these buffers, so every row lies inside
    /// them or inside the stream's staging buffer.
    unsafe fn copies(&self, copies: &[Copy2d], i: Device, o: Device, on: On) -> Result<()> {
        for copy in copies {
            let src = self.address(copy.src, i, o, on.plan)?;
            let dst = self.address(copy.dst, i, o, on.plan)?;
            driver::copy(copy, src, dst, self.max_pitch, on.stream)?;
        }
        Ok(())
    }

    /// `all_to_all`'s exchange: part q of `send` to rank q, part q of
    /// `recv` from rank q, as one NCCL group.
    ///
    /// # Safety
    /// `send` and `recv` hold `size` parts of `part` bytes each.
    unsafe fn exchange(
        &self,
        send: cu::CUdeviceptr,
        recv: cu::CUdeviceptr,
        part: usize,
        dtype: DType,
        size: usize,
        on: On,
    ) -> Result<()> {
        let comm = self.comm()?;
        let count = part / dtype.size();
        check_nccl(nccl::ncclGroupStart(), "ncclGroupStart")?;
        let mut result = Ok(());
        for q in 0..size {
            let offset = (q * part) as u64;
            result = result
                .and_then(|()| {
                    check_nccl(
                        nccl::ncclSend(
                            (send + offset) as _,
                            count,
                            nccl_type(dtype),
                            q as i32,
                            comm,
                            on.nccl(),
                        ),
                        "ncclSend (all_to_all)",
                    )
                })
                .and_then(|()| {
                    check_nccl(
                        nccl::ncclRecv(
                            (recv + offset) as _,
                            count,
                            nccl_type(dtype),
                            q as i32,
                            comm,
                            on.nccl(),
                        ),
                        "ncclRecv (all_to_all)",
                    )
                });
        }
        // The group is closed even after a failed call, so NCCL is not left
        // inside it.
        let end = check_nccl(nccl::ncclGroupEnd(), "ncclGroupEnd (all_to_all)");
        result.and(end)
    }
}
