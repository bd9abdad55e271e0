//! nvcc's PTX of `saxpy(unsigned int, float, const float*, float*)` is checked as a `ptx = "…"`
//! file is: `n: u64` and `a: f64` are refused, and so is the missing `y`.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(cuda = "kernels/saxpy.cu")]
pub fn saxpy(n: u64, a: f64, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(cuda = "kernels/saxpy.cu", name = "saxpy")]
pub fn saxpy_short(n: u32, a: f32, x: &CudaSlice<f32>);

fn main() {}
