//! `p` is passed to a function called through a pointer: whether it is written cannot be read
//! from the PTX, so `&` needs `#[read_only]`.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/stores.ptx")]
fn indirect(p: &CudaSlice<f32>, k: i32);

fn main() {}
