//! A launch whose `Result` is dropped (no `?`): one warning each, rustc's for an unused
//! `Result` (no second one of chevron's launch function, which named its hidden path).
#![deny(unused_must_use)]

use chevron::cudarc::driver::{CudaFunction, CudaSlice, CudaStream};
use chevron::launch;

/// y = a·x + y
#[chevron::kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn typed(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(saxpy<<<4, 256, s>>>(1024, 2.0, x, y)) };
    Ok(())
}

fn untyped(s: &CudaStream, f: &CudaFunction) -> Result<(), chevron::Error> {
    unsafe { launch!(dyn f<<<4, 256, s>>>()) };
    Ok(())
}

fn main() {}
