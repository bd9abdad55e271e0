use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Affine {
    pub scale: f32,
    pub offset: i32,
    pub bias: f64,
}

#[kernel(ptx = "kernels/structs.ptx")]
fn affine(p: Affine, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);

fn main() {}
