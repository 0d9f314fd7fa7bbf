//! The CUDA backend: a stage's buffers in device memory, its kernels from
//! `kernels.ptx` launched as the plan's `gpu_launches` say, its collectives
//! over NCCL, one CUDA stream per plan stream and one CUDA event per plan
//! event. One process per GPU: the device is the process's local rank
//! modulo the devices it sees.
//!
//! The CUDA driver and NCCL are loaded at run time (cudarc's dynamic
//! loading), so the executor builds and runs on CPU-only machines; asking
//! for this backend there is a one-line error ([`available`]).
//!
//! Every step has a GPU form, with the CPU backend's semantics:
//!
//! - `launch`: the kernel's launches in order on the step's stream
//!   (`cuLaunchKernel`), parameters as `LaunchParam`s say.
//! - `all_reduce`, `broadcast`, `reduce`: the NCCL collective on the
//!   stage's communicator (off the root, `reduce`'s output is a copy of the
//!   input, as the interpreter says).
//! - `reduce_scatter`, `all_gather` along any dimension, `all_to_all`: the
//!   dimension-0 NCCL call (`all_to_all`: grouped `ncclSend`/`ncclRecv`
//!   per rank) between strided copies (`cuMemcpy2DAsync`) through a staging
//!   buffer of the step's stream, when the parts are not contiguous or the
//!   input and output overlap otherwise than in NCCL's in-place forms
//!   (`collectives.rs`; the geometry, pure and unit-tested, in `routes.rs`
//!   and `strided.rs`).
//! - `send`/`recv` between pipeline stages: a 2-rank NCCL communicator per
//!   directed pair of stages and position; a send copies its input and
//!   sends on a stream of its own, so it never waits for its receive, as
//!   the CPU backend's queued sends (`p2p.rs`).
//! - `peer_launch`: the kernel with pointers into the other ranks' buffers
//!   mapped by CUDA IPC, between node barriers; the stage must be on one
//!   node (`peers.rs`, `kernels.rs`).
//! - `copy`: `cuMemcpyDtoDAsync`; `record_event`/`wait_event`:
//!   `cuEventRecord`/`cuStreamWaitEvent`.
//!
//! NCCL communicators are bootstrapped as NCCL documents it (rank 0 makes
//! the unique id, MPI carries it); a one-rank stage makes its own and needs
//! no MPI traffic, so one GPU runs without `mpirun` (`nccl.rs`). Reductions
//! are NCCL's, associated as NCCL chooses: `--exact-reductions` does not
//! apply here (peer launches fold in rank order in the kernel).
//!
//! Not here: every GPU of a machine in one process (`ncclCommInitAll`, a
//! thread per device). The executor is one MPI rank per process throughout
//! (inputs and outputs over the stage communicator, barriers, the timing
//! report), so that would be a second executor, not a backend.
//!
//! This backend has not run on a GPU yet: the routes and peer parameters
//! are unit tested on the CPU against the CPU backend's layout functions,
//! and `scripts/gpu-check.sh` checks the PTX and plans on a GPU from Python.

mod collectives;
mod driver;
mod kernels;
mod nccl;
mod p2p;
mod peers;
mod routes;
mod strided;

use std::{collections::HashMap, ffi::CString, path::Path};

use coco_bundle::{DType, Plan, Step};
use cudarc::driver::sys as cu;

use collectives::On;
pub use driver::available;
use driver::check;
use nccl::Communicator;
use p2p::Channels;
use peers::Peers;
use routes::{Route, Span};

use crate::{comm::Comm, error::Error, error::Result};

/// A buffer on the device: its address and size.
#[derive(Clone, Copy)]
struct Device {
    ptr: cu::CUdeviceptr,
    bytes: usize,
    dtype: DType,
}

impl Device {
    fn span(&self) -> Span {
        Span {
            start: self.ptr,
            bytes: self.bytes,
        }
    }

    fn count(&self) -> usize {
        self.bytes / self.dtype.size()
    }
}

