//! `int n` declared `u32` (same width, other signedness), and `unsigned long long*` declared a
//! buffer of `i64`.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

type Count = u32;

#[kernel(ptx = "kernels/port_hist.ptx")]
fn histogram(
    bins: &mut CudaSlice<u32>,
    outside: &mut CudaSlice<i64>,
    values: &CudaSlice<i32>,
    n: Count,
    lo: i32,
    nbins: i32,
);

fn main() {}
