//! Procedural macros of chevron: `#[kernel]`, `launch!` and `config!`.
//!
//! Use them through the `chevron` crate, which documents them; generated code names only
//! `<chevron>::__private::…`, where `<chevron>` is the facade's `$crate` (`launch!`,
//! `config!`) or the name the user's `Cargo.toml` gives the `chevron-cuda` dependency
//! (`#[kernel]`).
#![deny(missing_docs)]

use proc_macro::TokenStream;

mod code;
mod kernel;
mod kernels;
mod krate;
mod launch;
mod report;
mod tokens;
mod version;
mod warn;

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
/// #[kernel(ptx = "kernels/templates.ptx", name = "gemm<128>")] // a C++ template instance
/// fn gemm128(a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>, m: i32, n: i32, k: i32);
/// # fn main() {}
/// ```
///
/// # Options
///
/// | option | meaning |
/// | --- | --- |
/// | `ptx = "path"` | PTX from `nvcc -ptx`; read and checked at compile time, embedded with `include_bytes!` (editing it rebuilds) |
/// | `ptx = ["a.ptx", "b.ptx", …]` | the same kernel compiled several times (e.g. `compute_75` and `sm_90`): each is checked like one file; at load, the variant whose `.target` is the newest the device runs and whose `.version` the driver knows is used |
/// | `cuda = "path"` | CUDA C, embedded and compiled by NVRTC the first time the kernel is used in a process, for the device's own architecture, then kept in a disk cache (`chevron::nvrtc_cache_dir`) so later starts skip NVRTC; its PTX is checked against the declaration before the first launch |
/// | `options = ["-std=c++17", "-DN=128", …]` | NVRTC options of a `cuda` kernel; `-Idir` (relative to the crate root) adds a directory whose headers are embedded; `-arch` and `-rdc` are chevron's |
/// | `name = "…"` | the `.entry` to use: its symbol, or a C++ kernel's name with or without template arguments and parameter types (`"gemm<128>"`, `"scale(float*, int)"`), in any spelling that denotes it: the source's (`"reduce4<int, 512>"`, `"unary_op<&op_abs, float>"`), `c++filt`'s (`"reduce4<int, 512u>"`, `"cpy<&(void f<float>(char const*, char*))>"`) or the demangler's (`"reduce4<int, (unsigned int)512>"`); whitespace, `const` placement, integer suffixes and casts, and the compiler's internal namespaces (anonymous, nvcc's `_INTERNAL_…` of `static` functions) do not matter; a name several instances still match is an error that lists them; default: the function's name. For `cuda`, a C++ name such as `"softmax<128>"` or `"ns::scale<float>"`: NVRTC instantiates it and the entry is its lowered name |
/// | `pdl = "no_upstream_reads"` | the kernel reads nothing the previous kernel writes: `programmatic_serialization` is allowed though it never executes `griddepcontrol.wait` |
/// | `cooperative = "optional"` | the kernel syncs the grid only when `this_grid().is_valid()`: plain launches are allowed |
/// | `cooperative = "co_resident"` | the kernel needs its blocks resident together, with or without a grid sync: it is launched only with `cooperative` |
/// | `crate = "path"` | the path the generated code names chevron by; default: the name your `Cargo.toml` gives the `chevron-cuda` dependency (`chevron`, or `gpu` for `gpu = { package = "chevron-cuda" }`); needed only where chevron comes through another crate's re-export |
///
/// Exactly one of `ptx` and `cuda`. Paths are relative to the crate root, or absolute; each is
/// a string literal or `concat!`/`env!` of literals, so that a build script's output is
/// declared as `ptx = concat!(env!("OUT_DIR"), "/k.ptx")`. Without `name`, an entry named like
/// the function is used, or else the C++ kernel of that name (a plain `__global__` function
/// without `extern "C"`, in any namespace). Where several C++ kernels match (overloads,
/// template instances), the declared parameters choose: their count and the C++ types their
/// spelling shows (`&mut CudaSlice<f64>` is a `double*`); when they do not tell the candidates
/// apart, or none fits, the error lists every candidate's demangled signature and the
/// `name = "…"` that picks one.
///
/// # What it generates
///
/// The declaration becomes a type of the same name, a struct without fields (`pub struct
/// saxpy {}`, braced, so the name is free in the value namespace), with the declaration's docs,
/// attributes and visibility, and two things more:
///
/// - an impl of `chevron::TypedKernel`: what the PTX fixes about the kernel's launches (`INFO`,
///   for `launch!`'s compile-time checks) and its parameter types, as tuples: `Args` (every
///   parameter), `Scalars` (those that are no buffers) and `Ordered` (the buffers, as ordered
///   buffers of a graph);
/// - `saxpy::kernel() -> &'static chevron::Typed<saxpy>`, the kernel itself, whose methods take
///   the arguments as ONE tuple:
///   - `launch(&stream, &config, (n, a, &x, &mut y)) -> Result<(), chevron::Error>`: an
///     `unsafe fn` taking the stream, a `&LaunchConfig` (which can be built once and reused)
///     and the arguments. It is what `launch!(saxpy<<<…>>>(n, a, &x, &mut y))` calls (the
///     macro makes the tuple). Device buffers go through cudarc's
///     `DevicePtr`/`DevicePtrMut`, keeping cudarc's multi-stream ordering: the launch waits for
///     earlier writes (and, for `&mut`, reads) on other streams, and later work waits for it.
///   - `update(&mut graph, &node, (n, a, &x, &mut y))`: an `unsafe fn` that sets the arguments
///     of a `saxpy` node of a captured `chevron::Graph` for its following replays
///     (`cuGraphExecKernelNodeSetParams`, no new instantiation);
///     `update_scalars(&mut graph, &node, (n, a))` sets the parameters that are no buffers and
///     keeps the node's buffers; `update_ordered(&mut graph, &node, (n, a), (&xo, &yo))` takes
///     the scalars' tuple, then the buffers' tuple of ordered buffers (`graph.ordered(&mut y)`).
///   - through `Deref` to the untyped `chevron::Kernel`: `function(&ctx) -> Result<CudaFunction,
///     chevron::Error>`, the function handle in a context (for cudarc's own launch builder or a
///     `dyn` launch), and `occupancy(&ctx, &config)`, `max_cooperative_grid(&ctx, block, shared)`
///     and `max_active_clusters(&ctx, &config)`: occupancy that honours the configuration (its
///     shared memory, and its launch attributes: a run-time `cluster` included), see
///     `chevron::occupancy`.
///
/// A kernel of one parameter takes a one-element tuple, `(x,)`; one of none, `()`. A wrong
/// argument is rustc's type error at its tuple element, a wrong count "expected a tuple with 4
/// elements, found one with 3 elements". A function value becomes a closure:
/// `|ctx| saxpy::kernel().function(ctx)`.
///
/// Why so: compile time. A declaration expands to types and a static only; the launch, the
/// updates and their argument handling are generic functions of `Typed`, written once in
/// chevron and type-checked once, not once per declaration (`scripts/compile_bench.sh`
/// measures a crate of 100 declarations and 200 launches).
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
/// unsafe { saxpy::kernel().launch(&stream, &cfg, (1024, 3.0, &x, &mut y)) }?;
/// let f = saxpy::kernel().function(&ctx)?; // the same handle, e.g. for `launch!(dyn f…)`
/// let occ = saxpy::kernel().occupancy(&ctx, &cfg)?; // blocks per SM at this config
/// # let _ = (f, occ); Ok(()) }
/// ```
///
/// # Parameters
///
/// | Rust type | passed as | PTX |
/// | --- | --- | --- |
/// | `u8 i8 u16 i16 u32 i32 u64 i64 usize isize` | the value | `.uN`/`.sN`/`.bN` of the same width (signedness is checked against a C++ signature) |
/// | `f32`, `f64` | the value | `.f32`, `.f64` (or `.b32`, `.b64`) |
/// | `bool` | one byte | `.u8`/`.s8`/`.b8` |
/// | `&CudaSlice<T>`, `&CudaView<'_, T>` | device pointer, read | `.u64`/`.s64`/`.b64` |
/// | `&mut CudaSlice<T>`, `&mut CudaViewMut<'_, T>` | device pointer, written | `.u64`/`.s64`/`.b64` |
/// | any other `T: DeviceRepr` (a `#[repr(C)]` struct, `chevron::half::f16` or `bf16` with the `f16` feature, a `chevron::vec` vector type) | the value's bytes | `.align A .b8 name[N]`, or a scalar; `size_of::<T>()` must be `N` and `align_of::<T>()` must be `A` |
///
/// # C++ kernels
///
/// A kernel that is not `extern "C"` has a mangled symbol that spells its C++ signature
/// (`_Z14softmax_kernelILi128EEvPfPKfi` is `softmax_kernel<128>(float*, float const*, int)`);
/// each parameter is then checked against its C++ type too, in the same const assertion:
///
/// | C++ | Rust |
/// | --- | --- |
/// | `int`, `unsigned int`, `short`, `unsigned char` … | `i32`, `u32`, `i16`, `u8` … (signedness and width) |
/// | `long`, `long long` / `unsigned long` (`size_t`), `unsigned long long` | `i64` (`isize`) / `u64` (`usize`) |
/// | `char` | `i8` or `u8` |
/// | `float`, `double`, `bool` | `f32`, `f64`, `bool` |
/// | `__half`, `__nv_bfloat16` | `chevron::half::f16`, `bf16` |
/// | `float4`, `int2`, `uint4`, `double2` … | `chevron::vec::Float4`, `Int2`, `UInt4`, `Double2` …, or a struct of the same size and alignment |
/// | a struct or enum by value | any type of its size and alignment (names are not compared: a Rust type need not share its C++ name) |
/// | `T const*` | `&CudaSlice<T>` (or `&CudaView`), or `&mut`; `&mut` only where the PTX stores through it (a `const_cast`) |
/// | `T*` | `&mut CudaSlice<T>` (or `&mut CudaViewMut`); `&` where the PTX never stores through it, or with `#[read_only]` |
/// | `void*`, `Struct*` | a buffer of any element type |
/// | any pointer | a `u64`/`i64` device address |
///
/// Write access is read from the kernel's PTX, for every kernel: a parameter whose value flows
/// into the address of a store (`st`, `wmma.store`, `stmatrix`, `st.async`, `sust`), an atomic
/// or reduction, a bulk copy to global memory — through registers, the stack slots of `-G`
/// builds, local arrays of pointers indexed at run time, pointers handed between threads
/// through `__shared__` memory, and the functions it calls — is written, and declaring it
/// read-only (`&CudaSlice<T>`) is an error: cudarc would order the launch as a read. The store
/// wins over a C++ `const` (a `const_cast`). A `T*` the PTX never stores through may be
/// declared `&` (real code leaves out `const`). The reverse, `&mut` for a pointer only read, is
/// allowed: the launch is then ordered as a write, which is never wrong, only stricter.
///
/// Where the PTX cannot decide — the pointer is passed to a function of another module
/// (relocatable code, `.extern .func`), to one called through a pointer, or stored to memory
/// from where other code may write through it — a read-only buffer is refused, naming the
/// reason and its PTX line, unless C++ declares the pointer `const` (the `const` decides what
/// the PTX cannot show). Where the declaration knows better, it vouches with `#[read_only]` on
/// the parameter: `#[read_only] x: &CudaSlice<f32>`, which also overrides a store that never
/// runs on this buffer. `#[read_only]` is for buffers only: on a number or vector by value it is
/// an error. A `cuda = "…"` kernel is checked by the same rules against NVRTC's output before
/// its first launch (`Error::Signature`).
///
/// Types are checked as rustc resolves them: an alias (`type Scale = f32`), a path
/// (`std::primitive::f32`) or a renamed import (`use cudarc::driver::CudaSlice as DevBuf`) is the
/// type it names. A parameter written as a number or a buffer of numbers (`u32`,
/// `&mut CudaSlice<f32>`) is checked by the macro itself: a mismatch is its error over the
/// parameter, with the PTX line and the fix. Any other type expands to a const assertion of its
/// PTX form against the PTX parameter in its place, which rustc reports over the parameter with
/// the same words (after rustc's `evaluation panicked:`).
///
/// Host data (`&[T]`, `Vec<T>`, `&T` of a value) is rejected with the fix: copy it to the
/// device (`stream.clone_htod(&v)?` gives a `CudaSlice<T>`) and take a buffer.
///
/// # Checked at compile time
///
/// For `ptx = …`: the entry exists, the parameter count, each parameter's width and class
/// (integer, float, pointer, by-value bytes and alignment), its C++ type where the symbol
/// carries one, and write access (see above), for every variant of `ptx = [...]`; a mismatch
/// points at the Rust parameter and quotes the PTX line or the C++ signature. A PTX ISA
/// (`.version`) that drivers of the selected `cuda-XXXXX` feature's version cannot compile is
/// an error, unless another variant can load there. Always: no body, generics, `async`, `const`, ABI, `self`, variadics, return
/// type or patterns; every problem is reported at once, and a rejected declaration still
/// defines its type and a `kernel()` whose methods take any arguments, so that its call sites
/// do not add errors.
///
/// The entry's launch rules are read too (the performance directives `.reqntid`, `.maxntid`,
/// `.reqnctapercluster`, `.maxclusterrank`, `.explicitcluster`, `.blocksareclusters`, and
/// whether the kernel or any function it calls executes `griddepcontrol.wait` or syncs the grid;
/// unknown, and so never held against a launch, where it calls code its PTX does not hold):
/// [`launch!`] checks literal launches against them
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
/// - A declaration goes in a module or a function body, not in an `impl`, a trait or an
///   `extern` block (it declares a type); a parameter takes no `#[cfg]` (declare one kernel per
///   configuration) and the declaration no generics or lifetime parameters. At most 32
///   parameters: `Typed`'s functions take tuples of up to 32 elements.
/// - Parameter types are resolved where the declaration is written: at module level, or inside a
///   function body with the body's own `use`s and items (the type and its `impl` are items of
///   that scope).
/// - A parameter type of your own with a lifetime that a function signature could leave out
///   (a `struct MyHandle<'a>` written `MyHandle`) must write it, `MyHandle<'_>`: the types
///   become those of `TypedKernel`'s tuples, where every lifetime is named. chevron's
///   `ConditionalHandle`, `DeviceGraphHandle` and the views (`CudaView<T>`) may leave it out.
/// - The source must be a regular file of at most 64 MiB (a bound on what a wrong path can make
///   the compiler read); each file is read and parsed once per compilation, however many
///   declarations name it.
/// - Nothing checks what the kernel does with its arguments or that the grid fits the data,
///   hence the `unsafe` on `launch` (and on the updates).
#[proc_macro_attribute]
pub fn kernel(args: TokenStream, item: TokenStream) -> TokenStream {
    let site = proc_macro::Span::call_site();
    let at = site
        .local_file()
        .map(|file| (file, site.line(), site.column()));
    kernel::expand(args.into(), item.into(), at).into()
}

