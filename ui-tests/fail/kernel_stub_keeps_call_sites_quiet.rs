// A rejected declaration (`async`) still defines `saxpy` and its `saxpy::kernel()` (a stub whose
// functions take the declared types, reborrowing `y` as a kernel's do), so `launch!`, the direct
// launch, the updates and the queries stay quiet and the only errors are the declaration's own:
// the macro's, and its parameters' checks (`a: f64` for a `float`), which the stub keeps.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch, Graph, GraphNode};

#[kernel(ptx = "kernels/saxpy.ptx")]
async fn saxpy(n: u32, a: f64, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    let cfg = chevron::LaunchConfig::new(1, 1);
    unsafe { launch!(saxpy<<<1, 32, s>>>(4, 2.0, x, y)) }?;
    unsafe { saxpy::kernel().launch(s, &cfg, (4, 2.0, x, y)) }
}

fn updates(
    graph: &mut Graph<'_>,
    node: &GraphNode,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
) -> Result<(), chevron::Error> {
    unsafe { saxpy::kernel().update(graph, node, (4, 2.0, x, y)) }?;
    unsafe { saxpy::kernel().update_scalars(graph, node, (4, 2.0)) }
}

fn queries(
    ctx: &std::sync::Arc<chevron::cudarc::driver::CudaContext>,
) -> Result<u32, chevron::Error> {
    let cfg = chevron::LaunchConfig::new(1, 1);
    let _ = saxpy::kernel().function(ctx)?;
    let _ = saxpy::kernel().occupancy(ctx, &cfg)?.blocks_per_sm;
    let _ = saxpy::kernel().max_active_clusters(ctx, &cfg)?;
    saxpy::kernel().max_cooperative_grid(ctx, 256, 0)
}

fn main() {
    let _ = (run, updates, queries);
}
