//! `x` is `const float*` in C++, but the kernel writes through it after a `const_cast`: the
//! store wins over the `const`.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "rules/tests/fixtures/stores.ptx")]
fn cpp_const_cast(x: &CudaSlice<f32>, y: &CudaSlice<f32>, sum: &mut CudaSlice<f32>);

fn main() {}
