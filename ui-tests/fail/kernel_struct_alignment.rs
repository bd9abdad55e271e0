//! A by-value struct of the right size and the wrong alignment: C++'s `Affine` is two floats
//! (aligned to 4).
use chevron::cudarc::driver::{CudaSlice, DeviceRepr};
use chevron::kernel;

#[repr(C, align(8))]
#[derive(Clone, Copy)]
struct Affine {
    scale: f32,
    bias: f32,
}
unsafe impl DeviceRepr for Affine {}

#[kernel(ptx = "kernels/port_rows.ptx")]
fn affine(x: &mut CudaSlice<f32>, a: Affine, n: usize);

fn main() {}
