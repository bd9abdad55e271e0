//! A prebuilt config in the grid position: the error says how to launch with it.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{config, launch};

#[chevron::kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    let cfg = config!(<<<4, 256>>>);
    unsafe { launch!(saxpy<<<cfg, s>>>(1024, 2.0, x, y)) }
}

fn main() {}
