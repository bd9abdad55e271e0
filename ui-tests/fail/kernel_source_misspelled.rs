//! A source argument that is not understood is the only error: no second one saying the kernel
//! needs its code, and a correct argument after it still counts.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = 1, ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx("kernels/saxpy.ptx"))]
fn call_form(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx: "kernels/saxpy.ptx")]
fn colon_form(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(PTX = "kernels/saxpy.ptx")]
fn upper_case(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() {}
