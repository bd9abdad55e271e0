//! The pre-included header sets the kernel's bounds to 32 threads: the compile-time nvcc
//! pre-includes it too, and a block of 64 is refused.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::kernel;

#[kernel(
    cuda = "ui-tests/fixtures/nvcc_pre_include.cu",
    options = ["--pre-include=nvcc_pre_include.cuh"]
)]
pub fn pre_bounded(out: &mut CudaSlice<f32>, n: u32);

pub fn run(s: &CudaStream, out: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { chevron::launch!(pre_bounded<<<4, 64, s>>>(out, 512)) }
}

fn main() {}
