//! `axpy` has a `float` and a `double` overload; a declaration of `i32` buffers is neither.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/port_rows.ptx")]
fn axpy(y: &mut CudaSlice<i32>, x: &CudaSlice<i32>, a: i32, n: i32);

fn main() {}
