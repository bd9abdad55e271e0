//! What a failed launch means, with the numbers. Everything here runs on the error path only,
//! after `cuLaunchKernelEx` has failed, so a launch that succeeds pays for none of it.

use cudarc::driver::result::{self as cu, DriverError};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream};

use crate::config::attr::{
    kind_info, u32_at, Attribute, CompletionEvent, DeviceUpdatable, Priority, ProgrammaticEvent,
};
use crate::config::LaunchConfig;
use crate::driver;
use crate::driver::device::is_capturing;
use crate::error::{is_sticky, Error, KernelName};
use crate::sys;
use chevron_cuda_rules::kinds::KINDS as SPEC_KINDS;
use chevron_cuda_rules::limits::PORTABLE_CLUSTER_BLOCKS;

use sys::cudaError_enum as E;

/// Turns an opaque launch failure into a message with the numbers.
pub(crate) fn explain(
    stream: &CudaStream,
    func: &CudaFunction,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
    source: DriverError,
) -> Error {
    let ctx = stream.context();
    // First: after a sticky error every call fails with it, whatever the launch looks like.
    if is_sticky(source.0) {
        return Error::ContextUnusable {
            kernel,
            device: ctx.ordinal(),
            source,
        };
    }
    if let Some(function_device) = foreign_context(func, ctx) {
        return Error::WrongContext {
            kernel,
            stream_device: ctx.ordinal(),
            function_device,
        };
    }
    let (grid, block) = (config.grid(), config.block());
    match source.0 {
        E::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE => {
            // On an SM partition's stream: the partition's SMs, next to the device's.
            #[cfg(cuda_12050)]
            if let Ok(Some(e)) =
                crate::launch::partition::cooperative_too_large(stream, func, kernel, config)
            {
                return e;
            }
            let sms = ctx
                .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .unwrap_or(0) as u32;
            // In the kernel's own block shape: the compiled-in block, where chevron knows it.
            let block = crate::launch::function::launch_block(func, config).unwrap_or(block);
            let per_sm = func
                .occupancy_max_active_blocks_per_multiprocessor(
                    block.volume() as u32,
                    config.shared_bytes() as usize,
                    None,
                )
                .unwrap_or(0);
            return Error::CooperativeTooLarge {
                kernel,
                requested: grid.volume(),
                co_resident: sms as u64 * per_sm as u64,
                sms,
                per_sm,
            };
        }
        E::CUDA_ERROR_INVALID_CLUSTER_SIZE => {
            let cluster = config
                .cluster()
                .unwrap_or(crate::config::dim::Dim3::new(1, 1, 1));
            if config.validate().is_ok() && not_resident(stream, func, config) {
                return cluster_not_resident(kernel, config, cluster);
            }
            let reason = match config.validate() {
                Err(violation) => violation.to_string(),
                Ok(()) if cluster.volume() > PORTABLE_CLUSTER_BLOCKS => format!(
                    "{} blocks per cluster is over the portable limit of {PORTABLE_CLUSTER_BLOCKS}, \
                     and this GPU or kernel does not allow that many",
                    cluster.volume()
                ),
                Ok(()) => "the driver refused this cluster for this kernel (its block size, \
                           shared memory or register use may not fit a cluster this large)"
                    .to_string(),
            };
            return Error::InvalidClusterSize {
                kernel,
                grid,
                cluster,
                reason,
            };
        }
        _ => {}
    }
    if let Some(cluster) = config.cluster() {
        if not_resident(stream, func, config) {
            return cluster_not_resident(kernel, config, cluster);
        }
    }
    if config.launch_value(DeviceUpdatable::KIND.id).is_some() && !is_capturing(stream) {
        return Error::NotCapturing { kernel };
    }
    // The kinds the rules crate table says need a newer GPU than this one.
    if let Ok((major, minor)) = ctx.compute_capability() {
        let have = (major.max(0) as u32, minor.max(0) as u32);
        if let Some(kind) = SPEC_KINDS.iter().find(|k| {
            k.min_cc.is_some_and(|need| have < need) && config.launch_value(k.id).is_some()
        }) {
            return Error::ArchTooLow {
                attribute: format!("{} ({})", kind.key, kind.cuda_name),
                kernel,
                major,
                minor,
            };
        }
    }
    if let Some(error) = config
        .launch_value(Priority::KIND.id)
        .and_then(|value| priority_out_of_range(value, kernel))
    {
        return error;
    }
    // The driver takes an event in a launch only if it was created with timing disabled; it
    // says nothing more than CUDA_ERROR_INVALID_VALUE or (driver 580, a timing event in
    // `completion_event`) CUDA_ERROR_NOT_SUPPORTED, and an event's flags cannot be queried.
    let event_codes = [E::CUDA_ERROR_INVALID_VALUE, E::CUDA_ERROR_NOT_SUPPORTED];
    for kind in [ProgrammaticEvent::KIND, CompletionEvent::KIND] {
        if event_codes.contains(&source.0) && config.launch_value(kind.id).is_some() {
            return Error::EventRefused {
                attribute: format!("{} ({})", kind.key, kind.cuda_name),
                kernel,
                source,
            };
        }
    }
    Error::Driver {
        call: "cuLaunchKernelEx",
        kernel,
        attributes: config.describe_attributes(),
        source,
    }
}

