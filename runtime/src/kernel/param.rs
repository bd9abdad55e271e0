//! The parameter types of `#[kernel]` declarations, decided by the type system.
//!
//! `#[kernel]` sees tokens: it cannot tell that `type Scale = f32` is a float, that
//! `std::primitive::u64` is an integer, or that `DeviceBuffer` in
//! `use cudarc::driver::CudaSlice as DeviceBuffer` is a device buffer. rustc can. Every type a
//! kernel can take implements [`KernelParam`], whose [`FORM`](KernelParam::FORM) says what it
//! is in PTX terms and whose method passes it to the launch; the declaration expands to a const
//! block comparing each parameter's form with the PTX parameter in its place.
//!
//! Three families, told apart by a marker type so that their impls cannot overlap (cudarc owns
//! both `DeviceRepr` and `CudaSlice`, so coherence could not rule out a `DeviceRepr` device
//! buffer otherwise): any `T: DeviceRepr` by value ([`ByValue`]), `&B` ([`ByRef`]) and
//! `&mut B` ([`ByMut`]) for a device buffer `B`. rustc infers the marker: exactly one family's
//! bounds hold for a kernel parameter type.
//!
//! A by-value type's generic form is only its size; numbers and `bool` are refined through
//! [`Scalar`] at the declaration, where the type is concrete: [`Of::<T>::SCALAR`](Of) is the
//! inherent const when `T: Scalar` and [`NotScalar`]'s `None` otherwise (an inherent associated
//! item wins over a trait's when its bounds hold).
//!
//! What a type is in C++ terms ([`Class`]: `int`, `float`, `__half`, `float4`) is refined the
//! same way, for the checks against a C++ kernel's demangled symbol: [`Of::<T>::CLASS`](Of)
//! for a value of a [`KnownType`], [`Of::<&B>::ELEM`](Of) for a buffer of one. A type chevron
//! does not name (the user's own struct) is [`Class::Unknown`] and checked by size and
//! alignment.
//!
//! A type that is no kernel parameter fails a bound at the parameter. Which trait states that
//! bound only changes the words of the error: the macro picks one from the spelling (`&[f32]`
//! gets "points to host memory … `&CudaSlice<f32>`"), and every one of them holds exactly when
//! `KernelParam` does. Each generated use of a parameter goes through the same constructor call
//! (e.g. [`host_data::<&[f32], f32, _>()`](host_data)), so rustc reports one error per parameter.

use core::marker::PhantomData;

use cudarc::driver::{
    sys, CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceRepr,
    SyncOnDrop,
};

use crate::launch::args::ArgSlot;
pub use chevron_cuda_rules::param::{
    check, check_param, mismatch, Class, CppParam, Facts, Message, Num, ParamForm, Texts,
};
pub use chevron_cuda_rules::ptx::PtxType;

/// Marker of [`KernelParam`] for values (`T: DeviceRepr`).
pub enum ByValue {}
/// Marker of [`KernelParam`] for `&B`, a device buffer the kernel reads.
pub enum ByRef {}
/// Marker of [`KernelParam`] for `&mut B`, a device buffer the kernel may write.
pub enum ByMut {}

mod sealed {
    pub trait Sealed<M> {}
}

/// A type a kernel parameter can have; `M` is [`ByValue`], [`ByRef`] or [`ByMut`], inferred.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a kernel parameter",
    label = "not a kernel parameter type",
    note = "a kernel takes numbers, `bool` and `#[repr(C)]` structs implementing `DeviceRepr` by value, and device buffers by reference: `&CudaSlice<T>`, `&mut CudaSlice<T>`, `&CudaView<'_, T>`, `&mut CudaViewMut<'_, T>`"
)]
pub trait KernelParam<M>: Sized + sealed::Sealed<M> {
    /// What the type is in PTX terms; for numbers and `bool` only their size (see [`Scalar`]).
    const FORM: ParamForm;

    /// This argument's slot for a launch on `stream`: a device buffer's pointer, ordered after
    /// its earlier uses on other streams by cudarc's events (the slot records this launch on
    /// them when dropped), or a value's bytes.
    fn __chevron_slot<'a>(&'a mut self, stream: &'a CudaStream) -> ArgSlot<'a>;
}

