//! A syntax error inside `stream(...)` is reported once, not followed by "expected `)`".
use chevron::cudarc::driver::{CudaFunction, CudaStream};
use chevron::launch;

fn run(s: &CudaStream, f: &CudaFunction) -> Result<(), chevron::Error> {
    unsafe { launch!(dyn f<<<1, 256, s, stream(sync = Spin priority = 1)>>>()) }
}

fn main() {}
