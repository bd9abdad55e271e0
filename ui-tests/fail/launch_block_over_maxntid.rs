//! A literal block over the kernel's `__launch_bounds__` (`.maxntid 256, 1, 1`).
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "ui-tests/fixtures/fit_bounds.ptx")]
fn bounded_scale(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);

fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(bounded_scale<<<4, 512, s>>>(x, y, 2048)) }?;
    // Within the bound: no error.
    unsafe { launch!(bounded_scale<<<8, (16, 16), s>>>(x, y, 2048)) }
}

fn main() {
    let _ = run;
}
