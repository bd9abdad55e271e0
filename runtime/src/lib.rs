//! Runtime of chevron: CUDA launch attributes whose placement is checked at compile time,
//! stream attributes, `cuLaunchKernelEx`, kernel loading, graphs of captured launches
//! ([`Graph`]), and typed errors.
//!
//! Most users reach this crate through the `chevron` facade and its `launch!`, `config!` and
//! `#[kernel]` macros; everything here also works on its own:
//!
//! ```no_run
//! # fn main() -> Result<(), chevron::Error> {
//! use chevron::cudarc::nvrtc::Ptx;
//! use chevron::{context, launch_function, ClusterDim, LaunchConfig, SyncPolicy};
//!
//! let ctx = context(0)?; // Error::NoDriver on a machine without a CUDA driver
//! // cudarc's own calls take `?` too: their DriverError converts into chevron's Error.
//! let stream = ctx.new_stream()?;
//! let module = ctx.load_module(Ptx::from_file("kernels/tick.ptx"))?; // `tick()`: no parameters
//! let f = module.load_function("tick")?;
//! let cfg = LaunchConfig::new(8, 128)
//!     .with(ClusterDim::new(2, 1, 1))
//!     .with_stream(SyncPolicy::Spin);
//! let mut params: [*mut core::ffi::c_void; 0] = [];
//! unsafe { launch_function(&stream, &f, &cfg, &mut params) }?;
//! # Ok(()) }
//! ```
#![deny(missing_docs)]

// build.rs checks that exactly one CUDA version feature is on, with a message naming the fix.

// cudarc is not re-exported from this crate: the facade's glob re-export of it
// (`pub use chevron_cuda_runtime::*`) would copy every cudarc item into chevron's documentation
// (rustdoc inlines through a glob whatever `doc` attribute the inner re-export carries). The
// facade re-exports `cudarc` and `sys` itself, as links.
pub(crate) use cudarc::driver::sys;
/// The half-precision types `f16` and `bf16` (feature `f16`), usable as kernel parameters.
#[cfg(feature = "f16")]
pub use half;

mod completion;
mod config;
mod devices;
mod driver;
mod error;
mod graph;
mod kernel;
mod launch;
mod nvrtc;
pub use chevron_cuda_rules::ptx;
pub use kernel::vec;

// Every public item of `attr` (the kinds' types and traits): a new kind needs no edit here.
pub use chevron_cuda_rules::fit::{
    CooperativeUse, Fact, KernelInfo, LaunchFacts, Messages, Rule, Subject,
};
pub use chevron_cuda_rules::limits::{
    Violation, MAX_BLOCK_DIM, MAX_BLOCK_THREADS, MAX_CLUSTER_BLOCKS, MAX_GRID_DIM,
    MAX_SHARED_CARVEOUT, PORTABLE_CLUSTER_BLOCKS,
};
pub use completion::{completion, completion_with, Completion, Mechanism, SPIN_LIMIT};
pub use config::attr::*;
pub use config::dim::Dim3;
pub use config::{LaunchConfig, MAX_LAUNCH_ATTRIBUTES, MAX_STREAM_ATTRIBUTES};
#[cfg(feature = "nccl")]
pub use devices::{ensure_nccl, nccl_present};
pub use devices::{Completions, Device, DeviceSet};
pub use driver::device::{context, driver_present, ensure_driver, is_capturing};
pub use error::{Error, KernelName, Result};
pub use graph::{
    BuiltNode, Capture, ConditionalHandle, ConditionalNodes, DeviceNode, Graph, GraphBuilder,
    GraphEdge, GraphNode, KernelNodes, MemsetValue, Ordered, OrderedBuffer, OrderedRead,
    SwitchNodes,
};
pub use graph::{DeviceGraph, DeviceGraphHandle, DeviceLaunchable};
pub use kernel::refusals;
pub use kernel::tuple::ArgChain;
pub use kernel::typed::{NoElementType, Typed, TypedKernel};
pub use kernel::{Kernel, KernelSource, PtxVariant};
pub use launch::function_attr::{
    function_attribute, set_function_attribute, FunctionAttribute, FunctionSharedMemoryMode,
};
pub use launch::occupancy::{
    max_active_clusters, max_cooperative_grid, occupancy, Occupancy, OccupancyLimit,
};
pub use launch::partition::{stream_sms, Partition};
pub use launch::stream::{set_stream_attribute, stream_attribute};
pub use launch::{launch_function, launch_named};
pub use nvrtc::cache::{CACHE_DIR_VAR, CACHE_SWITCH_VAR};
pub use nvrtc::link::{cudadevrt, load_ptx, CUDADEVRT_VAR};
pub use nvrtc::{
    compile_cuda, compile_program, nvrtc_cache_dir, nvrtc_present, nvrtc_stats, CudaProgram,
    NvrtcStats, CUDA_INCLUDE_VAR,
};

