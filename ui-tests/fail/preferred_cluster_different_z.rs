use chevron::cudarc::driver::{CudaFunction, CudaStream};
use chevron::launch;

fn run(s: &CudaStream, f: &CudaFunction) -> Result<(), chevron::Error> {
    unsafe { launch!(dyn f<<<(8, 1, 4), 128, s, cluster = (2, 1, 1), preferred_cluster = (4, 1, 2)>>>()) }
}

fn main() {}