/// A device buffer a kernel may read: `CudaSlice<T>`, `CudaView<'_, T>`, `CudaViewMut<'_, T>`.
pub trait DeviceBuffer {
    /// The element type.
    type Elem;
    /// The size of an element in bytes.
    const ELEMENT_BYTES: u64;
    /// The alignment of an element in bytes.
    const ELEMENT_ALIGN: u64;
    /// `DevicePtr::device_ptr`.
    fn __chevron_ptr<'a>(&'a self, stream: &'a CudaStream) -> (sys::CUdeviceptr, SyncOnDrop<'a>);
}

/// A device buffer a kernel may write: `CudaSlice<T>`, `CudaViewMut<'_, T>`.
pub trait DeviceBufferMut: DeviceBuffer {
    /// `DevicePtrMut::device_ptr_mut`.
    fn __chevron_ptr_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>);
}

macro_rules! buffers {
    ($($ty:ty),*) => {$(
        impl<T> DeviceBuffer for $ty {
            type Elem = T;
            const ELEMENT_BYTES: u64 = core::mem::size_of::<T>() as u64;
            const ELEMENT_ALIGN: u64 = core::mem::align_of::<T>() as u64;
            #[inline]
            fn __chevron_ptr<'a>(
                &'a self,
                stream: &'a CudaStream,
            ) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
                DevicePtr::device_ptr(self, stream)
            }
        }
    )*};
}
buffers!(CudaSlice<T>, CudaView<'_, T>, CudaViewMut<'_, T>);

impl<T> DeviceBufferMut for CudaSlice<T> {
    #[inline]
    fn __chevron_ptr_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        DevicePtrMut::device_ptr_mut(self, stream)
    }
}

impl<T> DeviceBufferMut for CudaViewMut<'_, T> {
    #[inline]
    fn __chevron_ptr_mut<'a>(
        &'a mut self,
        stream: &'a CudaStream,
    ) -> (sys::CUdeviceptr, SyncOnDrop<'a>) {
        DevicePtrMut::device_ptr_mut(self, stream)
    }
}

impl<T: DeviceRepr> sealed::Sealed<ByValue> for T {}
impl<T: DeviceRepr> KernelParam<ByValue> for T {
    const FORM: ParamForm = ParamForm::value(core::mem::size_of::<T>() as u64).with_layout(
        core::mem::size_of::<T>() as u64,
        core::mem::align_of::<T>() as u64,
    );

    #[inline(always)]
    fn __chevron_slot<'a>(&'a mut self, _stream: &'a CudaStream) -> ArgSlot<'a> {
        ArgSlot::value(self)
    }
}

impl<B: DeviceBuffer> sealed::Sealed<ByRef> for &B {}
// Not listed as "other types implementing `KernelParam`" under an error: the wordings say it.
#[diagnostic::do_not_recommend]
impl<B: DeviceBuffer> KernelParam<ByRef> for &B {
    const FORM: ParamForm =
        ParamForm::buffer(B::ELEMENT_BYTES, false).with_layout(B::ELEMENT_BYTES, B::ELEMENT_ALIGN);

    #[inline(always)]
    fn __chevron_slot<'a>(&'a mut self, stream: &'a CudaStream) -> ArgSlot<'a> {
        let (ptr, record) = (**self).__chevron_ptr(stream);
        ArgSlot::device(ptr, record)
    }
}

impl<B: DeviceBufferMut> sealed::Sealed<ByMut> for &mut B {}
#[diagnostic::do_not_recommend]
impl<B: DeviceBufferMut> KernelParam<ByMut> for &mut B {
    const FORM: ParamForm =
        ParamForm::buffer(B::ELEMENT_BYTES, true).with_layout(B::ELEMENT_BYTES, B::ELEMENT_ALIGN);

    #[inline(always)]
    fn __chevron_slot<'a>(&'a mut self, stream: &'a CudaStream) -> ArgSlot<'a> {
        let (ptr, record) = (**self).__chevron_ptr_mut(stream);
        ArgSlot::device(ptr, record)
    }
}

