//! PTX whose ISA the selected CUDA version's drivers cannot compile (9.1 needs CUDA 13.1; the
//! default feature is cuda-13000) is refused when no variant can load there; beside a variant
//! that can, it is fine (the runtime picks per driver).
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "kernels/variants/saxpy_isa91.ptx", name = "saxpy")]
fn too_new(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = ["kernels/variants/saxpy_isa91.ptx", "kernels/variants/saxpy_sm75.ptx"], name = "saxpy")]
fn with_fallback(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() {}
