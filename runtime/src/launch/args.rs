//! Kernel parameters for untyped launches (`launch!(dyn f<<<…>>>(…))`), with cudarc's
//! cross-stream event tracking kept intact.
//!
//! The macro wraps each argument expression in [`Probe`] and calls `.__chevron_arg(stream)` on
//! it. Two traits provide that method for disjoint argument types: device buffers (taking the
//! pointer through cudarc's `DevicePtr`/`DevicePtrMut`, which makes the stream wait for earlier
//! writers and records this launch as a reader or writer), and `&T` for `T: DeviceRepr`
//! (by value). Method resolution picks the one whose bounds hold. Both traits cannot be one
//! trait: `DeviceRepr` and `CudaSlice` are cudarc's, so coherence cannot rule out an overlap.
//!
//! When neither applies, method resolution goes on to two fallbacks found one auto-reference
//! later ([`RefFallback`] for references, [`ValueFallback`] for values), whose methods require a
//! trait nothing implements: the user then reads that trait's message ("pass `&n`") instead of
//! "no method named `__chevron_arg`".

use core::ffi::c_void;
use core::mem::MaybeUninit;

use cudarc::driver::{
    CudaFunction, CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut,
    DeviceRepr, SyncOnDrop,
};

use crate::config::LaunchConfig;
use crate::error::Error;
use crate::sys;

/// Holds one kernel parameter until the launch has been enqueued.
///
/// Keep it in a local that does not move between [`ArgSlot::param`] and the launch: the
/// parameter pointer of a device buffer points into the slot.
pub struct ArgSlot<'a> {
    ptr: sys::CUdeviceptr,
    scalar: *const c_void,
    /// The parameter's size in bytes, for the check against `cuFuncGetParamInfo`.
    size: u32,
    _record: Option<SyncOnDrop<'a>>,
}

impl<'a> ArgSlot<'a> {
    /// A device pointer with the guard that records this launch on the buffer's event.
    #[inline(always)]
    pub fn device(ptr: sys::CUdeviceptr, record: SyncOnDrop<'a>) -> Self {
        Self {
            ptr,
            scalar: core::ptr::null(),
            size: core::mem::size_of::<sys::CUdeviceptr>() as u32,
            _record: Some(record),
        }
    }

    /// A value passed by reference to its bytes.
    #[inline(always)]
    pub fn value<T: DeviceRepr>(value: &'a T) -> Self {
        Self {
            ptr: 0,
            scalar: value as *const T as *const c_void,
            size: u32::try_from(core::mem::size_of::<T>()).unwrap_or(u32::MAX),
            _record: None,
        }
    }

    /// Records nothing on the buffer's event when dropped: for graph updates, which order the
    /// graph after the buffer's earlier uses (the waits already happened) but do not use it
    /// now, so an event recorded here would tell other streams the graph's use was over before
    /// the graph ran.
    #[inline]
    pub fn skip_record(&mut self) {
        if let Some(SyncOnDrop::Record(target)) = &mut self._record {
            *target = None;
        }
    }

    /// The pointer `cuLaunchKernelEx` expects for this parameter.
    #[inline(always)]
    pub fn param(&self) -> *mut c_void {
        if self.scalar.is_null() {
            &self.ptr as *const sys::CUdeviceptr as *mut c_void
        } else {
            self.scalar as *mut c_void
        }
    }
}

/// Wraps one argument expression of an untyped launch.
pub struct Probe<T>(pub Option<T>);

impl<T> Probe<T> {
    fn take(&mut self) -> T {
        // The macro calls `__chevron_arg` exactly once per probe.
        self.0.take().expect("argument probe used twice")
    }
}

/// Device buffers: `&CudaSlice`, `&mut CudaSlice`, `&CudaView`, `&mut CudaViewMut`.
pub trait DeviceArg<'a> {
    /// The slot for this argument on `stream`.
    fn __chevron_arg(self, stream: &'a CudaStream) -> ArgSlot<'a>;
}

/// Values: `&T` where `T: DeviceRepr` (numbers, `#[repr(C)]` structs).
pub trait ValueArg<'a> {
    /// The slot for this argument.
    fn __chevron_arg(self, stream: &'a CudaStream) -> ArgSlot<'a>;
}

impl<'a, T> DeviceArg<'a> for &mut Probe<&'a CudaSlice<T>> {
    fn __chevron_arg(self, stream: &'a CudaStream) -> ArgSlot<'a> {
        let (ptr, record) = self.take().device_ptr(stream);
        ArgSlot::device(ptr, record)
    }
}

