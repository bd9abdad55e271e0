// A graph cannot outlive a buffer its captured launches use.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch, Graph};
use std::sync::Arc;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn graph(stream: &Arc<CudaStream>, x: &CudaSlice<f32>) -> Graph<'static> {
    let mut y = stream.alloc_zeros::<f32>(256).unwrap();
    let (graph, ()) = Graph::capture(stream, |capture| {
        unsafe { launch!(saxpy<<<1, 256, capture.stream()>>>(256, 2.0, x, &mut y)) }?;
        Ok(())
    })
    .unwrap();
    graph
}

fn main() {
    let _ = graph;
}
