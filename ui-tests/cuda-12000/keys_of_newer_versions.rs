// Built with `--no-default-features --features cuda-12000`: keys of later CUDA versions name the
// feature that has them.
use chevron::cudarc::driver::{CudaEvent, CudaFunction, CudaStream};
use chevron::{config, launch};

fn run(s: &CudaStream, f: &CudaFunction, ev: &CudaEvent) -> Result<(), chevron::Error> {
    let _ = config!(<<<1, 32, nvlink_centric>>>);
    unsafe {
        launch!(dyn f<<<8, 32, s, completion_event = ev, device_updatable, shared_carveout = 50,
            cluster = 2, preferred_cluster = 4, shared_memory_mode = Default>>>())
    }
}

fn main() {}
