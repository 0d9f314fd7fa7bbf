//! Sends and receives between pipeline stages on the GPU, with the CPU
//! backend's semantics: the rank at position p of a stage sends to the rank
//! at position p of the peer stage (world rank `first_rank + p`), the k-th
//! send from stage A to stage B is the k-th receive in B from A, and a send
//! is queued: it never waits for its receive (the plan check's deadlock
//! analysis counts on that).
//!
//! NCCL runs the operations of one communicator one after another, and an
//! `ncclSend` only completes once its receive runs. With one world
//! communicator, a stage that sends and then receives from a stage that
//! does the same (a pipeline's forward activations and backward gradients)
//! would hang on the GPU though it runs on the CPU. So every directed pair
//! of stages with sends between them (a *channel*) gets, per position, a
//! 2-rank communicator of its own (the sender is rank 0), every send runs
//! on a stream of its channel, and a send first copies its input to a
//! staging buffer of its step on the step's stream (the CPU backend copies
//! it too), so later steps may overwrite the input at once. Receives run on
//! the step's stream, which waits for the data as an MPI receive does. A
//! send's staging buffer is reused by the same step in the next iteration
//! (`--repeat`) only once the previous send has completed.
//!
//! Communicators are created in one global order of channels (sorted by
//! stage pair), each rank taking part in its own: the first channel not yet
//! created has both its ranks waiting in it, so creation never deadlocks.
//!
//! A stage that sends to itself (a rank to itself) needs no NCCL: the send
//! copies to its staging buffer and the matching receive copies out of it.

use std::collections::{BTreeSet, HashMap, VecDeque};

use coco_bundle::{Plan, Step};
use cudarc::driver::sys as cu;
use cudarc::nccl::sys as nccl;

use super::{
    driver::{self, check, check_nccl, nccl_type},
    nccl::Communicator,
    Device,
};
use crate::{
    comm::{self, Comm},
    error::{Error, Result},
};

/// MPI tag of the NCCL ids sent to receivers (on the world's copy for
/// point-to-point traffic, before any step runs).
const ID_TAG: i32 = 2;

/// The directed stage pairs `(from, to)` that some send goes along, in the
/// order every rank creates their communicators.
pub fn channels(plan: &Plan) -> Vec<(usize, usize)> {
    let pairs: BTreeSet<(usize, usize)> = plan
        .stages
        .iter()
        .enumerate()
        .flat_map(|(s, stage)| {
            stage.steps.iter().filter_map(move |step| match step {
                Step::Send { peer_stage, .. } => Some((s, *peer_stage)),
                _ => None,
            })
        })
        .collect();
    pairs.into_iter().collect()
}

/// A channel this rank sends on.
struct Outgoing {
    comm: Communicator,
    stream: cu::CUstream,
}

/// A send step's copy of its input.
struct Slot {
    staging: cu::CUdeviceptr,
    /// Recorded once the copy is made.
    ready: cu::CUevent,
    /// Recorded once the copy has been sent (or, to itself, received).
    sent: cu::CUevent,
    /// Whether `sent` has been recorded (the copy may be in use).
    used: bool,
}

/// This rank's channels and its send steps' staging buffers.
pub struct Channels {
    /// Peer stage -> the channel to it.
    outgoing: HashMap<usize, Outgoing>,
    /// Peer stage -> the channel from it.
    incoming: HashMap<usize, Communicator>,
    /// Send step index -> its staging.
    slots: HashMap<usize, Slot>,
    /// Sends of a stage to itself not yet received: their step indices.
    to_self: VecDeque<usize>,
    /// Allocations, streams and events to release.
    allocations: Vec<cu::CUdeviceptr>,
    streams: Vec<cu::CUstream>,
    events: Vec<cu::CUevent>,
}

impl Channels {
    /// The channels of stage `stage_index` at `position` (collective over
    /// the world: every rank calls it, sends or not), and a staging buffer
    /// per send step; `None` when the plan has no sends.
    pub fn new(
        plan: &Plan,
        stage_index: usize,
        position: usize,
        world: &Comm,
    ) -> Result<Option<Channels>> {
        let pairs = channels(plan);
        if pairs.is_empty() {
            return Ok(None);
        }
        let mut channels = Channels {
            outgoing: HashMap::new(),
            incoming: HashMap::new(),
            slots: HashMap::new(),
            to_self: VecDeque::new(),
            allocations: Vec::new(),
            streams: Vec::new(),
            events: Vec::new(),
        };
        for (from, to) in pairs {
            if from == to || (stage_index != from && stage_index != to) {
                continue;
            }
            let sender = plan.stages[from].first_rank + position;
            let receiver = plan.stages[to].first_rank + position;
            let what = format!("sends from stage {from} to stage {to}");
            if stage_index == from {
                let comm = Communicator::new(2, 0, &what, |id| {
                    let mut pending = vec![world.send_queued(1, id.to_vec(), receiver, ID_TAG)?];
                    comm::wait_all(&mut pending)
                })?;
                let stream = driver::stream()?;
                channels.streams.push(stream);
                channels.outgoing.insert(to, Outgoing { comm, stream });
            } else {
                let comm = Communicator::new(2, 1, &what, |id| world.recv(1, id, sender, ID_TAG))?;
                channels.incoming.insert(from, comm);
            }
        }
        let stage = &plan.stages[stage_index];
        for (index, step) in stage.steps.iter().enumerate() {
            let Step::Send { input, .. } = step else {
                continue;
            };
            let bytes = stage
                .buffers
                .iter()
                .find(|b| &b.name == input)
                .map(|b| b.bytes())
                .ok_or_else(|| {
                    Error::Internal(format!("send of '{input}', a buffer the stage lacks"))
                })?;
            let staging = driver::allocate(bytes)?;
            channels.allocations.push(staging);
            let ready = driver::event()?;
            channels.events.push(ready);
            let sent = driver::event()?;
            channels.events.push(sent);
            channels.slots.insert(
                index,
                Slot {
                    staging,
                    ready,
                    sent,
                    used: false,
                },
            );
        }
        Ok(Some(channels))
    }

