//! Host memory passed to a typed launch (`&Vec<f32>`, `&[f32]`, `&mut Vec<f32>`): chevron's
//! message says to copy it to the device, instead of rustc's type mismatch.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::launch;

/// y = a·x + y
#[chevron::kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn host_vec(s: &CudaStream, x: Vec<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(saxpy<<<4, 256, s>>>(1024, 2.0, &x, y)) }
}

fn host_slice(s: &CudaStream, x: Vec<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(saxpy<<<4, 256, s>>>(1024, 2.0, &x[..], y)) }
}

fn host_vec_written(s: &CudaStream, x: &CudaSlice<f32>, mut y: Vec<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(saxpy<<<4, 256, s>>>(1024, 2.0, x, &mut y)) }
}

fn main() {}
