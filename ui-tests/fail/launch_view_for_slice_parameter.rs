//! A view (`x.slice(..)`) where the kernel's parameter is a whole buffer (`&CudaSlice`):
//! chevron's message says how to pass or declare it, instead of rustc's type mismatch.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::launch;

/// y = a·x + y
#[chevron::kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    let half = x.slice(0..512);
    unsafe { launch!(saxpy<<<2, 256, s>>>(512, 2.0, &half, y)) }
}

fn main() {}
