// A device buffer behind an alias is still a pointer: not the kernel's `float a`.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

type DevBuf = CudaSlice<f32>;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: &DevBuf, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() {}
