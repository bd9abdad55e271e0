//! Leaving out a parameter in the middle names that one, not the last.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = "kernels/params.ptx")]
fn all_types(
    a: u8,
    b: i8,
    c: u16,
    e: u32,
    f: i32,
    g: u64,
    h: i64,
    j: f64,
    k: bool,
    out: &mut CudaSlice<f64>,
);

fn main() {}
