// `update_ordered` takes buffers ordered with `graph.ordered(…)`, not the buffers themselves
// (`update` takes those).
use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, Graph, GraphNode};

#[kernel(ptx = "kernels/chain.ptx")]
fn chain_copy(n: u32, a: f32, b: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

unsafe fn retarget(
    graph: &mut Graph<'_>,
    node: &GraphNode,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
) -> Result<(), chevron::Error> {
    unsafe { chain_copy::kernel().update_ordered(graph, node, (256, 2.0, 1.0), (x, y)) }
}

fn main() {
    let _ = retarget;
}
