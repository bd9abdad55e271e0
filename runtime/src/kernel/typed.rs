//! What `launch!(KERNEL<<<…>>>(…))` asks of `KERNEL`: the trait every `#[kernel]` type
//! implements, so that anything else in the kernel's place is refused with chevron's message.

use core::marker::PhantomData;

use crate::config::LaunchConfig;
use crate::error::Error;
use crate::graph::{Graph, GraphNode};
use crate::kernel::refusals::{AcceptsProgrammaticSerialization, HasOwnBlock, NeedsCooperative};
use crate::kernel::tuple::{
    typed_launch, typed_update, typed_update_ordered, typed_update_scalars,
};
use crate::kernel::tuple::{ArgTuple, OrderedArgs};
use crate::kernel::{Kernel, LaunchRules};
use chevron_cuda_rules::fit::{KernelInfo, LaunchFacts, Rule};
use cudarc::driver::{CudaStream, CudaView, CudaViewMut};

/// Implemented by the type `#[kernel]` makes of each declaration: what the kernel's PTX fixes
/// about its launches and its parameter types. `launch!` reaches the kernel through it, so a
/// type that is no kernel gets this message, at the kernel's name; the functions of a kernel
/// are [`Typed`]'s, written once for all kernels (`KERNEL::kernel()` gives it).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[kernel]` declaration",
    label = "not a `#[kernel]`",
    note = "`launch!(KERNEL<<<…>>>(…))` launches a kernel declared as `#[kernel(ptx = \"…\")] fn KERNEL(…);`",
    note = "for a `CudaFunction` (from `load_function` or `KERNEL::kernel().function(&ctx)`), write `launch!(dyn f<<<…>>>(…))`"
)]
pub trait TypedKernel: Sized + 'static {
    /// What the kernel's PTX fixes about its launches, for `launch!`'s compile-time checks.
    const INFO: KernelInfo;

    /// The kernel's parameters, in order, as one tuple: the argument of [`Typed::launch`] and
    /// [`Typed::update`]. `'r` is the lifetime of the references (`&CudaSlice<f32>`), `'v` of
    /// the lifetimes inside their types (`&CudaView<'v, f32>`).
    type Args<'r, 'v>
    where
        'v: 'r;

    /// The parameters that are no device buffers (numbers, structs), in order: the argument of
    /// [`Typed::update_scalars`] and [`Typed::update_ordered`].
    type Scalars<'v>;

    /// The device buffer parameters as ordered buffers of a graph, in order: an
    /// `&Ordered<'r, T>` for a buffer the kernel writes, an `&dyn OrderedBuffer<T>` (an
    /// `&Ordered` or `&OrderedRead`) for one it reads; the argument of
    /// [`Typed::update_ordered`]. [`NoElementType`] where a buffer's type names no element
    /// type (an alias).
    type Ordered<'r>;

    /// `[bool; N]`, `N` the number of parameters: the type of [`Self::BUFFERS`], through which
    /// the graph updates size their parameter arrays exactly.
    type Buffers;

    /// Which parameters are device buffers, in order.
    const BUFFERS: Self::Buffers;

    /// The kernel's rules on a launch whose only literal is its block, as a type of
    /// `kernel::literal` (`AnyBlock`, `Refused<dyn R>`, `Exact`, `AtMost<…>`): what
    /// [`LiteralBlock`](crate::traits::LiteralBlock), written once for all kernels, reads.
    #[doc(hidden)]
    type Literal;

    /// Whether the kernel fixes nothing a launch's literal grid, block and cluster could break
    /// (`KernelInfo::may_refuse_literal` with no flag on): `launch!`'s check then reads this
    /// one constant, evaluated once per kernel, instead of the kernel's rules at each launch.
    #[doc(hidden)]
    const FIXES_NO_LITERAL: bool = !Self::INFO.may_refuse_literal(0);
}

/// A `#[kernel]` declaration's kernel, typed by its parameters (`KERNEL::kernel()`): its
/// launch and graph updates, each taking the kernel's arguments as one tuple, and through
/// `Deref` the untyped [`Kernel`]'s queries (`function`, `occupancy`, `max_cooperative_grid`,
/// `max_active_clusters`). One per declaration, for the life of the process: the first use in a
/// CUDA context loads the kernel's module, later ones read a cached handle.
///
/// Written once for all kernels, so that a declaration expands to its types only: rustc checks
/// these functions once, not per kernel.
#[repr(transparent)]
pub struct Typed<K> {
    kernel: Kernel,
    ty: PhantomData<fn() -> K>,
}