impl<'a, T> DeviceArg<'a> for &mut Probe<&'a mut CudaSlice<T>> {
    fn __chevron_arg(self, stream: &'a CudaStream) -> ArgSlot<'a> {
        let (ptr, record) = self.take().device_ptr_mut(stream);
        ArgSlot::device(ptr, record)
    }
}

impl<'a, 'b, T> DeviceArg<'a> for &mut Probe<&'a CudaView<'b, T>> {
    fn __chevron_arg(self, stream: &'a CudaStream) -> ArgSlot<'a> {
        let (ptr, record) = self.take().device_ptr(stream);
        ArgSlot::device(ptr, record)
    }
}

/// A mutable view passed by shared reference is read, as typed kernels take `&CudaViewMut`.
impl<'a, 'b, T> DeviceArg<'a> for &mut Probe<&'a CudaViewMut<'b, T>> {
    fn __chevron_arg(self, stream: &'a CudaStream) -> ArgSlot<'a> {
        let (ptr, record) = self.take().device_ptr(stream);
        ArgSlot::device(ptr, record)
    }
}

impl<'a, 'b, T> DeviceArg<'a> for &mut Probe<&'a mut CudaViewMut<'b, T>> {
    fn __chevron_arg(self, stream: &'a CudaStream) -> ArgSlot<'a> {
        let (ptr, record) = self.take().device_ptr_mut(stream);
        ArgSlot::device(ptr, record)
    }
}

impl<'a, T: DeviceRepr> ValueArg<'a> for &mut Probe<&'a T> {
    fn __chevron_arg(self, _stream: &'a CudaStream) -> ArgSlot<'a> {
        ArgSlot::value(self.take())
    }
}

mod sealed {
    /// Implemented by nothing: the fallbacks' bounds can never hold.
    pub trait Never {}
}

/// Never implemented: a reference reached the fallback, so its target is not a kernel argument.
#[diagnostic::on_unimplemented(
    message = "`&{Self}` cannot be an argument of an untyped (`dyn`) launch",
    label = "neither a device buffer nor a `DeviceRepr` value",
    note = "numbers and `#[repr(C)]` structs implementing `DeviceRepr` are passed as `&value`; device buffers as `&CudaSlice<T>`, `&mut CudaSlice<T>`, `&CudaView<'_, T>`, `&CudaViewMut<'_, T>` or `&mut CudaViewMut<'_, T>`"
)]
pub trait NotAKernelArgument: sealed::Never {}

/// Never implemented: a value reached the fallback; untyped launches take references.
#[diagnostic::on_unimplemented(
    message = "an untyped (`dyn`) launch takes each argument by reference, as cudarc's `arg`; this `{Self}` is passed by value",
    label = "pass a reference: write `&` before it",
    note = "numbers and `#[repr(C)]` structs are passed as `&value` (`&n`, `&2.0f32`); device buffers as `&slice` or `&mut slice`"
)]
pub trait PassByReference: sealed::Never {}

/// The fallback for a reference that is not a kernel argument (reached after [`DeviceArg`] and
/// [`ValueArg`] by one auto-reference).
pub trait RefFallback<'a, T: ?Sized> {
    /// Never callable: the bound cannot hold.
    fn __chevron_arg(self, stream: &'a CudaStream) -> ArgSlot<'a>
    where
        T: NotAKernelArgument;
}

impl<'a, T: ?Sized> RefFallback<'a, T> for &&mut Probe<&T> {
    fn __chevron_arg(self, _stream: &'a CudaStream) -> ArgSlot<'a>
    where
        T: NotAKernelArgument,
    {
        unreachable!("`NotAKernelArgument` is sealed and implemented by nothing")
    }
}

impl<'a, T: ?Sized> RefFallback<'a, T> for &&mut Probe<&mut T> {
    fn __chevron_arg(self, _stream: &'a CudaStream) -> ArgSlot<'a>
    where
        T: NotAKernelArgument,
    {
        unreachable!("`NotAKernelArgument` is sealed and implemented by nothing")
    }
}

/// The fallback for an argument passed by value (reached after [`RefFallback`] by one more
/// auto-reference).
pub trait ValueFallback<'a, T> {
    /// Never callable: the bound cannot hold.
    fn __chevron_arg(self, stream: &'a CudaStream) -> ArgSlot<'a>
    where
        T: PassByReference;
}

impl<'a, T> ValueFallback<'a, T> for &mut &mut Probe<T> {
    fn __chevron_arg(self, _stream: &'a CudaStream) -> ArgSlot<'a>
    where
        T: PassByReference,
    {
        unreachable!("`PassByReference` is sealed and implemented by nothing")
    }
}

/// Room for the slots of an untyped launch's arguments, on the caller's stack: never written
/// except through the [`ArgSlots`] that fills it, which owns (and drops) the slots set in it.
/// No destructor of its own, so it may be declared before the arguments whose slots it holds.
pub struct ArgStorage<'a, const N: usize> {
    slots: [MaybeUninit<ArgSlot<'a>>; N],
}

impl<const N: usize> ArgStorage<'_, N> {
    /// Room for `N` slots, none written.
    #[inline(always)]
    pub fn new() -> Self {
        Self {
            slots: [const { MaybeUninit::uninit() }; N],
        }
    }
}

impl<const N: usize> Default for ArgStorage<'_, N> {
    fn default() -> Self {
        Self::new()
    }
}

/// The slots of an untyped launch's arguments, filled one statement at a time, in order, in an
/// [`ArgStorage`]; dropping it drops them (which records the launch on the buffers' events).
///
/// Filling an array literal `[slot0, slot1, …]` of values with a destructor makes rustc emit, for
/// each element, the clean-up of all the elements before it: quadratic in the argument count.
/// Setting the slots one by one has one clean-up (this value's). The slots set so far are the
/// first `len`; the rest of the storage is never written. This value is a reference and a
/// count, so handing it to [`launch_args`] moves two words, not the slots.
pub struct ArgSlots<'s, 'a, const N: usize> {
    storage: &'s mut [MaybeUninit<ArgSlot<'a>>; N],
    /// The first `len` slots are set.
    len: usize,
}

