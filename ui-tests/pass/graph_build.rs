// A graph built by hand with every kind of node, over buffers and views the caller lends: one
// mutable borrow of a buffer serves its memset, kernel and copy nodes; a host node's function
// borrows a counter for the graph's life; a child graph; a typed update of a kernel node.
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use chevron::cudarc::driver::{CudaContext, CudaEvent, CudaSlice};
use chevron::{kernel, launch, Graph};

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(
    ctx: &Arc<CudaContext>,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
    flags: &mut CudaSlice<u8>,
    event: &CudaEvent,
    calls: &AtomicU32,
) -> Result<Vec<f32>, chevron::Error> {
    let stream = ctx.new_stream()?;
    let mut z = stream.alloc_zeros::<f32>(256)?;
    let (mut graph, node) = unsafe {
        Graph::build(ctx, |b| {
            let clear = b.memset(&[], y, 0.0f32)?;
            let mut half = flags.slice_mut(0..128);
            let flag = b.memset(&[], &mut half, 1u8)?;
            let (step, node) = b.kernel(&[clear, flag], |c| {
                launch!(saxpy<<<1, 256, c.stream()>>>(256, 2.0, x, y))?;
                c.last_node()
            })?;
            let copy = b.memcpy(&[step], &mut z.slice_mut(..), &y.slice(..))?;
            let host = b.host(&[step], move || {
                calls.fetch_add(1, Ordering::Relaxed);
            })?;
            let (child, ()) = b.child(&[copy], |c| {
                c.memset(&[], &mut z, 1.0f32)?;
                Ok(())
            })?;
            let join = b.empty(&[child, host])?;
            let recorded = b.record(&[join], event)?;
            b.wait(&[recorded], event)?;
            Ok(node)
        })
    }?;
    graph.replay(&stream)?;
    unsafe { saxpy::kernel().update_scalars(&mut graph, &node, (256, 3.0)) }?;
    graph.replay(&stream)?;
    drop(graph);
    Ok(stream.clone_dtoh(&z)?)
}

fn main() {
    let _ = run;
}
