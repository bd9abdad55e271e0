//! Procedural macros of chevron: `#[kernel]`, `launch!` and `config!`.
//!
//! Use them through the `chevron` crate, which documents them; generated code names only
//! `::chevron::__private::…`.
#![deny(missing_docs)]

use proc_macro::TokenStream;

mod kernel;
mod launch;
mod report;

/// Declares a CUDA kernel with a typed Rust signature, checked against its PTX entry at compile
/// time.
///
/// ```
/// use chevron::cudarc::driver::{CudaSlice, CudaView};
/// use chevron::kernel;
///
/// /// y = a·x + y
/// #[kernel(ptx = "kernels/saxpy.ptx")] // relative to the crate root (CARGO_MANIFEST_DIR)
/// pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
///
/// #[kernel(cuda = "kernels/histogram.cu")] // CUDA C, compiled by NVRTC at first use
/// fn histogram(bins: &mut CudaSlice<u32>, data: &CudaView<'_, u8>, len: u32);
///
/// #[kernel(ptx = "kernels/templates.ptx", name = "_Z4gemmILi128EEvPKfS1_Pfiii")]
/// fn gemm128(a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>, m: i32, n: i32, k: i32);
/// # fn main() {}
/// ```
///
/// # Options
///
/// | option | meaning |
/// | --- | --- |
/// | `ptx = "path"` | PTX from `nvcc -ptx`; read and checked at compile time, embedded with `include_str!` (editing it rebuilds) |
/// | `ptx = ["a.ptx", "b.ptx", …]` | the same kernel compiled several times (e.g. `compute_75` and `sm_90`): each is checked like one file; at load, the variant whose `.target` is the newest the device runs and whose `.version` the driver knows is used |
/// | `cuda = "path"` | CUDA C, embedded and compiled by NVRTC the first time the kernel is used in a process, for the device's own architecture, then kept in a disk cache (`chevron::nvrtc_cache_dir`) so later starts skip NVRTC; its PTX is checked against the declaration before the first launch |
/// | `options = ["-std=c++17", "-DN=128", …]` | NVRTC options of a `cuda` kernel; `-Idir` (relative to the crate root) adds a directory whose headers are embedded; `-arch` and `-rdc` are chevron's |
/// | `name = "symbol"` | the `.entry` to use, e.g. a C++-mangled template instance; default: the function's name. For `cuda`, a C++ name such as `"softmax<128>"` or `"ns::scale<float>"`: NVRTC instantiates it and the entry is its lowered name |
/// | `pdl = "no_upstream_reads"` | the kernel reads nothing the previous kernel writes: `programmatic_serialization` is allowed though it never executes `griddepcontrol.wait` |
/// | `cooperative = "optional"` | the kernel syncs the grid only when `this_grid().is_valid()`: plain launches are allowed |
/// | `cooperative = "co_resident"` | the kernel needs its blocks resident together without syncing the grid: `cooperative` launches are allowed |
///
/// Exactly one of `ptx` and `cuda`. Paths are relative to the crate root, or absolute; each is
/// a string literal or `concat!`/`env!` of literals, so that a build script's output is
/// declared as `ptx = concat!(env!("OUT_DIR"), "/k.ptx")`. Without `name`, an
/// entry named like the function is used, or else the single C++-mangled entry
/// `_Z<len><name>…` (a plain `__global__` function without `extern "C"`); when several match
/// (overloads, template instances), the error lists them.
///
/// # What it generates
///
/// The declaration becomes a type of the same name (`struct saxpy<'a> { … }`, braced, so the
/// name is free in the value namespace), with the declaration's docs, attributes and
/// visibility, and these associated functions:
///
/// - `saxpy::launch(&stream, &config, n, a, &x, &mut y) -> Result<(), chevron::Error>`: an
///   `unsafe fn` with the declared parameters after the stream and a `&LaunchConfig` (which can
///   be built once and reused). It is what `launch!(saxpy<<<…>>>(…))` calls. Device buffers go
///   through cudarc's `DevicePtr`/`DevicePtrMut`, keeping cudarc's multi-stream ordering: the
///   launch waits for earlier writes (and, for `&mut`, reads) on other streams, and later work
///   waits for it.
/// - `saxpy::function(&ctx) -> Result<CudaFunction, chevron::Error>`: the function handle in a
///   context, for occupancy queries or cudarc's own launch builder.
/// - `saxpy::occupancy(&ctx, &config)`, `saxpy::max_cooperative_grid(&ctx, block, shared)` and
///   `saxpy::max_active_clusters(&ctx, &config)`: occupancy that honours the configuration (its
///   shared memory, and its launch attributes: a run-time `cluster` included), see
///   `chevron::occupancy`.
/// - `saxpy::update(&mut graph, &node, n, a, &x, &mut y)`: an `unsafe fn` that sets the
///   arguments of a `saxpy` node of a captured `chevron::Graph` for its following replays
///   (`cuGraphExecKernelNodeSetParams`, no new instantiation); and, for kernels with buffer
///   parameters, `saxpy::update_scalars(&mut graph, &node, n, a)`, which sets the other
///   arguments and keeps the node's buffers.
///
/// Dynamic shared memory over 48 KiB is opted into (`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`)
/// at the first launch that asks for it; more than the device allows one block is
/// `Error::SharedMemoryTooLarge`, before launching.
///
/// The first use in a CUDA context loads the module (declarations naming the same file share
/// one module per context); later launches find the handle by comparing the context pointer
/// with a few cached slots: no lock, no string lookup, no allocation. Without a CUDA driver,
/// the first use returns `Error::NoDriver`.
///
/// ```no_run
/// # use chevron::cudarc::driver::CudaSlice;
/// # use chevron::kernel;
/// # #[kernel(ptx = "kernels/saxpy.ptx")]
/// # fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let ctx = chevron::context(0)?;
/// let stream = ctx.default_stream();
/// let x = stream.clone_htod(&[1.0f32; 1024])?;
/// let mut y = stream.clone_htod(&[2.0f32; 1024])?;
/// let cfg = chevron::LaunchConfig::new(4, 256);
/// // SAFETY: 4 × 256 threads cover the 1024 elements; the kernel checks `i < n`.
/// unsafe { saxpy::launch(&stream, &cfg, 1024, 3.0, &x, &mut y) }?;
/// let f = saxpy::function(&ctx)?; // the same handle, e.g. for occupancy queries
/// # let _ = f; Ok(()) }
/// ```
///
/// # Parameters
///
/// | Rust type | passed as | PTX |
/// | --- | --- | --- |
/// | `u8 i8 u16 i16 u32 i32 u64 i64 usize isize` | the value | `.uN`/`.sN`/`.bN` of the same width (signedness is not checked) |
/// | `f32`, `f64` | the value | `.f32`, `.f64` (or `.b32`, `.b64`) |
/// | `bool` | one byte | `.u8`/`.s8`/`.b8` |
/// | `&CudaSlice<T>`, `&CudaView<'_, T>` | device pointer, read | `.u64`/`.s64`/`.b64` |
/// | `&mut CudaSlice<T>`, `&mut CudaViewMut<'_, T>` | device pointer, written | `.u64`/`.s64`/`.b64` |
/// | any other `T: DeviceRepr` (a `#[repr(C)]` struct, `chevron::half::f16` or `bf16` with the `f16` feature) | the value's bytes | `.align A .b8 name[N]`, or a scalar; `size_of::<T>()` is asserted to be `N` at compile time |
///
/// Host data (`&[T]`, `Vec<T>`, `&T` of a value) is rejected with the fix: copy it to the
/// device (`stream.clone_htod(&v)?` gives a `CudaSlice<T>`) and take a buffer.
///
/// # Checked at compile time
///
/// For `ptx = …`: the entry exists, the parameter count, and each parameter's width and class
/// (integer, float, pointer, by-value bytes); a mismatch points at the Rust parameter and quotes
/// the PTX line. A PTX ISA (`.version`) that drivers of the selected `cuda-XXXXX` feature's
/// version cannot compile is an error, unless another variant can load there. Always: no body, generics, `async`, `const`, ABI, `self`, variadics, return
/// type or patterns; every problem is reported at once, and a rejected declaration still
/// defines `launch` and `function` so that its call sites do not add errors.
///
/// The entry's launch rules are read too (the performance directives `.reqntid`, `.maxntid`,
/// `.reqnctapercluster`, `.maxclusterrank`, and whether its body executes
/// `griddepcontrol.wait` or syncs the grid): [`launch!`] checks literal launches against them
/// at compile time, and every launch is checked before it runs (`Error::KernelConstraint`).
/// For `cuda = …` they come from `nvcc -ptx` where the build machine has nvcc, else from
/// NVRTC's output at the first launch.
///
/// # CUDA C headers
///
/// The `#include "…"` lines of a `cuda` source (and of the headers it includes) are followed at
/// compile time: next to the including file, then in the `-I` directories of `options`. Each
/// header found is embedded with `include_str!` (so the binary needs no files, and editing a
/// header rebuilds) and given to NVRTC under the name its `#include` writes. Headers not found
/// there, such as `<cuda_fp16.h>` and `<cooperative_groups.h>`, come from the CUDA toolkit at
/// run time: `$CHEVRON_CUDA_INCLUDE`, the toolkit of the loaded libnvrtc (a pip install's
/// `nvidia/cu13/include` too), `$CUDA_PATH`, `$CUDA_HOME`, `/usr/local/cuda`, the toolkit of the
/// `nvcc` on `PATH`; `Error::Compile` lists where it looked when one is missing.
///
/// # Limitations
///
/// - Parameter types are resolved where the declaration is written: at module level, or inside a
///   function body with the body's own `use`s and items (the type and its `impl` are items of
///   that scope).
/// - The source must be a regular file of at most 64 MiB (a bound on what a wrong path can make
///   the compiler read); each file is read and parsed once per compilation, however many
///   declarations name it.
/// - Nothing checks what the kernel does with its arguments or that the grid fits the data,
///   hence the `unsafe` on `launch`.
#[proc_macro_attribute]
pub fn kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand(args.into(), item.into()).into()
}

