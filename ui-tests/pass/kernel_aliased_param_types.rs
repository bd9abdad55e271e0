//! Parameter types are checked as rustc resolves them: aliases, path-qualified primitives and
//! renamed imports are accepted where they name the right type.
use chevron::cudarc::driver::CudaSlice as DeviceBuffer;
use chevron::cudarc::driver::{CudaSlice, CudaViewMut};
use chevron::{kernel, TypedKernel};
use std::marker::PhantomData;

type Scale = f32;
type Count = u32;
type DevBuf = CudaSlice<f32>;
type Input<'a> = &'a CudaSlice<f32>;

#[kernel(ptx = "kernels/saxpy.ptx")]
pub fn saxpy(n: Count, a: Scale, x: &DevBuf, y: &mut DeviceBuffer<f32>);

#[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
pub fn saxpy_paths(
    n: std::primitive::u32,
    a: ::core::primitive::f32,
    x: Input<'_>,
    y: &mut chevron::cudarc::driver::CudaSlice<std::primitive::f32>,
);

mod types {
    pub type Wide = i64;
    pub type Double = f64;
    pub type Flag = bool;
}

#[kernel(ptx = "kernels/params.ptx")]
pub fn all_types(
    a: u8,
    b: i8,
    c: u16,
    d: i16,
    e: Count,
    f: i32,
    g: types::Wide,
    h: types::Wide,
    i: Scale,
    j: types::Double,
    k: types::Flag,
    out: &mut CudaViewMut<'_, types::Double>,
);

fn main() {
    // The kernel's parameter types are the types the spellings name.
    let _: PhantomData<<saxpy as TypedKernel>::Args<'static, 'static>> =
        PhantomData::<(u32, f32, &CudaSlice<f32>, &mut CudaSlice<f32>)>;
    let _: PhantomData<<saxpy_paths as TypedKernel>::Args<'static, 'static>> =
        PhantomData::<(u32, f32, &CudaSlice<f32>, &mut CudaSlice<f32>)>;
    let _: PhantomData<<all_types as TypedKernel>::Scalars<'static>> = PhantomData::<(
        u8,
        i8,
        u16,
        i16,
        u32,
        i32,
        i64,
        i64,
        f32,
        f64,
        bool,
    )>;
    let _ = (saxpy::kernel(), saxpy_paths::kernel(), all_types::kernel());
}
