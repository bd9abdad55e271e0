//! The launch call: the context check, stream attributes, then `cuLaunchKernelEx` with the
//! attribute array.

use core::ffi::c_void;

use cudarc::driver::{result::DriverError, CudaContext, CudaFunction, CudaStream};

use crate::config::LaunchConfig;
use crate::current::{bind, last_bound};
use crate::driver;
use crate::error::{Error, KernelName};
use crate::explain::{driver_error, explain, stream_attribute_error};
use crate::function::{allow_non_portable_cluster, ensure_shared};
use crate::sys;
use chevron_cuda_spec::limits::{volume, Violation, PORTABLE_CLUSTER_BLOCKS};

/// Launches `func` on `stream` with `config`: checks that the stream's context is current on
/// this thread (binding it where needed), sets the config's stream attributes with
/// `cuStreamSetAttribute`, then calls `cuLaunchKernelEx` with the config's attribute array.
///
/// `params` holds one pointer per kernel parameter, each pointing at the parameter's value (for
/// a device buffer, at its `CUdeviceptr`), as `cuLaunchKernelEx` expects.
///
/// This is the untyped entry under `launch!` and the `launch` functions `#[kernel]` generates.
/// It does not order buffers across streams by itself: the callers do that through cudarc's
/// `DevicePtr`/`DevicePtrMut`, holding the returned guards until after this call.
///
/// What a launch pays besides `cuLaunchKernelEx`: the config's limit check
/// ([`LaunchConfig::validate`]), a comparison with the context this thread last made current
/// (the driver is asked, `cuCtxGetCurrent`, only the first time on a thread and after another
/// context was bound through chevron; a launch that fails because other code changed the current
/// context since is bound and made once more), and, for dynamic shared memory or non-portable
/// clusters, a lookup of what was already set on the function (set once per function). So a
/// launch the driver accepts leaves the thread's current context as other code left it: code
/// that calls the driver directly afterwards binds the context it needs itself (cudarc's calls
/// do).
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
#[inline]
pub unsafe fn launch_named(
    stream: &CudaStream,
    func: &CudaFunction,
    name: Option<&'static str>,
    config: &LaunchConfig<'_>,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    let kernel = KernelName(name);
    let raw = prepare_launch(config, stream.cu_stream(), kernel)?;
    let binding = bind_for_launch(stream, config, kernel)?;
    // One relaxed load unless an SM partition exists (cooperative grids on partitions).
    crate::partition::check_launch(stream, func, kernel, config)?;
    // SAFETY: `raw` points into `config`, alive for the call; `params` is the caller's promise.
    match unsafe { enqueue(stream, func, kernel, config, &raw, params) } {
        Ok(()) => Ok(()),
        // SAFETY: as above.
        Err(failure) => unsafe {
            after_failure(binding, stream, func, kernel, config, &raw, params, failure)
        },
    }
}

/// What a launch does on the host before its first driver call: the config's limit check, then
/// the driver's `CUlaunchConfig` for `stream` (pointing into `config`'s attribute array). Shared
/// with the host-cost benchmark (`benches/host_cost.rs`), which times it without a GPU. Not a
/// public API.
#[doc(hidden)]
#[inline(always)]
pub fn prepare_launch(
    config: &LaunchConfig<'_>,
    stream: sys::CUstream,
    kernel: KernelName,
) -> Result<sys::CUlaunchConfig, Error> {
    match config.validate() {
        Ok(()) => Ok(config.raw(stream)),
        Err(violation) => Err(invalid_config(kernel, violation)),
    }
}

#[cold]
fn invalid_config(kernel: KernelName, violation: Violation) -> Error {
    Error::InvalidConfig { kernel, violation }
}

/// How a launch found its context current.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Binding {
    /// Asked the driver (`cuCtxGetCurrent`) and bound it if needed.
    Checked,
    /// This thread's last bind through chevron was this context; the driver was not asked.
    Assumed,
}

