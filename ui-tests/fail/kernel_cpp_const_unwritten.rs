//! `float* x` (not `const`) declared read-only, where the kernel happens never to write it: still
//! an error, whose fix says that `#[read_only]` fits.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/writes.ptx")]
fn cpp_reads(x: &CudaSlice<f32>, sum: &mut CudaSlice<f32>, n: i32);

fn main() {}
