//! A kernel declared `cooperative = "co_resident"` (it relies on its blocks being resident
//! together) launched without `cooperative`, which does not guarantee that.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "kernels/saxpy.ptx", cooperative = "co_resident")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(saxpy<<<4, 256, s>>>(1024, 2.0, x, y)) }?;
    // Cooperative: no error.
    unsafe { launch!(saxpy<<<4, 256, s, cooperative>>>(1024, 2.0, x, y)) }
}

fn main() {
    let _ = run;
}
