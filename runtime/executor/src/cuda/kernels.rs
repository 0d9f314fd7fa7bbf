//! Kernel launches on the GPU: a kernel's `gpu_launches` in order on the
//! step's stream, each parameter as its `LaunchParam` says, and peer
//! launches, whose extra pointer parameters are the peers' parts mapped by
//! [`super::peers`].

use std::ffi::CString;

use coco_bundle::{DType, LaunchParam, Scalar};
use cudarc::driver::sys as cu;

use super::{driver::check, peers, Cuda};
use crate::error::{Error, Result};

impl Cuda {
    /// A peer launch: the kernel with the peers' parts after its own
    /// buffers, between the node's barriers; returns the bytes it moves
    /// between ranks.
    pub(super) fn peer_launch(
        &mut self,
        kernel: &str,
        buffers: &[String],
        reads: &[String],
        writes: &[String],
        stream: cu::CUstream,
    ) -> Result<u64> {
        let stage = &self.plan.stages[self.stage_index];
        let parts = peers::peer_parts(stage, self.position, reads, writes)?;
        let traffic = peers::traffic(stage, reads, writes)?;
        let peers = self.peers.as_ref().ok_or_else(|| {
            Error::Internal("a peer launch in a stage without peer mappings".into())
        })?;
        let extra = peers.addresses(&parts)?;
        peers.before()?;
        self.launch(kernel, buffers, &extra, stream)?;
        if let Some(peers) = &self.peers {
            peers.after(stream)?;
        }
        Ok(traffic as u64)
    }

    /// The kernel's launches, in order, on `stream`; `peers` are the
    /// pointer parameters after `buffers` (a peer launch's parts).
    pub(super) fn launch(
        &mut self,
        name: &str,
        buffers: &[String],
        peers: &[u64],
        stream: cu::CUstream,
    ) -> Result<()> {
        let kernel = self
            .plan
            .kernel(name)
            .cloned()
            .ok_or_else(|| Error::Plan(format!("unknown kernel '{name}'")))?;
        if kernel.gpu_launches.is_empty() {
            return Err(Error::Plan(format!(
                "kernel '{name}' has no GPU launches in the plan (compile the bundle with \
                 coco-translate --emit=bundle on a build with PTX)"
            )));
        }
        let scratch_key = (name.to_string(), stream as usize);
        if !self.scratch.contains_key(&scratch_key) {
            let mut scratch = Vec::new();
            for &bytes in &kernel.gpu_scratch {
                let bytes = usize::try_from(bytes).map_err(|_| {
                    Error::Plan(format!(
                        "kernel '{name}': a temporary of {bytes} bytes does not fit here"
                    ))
                })?;
                scratch.push(self.allocate(bytes)?);
            }
            self.scratch.insert(scratch_key.clone(), scratch);
        }
        for launch in &kernel.gpu_launches {
            let function = self.function(&launch.entry)?;
            // Every parameter is 8 bytes: a device pointer or an i64.
            let mut values: Vec<u64> = Vec::with_capacity(launch.params.len());
            for param in &launch.params {
                values.push(match *param {
                    LaunchParam::Buffer { index } if index < buffers.len() => {
                        self.buffer(&buffers[index])?.ptr
                    }
                    LaunchParam::Buffer { index } => {
                        *peers.get(index - buffers.len()).ok_or_else(|| {
                            Error::Plan(format!(
                                "kernel '{name}': parameter {index} is past its {} buffers \
                                 and {} peer parts",
                                buffers.len(),
                                peers.len()
                            ))
                        })?
                    }
                    LaunchParam::Scratch { index } => *self
                        .scratch
                        .get(&scratch_key)
                        .and_then(|s| s.get(index))
                        .ok_or_else(|| {
                            Error::Plan(format!("kernel '{name}': no temporary {index}"))
                        })?,
                    LaunchParam::Rank {} => self.position as u64,
                    LaunchParam::RankTimes { factor } => (self.position as i64 * factor) as u64,
                    LaunchParam::Constant {
                        dtype: DType::I64,
                        value: Scalar::Integer(value),
                    } => value as u64,
                    LaunchParam::Constant { .. } => {
                        return Err(Error::Plan(format!(
                            "kernel '{name}': launch parameter {param} is not supported by the \
                             cuda backend (only i64 constants are)"
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
}
