//! A thin layer over the raw MPI C API (`mpi::ffi`): process-wide
//! initialisation, finalisation and abort, and a [`Comm`] whose methods move
//! host bytes.
//!
//! Why the raw API: the executor moves untyped byte buffers whose element
//! type is only known from the plan, uses `MPI_Reduce_scatter_block`,
//! `Alltoallv` and `Comm_split`, and must be able to `MPI_Abort` from an
//! error path anywhere; the safe `mpi` API is typed by Rust element types and
//! would need a wrapper per dtype for every call. Everything unsafe about MPI
//! stays in this module: the methods take slices, so counts and pointers
//! always agree.
//!
//! Errors: communicators are switched to `MPI_ERRORS_RETURN`, so a failed
//! call comes back as an [`Error::Mpi`] naming the call, and the caller's
//! error path prints it and aborts the job (rather than OpenMPI printing its
//! own multi-line report).
//!
//! Waiting: collectives and receives are started non-blocking and
//! completed by [`watchdog::wait`], which backs off instead of spinning and
//! fails a wait longer than the watchdog's limit (a stopped or hung rank).
//! Communicator creation (split, dup) is blocking in MPI: a watched barrier
//! goes first, so that it only starts once every rank is there.
//!
//! Element counts are C `int`s in MPI 3: data moves in units of the element
//! size (a 2-byte unit for f16...), so one call carries up to 2^31 - 1
//! elements; larger buffers are an error, not a silent truncation.

use std::{
    ffi::{c_int, c_void},
    ptr,
    sync::atomic::{AtomicBool, Ordering},
};

use coco_bundle::{DType, Reduction};
use mpi::ffi;

use crate::{
    error::{Error, Result},
    job, watchdog,
};

/// Whether this process called `MPI_Init` (and so must finalise).
static INITIALISED_HERE: AtomicBool = AtomicBool::new(false);

/// Set once a wait gave up: its request is still in flight, so the only MPI
/// call left to make is `MPI_Abort` (freeing a communicator would wait on
/// it, and MPI may still write into buffers the error path frees).
static STALLED: AtomicBool = AtomicBool::new(false);

fn check(call: &'static str, code: c_int) -> Result<()> {
    if code == 0 {
        return Ok(());
    }
    let mut text = vec![0u8; 512];
    let mut len: c_int = 0;
    // SAFETY: the buffer is larger than MPI_MAX_ERROR_STRING (256).
    let message = unsafe {
        if ffi::MPI_Error_string(code, text.as_mut_ptr().cast(), &mut len) == 0 {
            text.truncate(len.max(0) as usize);
            String::from_utf8_lossy(&text).into_owned()
        } else {
            format!("error code {code}")
        }
    };
    Err(Error::Mpi { call, message })
}

/// Whether MPI is initialised and not yet finalised in this process.
pub fn is_active() -> bool {
    let mut initialised: c_int = 0;
    let mut finalised: c_int = 0;
    // SAFETY: both may be called at any time, even before MPI_Init.
    unsafe {
        ffi::MPI_Initialized(&mut initialised);
        ffi::MPI_Finalized(&mut finalised);
    }
    initialised != 0 && finalised == 0
}

/// Initialises MPI unless it already is (by this crate or by the program
/// embedding it) and returns the world communicator.
pub fn init() -> Result<Comm> {
    let mut initialised: c_int = 0;
    // SAFETY: MPI_Initialized may be called before MPI_Init.
    unsafe { check("MPI_Initialized", ffi::MPI_Initialized(&mut initialised))? };
    if initialised == 0 {
        // Before MPI_Init, which waits for every rank: a rank must not
        // outlive a killed launcher, even there.
        job::watch_launcher();
        // SAFETY: null argc/argv are allowed since MPI 2.
        unsafe { check("MPI_Init", ffi::MPI_Init(ptr::null_mut(), ptr::null_mut()))? };
        INITIALISED_HERE.store(true, Ordering::SeqCst);
    }
    let world = Comm::world();
    // SAFETY: MPI is initialised; the handles are MPI's constants.
    unsafe {
        check(
            "MPI_Comm_set_errhandler",
            ffi::MPI_Comm_set_errhandler(world.raw, ffi::RSMPI_ERRORS_RETURN),
        )?;
    }
    Ok(world)
}

