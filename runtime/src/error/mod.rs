//! The error type of every fallible chevron call.

use cudarc::driver::{CudaContext, DriverError};
use cudarc::nvrtc::CompileError;

use crate::config::dim::Dim3;

/// The kernel a message is about, if known: `` for `saxpy` `` or nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct KernelName(pub Option<&'static str>);

impl core::fmt::Display for KernelName {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(name) => write!(f, " for `{name}`"),
            None => Ok(()),
        }
    }
}

/// Everything that can go wrong on chevron's paths. Nothing on them panics.
///
/// `{}` (`Display`) is one sentence that names the fix. `{:?}` (`Debug`) is that sentence too,
/// followed by a `Caused by:` line for each cause whose text the sentence does not already
/// quote, as `anyhow` prints: so `fn main() -> Result<(), chevron::Error>` ends with
/// `Error: no CUDA driver on this machine: …` rather than `Error: NoDriver`. `{:#?}` is the
/// structure, as `#[derive(Debug)]` writes it (`Driver { call: "cuLaunchKernelEx", … }`).
///
/// ```
/// let e = chevron::Error::NoDriver;
/// assert!(format!("{e:?}").starts_with("no CUDA driver on this machine"));
/// assert_eq!(format!("{e:#?}"), "NoDriver");
/// ```
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The CUDA driver library (`libcuda.so` / `nvcuda.dll`) is not on this machine.
    #[error(
        "no CUDA driver on this machine: libcuda could not be loaded (chevron needs an NVIDIA \
         driver; on a machine without a GPU only compile-time checks work)"
    )]
    NoDriver,

    /// A driver call failed.
    #[error("{call} failed{kernel}: {source}{}", attrs_suffix(attributes))]
    Driver {
        /// The driver entry point, e.g. `cuLaunchKernelEx`; `"a cudarc call"` for an error that
        /// `?` converted from a cudarc call's `DriverError`, which does not say which call failed.
        call: &'static str,
        /// The kernel being launched or loaded.
        kernel: KernelName,
        /// The attributes involved, as `key (CU_LAUNCH_ATTRIBUTE_…)`; empty if none.
        attributes: String,
        /// The driver's code.
        #[source]
        source: DriverError,
    },

    /// A cooperative launch asked for more blocks than can be resident at once.
    #[error(
        "cooperative launch{kernel} of {requested} blocks exceeds the {co_resident} co-resident \
         blocks ({sms} SMs × {per_sm} blocks/SM at this block size and shared memory); \
         use at most {co_resident} blocks"
    )]
    CooperativeTooLarge {
        /// The kernel.
        kernel: KernelName,
        /// Blocks in the grid.
        requested: u64,
        /// Blocks that fit on the device at once.
        co_resident: u64,
        /// Multiprocessors on the device.
        sms: u32,
        /// Blocks per multiprocessor for this kernel, block size and shared memory.
        per_sm: u32,
    },

    /// A cooperative launch on a stream of an SM partition ([`crate::Partition`]) asked for
    /// more blocks than the partition's SMs hold at once: sized for the whole device, say.
    #[error(
        "cooperative launch{kernel} of {requested} blocks exceeds the {co_resident} co-resident \
         blocks of its SM partition ({partition_sms} of the device's {device_sms} SMs × {per_sm} \
         blocks/SM at this block size and shared memory; the whole device holds {} such \
         blocks); use at most {co_resident} blocks (`partition.max_cooperative_grid`), or a \
         stream of the whole device",
        u64::from(*device_sms) * u64::from(*per_sm)
    )]
    CooperativeTooLargeForPartition {
        /// The kernel.
        kernel: KernelName,
        /// Blocks in the grid.
        requested: u64,
        /// Blocks that fit on the partition at once.
        co_resident: u64,
        /// Multiprocessors of the partition.
        partition_sms: u32,
        /// Multiprocessors of the device.
        device_sms: u32,
        /// Blocks per multiprocessor for this kernel, block size and shared memory.
        per_sm: u32,
    },

    /// An SM partition ([`crate::Partition`]) could not be made as asked, or the CUDA version
    /// or driver has none.
    #[error("SM partition: {message}")]
    Partition {
        /// What went wrong and how to fix it, with the numbers.
        message: String,
    },

    /// The driver refused the cluster shape (`CUDA_ERROR_INVALID_CLUSTER_SIZE`).
    #[error("invalid cluster size{kernel}: cluster {cluster} with grid {grid}: {reason}")]
    InvalidClusterSize {
        /// The kernel.
        kernel: KernelName,
        /// The grid, in blocks.
        grid: Dim3,
        /// The cluster, in blocks.
        cluster: Dim3,
        /// What is wrong.
        reason: String,
    },

    /// `device_updatable` was used on a stream that is not capturing.
    #[error(
        "`device_updatable` (CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE){kernel} needs a \
         stream that is capturing a graph; the driver answered CUDA_ERROR_NOT_SUPPORTED"
    )]
    NotCapturing {
        /// The kernel.
        kernel: KernelName,
    },

    /// An attribute needs a newer GPU than the one the stream runs on.
    #[error(
        "`{attribute}`{kernel} needs compute capability 9.0 or newer; this device is {major}.{minor}"
    )]
    ArchTooLow {
        /// The attribute, as `key (CU_LAUNCH_ATTRIBUTE_…)`.
        attribute: String,
        /// The kernel.
        kernel: KernelName,
        /// Device compute capability, major.
        major: i32,
        /// Device compute capability, minor.
        minor: i32,
    },

    /// A launch configuration value is outside the driver's limits (checked before launching,
    /// for values only known at run time).
    #[error("invalid launch configuration{kernel}: {violation}")]
    InvalidConfig {
        /// The kernel.
        kernel: KernelName,
        /// What is wrong, with the numbers: the rule `launch!` applies to literals, in the same
        /// words.
        violation: chevron_cuda_rules::limits::Violation,
    },

    /// The NVRTC library (`libnvrtc`), needed to compile a `cuda = "…"` kernel at run time, could
    /// not be loaded.
    #[error(
        "NVRTC could not be loaded{kernel}: the kernel is CUDA C compiled at run time \
         (`cuda = \"…\"`) and libnvrtc is not on this machine; install the CUDA toolkit's NVRTC, \
         or compile the kernel ahead of time with `nvcc -ptx` and declare it with `ptx = \"…\"`"
    )]
    NoNvrtc {
        /// The kernel.
        kernel: KernelName,
    },

    /// The kernel's code cannot run on this device or under this driver: no PTX variant is for
    /// the device's architecture, or its PTX ISA is newer than the driver knows.
    #[error("cannot load{kernel}: {message}")]
    Incompatible {
        /// The kernel.
        kernel: KernelName,
        /// What the code needs, what the device and driver are, and what to do.
        message: String,
    },

    /// NVRTC failed to compile a kernel's CUDA C source.
    #[error("NVRTC failed to compile{kernel}:\n{log}")]
    Compile {
        /// The kernel.
        kernel: KernelName,
        /// NVRTC's log.
        log: String,
    },

    /// The function was loaded in another CUDA context than the one of the stream it was
    /// launched on.
    #[error(
        "cannot launch{kernel} on this stream: its function was loaded in another CUDA context \
         (on device {function_device}) than the stream's (on device {stream_device}); load the \
         module in the stream's context (`stream.context().load_module(…)`) or launch on a \
         stream of the function's context"
    )]
    WrongContext {
        /// The kernel.
        kernel: KernelName,
        /// The device of the stream's context.
        stream_device: usize,
        /// The device of the context the function was loaded in.
        function_device: usize,
    },

    /// The context hit an error earlier that the driver keeps returning from every later call
    /// (a kernel that trapped, faulted or timed out): nothing can run in it again in this
    /// process.
    #[error(
        "cannot launch{kernel}: the CUDA context of device {device} is unusable after an \
         earlier error ({source}), most likely a kernel that trapped or faulted; every later \
         call in it fails the same way, so the process must exit to use the GPU again (run \
         `compute-sanitizer` to find the faulting kernel)"
    )]
    ContextUnusable {
        /// The kernel whose launch found the context unusable (not the one that failed).
        kernel: KernelName,
        /// The device of the context.
        device: usize,
        /// The driver's code, the same from every call after the fault.
        #[source]
        source: DriverError,
    },

    /// No cluster of this shape fits on the device (`cuOccupancyMaxActiveClusters` is 0).
    #[error(
        "no cluster of {cluster} blocks of {block} threads with {shared} bytes of dynamic shared \
         memory can be resident{kernel}: cuOccupancyMaxActiveClusters is 0 for this kernel on \
         this device; use fewer blocks per cluster, fewer threads per block or less shared memory"
    )]
    ClusterNotResident {
        /// The kernel.
        kernel: KernelName,
        /// The cluster, in blocks.
        cluster: Dim3,
        /// The block, in threads.
        block: Dim3,
        /// Dynamic shared memory per block, in bytes.
        shared: u32,
    },

    /// A launch priority outside the range of the device (`cuCtxGetStreamPriorityRange`).
    #[error(
        "`priority` (CU_LAUNCH_ATTRIBUTE_PRIORITY){kernel} is {priority}, outside this device's \
         range of {greatest} (highest) to {least} (lowest); use a value in that range"
    )]
    PriorityOutOfRange {
        /// The kernel.
        kernel: KernelName,
        /// The priority given.
        priority: i32,
        /// The lowest priority (numerically greatest).
        least: i32,
        /// The highest priority (numerically lowest).
        greatest: i32,
    },

    /// The driver refused the event of `programmatic_event` or `completion_event`.
    #[error(
        "`{attribute}`{kernel}: the driver refused the event ({source}); an event in a launch \
         must be created with timing disabled, in the stream's context: \
         `ctx.new_event(Some(CUevent_flags::CU_EVENT_DISABLE_TIMING))` (cudarc's `new_event(None)` \
         does that)"
    )]
    EventRefused {
        /// The attribute, as `key (CU_LAUNCH_ATTRIBUTE_…)`.
        attribute: String,
        /// The kernel.
        kernel: KernelName,
        /// The driver's code.
        #[source]
        source: DriverError,
    },

    /// A kernel's entry is not in the module loaded for it.
    #[error("{message}")]
    MissingKernel {
        /// The kernel.
        kernel: KernelName,
        /// What is missing and what the module has.
        message: String,
    },

    /// The launch breaks a rule the kernel's PTX fixes: its block against `.reqntid`/`.maxntid`,
    /// its cluster or grid against `.reqnctapercluster`/`.maxclusterrank`,
    /// `programmatic_serialization` on a kernel that never executes `griddepcontrol.wait`,
    /// `cooperative` against a grid-wide barrier. The same rules and words as `launch!` applies
    /// to literal values at compile time, then this launch's values.
    #[error("launch does not fit the kernel{kernel}: {message}")]
    KernelConstraint {
        /// The kernel.
        kernel: KernelName,
        /// The rule, naming the directive and the PTX line, and this launch's values.
        message: String,
    },

    /// Static plus dynamic shared memory over what the device allows one block
    /// (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`), refused before launching.
    #[error(
        "shared memory{kernel}: {static_bytes} bytes static + {dynamic_bytes} bytes dynamic = \
         {} bytes exceeds this device's limit of {limit} bytes per block \
         (CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN); use at most {} bytes of \
         dynamic shared memory",
        u64::from(*static_bytes) + u64::from(*dynamic_bytes),
        limit.saturating_sub(*static_bytes)
    )]
    SharedMemoryTooLarge {
        /// The kernel.
        kernel: KernelName,
        /// The kernel's static shared memory (`CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES`).
        static_bytes: u32,
        /// The dynamic shared memory the launch asked for.
        dynamic_bytes: u32,
        /// The device's opt-in limit per block.
        limit: u32,
    },

    /// The PTX calls the CUDA device runtime (see [`crate::ptx::device_runtime_calls`]) and
    /// `libcudadevrt.a`, which it must be linked with, is not on this machine.
    #[error(
        "cannot load{kernel}: its PTX calls the CUDA device runtime, which needs libcudadevrt.a \
         from a CUDA toolkit, and it is in none of these places: {searched}; set \
         CHEVRON_CUDADEVRT to the file or CUDA_HOME to the toolkit"
    )]
    NoDeviceRuntime {
        /// The kernel.
        kernel: KernelName,
        /// The paths tried, comma-separated.
        searched: String,
    },

    /// The driver's linker failed to link PTX that calls the CUDA device runtime with
    /// `libcudadevrt.a`.
    #[error("{call} failed{kernel}: {source}: {log}")]
    Link {
        /// The kernel.
        kernel: KernelName,
        /// The linker entry point: `cuLinkAddData`, `cuLinkAddFile`, `cuLinkComplete`, ….
        call: &'static str,
        /// What was linked, and the linker's error log.
        log: String,
        /// The driver's code.
        #[source]
        source: DriverError,
    },

    /// A kernel's declared Rust signature does not match its PTX entry.
    #[error("signature mismatch{kernel}: {message}")]
    Signature {
        /// The kernel.
        kernel: KernelName,
        /// What differs.
        message: String,
    },

    /// A graph was used in a way the driver cannot carry out: a node of another graph or of
    /// another kernel, a capture that recorded no node, a capture ended by something else.
    #[error("graph{kernel}: {message}")]
    Graph {
        /// The kernel of the node concerned, where there is one.
        kernel: KernelName,
        /// What went wrong and how to fix it.
        message: String,
    },

    /// Work awaited on a stream (a [`crate::Completion`]) failed: the driver reported an error
    /// for the stream instead of its completion, typically a kernel that trapped or faulted.
    #[error(
        "the work awaited on a stream of device {device} failed ({call}: {source}){}",
        sticky_suffix(source)
    )]
    StreamFailed {
        /// The device of the stream's context.
        device: usize,
        /// Where the error came from: `cuStreamAddCallback` (the status the driver passed to
        /// the callback), `cuEventQuery` or `cuStreamQuery`.
        call: &'static str,
        /// The driver's code.
        #[source]
        source: DriverError,
    },

    /// Something this build or this driver does not have: an API of a later CUDA version, a
    /// library that is not on the machine (NCCL).
    #[error("{what} is not available: {why}; {fix}")]
    Unavailable {
        /// What was asked for, e.g. `` `Mechanism::HostFuncV2` (cuLaunchHostFunc_v2) ``.
        what: &'static str,
        /// Why not, with the versions involved.
        why: String,
        /// What to do instead.
        fix: &'static str,
    },

    /// An error on one device of a [`crate::DeviceSet`].
    #[error("device {device}: {source}")]
    OnDevice {
        /// The device's ordinal.
        device: usize,
        /// The error on that device.
        #[source]
        source: Box<Error>,
    },

    /// An NCCL call failed (feature `nccl`).
    #[error("{call} failed: {result}")]
    Nccl {
        /// The NCCL entry point, e.g. `ncclCommInitAll`.
        call: &'static str,
        /// NCCL's result code.
        result: String,
    },
}

