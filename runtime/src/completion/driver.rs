//! The driver calls of completions that `cudarc::driver::result` lacks, in the shape of the
//! crate's thin driver layer (`crate::driver`): each `sys::cu*` call once, its `CUresult` as a
//! `Result` (cudarc's `CUresult::result`). `cuLaunchHostFunc` and `cuEventRecord` are cudarc's
//! (`result::stream::launch_host_function`, `result::event::record`).

use core::ffi::c_void;

use cudarc::driver::DriverError;

use crate::sys;

/// `cuStreamAddCallback`: `callback(stream, status, user)` runs on a driver thread once the work
/// enqueued so far is done, with the stream's error if it failed.
///
/// # Safety
/// `stream` is live; `user` stays valid until the callback has run.
pub(crate) unsafe fn add_callback(
    stream: sys::CUstream,
    callback: sys::CUstreamCallback,
    user: *mut c_void,
) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller; flags must be 0.
    unsafe { sys::cuStreamAddCallback(stream, callback, user, 0) }.result()
}

/// Whether the loaded driver exports `cuLaunchHostFunc_v2` (CUDA 13.2). cudarc panics calling a
/// symbol that the driver lacks, so this is asked first, once.
#[cfg(cuda_13020)]
pub(crate) fn has_host_func_v2() -> bool {
    use std::sync::OnceLock;
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: only looks the symbol up in the already loaded library.
    *PRESENT.get_or_init(|| unsafe {
        sys::culib()
            .get::<unsafe extern "C" fn()>(b"cuLaunchHostFunc_v2")
            .is_ok()
    })
}

/// `cuLaunchHostFunc_v2` with `CU_HOST_TASK_SPINWAIT` (`spin`) or `CU_HOST_TASK_BLOCKING`: how
/// the driver's thread that runs host tasks waits for the next one. Call only where
/// [`has_host_func_v2`].
///
/// # Safety
/// As [`add_callback`].
#[cfg(cuda_13020)]
pub(crate) unsafe fn launch_host_func_v2(
    stream: sys::CUstream,
    f: sys::CUhostFn,
    user: *mut c_void,
    spin: bool,
) -> Result<(), DriverError> {
    use sys::CUhostTaskSyncMode as M;
    let mode = if spin {
        M::CU_HOST_TASK_SPINWAIT
    } else {
        M::CU_HOST_TASK_BLOCKING
    };
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuLaunchHostFunc_v2(stream, f, user, mode as core::ffi::c_uint) }.result()
}

/// `cuStreamWriteValue32`: the stream writes `value` to `address` once the work enqueued so far
/// is done (with a memory barrier: that work's writes are visible first).
///
/// # Safety
/// `stream` is live; `address` is device-visible memory of the stream's context that stays
/// valid (and registered) until the write has happened.
pub(crate) unsafe fn write_value32(
    stream: sys::CUstream,
    address: sys::CUdeviceptr,
    value: u32,
) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller; flags 0 is CU_STREAM_WRITE_VALUE_DEFAULT.
    unsafe { sys::cuStreamWriteValue32_v2(stream, address, value, 0) }.result()
}

/// `cuMemHostRegister` with `CU_MEMHOSTREGISTER_DEVICEMAP`, then `cuMemHostGetDevicePointer`:
/// pins `bytes` at `ptr` in the current context and returns the address the device writes to.
///
/// # Safety
/// `ptr..ptr + bytes` is live host memory that is never freed.
pub(crate) unsafe fn register_mapped(
    ptr: *mut c_void,
    bytes: usize,
) -> Result<sys::CUdeviceptr, DriverError> {
    const DEVICEMAP: core::ffi::c_uint = 0x02;
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuMemHostRegister_v2(ptr, bytes, DEVICEMAP) }.result()?;
    let mut device: sys::CUdeviceptr = 0;
    // SAFETY: the memory was registered with DEVICEMAP just above; `device` is an out-pointer.
    unsafe { sys::cuMemHostGetDevicePointer_v2(&mut device, ptr, 0) }.result()?;
    Ok(device)
}

/// `cuEventQuery`: `Ok(true)` once the recorded work is done, `Ok(false)` while it is not
/// (`CUDA_ERROR_NOT_READY`), the stream's error otherwise.
///
/// # Safety
/// The event is live.
pub(crate) unsafe fn event_done(event: sys::CUevent) -> Result<bool, DriverError> {
    // SAFETY: forwarded from the caller.
    not_ready_is_false(unsafe { sys::cuEventQuery(event) })
}

/// `cuStreamQuery`: as [`event_done`], for everything enqueued on the stream.
///
/// # Safety
/// The stream is live.
pub(crate) unsafe fn stream_done(stream: sys::CUstream) -> Result<bool, DriverError> {
    // SAFETY: forwarded from the caller.
    not_ready_is_false(unsafe { sys::cuStreamQuery(stream) })
}

fn not_ready_is_false(rc: sys::CUresult) -> Result<bool, DriverError> {
    match rc {
        sys::cudaError_enum::CUDA_ERROR_NOT_READY => Ok(false),
        other => other.result().map(|()| true),
    }
}
