//! `out` is written only by a matrix store (`stmatrix`), declared read-only.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/stores.ptx")]
fn stmatrix_store(out: &CudaSlice<u16>, inp: &CudaSlice<u32>);

fn main() {}