/// Numbers and `bool`: their exact PTX class, which a by-value [`KernelParam`] cannot say (its
/// impl is generic over `DeviceRepr`). `half::f16` and `bf16` are not here: CUDA passes
/// `__half` as a 2-byte struct, which their by-value form (2 bytes) matches.
pub trait Scalar {
    /// `Int(bits)`, `Float(bits)` or `Bool`.
    const FORM: ParamForm;
}

macro_rules! scalars {
    ($($form:expr => $($ty:ty),*;)*) => {$($(
        impl Scalar for $ty {
            const FORM: ParamForm = $form;
        }
    )*)*};
}
scalars! {
    ParamForm::int(8) => u8, i8;
    ParamForm::int(16) => u16, i16;
    ParamForm::int(32) => u32, i32;
    ParamForm::int(64) => u64, i64;
    ParamForm::int(usize::BITS) => usize, isize;
    ParamForm::float(32) => f32;
    ParamForm::float(64) => f64;
    ParamForm::bool() => bool;
}

/// A type whose C++ counterpart chevron knows: the numbers (`i32` is `int`, `u64` is
/// `unsigned long` or `size_t`), `bool`, `half::f16`/`bf16` (`__half`/`__nv_bfloat16`,
/// feature `f16`) and the vector types of [`crate::vec`] (`Float4` is `float4`). A kernel
/// parameter of another type (a `#[repr(C)]` struct) is checked against a C++ signature by
/// size and alignment only.
pub trait KnownType {
    /// What it is in C++ terms.
    const CLASS: Class;
}

macro_rules! known {
    ($($class:expr => $($ty:ty),*;)*) => {$($(
        impl KnownType for $ty {
            const CLASS: Class = $class;
        }
    )*)*};
}
known! {
    Class::Num(Num::Int { bits: 8, signed: false }) => u8;
    Class::Num(Num::Int { bits: 8, signed: true }) => i8;
    Class::Num(Num::Int { bits: 16, signed: false }) => u16;
    Class::Num(Num::Int { bits: 16, signed: true }) => i16;
    Class::Num(Num::Int { bits: 32, signed: false }) => u32;
    Class::Num(Num::Int { bits: 32, signed: true }) => i32;
    Class::Num(Num::Int { bits: 64, signed: false }) => u64;
    Class::Num(Num::Int { bits: 64, signed: true }) => i64;
    Class::Num(Num::Int { bits: usize::BITS, signed: false }) => usize;
    Class::Num(Num::Int { bits: usize::BITS, signed: true }) => isize;
    Class::Num(Num::Float(32)) => f32;
    Class::Num(Num::Float(64)) => f64;
    Class::Num(Num::Bool) => bool;
}
#[cfg(feature = "f16")]
known! {
    Class::Num(Num::F16) => half::f16;
    Class::Num(Num::BF16) => half::bf16;
}

/// `Of::<T>::SCALAR`: `Some(T::FORM)` for a [`Scalar`] `T`, else `None`; `Of::<T>::CLASS`:
/// `Some(T::CLASS)` for a [`KnownType`] `T`; `Of::<&B>::ELEM` (and `Of::<&mut B>::ELEM`): the
/// class of a device buffer's elements, where they are a [`KnownType`]. The fallbacks are
/// [`NotScalar`]'s, which must be in scope.
pub struct Of<T: ?Sized>(PhantomData<fn() -> *const T>);

impl<T: Scalar> Of<T> {
    /// `T`'s exact form.
    pub const SCALAR: Option<ParamForm> = Some(T::FORM);
}

impl<T: KnownType> Of<T> {
    /// `T`'s C++ class.
    pub const CLASS: Option<Class> = Some(T::CLASS);
}

impl<B: DeviceBuffer> Of<&B>
where
    B::Elem: KnownType,
{
    /// The C++ class of the buffer's elements.
    pub const ELEM: Option<Class> = Some(<B::Elem as KnownType>::CLASS);
}

impl<B: DeviceBuffer> Of<&mut B>
where
    B::Elem: KnownType,
{
    /// The C++ class of the buffer's elements.
    pub const ELEM: Option<Class> = Some(<B::Elem as KnownType>::CLASS);
}

