//! A text file that is not PTX, and a CUDA C file given as `ptx`, say so.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "ui-tests/fixtures/kernel_not_ptx.txt")]
fn k(n: u32);

#[kernel(ptx = "kernels/saxpy.cu")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() {}
