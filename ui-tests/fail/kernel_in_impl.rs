//! `#[kernel]` declares a type: it cannot sit in an `impl` or a trait.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

struct Solver;

impl Solver {
    #[kernel(ptx = "kernels/saxpy.ptx")]
    fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
}

trait Kernels {
    #[kernel(ptx = "kernels/saxpy.ptx")]
    fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
}

fn main() {}
