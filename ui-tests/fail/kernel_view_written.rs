use chevron::cudarc::driver::{CudaSlice, CudaView};
use chevron::kernel;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaView<'_, f32>);

fn main() {}
