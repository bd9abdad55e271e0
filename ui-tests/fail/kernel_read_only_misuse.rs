//! `#[read_only]` on a `&mut` buffer, with arguments, and twice.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(
    n: u32,
    a: f32,
    #[read_only] #[read_only] x: &CudaSlice<f32>,
    #[read_only(yes)] y: &mut CudaSlice<f32>,
);

#[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
fn saxpy2(n: u32, a: f32, x: &CudaSlice<f32>, #[read_only] y: &mut CudaSlice<f32>);

fn main() {}
