use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/templates.ptx")]
fn scale<T>(x: &mut CudaSlice<T>, f: T, n: u32);

fn main() {}
