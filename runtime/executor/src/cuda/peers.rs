//! What peer launches (`Step::PeerLaunch`, the one-kernel fused
//! collective) need on the GPU: pointers into the other ranks' copies of
//! the buffers they read and write, through CUDA IPC.
//!
//! - **Mapping.** Every plain buffer that a peer launch names, or whose view
//!   it names, is its own `cuMemAlloc` allocation. Each rank exports it
//!   (`cuIpcGetMemHandle`), the stage's ranks on this node all-gather the
//!   handles over MPI, and each maps the others' copies
//!   (`cuIpcOpenMemHandle`, `CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS`). A
//!   peer's part is its mapped copy plus the part's byte offset.
//! - **Parameters.** The kernel's own buffers, then for each of
//!   `peer_reads` part `rank` of the buffer on positions 0 .. size (in
//!   position order), then for each of `peer_writes` part `rank` on
//!   positions rank+1 .. rank+size-1 (mod size): the ABI of `plan.rs`, the
//!   same pointers the CPU backend passes from its shared window.
//! - **Order.** Before the kernel, each rank waits for all its work (any of
//!   its streams may still read what a peer's kernel is about to write, or
//!   write what it is about to read) and the node's ranks meet at an MPI
//!   barrier; after it, each waits for the kernel and they meet again, so
//!   every rank's parts are written before anyone goes on.
//! - **One node only.** IPC maps memory of the same machine. A stage whose
//!   ranks span several nodes (or `--ranks-per-node` smaller than the
//!   stage) is an error that says to compile with
//!   `coco-translate --fused-collectives=steps`: the hierarchical form is
//!   the CPU backend's alone.
//! - **Release.** The mappings are closed in `close` (after the outputs are
//!   read), then the node meets once more so that no rank frees a buffer
//!   another still maps; `Drop` closes whatever is left on an error path.

use std::collections::{BTreeSet, HashMap};

use coco_bundle::{Buffer, Stage, Step};
use cudarc::driver::sys as cu;

use super::driver::check;
use crate::{
    comm::Comm,
    error::{Error, Result},
};

/// Bytes of a `CUipcMemHandle`.
const HANDLE_BYTES: usize = 64;

/// One peer parameter: part `rank` of a buffer on stage position
/// `position`, `offset` bytes into that position's copy of the plain
/// buffer `base`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerPart {
    pub base: String,
    pub position: usize,
    pub offset: usize,
}

/// The plain buffers behind the stage's peer launches, sorted: what each
/// rank exports, in the order the handles are exchanged.
pub fn shared_bases(stage: &Stage) -> Result<Vec<String>> {
    let mut bases = BTreeSet::new();
    for step in &stage.steps {
        if let Step::PeerLaunch {
            peer_reads,
            peer_writes,
            ..
        } = step
        {
            for name in peer_reads.iter().chain(peer_writes) {
                let buffer = find(stage, name)?;
                bases.insert(buffer.view.as_ref().map_or(&buffer.name, |v| &v.of).clone());
            }
        }
    }
    Ok(bases.into_iter().collect())
}

fn find<'a>(stage: &'a Stage, name: &str) -> Result<&'a Buffer> {
    stage
        .buffers
        .iter()
        .find(|b| b.name == name)
        .ok_or_else(|| Error::Internal(format!("peer buffer '{name}' is not in the stage")))
}

/// The peer parameters of a launch on position `rank` of `stage`, in the
/// kernel's order (`Step::PeerLaunch`).
pub fn peer_parts(
    stage: &Stage,
    rank: usize,
    reads: &[String],
    writes: &[String],
) -> Result<Vec<PeerPart>> {
    let size = stage.size;
    let part = |name: &str, position: usize| -> Result<PeerPart> {
        let buffer = find(stage, name)?;
        let (base, start) = match &buffer.view {
            Some(view) => (view.of.clone(), view.start(position)),
            None => (buffer.name.clone(), 0),
        };
        let element = start + rank * (buffer.len() / size);
        Ok(PeerPart {
            base,
            position,
            offset: element * buffer.dtype.size(),
        })
    };
    let mut parts = Vec::new();
    for name in reads {
        for q in 0..size {
            parts.push(part(name, q)?);
        }
    }
    for name in writes {
        for k in 1..size {
            parts.push(part(name, (rank + k) % size)?);
        }
    }
    Ok(parts)
}

/// Bytes a peer launch moves between this rank and the others: the parts
/// it reads from and writes to other positions (as the CPU backend counts).
pub fn traffic(stage: &Stage, reads: &[String], writes: &[String]) -> Result<usize> {
    let mut bytes = 0;
    for name in reads.iter().chain(writes) {
        let buffer = find(stage, name)?;
        bytes += buffer.bytes() / stage.size * (stage.size - 1);
    }
    Ok(bytes)
}

/// This rank's mappings of the other ranks' peer buffers.
pub struct Peers {
    node: Comm,
    /// (plain buffer, position) -> the address of that position's copy
    /// here (this rank's own allocation for its own position).
    copies: HashMap<(String, usize), cu::CUdeviceptr>,
    /// Mappings to close.
    opened: Vec<cu::CUdeviceptr>,
}