    /// Step `index` sends `input` to `peer_stage`: the input copied on
    /// `stream`, then sent on the channel's stream.
    ///
    /// # Safety
    /// `input` is a live device buffer of this stage.
    pub unsafe fn send(
        &mut self,
        index: usize,
        peer_stage: usize,
        own_stage: usize,
        input: Device,
        stream: cu::CUstream,
    ) -> Result<()> {
        let slot = self
            .slots
            .get_mut(&index)
            .ok_or_else(|| Error::Internal(format!("send step {index} has no staging buffer")))?;
        if slot.used {
            // The previous iteration's copy must be on its way first.
            check(
                cu::cuStreamWaitEvent(stream, slot.sent, 0),
                "cuStreamWaitEvent",
            )?;
        }
        if input.bytes > 0 {
            check(
                cu::cuMemcpyDtoDAsync_v2(slot.staging, input.ptr, input.bytes, stream),
                "cuMemcpyDtoDAsync",
            )?;
        }
        check(cu::cuEventRecord(slot.ready, stream), "cuEventRecord")?;
        slot.used = true;
        if peer_stage == own_stage {
            self.to_self.push_back(index);
            return Ok(());
        }
        let channel = self
            .outgoing
            .get(&peer_stage)
            .ok_or_else(|| Error::Internal(format!("no channel to stage {peer_stage}")))?;
        check(
            cu::cuStreamWaitEvent(channel.stream, slot.ready, 0),
            "cuStreamWaitEvent",
        )?;
        check_nccl(
            nccl::ncclSend(
                slot.staging as _,
                input.bytes / input.dtype.size(),
                nccl_type(input.dtype),
                1,
                channel.comm.raw(),
                channel.stream as nccl::cudaStream_t,
            ),
            &format!("ncclSend (to stage {peer_stage})"),
        )?;
        check(
            cu::cuEventRecord(slot.sent, channel.stream),
            "cuEventRecord",
        )
    }

    /// Receives from `peer_stage` into `output` on `stream`.
    ///
    /// # Safety
    /// `output` is a live device buffer of this stage.
    pub unsafe fn recv(
        &mut self,
        peer_stage: usize,
        own_stage: usize,
        output: Device,
        stream: cu::CUstream,
    ) -> Result<()> {
        if peer_stage == own_stage {
            let index = self.to_self.pop_front().ok_or_else(|| {
                Error::Internal("a receive from this stage before its send".into())
            })?;
            let slot = &self.slots[&index];
            check(
                cu::cuStreamWaitEvent(stream, slot.ready, 0),
                "cuStreamWaitEvent",
            )?;
            if output.bytes > 0 {
                check(
                    cu::cuMemcpyDtoDAsync_v2(output.ptr, slot.staging, output.bytes, stream),
                    "cuMemcpyDtoDAsync",
                )?;
            }
            return check(cu::cuEventRecord(slot.sent, stream), "cuEventRecord");
        }
        let comm = self
            .incoming
            .get(&peer_stage)
            .ok_or_else(|| Error::Internal(format!("no channel from stage {peer_stage}")))?;
        check_nccl(
            nccl::ncclRecv(
                output.ptr as _,
                output.bytes / output.dtype.size(),
                nccl_type(output.dtype),
                0,
                comm.raw(),
                stream as nccl::cudaStream_t,
            ),
            &format!("ncclRecv (from stage {peer_stage})"),
        )
    }
}

impl Drop for Channels {
    fn drop(&mut self) {
        // SAFETY: created here and released once; the owner synchronised
        // the device first. The communicators are destroyed after this.
        unsafe {
            for event in &self.events {
                cu::cuEventDestroy_v2(*event);
            }
            for stream in &self.streams {
                cu::cuStreamDestroy_v2(*stream);
            }
            for ptr in &self.allocations {
                cu::cuMemFree_v2(*ptr);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use coco_bundle::{Buffer, DType, Stage};

    use super::*;

    fn stage(first_rank: usize, steps: Vec<Step>) -> Stage {
        Stage {
            function: format!("s{first_rank}"),
            first_rank,
            size: 2,
            buffers: vec![Buffer {
                name: "x".into(),
                dtype: DType::F32,
                shape: vec![4],
                input: None,
                output: None,
                view: None,
            }],
            steps,
            mesh: Vec::new(),
        }
    }

    fn send(to: usize) -> Step {
        Step::Send {
            input: "x".into(),
            peer_stage: to,
            stream: 0,
        }
    }

    fn recv(from: usize) -> Step {
        Step::Recv {
            output: "x".into(),
            peer_stage: from,
            stream: 0,
        }
    }

    #[test]
    fn channels_are_the_directed_pairs_that_send_in_one_order() {
        // A 1F1B-like exchange: 0 -> 1 -> 2 forward, 2 -> 1 -> 0 back.
        let mut plan = Plan::new("p.mlir", 6);
        plan.stages = vec![
            stage(0, vec![send(1), send(1), recv(1)]),
            stage(2, vec![recv(0), send(2), recv(2), send(0), recv(0)]),
            stage(4, vec![recv(1), send(1)]),
        ];
        assert_eq!(channels(&plan), [(0, 1), (1, 0), (1, 2), (2, 1)]);
        let mut plan = Plan::new("p.mlir", 2);
        plan.stages = vec![stage(0, vec![recv(0)])];
        assert!(channels(&plan).is_empty());
    }
}
