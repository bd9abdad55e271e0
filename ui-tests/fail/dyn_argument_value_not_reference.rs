//! A `dyn` argument passed by value (a variable, not a literal) gets "pass `&`".
use chevron::cudarc::driver::{CudaFunction, CudaSlice, CudaStream};
use chevron::launch;

fn run(s: &CudaStream, f: &CudaFunction, n: u32, x: CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(dyn f<<<1, 256, s>>>(n, x)) }
}

fn main() {}
