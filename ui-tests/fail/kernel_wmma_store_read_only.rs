//! `c` is written only by a tensor-core store (`wmma.store`), declared read-only.
use chevron::cudarc::driver::CudaSlice;
use chevron::half::f16;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/stores.ptx")]
fn wmma_store(a: &CudaSlice<f16>, b: &CudaSlice<f16>, c: &CudaSlice<f32>);

fn main() {}
