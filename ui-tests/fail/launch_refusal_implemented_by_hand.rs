//! A refused launch's trait (the words of `launch!`'s error) implemented by hand for the
//! kernel, to make the launch compile: the traits are sealed, so the impl is the error, and
//! the launch is still refused.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "ui-tests/fixtures/fit_bounds.ptx")]
fn bounded_scale(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);

impl chevron::refusals::BlockWithin<256, 1, 1, 256> for bounded_scale {}

fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(bounded_scale<<<4, 512, s>>>(x, y, 2048)) }
}

fn main() {
    let _ = run;
}
