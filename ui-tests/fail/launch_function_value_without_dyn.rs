//! A `CudaFunction` value, a plain `fn`, or another type, where a `#[kernel]` belongs.
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

// A prebuilt config: no literal values, so no compile-time rule check; the launch alone.
fn prebuilt(s: &CudaStream, cfg: &chevron::LaunchConfig<'_>, n: u32) -> Result<(), chevron::Error> {
    unsafe { launch!(NotAKernel<<<config = cfg, s>>>(n)) }
}

fn main() {
    let _ = (run, prebuilt);
}
