// Conditional nodes in a capture: a `while` loop, an `if`, an `if`/`else` and a `switch`, each
// decided by a kernel taking the `ConditionalHandle` (a `.u64` in the PTX), with a nested node
// and a node of the body returned for updates. Also with the handle's lifetime written out.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch, ConditionalHandle, Graph, GraphNode};
use std::sync::Arc;

#[kernel(ptx = "kernels/conditional.ptx")]
fn count_up(
    handle: ConditionalHandle,
    counter: &mut CudaSlice<u32>,
    limit: u32,
    trace: &mut CudaSlice<u32>,
);

#[kernel(ptx = "kernels/conditional.ptx")]
fn set_condition(handle: ConditionalHandle<'_>, value: &CudaSlice<u32>);

#[kernel(ptx = "kernels/conditional.ptx")]
fn bump(out: &mut CudaSlice<u32>, index: u32);

fn run(
    stream: &Arc<CudaStream>,
    value: &CudaSlice<u32>,
    counter: &mut CudaSlice<u32>,
    trace: &mut CudaSlice<u32>,
    hits: &mut CudaSlice<u32>,
) -> Result<(), chevron::Error> {
    let (mut graph, node): (Graph<'_>, GraphNode) = unsafe {
        Graph::capture(stream, |capture| {
            let more = capture.condition(1)?;
            let node = capture.while_loop(&more, |body| {
                launch!(count_up<<<1, 32, body.stream()>>>(more, &mut *counter, 8, &mut *trace))?;
                let inner = body.condition(0)?;
                launch!(set_condition<<<1, 32, body.stream()>>>(inner, value))?;
                body.if_then(&inner, |then| {
                    launch!(bump<<<1, 32, then.stream()>>>(&mut *hits, 0))?;
                    then.last_node()
                })
            })?;
            let pick = capture.condition(0)?;
            launch!(set_condition<<<1, 32, capture.stream()>>>(pick, value))?;
            let ((), ()) = capture.if_else(&pick, |then, body| {
                launch!(bump<<<1, 32, body.stream()>>>(&mut *hits, if then { 1 } else { 2 }))
            })?;
            let cases: Vec<u32> = capture.switch(&pick, 3, |k, body| {
                launch!(bump<<<1, 32, body.stream()>>>(&mut *hits, k))?;
                Ok(k)
            })?;
            assert_eq!(cases.len(), 3);
            Ok(node)
        })
    }?;
    graph.replay(stream)?;
    unsafe { bump::kernel().update_scalars(&mut graph, &node, (1,)) }?;
    graph.replay(stream)
}

fn main() {
    let _ = run;
}
