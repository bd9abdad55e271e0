// Every problem of a declaration is reported together.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/saxpy.ptx")]
async fn saxpy(n: u64, a: u32, x: &[f32], y: &mut CudaSlice<f32>) -> u32;

fn main() {}
