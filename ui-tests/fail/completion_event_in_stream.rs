use chevron::cudarc::driver::{CudaFunction, CudaStream};
use chevron::launch;

fn run(s: &CudaStream, f: &CudaFunction, ev: &chevron::cudarc::driver::CudaEvent) -> Result<(), chevron::Error> {
    unsafe { launch!(dyn f<<<1, 1, s, stream(completion_event = ev)>>>()) }
}

fn main() {}
