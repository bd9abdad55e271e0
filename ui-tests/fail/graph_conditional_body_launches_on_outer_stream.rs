// A conditional node's body launches on the body's stream: work on the enclosing capture's
// stream would land outside the node and run once per replay, whatever the condition says. The
// node borrows the enclosing capture mutably, so the body cannot name its stream.
use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, ConditionalHandle, Graph};

#[kernel(ptx = "kernels/conditional.ptx")]
fn count_up(handle: ConditionalHandle, counter: &mut CudaSlice<u32>, limit: u32, trace: &mut CudaSlice<u32>);

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let mut counter = stream.alloc_zeros::<u32>(1)?;
    let mut trace = stream.alloc_zeros::<u32>(8)?;
    // SAFETY: the graph is dropped, never leaked.
    let (mut graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            let more = capture.condition(1)?;
            capture.while_loop(&more, |_body| {
                launch!(count_up<<<1, 32, capture.stream()>>>(more, &mut counter, 8, &mut trace))
            })
        })
    }?;
    graph.replay(&stream)
}
