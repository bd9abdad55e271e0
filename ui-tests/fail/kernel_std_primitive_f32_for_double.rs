// A path-qualified primitive is the primitive: `std::primitive::f32` is no `double`.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

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
    j: std::primitive::f32,
    k: bool,
    out: &mut CudaSlice<f64>,
);

fn main() {}
