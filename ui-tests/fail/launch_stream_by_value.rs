//! An `Arc<CudaStream>` without `&`, in a typed and a `dyn` launch: chevron's message says to
//! write `&` (at the launch and at the stream), instead of rustc's type mismatch.
use std::sync::Arc;

use chevron::cudarc::driver::{CudaFunction, CudaSlice, CudaStream};
use chevron::launch;

/// y = a·x + y
#[chevron::kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn typed(stream: Arc<CudaStream>, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(saxpy<<<4, 256, stream>>>(1024, 2.0, x, y)) }
}

fn untyped(stream: Arc<CudaStream>, f: &CudaFunction) -> Result<(), chevron::Error> {
    unsafe { launch!(dyn f<<<4, 256, stream>>>()) }
}

fn main() {}
