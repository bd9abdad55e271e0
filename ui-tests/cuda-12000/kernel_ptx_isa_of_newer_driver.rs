//! Under feature cuda-12000, PTX ISA 8.6 (CUDA 12.7) cannot load on the drivers the build is
//! for: refused, with the fix. ISA 8.0 is fine.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/variants/saxpy_sm100.ptx", name = "saxpy")]
fn blackwell(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() {}
