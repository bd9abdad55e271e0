//! Every supported parameter type, checked against kernels/params.ptx (all_types), structs.ptx
//! (affine) and saxpy.ptx (views).
use chevron::cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DeviceRepr};
use chevron::{kernel, TypedKernel};
use std::marker::PhantomData;

#[kernel(ptx = "kernels/params.ptx")]
pub fn all_types(
    a: u8,
    b: i8,
    c: u16,
    d: i16,
    e: u32,
    f: i32,
    g: u64,
    h: i64,
    i: f32,
    j: f64,
    k: bool,
    out: &mut CudaSlice<f64>,
);

// Signedness is not part of the check; usize/isize are 64-bit; any buffer type for a pointer.
#[kernel(ptx = "kernels/params.ptx", name = "all_types")]
pub fn all_types_other_spellings(
    a: i8,
    b: u8,
    c: i16,
    d: u16,
    e: i32,
    f: u32,
    g: usize,
    h: isize,
    i: f32,
    j: f64,
    k: u8,
    out: &mut CudaViewMut<'_, f64>,
);

#[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
pub fn saxpy_views(n: u32, a: f32, x: &CudaView<'_, f32>, y: &mut CudaViewMut<'_, f32>);

// A `CudaViewMut` can be passed where the kernel only reads; full paths work too.
#[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
pub fn saxpy_paths(
    n: u32,
    a: f32,
    x: &CudaViewMut<'_, f32>,
    y: &mut chevron::cudarc::driver::CudaSlice<f32>,
);

/// Mirrors `struct Affine` in kernels/structs.cu.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Affine {
    pub scale: f32,
    pub offset: i32,
    pub bias: f64,
}

// SAFETY: `#[repr(C)]`, plain numbers, laid out as the CUDA struct.
unsafe impl DeviceRepr for Affine {}

#[kernel(ptx = "kernels/structs.ptx")]
pub fn affine(p: Affine, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);

fn main() {
    // Each declaration's kernel, named as the Rust declaration names it.
    assert_eq!(all_types::kernel().name(), "all_types");
    assert_eq!(all_types_other_spellings::kernel().name(), "all_types_other_spellings");
    assert_eq!(saxpy_views::kernel().name(), "saxpy_views");
    assert_eq!(saxpy_paths::kernel().name(), "saxpy_paths");
    assert_eq!(affine::kernel().name(), "affine");
    // The parameter types as declared, views with their lifetime, a struct by value.
    let _: PhantomData<<saxpy_views as TypedKernel>::Args<'static, 'static>> =
        PhantomData::<(u32, f32, &CudaView<'static, f32>, &mut CudaViewMut<'static, f32>)>;
    let _: PhantomData<<affine as TypedKernel>::Args<'static, 'static>> =
        PhantomData::<(Affine, &CudaSlice<f32>, &mut CudaSlice<f32>, u32)>;
    let _: PhantomData<<affine as TypedKernel>::Scalars<'static>> = PhantomData::<(Affine, u32)>;
    assert_eq!(<all_types as TypedKernel>::BUFFERS.len(), 12);
    assert_eq!(<affine as TypedKernel>::BUFFERS, [false, true, true, false]);
}
