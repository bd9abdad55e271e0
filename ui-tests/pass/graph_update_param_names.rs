// A kernel whose parameters are named like `update`'s own (`graph`, `node`), given from locals
// of those names: the kernel's parameters are types only (`TypedKernel::Args`), so nothing of
// the expansion can clash with them.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch, Graph};
use std::sync::Arc;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(graph: u32, node: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(stream: &Arc<CudaStream>, x: &CudaSlice<f32>) -> Result<(), chevron::Error> {
    let mut y = stream.alloc_zeros::<f32>(256)?;
    let mut other = stream.alloc_zeros::<f32>(256)?;
    let (mut g, n) = unsafe {
        Graph::capture(stream, |capture| {
            launch!(saxpy<<<1, 256, capture.stream()>>>(256, 2.0, x, &mut y))?;
            capture.last_node()
        })
    }?;
    let (graph, node) = (256u32, 3.0f32);
    unsafe { saxpy::kernel().update(&mut g, &n, (graph, node, x, &mut other)) }?;
    g.replay(stream)?;
    Ok(())
}

fn main() {
    let _ = run;
}