/// The traits chevron's compile errors name: what a kernel parameter, a launch argument, a
/// stream and an extent can be.
///
/// chevron implements them for the types it accepts, and no other crate can (they are sealed):
/// they are here so that an error such as "the trait `chevron::traits::KernelParam<_>` is not
/// implemented for `&Vec<f32>`" names a page to read. Each trait's documentation lists what it is
/// implemented for and what to write instead.
pub mod traits {
    pub use crate::config::dim::{Extent, IntoDim};
    pub use crate::kernel::literal::{Block1, Block3, LiteralBlock, Shape};

    /// The counts 0 to 32 as types: the warps and remaining lanes of the threads of a literal
    /// block (`LiteralBlock<Block1<256, N8, N0>>`: 8 warps and 0 lanes, 256 threads), as
    /// `launch!` names them.
    pub mod counts {
        pub use crate::kernel::literal::{
            N0, N1, N10, N11, N12, N13, N14, N15, N16, N17, N18, N19, N2, N20, N21, N22, N23, N24,
            N25, N26, N27, N28, N29, N3, N30, N31, N32, N4, N5, N6, N7, N8, N9,
        };
    }
    pub use crate::kernel::param::{
        BufferByValue, ByMut, ByRef, ByValue, HostData, HostDataMut, HostRef, KernelParam,
        KernelValue, RawPointer, ReadOnlyView,
    };
    pub use crate::kernel::typed::{HostMemory, ParamFrom, StreamByReference};
    pub use crate::launch::args::{NotAKernelArgument, PassByReference};
}

/// What code generated by chevron's macros names. Not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::config::dim::{Dim3, Extent, ExtentError, IntoDim};
    pub use crate::kernel::literal::{
        AnyBlock, AtMost, Block1, Block3, Compare, Exact, Fewer, LanesFit, LiteralBlock, More,
        Pointer, Refused, Same, Shape, ThreadsFit, N0, N1, N10, N11, N12, N13, N14, N15, N16, N17,
        N18, N19, N2, N20, N21, N22, N23, N24, N25, N26, N27, N28, N29, N3, N30, N31, N32, N4, N5,
        N6, N7, N8, N9,
    };
    pub use crate::kernel::tuple::{ArgTuple, OrderedArgs};
    pub use crate::kernel::typed::{
        launched, stream_ref, ArgAsWritten, ArgProbe, HostArg, TypedKernel, ViewArg,
    };
    pub use crate::kernel::typed::{
        refusal, refusal_block, refusal_literal, NoElementType, Refusal, Stub, StubOf, Typed,
    };
    pub use crate::kernel::{
        embedded_text, modules_loaded, refusals, Kernel, LaunchRules, PtxVariant, SealedBlock,
    };
    pub use crate::launch::args::{
        check_arg_sizes, launch_args, ArgSlot, ArgSlots, ArgStorage, DeviceArg, Probe, RefFallback,
        ValueArg, ValueFallback,
    };
    pub use crate::launch::occupancy::Occupancy;
    pub use crate::launch::Checked;
    pub use crate::nvrtc::CudaProgram;
    pub use crate::ptx::{Expected, ParamSig};
    pub use chevron_cuda_rules::fit::{
        CooperativeUse, Fact, KernelInfo, LaunchFacts, Messages, Subject,
    };
    pub use cudarc::driver::{
        CudaContext, CudaFunction, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr,
    };
    pub use std::sync::Arc;

    /// The parameter types of `#[kernel]` declarations (see the module's docs).
    pub use crate::kernel::param::*;
}
