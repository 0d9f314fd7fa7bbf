//! What peer launches (`Step::PeerLaunch`, the one-kernel fused collective)
//! need on the CPU: the buffers they read and write on other ranks live in
//! a shared-memory window over the ranks of this stage on this node, from
//! the start (inputs are loaded into it, outputs read from it), so no
//! collective copies anything in or out.
//!
//! - **Placement.** Every plain buffer that a peer launch names, or whose
//!   view it names, gets the same byte offset in every rank's segment; a
//!   peer's copy of it is that rank's segment plus the offset.
//! - **Order.** The stage's ranks on this node meet at a barrier, between
//!   two window syncs, before the kernel (every rank's inputs are complete
//!   and nobody still reads what the kernel overwrites) and after it (every
//!   rank's parts are written).
//! - **Several nodes.** Positions on other nodes are reached through MPI:
//!   before the kernel each rank receives part `rank` of every remote
//!   rank's read buffers into a staging part (one `MPI_Alltoallv`), and the
//!   kernel folds those in rank order with the local ones, so the result
//!   has the same bits; the kernel writes remote ranks' parts into scratch
//!   parts, and after it every rank sends its own part to every remote rank,
//!   which receives it straight into its buffer. `--ranks-per-node k`
//!   (coco-exec, coco-run) treats each k consecutive positions as one node,
//!   to test that path on one machine.

use std::collections::HashMap;

use coco_bundle::{Buffer, Stage, Step};

use crate::{
    comm::{Comm, SharedWindow},
    error::Result,
    limits::zeroed,
};

/// One rank's view of the window and of the remote parts.
pub struct Peers {
    node: Comm,
    window: Option<SharedWindow>,
    /// Stage position -> its rank in `node`, for positions on this node.
    node_rank: Vec<Option<usize>>,
    /// Windowed (plain) buffer -> its byte offset in every segment.
    offsets: HashMap<String, usize>,
    /// Named buffer -> (the plain buffer it lives in, its first element on
    /// each position, its element size, its elements).
    layout: HashMap<String, (String, Vec<usize>, usize, usize)>,
    /// Per peer-read buffer: the parts received from remote positions, in
    /// position order.
    received: HashMap<String, Vec<u8>>,
    /// Per peer-written buffer: one part per remote position, which the
    /// kernel writes and nobody reads (the part travels by MPI instead).
    scratch: HashMap<String, Vec<u8>>,
    position: usize,
    size: usize,
}

