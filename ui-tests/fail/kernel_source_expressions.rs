//! What `ptx = …` and `cuda = …` take besides a literal: `concat!`/`env!` of literals (read at
//! compile time; a missing variable is an error naming it), a list of PTX variants; not a list
//! for `cuda`, not an empty list, not other expressions.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(cuda = ["kernels/histogram.cu", "kernels/histogram.cu"])]
fn histogram(bins: &mut CudaSlice<u32>, data: &CudaSlice<u8>, len: u32);

#[kernel(ptx = [])]
fn none(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = concat!(env!("CHEVRON_UI_SURELY_UNSET"), "/saxpy.ptx"))]
fn unset(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = concat!(env!("OUT_DIR"), "/saxpy.ptx"))]
fn no_build_script(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = format!("kernels/saxpy.ptx"))]
fn formatted(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

// Fine: literals joined at compile time.
#[kernel(ptx = concat!("kernels/", "saxpy", ".ptx"), name = "saxpy")]
fn joined(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() {}