/// One rank's part of a stage on a GPU.
pub struct Cuda {
    device: cu::CUdevice,
    buffers: HashMap<String, Device>,
    shapes: HashMap<String, Vec<usize>>,
    /// Allocations to free (views point into them).
    allocations: Vec<cu::CUdeviceptr>,
    module: cu::CUmodule,
    functions: HashMap<String, cu::CUfunction>,
    /// Per kernel and CUDA stream, its temporaries: launches of one kernel
    /// on one stream run in order and may share them (a reduction tree's
    /// partials); on two streams they may overlap, so each stream has its
    /// own.
    scratch: HashMap<(String, usize), Vec<cu::CUdeviceptr>>,
    streams: HashMap<u32, cu::CUstream>,
    events: HashMap<String, cu::CUevent>,
    /// Per plan stream, the staging buffer its collectives share (steps of
    /// one stream run in order, so they never use it at once).
    staging: HashMap<u32, cu::CUdeviceptr>,
    /// Per step index, how a reduce_scatter, all_gather or all_to_all
    /// moves its bytes.
    routes: HashMap<usize, Route>,
    max_pitch: usize,
    comm: Option<Communicator>,
    channels: Option<Channels>,
    peers: Option<Peers>,
    plan: Plan,
    stage_index: usize,
    position: usize,
}

impl Cuda {
    /// Picks the device, loads the PTX, creates the stage's NCCL
    /// communicator, allocates the stage's buffers, and sets up what its
    /// sends, receives and peer launches need. Collective over the world
    /// (every rank calls it at the same point).
    pub fn new(
        bundle: &Path,
        plan: &Plan,
        stage_index: usize,
        position: usize,
        stage_comm: &Comm,
        world: &Comm,
        ranks_per_node: Option<usize>,
    ) -> Result<Cuda> {
        available().map_err(Error::Kernel)?;
        let stage = &plan.stages[stage_index];
        let ptx = plan.ptx.as_ref().ok_or_else(|| {
            Error::Plan(
                "the bundle has no PTX (compile it with coco-translate --emit=bundle)".into(),
            )
        })?;
        let path = bundle.join(&ptx.file);
        // A regular file, the very one the plan was written with.
        let (_, text) = coco_bundle::read_verified(
            bundle,
            &ptx.file,
            ptx.digest.as_ref(),
            "ptx.digest",
            "the bundle's PTX kernels",
        )?;
        let text = CString::new(text)
            .map_err(|_| Error::Plan(format!("{}: PTX with a NUL byte", path.display())))?;
        let local_rank = [
            "OMPI_COMM_WORLD_LOCAL_RANK",
            "SLURM_LOCALID",
            "MPI_LOCALRANKID",
        ]
        .iter()
        .find_map(|v| std::env::var(v).ok()?.parse::<i32>().ok())
        .unwrap_or(0);
        // SAFETY: plain driver calls with out-pointers to locals.
        let (device, module) = unsafe {
            let mut count = 0;
            check(cu::cuDeviceGetCount(&mut count), "cuDeviceGetCount")?;
            let mut device = 0;
            check(
                cu::cuDeviceGet(&mut device, local_rank % count.max(1)),
                "cuDeviceGet",
            )?;
            let mut context = std::ptr::null_mut();
            check(
                cu::cuDevicePrimaryCtxRetain(&mut context, device),
                "cuDevicePrimaryCtxRetain",
            )?;
            check(cu::cuCtxSetCurrent(context), "cuCtxSetCurrent")?;
            let mut module = std::ptr::null_mut();
            check(
                cu::cuModuleLoadData(&mut module, text.as_ptr().cast()),
                "cuModuleLoadData (JIT of kernels.ptx)",
            )?;
            (device, module)
        };
        // From here on `Drop` releases what is made, on errors too.
        let mut cuda = Cuda {
            device,
            buffers: HashMap::new(),
            shapes: HashMap::new(),
            allocations: Vec::new(),
            module,
            functions: HashMap::new(),
            scratch: HashMap::new(),
            streams: HashMap::new(),
            events: HashMap::new(),
            staging: HashMap::new(),
            routes: HashMap::new(),
            max_pitch: driver::max_pitch(device)?,
            comm: None,
            channels: None,
            peers: None,
            plan: plan.clone(),
            stage_index,
            position,
        };
        cuda.comm = Some(Communicator::new(
            stage.size,
            position,
            &format!("stage {stage_index}"),
            |id| stage_comm.broadcast(1, id, 0),
        )?);
        for buffer in stage.buffers.iter().filter(|b| b.view.is_none()) {
            let ptr = cuda.allocate(buffer.bytes())?;
            cuda.buffers.insert(
                buffer.name.clone(),
                Device {
                    ptr,
                    bytes: buffer.bytes(),
                    dtype: buffer.dtype,
                },
            );
        }
        for buffer in &stage.buffers {
            cuda.shapes
                .insert(buffer.name.clone(), buffer.shape.clone());
            if let Some(view) = &buffer.view {
                let base = cuda.buffer(&view.of)?;
                let start = view.start(position) * buffer.dtype.size();
                cuda.buffers.insert(
                    buffer.name.clone(),
                    Device {
                        ptr: base.ptr + start as u64,
                        bytes: buffer.bytes(),
                        dtype: buffer.dtype,
                    },
                );
            }
        }
        cuda.channels = Channels::new(plan, stage_index, position, world)?;
        let own = |name: &str| cuda.buffers.get(name).map(|d| d.ptr);
        let peers = Peers::new(stage, position, stage_comm, ranks_per_node, own)?;
        cuda.peers = peers;
        cuda.plan_routes()?;
        Ok(cuda)
    }

