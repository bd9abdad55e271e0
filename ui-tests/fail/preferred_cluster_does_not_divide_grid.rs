use chevron::cudarc::driver::{CudaFunction, CudaStream};
use chevron::launch;

fn run(s: &CudaStream, f: &CudaFunction) -> Result<(), chevron::Error> {
    // 4 is a multiple of the cluster (2) but 6 blocks are not a whole number of clusters of 4.
    unsafe { launch!(dyn f<<<6, 128, s, cluster = 2, preferred_cluster = 4>>>()) }
}

fn main() {}
