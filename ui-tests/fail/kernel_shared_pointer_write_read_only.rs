//! `out` is written through the pointer one thread hands out in `__shared__` memory, declared
//! read-only (the `-G` build).
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/stores_debug.ptx")]
fn shared_handout(out: &CudaSlice<f32>, inp: &CudaSlice<f32>);

fn main() {}
