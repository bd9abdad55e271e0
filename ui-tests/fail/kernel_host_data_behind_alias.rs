// Host data behind an alias is refused by its type, with the same fix.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

type Samples = Vec<f32>;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &Samples, y: &mut CudaSlice<f32>);

fn main() {}