impl Peers {
    /// Sets up the window when the stage has peer launches (collective over
    /// the stage); `None` when it has none.
    pub fn new(
        stage: &Stage,
        position: usize,
        stage_comm: &Comm,
        ranks_per_node: Option<usize>,
    ) -> Result<Option<Peers>> {
        let named: Vec<&str> = stage
            .steps
            .iter()
            .flat_map(|s| match s {
                Step::PeerLaunch {
                    peer_reads,
                    peer_writes,
                    ..
                } => peer_reads
                    .iter()
                    .chain(peer_writes)
                    .map(String::as_str)
                    .collect(),
                _ => Vec::new(),
            })
            .collect();
        if named.is_empty() {
            return Ok(None);
        }
        let size = stage.size;
        let find = |name: &str| -> &Buffer {
            stage
                .buffers
                .iter()
                .find(|b| b.name == name)
                .expect("a validated plan names declared buffers")
        };
        let mut layout = HashMap::new();
        let mut offsets: HashMap<String, usize> = HashMap::new();
        let mut segment = 0usize;
        for name in &named {
            let buffer = find(name);
            let (base, starts) = match &buffer.view {
                Some(view) => (view.of.clone(), (0..size).map(|q| view.start(q)).collect()),
                None => (buffer.name.clone(), vec![0; size]),
            };
            if !offsets.contains_key(&base) {
                offsets.insert(base.clone(), segment);
                segment += find(&base).bytes().div_ceil(64) * 64;
            }
            layout.insert(
                name.to_string(),
                (base, starts, buffer.dtype.size(), buffer.len()),
            );
        }
        let node = match ranks_per_node {
            Some(k) => stage_comm.split(position / k, position)?,
            None => stage_comm.split_shared()?,
        };
        let mut positions = vec![0u8; 8 * node.size()];
        node.all_gather(8, &(position as u64).to_le_bytes(), &mut positions)?;
        let mut node_rank = vec![None; size];
        for (rank, bytes) in positions.chunks_exact(8).enumerate() {
            let q = u64::from_le_bytes(bytes.try_into().expect("8 bytes")) as usize;
            node_rank[q] = Some(rank);
        }
        let window = SharedWindow::allocate(&node, segment)?;
        // SAFETY: this rank's own segment, `segment` bytes or more, which no
        // other rank touches before the first peer launch's barrier.
        unsafe { std::ptr::write_bytes(window.segment(node.rank()), 0, segment) };
        let mut peers = Peers {
            node,
            window: Some(window),
            node_rank,
            offsets,
            layout,
            received: HashMap::new(),
            scratch: HashMap::new(),
            position,
            size,
        };
        let remote = peers.remote_positions().len();
        for step in &stage.steps {
            let Step::PeerLaunch {
                peer_reads,
                peer_writes,
                ..
            } = step
            else {
                continue;
            };
            for (names, read) in [(peer_reads, true), (peer_writes, false)] {
                for name in names {
                    let bytes = remote * peers.part_bytes(name);
                    let parts = if read {
                        &mut peers.received
                    } else {
                        &mut peers.scratch
                    };
                    if !parts.contains_key(name) {
                        parts.insert(name.clone(), zeroed(bytes, "the parts of remote ranks")?);
                    }
                }
            }
        }
        Ok(Some(peers))
    }

    /// Where each windowed plain buffer lives on this rank.
    pub fn placement(&self) -> HashMap<String, *mut u8> {
        let window = self.window.as_ref().expect("the window lives until close");
        let own = window.segment(self.node.rank());
        self.offsets
            .iter()
            // SAFETY: offsets lie inside the segment (its size is their sum).
            .map(|(name, &offset)| (name.clone(), unsafe { own.add(offset) }))
            .collect()
    }

    fn remote_positions(&self) -> Vec<usize> {
        (0..self.size)
            .filter(|&q| self.node_rank[q].is_none())
            .collect()
    }

    /// Part `part` of buffer `name` as it is on position `q` of this node.
    fn part_on(&self, name: &str, q: usize, part: usize) -> *mut u8 {
        let (base, starts, elem, len) = &self.layout[name];
        let window = self.window.as_ref().expect("the window lives until close");
        let segment = window.segment(self.node_rank[q].expect("a position on this node"));
        let element = starts[q] + part * (len / self.size);
        // SAFETY: the plan is validated: the view, and so its parts, lie
        // inside the plain buffer, which lies inside the segment.
        unsafe { segment.add(self.offsets[base] + element * elem) }
    }

    /// The kernel's peer parameters: part `rank` of each read buffer on
    /// every position (remote ones from the staging parts), then of each
    /// written buffer on positions rank + 1 ... rank + size - 1.
    pub fn parameters(&mut self, reads: &[String], writes: &[String]) -> Vec<*mut u8> {
        let r = self.position;
        let mut pointers = Vec::new();
        for name in reads {
            let part_bytes = self.part_bytes(name);
            let mut slot = 0;
            for q in 0..self.size {
                if self.node_rank[q].is_some() {
                    pointers.push(self.part_on(name, q, r));
                } else {
                    let staged = self.received.get_mut(name).expect("allocated in new");
                    pointers.push(staged[slot * part_bytes..].as_mut_ptr());
                    slot += 1;
                }
            }
        }
        for name in writes {
            let part_bytes = self.part_bytes(name);
            let mut slot = 0;
            for k in 1..self.size {
                let q = (r + k) % self.size;
                if self.node_rank[q].is_some() {
                    pointers.push(self.part_on(name, q, r));
                } else {
                    let scratch = self.scratch.get_mut(name).expect("allocated in new");
                    pointers.push(scratch[slot * part_bytes..].as_mut_ptr());
                    slot += 1;
                }
            }
        }
        pointers
    }

