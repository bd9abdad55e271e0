//! Under `--use_fast_math` NVRTC defines `__USE_FAST_MATH__` as 1, and the kernel's bounds are
//! 64 threads: the compile-time nvcc sees the same, and a block of 128 is refused.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::kernel;

#[kernel(cuda = "ui-tests/fixtures/nvcc_fast_math.cu", options = ["--use_fast_math"])]
pub fn fast_bounded(out: &mut CudaSlice<f32>, n: u32);

pub fn run(s: &CudaStream, out: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { chevron::launch!(fast_bounded<<<4, 128, s>>>(out, 512)) }
}

fn main() {}
