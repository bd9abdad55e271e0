//! Attributes of functions are reported at the declaration, which expands to a type.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/saxpy.ptx")]
#[inline]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
#[test]
fn tested(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
#[must_use]
fn used(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() {}
