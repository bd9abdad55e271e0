//! The basic declaration: scalars and device buffers, against kernels/saxpy.ptx.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

/// y = a·x + y
#[kernel(ptx = "kernels/saxpy.ptx")]
pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() {
    // Never touches the GPU: only names and types.
    let _launch: unsafe fn(
        &chevron::cudarc::driver::CudaStream,
        &chevron::LaunchConfig<'_>,
        u32,
        f32,
        &CudaSlice<f32>,
        &mut CudaSlice<f32>,
    ) -> Result<(), chevron::Error> = saxpy::launch;
    let _function = saxpy::function;
}
