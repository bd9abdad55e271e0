// A condition cannot leave the capture that made it: launched after the capture, a kernel would
// set the condition of a graph it does not run in.
use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, ConditionalHandle, Graph};

#[kernel(ptx = "kernels/conditional.ptx")]
fn set_condition(handle: ConditionalHandle, value: &CudaSlice<u32>);

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let value = stream.alloc_zeros::<u32>(1)?;
    let (mut graph, handle) = unsafe {
        Graph::capture(&stream, |capture| {
            let handle = capture.condition(1)?;
            capture.while_loop(
                &handle,
                |body| launch!(set_condition<<<1, 32, body.stream()>>>(handle, &value)),
            )?;
            Ok(handle)
        })
    }?;
    graph.replay(&stream)?;
    unsafe { launch!(set_condition<<<1, 32, &stream>>>(handle, &value)) }
}
