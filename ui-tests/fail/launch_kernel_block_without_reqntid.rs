//! `_` launches in the kernel's own block shape; `saxpy` has no compiled-in block dimensions (no
//! `.reqntid`: it was not compiled with `__block_size__`), so there is none to take.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(saxpy<<<4, _, s>>>(1024, 2.0, x, y)) }
}

fn main() {
    let _ = run;
}
