// A kernel can launch only a graph instantiated for device launch: a host `Graph` given for one
// is refused, naming `DeviceGraph::capture`.
use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, Graph};

#[kernel(ptx = "kernels/device_graph.ptx")]
fn count_once(counter: &mut CudaSlice<u32>);

#[kernel(ptx = "kernels/device_graph.ptx")]
fn launch_fire_and_forget(exec: chevron::DeviceGraphHandle, status: &mut CudaSlice<i32>);

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let mut counter = stream.alloc_zeros::<u32>(1)?;
    let mut status = stream.alloc_zeros::<i32>(1)?;
    let (host, ()) = unsafe {
        Graph::capture(
            &stream,
            |capture| launch!(count_once<<<1, 32, capture.stream()>>>(&mut counter)),
        )
    }?;
    let (_graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            let exec = capture.device_graph(&host)?;
            launch!(launch_fire_and_forget<<<1, 32, capture.stream()>>>(exec, &mut status))
        })
    }?;
    Ok(())
}
