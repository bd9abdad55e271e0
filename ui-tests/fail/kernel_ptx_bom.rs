//! PTX saved with a UTF-8 byte order mark, which ptxas rejects: the error names the mark.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "ui-tests/fixtures/kernel_bom.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() {}
