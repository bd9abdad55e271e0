//! `float*` declared as a buffer of `i32`, behind an alias: rustc resolves it, the C++
//! signature says `float`.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

type Out = CudaSlice<i32>;

#[kernel(ptx = "kernels/port_rows.ptx", name = "axpy(float*, float const*, float, int)")]
fn axpy(y: &mut Out, x: &CudaSlice<f32>, a: f32, n: i32);

fn main() {}
