// A 4-byte `f32` where the kernel takes a 2-byte `__half` by value.
use chevron::cudarc::driver::CudaSlice;
use chevron::half::f16;
use chevron::kernel;

#[kernel(ptx = "kernels/half.ptx")]
fn scale_f16(x: &mut CudaSlice<f16>, f: f32, n: u32);

fn main() {}