/// Declares every kernel of a PTX file (or of a `.cu` file) at once: each entry whose C++
/// signature its symbol carries becomes one item of the module, typed and checked exactly as a
/// hand-written `#[kernel]` declaration of it would be.
///
/// ```
/// use chevron::kernels;
///
/// // gemm<128>, scale<float>, scale<double>, offset_add
/// #[kernels(ptx = "kernels/templates.ptx")]
/// pub mod templates {}
///
/// // `launch!(templates::gemm<<<grid, block, &stream>>>(&a, &b, &mut c, m, n, k))`
/// let _: &chevron::Typed<templates::gemm> = templates::gemm::kernel();
/// let _ = templates::scale__float::kernel();
/// ```
///
/// # Options
///
/// | option | meaning |
/// | --- | --- |
/// | `ptx = "path"` | the PTX file, read and indexed once per compilation |
/// | `cuda = "path"` | CUDA C: the compile-time nvcc lists its kernels (it must be found; `CHEVRON_NVCC=0` is an error here), each declared as `#[kernel(cuda = "path")]`, compiled by NVRTC at run time |
/// | `options = ["-std=c++17", …]` | NVRTC (and nvcc) options of a `cuda` file |
/// | `only = ["gemm<128>", "scale", …]` | declare only these kernels (a symbol, or a C++ name with or without template arguments and parameter types) |
/// | `skip = ["…", …]` | leave these out |
/// | `types("Affine" = super::Affine, …)` | the Rust type of a C++ type chevron cannot know (a struct by value or behind a pointer, `__half2`, a dependent typedef such as `vec4<float>::Type`); paths as seen from inside the module; checked by size and alignment |
/// | `crate = "path"` | as for `#[kernel]` |
///
/// # Names
///
/// An item is named after the C++ function without scopes or template arguments (`gemm` for
/// `gemm<128>`), or an `extern "C"` kernel's symbol. Where several entries would share a name,
/// each takes, until the names differ: `__` and its template arguments (`scale__float`),
/// then `__` and its parameter types (`axpy__float_p_float_const_p_float_int`), then its scopes
/// in front (`ns__scale__float`); characters an identifier cannot hold become `_`, `*` is `p`.
/// Every item's docs give its C++ signature and its parameter table, and carry the C++ name,
/// signature and symbol as rustdoc search aliases (`scale<float>` finds `scale__float`); the
/// module's docs list every generated item.
///
/// # Parameters
///
/// Named `p0`, `p1`, … (the symbol has no names). `T const*` is `&CudaSlice<T>`; `T*` is
/// `&mut CudaSlice<T>`, or `#[read_only] &CudaSlice<T>` where the PTX proves it never writes
/// through it (so two inputs may be one buffer); `void*` is a buffer of `u8`, `T**` of `u64`
/// (device addresses); numbers, `bool`, `__half`/`__nv_bfloat16` (feature `f16`) and the vector
/// types (`float4` is `chevron::vec::Float4`) as `#[kernel]` checks them.
///
/// # What needs you
///
/// Each of these is an error naming the kernel, with its fix; nothing is declared untyped:
/// - an `extern "C"` kernel (its PTX has only widths): declare it in the module's body,
///   `fn my_kernel(x: &CudaSlice<f32>, n: u32);` (a `#[kernel(name = "…")]` on it picks another
///   entry), or `skip` it;
/// - a struct, class or enum by value, or a type chevron has no Rust type for: `types(…)`, a
///   declaration in the body, or `skip`.
///
/// A declaration in the body is a `#[kernel]` declaration of the module's file and replaces the
/// generated one of its entry: write one to choose a parameter's type or access (`&mut` where
/// the generated one is `&`, `#[read_only]` where the PTX cannot prove it, a `CudaView` for a
/// `CudaSlice`).
///
/// # Cost
///
/// Each file is read, parsed and indexed once per compilation, however many declarations name
/// it. A module embeds its file once for all its kernels, where each `#[kernel]` declaration
/// embeds its own copy for rustc to read: many declarations of one large PTX are cheapest in
/// the body of one module (`#[kernels(ptx = "big.ptx", only = [])]` generates nothing else).
/// `scripts/ptx_scale_bench.sh` measures both.
#[proc_macro_attribute]
pub fn kernels(args: TokenStream, item: TokenStream) -> TokenStream {
    kernels::expand(args.into(), item.into()).into()
}

/// The implementation of `chevron::launch!`, which documents it. The facade's `macro_rules!`
/// wrapper passes `$crate ;` before the input, so that the expansion names chevron under any
/// dependency name.
#[proc_macro]
pub fn launch(input: TokenStream) -> TokenStream {
    launch::expand_launch(input.into()).into()
}

/// The implementation of `chevron::config!`, which documents it; called like `launch!`'s.
#[proc_macro]
pub fn config(input: TokenStream) -> TokenStream {
    launch::expand_config(input.into()).into()
}
