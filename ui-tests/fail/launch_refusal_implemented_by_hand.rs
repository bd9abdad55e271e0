//! A refused launch's trait (the words of `launch!`'s error) implemented by hand for the
//! kernel, to make the launch compile: the traits are sealed, so the impl is the error, and
//! the launch is still refused.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "ui-tests/fixtures/fit_bounds.ptx")]
fn bounded_scale(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);

impl chevron::refusals::BlockWithin<256, 1, 1, 256> for bounded_scale {}

// The one refusal trait a kernel implements (for its own `.reqntid` block), for another block:
// its seal is not implemented for that block either.
#[kernel(ptx = "ui-tests/fixtures/fit_reqntid.ptx")]
fn exact_block(out: &mut CudaSlice<u32>);

impl chevron::refusals::CompiledBlock<64, 2, 1> for exact_block {}

fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(bounded_scale<<<4, 512, s>>>(x, y, 2048)) }
}

fn run_exact(s: &CudaStream, n: u32, out: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    unsafe { launch!(exact_block<<<n, (64, 2), s>>>(out)) }
}

fn main() {
    let _ = (run, run_exact);
}