/// The fallbacks of [`Of`]'s consts, for types that are none of those.
pub trait NotScalar {
    /// Not a number nor `bool`.
    const SCALAR: Option<ParamForm> = None;
    /// Not a [`KnownType`].
    const CLASS: Option<Class> = None;
    /// Not a buffer of a [`KnownType`].
    const ELEM: Option<Class> = None;
}

impl<T: ?Sized> NotScalar for Of<T> {}

/// The form of a parameter: the scalar one where there is one, of the class `class` (a
/// value's) or `elem` (a buffer's elements') where known.
pub const fn form(
    scalar: Option<ParamForm>,
    class: Option<Class>,
    elem: Option<Class>,
    generic: ParamForm,
) -> ParamForm {
    let form = match scalar {
        Some(form) => ParamForm {
            expected: form.expected,
            ..generic
        },
        None => generic,
    };
    match (class, elem) {
        (Some(class), _) | (None, Some(class)) => form.with_class(class),
        (None, None) => form,
    }
}

/// What a declaration's check uses of a parameter type `T`: its generic form, through the
/// wording constructors below, so that where a type is no kernel parameter only the
/// constructor's bound fails.
pub struct Param<T> {
    /// `T`'s [`KernelParam::FORM`].
    pub form: ParamForm,
    ty: PhantomData<fn() -> T>,
}

impl<T> Param<T> {
    /// `T`'s form, `T` being a kernel parameter type of marker `M`.
    #[inline]
    const fn new<M>() -> Self
    where
        T: KernelParam<M>,
    {
        Self {
            form: T::FORM,
            ty: PhantomData,
        }
    }
}

