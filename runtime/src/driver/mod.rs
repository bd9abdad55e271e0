//! The thin driver layer, what every other folder may ask first: here the driver calls cudarc
//! lacks; `device`: whether the driver library is there, opening a device's context, whether a
//! stream is capturing; `current`: the context chevron last made current on this thread.
//!
//! The driver calls `cudarc::driver::result` lacks, in its shape: each `sys::cu*` call once, its
//! `CUresult` as a `Result<_, DriverError>` (cudarc's `CUresult::result`). Where cudarc's
//! `result` module has the call, the runtime calls it directly (`cudarc::driver::result as cu`);
//! what a failure means is said in one place, `launch/explain.rs`. CUDA versions are told apart
//! by the build script's `cfg`s (`cfg(cuda_12030)`: CUDA 12.3 or later), as everywhere in the
//! crate.

use core::ffi::c_void;

use cudarc::driver::result::DriverError;
use cudarc::driver::{CudaFunction, CudaStream};

use crate::sys;

pub(crate) mod current;
pub(crate) mod device;

/// Whether the driver library can be loaded.
pub(crate) fn culib_present() -> bool {
    // SAFETY: only tries to open the library by its usual names.
    unsafe { sys::is_culib_present() }
}

/// `cuLaunchKernelEx`.
///
/// # Safety
/// `config` points at live arrays; `params` matches the kernel's parameters.
#[inline]
pub(crate) unsafe fn launch_kernel_ex(
    config: &sys::CUlaunchConfig,
    func: &CudaFunction,
    params: &mut [*mut c_void],
) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller.
    unsafe {
        sys::cuLaunchKernelEx(
            config,
            func.cu_function(),
            params.as_mut_ptr(),
            core::ptr::null_mut(),
        )
    }
    .result()
}

/// `cuStreamSetAttribute`, the one setter of `launch` and `set_stream_attribute` (a failure is
/// explained by `explain::stream_attribute_error`).
pub(crate) fn set_stream_attribute(
    stream: &CudaStream,
    id: sys::CUstreamAttrID,
    value: &sys::CUstreamAttrValue,
) -> Result<(), DriverError> {
    // SAFETY: the stream is live; callers build `value` for `id`.
    unsafe { sys::cuStreamSetAttribute(stream.cu_stream(), id, value) }.result()
}

/// `cuStreamGetAttribute`.
pub(crate) fn stream_attribute(
    stream: &CudaStream,
    id: sys::CUstreamAttrID,
) -> Result<sys::CUstreamAttrValue, DriverError> {
    let mut value = sys::CUstreamAttrValue { pad: [0; 64] };
    // SAFETY: the stream is live and `value` is a valid out-pointer of the right type.
    unsafe { sys::cuStreamGetAttribute(stream.cu_stream(), id, &mut value) }
        .result()
        .map(|()| value)
}

/// The size in bytes of each of `func`'s parameters, from `cuFuncGetParamInfo` (CUDA 12.4):
/// `None` where the driver does not have the call.
#[cfg(cuda_12040)]
pub(crate) fn param_sizes(func: &CudaFunction) -> Result<Option<Vec<u32>>, DriverError> {
    use std::sync::OnceLock;
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // cudarc panics calling a symbol that an older driver lacks, so look it up first.
    // SAFETY: only looks the symbol up in the already loaded library.
    let present = *PRESENT.get_or_init(|| unsafe {
        sys::culib()
            .get::<unsafe extern "C" fn()>(b"cuFuncGetParamInfo")
            .is_ok()
    });
    if !present {
        return Ok(None);
    }
    let mut sizes = Vec::new();
    loop {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: the function handle is live; the out-pointers are valid.
        let rc = unsafe {
            sys::cuFuncGetParamInfo(func.cu_function(), sizes.len(), &mut offset, &mut size)
        };
        match rc {
            sys::cudaError_enum::CUDA_SUCCESS => {
                sizes.push(u32::try_from(size).unwrap_or(u32::MAX));
            }
            // The index past the last parameter.
            sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE => return Ok(Some(sizes)),
            other => other.result()?,
        }
    }
}

/// Before CUDA 12.4 there is no `cuFuncGetParamInfo`: nothing to check against.
#[cfg(not(cuda_12040))]
pub(crate) fn param_sizes(_func: &CudaFunction) -> Result<Option<Vec<u32>>, DriverError> {
    Ok(None)
}

/// `cuOccupancyMaxActiveClusters` with a full launch configuration (attributes included, which
/// cudarc's helper leaves out).
pub(crate) fn max_active_clusters(
    func: &CudaFunction,
    config: &sys::CUlaunchConfig,
) -> Result<i32, DriverError> {
    let mut clusters = 0;
    // SAFETY: `config` points at live arrays; the function handle is live.
    unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, func.cu_function(), config) }
        .result()
        .map(|()| clusters)
}

/// `cuDriverGetVersion`: the CUDA version of the installed driver (`13000` for 13.0).
pub(crate) fn driver_version() -> Result<i32, DriverError> {
    let mut version = 0;
    // SAFETY: a valid out-pointer.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map(|()| version)
}

/// [`driver_version`] asked once per process (`None` if the call fails): for checks on a launch
/// path, where a second call would cost every launch.
pub(crate) fn driver_version_once() -> Option<i32> {
    static VERSION: std::sync::OnceLock<Option<i32>> = std::sync::OnceLock::new();
    *VERSION.get_or_init(|| driver_version().ok())
}

// The calls of graphs, the linker, conditional nodes and SM partitions, each in a file.
mod build;
mod graph;
mod link;
pub(crate) use build::*;
pub(crate) use graph::*;
pub(crate) use link::*;
#[cfg(cuda_12030)]
mod conditional;
#[cfg(cuda_12030)]
pub(crate) use conditional::*;
#[cfg(cuda_12050)]
mod partition;
#[cfg(cuda_12050)]
pub(crate) use partition::*;
