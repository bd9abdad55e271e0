// Every kernel of a file that needs the user, given what it needs: the `extern "C"` kernel's
// Rust signature in the module, the struct by value and the dependent typedef through
// `types(…)`, the pointer to a struct `Pixel` through `types(…)` too; `__half2*` is
// `chevron::vec::Half2` (the tests build with feature `f16`).
use chevron::cudarc::driver::DeviceRepr;
use chevron::{Typed, TypedKernel};

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Affine {
    pub scale: f32,
    pub bias: f32,
}
// SAFETY: `#[repr(C)]`, two `f32`, as the C++ struct.
unsafe impl DeviceRepr for Affine {}

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Pixel {
    pub rgba: [u8; 4],
}
// SAFETY: `#[repr(C)]`, four bytes, as the C++ struct.
unsafe impl DeviceRepr for Pixel {}

#[chevron::kernels(
    ptx = "kernels/kernels_needs.ptx",
    types(
        "Affine" = super::Affine,
        "Pixel" = super::Pixel,
        "vec4<float>::Type" = chevron::vec::Float4
    ),
)]
pub mod k {
    use chevron::cudarc::driver::CudaSlice;

    /// `extern "C" c_scale(float* x, float s, int n)`.
    pub fn c_scale(x: &mut CudaSlice<f32>, s: f32, n: i32);
}

fn sig<K: TypedKernel>() -> fn(K::Args<'static, 'static>) {
    |_| ()
}

type M<T> = &'static mut chevron::cudarc::driver::CudaSlice<T>;
type R<T> = &'static chevron::cudarc::driver::CudaSlice<T>;

fn main() {
    let _: fn((M<f32>, f32, i32)) = sig::<k::c_scale>();
    let _: fn((M<f32>, Affine, i32)) = sig::<k::affine>();
    let _: fn((M<chevron::vec::Float4>, i32)) = sig::<k::bias4>();
    let _: fn((M<f32>, R<f32>, i32)) = sig::<k::plain>();
    let _: fn((M<Pixel>, i32)) = sig::<k::pixels>();
    let _: fn((M<chevron::vec::Half2>, i32)) = sig::<k::half2_scale>();
    let _: &Typed<k::plain> = k::plain::kernel();
}
