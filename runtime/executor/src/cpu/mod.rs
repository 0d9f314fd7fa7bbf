//! The CPU backend: a stage's buffers in host memory, its kernels called
//! from `kernels.so`, its collectives over MPI ([`crate::collective`]).
//!
//! Steps run one at a time, in plan order, on the calling thread. Streams
//! and events only order GPU work: every stream's steps are in plan order,
//! and an event is waited on only after the step that records it, so plan
//! order respects every ordering the plan asks for, and `record_event` /
//! `wait_event` have nothing left to do here (`check` verifies that each wait
//! follows its record). The CUDA backend (`crate::cuda`) has the same
//! surface (`new`, `upload`, `download`, `run`, `finish`, `close`) and turns
//! streams and events into CUDA ones.

mod elf;
mod kernels;
mod memory;
mod peers;
mod timing;

use std::{borrow::Cow, ffi::c_void, path::Path};

use coco_bundle::{Plan, Stage, Step};

use crate::{
    collective::{self, Reductions},
    comm::{self, Comm, Pending},
    error::{Error, Result},
};

pub use kernels::MAX_BUFFERS;
use memory::Memory;
use peers::Peers;
pub use timing::time_kernels;

/// Tag of point-to-point messages (on a communicator of their own).
const P2P_TAG: i32 = 1;

/// What a step needs beyond the stage's own state.
pub struct StepContext<'a> {
    pub plan: &'a Plan,
    /// The stage this rank runs.
    pub stage: &'a Stage,
    /// The ranks of this stage, at their positions.
    pub stage_comm: &'a Comm,
    /// One per axis of the stage's mesh: the ranks along it through this
    /// one, at their coordinates.
    pub axes: &'a [Comm],
    /// The world, for send/recv between stages.
    pub p2p: &'a Comm,
    pub reductions: Reductions,
}

/// One rank's part of a stage on the CPU.
pub struct Cpu {
    memory: Memory,
    /// The shared-memory window of the stage's peer launches, if any (it
    /// holds some of `memory`'s buffers, so it lives as long).
    peers: Option<Box<Peers>>,
    kernels: kernels::Kernels,
    position: usize,
    /// Sends in flight, with the index of the step that made each: at most
    /// one per send step, so that a sender running ahead of its receiver
    /// (`--repeat`) holds a bounded number of buffers.
    pending: Vec<(usize, Pending)>,
    /// The most send buffers held at once.
    send_buffers_peak: usize,
}

impl Cpu {
    /// Allocates the stage's buffers (those of peer launches in a window
    /// shared with the stage's other ranks on this node: collective over
    /// the stage) and loads the kernels it launches.
    pub fn new(
        bundle: &Path,
        plan: &Plan,
        stage: &Stage,
        position: usize,
        stage_comm: &Comm,
        ranks_per_node: Option<usize>,
    ) -> Result<Cpu> {
        let kernels = kernels::Kernels::load(bundle, plan, stage)?;
        let peers = Peers::new(stage, position, stage_comm, ranks_per_node)?;
        let placed = peers.as_ref().map(|p| p.placement()).unwrap_or_default();
        Ok(Cpu {
            kernels,
            memory: Memory::new(stage, position, &placed)?,
            peers: peers.map(Box::new),
            position,
            pending: Vec::new(),
            send_buffers_peak: 0,
        })
    }

    /// Fills buffer `name` (`data` is exactly its size).
    pub fn upload(&mut self, name: &str, data: &[u8]) {
        // SAFETY: no other slice of the memory is alive.
        unsafe { self.memory.bytes_mut(name) }.copy_from_slice(data);
    }

    /// A copy of buffer `name`.
    pub fn download(&self, name: &str) -> Vec<u8> {
        // SAFETY: no mutable slice of the memory is alive.
        unsafe { self.memory.bytes(name) }.to_vec()
    }

    /// `input` to read and `output` to write, for one step. The input is
    /// copied first when the two overlap (an in-place collective, or views
    /// of one buffer), so the slices never alias.
    ///
    /// # Safety
    /// The returned slices must be dropped before any other access to the
    /// memory.
    #[allow(clippy::mut_from_ref)]
    unsafe fn in_out(&self, input: &str, output: &str) -> (Cow<'_, [u8]>, &mut [u8]) {
        let overlap = self
            .memory
            .region(input)
            .overlaps(self.memory.region(output));
        let input = if overlap {
            Cow::Owned(self.memory.bytes(input).to_vec())
        } else {
            Cow::Borrowed(self.memory.bytes(input))
        };
        (input, self.memory.bytes_mut(output))
    }

