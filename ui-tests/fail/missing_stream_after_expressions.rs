//! A launch without its stream, grid and block written as expressions: the hint adds the
//! stream (a prebuilt `config = …` would not take a grid and a block).
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::launch;

/// y = a·x + y
#[chevron::kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(
    stream: &CudaStream,
    n: u32,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
) -> Result<(), chevron::Error> {
    unsafe { launch!(saxpy<<<n.div_ceil(256), 256>>>(n, 2.0, x, y)) }
}

fn main() {}
