//! Procedural macros of chevron: `#[kernel]`, `launch!` and `config!`.
//!
//! Use them through the `chevron` crate, which documents them; generated code names only
//! `::chevron::__private::…`.
#![deny(missing_docs)]

use proc_macro::TokenStream;

mod kernel;
mod launch;
mod report;

/// Declares a CUDA kernel with a typed Rust signature, checked against its PTX entry.
///
/// See the `chevron` crate documentation for the full syntax.
#[proc_macro_attribute]
pub fn kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand(args.into(), item.into()).into()
}

/// Launches a kernel with CUDA's `<<<…>>>` syntax; every attribute is checked for its place,
/// duplicates and literal limits at compile time.
///
/// ```text
/// launch!( KERNEL <<< GRID , BLOCK , STREAM [, ITEM]* >>> ( ARG [, ARG]* ) )
///
/// KERNEL := path to a #[kernel] item       typed: rustc checks each argument
///         | dyn IDENT | dyn ( EXPR )         a &CudaFunction or CudaFunction; untyped arguments
/// GRID, BLOCK := a dim: u32, (u32, u32), (u32, u32, u32) or any `impl Into<Dim3>` expression
/// STREAM := a `&CudaStream` expression (an `&Arc<CudaStream>` works too)
/// ITEM   := shared = EXPR                    dynamic shared memory per block, in bytes
///         | stream( SATTR [, SATTR]* )       set on STREAM with cuStreamSetAttribute first
///         | LATTR                            one entry of cuLaunchKernelEx's attribute array
/// LATTR, SATTR := KEY | KEY = EXPR           a bare KEY is a flag set to true
/// ```
///
/// The value is a `Result<(), chevron::Error>`. A launch is `unsafe` (the kernel's body is not
/// checked), so `launch!` must be written inside an `unsafe` block:
///
/// ```no_run
/// use chevron::cudarc::driver::{CudaFunction, CudaSlice, CudaStream};
/// use chevron::launch;
///
/// fn saxpy(
///     stream: &CudaStream,
///     saxpy: &CudaFunction, // `saxpy(u32, f32, const float*, float*)`, loaded with cudarc
///     n: u32,
///     x: &CudaSlice<f32>,
///     y: &mut CudaSlice<f32>,
/// ) -> Result<(), chevron::Error> {
///     // SAFETY: the arguments match the kernel's parameters; it writes y[..n] only.
///     unsafe {
///         launch!(dyn saxpy<<<n.div_ceil(256), 256, stream,
///             stream(sync = Spin), priority = 0, mem_sync_domain = Default
///         >>>(&n, &2.0f32, x, y))
///     }
/// }
/// ```
///
/// With a `#[kernel]` item, `launch!(saxpy<<<g, 256, &s, cooperative>>>(n, 2.0, &x, &mut y))`
/// calls `saxpy::launch(&s, &config, n, 2.0, &x, &mut y)`: a wrong argument is rustc's own
/// type error at that argument. With `dyn`, each argument is passed like cudarc's
/// `PushKernelArg::arg`: `&value` for numbers and `#[repr(C)]` structs implementing
/// `DeviceRepr` (typed literals: `&2.0f32`, not `&2.0`), `&slice` / `&mut slice` or views for
/// device buffers (cudarc's event tracking orders them across streams).
///
/// # Keys
///
/// | key | value | kind (`CU_LAUNCH_ATTRIBUTE_…`) | launch list | `stream(...)` |
/// |---|---|---|---|---|
/// | `sync` | `Auto`/`Spin`/`Yield`/`BlockingSync` or a `SyncPolicy` | `SyncPolicy` (`SYNCHRONIZATION_POLICY`) | **no** | yes |
/// | `priority` | `i32` | `Priority` (`PRIORITY`) | yes | yes |
/// | `mem_sync_domain` | `Default`/`Remote` or a `MemSyncDomain` | `MemSyncDomain` (`MEM_SYNC_DOMAIN`) | yes | yes |
/// | `mem_sync_domain_map` | a `MemSyncDomainMap` | `MemSyncDomainMap` (`MEM_SYNC_DOMAIN_MAP`) | yes | yes |
/// | `access_policy_window` | an `AccessPolicyWindow` | `AccessPolicyWindow` (`ACCESS_POLICY_WINDOW`) | yes | yes |
/// | `cooperative` | flag | `Cooperative` (`COOPERATIVE`) | yes | no |
/// | `cluster` | dim | `ClusterDim` (`CLUSTER_DIMENSION`) | yes | no |
/// | `cluster_scheduling` | `Default`/`Spread`/`LoadBalancing` or a `ClusterScheduling` | `ClusterScheduling` (`CLUSTER_SCHEDULING_POLICY_PREFERENCE`) | yes | no |
/// | `preferred_cluster` | dim | `PreferredClusterDim` (`PREFERRED_CLUSTER_DIMENSION`) | yes | no |
/// | `programmatic_serialization` | flag | `ProgrammaticSerialization` (`PROGRAMMATIC_STREAM_SERIALIZATION`) | yes | no |
/// | `programmatic_event` | `&CudaEvent` or a `ProgrammaticEvent` | `ProgrammaticEvent` (`PROGRAMMATIC_EVENT`) | yes | no |
/// | `completion_event` | `&CudaEvent` | `CompletionEvent` (`LAUNCH_COMPLETION_EVENT`) | yes | no |
/// | `shared_carveout` | percent, 0 to 100 | `SharedCarveout` (`PREFERRED_SHARED_MEMORY_CARVEOUT`) | yes | no |
/// | `nvlink_centric` | flag | `NvlinkCentric` (`NVLINK_UTIL_CENTRIC_SCHEDULING`; CUDA 13.0+ features) | yes | no |
/// | `device_updatable` | flag | `DeviceUpdatable` (`DEVICE_UPDATABLE_KERNEL_NODE`) | yes, while the stream captures | no |
///
/// A flag is written bare (`cooperative`) or with a `bool` (`cooperative = on`). A dim is a
/// `u32`, `(u32, u32)`, `(u32, u32, u32)` or any expression convertible to `Dim3`. The placement
/// columns are the runtime's table (`chevron::KINDS`), measured against the driver.
///
/// # Compile-time checks
///
/// A key in the wrong place (`sync` in the launch list: "`sync` is a stream attribute: the
/// driver rejects CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY in cuLaunchKernelEx; write it as
/// `stream(sync = Spin)`"), an unknown key (with the valid ones and the nearest), a key given
/// twice (also across two `stream(...)` groups), a bad value (`sync = Fast`, `cooperative = 1`,
/// a negative extent), and literal values over the driver's limits: a block extent 0, x or y
/// over 1024, z over 64, more than 1024 threads; a grid y or z over 65535; a cluster over 8
/// blocks or not dividing the grid; `preferred_cluster` without `cluster`, not a multiple of it
/// or with another z; `shared_carveout` over 100. `<<<g, b, 0, s>>>` (CUDA's shared memory in
/// the third position) is pointed out: the third position is the stream. Every mistake of an
/// invocation is reported, each at its tokens. Values known only at run time get the same checks
/// as [`Error::InvalidConfig`](../chevron/enum.Error.html) before the launch.
#[proc_macro]
pub fn launch(input: TokenStream) -> TokenStream {
    launch::expand_launch(input.into()).into()
}

/// Builds a `chevron::LaunchConfig` with the grammar and checks of [`launch!`]:
///
/// ```text
/// config!( <<< GRID , BLOCK [, ITEM]* >>> )
/// ```
///
/// The config is a plain `Copy` value: build it once, reuse it for many launches (with a
/// `#[kernel]`'s `launch` function or `chevron::launch_function`). `stream(...)` items become
/// `with_stream` entries, set on whichever stream the config is launched on.
///
/// ```
/// use chevron::{config, Cooperative, Dim3};
///
/// let n = 1 << 20;
/// let cfg = config!(<<<(n / 256, 1), 256, shared = 1024, cooperative, stream(sync = Spin)>>>);
/// assert_eq!(cfg.grid(), Dim3::new(4096, 1, 1));
/// assert!(cfg.has::<Cooperative>());
/// assert_eq!(cfg.stream_attributes().len(), 1);
/// ```
///
/// ```compile_fail
/// // `sync` is a stream attribute: write `stream(sync = Spin)`.
/// let cfg = chevron::config!(<<<1, 1, sync = Spin>>>);
/// ```
#[proc_macro]
pub fn config(input: TokenStream) -> TokenStream {
    launch::expand_config(input.into()).into()
}