impl<K> Typed<K> {
    /// `kernel` (a declaration's static), typed as `K`: what `#[kernel]` generates for a kernel
    /// of several PTX variants or of CUDA C. The static is a plain `Kernel`, one type for every
    /// declaration, so that rustc proves it `Sync` once instead of once per kernel type.
    #[doc(hidden)]
    #[inline(always)]
    pub const fn __of(kernel: &'static Kernel) -> &'static Self {
        // SAFETY: `Typed<K>` is `repr(transparent)` over `Kernel` (its other field is a
        // zero-sized `PhantomData`), so the pointer cast keeps layout and validity; `K` only
        // types the functions and is not stored.
        unsafe { &*(kernel as *const Kernel as *const Self) }
    }
}

impl<K: 'static> Typed<K> {
    /// The kernel of `K`, a declaration of a PTX file (see [`Kernel::ptx`] for the arguments):
    /// made at the first call, in a table of the process by `K`'s `TypeId`, and read from it at
    /// every later call without a lock. What `#[kernel]` generates for `KERNEL::kernel()`,
    /// where a `static` per declaration would cost `cargo check` more (`kernel::registry`).
    #[doc(hidden)]
    #[inline]
    pub fn __ptx(
        name: &'static str,
        entry: &'static str,
        path: &'static str,
        text: &'static str,
    ) -> &'static Self {
        let kernel = super::registry::kernel(core::any::TypeId::of::<K>(), || {
            Kernel::ptx(name, entry, path, text)
        });
        Self::__of(kernel)
    }
}

impl<K> core::ops::Deref for Typed<K> {
    type Target = Kernel;

    #[inline(always)]
    fn deref(&self) -> &Kernel {
        &self.kernel
    }
}

impl<K> core::fmt::Debug for Typed<K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.kernel.fmt(f)
    }
}

impl<K: TypedKernel> Typed<K> {
    /// Launches the kernel on `stream` with `config` (grid, block, shared memory and
    /// attributes) and `args`, the kernel's arguments as one tuple: `(n, 2.0, &x, &mut y)`.
    ///
    /// The first launch in a CUDA context loads the kernel's module; later ones only read a
    /// cached handle. Device buffers go through cudarc's `DevicePtr`/`DevicePtrMut`: this
    /// launch waits for earlier writes to them on other streams, and later work on other
    /// streams waits for it.
    ///
    /// # Safety
    /// Nothing checks what the kernel does with its arguments: the grid in `config` and the
    /// values passed must keep every access of the kernel inside its buffers.
    ///
    /// # Errors
    /// Loading the module or finding the function (`Error::Driver`; for CUDA C also
    /// `Error::NoNvrtc`, `Error::Compile`, `Error::Signature`), an invalid configuration
    /// (`Error::InvalidConfig`) or a failed launch (`Error::Driver` and the specific variants
    /// for cooperative and cluster launches).
    // Not `#[must_use]` itself: its `Result` is, and one unused launch is one warning.
    #[inline(always)]
    pub unsafe fn launch<'r, 'v, M, const N: usize>(
        &self,
        stream: &CudaStream,
        config: &LaunchConfig<'_>,
        args: K::Args<'r, 'v>,
    ) -> Result<(), Error>
    where
        K::Args<'r, 'v>: ArgTuple<M, N>,
    {
        // SAFETY: the parameter types match the PTX entry (checked when the declaration was
        // compiled, or against NVRTC's output before the first launch); the rest is the
        // caller's promise.
        // The kernel's rules, folded at compile time: here, once per kernel, when the launch is
        // compiled.
        let rules = const { LaunchRules::of(&K::INFO) };
        unsafe { typed_launch::<_, M, N>(&self.kernel, rules, stream, config, args) }
    }