/// Launches a kernel with CUDA's `<<<…>>>` syntax; every attribute is checked for its place,
/// duplicates and literal limits at compile time.
///
/// ```text
/// launch!( KERNEL <<< GRID , BLOCK , STREAM [, ITEM]* >>> ( ARG [, ARG]* ) )
/// launch!( KERNEL <<< config = CONFIG , STREAM >>> ( ARG [, ARG]* ) )
///
/// KERNEL := path to a #[kernel] item       typed: rustc checks each argument
///         | dyn IDENT | dyn ( EXPR )         a &CudaFunction or CudaFunction; untyped arguments
/// GRID, BLOCK := a dim: an extent, a tuple of two or three extents, or a `Dim3`
///                (an extent is a u32, or a usize, u64 or i32 checked when launching)
/// STREAM := a `&CudaStream` expression (an `&Arc<CudaStream>` works too)
/// CONFIG := a `LaunchConfig` or `&LaunchConfig` built beforehand (e.g. with `config!`)
/// ITEM   := shared = EXPR                    dynamic shared memory per block, in bytes (an extent)
///         | stream( SATTR [, SATTR]* )       set on STREAM with cuStreamSetAttribute first
///         | LATTR                            one entry of cuLaunchKernelEx's attribute array
/// LATTR, SATTR := KEY | KEY = EXPR           a bare KEY is a flag set to true
/// ```
///
/// **Evaluation order.** Every expression is evaluated exactly once, left to right as written:
/// the `dyn` function, the grid, the block (or the `config`), the stream, each item (`shared`
/// and attribute values, inside `stream(...)` too) in the order written, then the arguments.
/// Names the expansion uses for its own values are hygienic: a local, parameter or item of
/// yours named like one of them (`__chevron_config`, `launch`, `stream`, …) is neither seen nor
/// shadowed by the expansion.
///
/// A `usize`, `u64` or `i32` grid, block or `shared` (from `len()`, `size_of`, or an unsuffixed
/// integer variable) is converted when the launch runs; a negative value or one over
/// `u32::MAX` is `Error::InvalidConfig`, like any value over the driver's limits. The `>>>` that
/// ends nested generics (`shared = size_of::<Option<Vec<u32>>>()`) is read as part of the
/// expression: the chevrons close at the last `>>>`, before the arguments.
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
/// A config built once serves many launches:
///
/// ```no_run
/// use chevron::cudarc::driver::{CudaSlice, CudaStream};
/// use chevron::{config, kernel, launch};
///
/// #[kernel(ptx = "kernels/saxpy.ptx")]
/// fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
///
/// fn twice(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
///     let n: u32 = 1 << 20;
///     let cfg = config!(<<<n.div_ceil(256), 256, stream(sync = Spin)>>>);
///     for _ in 0..2 {
///         // SAFETY: n.div_ceil(256) blocks of 256 cover x and y, which hold n elements.
///         unsafe { launch!(saxpy<<<config = cfg, s>>>(n, 2.0, x, y)) }?;
///     }
///     Ok(())
/// }
/// # fn main() {}
/// ```
///
/// With a `#[kernel]` item, `launch!(saxpy<<<g, 256, &s, cooperative>>>(n, 2.0, &x, &mut y))`
/// launches like `saxpy::launch(&s, &config, n, 2.0, &x, &mut y)` (through a hidden method that
/// takes exactly the kernel's parameters): a wrong argument is rustc's own type error at that
/// argument, and a wrong count is counted against the kernel's parameters. With `dyn`, each argument is passed like cudarc's
/// `PushKernelArg::arg`: `&value` for numbers and `#[repr(C)]` structs implementing
/// `DeviceRepr` (typed literals: `&2.0f32`, not `&2.0`), `&slice` / `&mut slice` or views for
/// device buffers (cudarc's event tracking orders them across streams).
///
/// # Keys
///
/// <!-- kinds:begin -->
/// | key | value | kind (`CU_LAUNCH_ATTRIBUTE_…`) | launch list | `stream(...)` | graph node | CUDA | compute capability |
/// |---|---|---|---|---|---|---|---|
/// | `access_policy_window` | an `AccessPolicyWindow` | `AccessPolicyWindow` (`ACCESS_POLICY_WINDOW`) | yes | yes | yes | 12.0+ | any |
/// | `cooperative` | flag | `Cooperative` (`COOPERATIVE`) | yes | no | yes | 12.0+ | any |
/// | `sync` | `Auto`/`Spin`/`Yield`/`BlockingSync` or a `SyncPolicy` | `SyncPolicy` (`SYNCHRONIZATION_POLICY`) | **no** | yes | no | 12.0+ | any |
/// | `cluster` | dim | `ClusterDim` (`CLUSTER_DIMENSION`) | yes | no | yes | 12.0+ | 9.0+ |
/// | `cluster_scheduling` | `Default`/`Spread`/`LoadBalancing` or a `ClusterScheduling` | `ClusterScheduling` (`CLUSTER_SCHEDULING_POLICY_PREFERENCE`) | yes | no | yes | 12.0+ | 9.0+ |
/// | `programmatic_serialization` | flag | `ProgrammaticSerialization` (`PROGRAMMATIC_STREAM_SERIALIZATION`) | yes | no | no | 12.0+ | 9.0+ |
/// | `programmatic_event` | `&CudaEvent` or a `ProgrammaticEvent` | `ProgrammaticEvent` (`PROGRAMMATIC_EVENT`) | yes | no | no | 12.0+ | 9.0+ |
/// | `priority` | `i32` | `Priority` (`PRIORITY`) | yes | yes | yes | 12.0+ | any |
/// | `mem_sync_domain_map` | a `MemSyncDomainMap` | `MemSyncDomainMap` (`MEM_SYNC_DOMAIN_MAP`) | yes | yes | yes | 12.0+ | any |
/// | `mem_sync_domain` | `Default`/`Remote` or a `MemSyncDomain` | `MemSyncDomain` (`MEM_SYNC_DOMAIN`) | yes | yes | yes | 12.0+ | any |
/// | `preferred_cluster` | dim | `PreferredClusterDim` (`PREFERRED_CLUSTER_DIMENSION`) | yes | no | no | 12.8+ | 9.0+ |
/// | `completion_event` | `&CudaEvent` | `CompletionEvent` (`LAUNCH_COMPLETION_EVENT`) | yes | no | no | 12.3+ | any |
/// | `device_updatable` | flag | `DeviceUpdatable` (`DEVICE_UPDATABLE_KERNEL_NODE`) | yes, while the stream captures | no | yes | 12.4+ | any |
/// | `shared_carveout` | percent, 0 to 100 | `SharedCarveout` (`PREFERRED_SHARED_MEMORY_CARVEOUT`) | yes | no | yes | 12.5+ | any |
/// | `nvlink_centric` | flag | `NvlinkCentric` (`NVLINK_UTIL_CENTRIC_SCHEDULING`) | yes | no | yes | 13.0+ | any |
/// | `portable_cluster_size_mode` | `Default`/`RequirePortable`/`AllowNonPortable` or a `PortableClusterSizeMode` | `PortableClusterSizeMode` (`PORTABLE_CLUSTER_SIZE_MODE`) | yes | no | yes | 13.2+ | 9.0+ |
/// | `shared_memory_mode` | `Default`/`RequirePortable`/`AllowNonPortable` or a `SharedMemoryMode` | `SharedMemoryMode` (`SHARED_MEMORY_MODE`) | yes | no | yes | 13.2+ | any |
/// <!-- kinds:end -->
///
/// A flag is written bare (`cooperative`) or with a `bool` expression (`cooperative = true`,
/// `cooperative = coop`; `false` leaves the flag unset). A dim is a `u32`, `(u32, u32)`, `(u32, u32, u32)` or any expression convertible to `Dim3`. The table is
/// the spec crate's (`chevron_cuda_spec::kinds::KINDS`), the placement measured against the
/// driver. A key of a later CUDA version than the selected `cuda-*` feature is an error naming
/// the feature: "`nvlink_centric` needs CUDA 13.0: use feature cuda-13000 or later".
///
/// `non_portable_cluster`, written bare, allows clusters of 9 to 16 blocks (the function gets
/// `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` before its first such launch); without it
/// a literal cluster over 8 blocks is an error, and over 16 always is.
///
/// # Compile-time checks
///
/// A key in the wrong place (`sync` in the launch list: "`sync` is a stream attribute: the
/// driver rejects CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY in cuLaunchKernelEx; write it as
/// `stream(sync = Spin)`"), an unknown key (with the valid ones and the nearest), a key given
/// twice (also across two `stream(...)` groups), a bad value (`sync = Fast`, `cooperative = 1`,
/// a negative extent), and literal values over the driver's limits: a block extent 0, x or y
/// over 1024, z over 64, more than 1024 threads; a grid y or z over 65535; a cluster over 8
/// blocks (16 with `non_portable_cluster`) or not dividing the grid; `preferred_cluster` without `cluster`, not a multiple of it
/// or with another z; `shared_carveout` over 100. `<<<g, b, 0, s>>>` (CUDA's shared memory in
/// the third position) is pointed out: the third position is the stream. Every mistake of an
/// invocation is reported, each at its tokens. Values known only at run time get the same checks
/// as [`Error::InvalidConfig`](../chevron/enum.Error.html) before the launch.
///
/// Against the kernel's own PTX (typed launches, not `config = …`): a literal block that breaks
/// `.reqntid`/`.maxntid`, a literal `cluster` other than the compiled-in `__cluster_dims__` or
/// over `.maxclusterrank`, a literal grid that is not a whole number of compiled-in clusters,
/// `programmatic_serialization` on a kernel that never executes `griddepcontrol.wait`, a
/// grid-syncing kernel without `cooperative` and `cooperative` on one that never syncs the grid.
/// Each is a compile error at the launch naming the directive and the PTX line; run-time values
/// get the same check as `Error::KernelConstraint`.
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
/// The config is a plain `Copy` value: build it once, reuse it for many launches
/// (`launch!(k<<<config = cfg, &stream>>>(…))`, a `#[kernel]`'s `launch` function or
/// `chevron::launch_function`). `stream(...)` items become `with_stream` entries, set on
/// whichever stream the config is launched on. Expressions are evaluated once each, left to
/// right as written; `usize`, `u64` and `i32` extents are checked by `LaunchConfig::validate`,
/// which every launch calls first.
///
/// ```
/// use chevron::{config, Cooperative, Dim3};
///
/// let n = 1 << 20;
/// let cfg = config!(<<<(n / 256, 1), 256, shared = 1024, cooperative, stream(sync = Spin)>>>);
/// assert_eq!(cfg.grid(), Dim3::new(4096, 1, 1));
/// assert!(cfg.has::<Cooperative>());
/// assert_eq!(cfg.stream_attributes().len(), 1);
///
/// // `len()` and `size_of` are `usize`: accepted, checked when launching.
/// let data = vec![0f32; 1000];
/// let per_element = config!(<<<data.len().div_ceil(128), 128, shared = size_of::<f32>() * 128>>>);
/// assert_eq!(per_element.grid(), Dim3::new(8, 1, 1));
/// assert_eq!(per_element.shared_bytes(), 512);
/// assert_eq!(per_element.validate(), Ok(()));
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
