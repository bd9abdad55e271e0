//! `float const* const*` is a buffer of 8-byte device addresses, not of `f32`.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/names.ptx")]
fn gather(rows: &CudaSlice<f32>, out: &mut CudaSlice<f32>);

fn main() {}