/// Finalises MPI if [`init`] initialised it. Every rank must call it before
/// exiting normally: OpenMPI reports a rank that exits without finalising as
/// a failed job.
pub fn finalize() {
    if INITIALISED_HERE.swap(false, Ordering::SeqCst) && is_active() {
        // SAFETY: initialised by us, not finalised yet.
        unsafe { ffi::MPI_Finalize() };
    }
}

/// Ends every rank of the job with exit code `code` (`MPI_Abort` on the
/// world), or this process alone when MPI is not running.
pub fn abort(code: i32) -> ! {
    if is_active() {
        // SAFETY: MPI is active; MPI_Abort does not return.
        unsafe { ffi::MPI_Abort(ffi::RSMPI_COMM_WORLD, code) };
    }
    std::process::exit(code)
}

/// The MPI element type of a dtype MPI can reduce natively.
fn native_type(dtype: DType) -> Option<ffi::MPI_Datatype> {
    // SAFETY: reading MPI's predefined handles.
    unsafe {
        Some(match dtype {
            DType::F32 => ffi::RSMPI_FLOAT,
            DType::F64 => ffi::RSMPI_DOUBLE,
            DType::I32 => ffi::RSMPI_INT32_T,
            DType::I64 => ffi::RSMPI_INT64_T,
            DType::F16 | DType::BF16 | DType::I1 => return None,
        })
    }
}

/// Whether MPI can reduce `dtype` itself.
pub fn reduces_natively(dtype: DType) -> bool {
    native_type(dtype).is_some()
}

fn native_op(reduction: Reduction) -> ffi::MPI_Op {
    // SAFETY: reading MPI's predefined handles.
    unsafe {
        match reduction {
            Reduction::Sum | Reduction::Avg => ffi::RSMPI_SUM,
            Reduction::Prod => ffi::RSMPI_PROD,
            Reduction::Min => ffi::RSMPI_MIN,
            Reduction::Max => ffi::RSMPI_MAX,
        }
    }
}

/// An opaque unit of `size` bytes (the element size), to move bytes.
fn unit(size: usize) -> ffi::MPI_Datatype {
    // SAFETY: reading MPI's predefined handles.
    unsafe {
        match size {
            1 => ffi::RSMPI_UINT8_T,
            2 => ffi::RSMPI_UINT16_T,
            4 => ffi::RSMPI_UINT32_T,
            8 => ffi::RSMPI_UINT64_T,
            _ => unreachable!("element sizes are 1, 2, 4 or 8 bytes"),
        }
    }
}

/// Completes the request `start` makes (a non-blocking call), watched.
///
/// # Safety
/// `start` is an MPI call whose buffers stay valid until this returns.
unsafe fn complete(
    call: &'static str,
    start: impl FnOnce(*mut ffi::MPI_Request) -> c_int,
) -> Result<()> {
    let mut request = ffi::MPI_Request(ptr::null_mut());
    check(call, start(&mut request))?;
    wait_request(call, &mut request, ffi::RSMPI_STATUS_IGNORE)
}

/// Waits for `request` (filling `status` unless it is MPI_STATUS_IGNORE).
///
/// # Safety
/// `request` is live and `status` is MPI_STATUS_IGNORE or valid.
unsafe fn wait_request(
    call: &'static str,
    request: &mut ffi::MPI_Request,
    status: *mut ffi::MPI_Status,
) -> Result<()> {
    watchdog::wait(call, || {
        let mut flag: c_int = 0;
        check(call, ffi::MPI_Test(request, &mut flag, status))?;
        Ok(flag != 0)
    })
    .inspect_err(|e| {
        if matches!(e, Error::Stalled { .. }) {
            STALLED.store(true, Ordering::SeqCst);
        }
    })
}

fn count(call: &'static str, elements: usize) -> Result<c_int> {
    c_int::try_from(elements).map_err(|_| Error::Mpi {
        call,
        message: format!(
            "{elements} elements in one call; MPI counts stop at {}",
            c_int::MAX
        ),
    })
}