/// The context bind of a launch: when this thread last bound the stream's context, only cudarc's
/// recorded error is checked (an atomic swap) and the driver is not asked. A stream attribute on
/// a stream that stands for the current context's (the NULL, legacy or per-thread handle) always
/// asks: `cuStreamSetAttribute` on such a handle would reach another context's stream, and
/// succeed, if that context had become current.
#[inline(always)]
fn bind_for_launch(
    stream: &CudaStream,
    config: &LaunchConfig<'_>,
    kernel: KernelName,
) -> Result<Binding, Error> {
    let ctx = stream.context();
    // The NULL stream, `CU_STREAM_LEGACY` (1) and `CU_STREAM_PER_THREAD` (2).
    let names_current = stream.cu_stream() as usize <= 2;
    let may_assume = !names_current || config.stream_attributes().is_empty();
    if may_assume && last_bound(ctx) {
        match ctx.check_err() {
            Ok(()) => Ok(Binding::Assumed),
            Err(e) => Err(driver_error("cuCtxSetCurrent", kernel, ctx, e)),
        }
    } else {
        bind_checked(ctx, kernel)
    }
}

#[cold]
#[inline(never)]
fn bind_checked(ctx: &CudaContext, kernel: KernelName) -> Result<Binding, Error> {
    bind(ctx, kernel).map(|()| Binding::Checked)
}

/// Why the driver part of a launch failed.
enum Failure {
    /// A step before the launch, its error already made.
    Step(Error),
    /// `cuLaunchKernelEx`, to be explained.
    Launch(DriverError),
}

/// The driver part of a launch: the function's one-time settings (dynamic shared memory,
/// non-portable clusters), the stream attributes, `cuLaunchKernelEx`. Run again as a whole
/// after a rebind, so each step is idempotent.
///
/// # Safety
/// `raw` points into `config`; `params` matches the kernel's parameters.
#[inline(always)]
unsafe fn enqueue(
    stream: &CudaStream,
    func: &CudaFunction,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
    raw: &sys::CUlaunchConfig,
    params: &mut [*mut c_void],
) -> Result<(), Failure> {
    let shared = config.shared_bytes();
    if shared > 0 {
        ensure_shared(stream.context(), func, shared, kernel, config).map_err(Failure::Step)?;
    }
    if config.allows_non_portable_cluster() {
        let blocks = config.cluster().map_or(1, |c| volume([c.x, c.y, c.z]));
        if blocks > u128::from(PORTABLE_CLUSTER_BLOCKS) {
            allow_non_portable_cluster(stream.context(), func, kernel).map_err(Failure::Step)?;
        }
    }
    for (id, value) in config.stream_attributes() {
        driver::set_stream_attribute(stream, *id, value).map_err(|source| {
            Failure::Step(stream_attribute_error(
                "cuStreamSetAttribute",
                *id,
                Some(value),
                kernel,
                source,
            ))
        })?;
    }
    // SAFETY: forwarded from the caller.
    unsafe { driver::launch_kernel_ex(raw, func, params) }.map_err(Failure::Launch)
}

/// A failed launch: when the context was assumed current and is not (other code bound another
/// one, or none, since this thread's last chevron launch), binds it and runs the driver part
/// once more; then the failure that remains, a launch error explained with the numbers.
///
/// # Safety
/// As [`enqueue`].
#[cold]
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn after_failure(
    binding: Binding,
    stream: &CudaStream,
    func: &CudaFunction,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
    raw: &sys::CUlaunchConfig,
    params: &mut [*mut c_void],
    failure: Failure,
) -> Result<(), Error> {
    let ctx = stream.context();
    let mut failure = failure;
    let moved = binding == Binding::Assumed
        && !matches!(cudarc::driver::result::ctx::get_current(), Ok(Some(c)) if c == ctx.cu_ctx());
    if moved {
        bind(ctx, kernel)?;
        // SAFETY: forwarded from the caller.
        match unsafe { enqueue(stream, func, kernel, config, raw, params) } {
            Ok(()) => return Ok(()),
            Err(again) => failure = again,
        }
    }
    match failure {
        Failure::Step(e) => Err(e),
        Failure::Launch(source) => Err(explain(stream, func, kernel, config, source)),
    }
}
