//! The launch call: stream attributes, then `cuLaunchKernelEx` with the attribute array.

use core::ffi::c_void;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaStream};

use crate::config::LaunchConfig;
use crate::driver;
use crate::error::{Error, KernelName};
use crate::explain::explain;
use crate::kernel::{function_info, FunctionInfo};
use crate::sys;
use chevron_cuda_spec::limits::{volume, PORTABLE_CLUSTER_BLOCKS};

/// Whether the CUDA driver library can be loaded; checked once per process.
pub fn driver_present() -> bool {
    use std::sync::OnceLock;
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(driver::culib_present)
}

/// `Err(Error::NoDriver)` unless the driver library can be loaded. Call before anything that
/// would make cudarc load it (cudarc panics when it is missing).
pub fn ensure_driver() -> Result<(), Error> {
    if driver_present() {
        Ok(())
    } else {
        Err(Error::NoDriver)
    }
}

/// Opens the primary context of device `ordinal`: `Error::NoDriver` on a machine without a CUDA
/// driver, where cudarc's `CudaContext::new` would panic.
///
/// ```
/// match chevron::context(0) {
///     Ok(ctx) => println!("{}", ctx.name().unwrap_or_default()),
///     Err(chevron::Error::NoDriver) => println!("no GPU here"),
///     Err(e) => println!("{e}"),
/// }
/// ```
pub fn context(ordinal: usize) -> Result<Arc<CudaContext>, Error> {
    ensure_driver()?;
    CudaContext::new(ordinal).map_err(|e| Error::driver("cuCtxCreate", KernelName(None), e))
}

/// Launches `func` on `stream` with `config`: binds the stream's context to the thread, sets the
/// config's stream attributes with `cuStreamSetAttribute`, then calls `cuLaunchKernelEx` with the
/// config's attribute array.
///
/// `params` holds one pointer per kernel parameter, each pointing at the parameter's value (for
/// a device buffer, at its `CUdeviceptr`), as `cuLaunchKernelEx` expects.
///
/// This is the untyped entry under `launch!` and the `launch` functions `#[kernel]` generates.
/// It does not order buffers across streams by itself: the callers do that through cudarc's
/// `DevicePtr`/`DevicePtrMut`, holding the returned guards until after this call.
///
/// # Safety
/// `params` must match the kernel's parameters in number, order and layout, and the kernel must
/// only touch memory it is allowed to; nothing here can check either.
pub unsafe fn launch_function(
    stream: &CudaStream,
    func: &CudaFunction,
    config: &LaunchConfig<'_>,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    // SAFETY: forwarded from the caller.
    unsafe { launch_named(stream, func, None, config, params) }
}

/// [`launch_function`] with the kernel's name for messages.
///
/// # Safety
/// As [`launch_function`].
pub unsafe fn launch_named(
    stream: &CudaStream,
    func: &CudaFunction,
    name: Option<&'static str>,
    config: &LaunchConfig<'_>,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    let kernel = KernelName(name);
    if let Err(violation) = config.validate() {
        return Err(Error::InvalidConfig { kernel, violation });
    }
    let ctx = stream.context();
    ctx.bind_to_thread()
        .map_err(|e| crate::explain::driver_error("cuCtxSetCurrent", kernel, ctx, e))?;
    let shared = config.shared_bytes();
    if shared > 0 {
        ensure_shared(ctx, func, shared, kernel)?;
    }
    if config.allows_non_portable_cluster() {
        let blocks = config.cluster().map_or(1, |c| volume([c.x, c.y, c.z]));
        if blocks > u128::from(PORTABLE_CLUSTER_BLOCKS) {
            driver::allow_non_portable_cluster(func)
                .map_err(|e| Error::driver("cuFuncSetAttribute", kernel, e))?;
        }
    }
    for (id, value) in config.stream_attributes() {
        driver::set_stream_attribute(stream, *id, value, kernel)?;
    }
    let raw = config.raw(stream.cu_stream());
    // SAFETY: `raw` points at live arrays; `params` is the caller's promise.
    match unsafe { driver::launch_kernel_ex(&raw, func, params) } {
        Ok(()) => Ok(()),
        Err(source) => Err(explain(stream, func, kernel, config, source)),
    }
}

/// Makes `shared` bytes of dynamic shared memory available to `func`: above the driver's default
/// (48 KiB minus the kernel's static shared memory) it needs
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, set here the first time a launch asks for
/// that much; static + dynamic over the device's opt-in limit is refused with the numbers.
/// Afterwards a launch asking for at most as much finds the function's entry and compares once.
/// The function's context must be current.
#[inline]
pub(crate) fn ensure_shared(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    shared: u32,
    kernel: KernelName,
) -> Result<(), Error> {
    let info = function_info(func);
    if shared <= info.dynamic_shared.load(Ordering::Relaxed) {
        return Ok(());
    }
    opt_in_shared(ctx, func, info, shared, kernel)
}

#[cold]
fn opt_in_shared(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    info: &FunctionInfo,
    shared: u32,
    kernel: KernelName,
) -> Result<(), Error> {
    use sys::CUfunction_attribute::{
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES as MAX_DYNAMIC,
        CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES as STATIC,
    };
    let attribute = |attr| {
        driver::function_attribute(func, attr)
            .map(|v| v.max(0) as u32)
            .map_err(|e| Error::driver("cuFuncGetAttribute", kernel, e))
    };
    let static_bytes = attribute(STATIC)?;
    let limit = ctx
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        .map_err(|e| Error::driver("cuDeviceGetAttribute", kernel, e))?
        .max(0) as u32;
    if u64::from(static_bytes) + u64::from(shared) > u64::from(limit) {
        return Err(Error::SharedMemoryTooLarge {
            kernel,
            static_bytes,
            dynamic_bytes: shared,
            limit,
        });
    }
    if shared > attribute(MAX_DYNAMIC)? {
        driver::set_max_dynamic_shared(func, shared).map_err(|e| Error::Driver {
            call: "cuFuncSetAttribute",
            kernel,
            attributes: "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES".to_string(),
            source: e,
        })?;
    }
    info.dynamic_shared.fetch_max(shared, Ordering::Relaxed);
    Ok(())
}

/// Whether `stream` is capturing a graph.
pub fn is_capturing(stream: &CudaStream) -> bool {
    driver::stream_capture_status(stream)
        .is_ok_and(|s| s == sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE)
}
