//! `b` is written through a local array of pointers indexed at run time (`ptrs[k % 3][i]`),
//! declared read-only.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/stores.ptx")]
fn local_array(
    a: &mut CudaSlice<f32>,
    b: &CudaSlice<f32>,
    c: &mut CudaSlice<f32>,
    n: &CudaSlice<i32>,
);

fn main() {}