/// The address MPI is given for a buffer. An empty slice's pointer is
/// dangling, and for bytes it is address 1: Open MPI's `MPI_IN_PLACE`
/// (`(void *) 1`), which made an exact all_reduce of fewer elements than
/// ranks fail with MPI_ERR_ARG. Empty buffers get another dangling address
/// (MPI reads or writes nothing through it).
fn buffer(data: &[u8]) -> *const std::ffi::c_void {
    if data.is_empty() {
        std::ptr::NonNull::<u64>::dangling().as_ptr().cast()
    } else {
        data.as_ptr().cast()
    }
}

/// [`buffer`] for a buffer MPI writes.
fn buffer_mut(data: &mut [u8]) -> *mut std::ffi::c_void {
    if data.is_empty() {
        std::ptr::NonNull::<u64>::dangling().as_ptr().cast()
    } else {
        data.as_mut_ptr().cast()
    }
}

fn counts(call: &'static str, elements: &[usize]) -> Result<(Vec<c_int>, Vec<c_int>)> {
    let counts = elements
        .iter()
        .map(|&n| count(call, n))
        .collect::<Result<Vec<_>>>()?;
    let mut displacements = Vec::with_capacity(elements.len());
    let mut at = 0usize;
    for &n in elements {
        displacements.push(count(call, at)?);
        at += n;
    }
    Ok((counts, displacements))
}

/// A communicator. The world is never freed; split communicators are freed
/// on drop.
pub struct Comm {
    raw: ffi::MPI_Comm,
    owned: bool,
    rank: usize,
    size: usize,
}

impl Drop for Comm {
    fn drop(&mut self) {
        if self.owned && is_active() && !STALLED.load(Ordering::SeqCst) {
            // SAFETY: a communicator this value created, not yet freed.
            unsafe { ffi::MPI_Comm_free(&mut self.raw) };
        }
    }
}

impl Comm {
    fn world() -> Comm {
        // SAFETY: MPI is initialised (only `init` calls this).
        unsafe { Comm::wrap(ffi::RSMPI_COMM_WORLD, false) }
    }

