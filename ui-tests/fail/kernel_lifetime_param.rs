//! A lifetime parameter is about borrows, not template instances.
use chevron::cudarc::driver::{CudaSlice, CudaView};
use chevron::kernel;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy<'a>(n: u32, a: f32, x: &CudaView<'a, f32>, y: &mut CudaSlice<f32>);

fn main() {}