macro_rules! wordings {
    ($(
        $(#[$doc:meta])*
        $trait:ident<$($hint:ident),*> { $($words:tt)* }
    )*) => {$(
        $(#[$doc])*
        #[diagnostic::on_unimplemented($($words)*)]
        pub trait $trait<$($hint: ?Sized,)* M>: KernelParam<M> {}
        impl<T: KernelParam<M>, $($hint: ?Sized,)* M> $trait<$($hint,)* M> for T {}
    )*};
}

wordings! {
    /// Any type, when its spelling tells nothing more.
    AnyParam<> {
        message = "`{Self}` cannot be a kernel parameter",
        label = "not a kernel parameter type",
        note = "a kernel takes numbers, `bool` and `#[repr(C)]` structs implementing `DeviceRepr` by value, and device buffers by reference: `&CudaSlice<T>`, `&mut CudaSlice<T>`, `&CudaView<'_, T>`, `&mut CudaViewMut<'_, T>`"
    }

    /// A type written by value (a path, an array, a tuple …).
    KernelValue<> {
        message = "`{Self}` cannot be passed to a kernel by value: it does not implement `DeviceRepr`",
        label = "not `DeviceRepr`",
        note = "for a `#[repr(C)]` struct laid out like the kernel's, add `unsafe impl DeviceRepr for {Self} {{}}`",
        note = "device buffers are taken by reference: `&CudaSlice<T>`, `&mut CudaSlice<T>`, `&CudaView<'_, T>`, `&mut CudaViewMut<'_, T>`"
    }

    /// Host data written as `&[E]`, `&Vec<E>`, `Vec<E>`, `Box<[E]>` …, read by the kernel.
    HostData<E> {
        message = "`{Self}` points to host memory, which a kernel cannot access",
        label = "declare `&CudaSlice<{E}>` instead",
        note = "copy the data to the device first: `let x = stream.clone_htod(&data)?;` gives a `CudaSlice<{E}>`"
    }

    /// Host data written as `&mut [E]`, `&mut Vec<E>` …
    HostDataMut<E> {
        message = "`{Self}` points to host memory, which a kernel cannot access",
        label = "declare `&mut CudaSlice<{E}>` instead",
        note = "copy the data to the device first (`let x = stream.clone_htod(&data)?;` gives a `CudaSlice<{E}>`) and the results back with `stream.clone_dtoh(&x)?`"
    }

    /// `&R` for any other `R`.
    HostRef<R> {
        message = "`{Self}` points to host memory, which a kernel cannot read",
        label = "not a device buffer",
        note = "if `{R}` is a number or a `#[repr(C)]` struct, pass it by value: declare `{R}`",
        note = "host data is copied to the device first (`stream.clone_htod(&data)?` gives a `CudaSlice<T>`) and declared as `&CudaSlice<T>`"
    }

    /// `&mut R` for any other `R`.
    HostMut<R> {
        message = "`{Self}` points to host memory, which a kernel cannot write",
        label = "not a writable device buffer",
        note = "declare a `&mut CudaSlice<T>` (or `&mut CudaViewMut<'_, T>`) for the kernel's output and copy it back with `stream.clone_dtoh(&out)?`",
        note = "a `CudaView` is read-only: take a `&mut CudaViewMut<'_, T>` (from `slice_mut`) for a buffer the kernel writes"
    }

    /// `&mut CudaView<'_, E>`.
    ReadOnlyView<E> {
        message = "a `CudaView` is read-only: `{Self}` cannot be written",
        label = "write `&CudaView<'_, {E}>` for a buffer the kernel reads",
        note = "take a `&mut CudaViewMut<'_, {E}>` (from `slice_mut`) for a buffer the kernel writes"
    }

    /// `CudaSlice<T>`, `CudaView<'_, T>` or `CudaViewMut<'_, T>` by value.
    BufferByValue<> {
        message = "`{Self}` is passed by reference: a kernel takes a device buffer as `&{Self}`",
        label = "write `&{Self}` for a buffer the kernel reads, `&mut {Self}` for one it writes",
        note = "a `CudaView` is read-only: a kernel writes through `&mut CudaSlice<T>` or `&mut CudaViewMut<'_, T>`"
    }

    /// `*const T`, `*mut T`.
    RawPointer<> {
        message = "`{Self}` is a raw pointer, which a kernel parameter cannot be",
        label = "a raw pointer",
        note = "a kernel takes device buffers as `&CudaSlice<T>` / `&mut CudaSlice<T>` (which keep cudarc's stream ordering), or a raw device address as `u64`"
    }
}

// The constructors, one per wording: each is `Param { form: T::FORM, slot }` under its
// wording's bound. Written out, so that "required by a bound in `host_data`" shows one line.

/// The [`Param`] of `T`, with [`AnyParam`]'s words for a type that is no kernel parameter.
#[inline]
pub const fn param<T: AnyParam<M>, M>() -> Param<T> {
    Param::new::<M>()
}

/// The [`Param`] of `T`, with [`KernelValue`]'s words.
#[inline]
pub const fn value<T: KernelValue<M>, M>() -> Param<T> {
    Param::new::<M>()
}

/// The [`Param`] of `T`, with [`HostData`]'s words.
#[inline]
pub const fn host_data<T: HostData<E, M>, E: ?Sized, M>() -> Param<T> {
    Param::new::<M>()
}

/// The [`Param`] of `T`, with [`HostDataMut`]'s words.
#[inline]
pub const fn host_data_mut<T: HostDataMut<E, M>, E: ?Sized, M>() -> Param<T> {
    Param::new::<M>()
}

/// The [`Param`] of `T`, with [`HostRef`]'s words.
#[inline]
pub const fn host_ref<T: HostRef<R, M>, R: ?Sized, M>() -> Param<T> {
    Param::new::<M>()
}

/// The [`Param`] of `T`, with [`HostMut`]'s words.
#[inline]
pub const fn host_mut<T: HostMut<R, M>, R: ?Sized, M>() -> Param<T> {
    Param::new::<M>()
}

/// The [`Param`] of `T`, with [`ReadOnlyView`]'s words.
#[inline]
pub const fn read_only_view<T: ReadOnlyView<E, M>, E: ?Sized, M>() -> Param<T> {
    Param::new::<M>()
}

/// The [`Param`] of `T`, with [`BufferByValue`]'s words.
#[inline]
pub const fn buffer_by_value<T: BufferByValue<M>, M>() -> Param<T> {
    Param::new::<M>()
}

/// The [`Param`] of `T`, with [`RawPointer`]'s words.
#[inline]
pub const fn raw_pointer<T: RawPointer<M>, M>() -> Param<T> {
    Param::new::<M>()
}

#[cfg(test)]
mod tests;