/// Errors after which the context is unusable: the driver returns the same code from every
/// later call in it, in this process (the CUDA driver API's "sticky" errors).
pub(crate) fn is_sticky(code: cudarc::driver::sys::CUresult) -> bool {
    use cudarc::driver::sys::cudaError_enum as E;
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

/// The end of an [`Error::StreamFailed`] message: what a sticky error means.
fn sticky_suffix(source: &DriverError) -> &'static str {
    if is_sticky(source.0) {
        "; the CUDA context is unusable after this error: every later call in it fails the same \
         way, so the process must exit to use the GPU again (run `compute-sanitizer` to find the \
         faulting kernel)"
    } else {
        ""
    }
}

/// `{:?}`: the message and its causes; `{:#?}`: the structure (see [`Error`]).
impl core::fmt::Debug for Error {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if f.alternate() {
            return self.fmt_structure(f);
        }
        let message = self.to_string();
        f.write_str(&message)?;
        let mut causes = Vec::new();
        let mut next = std::error::Error::source(self);
        while let Some(cause) = next {
            let text = cause.to_string();
            // Most variants quote their driver code in the sentence: no need to say it twice.
            if !message.contains(&text) {
                causes.push(text);
            }
            next = cause.source();
        }
        match causes.as_slice() {
            [] => Ok(()),
            [one] => write!(f, "\n\nCaused by:\n    {one}"),
            many => {
                f.write_str("\n\nCaused by:")?;
                for (i, cause) in many.iter().enumerate() {
                    write!(f, "\n    {i}: {cause}")?;
                }
                Ok(())
            }
        }
    }
}

