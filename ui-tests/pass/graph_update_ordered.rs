// Buffers ordered once for many updates: `ordered` for a written buffer (which also stands for
// read parameters), `ordered_read` for a read one; `update_ordered` copies their pointers.
use chevron::cudarc::driver::{CudaSlice, CudaStream, CudaViewMut};
use chevron::{kernel, launch, Graph};
use std::sync::Arc;

#[kernel(ptx = "kernels/chain.ptx")]
fn chain_copy(n: u32, a: f32, b: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = "kernels/chain.ptx", name = "chain_copy")]
fn chain_copy_views(n: u32, a: f32, b: f32, x: &CudaSlice<f32>, y: &mut CudaViewMut<'_, f32>);

fn run(
    stream: &Arc<CudaStream>,
    x: &CudaSlice<f32>,
    inputs: &CudaSlice<f32>,
    outputs: &mut CudaSlice<f32>,
    more: &mut CudaSlice<f32>,
) -> Result<(), chevron::Error> {
    let mut y = stream.alloc_zeros::<f32>(256)?;
    let (mut graph, nodes) = unsafe {
        Graph::capture(stream, |capture| {
            let mut nodes = Vec::new();
            for _ in 0..4 {
                launch!(chain_copy<<<1, 256, capture.stream()>>>(256, 2.0, 1.0, x, &mut y))?;
                nodes.push(capture.last_node()?);
            }
            Ok(nodes)
        })
    }?;
    {
        let input = graph.ordered_read(inputs)?;
        let output = graph.ordered(outputs)?;
        let both = graph.ordered(more)?;
        for node in &nodes {
            unsafe {
                chain_copy::kernel().update_ordered(
                    &mut graph,
                    node,
                    (256, 0.5, 3.0),
                    (&input, &output),
                )
            }?;
            unsafe {
                chain_copy::kernel().update_ordered(
                    &mut graph,
                    node,
                    (256, 0.5, 3.0),
                    (&both, &output),
                )
            }?;
        }
        // A written view parameter takes an `Ordered` of its element type too.
        let _ = |g: &mut Graph<'_>| unsafe {
            chain_copy_views::kernel().update_ordered(
                g,
                &nodes[0],
                (256, 1.0, 0.0),
                (&input, &output),
            )
        };
        assert_ne!(output.device_ptr(), 0);
    }
    graph.replay(stream)?;
    // The buffers are free again once the ordered values are dropped: `update` takes them.
    unsafe {
        chain_copy::kernel().update(&mut graph, &nodes[0], (256, 1.0, 0.0, inputs, outputs))
    }?;
    graph.replay(stream)
}

fn main() {
    let _ = run;
}
