// A rejected declaration (`async`) still defines `saxpy::launch` with the declared parameters
// (and the other generated functions), so the only errors are the declaration's own: the
// macro's, and its parameters' checks (`a: f64` for a `float`), which the stub keeps.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::kernel;

#[kernel(ptx = "kernels/saxpy.ptx")]
async fn saxpy(n: u32, a: f64, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    let cfg = chevron::LaunchConfig::new(1, 1);
    unsafe { saxpy::launch(s, &cfg, 4, 2.0, x, y) }
}

fn queries(
    ctx: &std::sync::Arc<chevron::cudarc::driver::CudaContext>,
) -> Result<u32, chevron::Error> {
    let cfg = chevron::LaunchConfig::new(1, 1);
    let _ = saxpy::function(ctx)?;
    let _ = saxpy::occupancy(ctx, &cfg)?.blocks_per_sm;
    let _ = saxpy::max_active_clusters(ctx, &cfg)?;
    saxpy::max_cooperative_grid(ctx, 256, 0)
}

fn main() {
    let _ = (run, queries);
}
