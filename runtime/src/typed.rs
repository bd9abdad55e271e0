//! What `launch!(KERNEL<<<…>>>(…))` asks of `KERNEL`: the trait every `#[kernel]` type
//! implements, so that anything else in the kernel's place is refused with chevron's message.

use crate::config::LaunchConfig;
use chevron_cuda_spec::fit::KernelInfo;

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

    /// Binds a launch's stream and config; the result's `__launch` takes the kernel's
    /// parameters.
    fn __on<'a>(stream: &'a Self::Stream, config: &'a LaunchConfig<'a>) -> Self::On<'a>;
}
