//! The CUDA backend: a stage's buffers in device memory, its kernels from
//! `kernels.ptx` launched as the plan's `gpu_launches` say, its collectives
//! over NCCL, one CUDA stream per plan stream and one CUDA event per plan
//! event. One process per GPU: the device is the process's local rank
//! modulo the devices it sees.
//!
//! The CUDA driver and NCCL are loaded at run time (cudarc's dynamic
//! loading), so the executor builds and runs on CPU-only machines; asking
//! for this backend there is a one-line error (`available`). The NCCL
//! communicator of a stage is bootstrapped as NCCL documents it: position 0
//! creates the unique id and broadcasts it over MPI.
//!
//! Not yet here: collectives along a dimension other than 0
//! (reduce_scatter, all_gather), all_to_all, and send/recv between stages;
//! they are errors naming the step. This backend has not run on a GPU yet:
//! `scripts/gpu-check.sh` checks the same PTX and plans from Python.

use std::{collections::HashMap, ffi::CString, path::Path};

use coco_bundle::{DType, LaunchParam, Plan, Reduction, Scalar, Stage, Step};
use cudarc::driver::sys as cu;
use cudarc::nccl::sys as nccl;

use crate::{comm::Comm, error::Error, error::Result};

/// Whether this machine can run the backend: a CUDA driver and NCCL that
/// load, and a device. The message says what is missing.
pub fn available() -> std::result::Result<(), String> {
    // SAFETY: presence checks only try to load the libraries.
    unsafe {
        if !cu::is_culib_present() {
            return Err(
                "no CUDA driver on this machine (libcuda.so.1 does not load); use --backend cpu"
                    .into(),
            );
        }
        if !nccl::is_culib_present() {
            return Err(
                "NCCL does not load (libnccl.so.2; with the nvidia-nccl wheel, put its lib/ on LD_LIBRARY_PATH)".into(),
            );
        }
        check(cu::cuInit(0), "cuInit").map_err(|e| e.to_string())?;
        let mut count = 0;
        check(cu::cuDeviceGetCount(&mut count), "cuDeviceGetCount").map_err(|e| e.to_string())?;
        if count == 0 {
            return Err("the CUDA driver sees no device".into());
        }
    }
    Ok(())
}

fn check(result: cu::CUresult, call: &str) -> Result<()> {
    if result == cu::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let mut text: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: the driver returns a static string or leaves the pointer null.
    let message = unsafe {
        cu::cuGetErrorString(result, &mut text);
        if text.is_null() {
            format!("{result:?}")
        } else {
            std::ffi::CStr::from_ptr(text)
                .to_string_lossy()
                .into_owned()
        }
    };
    Err(Error::Kernel(format!("CUDA: {call} failed: {message}")))
}

fn check_nccl(result: nccl::ncclResult_t, call: &str) -> Result<()> {
    if result == nccl::ncclResult_t::ncclSuccess {
        Ok(())
    } else {
        Err(Error::Kernel(format!("NCCL: {call} failed: {result:?}")))
    }
}

fn nccl_type(dtype: DType) -> Result<nccl::ncclDataType_t> {
    use nccl::ncclDataType_t as T;
    Ok(match dtype {
        DType::F64 => T::ncclFloat64,
        DType::F32 => T::ncclFloat32,
        DType::F16 => T::ncclFloat16,
        DType::BF16 => T::ncclBfloat16,
        DType::I64 => T::ncclInt64,
        DType::I32 => T::ncclInt32,
        DType::I1 => T::ncclUint8,
    })
}

fn nccl_op(reduction: Reduction) -> nccl::ncclRedOp_t {
    use nccl::ncclRedOp_t as O;
    match reduction {
        Reduction::Sum => O::ncclSum,
        Reduction::Prod => O::ncclProd,
        Reduction::Min => O::ncclMin,
        Reduction::Max => O::ncclMax,
        Reduction::Avg => O::ncclAvg,
    }
}

/// A buffer on the device: its address and size.
#[derive(Clone, Copy)]
struct Device {
    ptr: cu::CUdeviceptr,
    bytes: usize,
    dtype: DType,
}