impl Peers {
    /// Maps the other positions' copies of the stage's peer buffers
    /// (collective over the stage); `None` when the stage has no peer
    /// launch. `own` gives this rank's allocation of a plain buffer.
    pub fn new(
        stage: &Stage,
        position: usize,
        stage_comm: &Comm,
        ranks_per_node: Option<usize>,
        own: impl Fn(&str) -> Option<cu::CUdeviceptr>,
    ) -> Result<Option<Peers>> {
        let bases = shared_bases(stage)?;
        if bases.is_empty() {
            return Ok(None);
        }
        let size = stage.size;
        let several_nodes = |nodes: &str| {
            Error::Plan(format!(
                "peer_launch on the cuda backend needs every rank of the stage on one node \
                 (CUDA IPC), but {nodes}; hierarchical peer launches are CPU-only: compile \
                 the bundle with coco-translate --fused-collectives=steps"
            ))
        };
        if let Some(k) = ranks_per_node.filter(|&k| k < size) {
            return Err(several_nodes(&format!(
                "--ranks-per-node {k} splits the stage's {size} ranks"
            )));
        }
        let node = stage_comm.split_shared()?;
        if node.size() != size {
            return Err(several_nodes(&format!(
                "this node holds {} of the stage's {size} ranks",
                node.size()
            )));
        }
        let mut copies = HashMap::new();
        for base in &bases {
            let ptr = own(base).ok_or_else(|| {
                Error::Internal(format!("peer buffer '{base}' has no allocation"))
            })?;
            copies.insert((base.clone(), position), ptr);
        }
        let mut peers = Peers {
            node,
            copies,
            opened: Vec::new(),
        };
        if size > 1 {
            peers.map(&bases, position, size)?;
        }
        Ok(Some(peers))
    }

    /// Exports this rank's copies of `bases`, and maps every other
    /// position's (collective over the node).
    fn map(&mut self, bases: &[String], position: usize, size: usize) -> Result<()> {
        let ipc = |call: &str, error: Error| {
            Error::Kernel(format!(
                "{error} ({call}; peer launches on the cuda backend need CUDA IPC between \
                 the stage's GPUs: compile the bundle with coco-translate \
                 --fused-collectives=steps where it is not available)"
            ))
        };
        // Each rank's record: its position, then one handle per base.
        let record = 8 + HANDLE_BYTES * bases.len();
        let mut mine = (position as u64).to_le_bytes().to_vec();
        for base in bases {
            let ptr = self.copies[&(base.clone(), position)];
            let mut handle = cu::CUipcMemHandle {
                reserved: [0; HANDLE_BYTES],
            };
            // SAFETY: `ptr` is the base of a live cuMemAlloc allocation.
            check(
                unsafe { cu::cuIpcGetMemHandle(&mut handle, ptr) },
                "cuIpcGetMemHandle",
            )
            .map_err(|e| ipc(&format!("exporting peer buffer '{base}'"), e))?;
            mine.extend(handle.reserved.iter().map(|&c| c as u8));
        }
        let mut all = vec![0u8; record * self.node.size()];
        self.node.all_gather(1, &mine, &mut all)?;
        for theirs in all.chunks_exact(record) {
            let mut at = [0u8; 8];
            at.copy_from_slice(&theirs[..8]);
            let q = u64::from_le_bytes(at) as usize;
            if q == position {
                continue;
            }
            if q >= size {
                return Err(Error::Internal(format!(
                    "a rank of this node says it is at position {q} of {size}"
                )));
            }
            for (base, bytes) in bases.iter().zip(theirs[8..].chunks_exact(HANDLE_BYTES)) {
                let mut handle = cu::CUipcMemHandle {
                    reserved: [0; HANDLE_BYTES],
                };
                for (slot, byte) in handle.reserved.iter_mut().zip(bytes) {
                    *slot = *byte as std::ffi::c_char;
                }
                let mut ptr = 0;
                // SAFETY: a handle another process exported from a live
                // allocation, which it keeps until `close`'s barrier.
                check(
                    unsafe {
                        cu::cuIpcOpenMemHandle_v2(
                            &mut ptr,
                            handle,
                            cu::CUipcMem_flags::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS as u32,
                        )
                    },
                    "cuIpcOpenMemHandle",
                )
                .map_err(|e| ipc(&format!("mapping peer buffer '{base}' of position {q}"), e))?;
                self.opened.push(ptr);
                self.copies.insert((base.clone(), q), ptr);
            }
        }
        Ok(())
    }

    /// The device addresses of `parts` (from [`peer_parts`]).
    pub fn addresses(&self, parts: &[PeerPart]) -> Result<Vec<u64>> {
        parts
            .iter()
            .map(|p| {
                self.copies
                    .get(&(p.base.clone(), p.position))
                    .map(|&base| base + p.offset as u64)
                    .ok_or_else(|| {
                        Error::Internal(format!(
                            "peer buffer '{}' of position {} is not mapped",
                            p.base, p.position
                        ))
                    })
            })
            .collect()
    }