    unsafe fn wrap(raw: ffi::MPI_Comm, owned: bool) -> Comm {
        let (mut rank, mut size): (c_int, c_int) = (0, 0);
        ffi::MPI_Comm_rank(raw, &mut rank);
        ffi::MPI_Comm_size(raw, &mut size);
        Comm {
            raw,
            owned,
            rank: rank as usize,
            size: size as usize,
        }
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    pub fn size(&self) -> usize {
        self.size
    }

    /// The ranks with the same `color`, ordered by `key` (collective).
    pub fn split(&self, color: usize, key: usize) -> Result<Comm> {
        self.barrier()?;
        let mut raw = ffi::MPI_Comm(ptr::null_mut());
        // SAFETY: `raw` receives a new communicator.
        unsafe {
            check(
                "MPI_Comm_split",
                ffi::MPI_Comm_split(self.raw, color as c_int, key as c_int, &mut raw),
            )?;
            Ok(Comm::wrap(raw, true))
        }
    }

    /// The ranks that share memory with this one (one node), ordered by
    /// rank here (collective).
    pub fn split_shared(&self) -> Result<Comm> {
        self.barrier()?;
        let mut raw = ffi::MPI_Comm(ptr::null_mut());
        // SAFETY: `raw` receives a new communicator; the constants are MPI's.
        unsafe {
            check(
                "MPI_Comm_split_type",
                ffi::MPI_Comm_split_type(
                    self.raw,
                    ffi::RSMPI_COMM_TYPE_SHARED,
                    self.rank as c_int,
                    ffi::RSMPI_INFO_NULL,
                    &mut raw,
                ),
            )?;
            Ok(Comm::wrap(raw, true))
        }
    }

    /// A copy of this communicator, for traffic that must not match anything
    /// sent on this one (collective).
    pub fn dup(&self) -> Result<Comm> {
        self.barrier()?;
        let mut raw = ffi::MPI_Comm(ptr::null_mut());
        // SAFETY: `raw` receives a new communicator.
        unsafe {
            check("MPI_Comm_dup", ffi::MPI_Comm_dup(self.raw, &mut raw))?;
            Ok(Comm::wrap(raw, true))
        }
    }

    /// Every rank's `send` (equal sizes), rank-major, into `recv`.
    pub fn all_gather(&self, elem: usize, send: &[u8], recv: &mut [u8]) -> Result<()> {
        assert_eq!(recv.len(), send.len() * self.size);
        let n = count("MPI_Allgather", send.len() / elem)?;
        // SAFETY: `recv` holds `size` times `send`.
        unsafe {
            complete("MPI_Allgather", |request| {
                ffi::MPI_Iallgather(
                    buffer(send),
                    n,
                    unit(elem),
                    buffer_mut(recv),
                    n,
                    unit(elem),
                    self.raw,
                    request,
                )
            })
        }
    }

    /// Every rank's `send` (`counts[r]` elements from rank r), rank-major.
    pub fn all_gather_v(
        &self,
        elem: usize,
        send: &[u8],
        counts_per_rank: &[usize],
        recv: &mut [u8],
    ) -> Result<()> {
        assert_eq!(counts_per_rank.len(), self.size);
        assert_eq!(send.len(), counts_per_rank[self.rank] * elem);
        assert_eq!(recv.len(), counts_per_rank.iter().sum::<usize>() * elem);
        let (counts, displacements) = counts("MPI_Allgatherv", counts_per_rank)?;
        // SAFETY: counts and displacements describe `recv` exactly.
        unsafe {
            complete("MPI_Allgatherv", |request| {
                ffi::MPI_Iallgatherv(
                    buffer(send),
                    counts[self.rank],
                    unit(elem),
                    buffer_mut(recv),
                    counts.as_ptr(),
                    displacements.as_ptr(),
                    unit(elem),
                    self.raw,
                    request,
                )
            })
        }
    }

    /// Every rank's `send`, rank-major, into `recv` on `root` only (other
    /// ranks pass an empty `recv`).
    pub fn gather(&self, elem: usize, send: &[u8], recv: &mut [u8], root: usize) -> Result<()> {
        let on_root = self.rank == root;
        assert_eq!(recv.len(), if on_root { send.len() * self.size } else { 0 });
        let n = count("MPI_Gather", send.len() / elem)?;
        let recv_ptr: *mut c_void = if on_root {
            buffer_mut(recv)
        } else {
            ptr::null_mut()
        };
        // SAFETY: on root `recv` holds `size` times `send`; elsewhere it is
        // not used.
        unsafe {
            complete("MPI_Gather", |request| {
                ffi::MPI_Igather(
                    buffer(send),
                    n,
                    unit(elem),
                    recv_ptr,
                    n,
                    unit(elem),
                    root as c_int,
                    self.raw,
                    request,
                )
            })
        }
    }

    /// Part r of `send` (`send_counts[r]` elements, in order) to rank r; the
    /// parts received (`recv_counts[r]` from rank r) rank-major in `recv`.
    pub fn all_to_all_v(
        &self,
        elem: usize,
        send: &[u8],
        send_counts: &[usize],
        recv: &mut [u8],
        recv_counts: &[usize],
    ) -> Result<()> {
        assert_eq!(send.len(), send_counts.iter().sum::<usize>() * elem);
        assert_eq!(recv.len(), recv_counts.iter().sum::<usize>() * elem);
        // Parts one after the other: each starts where the previous ends.
        let starts = |counts: &[usize]| -> Vec<usize> {
            counts
                .iter()
                .scan(0, |at, &n| {
                    let start = *at;
                    *at += n;
                    Some(start)
                })
                .collect()
        };
        self.all_to_all_at(
            elem,
            send,
            send_counts,
            &starts(send_counts),
            recv,
            recv_counts,
            &starts(recv_counts),
        )
    }

    /// `send_counts[r]` elements from element `send_at[r]` of `send` to rank
    /// r; `recv_counts[r]` elements from rank r into `recv` at element
    /// `recv_at[r]`. Parts may sit anywhere in their buffer (parts sent may
    /// overlap; parts received must not).
    #[allow(clippy::too_many_arguments)]
    pub fn all_to_all_at(
        &self,
        elem: usize,
        send: &[u8],
        send_counts: &[usize],
        send_at: &[usize],
        recv: &mut [u8],
        recv_counts: &[usize],
        recv_at: &[usize],
    ) -> Result<()> {
        let fits = |counts: &[usize], at: &[usize], bytes: usize| {
            counts.len() == self.size
                && at.len() == self.size
                && counts.iter().zip(at).all(|(n, a)| (n + a) * elem <= bytes)
        };
        assert!(fits(send_counts, send_at, send.len()));
        assert!(fits(recv_counts, recv_at, recv.len()));
        let call = "MPI_Alltoallv";
        let ints = |v: &[usize]| {
            v.iter()
                .map(|&n| count(call, n))
                .collect::<Result<Vec<_>>>()
        };
        let (sc, sd, rc, rd) = (
            ints(send_counts)?,
            ints(send_at)?,
            ints(recv_counts)?,
            ints(recv_at)?,
        );
        // SAFETY: every part lies inside its buffer (asserted above).
        unsafe {
            complete(call, |request| {
                ffi::MPI_Ialltoallv(
                    buffer(send),
                    sc.as_ptr(),
                    sd.as_ptr(),
                    unit(elem),
                    buffer_mut(recv),
                    rc.as_ptr(),
                    rd.as_ptr(),
                    unit(elem),
                    self.raw,
                    request,
                )
            })
        }
    }

    /// Waits until every rank reaches the barrier.
    pub fn barrier(&self) -> Result<()> {
        // SAFETY: a collective on a live communicator.
        unsafe {
            complete("MPI_Barrier", |request| {
                ffi::MPI_Ibarrier(self.raw, request)
            })
        }
    }

    /// `data` from `root` on every rank.
    pub fn broadcast(&self, elem: usize, data: &mut [u8], root: usize) -> Result<()> {
        let n = count("MPI_Bcast", data.len() / elem)?;
        // SAFETY: `data` is `n` elements on every rank.
        unsafe {
            complete("MPI_Bcast", |request| {
                ffi::MPI_Ibcast(
                    buffer_mut(data),
                    n,
                    unit(elem),
                    root as c_int,
                    self.raw,
                    request,
                )
            })
        }
    }

    /// MPI's own element-wise reduction (`reduces_natively(dtype)`); `avg`
    /// sums (the caller divides).
    pub fn all_reduce_native(
        &self,
        dtype: DType,
        reduction: Reduction,
        send: &[u8],
        recv: &mut [u8],
    ) -> Result<()> {
        assert_eq!(send.len(), recv.len());
        let ty = native_type(dtype).expect("checked by the caller");
        let n = count("MPI_Allreduce", send.len() / dtype.size())?;
        // SAFETY: both buffers hold `n` elements of `ty`.
        unsafe {
            complete("MPI_Allreduce", |request| {
                ffi::MPI_Iallreduce(
                    buffer(send),
                    buffer_mut(recv),
                    n,
                    ty,
                    native_op(reduction),
                    self.raw,
                    request,
                )
            })
        }
    }

    /// MPI's reduction of `send` (`size` equal parts) whose part r lands in
    /// `recv` on rank r.
    pub fn reduce_scatter_native(
        &self,
        dtype: DType,
        reduction: Reduction,
        send: &[u8],
        recv: &mut [u8],
    ) -> Result<()> {
        assert_eq!(send.len(), recv.len() * self.size);
        let ty = native_type(dtype).expect("checked by the caller");
        let n = count("MPI_Reduce_scatter_block", recv.len() / dtype.size())?;
        // SAFETY: `send` holds `size * n` elements, `recv` `n`.
        unsafe {
            complete("MPI_Reduce_scatter_block", |request| {
                ffi::MPI_Ireduce_scatter_block(
                    buffer(send),
                    buffer_mut(recv),
                    n,
                    ty,
                    native_op(reduction),
                    self.raw,
                    request,
                )
            })
        }
    }

    /// MPI's reduction into `recv` on `root` (other ranks pass an empty
    /// `recv`).
    pub fn reduce_native(
        &self,
        dtype: DType,
        reduction: Reduction,
        send: &[u8],
        recv: &mut [u8],
        root: usize,
    ) -> Result<()> {
        let on_root = self.rank == root;
        assert_eq!(recv.len(), if on_root { send.len() } else { 0 });
        let ty = native_type(dtype).expect("checked by the caller");
        let n = count("MPI_Reduce", send.len() / dtype.size())?;
        let recv_ptr: *mut c_void = if on_root {
            buffer_mut(recv)
        } else {
            ptr::null_mut()
        };
        // SAFETY: on root `recv` holds `n` elements; elsewhere it is unused.
        unsafe {
            complete("MPI_Reduce", |request| {
                ffi::MPI_Ireduce(
                    buffer(send),
                    recv_ptr,
                    n,
                    ty,
                    native_op(reduction),
                    root as c_int,
                    self.raw,
                    request,
                )
            })
        }
    }

    /// Element-wise maxima of `values` over the ranks, on `root`.
    pub fn max_f64(&self, values: &[f64], root: usize) -> Result<Vec<f64>> {
        let mut out = vec![0.0; values.len()];
        let n = count("MPI_Reduce", values.len())?;
        // SAFETY: both buffers hold `n` doubles (every rank passes `out`,
        // which MPI ignores off the root).
        unsafe {
            complete("MPI_Reduce", |request| {
                ffi::MPI_Ireduce(
                    values.as_ptr().cast(),
                    out.as_mut_ptr().cast(),
                    n,
                    ffi::RSMPI_DOUBLE,
                    ffi::RSMPI_MAX,
                    root as c_int,
                    self.raw,
                    request,
                )
            })?;
        }
        Ok(out)
    }

    /// Element-wise sums of `values` over the ranks, on `root`.
    pub fn sum_u64(&self, values: &[u64], root: usize) -> Result<Vec<u64>> {
        let mut out = vec![0; values.len()];
        let n = count("MPI_Reduce", values.len())?;
        // SAFETY: as in `max_f64`.
        unsafe {
            complete("MPI_Reduce", |request| {
                ffi::MPI_Ireduce(
                    values.as_ptr().cast(),
                    out.as_mut_ptr().cast(),
                    n,
                    ffi::RSMPI_UINT64_T,
                    ffi::RSMPI_SUM,
                    root as c_int,
                    self.raw,
                    request,
                )
            })?;
        }
        Ok(out)
    }

    /// Starts sending a copy of `data` to `dest`; the message is queued (no
    /// matching receive needed to go on), as `coco.send` is. Complete every
    /// pending send with [`wait_all`] before finalising.
    pub fn send_queued(
        &self,
        elem: usize,
        data: Vec<u8>,
        dest: usize,
        tag: i32,
    ) -> Result<Pending> {
        let n = count("MPI_Isend", data.len() / elem)?;
        let mut request = ffi::MPI_Request(ptr::null_mut());
        // SAFETY: `data` moves into the returned `Pending`, which keeps it
        // alive (and its heap block in place) until the request completes.
        unsafe {
            check(
                "MPI_Isend",
                ffi::MPI_Isend(
                    buffer(&data),
                    n,
                    unit(elem),
                    dest as c_int,
                    tag,
                    self.raw,
                    &mut request,
                ),
            )?;
        }
        Ok(Pending {
            request,
            data: Some(data),
        })
    }

    /// Receives one message from `source` into `data`, which it must fill
    /// exactly.
    pub fn recv(&self, elem: usize, data: &mut [u8], source: usize, tag: i32) -> Result<()> {
        let n = count("MPI_Recv", data.len() / elem)?;
        // SAFETY: a zeroed MPI_Status is a valid out-parameter.
        let mut status: ffi::MPI_Status = unsafe { std::mem::zeroed() };
        let mut request = ffi::MPI_Request(ptr::null_mut());
        // SAFETY: `data` holds `n` elements and outlives the wait.
        unsafe {
            check(
                "MPI_Recv",
                ffi::MPI_Irecv(
                    buffer_mut(data),
                    n,
                    unit(elem),
                    source as c_int,
                    tag,
                    self.raw,
                    &mut request,
                ),
            )?;
            wait_request("MPI_Recv", &mut request, &mut status)?;
        }
        let mut received: c_int = 0;
        // SAFETY: `status` was filled by MPI_Recv.
        unsafe {
            check(
                "MPI_Get_count",
                ffi::MPI_Get_count(&status, unit(elem), &mut received),
            )?
        };
        if received != n {
            return Err(Error::Plan(format!(
                "received {} bytes from world rank {source}, expected {}",
                received.max(0) as usize * elem,
                data.len()
            )));
        }
        Ok(())
    }
}

/// A send in flight and the bytes it reads.
pub struct Pending {
    request: ffi::MPI_Request,
    data: Option<Vec<u8>>,
}

impl Drop for Pending {
    fn drop(&mut self) {
        // Dropped before completing (an error path, about to abort): MPI may
        // still read the bytes, so they must outlive the process.
        // SAFETY: reading MPI's predefined handle.
        if self.request != unsafe { ffi::RSMPI_REQUEST_NULL } {
            std::mem::forget(self.data.take());
        }
    }
}

impl Pending {
    /// Whether the send has completed: its receiver has the bytes (or MPI
    /// copied them), so dropping it frees them.
    pub fn done(&mut self) -> Result<bool> {
        let mut flag: c_int = 0;
        // SAFETY: a live request from MPI_Isend (or MPI_REQUEST_NULL once
        // completed, which MPI_Test reports done).
        unsafe {
            check(
                "MPI_Test",
                ffi::MPI_Test(&mut self.request, &mut flag, ffi::RSMPI_STATUS_IGNORE),
            )?
        };
        Ok(flag != 0)
    }

