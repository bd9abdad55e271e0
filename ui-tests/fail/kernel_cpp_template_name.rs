//! A template instance the PTX does not hold (`row_sums<512>`), and a template named without
//! its arguments where two instances have the same parameters.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;
use chevron::vec::Float4;

#[kernel(ptx = "kernels/port_rows.ptx", name = "row_sums<512>")]
fn row_sums_512(sums: &mut CudaSlice<f32>, input: &CudaSlice<Float4>, cols4: i32);

#[kernel(ptx = "kernels/port_rows.ptx")]
fn row_sums(sums: &mut CudaSlice<f32>, input: &CudaSlice<Float4>, cols4: i32);

fn main() {}
