// A graph borrows what its launches use until it is dropped, and dropping it waits for the last
// replay; leaking it (`mem::forget`) skips that wait while ending the borrows, so a buffer could
// be freed under a running replay (seen on the H200: a later allocation held the replay's
// values). Safe code may leak any value: capturing is `unsafe`, with "the graph is dropped,
// never leaked" as the promise.
use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, Graph};

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let x = stream.alloc_zeros::<f32>(256)?;
    let mut y = stream.alloc_zeros::<f32>(256)?;
    let (mut graph, ()) = Graph::capture(&stream, |capture| {
        unsafe { launch!(saxpy<<<1, 256, capture.stream()>>>(256, 2.0, &x, &mut y)) }?;
        Ok(())
    })?;
    graph.replay(&stream)?;
    std::mem::forget(graph); // ends the borrow of `y` without waiting for the replay
    drop(y); // would free `y` while the replay may still write it
    Ok(())
}
