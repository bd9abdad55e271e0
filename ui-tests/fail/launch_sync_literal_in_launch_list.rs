//! `sync = 1` in the launch list: the fix suggested is code that compiles.
use chevron::cudarc::driver::{CudaFunction, CudaStream};
use chevron::launch;

fn run(s: &CudaStream, f: &CudaFunction) -> Result<(), chevron::Error> {
    unsafe { launch!(dyn f<<<1, 1, s, sync = 1>>>()) }
}

fn main() {}
