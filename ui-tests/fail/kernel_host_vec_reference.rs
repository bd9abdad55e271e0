// A reference to host data: the error says which device buffer to declare instead.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &Vec<f32>, y: &mut CudaSlice<f32>);

fn main() {}
