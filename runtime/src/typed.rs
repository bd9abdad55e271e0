//! What `launch!(KERNEL<<<…>>>(…))` asks of `KERNEL`: the trait every `#[kernel]` type
//! implements, so that anything else in the kernel's place is refused with chevron's message.

use crate::config::LaunchConfig;
use chevron_cuda_rules::fit::KernelInfo;
use cudarc::driver::{CudaView, CudaViewMut};

/// Implemented by the type `#[kernel]` makes of each declaration. `launch!` reaches the kernel
/// through it (`<KERNEL as TypedKernel>::__on(…)`), so a type that is no kernel gets this
/// message, at the kernel's name.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a `#[kernel]` declaration",
    label = "not a `#[kernel]`",
    note = "`launch!(KERNEL<<<…>>>(…))` launches a kernel declared as `#[kernel(ptx = \"…\")] fn KERNEL(…);`",
    note = "for a `CudaFunction` (from `load_function` or `KERNEL::function`), write `launch!(dyn f<<<…>>>(…))`"
)]
pub trait TypedKernel {
    /// What the kernel's PTX fixes about its launches, for `launch!`'s compile-time checks.
    const INFO: KernelInfo;

    /// What the launch's stream is a reference to: `CudaStream` for every `#[kernel]` (a
    /// stand-in without a driver, such as the host-cost bench's, names its own).
    type Stream: ?Sized;

    /// The kernel's type bound to one launch's stream and config.
    type On<'a>;

    /// Binds a launch's stream and config; the result's `launch_kernel` takes the kernel's
    /// parameters.
    fn __on<'a>(stream: &'a Self::Stream, config: &'a LaunchConfig<'a>) -> Self::On<'a>;
}

mod sealed {
    /// Implemented by nothing: bounds on the traits below can never hold.
    pub trait Never {}
}

/// What `launch!` passes its stream through (`StreamProbe(&stream).__chevron_stream()`): a
/// reference comes back as it is, to be coerced to the kernel's `&CudaStream` as before; a
/// stream given by value (an `Arc<CudaStream>` without `&`) gets `StreamByReference`'s
/// message instead of rustc's type mismatch.
pub struct StreamProbe<'p, T>(pub &'p T);

/// The stream is a reference: it comes back unchanged.
pub trait StreamRef<'p, S: ?Sized> {
    /// The reference.
    fn __chevron_stream(self) -> &'p S;
}

impl<'p, 'x: 'p, S: ?Sized> StreamRef<'p, S> for StreamProbe<'p, &'x S> {
    #[inline(always)]
    fn __chevron_stream(self) -> &'p S {
        self.0
    }
}

impl<'p, 'x: 'p, S: ?Sized> StreamRef<'p, S> for StreamProbe<'p, &'x mut S> {
    #[inline(always)]
    fn __chevron_stream(self) -> &'p S {
        self.0
    }
}

/// The fallback (one auto-reference further) for a stream given by value.
pub trait StreamByValue<'p, T> {
    /// Never callable: the bound cannot hold.
    fn __chevron_stream(self) -> &'p T
    where
        T: StreamByReference;
}

impl<'p, T> StreamByValue<'p, T> for &StreamProbe<'p, T> {
    #[inline(always)]
    fn __chevron_stream(self) -> &'p T
    where
        T: StreamByReference,
    {
        self.0
    }
}

/// Never implemented: a stream reached `launch!` by value.
#[diagnostic::on_unimplemented(
    message = "`launch!` takes the stream by reference, not by value (`{Self}`)",
    label = "write `&` before the stream",
    note = "the third position is a `&CudaStream` (a `&Arc<CudaStream>` works too): `<<<GRID, BLOCK, &stream>>>`"
)]
pub trait StreamByReference: sealed::Never {}

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

/// What `launch!(dyn …)` returns: the launch's result, unchanged. `#[must_use]` with chevron's
/// message, next to rustc's own for an unused `Result` (a typed launch's `launch_kernel` has
/// the same).
#[must_use = "a kernel launch can fail: handle its error with `?` (or `match` on it); `let _ =` would hide a failed launch"]
#[inline(always)]
pub fn launched<T, E>(result: Result<T, E>) -> Result<T, E> {
    result
}