    /// Runs step `index` of the stage (`step`); returns the bytes it sent
    /// to other ranks.
    pub fn run(&mut self, step: &Step, index: usize, cx: &StepContext) -> Result<u64> {
        // A collective's group: its axis's ranks, or the whole stage.
        let comm = match step.axis() {
            Some(axis) => cx
                .stage
                .axis_index(axis)
                .and_then(|a| cx.axes.get(a))
                .ok_or_else(|| {
                    Error::Internal(format!(
                        "axis \"{axis}\" of a validated plan has no communicator"
                    ))
                })?,
            None => cx.stage_comm,
        };
        let how = cx.reductions;
        let region = |name: &str| self.memory.region(name).clone();
        // SAFETY (every block below): the slices from `in_out`, `bytes` and
        // `bytes_mut` live only within their arm, and `in_out` never returns
        // overlapping ones.
        let moved = match step {
            Step::Launch {
                kernel, buffers, ..
            } => {
                let pointers: Vec<*mut c_void> = buffers
                    .iter()
                    .map(|b| self.memory.region(b).ptr.cast())
                    .collect();
                // SAFETY: the pointers are the plan's buffers, allocated at
                // their declared sizes; no slice of the memory is alive.
                unsafe {
                    self.kernels
                        .launch(kernel, &pointers, self.position as i64)?
                };
                0
            }
            Step::PeerLaunch {
                kernel,
                buffers,
                peer_reads,
                peer_writes,
                ..
            } => {
                let peers = self.peers.as_mut().ok_or_else(|| {
                    Error::Internal("a peer launch in a stage without a window".into())
                })?;
                peers.before(peer_reads, comm)?;
                let mut pointers: Vec<*mut c_void> = buffers
                    .iter()
                    .map(|b| self.memory.region(b).ptr.cast())
                    .collect();
                pointers.extend(
                    peers
                        .parameters(peer_reads, peer_writes)
                        .into_iter()
                        .map(|p| p.cast::<c_void>()),
                );
                // SAFETY: the plan's buffers and the peers' parts, at the
                // sizes the validated plan declares; every rank of the node
                // is between the two barriers, so nobody else touches the
                // parts this kernel reads or writes.
                unsafe {
                    self.kernels
                        .launch(kernel, &pointers, self.position as i64)?
                };
                peers.after(peer_writes, comm)?;
                peers.traffic(peer_reads, peer_writes)
            }
            Step::AllReduce {
                reduction,
                input,
                output,
                ..
            } => {
                let r = region(input);
                let (inp, out) = unsafe { self.in_out(input, output) };
                collective::all_reduce(comm, how, r.dtype, *reduction, &inp, out)?;
                r.bytes
            }
            Step::ReduceScatter {
                reduction,
                input,
                output,
                dim,
                ..
            } => {
                let r = region(input);
                let (inp, out) = unsafe { self.in_out(input, output) };
                collective::reduce_scatter(
                    comm, how, r.dtype, *reduction, &inp, &r.shape, *dim, out,
                )?;
                r.bytes
            }
            Step::AllGather {
                input, output, dim, ..
            } => {
                let r = region(input);
                let (inp, out) = unsafe { self.in_out(input, output) };
                collective::all_gather(comm, r.dtype.size(), &inp, &r.shape, *dim, out)?;
                r.bytes
            }
            Step::Broadcast {
                root,
                input,
                output,
                ..
            } => {
                let r = region(input);
                let (inp, out) = unsafe { self.in_out(input, output) };
                collective::broadcast(comm, r.dtype.size(), &inp, out, *root)?;
                if comm.rank() == *root {
                    r.bytes
                } else {
                    0
                }
            }
            Step::Reduce {
                root,
                reduction,
                input,
                output,
                ..
            } => {
                let r = region(input);
                let (inp, out) = unsafe { self.in_out(input, output) };
                collective::reduce(comm, how, r.dtype, *reduction, &inp, out, *root)?;
                r.bytes
            }
            Step::AllToAll {
                input,
                output,
                split_dim,
                concat_dim,
                ..
            } => {
                let r = region(input);
                let (inp, out) = unsafe { self.in_out(input, output) };
                collective::all_to_all(
                    comm,
                    r.dtype.size(),
                    &inp,
                    &r.shape,
                    *split_dim,
                    *concat_dim,
                    out,
                )?;
                r.bytes
            }
            Step::Send {
                input, peer_stage, ..
            } => {
                let r = region(input);
                let dest = cx.plan.stages[*peer_stage].first_rank + self.position;
                self.release_sends(index)?;
                let data = unsafe { self.memory.bytes(input) }.to_vec();
                let pending = cx.p2p.send_queued(r.dtype.size(), data, dest, P2P_TAG)?;
                self.pending.push((index, pending));
                self.send_buffers_peak = self.send_buffers_peak.max(self.pending.len());
                r.bytes
            }
            Step::Recv {
                output, peer_stage, ..
            } => {
                let r = region(output);
                let source = cx.plan.stages[*peer_stage].first_rank + self.position;
                let out = unsafe { self.memory.bytes_mut(output) };
                cx.p2p.recv(r.dtype.size(), out, source, P2P_TAG)?;
                0
            }
            Step::Copy { input, output, .. } => {
                let (inp, out) = unsafe { self.in_out(input, output) };
                out.copy_from_slice(&inp);
                0
            }
            Step::RecordEvent { .. } | Step::WaitEvent { .. } => 0,
        };
        Ok(moved as u64)
    }

    /// Before send step `index` sends again: frees the buffers of the sends
    /// whose receivers have them, and waits for this step's previous send
    /// (the receiver takes the messages of one step in order, and has every
    /// earlier one already, so this cannot deadlock).
    fn release_sends(&mut self, index: usize) -> Result<()> {
        let mut kept = Vec::with_capacity(self.pending.len());
        for (step, mut pending) in self.pending.drain(..) {
            if pending.done()? {
                continue;
            }
            kept.push((step, pending));
        }
        self.pending = kept;
        if let Some(at) = self.pending.iter().position(|(step, _)| *step == index) {
            self.pending.remove(at).1.wait()?;
        }
        Ok(())
    }

    /// The most send buffers this rank held at once.
    pub fn send_buffers_peak(&self) -> usize {
        self.send_buffers_peak
    }

    /// Completes the sends still in flight (before outputs are written and
    /// MPI is finalised).
    pub fn finish(&mut self) -> Result<()> {
        let mut pending: Vec<Pending> = self.pending.drain(..).map(|(_, p)| p).collect();
        comm::wait_all(&mut pending)
    }

    /// Frees the shared window, after the outputs are read (collective).
    pub fn close(&mut self) -> Result<()> {
        match &mut self.peers {
            Some(peers) => peers.close(),
            None => Ok(()),
        }
    }
}