    /// Before the kernel: all of this rank's work done, then every rank of
    /// the node here.
    pub fn before(&self) -> Result<()> {
        // SAFETY: a plain driver call.
        check(unsafe { cu::cuCtxSynchronize() }, "cuCtxSynchronize")?;
        self.node.barrier()
    }

    /// After the kernel (on `stream`): it is done, then every rank of the
    /// node here.
    pub fn after(&self, stream: cu::CUstream) -> Result<()> {
        // SAFETY: a stream of this context.
        check(
            unsafe { cu::cuStreamSynchronize(stream) },
            "cuStreamSynchronize",
        )?;
        self.node.barrier()
    }

    /// Unmaps the peers' buffers, then waits for the node's other ranks to
    /// do the same, so that none frees a buffer still mapped (collective).
    pub fn close(&mut self) -> Result<()> {
        // SAFETY: a plain driver call.
        check(unsafe { cu::cuCtxSynchronize() }, "cuCtxSynchronize")?;
        for ptr in self.opened.drain(..) {
            // SAFETY: mapped by `cuIpcOpenMemHandle` in `new`, closed once.
            check(
                unsafe { cu::cuIpcCloseMemHandle(ptr) },
                "cuIpcCloseMemHandle",
            )?;
        }
        self.copies.clear();
        self.node.barrier()
    }
}

impl Drop for Peers {
    fn drop(&mut self) {
        for ptr in self.opened.drain(..) {
            // SAFETY: mapped in `new` and not closed yet; an error path, so
            // a failure is ignored.
            unsafe { cu::cuIpcCloseMemHandle(ptr) };
        }
    }
}

#[cfg(test)]
mod tests {
    use coco_bundle::{DType, View};

    use super::*;

    fn buffer(name: &str, len: usize, view: Option<(&str, usize, usize)>) -> Buffer {
        Buffer {
            name: name.into(),
            dtype: DType::F32,
            shape: vec![len],
            input: None,
            output: None,
            view: view.map(|(of, offset, rank_stride)| View {
                of: of.into(),
                offset,
                rank_stride,
            }),
        }
    }

    /// Three ranks: `g` (12 f32, parts of 4) read on the peers, `p` written
    /// there, and `p`'s own part a view.
    fn stage() -> Stage {
        Stage {
            function: "adam".into(),
            first_rank: 0,
            size: 3,
            buffers: vec![
                buffer("g", 12, None),
                buffer("p", 12, None),
                buffer("p_own", 4, Some(("p", 0, 4))),
                buffer("whole", 24, None),
                buffer("h", 12, Some(("whole", 12, 0))),
            ],
            steps: vec![Step::PeerLaunch {
                kernel: "k".into(),
                buffers: vec!["p_own".into()],
                peer_reads: vec!["g".into(), "h".into()],
                peer_writes: vec!["p".into()],
                stream: 0,
            }],
            mesh: Vec::new(),
        }
    }

    fn part(base: &str, position: usize, offset: usize) -> PeerPart {
        PeerPart {
            base: base.into(),
            position,
            offset,
        }
    }

    #[test]
    fn parameters_follow_the_peer_launch_abi() {
        let stage = stage();
        let reads = ["g".to_string(), "h".to_string()];
        let writes = ["p".to_string()];
        // Rank 1: part 1 (bytes 16..32) of g on positions 0, 1, 2; of h
        // (a view 12 elements into `whole`) likewise; then part 1 of p on
        // positions 2 and 0.
        assert_eq!(
            peer_parts(&stage, 1, &reads, &writes).unwrap(),
            [
                part("g", 0, 16),
                part("g", 1, 16),
                part("g", 2, 16),
                part("whole", 0, 64),
                part("whole", 1, 64),
                part("whole", 2, 64),
                part("p", 2, 16),
                part("p", 0, 16),
            ]
        );
        // Rank 2 writes to positions 0 and 1, in that order.
        let parts = peer_parts(&stage, 2, &[], &writes).unwrap();
        assert_eq!(parts, [part("p", 0, 32), part("p", 1, 32)]);
        assert_eq!(shared_bases(&stage).unwrap(), ["g", "p", "whole"]);
        // Reads and writes of 48 bytes each, two thirds of them remote.
        assert_eq!(traffic(&stage, &reads, &writes).unwrap(), 3 * 32);
    }

    #[test]
    fn a_view_with_a_rank_stride_is_read_where_each_position_has_it() {
        let mut stage = stage();
        // A view whose start moves with the position: part `rank` of
        // position q's view is at (q * 6 + rank * 2) elements.
        stage
            .buffers
            .push(buffer("moving", 6, Some(("whole", 0, 6))));
        let parts = peer_parts(&stage, 1, &["moving".into()], &[]).unwrap();
        assert_eq!(
            parts,
            [
                part("whole", 0, 8),
                part("whole", 1, 32),
                part("whole", 2, 56),
            ]
        );
    }
}
