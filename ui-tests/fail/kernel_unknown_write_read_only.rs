//! `q` is passed to a function of another module (relocatable code): whether it is written
//! cannot be read from the PTX, so `&` needs `#[read_only]`.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/stores.ptx")]
fn extern_only(q: &CudaSlice<f32>);

fn main() {}