    /// Sets the arguments of the kernel's node `node` in `graph` for the following replays,
    /// without instantiating the graph again (`cuGraphExecKernelNodeSetParams`); the node's
    /// grid, block and attributes stay as captured. Allocates nothing. Each buffer is ordered
    /// after its earlier uses on other streams at every call (two `cuStreamWaitEvent` for a
    /// written one); [`update_ordered`](Self::update_ordered) takes buffers ordered once for
    /// many updates.
    ///
    /// # Safety
    /// As for [`launch`](Self::launch): the captured grid and these values must keep every
    /// access of the kernel inside its buffers, and a buffer given here must stay alive, and
    /// untouched by the host and other streams, while the graph may replay with it: until the
    /// node is updated again or the graph is dropped (which waits for the last replay). Unlike
    /// the buffers of the capture, these are not borrowed for the graph's lifetime, so that
    /// one buffer can be given to many updates.
    ///
    /// # Errors
    /// `Error::Graph` when `node` is of another graph or another kernel; `Error::Driver` when
    /// the driver rejects the update.
    #[inline(always)]
    pub unsafe fn update<'r, 'v, M, const N: usize>(
        &self,
        graph: &mut Graph<'_>,
        node: &GraphNode,
        args: K::Args<'r, 'v>,
    ) -> Result<(), Error>
    where
        K::Args<'r, 'v>: ArgTuple<M, N>,
    {
        // SAFETY: as for `launch`.
        unsafe { typed_update(graph, node, &self.kernel, args) }
    }

    /// Sets the scalar and value arguments of the kernel's node `node` in `graph` (the
    /// parameters that are no buffers, in order, as one tuple) for the following replays, and
    /// keeps its buffers as they are: the captured ones, or the last update's. Otherwise as
    /// [`update`](Self::update). Allocates nothing.
    ///
    /// # Safety
    /// As for `update`: the captured grid and these values must keep every access of the
    /// kernel inside its buffers.
    ///
    /// # Errors
    /// As for `update`.
    #[inline(always)]
    pub unsafe fn update_scalars<'v, M, const S: usize, const N: usize>(
        &self,
        graph: &mut Graph<'_>,
        node: &GraphNode,
        scalars: K::Scalars<'v>,
    ) -> Result<(), Error>
    where
        K: TypedKernel<Buffers = [bool; N]>,
        K::Scalars<'v>: ArgTuple<M, S>,
    {
        // SAFETY: as for `launch`.
        unsafe { typed_update_scalars(graph, node, &self.kernel, scalars, &K::BUFFERS) }
    }

    /// [`update`](Self::update) with ordered buffers: sets the arguments of the kernel's node
    /// `node` in `graph`, its scalars from `scalars` (as for
    /// [`update_scalars`](Self::update_scalars)) and each buffer from `buffers`, an `&Ordered`
    /// from `graph.ordered(&mut buffer)` (a buffer the kernel only reads may also be an
    /// `&OrderedRead` from `graph.ordered_read(&buffer)`), ordered after its earlier uses on
    /// other streams once, when it was made, for any number of updates: each update copies
    /// its pointer instead of waiting for its events again. The same ordering as `update`.
    /// Allocates nothing.
    ///
    /// # Safety
    /// As for `update`.
    ///
    /// # Errors
    /// As for `update`, and `Error::Graph` for an ordered buffer made by another graph.
    #[inline(always)]
    pub unsafe fn update_ordered<'r, 'v, M, MO, const S: usize, const B: usize, const N: usize>(
        &self,
        graph: &mut Graph<'_>,
        node: &GraphNode,
        scalars: K::Scalars<'v>,
        buffers: K::Ordered<'r>,
    ) -> Result<(), Error>
    where
        K: TypedKernel<Buffers = [bool; N]>,
        K::Scalars<'v>: ArgTuple<M, S>,
        K::Ordered<'r>: OrderedArgs<MO, B>,
    {
        // SAFETY: as for `launch`.
        unsafe { typed_update_ordered(graph, node, &self.kernel, buffers, scalars, &K::BUFFERS) }
    }
}

/// `launch!`'s check of a launch whose grid, block and cluster are literals (0 where not
/// written; `known`: `LaunchFacts::literal`'s flags) against `K`'s rules, in a `const` item:
/// the first broken rule, as [`KernelInfo::refused_rule`] gives it (`usize::MAX`: none).
#[inline]
pub const fn refusal_literal<K: TypedKernel>(
    grid: [u32; 3],
    block: [u32; 3],
    cluster: [u32; 3],
    known: u8,
) -> usize {
    if K::FIXES_NO_LITERAL && known & KernelInfo::LITERAL_FLAGS == 0 {
        return usize::MAX;
    }
    K::INFO.refused_rule(&LaunchFacts::literal(grid, block, cluster, known))
}

/// [`refusal_literal`] for a launch whose literals fix only its block (`[x, y, z]`): the grid
/// computed, no cluster. Four arguments, where rustc checks three arrays at more cost, once per
/// launch.
#[inline]
pub const fn refusal_block<K: TypedKernel>(x: u32, y: u32, z: u32, known: u8) -> usize {
    // Asked here, not through `refusal_literal`: rustc interprets each call.
    if K::FIXES_NO_LITERAL && known & KernelInfo::LITERAL_FLAGS == 0 {
        return usize::MAX;
    }
    K::INFO.refused_rule(&LaunchFacts::literal([0; 3], [x, y, z], [0; 3], known))
}

