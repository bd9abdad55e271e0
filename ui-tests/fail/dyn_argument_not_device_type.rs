//! A reference to something that is neither a device buffer nor `DeviceRepr`.
use chevron::cudarc::driver::{CudaFunction, CudaStream};
use chevron::launch;

fn run(s: &CudaStream, f: &CudaFunction, name: String) -> Result<(), chevron::Error> {
    unsafe { launch!(dyn f<<<1, 256, s>>>(&name)) }
}

fn main() {}
