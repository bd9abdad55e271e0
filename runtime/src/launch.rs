//! The launch call: stream attributes, then `cuLaunchKernelEx` with the attribute array.

use core::ffi::c_void;
use std::cell::Cell;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use cudarc::driver::{result::DriverError, CudaContext, CudaFunction, CudaStream};

use crate::config::LaunchConfig;
use crate::driver;
use crate::error::{Error, KernelName};
use crate::explain::explain;
use crate::kernel::{function_info, FunctionInfo};
use crate::sys;
use chevron_cuda_spec::limits::{volume, Violation, PORTABLE_CLUSTER_BLOCKS};

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
/// match chevron_cuda_runtime::context(0) {
///     Ok(ctx) => println!("{}", ctx.name().unwrap_or_default()),
///     Err(chevron_cuda_runtime::Error::NoDriver) => println!("no GPU here"),
///     Err(e) => println!("{e}"),
/// }
/// ```
pub fn context(ordinal: usize) -> Result<Arc<CudaContext>, Error> {
    ensure_driver()?;
    CudaContext::new(ordinal).map_err(|e| Error::driver("cuCtxCreate", KernelName(None), e))
}

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
    if let Err(violation) = config.validate() {
        return Err(invalid_config(kernel, violation));
    }
    // SAFETY: forwarded from the caller; the config was just checked.
    unsafe { launch_valid(stream, func, kernel, config, params) }
}

/// A typed launch whose config passed its checks (the limits, the kernel's rules: see
/// [`crate::Kernel::__check`]) and whose function is resolved, while it takes its arguments.
/// Only `__check` makes one, so a launch through it is never unchecked. Not a public API.
#[doc(hidden)]
#[must_use = "a checked launch does nothing until `launch` is called"]
pub struct Checked<'a> {
    stream: &'a CudaStream,
    func: &'a CudaFunction,
    config: &'a LaunchConfig<'a>,
    kernel: KernelName,
}

impl<'a> Checked<'a> {
    #[inline(always)]
    pub(crate) fn new(
        stream: &'a CudaStream,
        func: &'a CudaFunction,
        config: &'a LaunchConfig<'a>,
        kernel: KernelName,
    ) -> Self {
        Self {
            stream,
            func,
            config,
            kernel,
        }
    }

    /// Launches with `params`: [`launch_function`] without its limit check, done already.
    ///
    /// # Safety
    /// As [`launch_function`].
    #[inline(always)]
    pub unsafe fn launch(self, params: &mut [*mut c_void]) -> Result<(), Error> {
        // SAFETY: forwarded from the caller; the config was checked by `__check`.
        unsafe { launch_valid(self.stream, self.func, self.kernel, self.config, params) }
    }
}

/// [`launch_named`] after the config's limit check.
///
/// The common launch first, in a straight line: no dynamic shared memory, no non-portable
/// cluster, no stream attribute, on a thread whose last bind through chevron was the stream's
/// context. It checks cudarc's recorded error and calls `cuLaunchKernelEx`, nothing else. Any
/// other launch takes the general path out of line ([`launch_general`]), which does the same and
/// what the config asks besides; a failed launch goes to [`after_failure`] from either.
///
/// # Safety
/// As [`launch_function`], and `config` passed [`LaunchConfig::validate`].
#[inline(never)]
unsafe fn launch_valid(
    stream: &CudaStream,
    func: &CudaFunction,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    let ctx = stream.context();
    if !(config.is_plain() & (BOUND.get() == ctx.cu_ctx() as usize)) {
        // SAFETY: forwarded from the caller.
        return unsafe { launch_general(stream, func, kernel, config, params) };
    }
    // What `bind_for_launch` does for a context it may assume current.
    if let Err(e) = ctx.check_err() {
        return Err(recorded_error(ctx, kernel, e));
    }
    let raw = config.raw(stream.cu_stream());
    // SAFETY: `raw` points into `config`, alive for the call; `params` is the caller's promise.
    match unsafe { driver::launch_kernel_ex(&raw, func, params) } {
        Ok(()) => Ok(()),
        // SAFETY: as above; what `enqueue` would have done found no step to take.
        Err(e) => unsafe {
            after_failure(
                Binding::Assumed,
                stream,
                func,
                kernel,
                config,
                &raw,
                params,
                Failure::Launch(e),
            )
        },
    }
}

/// Any launch: the context bind (asking the driver where the thread's last bind through
/// chevron was another context), the function's one-time settings and the stream attributes
/// ([`enqueue`]), then `cuLaunchKernelEx`, and on a failure [`after_failure`].
///
/// # Safety
/// As [`launch_valid`].
#[inline(never)]
unsafe fn launch_general(
    stream: &CudaStream,
    func: &CudaFunction,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    let raw = config.raw(stream.cu_stream());
    let binding = bind_for_launch(stream, config, kernel)?;
    // SAFETY: `raw` points into `config`, alive for the call; `params` is the caller's promise.
    match unsafe { enqueue(stream, func, kernel, config, &raw, params) } {
        Ok(()) => Ok(()),
        // SAFETY: as above.
        Err(failure) => unsafe {
            after_failure(binding, stream, func, kernel, config, &raw, params, failure)
        },
    }
}

/// An error cudarc recorded (in a `Drop`) and `check_err` returned, as a bind reports it.
#[cold]
#[inline(never)]
fn recorded_error(ctx: &CudaContext, kernel: KernelName, e: DriverError) -> Error {
    crate::explain::driver_error("cuCtxSetCurrent", kernel, ctx, e)
}

