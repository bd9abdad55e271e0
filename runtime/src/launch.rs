//! The launch call: stream attributes, then `cuLaunchKernelEx` with the attribute array.

use core::ffi::c_void;

use cudarc::driver::{CudaFunction, CudaStream};

use crate::config::LaunchConfig;
use crate::driver;
use crate::error::{Error, KernelName};
use crate::explain::{explain, stream_attribute_error};
use crate::function::{allow_non_portable_cluster, ensure_shared};
use chevron_cuda_spec::limits::{volume, PORTABLE_CLUSTER_BLOCKS};

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
            allow_non_portable_cluster(func)
                .map_err(|e| Error::driver("cuFuncSetAttribute", kernel, e))?;
        }
    }
    for (id, value) in config.stream_attributes() {
        driver::set_stream_attribute(stream, *id, value).map_err(|source| {
            stream_attribute_error("cuStreamSetAttribute", *id, Some(value), kernel, source)
        })?;
    }
    let raw = config.raw(stream.cu_stream());
    // SAFETY: `raw` points at live arrays; `params` is the caller's promise.
    match unsafe { driver::launch_kernel_ex(&raw, func, params) } {
        Ok(()) => Ok(()),
        Err(source) => Err(explain(stream, func, kernel, config, source)),
    }
}
