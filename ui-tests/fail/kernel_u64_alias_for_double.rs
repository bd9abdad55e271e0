// `Count` is `u64`: 8 bytes like the kernel's `double`, but an integer.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

type Count = u64;

#[kernel(ptx = "kernels/params.ptx")]
fn all_types(
    a: u8,
    b: i8,
    c: u16,
    d: i16,
    e: u32,
    f: i32,
    g: u64,
    h: i64,
    i: f32,
    j: Count,
    k: bool,
    out: &mut CudaSlice<f64>,
);

fn main() {}
