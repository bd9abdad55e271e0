// A generated kernel is typed like a hand declaration: `plain(float*, float const*, int)` takes
// `&CudaSlice<f32>` for `x`, and rustc says so at the argument.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::launch;

#[chevron::kernels(ptx = "kernels/kernels_needs.ptx", only = ["plain"])]
mod k {}

fn run(s: &CudaStream, y: &mut CudaSlice<f32>, x: &CudaSlice<f64>) -> Result<(), chevron::Error> {
    unsafe { launch!(k::plain<<<1, 32, s>>>(y, x, 4)) }
}

fn main() {}