#[cold]
fn invalid_config(kernel: KernelName, violation: Violation) -> Error {
    Error::InvalidConfig { kernel, violation }
}

thread_local! {
    /// The context chevron last made current on this thread (its `CUcontext` as an address; 0:
    /// none yet). Only a hint: other code may bind another context since, which a failed launch
    /// finds out (see [`after_failure`]).
    static BOUND: Cell<usize> = const { Cell::new(0) };
}

/// How a launch found its context current.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Binding {
    /// Asked the driver (`cuCtxGetCurrent`) and bound it if needed.
    Checked,
    /// This thread's last bind through chevron was this context; the driver was not asked.
    Assumed,
}

/// Makes `ctx` current on this thread (cudarc's `bind_to_thread`: `cuCtxGetCurrent`, then
/// `cuCtxSetCurrent` where another context is current), and remembers it for this thread. Also
/// reports an error cudarc recorded where it could not return one (in a `Drop`).
pub(crate) fn bind(ctx: &CudaContext, kernel: KernelName) -> Result<(), Error> {
    ctx.bind_to_thread()
        .map_err(|e| crate::explain::driver_error("cuCtxSetCurrent", kernel, ctx, e))?;
    BOUND.set(ctx.cu_ctx() as usize);
    Ok(())
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
    if may_assume && BOUND.get() == ctx.cu_ctx() as usize {
        match ctx.check_err() {
            Ok(()) => Ok(Binding::Assumed),
            Err(e) => Err(recorded_error(ctx, kernel, e)),
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
        driver::set_stream_attribute(stream, *id, value, kernel).map_err(Failure::Step)?;
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

/// Makes `shared` bytes of dynamic shared memory available to `func`: above the driver's default
/// (48 KiB minus the kernel's static shared memory) it needs
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, set here the first time a launch asks for
/// that much; static + dynamic over the device's opt-in limit is refused with the numbers.
/// Afterwards a launch asking for at most as much finds the function's entry and compares once.
/// Raises of one function are serialised ([`crate::kernel::SharedOptIn`]), so concurrent
/// launches asking different sizes leave it at the largest.
/// With CUDA 13.4, a launch whose `shared_memory_mode` (or else the function's) allows oversized
/// shared memory may go up to the device's oversized limit instead. The function's context must
/// be current.
#[inline]
pub(crate) fn ensure_shared(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    shared: u32,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
) -> Result<(), Error> {
    let info = function_info(func);
    if info.shared.covers(shared) {
        return Ok(());
    }
    opt_in_shared(ctx, func, info, shared, kernel, config)
}

#[cold]
#[inline(never)]
fn opt_in_shared(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    info: &FunctionInfo,
    shared: u32,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
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
    let allowed = || {
        // The function attribute calls want the function's context current; a launch may only
        // have assumed it.
        bind(ctx, kernel)?;
        let static_bytes = attribute(STATIC)?;
        #[cfg_attr(not(cuda_13040), allow(unused_mut))]
        let mut limit = ctx
            .attribute(
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )
            .map_err(|e| Error::driver("cuDeviceGetAttribute", kernel, e))?
            .max(0) as u32;
        #[cfg(cuda_13040)]
        if u64::from(static_bytes) + u64::from(shared) > u64::from(limit) {
            let mode = config.launch_value(<crate::SharedMemoryMode as crate::Attribute>::KIND.id);
            if crate::function_attr::oversized_allowed(
                func,
                mode.map(|v| crate::attr::u32_at(v, 0)),
            ) {
                use sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK as OVERSIZED;
                if let Ok(oversized) = ctx.attribute(OVERSIZED) {
                    limit = limit.max(oversized.max(0) as u32);
                }
            }
        }
        #[cfg(not(cuda_13040))]
        let _ = config;
        if u64::from(static_bytes) + u64::from(shared) > u64::from(limit) {
            return Err(Error::SharedMemoryTooLarge {
                kernel,
                static_bytes,
                dynamic_bytes: shared,
                limit,
            });
        }
        attribute(MAX_DYNAMIC)
    };
    let set = |bytes| {
        driver::set_max_dynamic_shared(func, bytes).map_err(|e| Error::Driver {
            call: "cuFuncSetAttribute",
            kernel,
            attributes: "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES".to_string(),
            source: e,
        })
    };
    info.shared.raise(shared, allowed, set)
}

/// Sets `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` on `func`, once per function:
/// later launches find the function's entry and read one flag.
#[inline]
fn allow_non_portable_cluster(
    ctx: &CudaContext,
    func: &CudaFunction,
    kernel: KernelName,
) -> Result<(), Error> {
    let info = function_info(func);
    if info.non_portable.load(Ordering::Acquire) {
        return Ok(());
    }
    allow_non_portable_cold(ctx, func, info, kernel)
}

#[cold]
#[inline(never)]
fn allow_non_portable_cold(
    ctx: &CudaContext,
    func: &CudaFunction,
    info: &FunctionInfo,
    kernel: KernelName,
) -> Result<(), Error> {
    bind(ctx, kernel)?;
    driver::allow_non_portable_cluster(func)
        .map_err(|e| Error::driver("cuFuncSetAttribute", kernel, e))?;
    // Setting it twice from two threads is harmless.
    info.non_portable.store(true, Ordering::Release);
    Ok(())
}

/// Whether `stream` is capturing a graph.
pub fn is_capturing(stream: &CudaStream) -> bool {
    driver::stream_capture_status(stream)
        .is_ok_and(|s| s == sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE)
}
