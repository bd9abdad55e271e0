use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::launch;

/// y = a·x + y
#[chevron::kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(
    s: &CudaStream,
    n: u32,
    x: CudaSlice<f32>,
    mut y: CudaSlice<f32>,
) -> Result<(), chevron::Error> {
    unsafe {
        launch!(saxpy<<<(1, 70000), (32, 64), s, sync = Spin, coperative, priority = 1,
            stream(cluster = 2, priority = 0), priority = 2, shared_carveout = 200>>>(n, 2.0, &x, &mut y))
    }
}

fn main() {}
