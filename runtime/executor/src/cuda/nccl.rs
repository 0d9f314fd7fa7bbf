//! NCCL communicators, bootstrapped as NCCL documents it: rank 0 of the
//! communicator makes the unique id and the others receive it over MPI. A
//! communicator of one rank needs nobody else, so it makes its own id and
//! calls MPI not at all (a single-GPU run needs no `mpirun`).

use cudarc::nccl::sys as nccl;

use super::driver::check_nccl;
use crate::error::Result;

/// An NCCL communicator, destroyed on drop.
pub struct Communicator {
    raw: nccl::ncclComm_t,
}

impl Communicator {
    /// Rank `rank` of a communicator of `ranks` ranks (collective over
    /// them). `share` carries the id's bytes from rank 0 to the others
    /// (rank 0's are filled in; the others' are to be overwritten); it is
    /// not called when `ranks` is 1.
    pub fn new(
        ranks: usize,
        rank: usize,
        what: &str,
        share: impl FnOnce(&mut [u8]) -> Result<()>,
    ) -> Result<Communicator> {
        let mut id = nccl::ncclUniqueId { internal: [0; 128] };
        if rank == 0 {
            // SAFETY: an out-pointer to a local.
            check_nccl(
                unsafe { nccl::ncclGetUniqueId(&mut id) },
                &format!("ncclGetUniqueId ({what})"),
            )?;
        }
        if ranks > 1 {
            let mut bytes: Vec<u8> = id.internal.iter().map(|&c| c as u8).collect();
            share(&mut bytes)?;
            for (slot, byte) in id.internal.iter_mut().zip(&bytes) {
                *slot = *byte as std::ffi::c_char;
            }
        }
        let mut raw = std::ptr::null_mut();
        // SAFETY: an out-pointer to a local; every rank passes the same id.
        check_nccl(
            unsafe { nccl::ncclCommInitRank(&mut raw, ranks as i32, id, rank as i32) },
            &format!("ncclCommInitRank ({what}, rank {rank} of {ranks})"),
        )?;
        Ok(Communicator { raw })
    }

    pub fn raw(&self) -> nccl::ncclComm_t {
        self.raw
    }
}

impl Drop for Communicator {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed once; the owner synchronised
        // the device first, so no operation of it is in flight.
        unsafe { nccl::ncclCommDestroy(self.raw) };
    }
}
