//! `tu<128>` is found among the file's instances of `tu` (its `__launch_bounds__(128)` is read
//! at compile time): a block of 256 is refused.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::kernel;

#[kernel(cuda = "ui-tests/fixtures/nvcc_instances.cu", name = "tu<128>")]
pub fn tu128(out: &mut CudaSlice<f32>, n: u32);

pub fn run(s: &CudaStream, out: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { chevron::launch!(tu128<<<4, 256, s>>>(out, 512)) }
}

fn main() {}