    /// Waits until the send has completed (watched), and frees its bytes.
    pub fn wait(mut self) -> Result<()> {
        // SAFETY: as in `done`; completing it sets it to MPI_REQUEST_NULL,
        // after which dropping `self` frees its bytes.
        unsafe { wait_request("MPI_Send", &mut self.request, ffi::RSMPI_STATUS_IGNORE) }
    }
}

/// Completes `pending` sends.
pub fn wait_all(pending: &mut Vec<Pending>) -> Result<()> {
    for mut p in pending.drain(..) {
        // SAFETY: a request from MPI_Isend, waited on once; completing it
        // sets it to MPI_REQUEST_NULL, after which `p` frees its bytes.
        unsafe { wait_request("MPI_Send", &mut p.request, ffi::RSMPI_STATUS_IGNORE)? };
    }
    Ok(())
}

/// The bytes an unprivileged user may still write under `folder`
/// (`statvfs`), if it can be asked.
pub fn free_bytes(folder: &std::path::Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(folder.as_os_str().as_bytes()).ok()?;
    // SAFETY: a zeroed statvfs is a valid out-parameter; `path` is a C
    // string that outlives the call.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return None;
    }
    Some((stat.f_bavail as u64).saturating_mul(stat.f_frsize as u64))
}

/// The message for a shared-memory window that `folder` has no room for.
pub fn shared_memory_short(folder: &std::path::Path, needed: u64, free: Option<u64>) -> String {
    format!(
        "the peer launches' shared-memory window needs {needed} bytes in {}{}: give it more \
         room (a larger /dev/shm: `docker run --shm-size`, or remount the tmpfs), or put \
         the job's shared memory elsewhere ({} for jobs coco launches, \
         OMPI_MCA_osc_sm_backing_directory under your own mpirun), or compile with \
         coco-translate --fused-collectives=steps",
        folder.display(),
        free.map_or(String::new(), |f| format!(", which has {f} bytes free")),
        crate::launch::SHM_DIR_ENV
    )
}