/// What a failed `cuStreamSetAttribute` (`call`) or `cuStreamGetAttribute` of kind `id` means:
/// for a priority outside the device's range, that range; otherwise [`Error::Driver`] naming the
/// kind. `value` is what was set, if anything was.
pub(crate) fn stream_attribute_error(
    call: &'static str,
    id: sys::CUstreamAttrID,
    value: Option<&sys::CUstreamAttrValue>,
    kernel: KernelName,
    source: DriverError,
) -> Error {
    if id == Priority::ID {
        if let Some(error) = value.and_then(|v| priority_out_of_range(v, kernel)) {
            return error;
        }
    }
    Error::Driver {
        call,
        kernel,
        attributes: kind_info(id)
            .map(|k| format!("stream {} ({})", k.key, k.cuda_name))
            .unwrap_or_default(),
        source,
    }
}

/// [`Error::PriorityOutOfRange`] when the priority in `value` is outside the current context's
/// range (`cuCtxGetStreamPriorityRange`), in a launch or on a stream alike.
fn priority_out_of_range(value: &sys::CUlaunchAttributeValue, kernel: KernelName) -> Option<Error> {
    let priority = u32_at(value, 0) as i32;
    let (least, greatest) = cu::stream::get_priority_range().ok()?;
    (priority > least || priority < greatest).then_some(Error::PriorityOutOfRange {
        kernel,
        priority,
        least,
        greatest,
    })
}

/// `Some(device of the function's context)` when `func` was loaded in another context than
/// `ctx`, `None` when it was loaded in `ctx` or that cannot be told.
///
/// cudarc keeps a function's module, and the module's context, private; its derived `Debug`
/// output shows them (`cu_ctx: 0x…`, `ordinal: N`). Reading that is a string search, which is
/// why it happens here on the error path and not as a pointer compare before every launch. If a
/// cudarc release words its `Debug` output differently, this finds nothing and the launch's
/// driver error is reported as it is.
fn foreign_context(func: &CudaFunction, ctx: &CudaContext) -> Option<usize> {
    foreign_in(&format!("{func:?}"), &format!("{:?}", ctx.cu_ctx()))
}

/// [`foreign_context`] on the `Debug` text of a function and of a context pointer.
fn foreign_in(function: &str, own_ctx: &str) -> Option<usize> {
    let at = function.find("cu_ctx: ")?;
    let after = &function[at..];
    if after.starts_with(&format!("cu_ctx: {own_ctx},")) {
        return None;
    }
    let ordinal = after.find("ordinal: ")? + "ordinal: ".len();
    let digits: String = after[ordinal..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// Whether `cuOccupancyMaxActiveClusters` says no cluster of this shape fits on the device.
fn not_resident(stream: &CudaStream, func: &CudaFunction, config: &LaunchConfig<'_>) -> bool {
    let raw = config.raw(stream.cu_stream());
    matches!(driver::max_active_clusters(func, &raw), Ok(0))
}

fn cluster_not_resident(
    kernel: KernelName,
    config: &LaunchConfig<'_>,
    cluster: crate::config::dim::Dim3,
) -> Error {
    Error::ClusterNotResident {
        kernel,
        cluster,
        block: config.block(),
        shared: config.shared_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cudarc 0.19's derived `Debug` of a `CudaFunction`, as it prints it.
    const FUNCTION: &str = "CudaFunction { cu_function: 0x5633a1b2c3d0, module: CudaModule { \
        cu_module: 0x5633a1b2b000, ctx: CudaContext { cu_device: 1, cu_ctx: 0x5633a0f00010, \
        ordinal: 1, has_async_alloc: true, is_primary: true, num_streams: 2, \
        event_tracking: true, error_state: 0 } } }";

    #[test]
    fn the_context_of_a_function_is_read_from_cudarcs_debug_output() {
        assert_eq!(foreign_in(FUNCTION, "0x5633a0f00010"), None);
        assert_eq!(foreign_in(FUNCTION, "0x5633a0f00020"), Some(1));
        // A prefix of the context pointer is another context.
        assert_eq!(foreign_in(FUNCTION, "0x5633a0f0001"), Some(1));
        // Another shape of output: nothing can be told.
        assert_eq!(foreign_in("CudaFunction { .. }", "0x1"), None);
    }

    #[test]
    fn a_raw_pointer_prints_as_the_debug_output_shows_it() {
        let p = 0x5633a0f00010usize as sys::CUcontext;
        assert_eq!(format!("{p:?}"), "0x5633a0f00010");
    }
}
