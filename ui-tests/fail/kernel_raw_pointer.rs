use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: *const f32, y: &mut CudaSlice<f32>);

fn main() {}
