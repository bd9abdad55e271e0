//! `#[cfg]` on a parameter would change the count the PTX was checked against.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, #[cfg(any())] a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() {}
