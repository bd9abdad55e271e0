//! `#[kernels]` over the project's own C++ kernels: every entry declared in one line, typed as
//! a hand declaration would be. CPU only: the types are what is checked (launches of these
//! kernels run in `examples/cpp_port_kernels.rs`, on a GPU).

use chevron::cudarc::driver::{CudaSlice, DeviceRepr};
use chevron::kernels;
use chevron::vec::Float4;
use chevron::{Typed, TypedKernel};

/// The header's `struct Affine { float scale; float bias; }`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Affine {
    pub scale: f32,
    pub bias: f32,
}
// SAFETY: `#[repr(C)]`, two `f32`, as the C++ struct.
unsafe impl DeviceRepr for Affine {}

#[kernels(ptx = "kernels/templates.ptx")]
pub mod templates {}

#[kernels(ptx = "kernels/port_rows.ptx", types("Affine" = super::Affine))]
pub mod rows {}

#[kernels(ptx = "kernels/port_hist.ptx")]
pub mod hist {}

/// A buffer read (`&`) and written (`&mut`), with the lifetime `sig` asks for.
type R<T> = &'static CudaSlice<T>;
type M<T> = &'static mut CudaSlice<T>;

/// The argument tuple of `K` as a function type: `let _: fn((…)) = sig::<K>()` compiles only
/// when `K`'s parameters are exactly those types (rustc's own check).
fn sig<K: TypedKernel>() -> fn(K::Args<'static, 'static>) {
    |_| ()
}

#[test]
fn every_entry_is_declared_with_its_cpp_types() {
    // gemm<128>(float const*, float const*, float*, int, int, int)
    let _: &Typed<templates::gemm> = templates::gemm::kernel();
    let _: fn((R<f32>, R<f32>, M<f32>, i32, i32, i32)) = sig::<templates::gemm>();
    // scale<float>(float*, float, unsigned int) and scale<double>(…): template arguments.
    let _: fn((M<f32>, f32, u32)) = sig::<templates::scale__float>();
    let _: fn((M<f64>, f64, u32)) = sig::<templates::scale__double>();
    let _: fn((M<f32>, f32, u32)) = sig::<templates::offset_add>();
    // Overloads: their parameter types.
    let _: fn((M<f32>, R<f32>, f32, i32)) = sig::<rows::axpy__float_p_float_const_p_float_int>();
    let _: fn((M<f64>, R<f64>, f64, i32)) =
        sig::<rows::axpy__double_p_double_const_p_double_int>();
    // row_sums<256> and row_sums<128>; `float4 const*` is a buffer of Float4.
    let _: fn((M<f32>, R<Float4>, i32)) = sig::<rows::row_sums__256>();
    let _: fn((M<f32>, R<Float4>, i32)) = sig::<rows::row_sums__128>();
    let _: fn((M<Float4>, R<Float4>, R<f32>, i32)) = sig::<rows::normalize_rows>();
    // A struct by value, mapped with `types`; `unsigned long` is u64.
    let _: fn((M<f32>, Affine, u64)) = sig::<rows::affine>();
    let _: fn((M<u32>, M<u64>, R<i32>, i32, i32, i32)) = sig::<hist::histogram>();
    let _: fn((M<f32>, R<u32>, i32)) = sig::<hist::bin_total>();
}
