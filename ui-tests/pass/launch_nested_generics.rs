//! A `>>>` that closes nested generics (`size_of::<Option<Vec<u32>>>()`) is not the closing
//! chevrons.
use chevron::cudarc::driver::{CudaFunction, CudaSlice, CudaStream};
use chevron::{config, launch};

#[chevron::kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[allow(dead_code)]
fn run(
    s: &CudaStream,
    f: &CudaFunction,
    n: u32,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
) -> Result<(), chevron::Error> {
    unsafe {
        launch!(saxpy<<<1, 256, s, shared = size_of::<Option<Vec<u32>>>()>>>(n, 2.0, x, y))
    }?;
    unsafe {
        launch!(dyn f<<<1, 256, s, shared = size_of::<Vec<Vec<Option<u8>>>>()>>>(&n, &2.0f32, x, y))
    }
}

fn main() {
    let cfg = config!(<<<1, 1, shared = size_of::<Option<Vec<u32>>>()>>>);
    assert_eq!(cfg.shared_bytes() as usize, size_of::<Option<Vec<u32>>>());
}