    fn allocate(&mut self, bytes: usize) -> Result<cu::CUdeviceptr> {
        let ptr = driver::allocate(bytes)?;
        self.allocations.push(ptr);
        Ok(ptr)
    }

    fn stream(&mut self, index: u32) -> Result<cu::CUstream> {
        if let Some(stream) = self.streams.get(&index) {
            return Ok(*stream);
        }
        let stream = driver::stream()?;
        self.streams.insert(index, stream);
        Ok(stream)
    }

    fn buffer(&self, name: &str) -> Result<Device> {
        self.buffers
            .get(name)
            .copied()
            .ok_or_else(|| Error::Internal(format!("buffer '{name}' is not on the device")))
    }

    fn shape(&self, name: &str) -> Result<&[usize]> {
        self.shapes
            .get(name)
            .map(Vec::as_slice)
            .ok_or_else(|| Error::Internal(format!("buffer '{name}' has no shape")))
    }

    /// Fills buffer `name` (`data` is exactly its size).
    pub fn upload(&mut self, name: &str, data: &[u8]) -> Result<()> {
        let device = self.buffer(name)?;
        // SAFETY: `data` holds at least the bytes copied. A copy from
        // pageable memory may still be in flight when it returns, and the
        // plan's streams do not wait for the default stream: the context is
        // synchronised before any step reads the buffer.
        unsafe {
            check(
                cu::cuMemcpyHtoD_v2(
                    device.ptr,
                    data.as_ptr().cast(),
                    data.len().min(device.bytes),
                ),
                "cuMemcpyHtoD",
            )?;
            check(cu::cuCtxSynchronize(), "cuCtxSynchronize")
        }
    }

    /// A copy of buffer `name`, after all work on every stream.
    pub fn download(&self, name: &str) -> Result<Vec<u8>> {
        let device = self.buffer(name)?;
        let mut data = vec![0u8; device.bytes];
        // SAFETY: `data` holds `device.bytes` bytes.
        unsafe {
            check(cu::cuCtxSynchronize(), "cuCtxSynchronize")?;
            check(
                cu::cuMemcpyDtoH_v2(data.as_mut_ptr().cast(), device.ptr, device.bytes),
                "cuMemcpyDtoH",
            )?;
        }
        Ok(data)
    }

