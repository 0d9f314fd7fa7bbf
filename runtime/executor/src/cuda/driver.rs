//! The few CUDA driver and NCCL calls the backend makes, with their results
//! turned into [`Error`]s that name the call: availability, allocations,
//! streams, events, copies, and the mapping of plan types and reductions to
//! NCCL's.

use coco_bundle::{DType, Reduction};
use cudarc::driver::sys as cu;
use cudarc::nccl::sys as nccl;

use super::strided::Copy2d;
use crate::error::{Error, Result};

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

pub fn check(result: cu::CUresult, call: &str) -> Result<()> {
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

pub fn check_nccl(result: nccl::ncclResult_t, call: &str) -> Result<()> {
    if result == nccl::ncclResult_t::ncclSuccess {
        Ok(())
    } else {
        Err(Error::Kernel(format!("NCCL: {call} failed: {result:?}")))
    }
}

pub fn nccl_type(dtype: DType) -> nccl::ncclDataType_t {
    use nccl::ncclDataType_t as T;
    match dtype {
        DType::F64 => T::ncclFloat64,
        DType::F32 => T::ncclFloat32,
        DType::F16 => T::ncclFloat16,
        DType::BF16 => T::ncclBfloat16,
        DType::I64 => T::ncclInt64,
        DType::I32 => T::ncclInt32,
        DType::I1 => T::ncclUint8,
    }
}

pub fn nccl_op(reduction: Reduction) -> nccl::ncclRedOp_t {
    use nccl::ncclRedOp_t as O;
    match reduction {
        Reduction::Sum => O::ncclSum,
        Reduction::Prod => O::ncclProd,
        Reduction::Min => O::ncclMin,
        Reduction::Max => O::ncclMax,
        Reduction::Avg => O::ncclAvg,
    }
}

/// `bytes` (at least 1) of device memory; the caller frees it.
pub fn allocate(bytes: usize) -> Result<cu::CUdeviceptr> {
    let mut ptr = 0;
    // SAFETY: an out-pointer to a local.
    check(
        unsafe { cu::cuMemAlloc_v2(&mut ptr, bytes.max(1)) },
        "cuMemAlloc",
    )?;
    Ok(ptr)
}

/// A stream that does not synchronise with the legacy default stream.
pub fn stream() -> Result<cu::CUstream> {
    let mut stream = std::ptr::null_mut();
    // SAFETY: an out-pointer to a local; 1 = CU_STREAM_NON_BLOCKING.
    check(
        unsafe { cu::cuStreamCreate(&mut stream, 1) },
        "cuStreamCreate",
    )?;
    Ok(stream)
}

/// An event for ordering only.
pub fn event() -> Result<cu::CUevent> {
    let mut event = std::ptr::null_mut();
    // SAFETY: an out-pointer to a local; 2 = CU_EVENT_DISABLE_TIMING.
    check(unsafe { cu::cuEventCreate(&mut event, 2) }, "cuEventCreate")?;
    Ok(event)
}

/// The largest pitch `cuMemcpy2D` takes on the current device.
pub fn max_pitch(device: cu::CUdevice) -> Result<usize> {
    let mut pitch = 0;
    // SAFETY: an out-pointer to a local.
    check(
        unsafe {
            cu::cuDeviceGetAttribute(
                &mut pitch,
                cu::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_PITCH,
                device,
            )
        },
        "cuDeviceGetAttribute(MAX_PITCH)",
    )?;
    Ok(usize::try_from(pitch).unwrap_or(0))
}

/// Enqueues `copy` on `stream`, its source at `src` and destination at
/// `dst`: one linear copy when both sides are contiguous, one 2-D copy
/// when the pitches are within `max_pitch`, else one linear copy per row.
///
/// # Safety
/// The source and destination rows lie inside live device allocations.
pub unsafe fn copy(
    copy: &Copy2d,
    src: cu::CUdeviceptr,
    dst: cu::CUdeviceptr,
    max_pitch: usize,
    stream: cu::CUstream,
) -> Result<()> {
    if copy.bytes() == 0 {
        return Ok(());
    }
    if copy.is_linear() {
        return check(
            cu::cuMemcpyDtoDAsync_v2(dst, src, copy.bytes(), stream),
            "cuMemcpyDtoDAsync",
        );
    }
    if copy.src_pitch > max_pitch || copy.dst_pitch > max_pitch {
        for row in 0..copy.height {
            check(
                cu::cuMemcpyDtoDAsync_v2(
                    dst + (row * copy.dst_pitch) as u64,
                    src + (row * copy.src_pitch) as u64,
                    copy.width,
                    stream,
                ),
                "cuMemcpyDtoDAsync",
            )?;
        }
        return Ok(());
    }
    let params = cu::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: cu::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        srcHost: std::ptr::null(),
        srcDevice: src,
        srcArray: std::ptr::null_mut(),
        srcPitch: copy.src_pitch,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: cu::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        dstHost: std::ptr::null_mut(),
        dstDevice: dst,
        dstArray: std::ptr::null_mut(),
        dstPitch: copy.dst_pitch,
        WidthInBytes: copy.width,
        Height: copy.height,
    };
    check(cu::cuMemcpy2DAsync_v2(&params, stream), "cuMemcpy2DAsync")
}
