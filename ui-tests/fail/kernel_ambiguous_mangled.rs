use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/templates.ptx")]
fn scale(x: &mut CudaSlice<f32>, f: f32, n: u32);

fn main() {}
