//! C++ kernels by their demangled names: a template instance, a whole signature in another
//! spelling, overloads told apart by the declared parameters, `size_t` as `usize`, `float4` as
//! `chevron::vec::Float4`; and `#[read_only]` on a pointer that is not `const` but only read.
use chevron::cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DeviceRepr};
use chevron::kernel;
use chevron::vec::Float4;

#[kernel(ptx = "kernels/port_rows.ptx", name = "row_sums<128>")]
fn row_sums_128(sums: &mut CudaSlice<f32>, input: &CudaSlice<Float4>, cols4: i32);

#[kernel(
    ptx = "kernels/port_rows.ptx",
    name = "void normalize_rows < 256 > (float4 *, const float4 *, const float *, int)"
)]
fn normalize_rows(
    out: &mut CudaViewMut<'_, Float4>,
    input: &CudaView<'_, Float4>,
    sums: &CudaSlice<f32>,
    cols4: i32,
);

// Both overloads of `axpy`, by their parameters; a `&mut` for a `const` pointer is allowed.
#[kernel(ptx = "kernels/port_rows.ptx", name = "axpy")]
fn axpy_f32(y: &mut CudaSlice<f32>, x: &mut CudaSlice<f32>, a: f32, n: i32);
#[kernel(ptx = "kernels/port_rows.ptx", name = "axpy")]
fn axpy_f64(y: &mut CudaSlice<f64>, x: &CudaSlice<f64>, a: f64, n: i32);

#[repr(C)]
#[derive(Clone, Copy)]
struct Affine {
    scale: f32,
    bias: f32,
}
unsafe impl DeviceRepr for Affine {}

// `size_t` is `unsigned long`: `usize` or `u64`; a raw device address for a pointer.
#[kernel(ptx = "kernels/port_rows.ptx")]
fn affine(x: u64, a: Affine, n: usize);

// The templates of kernels/templates.ptx, by name.
#[kernel(ptx = "kernels/templates.ptx")]
fn scale(x: &mut CudaSlice<f64>, f: f64, n: u32);

#[kernel(ptx = "rules/tests/fixtures/writes.ptx")]
fn cpp_reads(#[read_only] x: &CudaSlice<f32>, sum: &mut CudaSlice<f32>, n: i32);

// An `extern "C"` kernel whose pointers the PTX only reads may take them read-only.
#[kernel(ptx = "rules/tests/fixtures/writes.ptx")]
fn reads_only(x: &CudaSlice<f32>, sum: &mut CudaSlice<f32>, n: i32);

fn main() {
    let _ = (row_sums_128::kernel(), normalize_rows::kernel(), axpy_f32::kernel());
    let _ = (axpy_f64::kernel(), affine::kernel(), scale::kernel());
    let _ = (cpp_reads::kernel(), reads_only::kernel());
}
