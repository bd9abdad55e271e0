// A graph whose kernel launches a device graph borrows it: the device graph cannot be dropped
// (its executable destroyed) while the launching graph may still replay.
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
    let (mut graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            let exec = capture.device_graph(&child)?;
            launch!(launch_fire_and_forget<<<1, 32, capture.stream()>>>(exec, &mut status))
        })
    }?;
    drop(child);
    graph.replay(&stream)
}
