use chevron::cudarc::driver::{CudaFunction, CudaStream};
use chevron::launch;

fn run(s: &CudaStream, f: &CudaFunction) -> Result<(), chevron::Error> {
    unsafe { launch!(dyn f<<<24, 128, s, cluster = 2, preferred_cluster = 3>>>()) }
}

fn main() {}
