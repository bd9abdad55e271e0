// While a graph lives, the host cannot touch a buffer its kernels write: a replay could be
// writing it. Dropping the graph (which waits for the last replay) ends the borrow.
use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, Graph};

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let x = stream.alloc_zeros::<f32>(256)?;
    let mut y = stream.alloc_zeros::<f32>(256)?;
    let (mut graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            launch!(saxpy<<<1, 256, capture.stream()>>>(256, 2.0, &x, &mut y))?;
            Ok(())
        })
    }?;
    graph.replay(&stream)?;
    let early = stream.clone_dtoh(&y)?; // the replay may still be writing `y`
    graph.replay(&stream)?;
    let _ = early;
    Ok(())
}
