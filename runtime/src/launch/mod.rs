//! The launch path at run time, for typed and `dyn` launches alike: what the runtime learns and
//! sets per `CUfunction` (`function`), function attributes (`function_attr`), occupancy
//! (`occupancy`), SM partitions as a launch target (`partition`), stream attributes (`stream`),
//! the arguments of `dyn` launches (`args`), what a failed launch means (`explain`), and here the
//! call itself. What a launch is made of is in `config/`; a `#[kernel]`'s typed launch, which
//! ends here, in `kernel/`.
//!
//! The launch call: the context check, stream attributes, then `cuLaunchKernelEx` with the
//! attribute array.

use core::ffi::c_void;

use cudarc::driver::{result::DriverError, CudaContext, CudaFunction, CudaStream};

use crate::config::LaunchConfig;
use crate::driver;
use crate::driver::current::{bind, last_bound, remember};
use crate::error::driver_error;
use crate::error::{Error, KernelName};
use crate::launch::explain::{explain, stream_attribute_error};
use crate::launch::function::{allow_non_portable_cluster, ensure_shared};
use crate::sys;
use chevron_cuda_rules::limits::{volume, Violation, PORTABLE_CLUSTER_BLOCKS};

pub(crate) mod args;
pub(crate) mod explain;
pub(crate) mod function;
pub(crate) mod function_attr;
pub(crate) mod occupancy;
pub(crate) mod partition;
pub(crate) mod stream;

/// Launches `func` on `stream` with `config`: checks that the stream's context is current on
/// this thread (binding it where needed), sets the config's stream attributes with
/// `cuStreamSetAttribute`, then calls `cuLaunchKernelEx` with the config's attribute array.
///
/// `params` holds one pointer per kernel parameter, each pointing at the parameter's value (for
/// a device buffer, at its `CUdeviceptr`), as `cuLaunchKernelEx` expects.
///
/// This is the untyped entry under `launch!` and [`Typed::launch`](crate::Typed::launch).
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
/// Inlined into its callers ([`Typed::launch`](crate::Typed::launch) through [`Checked::launch`],
/// [`launch_named`] for `launch!(dyn …)` and [`launch_function`]): a call with seven arguments,
/// its frame and its moves cost more than the straight line itself.
///
/// # Safety
/// As [`launch_function`], and `config` passed [`LaunchConfig::validate`].
#[inline(always)]
unsafe fn launch_valid(
    stream: &CudaStream,
    func: &CudaFunction,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
    params: &mut [*mut c_void],
) -> Result<(), Error> {
    let ctx = stream.context();
    if !(config.is_plain() & last_bound(ctx)) {
        // SAFETY: forwarded from the caller.
        return unsafe { launch_general(stream, func, kernel, config, params) };
    }
    // What `bind_for_launch` does for a context it may assume current.
    if let Err(e) = ctx.check_err() {
        return Err(recorded_error(ctx, kernel, e));
    }
    // One relaxed load unless an SM partition exists (cooperative grids on partitions).
    crate::launch::partition::check_launch(stream, func, kernel, config)?;
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
    // One relaxed load unless an SM partition exists (cooperative grids on partitions).
    crate::launch::partition::check_launch(stream, func, kernel, config)?;
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
    driver_error("cuCtxSetCurrent", kernel, ctx, e)
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
            Err(e) => Err(recorded_error(ctx, kernel, e)),
        }
    } else {
        bind_asking(ctx, kernel)
    }
}

