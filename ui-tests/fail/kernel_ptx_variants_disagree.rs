//! Every variant of `ptx = [...]` is checked like the first, with errors at its own path: a
//! variant whose parameter is wider, one without the entry, one that cannot be read.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = ["kernels/variants/saxpy_sm75.ptx", "ui-tests/fixtures/saxpy_wide_n.ptx"], name = "saxpy")]
fn wide(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = ["kernels/saxpy.ptx", "kernels/structs.ptx"])]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = ["kernels/saxpy.ptx", "kernels/variants/saxpy_sm89.ptx"], name = "saxpy")]
fn missing(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() {}
