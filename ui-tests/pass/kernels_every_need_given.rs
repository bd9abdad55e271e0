// Every kernel of a file that needs the user, given what it needs: the `extern "C"` kernel's
// Rust signature in the module, the struct by value and the dependent typedef through
// `types(…)`, `__half2` left out with `skip`.
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

#[chevron::kernels(
    ptx = "kernels/kernels_needs.ptx",
    skip = ["half2_scale"],
    types("Affine" = super::Affine, "vec4<float>::Type" = chevron::vec::Float4),
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
    let _: &Typed<k::plain> = k::plain::kernel();
}
