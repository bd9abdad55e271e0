//! `<<<config = CFG, STREAM>>>` launches with a `LaunchConfig` built beforehand.
use chevron::cudarc::driver::{CudaFunction, CudaSlice, CudaStream};
use chevron::{config, launch, LaunchConfig};

#[chevron::kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[allow(dead_code)]
fn run(
    s: &std::sync::Arc<CudaStream>,
    f: &CudaFunction,
    n: u32,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
) -> Result<(), chevron::Error> {
    let cfg = config!(<<<n.div_ceil(256), 256, cooperative, stream(sync = Spin)>>>);
    unsafe { launch!(saxpy<<<config = cfg, s>>>(n, 2.0, x, y)) }?;
    let by_ref: &LaunchConfig<'_> = &cfg;
    unsafe { launch!(saxpy<<<config = by_ref, &**s>>>(n, 2.0, x, y)) }?;
    unsafe { launch!(dyn f<<<config = LaunchConfig::new(1, 1), s>>>(&n, &2.0f32, x, y)) }
}

fn main() {}
