//! A `CudaFunction` value, or a plain `fn`, where a `#[kernel]` belongs.
use chevron::cudarc::driver::{CudaFunction, CudaStream};
use chevron::launch;

fn host_saxpy(n: u32) -> u32 {
    n
}

struct NotAKernel;

fn run(s: &CudaStream, f: &CudaFunction, n: u32) -> Result<(), chevron::Error> {
    unsafe { launch!(f<<<1, 32, s>>>(&n)) }?;
    unsafe { launch!(host_saxpy<<<1, 32, s>>>(n)) }?;
    unsafe { launch!(NotAKernel<<<1, 32, s>>>(n)) }
}

fn main() {}
