// A type named like a primitive: `#[kernel]` reads `f32` as the number and checks it against the
// PTX itself, and its guard makes the shadowing a type error, never a wrong check.
use chevron::cudarc::driver::{CudaSlice, DeviceRepr};
use chevron::kernel;

#[allow(non_camel_case_types, dead_code)]
#[derive(Clone, Copy)]
#[repr(C)]
struct f32(u32);
unsafe impl DeviceRepr for f32 {}

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(
    n: u32,
    a: f32,
    x: &CudaSlice<core::primitive::f32>,
    y: &mut CudaSlice<core::primitive::f32>,
);

fn main() {}
