// Capture, typed update with the kernel's own argument types, replay; results read after the
// graph is dropped.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch, Graph};
use std::sync::Arc;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(
    stream: &Arc<CudaStream>,
    x: &CudaSlice<f32>,
    other: &mut CudaSlice<f32>,
) -> Result<Vec<f32>, chevron::Error> {
    let mut y = stream.alloc_zeros::<f32>(256)?;
    let (mut graph, node) = unsafe {
        Graph::capture(stream, |capture| {
            launch!(saxpy<<<1, 256, capture.stream(), priority = 1>>>(256, 2.0, x, &mut y))?;
            capture.last_node()
        })
    }?;
    graph.replay(stream)?;
    unsafe { saxpy::kernel().update(&mut graph, &node, (256, 3.0, x, other)) }?;
    graph.replay(stream)?;
    drop(graph);
    Ok(stream.clone_dtoh(&y)?)
}

fn main() {
    let _ = run;
}