/// Memory that every rank of a node communicator maps
/// (`MPI_Win_allocate_shared`): each rank owns one segment of the same
/// size and may load and store any rank's segment directly. The window
/// stays in a passive-target epoch (`MPI_Win_lock_all`) for its lifetime,
/// so [`SharedWindow::sync`] (`MPI_Win_sync`, a memory barrier for the
/// window) may be called between the barriers that order the ranks'
/// accesses.
pub struct SharedWindow {
    raw: ffi::MPI_Win,
    segments: Vec<*mut u8>,
}

impl SharedWindow {
    /// Allocates `bytes` (rounded up to whole pages, so every segment is
    /// page-aligned) on every rank of `node` (collective; every rank asks
    /// for the same size). The memory is not initialised.
    pub fn allocate(node: &Comm, bytes: usize) -> Result<SharedWindow> {
        const PAGE: usize = 4096;
        let bytes = bytes.max(1).div_ceil(PAGE) * PAGE;
        let size = ffi::MPI_Aint::try_from(bytes).map_err(|_| Error::Mpi {
            call: "MPI_Win_allocate_shared",
            message: format!("{bytes} bytes do not fit an MPI_Aint"),
        })?;
        // The node's segments are one file in the backing folder, which
        // its first rank creates: too little room there is an error that
        // says where and how much, not MPI's MPI_ERR_INTERN.
        let folder = crate::launch::shm_backing_dir();
        let needed = (bytes as u64).saturating_mul(node.size() as u64);
        if node.rank() == 0 {
            if let Some(free) = free_bytes(&folder) {
                if free < needed {
                    return Err(Error::SharedMemory(shared_memory_short(
                        &folder,
                        needed,
                        Some(free),
                    )));
                }
            }
        }
        node.barrier()?;
        let mut raw: ffi::MPI_Win = unsafe { ffi::RSMPI_WIN_NULL };
        let mut base: *mut u8 = ptr::null_mut();
        // SAFETY: MPI writes the segment's address into `base` and the
        // window into `raw`; the constants are MPI's.
        unsafe {
            check(
                "MPI_Win_allocate_shared",
                ffi::MPI_Win_allocate_shared(
                    size,
                    1,
                    ffi::RSMPI_INFO_NULL,
                    node.raw,
                    (&mut base as *mut *mut u8).cast(),
                    &mut raw,
                ),
            )
            .map_err(|e| {
                Error::SharedMemory(format!(
                    "{e}: {}",
                    shared_memory_short(&folder, needed, free_bytes(&folder))
                ))
            })?;
        }
        let mut window = SharedWindow {
            raw,
            segments: Vec::new(),
        };
        // SAFETY: a window just created over `node`.
        unsafe { check("MPI_Win_lock_all", ffi::MPI_Win_lock_all(0, window.raw))? };
        for rank in 0..node.size() {
            let mut segment_size: ffi::MPI_Aint = 0;
            let mut unit: c_int = 0;
            let mut segment: *mut u8 = ptr::null_mut();
            // SAFETY: `rank` is a rank of the window's communicator.
            unsafe {
                check(
                    "MPI_Win_shared_query",
                    ffi::MPI_Win_shared_query(
                        window.raw,
                        rank as c_int,
                        &mut segment_size,
                        &mut unit,
                        (&mut segment as *mut *mut u8).cast(),
                    ),
                )?;
            }
            if segment.is_null() || segment_size < size {
                return Err(Error::Mpi {
                    call: "MPI_Win_shared_query",
                    message: format!(
                        "rank {rank}'s segment is {segment_size} bytes, expected {size}"
                    ),
                });
            }
            window.segments.push(segment);
        }
        Ok(window)
    }

