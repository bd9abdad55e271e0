use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::launch;

// What `#[kernel(ptx = "saxpy.ptx")] fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);`
// generates, written by hand so this test does not depend on `#[kernel]`.
#[allow(clippy::missing_safety_doc)]
pub mod saxpy {
    use chevron::cudarc::driver::{CudaSlice, CudaStream};

    pub unsafe fn launch(
        _stream: &CudaStream,
        _config: &chevron::LaunchConfig<'_>,
        _n: u32,
        _a: f32,
        _x: &CudaSlice<f32>,
        _y: &mut CudaSlice<f32>,
    ) -> Result<(), chevron::Error> {
        unimplemented!()
    }
}

fn run(
    s: &CudaStream,
    n: u32,
    x: CudaSlice<f32>,
    mut y: CudaSlice<f32>,
) -> Result<(), chevron::Error> {
    launch!(saxpy<<<n.div_ceil(256), 256, s>>>(n, 2.0, &x, &mut y))
}

fn main() {}