    /// Enqueues step `index` of the stage (`step`) on its stream; returns
    /// the bytes it sends to other ranks.
    pub fn run(&mut self, step: &Step, index: usize) -> Result<u64> {
        let stream = self.stream(step.stream())?;
        let on = On {
            plan: step.stream(),
            stream,
        };
        let pair = |input: &str, output: &str| -> Result<(Device, Device)> {
            Ok((self.buffer(input)?, self.buffer(output)?))
        };
        // SAFETY (every arm): device pointers come from this stage's
        // allocations (or peers' mapped ones) and the sizes from the
        // validated and checked plan.
        unsafe {
            match step {
                Step::Launch {
                    kernel, buffers, ..
                } => {
                    self.launch(kernel, buffers, &[], stream)?;
                    Ok(0)
                }
                Step::PeerLaunch {
                    kernel,
                    buffers,
                    peer_reads,
                    peer_writes,
                    ..
                } => self.peer_launch(kernel, buffers, peer_reads, peer_writes, stream),
                Step::AllReduce {
                    reduction,
                    input,
                    output,
                    ..
                } => {
                    let (i, o) = pair(input, output)?;
                    self.all_reduce(*reduction, i, o, on)
                }
                Step::ReduceScatter {
                    reduction,
                    input,
                    output,
                    ..
                } => {
                    let (i, o) = pair(input, output)?;
                    self.reduce_scatter(index, *reduction, i, o, on)
                }
                Step::AllGather { input, output, .. } => {
                    let (i, o) = pair(input, output)?;
                    self.all_gather(index, i, o, on)
                }
                Step::AllToAll {
                    input,
                    output,
                    split_dim,
                    ..
                } => {
                    let (i, o) = pair(input, output)?;
                    self.all_to_all(index, self.shape(input)?, *split_dim, i, o, on)
                }
                Step::Broadcast {
                    root,
                    input,
                    output,
                    ..
                } => {
                    let (i, o) = pair(input, output)?;
                    self.broadcast(*root, i, o, on)
                }
                Step::Reduce {
                    root,
                    reduction,
                    input,
                    output,
                    ..
                } => {
                    let (i, o) = pair(input, output)?;
                    self.reduce(*root, *reduction, i, o, on)
                }
                Step::Send {
                    input, peer_stage, ..
                } => {
                    let i = self.buffer(input)?;
                    let own = self.stage_index;
                    self.channels()?.send(index, *peer_stage, own, i, stream)?;
                    Ok(i.bytes as u64)
                }
                Step::Recv {
                    output, peer_stage, ..
                } => {
                    let o = self.buffer(output)?;
                    let own = self.stage_index;
                    self.channels()?.recv(*peer_stage, own, o, stream)?;
                    Ok(0)
                }
                Step::Copy { input, output, .. } => {
                    let (i, o) = pair(input, output)?;
                    if i.ptr != o.ptr && i.bytes > 0 {
                        check(
                            cu::cuMemcpyDtoDAsync_v2(o.ptr, i.ptr, i.bytes, stream),
                            "cuMemcpyDtoDAsync",
                        )?;
                    }
                    Ok(0)
                }
                Step::RecordEvent { event, .. } => {
                    let handle = self.event(event)?;
                    check(cu::cuEventRecord(handle, stream), "cuEventRecord")?;
                    Ok(0)
                }
                Step::WaitEvent { event, .. } => {
                    let handle = self.event(event)?;
                    check(
                        cu::cuStreamWaitEvent(stream, handle, 0),
                        "cuStreamWaitEvent",
                    )?;
                    Ok(0)
                }
            }
        }
    }

    fn channels(&mut self) -> Result<&mut Channels> {
        self.channels
            .as_mut()
            .ok_or_else(|| Error::Internal("a send or receive in a plan without sends".into()))
    }

    fn event(&mut self, name: &str) -> Result<cu::CUevent> {
        if let Some(event) = self.events.get(name) {
            return Ok(*event);
        }
        let event = driver::event()?;
        self.events.insert(name.to_string(), event);
        Ok(event)
    }

    /// Waits for every stream (sends included).
    pub fn finish(&mut self) -> Result<()> {
        // SAFETY: a plain driver call.
        check(unsafe { cu::cuCtxSynchronize() }, "cuCtxSynchronize")
    }

    /// Unmaps the peers' buffers once the outputs are read (collective over
    /// the stage when it has peer launches).
    pub fn close(&mut self) -> Result<()> {
        match &mut self.peers {
            Some(peers) => peers.close(),
            None => Ok(()),
        }
    }
}

impl Drop for Cuda {
    fn drop(&mut self) {
        // SAFETY: the handles were created by this struct and are released
        // once, after the device is idle; errors at teardown are ignored.
        unsafe {
            cu::cuCtxSynchronize();
            // Before the memory they map, stream on and communicate over.
            self.peers.take();
            self.channels.take();
            self.comm.take();
            for event in self.events.values() {
                cu::cuEventDestroy_v2(*event);
            }
            for stream in self.streams.values() {
                cu::cuStreamDestroy_v2(*stream);
            }
            // Temporaries and staging buffers are among the allocations.
            for ptr in &self.allocations {
                cu::cuMemFree_v2(*ptr);
            }
            cu::cuModuleUnload(self.module);
            cu::cuDevicePrimaryCtxRelease_v2(self.device);
        }
    }
}
