//! `float* sums` (not `const`: the kernel writes the row sums) declared read-only.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;
use chevron::vec::Float4;

#[kernel(ptx = "kernels/port_rows.ptx", name = "row_sums<256>")]
fn row_sums(sums: &CudaSlice<f32>, input: &CudaSlice<Float4>, cols4: i32);

fn main() {}