impl<'s, 'a, const N: usize> ArgSlots<'s, 'a, N> {
    /// No slot set yet; the slots go into `storage`.
    #[inline(always)]
    pub fn new(storage: &'s mut ArgStorage<'a, N>) -> Self {
        Self {
            storage: &mut storage.slots,
            len: 0,
        }
    }

    /// Sets parameter `i`, the next one: `launch!(dyn …)` sets them in order. A slot given out
    /// of order is dropped, and the launch refused by [`check_arg_sizes`] (not every slot set).
    #[inline(always)]
    pub fn set(&mut self, i: usize, slot: ArgSlot<'a>) {
        if i == self.len && i < N {
            self.storage[i] = MaybeUninit::new(slot);
            self.len += 1;
        }
    }

    /// The slots set.
    #[inline(always)]
    fn set_slots(&self) -> &[ArgSlot<'a>] {
        // SAFETY: the first `len` slots are initialized (only `set` writes them, in order), and
        // `MaybeUninit<T>` has `T`'s layout.
        unsafe {
            core::slice::from_raw_parts(self.storage.as_ptr().cast::<ArgSlot<'a>>(), self.len)
        }
    }

    /// The parameter array `cuLaunchKernelEx` takes: one pointer per slot (null for a slot not
    /// set, which [`check_arg_sizes`] refuses).
    #[inline(always)]
    pub fn params(&self) -> [*mut c_void; N] {
        let mut params = [core::ptr::null_mut(); N];
        for (param, slot) in params.iter_mut().zip(self.set_slots()) {
            *param = slot.param();
        }
        params
    }
}

impl<const N: usize> Drop for ArgSlots<'_, '_, N> {
    #[inline(always)]
    fn drop(&mut self) {
        let set = core::ptr::slice_from_raw_parts_mut(
            self.storage.as_mut_ptr().cast::<ArgSlot<'_>>(),
            self.len,
        );
        // SAFETY: the first `len` slots are initialized, and dropped only here.
        unsafe { core::ptr::drop_in_place(set) }
    }
}

/// Launches `func` with one parameter per slot, in order: the parameter array lives on the
/// stack, sized by the argument count, so launching allocates nothing. The slots are dropped
/// when it returns (recording the launch on the buffers' events).
///
/// # Safety
/// As [`crate::launch_function`]: the slots must match the kernel's parameters, and all be set.
#[inline(always)]
pub unsafe fn launch_args<const N: usize>(
    stream: &CudaStream,
    func: &CudaFunction,
    config: &LaunchConfig<'_>,
    slots: ArgSlots<'_, '_, N>,
) -> Result<(), Error> {
    check_params(stream, func, &slots)?;
    let mut params = slots.params();
    // SAFETY: forwarded from the caller; the slots outlive the call.
    unsafe { crate::launch::launch_named(stream, func, None, config, &mut params) }
}

/// Checks an untyped launch's arguments against the kernel's parameters as the driver reports
/// them (`cuFuncGetParamInfo`, asked once per function): a wrong count or size is
/// `Error::Signature` instead of a launch that reads past its arguments. Afterwards this costs a
/// lookup of the function's entry and one comparison per argument.
///
/// Not available before CUDA 12.4: with the features `cuda-12000` … `cuda-12030`, and with a
/// driver that lacks the call, nothing is checked.
#[inline]
fn check_params<const N: usize>(
    stream: &CudaStream,
    func: &CudaFunction,
    slots: &ArgSlots<'_, '_, N>,
) -> Result<(), Error> {
    // A failure leaves the launch unchecked (the launch itself reports a broken context).
    let sizes = crate::launch::function::function_info(func).param_sizes(stream.context(), func);
    match sizes {
        Some(sizes) => match check_arg_sizes(sizes, slots) {
            Ok(()) => Ok(()),
            Err(e) => recheck_params(stream, func, slots, e),
        },
        None => Ok(()),
    }
}

/// A mismatch against the cached sizes, asked of the driver again before it is reported: the
/// cache is keyed by the `CUfunction` handle, and a module the user dropped can leave its
/// function's entry to a later function given the same handle (seen on the H200: a `dyn`
/// launch of a freshly loaded one-parameter kernel was refused with the four sizes of a kernel
/// of an earlier, dropped module). A refusal is never made on a stale entry.
#[cold]
#[inline(never)]
fn recheck_params<const N: usize>(
    stream: &CudaStream,
    func: &CudaFunction,
    slots: &ArgSlots<'_, '_, N>,
    cached_refusal: Error,
) -> Result<(), Error> {
    let _ = stream.context().bind_to_thread();
    match crate::driver::param_sizes(func) {
        Ok(Some(fresh)) => check_arg_sizes(&fresh, slots),
        // The driver cannot tell now: the cached answer stands.
        _ => Err(cached_refusal),
    }
}

/// The check of [`launch_args`] once the kernel's parameter sizes are known: one comparison per
/// argument, `Error::Signature` with the sizes on a mismatch. Shared with the host-cost
/// benchmark (`benches/host_cost.rs`). Not a public API.
#[inline]
pub fn check_arg_sizes<const N: usize>(
    sizes: &[u32],
    slots: &ArgSlots<'_, '_, N>,
) -> Result<(), Error> {
    let set = slots.set_slots();
    let matches = sizes.len() == N
        && set.len() == N
        && sizes.iter().zip(set).all(|(size, slot)| slot.size == *size);
    if matches {
        Ok(())
    } else {
        Err(signature_mismatch(sizes, slots))
    }
}

/// The message for an untyped launch whose arguments do not match the kernel's parameters.
#[cold]
fn signature_mismatch<const N: usize>(kernel: &[u32], slots: &ArgSlots<'_, '_, N>) -> Error {
    // A slot not set (never, from `launch!`) counts as 0 bytes.
    let passed: Vec<u32> = (0..N)
        .map(|i| slots.set_slots().get(i).map_or(0, |s| s.size))
        .collect();
    let list = |sizes: &[u32]| {
        sizes
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let message = if kernel.len() != passed.len() {
        format!(
            "the kernel takes {} parameter{} (sizes in bytes: {}) and the `dyn` launch passes {} \
             argument{} ({}), per cuFuncGetParamInfo",
            kernel.len(),
            if kernel.len() == 1 { "" } else { "s" },
            list(kernel),
            passed.len(),
            if passed.len() == 1 { "" } else { "s" },
            list(&passed)
        )
    } else {
        let (i, (want, got)) = kernel
            .iter()
            .zip(&passed)
            .enumerate()
            .find(|(_, (k, p))| k != p)
            .unwrap_or((0, (&0, &0)));
        format!(
            "argument {} of the `dyn` launch is {got} bytes, but the kernel's parameter {} is \
             {want} bytes (per cuFuncGetParamInfo); a device buffer is passed as `&slice`, a \
             value as `&value` of the kernel's type",
            i + 1,
            i + 1
        )
    };
    Error::Signature {
        kernel: crate::error::KernelName(None),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mismatch_messages_give_the_count_and_the_sizes() {
        let (n, a, wide) = (1u32, 2.0f32, 3u64);
        let mut storage = ArgStorage::<2>::new();
        let mut slots = ArgSlots::new(&mut storage);
        slots.set(0, ArgSlot::value(&n));
        slots.set(1, ArgSlot::value(&a));
        let count = signature_mismatch(&[4, 4, 8, 8], &slots).to_string();
        assert!(
            count.contains("takes 4 parameters (sizes in bytes: 4, 4, 8, 8)")
                && count.contains("passes 2 arguments (4, 4)"),
            "{count}"
        );
        let mut storage = ArgStorage::<2>::new();
        let mut slots = ArgSlots::new(&mut storage);
        slots.set(0, ArgSlot::value(&wide));
        slots.set(1, ArgSlot::value(&a));
        let size = signature_mismatch(&[4, 4], &slots).to_string();
        assert!(
            size.contains("argument 1 of the `dyn` launch is 8 bytes, but the kernel's parameter 1 is 4 bytes"),
            "{size}"
        );
    }
}