/// `Error::Variant { field: value, … }` as `#[derive(Debug)]` writes it, for each variant listed.
macro_rules! structure {
    ($self:ident, $f:ident; $($variant:ident $({ $($field:ident),* })?),* $(,)?) => {
        match $self {
            $(Error::$variant $({ $($field),* })? => {
                #[allow(unused_mut)]
                let mut s = $f.debug_struct(stringify!($variant));
                $($(s.field(stringify!($field), $field);)*)?
                s.finish()
            })*
        }
    };
}

impl Error {
    /// The `{:#?}` form: every variant and field, as `#[derive(Debug)]` writes them.
    fn fmt_structure(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        structure!(self, f;
            NoDriver,
            Driver { call, kernel, attributes, source },
            CooperativeTooLarge { kernel, requested, co_resident, sms, per_sm },
            CooperativeTooLargeForPartition { kernel, requested, co_resident, partition_sms, device_sms, per_sm },
            Partition { message },
            InvalidClusterSize { kernel, grid, cluster, reason },
            NotCapturing { kernel },
            ArchTooLow { attribute, kernel, major, minor },
            InvalidConfig { kernel, violation },
            NoNvrtc { kernel },
            Incompatible { kernel, message },
            Compile { kernel, log },
            WrongContext { kernel, stream_device, function_device },
            ContextUnusable { kernel, device, source },
            ClusterNotResident { kernel, cluster, block, shared },
            PriorityOutOfRange { kernel, priority, least, greatest },
            EventRefused { attribute, kernel, source },
            MissingKernel { kernel, message },
            KernelConstraint { kernel, message },
            SharedMemoryTooLarge { kernel, static_bytes, dynamic_bytes, limit },
            NoDeviceRuntime { kernel, searched },
            Link { kernel, call, log, source },
            Signature { kernel, message },
            Graph { kernel, message },
            StreamFailed { device, call, source },
            Unavailable { what, why, fix },
            OnDevice { device, source },
            Nccl { call, result },
        )
    }
}

