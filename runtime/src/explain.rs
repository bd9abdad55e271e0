//! What a failed launch means, with the numbers. Everything here runs on the error path only,
//! after `cuLaunchKernelEx` has failed, so a launch that succeeds pays for none of it.

use cudarc::driver::{result::DriverError, CudaContext, CudaFunction, CudaStream};

use crate::attr::{Attribute, CompletionEvent, DeviceUpdatable, Priority, ProgrammaticEvent};
use crate::config::LaunchConfig;
use crate::driver;
use crate::error::{Error, KernelName};
use crate::launch::is_capturing;
use crate::sys;
use chevron_cuda_spec::kinds::KINDS as SPEC_KINDS;
use chevron_cuda_spec::limits::PORTABLE_CLUSTER_BLOCKS;

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
                crate::partition::cooperative_too_large(stream, func, kernel, config)
            {
                return e;
            }
            let sms = ctx
                .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
                .unwrap_or(0) as u32;
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
            let cluster = config.cluster().unwrap_or(crate::Dim3::new(1, 1, 1));
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
    // The kinds the spec table says need a newer GPU than this one.
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
    if let Some(value) = config.launch_value(Priority::KIND.id) {
        let priority = crate::attr::u32_at(value, 0) as i32;
        if let Ok((least, greatest)) = driver::stream_priority_range() {
            if priority > least || priority < greatest {
                return Error::PriorityOutOfRange {
                    kernel,
                    priority,
                    least,
                    greatest,
                };
            }
        }
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

/// [`Error::Driver`] for a failed `call`, or [`Error::ContextUnusable`] when the code is a
/// sticky one.
pub(crate) fn driver_error(
    call: &'static str,
    kernel: KernelName,
    ctx: &CudaContext,
    source: DriverError,
) -> Error {
    if is_sticky(source.0) {
        Error::ContextUnusable {
            kernel,
            device: ctx.ordinal(),
            source,
        }
    } else {
        Error::driver(call, kernel, source)
    }
}

/// Errors after which the context is unusable: the driver returns the same code from every
/// later call in it, in this process (the CUDA driver API's "sticky" errors).
pub(crate) fn is_sticky(code: sys::CUresult) -> bool {
    matches!(
        code,
        E::CUDA_ERROR_ILLEGAL_ADDRESS
            | E::CUDA_ERROR_LAUNCH_TIMEOUT
            | E::CUDA_ERROR_ASSERT
            | E::CUDA_ERROR_HARDWARE_STACK_ERROR
            | E::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | E::CUDA_ERROR_MISALIGNED_ADDRESS
            | E::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | E::CUDA_ERROR_INVALID_PC
            | E::CUDA_ERROR_LAUNCH_FAILED
            | E::CUDA_ERROR_ECC_UNCORRECTABLE
    )
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
    matches!(driver::max_active_clusters_of(stream, func, config), Ok(0))
}

fn cluster_not_resident(
    kernel: KernelName,
    config: &LaunchConfig<'_>,
    cluster: crate::Dim3,
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

    #[test]
    fn sticky_codes_are_the_faults_of_a_kernel() {
        assert!(is_sticky(E::CUDA_ERROR_LAUNCH_FAILED));
        assert!(is_sticky(E::CUDA_ERROR_ILLEGAL_ADDRESS));
        assert!(!is_sticky(E::CUDA_ERROR_INVALID_VALUE));
        assert!(!is_sticky(E::CUDA_ERROR_INVALID_CLUSTER_SIZE));
        assert!(!is_sticky(E::CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE));
    }

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
