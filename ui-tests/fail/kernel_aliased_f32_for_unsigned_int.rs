// `Scale` is `f32`: the kernel's `unsigned int n` would read 2.0 as 0x40000000. The check is on
// the type rustc resolves, not on its spelling.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

type Scale = f32;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: Scale, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() {}