    /// The first byte of `rank`'s segment (`rank` in the node communicator).
    pub fn segment(&self, rank: usize) -> *mut u8 {
        self.segments[rank]
    }

    /// Makes this rank's stores to the window visible to the others, and
    /// theirs to it, across the next barrier.
    pub fn sync(&self) -> Result<()> {
        // SAFETY: a live window in a lock_all epoch.
        unsafe { check("MPI_Win_sync", ffi::MPI_Win_sync(self.raw)) }
    }
}

impl SharedWindow {
    /// Frees the window (collective over the node: every rank must call it,
    /// after its last access to any segment). A window that is dropped
    /// instead, on an error path, is left to `MPI_Abort` or
    /// `MPI_Finalize`: freeing it would wait for ranks that may never come.
    pub fn free(mut self) -> Result<()> {
        // SAFETY: the window this value created, locked by `allocate`; it
        // is not used again.
        unsafe {
            check("MPI_Win_unlock_all", ffi::MPI_Win_unlock_all(self.raw))?;
            check("MPI_Win_free", ffi::MPI_Win_free(&mut self.raw))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_little_shared_memory_is_said_with_the_folder_and_the_bytes() {
        assert!(free_bytes(std::path::Path::new("/")).is_some());
        assert_eq!(free_bytes(std::path::Path::new("/no/such/folder")), None);
        let text = shared_memory_short(std::path::Path::new("/dev/shm/x"), 8388608, Some(2097152));
        assert!(
            text.starts_with(
                "the peer launches' shared-memory window needs 8388608 bytes in /dev/shm/x, \
                 which has 2097152 bytes free: "
            ),
            "{text}"
        );
        assert!(text.contains("COCO_SHM_DIR"), "{text}");
    }
}
