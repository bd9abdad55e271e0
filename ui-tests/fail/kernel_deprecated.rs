//! `#[deprecated]` on a declaration warns where the kernel is used, once per use, not at the
//! declaration (denied here, so that the warnings show as errors).
#![deny(deprecated)]
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{config, kernel, launch};

#[deprecated = "use `saxpy2`"]
#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(saxpy<<<1, 32, s>>>(32, 2.0, x, y)) }?;
    unsafe { saxpy::kernel().launch(s, &config!(<<<1, 32>>>), (32, 2.0, x, y)) }
}

fn main() {}
