//! SM partitions (CUDA 12.5): the device's SMs, split into groups, green contexts and their
//! streams.

use cudarc::driver::result::DriverError;
use cudarc::driver::CudaStream;

use crate::sys;

/// The SM resource of device `dev` (`cuDeviceGetDevResource`, `CU_DEV_RESOURCE_TYPE_SM`).
#[cfg(cuda_12050)]
pub(crate) fn device_sm_resource(dev: sys::CUdevice) -> Result<sys::CUdevResource, DriverError> {
    // SAFETY: a plain C struct, all zeros valid; the driver fills it.
    let mut res: sys::CUdevResource = unsafe { core::mem::zeroed() };
    // SAFETY: an out-pointer to a local.
    check(unsafe {
        sys::cuDeviceGetDevResource(
            dev,
            &mut res,
            sys::CUdevResourceType::CU_DEV_RESOURCE_TYPE_SM,
        )
    })?;
    Ok(res)
}

/// `cuDevSmResourceSplitByCount` into one group of at least `min_count` SMs (rounded up to the
/// driver's granularity) and the remainder.
#[cfg(cuda_12050)]
pub(crate) fn split_sms(
    input: &sys::CUdevResource,
    min_count: u32,
) -> Result<(sys::CUdevResource, sys::CUdevResource), DriverError> {
    // SAFETY: plain C structs, all zeros valid; the driver fills them.
    let (mut group, mut rest): (sys::CUdevResource, sys::CUdevResource) =
        unsafe { (core::mem::zeroed(), core::mem::zeroed()) };
    let mut groups = 1u32;
    // SAFETY: one result slot for `groups` = 1, out-pointers to locals, `input` from the driver.
    check(unsafe {
        sys::cuDevSmResourceSplitByCount(&mut group, &mut groups, input, &mut rest, 0, min_count)
    })?;
    if groups != 1 {
        return Err(DriverError(sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE));
    }
    Ok((group, rest))
}

/// The SMs of an SM resource.
#[cfg(cuda_12050)]
pub(crate) fn sm_count(res: &sys::CUdevResource) -> u32 {
    // SAFETY: an SM resource (every resource here is): the union holds `sm`.
    unsafe { res.__bindgen_anon_1.sm.smCount }
}

/// A green context of `dev` on the SMs of `res` (`cuDevResourceGenerateDesc`, then
/// `cuGreenCtxCreate` with its default stream).
#[cfg(cuda_12050)]
pub(crate) fn green_context(
    dev: sys::CUdevice,
    res: &sys::CUdevResource,
) -> Result<sys::CUgreenCtx, DriverError> {
    let mut res = *res;
    let mut desc: sys::CUdevResourceDesc = core::ptr::null_mut();
    // SAFETY: one resource from a split of this device; out-pointer to a local.
    check(unsafe { sys::cuDevResourceGenerateDesc(&mut desc, &mut res, 1) })?;
    let mut green: sys::CUgreenCtx = core::ptr::null_mut();
    // SAFETY: `desc` was just generated for this device.
    check(unsafe {
        sys::cuGreenCtxCreate(
            &mut green,
            desc,
            dev,
            sys::CUgreenCtxCreate_flags::CU_GREEN_CTX_DEFAULT_STREAM as u32,
        )
    })?;
    Ok(green)
}

/// `cuGreenCtxDestroy`.
///
/// # Safety
/// `green` is live and nothing uses it or its streams afterwards.
#[cfg(cuda_12050)]
pub(crate) unsafe fn green_context_destroy(green: sys::CUgreenCtx) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller.
    check(unsafe { sys::cuGreenCtxDestroy(green) })
}

/// A non-blocking stream whose work runs on `green`'s SMs (`cuGreenCtxStreamCreate`).
///
/// # Safety
/// `green` is live.
#[cfg(cuda_12050)]
pub(crate) unsafe fn green_stream(
    green: sys::CUgreenCtx,
    priority: i32,
) -> Result<sys::CUstream, DriverError> {
    let mut stream: sys::CUstream = core::ptr::null_mut();
    // SAFETY: forwarded from the caller; an out-pointer to a local.
    check(unsafe {
        sys::cuGreenCtxStreamCreate(
            &mut stream,
            green,
            sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32,
            priority,
        )
    })?;
    Ok(stream)
}

/// `cuStreamDestroy`, for the streams chevron made outside cudarc.
///
/// # Safety
/// Nothing uses `stream` afterwards.
#[cfg(cuda_12050)]
pub(crate) unsafe fn stream_destroy(stream: sys::CUstream) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller.
    check(unsafe { sys::cuStreamDestroy_v2(stream) })
}

/// The green context of `stream` (`cuStreamGetGreenCtx`): null for a stream of a whole device.
#[cfg(cuda_12050)]
pub(crate) fn stream_green_context(stream: &CudaStream) -> Result<sys::CUgreenCtx, DriverError> {
    let mut green: sys::CUgreenCtx = core::ptr::null_mut();
    // SAFETY: the stream is live; an out-pointer to a local.
    check(unsafe { sys::cuStreamGetGreenCtx(stream.cu_stream(), &mut green) })?;
    Ok(green)
}

/// The SMs of green context `green` (`cuGreenCtxGetDevResource`).
///
/// # Safety
/// `green` is live.
#[cfg(cuda_12050)]
pub(crate) unsafe fn green_context_sms(green: sys::CUgreenCtx) -> Result<u32, DriverError> {
    // SAFETY: a plain C struct, all zeros valid; the driver fills it.
    let mut res: sys::CUdevResource = unsafe { core::mem::zeroed() };
    // SAFETY: forwarded from the caller; an out-pointer to a local.
    check(unsafe {
        sys::cuGreenCtxGetDevResource(
            green,
            &mut res,
            sys::CUdevResourceType::CU_DEV_RESOURCE_TYPE_SM,
        )
    })?;
    Ok(sm_count(&res))
}

/// `CUDA_SUCCESS` or the driver's error, for the calls above that cudarc's `result` lacks.
#[cfg(cuda_12050)]
#[inline]
fn check(rc: sys::CUresult) -> Result<(), DriverError> {
    rc.result()
}
