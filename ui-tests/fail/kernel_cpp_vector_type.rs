//! `float4*` declared as a buffer of `[f32; 4]` (16 bytes, but aligned to 4 where `float4` is
//! aligned to 16) and of `f32`.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/port_rows.ptx", name = "normalize_rows<256>")]
fn normalize_rows(
    out: &mut CudaSlice<[f32; 4]>,
    input: &CudaSlice<f32>,
    sums: &CudaSlice<f32>,
    cols4: i32,
);

fn main() {}