/// A bind that asks the driver which context is current (`cuCtxGetCurrent`) and, where it is
/// the stream's, only checks cudarc's recorded error, as [`bind`] would: the full bind (which
/// makes the context current) is left to the case that needs it, out of line.
#[inline(always)]
fn bind_asking(ctx: &CudaContext, kernel: KernelName) -> Result<Binding, Error> {
    let mut current: sys::CUcontext = core::ptr::null_mut();
    // SAFETY: a valid out-pointer.
    let rc = unsafe { sys::cuCtxGetCurrent(&mut current) };
    if rc != sys::cudaError_enum::CUDA_SUCCESS || current != ctx.cu_ctx() {
        return bind_checked(ctx, kernel);
    }
    match ctx.check_err() {
        Ok(()) => {
            remember(ctx);
            Ok(Binding::Checked)
        }
        Err(e) => Err(recorded_error(ctx, kernel, e)),
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
    if config.uses_kernel_block() {
        kernel_block_available(driver::driver_version_once()).map_err(Failure::Step)?;
    }
    if config.has_capture_dropped() {
        refuse_dropped_in_capture(stream, kernel, config).map_err(Failure::Step)?;
    }
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

/// A launch on a capturing stream with a kind the capture drops (`preferred_cluster`,
/// `nvlink_centric`: measured on the H200, the captured node carries neither): refused, since
/// the graph would run without it; the same launch on a stream that does not capture runs.
#[cold]
#[inline(never)]
fn refuse_dropped_in_capture(
    stream: &CudaStream,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
) -> Result<(), Error> {
    if !crate::driver::device::is_capturing(stream) {
        return Ok(());
    }
    let keys = config.capture_dropped();
    let fix = keys
        .iter()
        .map(|key| match chevron_cuda_rules::kinds::by_key(key) {
            Some(k) if k.accepts(chevron_cuda_rules::kinds::Position::GraphNode) => {
                format!("set `{key}` on the node after the capture (`Graph::set_node_attribute`)")
            }
            _ => format!("leave `{key}` out: no graph node takes it"),
        })
        .collect::<Vec<_>>()
        .join("; ");
    Err(Error::Graph {
        kernel,
        message: format!(
            "{} on a launch while its stream captures a graph: the capture drops {} (the \
             captured node does not carry it), so the graph would run without it; {fix}",
            keys.iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(" and "),
            if keys.len() == 1 { "it" } else { "them" },
        ),
    })
}

/// What [`Error::Unavailable`] names for a launch in the kernel's own block shape.
const KERNEL_BLOCK: &str =
    "a launch in the kernel's own block shape (`_`, CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM)";

/// The CUDA version that has `CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM`: 12.9.
const KERNEL_BLOCK_SINCE: i32 = chevron_cuda_rules::kinds::KERNEL_BLOCK_SINCE as i32;

/// `Ok` where this build (feature `cuda-12090` or later) and the driver (`driver`, its
/// `cuDriverGetVersion`: CUDA 12.9 or later) take a launch in the kernel's own block shape
/// ([`LaunchConfig::kernel_block`]); an older driver would read the block as `(1, 1, 1)`.
fn kernel_block_available(driver: Option<i32>) -> Result<(), Error> {
    let version = |v: i32| chevron_cuda_rules::kinds::version_name(v.max(0) as u32);
    if crate::config::attr::CUDA_VERSION < KERNEL_BLOCK_SINCE as u32 {
        return Err(Error::Unavailable {
            what: KERNEL_BLOCK,
            why: format!(
                "this build selects CUDA {} (its `cuda-*` feature); it needs CUDA {}",
                version(crate::config::attr::CUDA_VERSION as i32),
                version(KERNEL_BLOCK_SINCE)
            ),
            fix: "use feature cuda-12090 or later, or give the launch its block",
        });
    }
    match driver {
        Some(v) if v >= KERNEL_BLOCK_SINCE => Ok(()),
        v => Err(Error::Unavailable {
            what: KERNEL_BLOCK,
            why: match v {
                Some(v) => format!(
                    "the driver supports CUDA {} (cuDriverGetVersion); it needs a CUDA {} driver",
                    version(v),
                    version(KERNEL_BLOCK_SINCE)
                ),
                None => "cuDriverGetVersion failed".to_string(),
            },
            fix: "update the NVIDIA driver, or give the launch its block",
        }),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A launch in the kernel's own block shape is refused by a driver older than CUDA 12.9
    /// (or a driver whose version cannot be read) with `Error::Unavailable`, naming both
    /// versions; a CUDA 12.9 or later driver takes it (under a `cuda-12090` or later feature).
    #[test]
    fn kernel_block_needs_a_cuda_12_9_driver() {
        let old = kernel_block_available(Some(12080)).expect_err("a CUDA 12.8 driver");
        let text = old.to_string();
        assert!(matches!(old, Error::Unavailable { .. }), "{old:?}");
        #[cfg(cuda_12090)]
        {
            assert_eq!(
                text,
                "a launch in the kernel's own block shape (`_`, \
                 CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM) is not available: the driver supports \
                 CUDA 12.8 (cuDriverGetVersion); it needs a CUDA 12.9 driver; update the NVIDIA \
                 driver, or give the launch its block"
            );
            assert!(kernel_block_available(Some(12090)).is_ok());
            assert!(kernel_block_available(Some(13000)).is_ok());
            let unknown = kernel_block_available(None).expect_err("no version");
            assert!(
                unknown.to_string().contains("cuDriverGetVersion failed"),
                "{unknown}"
            );
        }
        #[cfg(not(cuda_12090))]
        {
            assert!(text.contains("use feature cuda-12090 or later"), "{text}");
            assert!(kernel_block_available(Some(13000)).is_err());
        }
    }
}