/// The `call` of an [`Error::Driver`] converted from a cudarc [`DriverError`] (by `?` or
/// `From`): cudarc's error holds the driver's code only, not the entry point.
const CUDARC_CALL: &str = "a cudarc call";

/// Lets `?` take a cudarc driver call's error (`ctx.new_stream()?`, `stream.clone_htod(…)?`,
/// `ctx.load_module(…)?`) in a function returning chevron's [`Error`]:
///
/// ```no_run
/// use chevron::{context, Error};
///
/// fn round_trip() -> Result<Vec<f32>, Error> {
///     let ctx = context(0)?;
///     let stream = ctx.new_stream()?;
///     let x = stream.clone_htod(&[1.0f32, 2.0, 3.0])?;
///     Ok(stream.clone_dtoh(&x)?)
/// }
/// ```
impl From<DriverError> for Error {
    fn from(source: DriverError) -> Self {
        Self::driver(CUDARC_CALL, KernelName(None), source)
    }
}

/// Lets `?` take an error of cudarc's NVRTC (`cudarc::nvrtc::compile_ptx(…)?`) in a function
/// returning chevron's [`Error`]: [`Error::Compile`] with NVRTC's log when the source did not
/// compile, or with cudarc's description of the failing NVRTC call otherwise.
impl From<CompileError> for Error {
    fn from(e: CompileError) -> Self {
        let log = match e {
            CompileError::CompileError { log, options, .. } => format!(
                "{}\n(NVRTC options: {})",
                log.to_string_lossy().trim_end(),
                options.join(" ")
            ),
            other => other.to_string(),
        };
        Self::Compile {
            kernel: KernelName(None),
            log,
        }
    }
}

fn attrs_suffix(attributes: &str) -> String {
    if attributes.is_empty() {
        String::new()
    } else {
        format!(" (attributes: {attributes})")
    }
}

impl Error {
    pub(crate) fn driver(call: &'static str, kernel: KernelName, source: DriverError) -> Self {
        Self::Driver {
            call,
            kernel,
            attributes: String::new(),
            source,
        }
    }
}

/// Result with [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

#[cfg(test)]
mod tests;
