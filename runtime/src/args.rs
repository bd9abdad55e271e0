//! Kernel parameters for untyped launches (`launch!(dyn f<<<…>>>(…))`), with cudarc's
//! cross-stream event tracking kept intact.
//!
//! The macro wraps each argument expression in [`Probe`] and calls `.__chevron_arg(stream)` on
//! it. Two traits provide that method for disjoint argument types: device buffers (taking the
//! pointer through cudarc's `DevicePtr`/`DevicePtrMut`, which makes the stream wait for earlier
//! writers and records this launch as a reader or writer), and `&T` for `T: DeviceRepr`
//! (by value). Method resolution picks the one whose bounds hold. Both traits cannot be one
//! trait: `DeviceRepr` and `CudaSlice` are cudarc's, so coherence cannot rule out an overlap.

use core::ffi::c_void;

use cudarc::driver::{
    CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr, SyncOnDrop,
};

use crate::sys;

/// Holds one kernel parameter until the launch has been enqueued.
///
/// Keep it in a local that does not move between [`ArgSlot::param`] and the launch: the
/// parameter pointer of a device buffer points into the slot.
pub struct ArgSlot<'a> {
    ptr: sys::CUdeviceptr,
    scalar: *const c_void,
    _record: Option<SyncOnDrop<'a>>,
}

impl<'a> ArgSlot<'a> {
    /// A device pointer with the guard that records this launch on the buffer's event.
    pub fn device(ptr: sys::CUdeviceptr, record: SyncOnDrop<'a>) -> Self {
        Self {
            ptr,
            scalar: core::ptr::null(),
            _record: Some(record),
        }
    }

    /// A value passed by reference to its bytes.
    pub fn value<T: DeviceRepr>(value: &'a T) -> Self {
        Self {
            ptr: 0,
            scalar: value as *const T as *const c_void,
            _record: None,
        }
    }

    /// The pointer `cuLaunchKernelEx` expects for this parameter.
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