/// One rank's part of a stage on a GPU.
pub struct Cuda {
    buffers: HashMap<String, Device>,
    /// Allocations to free (views point into them).
    allocations: Vec<cu::CUdeviceptr>,
    module: cu::CUmodule,
    functions: HashMap<String, cu::CUfunction>,
    /// Per kernel, its temporaries.
    scratch: HashMap<String, Vec<cu::CUdeviceptr>>,
    streams: HashMap<u32, cu::CUstream>,
    events: HashMap<String, cu::CUevent>,
    comm: nccl::ncclComm_t,
    plan: Plan,
    position: usize,
}

impl Cuda {
    /// Picks the device, loads the PTX, allocates the stage's buffers and
    /// creates the stage's NCCL communicator.
    pub fn new(
        bundle: &Path,
        plan: &Plan,
        stage: &Stage,
        position: usize,
        stage_comm: &Comm,
    ) -> Result<Cuda> {
        available().map_err(Error::Kernel)?;
        let ptx = plan.ptx.as_ref().ok_or_else(|| {
            Error::Plan(
                "the bundle has no PTX (compile it with coco-translate --emit=bundle)".into(),
            )
        })?;
        let path = bundle.join(&ptx.file);
        let text = std::fs::read(&path).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
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
        let (module, comm) = unsafe {
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
            // NCCL's bootstrap: position 0 makes the id, MPI carries it.
            let mut id = nccl::ncclUniqueId { internal: [0; 128] };
            if position == 0 {
                check_nccl(nccl::ncclGetUniqueId(&mut id), "ncclGetUniqueId")?;
            }
            let mut bytes: Vec<u8> = id.internal.iter().map(|&c| c as u8).collect();
            stage_comm.broadcast(1, &mut bytes, 0)?;
            for (slot, byte) in id.internal.iter_mut().zip(&bytes) {
                *slot = *byte as std::ffi::c_char;
            }
            let mut comm = std::ptr::null_mut();
            check_nccl(
                nccl::ncclCommInitRank(&mut comm, stage.size as i32, id, position as i32),
                "ncclCommInitRank",
            )?;
            (module, comm)
        };
        let mut cuda = Cuda {
            buffers: HashMap::new(),
            allocations: Vec::new(),
            module,
            functions: HashMap::new(),
            scratch: HashMap::new(),
            streams: HashMap::new(),
            events: HashMap::new(),
            comm,
            plan: plan.clone(),
            position,
        };
        for buffer in stage.buffers.iter().filter(|b| b.view.is_none()) {
            let bytes = buffer.bytes().max(1);
            let ptr = cuda.allocate(bytes)?;
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
            if let Some(view) = &buffer.view {
                let base = cuda.buffers[&view.of];
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
        Ok(cuda)
    }

    fn allocate(&mut self, bytes: usize) -> Result<cu::CUdeviceptr> {
        let mut ptr = 0;
        // SAFETY: an out-pointer to a local.
        check(unsafe { cu::cuMemAlloc_v2(&mut ptr, bytes) }, "cuMemAlloc")?;
        self.allocations.push(ptr);
        Ok(ptr)
    }

    fn stream(&mut self, index: u32) -> Result<cu::CUstream> {
        if let Some(stream) = self.streams.get(&index) {
            return Ok(*stream);
        }
        let mut stream = std::ptr::null_mut();
        // SAFETY: an out-pointer to a local.
        check(
            unsafe { cu::cuStreamCreate(&mut stream, 1) },
            "cuStreamCreate",
        )?;
        self.streams.insert(index, stream);
        Ok(stream)
    }

    fn buffer(&self, name: &str) -> Device {
        self.buffers[name]
    }

    /// Fills buffer `name` (`data` is exactly its size).
    pub fn upload(&mut self, name: &str, data: &[u8]) -> Result<()> {
        let device = self.buffer(name);
        // SAFETY: `data` holds `device.bytes` bytes.
        check(
            unsafe {
                cu::cuMemcpyHtoD_v2(
                    device.ptr,
                    data.as_ptr().cast(),
                    data.len().min(device.bytes),
                )
            },
            "cuMemcpyHtoD",
        )
    }

    /// A copy of buffer `name`, after all work on every stream.
    pub fn download(&self, name: &str) -> Result<Vec<u8>> {
        let device = self.buffer(name);
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

    /// Enqueues one step on its stream; returns the bytes it contributes to
    /// collectives.
    pub fn run(&mut self, step: &Step) -> Result<u64> {
        let stream = self.stream(step.stream())?;
        let nccl_stream = stream as nccl::cudaStream_t;
        let unsupported = |what: &str| {
            Err(Error::Plan(format!(
                "{what} is not supported by the cuda backend yet"
            )))
        };
        // SAFETY (every arm): device pointers come from this stage's
        // allocations and the sizes from the validated plan.
        unsafe {
            match step {
                Step::Launch {
                    kernel, buffers, ..
                } => {
                    self.launch(kernel, buffers, stream)?;
                    Ok(0)
                }
                Step::AllReduce {
                    reduction,
                    input,
                    output,
                    ..
                } => {
                    let (i, o) = (self.buffer(input), self.buffer(output));
                    let count = i.bytes / i.dtype.size();
                    check_nccl(
                        nccl::ncclAllReduce(
                            i.ptr as _,
                            o.ptr as _,
                            count,
                            nccl_type(i.dtype)?,
                            nccl_op(*reduction),
                            self.comm,
                            nccl_stream,
                        ),
                        "ncclAllReduce",
                    )?;
                    Ok(i.bytes as u64)
                }
                Step::ReduceScatter {
                    reduction,
                    input,
                    output,
                    dim,
                    ..
                } => {
                    if *dim != 0 {
                        return unsupported(&format!("reduce_scatter along dimension {dim}"));
                    }
                    let (i, o) = (self.buffer(input), self.buffer(output));
                    check_nccl(
                        nccl::ncclReduceScatter(
                            i.ptr as _,
                            o.ptr as _,
                            o.bytes / o.dtype.size(),
                            nccl_type(i.dtype)?,
                            nccl_op(*reduction),
                            self.comm,
                            nccl_stream,
                        ),
                        "ncclReduceScatter",
                    )?;
                    Ok(i.bytes as u64)
                }
                Step::AllGather {
                    input, output, dim, ..
                } => {
                    if *dim != 0 {
                        return unsupported(&format!("all_gather along dimension {dim}"));
                    }
                    let (i, o) = (self.buffer(input), self.buffer(output));
                    check_nccl(
                        nccl::ncclAllGather(
                            i.ptr as _,
                            o.ptr as _,
                            i.bytes / i.dtype.size(),
                            nccl_type(i.dtype)?,
                            self.comm,
                            nccl_stream,
                        ),
                        "ncclAllGather",
                    )?;
                    Ok(i.bytes as u64)
                }
                Step::Broadcast {
                    root,
                    input,
                    output,
                    ..
                } => {
                    let (i, o) = (self.buffer(input), self.buffer(output));
                    check_nccl(
                        nccl::ncclBroadcast(
                            i.ptr as _,
                            o.ptr as _,
                            i.bytes / i.dtype.size(),
                            nccl_type(i.dtype)?,
                            *root as i32,
                            self.comm,
                            nccl_stream,
                        ),
                        "ncclBroadcast",
                    )?;
                    Ok(i.bytes as u64)
                }
                Step::Reduce {
                    root,
                    reduction,
                    input,
                    output,
                    ..
                } => {
                    let (i, o) = (self.buffer(input), self.buffer(output));
                    check_nccl(
                        nccl::ncclReduce(
                            i.ptr as _,
                            o.ptr as _,
                            i.bytes / i.dtype.size(),
                            nccl_type(i.dtype)?,
                            nccl_op(*reduction),
                            *root as i32,
                            self.comm,
                            nccl_stream,
                        ),
                        "ncclReduce",
                    )?;
                    // Off the root the output is a copy of the input.
                    if self.position != *root && i.ptr != o.ptr {
                        check(
                            cu::cuMemcpyDtoDAsync_v2(o.ptr, i.ptr, i.bytes, stream),
                            "cuMemcpyDtoDAsync",
                        )?;
                    }
                    Ok(i.bytes as u64)
                }
                Step::PeerLaunch { .. } => unsupported(
                    "peer_launch (the one-kernel fused collective needs CUDA IPC peer \
                     pointers; compile with coco-translate --fused-collectives=steps)",
                ),
                Step::AllToAll { .. } => unsupported("all_to_all"),
                Step::Send { .. } | Step::Recv { .. } => {
                    unsupported("send/recv between pipeline stages")
                }
                Step::Copy { input, output, .. } => {
                    let (i, o) = (self.buffer(input), self.buffer(output));
                    if i.ptr != o.ptr {
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

    fn event(&mut self, name: &str) -> Result<cu::CUevent> {
        if let Some(event) = self.events.get(name) {
            return Ok(*event);
        }
        let mut event = std::ptr::null_mut();
        // SAFETY: an out-pointer to a local; 2 = CU_EVENT_DISABLE_TIMING.
        check(unsafe { cu::cuEventCreate(&mut event, 2) }, "cuEventCreate")?;
        self.events.insert(name.to_string(), event);
        Ok(event)
    }

    /// The kernel's launches, in order, on `stream`.
    fn launch(&mut self, name: &str, buffers: &[String], stream: cu::CUstream) -> Result<()> {
        let kernel = self
            .plan
            .kernel(name)
            .cloned()
            .ok_or_else(|| Error::Plan(format!("unknown kernel '{name}'")))?;
        if kernel.gpu_launches.is_empty() {
            return Err(Error::Plan(format!(
                "kernel '{name}' has no GPU launches in the plan"
            )));
        }
        if !self.scratch.contains_key(name) {
            let mut scratch = Vec::new();
            for &bytes in &kernel.gpu_scratch {
                scratch.push(self.allocate(bytes.max(1) as usize)?);
            }
            self.scratch.insert(name.to_string(), scratch);
        }
        for launch in &kernel.gpu_launches {
            let function = self.function(&launch.entry)?;
            // Every parameter is 8 bytes: a device pointer or an i64.
            let mut values: Vec<u64> = Vec::with_capacity(launch.params.len());
            for param in &launch.params {
                values.push(match *param {
                    LaunchParam::Buffer { index } => {
                        let buffer = buffers.get(index).ok_or_else(|| {
                            Error::Plan(format!("kernel '{name}': no buffer {index}"))
                        })?;
                        self.buffer(buffer).ptr
                    }
                    LaunchParam::Scratch { index } => {
                        *self.scratch[name].get(index).ok_or_else(|| {
                            Error::Plan(format!("kernel '{name}': no temporary {index}"))
                        })?
                    }
                    LaunchParam::Rank {} => self.position as u64,
                    LaunchParam::RankTimes { factor } => (self.position as i64 * factor) as u64,
                    LaunchParam::Constant {
                        dtype: DType::I64,
                        value: Scalar::Integer(value),
                    } => value as u64,
                    LaunchParam::Constant { .. } => {
                        return Err(Error::Plan(format!(
                            "kernel '{name}': launch parameter {param} is not supported by the cuda backend"
                        )))
                    }
                });
            }
            let mut pointers: Vec<*mut std::ffi::c_void> =
                values.iter_mut().map(|v| (v as *mut u64).cast()).collect();
            let [gx, gy, gz] = launch.grid.map(|d| d as u32);
            let [bx, by, bz] = launch.block.map(|d| d as u32);
            // SAFETY: `pointers` points at `values`, alive across the call
            // (the driver copies the parameters at launch).
            check(
                unsafe {
                    cu::cuLaunchKernel(
                        function,
                        gx,
                        gy,
                        gz,
                        bx,
                        by,
                        bz,
                        0,
                        stream,
                        pointers.as_mut_ptr(),
                        std::ptr::null_mut(),
                    )
                },
                &format!("cuLaunchKernel({})", launch.entry),
            )?;
        }
        Ok(())
    }

    fn function(&mut self, entry: &str) -> Result<cu::CUfunction> {
        if let Some(function) = self.functions.get(entry) {
            return Ok(*function);
        }
        let name =
            CString::new(entry).map_err(|_| Error::Plan(format!("bad entry name '{entry}'")))?;
        let mut function = std::ptr::null_mut();
        // SAFETY: an out-pointer to a local; the module is loaded.
        check(
            unsafe { cu::cuModuleGetFunction(&mut function, self.module, name.as_ptr()) },
            &format!("cuModuleGetFunction({entry})"),
        )?;
        self.functions.insert(entry.to_string(), function);
        Ok(function)
    }

    /// Waits for every stream.
    pub fn finish(&mut self) -> Result<()> {
        // SAFETY: a plain driver call.
        check(unsafe { cu::cuCtxSynchronize() }, "cuCtxSynchronize")
    }
}

impl Drop for Cuda {
    fn drop(&mut self) {
        // SAFETY: the handles were created by this struct and are released
        // once; errors at teardown are ignored.
        unsafe {
            cu::cuCtxSynchronize();
            nccl::ncclCommDestroy(self.comm);
            for ptr in &self.allocations {
                cu::cuMemFree_v2(*ptr);
            }
        }
    }
}
