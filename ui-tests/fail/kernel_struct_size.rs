use chevron::cudarc::driver::{CudaSlice, DeviceRepr};
use chevron::kernel;

/// 12 bytes, but the kernel's `Affine` has a `double` bias: 16 bytes.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Affine {
    pub scale: f32,
    pub offset: i32,
    pub bias: f32,
}

unsafe impl DeviceRepr for Affine {}

#[kernel(ptx = "kernels/structs.ptx")]
fn affine(p: Affine, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);

fn main() {}