/// [`refusal_literal`] for facts that are not all integers.
#[inline]
pub const fn refusal<K: TypedKernel>(facts: &LaunchFacts) -> usize {
    K::INFO.refused_rule(facts)
}

/// How `launch!` reports a refused launch as an error in chevron's words (not a const panic):
/// the launch coerces `&K` to `&<K as Refusal<RULE>>::Dyn`, `RULE` being [`refusal_literal`]'s
/// (or [`refusal`]'s) rule. Every
/// type has `Refusal<{ usize::MAX }>` (nothing refused there: `K` itself, so that the
/// accepted launch has no coercion for rustc to check); for each rule a launch may break (but the three said for every kernel,
/// [`Rule::for_every_kernel`], implemented below), `#[kernel]` implements `Refusal<RULE>`
/// for the kernel with a trait object of the rule's trait in [`crate::refusals`], with the
/// kernel's numbers: the kernel does not implement it, and the trait's
/// `#[diagnostic::on_unimplemented]` message is rustc's E0277 at the launch's value.
#[diagnostic::on_unimplemented(
    message = "kernel `{Self}` refuses this launch (rule {RULE} of chevron's launch rules)",
    label = "refused by the kernel's PTX"
)]
pub trait Refusal<const RULE: usize> {
    /// The type `&K` is coerced to: `K` where the launch is accepted, a trait object `K`
    /// does not implement where it is refused.
    type Dyn: ?Sized;
}

impl<K> Refusal<{ usize::MAX }> for K {
    type Dyn = K;
}

// The three rules that most kernels may break (most never wait, most never sync the grid, most
// have no compiled-in block for `_`), said for every kernel at once: one impl each here costs nothing per declaration, where a trait
// per kernel would (their words are `rules::fit::text`'s without the file and line).
impl<K> Refusal<{ Rule::PdlWait as usize }> for K {
    type Dyn = dyn AcceptsProgrammaticSerialization;
}

impl<K> Refusal<{ Rule::NeedlessCooperative as usize }> for K {
    type Dyn = dyn NeedsCooperative;
}

impl<K> Refusal<{ Rule::NoKernelBlock as usize }> for K {
    type Dyn = dyn HasOwnBlock;
}

/// What `KERNEL::kernel()` returns for a declaration `#[kernel]` rejected: functions of the names
/// of [`Typed`]'s that take any arguments, so that call sites type-check and only the
/// declaration's errors show. Never made in a program that compiles.
#[doc(hidden)]
#[derive(Debug)]
pub struct Stub;

#[doc(hidden)]
#[allow(clippy::missing_safety_doc, clippy::missing_errors_doc, missing_docs)]
impl Stub {
    pub unsafe fn launch<S: ?Sized, A>(
        &self,
        _: &S,
        _: &LaunchConfig<'_>,
        _: A,
    ) -> Result<(), Error> {
        unreachable!("a rejected `#[kernel]` does not compile")
    }
    pub unsafe fn update<A>(&self, _: &mut Graph<'_>, _: &GraphNode, _: A) -> Result<(), Error> {
        unreachable!("a rejected `#[kernel]` does not compile")
    }
    pub unsafe fn update_scalars<A>(
        &self,
        _: &mut Graph<'_>,
        _: &GraphNode,
        _: A,
    ) -> Result<(), Error> {
        unreachable!("a rejected `#[kernel]` does not compile")
    }
    pub unsafe fn update_ordered<A, B>(
        &self,
        _: &mut Graph<'_>,
        _: &GraphNode,
        _: A,
        _: B,
    ) -> Result<(), Error> {
        unreachable!("a rejected `#[kernel]` does not compile")
    }
}

/// What `KERNEL::kernel()` returns for a declaration `#[kernel]` rejected whose parameter types
/// could be read: functions of the names of [`Typed`]'s that take the declared types (so that
/// arguments are checked and reborrowed as usual) without asking them to be kernel parameters
/// (the declaration reports that). Never made in a program that compiles.
#[doc(hidden)]
pub struct StubOf<K>(PhantomData<fn() -> K>);

impl<K> StubOf<K> {
    /// The stub of `K`.
    pub const NEW: Self = StubOf(PhantomData);
}

