// A device graph's handle cannot leave the capture that made it: CUDA launches a graph from the
// device only from a kernel that itself runs in a graph, and a kernel launched after the capture
// on a plain stream would not.
use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, DeviceGraph, Graph};

#[kernel(ptx = "kernels/device_graph.ptx")]
fn count_once(counter: &mut CudaSlice<u32>);

#[kernel(ptx = "kernels/device_graph.ptx")]
fn launch_fire_and_forget(exec: chevron::DeviceGraphHandle, status: &mut CudaSlice<i32>);

fn main() -> Result<(), chevron::Error> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let mut counter = stream.alloc_zeros::<u32>(1)?;
    let mut status = stream.alloc_zeros::<i32>(1)?;
    let (child, ()) = unsafe {
        DeviceGraph::capture(
            &stream,
            |capture| launch!(count_once<<<1, 32, capture.stream()>>>(&mut counter)),
        )
    }?;
    let (_graph, exec) =
        unsafe { Graph::capture(&stream, |capture| capture.device_graph(&child)) }?;
    unsafe { launch!(launch_fire_and_forget<<<1, 32, &stream>>>(exec, &mut status)) }
}
