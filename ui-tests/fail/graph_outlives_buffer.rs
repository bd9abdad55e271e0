// A graph cannot outlive a buffer its captured launches use.
use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, Graph};

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let x = stream.alloc_zeros::<f32>(256)?;
    let mut graph;
    {
        let mut y = stream.alloc_zeros::<f32>(256)?;
        (graph, ()) = unsafe {
            Graph::capture(&stream, |capture| {
                launch!(saxpy<<<1, 256, capture.stream()>>>(256, 2.0, &x, &mut y))?;
                Ok(())
            })
        }?;
    } // `y` is freed here, while the graph would still write it
    graph.replay(&stream)
}