#[doc(hidden)]
#[allow(clippy::missing_safety_doc, clippy::missing_errors_doc, missing_docs)]
impl<K: TypedKernel> StubOf<K> {
    pub unsafe fn launch(
        &self,
        _: &CudaStream,
        _: &LaunchConfig<'_>,
        _: K::Args<'_, '_>,
    ) -> Result<(), Error> {
        unreachable!("a rejected `#[kernel]` does not compile")
    }
    pub unsafe fn update(
        &self,
        _: &mut Graph<'_>,
        _: &GraphNode,
        _: K::Args<'_, '_>,
    ) -> Result<(), Error> {
        unreachable!("a rejected `#[kernel]` does not compile")
    }
    pub unsafe fn update_scalars(
        &self,
        _: &mut Graph<'_>,
        _: &GraphNode,
        _: K::Scalars<'_>,
    ) -> Result<(), Error> {
        unreachable!("a rejected `#[kernel]` does not compile")
    }
    pub unsafe fn update_ordered(
        &self,
        _: &mut Graph<'_>,
        _: &GraphNode,
        _: K::Scalars<'_>,
        _: K::Ordered<'_>,
    ) -> Result<(), Error> {
        unreachable!("a rejected `#[kernel]` does not compile")
    }
}

impl<K> core::ops::Deref for StubOf<K> {
    type Target = Kernel;

    fn deref(&self) -> &Kernel {
        unreachable!("a rejected `#[kernel]` does not compile")
    }
}

impl core::ops::Deref for Stub {
    type Target = Kernel;

    fn deref(&self) -> &Kernel {
        unreachable!("a rejected `#[kernel]` does not compile")
    }
}

/// The `Ordered` of a kernel whose buffer types name no element type (an alias): such a kernel
/// has no [`Typed::update_ordered`]. Never made.
#[derive(Debug)]
pub enum NoElementType {}

mod sealed {
    /// Implemented by nothing: bounds on the traits below can never hold.
    pub trait Never {}
}

/// What `launch!` passes its stream through (`stream_ref(stream)`): a reference comes back as
/// it is, to be coerced to the kernel's `&CudaStream` (a `&Arc<CudaStream>` derefs to it); a
/// stream given by value (an `Arc<CudaStream>` without `&`) gets [`StreamByReference`]'s
/// message instead of rustc's type mismatch. One generic call: rustc checks one bound per
/// launch (a method probe through auto-references cost about 0.7 million instructions per
/// launch, `scripts/compile_bench.sh`).
#[inline(always)]
pub fn stream_ref<'a, T: StreamByReference<'a>>(stream: T) -> &'a T::Stream {
    stream.__chevron_stream()
}

/// What `launch!` takes as its stream: a reference (`&CudaStream`, `&Arc<CudaStream>`, or
/// anything that derefs to a `CudaStream`). A stream given by value has no implementation, and
/// gets this trait's message.
#[diagnostic::on_unimplemented(
    message = "`launch!` takes the stream by reference, not by value (`{Self}`)",
    label = "write `&` before the stream",
    note = "the third position is a `&CudaStream` (a `&Arc<CudaStream>` works too): `<<<GRID, BLOCK, &stream>>>`"
)]
pub trait StreamByReference<'a> {
    /// What the reference points at.
    type Stream: ?Sized;
    /// The reference, as a shared one.
    fn __chevron_stream(self) -> &'a Self::Stream;
}

impl<'a, S: ?Sized> StreamByReference<'a> for &'a S {
    type Stream = S;
    #[inline(always)]
    fn __chevron_stream(self) -> &'a S {
        self
    }
}

impl<'a, S: ?Sized> StreamByReference<'a> for &'a mut S {
    type Stream = S;
    #[inline(always)]
    fn __chevron_stream(self) -> &'a S {
        self
    }
}

/// What a typed `launch!` passes an argument written `&…` or `&mut …` through
/// (`ArgProbe(Some(&x)).__chevron_typed_arg()`), so that the two usual mistakes get chevron's
/// message instead of rustc's type mismatch: host memory (`&Vec<f32>`, `&[f32]`, `&[f32; N]`),
/// which no kernel parameter takes, and a view (`&CudaView`) where the kernel's parameter is a
/// whole buffer (`&CudaSlice`). Every other argument comes back unchanged, and is coerced to
/// the parameter's type as before.
pub struct ArgProbe<A>(pub Option<A>);