    fn part_bytes(&self, name: &str) -> usize {
        let (_, _, elem, len) = self.layout[name];
        len / self.size * elem
    }

    /// Before the kernel: remote parts in, then the node's barrier.
    pub fn before(&mut self, reads: &[String], stage_comm: &Comm) -> Result<()> {
        let remote = self.remote_positions();
        if !remote.is_empty() {
            for name in reads {
                let (_, _, elem, len) = self.layout[name];
                let part = len / self.size;
                // Part t of this rank's buffer goes to remote position t.
                let own = self.part_on(name, self.position, 0);
                // SAFETY: this rank's copy of the buffer, `len` elements,
                // which no other rank writes while the stage runs this step.
                let send = unsafe { std::slice::from_raw_parts(own, len * elem) };
                let mut send_counts = vec![0; self.size];
                let mut send_at = vec![0; self.size];
                let mut recv_counts = vec![0; self.size];
                let mut recv_at = vec![0; self.size];
                for (slot, &t) in remote.iter().enumerate() {
                    send_counts[t] = part;
                    send_at[t] = t * part;
                    recv_counts[t] = part;
                    recv_at[t] = slot * part;
                }
                let staged = self.received.get_mut(name).expect("allocated in new");
                stage_comm.all_to_all_at(
                    elem,
                    send,
                    &send_counts,
                    &send_at,
                    staged,
                    &recv_counts,
                    &recv_at,
                )?;
            }
        }
        self.meet()
    }

    /// After the kernel: the node's barrier, then this rank's part of each
    /// written buffer out to remote positions (and theirs in).
    pub fn after(&mut self, writes: &[String], stage_comm: &Comm) -> Result<()> {
        self.meet()?;
        let remote = self.remote_positions();
        if remote.is_empty() {
            return Ok(());
        }
        let r = self.position;
        for name in writes {
            let (_, _, elem, len) = self.layout[name];
            let part = len / self.size;
            let own = self.part_on(name, r, 0);
            // SAFETY: this rank's copy of the buffer; its own part is copied
            // out first, so MPI reads and writes disjoint memory.
            let whole = unsafe { std::slice::from_raw_parts_mut(own, len * elem) };
            let mine = whole[r * part * elem..(r + 1) * part * elem].to_vec();
            let mut send_counts = vec![0; self.size];
            let mut recv_counts = vec![0; self.size];
            let mut recv_at = vec![0; self.size];
            for &t in &remote {
                send_counts[t] = part;
                recv_counts[t] = part;
                recv_at[t] = t * part;
            }
            stage_comm.all_to_all_at(
                elem,
                &mine,
                &send_counts,
                &vec![0; self.size],
                whole,
                &recv_counts,
                &recv_at,
            )?;
        }
        Ok(())
    }

    /// Every rank of the node here, with the window's stores visible.
    fn meet(&self) -> Result<()> {
        let window = self.window.as_ref().expect("the window lives until close");
        window.sync()?;
        self.node.barrier()?;
        window.sync()
    }

    /// Frees the window (collective over the node), after the last read
    /// of any buffer in it.
    pub fn close(&mut self) -> Result<()> {
        match self.window.take() {
            Some(window) => window.free(),
            None => Ok(()),
        }
    }

    /// Bytes a peer launch moves between this rank and the others: the
    /// parts it reads from and writes to other positions.
    pub fn traffic(&self, reads: &[String], writes: &[String]) -> usize {
        reads
            .iter()
            .chain(writes)
            .map(|name| self.part_bytes(name) * (self.size - 1))
            .sum()
    }
}
