//! saxpy (`extern "C"`: no C++ types) stores to `y`, declared read-only: the PTX says so.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &CudaSlice<f32>);

fn main() {}