impl<A> ArgProbe<A> {
    #[inline(always)]
    fn value(&mut self) -> A {
        match self.0.take() {
            Some(a) => a,
            // Each probe is made with `Some` and read once.
            None => unreachable!("an `ArgProbe` is read once"),
        }
    }
}

/// The fallback (by mutable auto-reference): any other argument, unchanged.
pub trait ArgAsWritten<A> {
    /// The argument.
    fn __chevron_typed_arg(self) -> A;
}

impl<A> ArgAsWritten<A> for &mut ArgProbe<A> {
    #[inline(always)]
    fn __chevron_typed_arg(self) -> A {
        self.value()
    }
}

/// Host memory (`H`) given to a kernel: never compiles (`HostMemory`'s message).
pub trait HostArg<H: ?Sized> {
    /// Never callable: the bound cannot hold. Returns whatever the parameter is, so that the
    /// bound's message is the only error.
    fn __chevron_typed_arg<R>(self) -> R
    where
        H: HostMemory;
}

macro_rules! host_args {
    ($([$($g:tt)*] $t:ty => $pointee:ty;)*) => {$(
        impl<'a, $($g)*> HostArg<$pointee> for ArgProbe<$t> {
            #[inline(always)]
            fn __chevron_typed_arg<R>(self) -> R
            where
                $pointee: HostMemory,
            {
                <$pointee as HostMemory>::never()
            }
        }
    )*};
}

host_args! {
    [T] &'a Vec<T> => Vec<T>;
    [T] &'a mut Vec<T> => Vec<T>;
    [T] &'a [T] => [T];
    [T] &'a mut [T] => [T];
    [T, const N: usize] &'a [T; N] => [T; N];
    [T, const N: usize] &'a mut [T; N] => [T; N];
}

/// Never implemented: host memory reached a kernel parameter.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is host memory, which a kernel cannot access",
    label = "a kernel takes device buffers",
    note = "copy the data to the device first: `let x = stream.clone_htod(&data)?;` gives a `CudaSlice<T>`, passed as `&x` (or `&mut x` for a buffer the kernel writes)"
)]
pub trait HostMemory: sealed::Never {
    /// Never called.
    fn never<R>() -> R;
}

/// A view given to a kernel: fine where the parameter is that view, `ParamFrom`'s message
/// where it is a whole buffer.
pub trait ViewArg<A> {
    /// The view, as the parameter's type `R` (the same type), or `ParamFrom`'s message.
    fn __chevron_typed_arg<R>(self) -> R
    where
        R: ParamFrom<A>;
}

macro_rules! view_args {
    ($($t:ty;)*) => {$(
        impl<'a, 'b, T> ViewArg<$t> for ArgProbe<$t> {
            #[inline(always)]
            fn __chevron_typed_arg<R>(mut self) -> R
            where
                R: ParamFrom<$t>,
            {
                R::param_from(self.value())
            }
        }
    )*};
}

view_args! {
    &'a CudaView<'b, T>;
    &'a CudaViewMut<'b, T>;
}

/// A kernel parameter of type `Self` given the view `A`: only the same view type. (A
/// `&mut CudaViewMut` is not probed: rustc's coercion gives it to a `&CudaViewMut` parameter,
/// and an impl doing that here would add a line to every message.) The parameter's type is the
/// trait's `Self`, so that rustc takes it from the parameter, not from these impls.
#[diagnostic::on_unimplemented(
    message = "this argument is a `{A}`, but the kernel's parameter is a `{Self}`",
    label = "expected `{Self}`",
    note = "a view (`CudaView`, `CudaViewMut`, from `.slice(..)`) and a whole buffer (`CudaSlice`) are different types: pass the whole buffer (`&buffer`, `&mut buffer`), or declare the parameter as a view (`&CudaView<'_, T>`, `&mut CudaViewMut<'_, T>`), which takes a whole buffer as `&buffer.as_view()` (`&mut buffer.as_view_mut()`)"
)]
pub trait ParamFrom<A> {
    /// The view, as the parameter.
    fn param_from(a: A) -> Self;
}

impl<X> ParamFrom<X> for X {
    #[inline(always)]
    fn param_from(a: X) -> X {
        a
    }
}

/// What `launch!(dyn …)` returns: the launch's result, unchanged. Not `#[must_use]` itself: an
/// unused launch result is rustc's one warning for an unused `Result` (a second, of this
/// function, named it by its hidden path).
#[inline(always)]
pub fn launched<T, E>(result: Result<T, E>) -> Result<T, E> {
    result
}
