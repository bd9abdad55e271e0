//! A key written where the block belongs is named as such, not as a missing block and stream.
use chevron::cudarc::driver::{CudaFunction, CudaStream};
use chevron::launch;

fn run(s: &CudaStream, f: &CudaFunction) -> Result<(), chevron::Error> {
    unsafe { launch!(dyn f<<<1, cooperative, s>>>()) }
}

fn main() {}
