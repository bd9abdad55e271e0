//! Under NVRTC `__CUDACC_RTC__` is defined and the kernel's bounds are 64 threads: the
//! compile-time nvcc defines it too, and a block of 128 is refused.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::kernel;

#[kernel(cuda = "ui-tests/fixtures/nvcc_rtc.cu")]
pub fn rtc_bounded(out: &mut CudaSlice<f32>, n: u32);

pub fn run(s: &CudaStream, out: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { chevron::launch!(rtc_bounded<<<4, 128, s>>>(out, 512)) }
}

fn main() {}
