//! Local items named like what the expansion uses do not capture it.
#![allow(dead_code, non_snake_case, non_camel_case_types, clippy::all)]

use chevron::cudarc::driver::{CudaFunction, CudaSlice, CudaStream};
use chevron::{config, launch};

struct Result;
struct Option;
fn Ok() {}
fn Some() {}
fn None() {}
struct From;
struct LaunchConfig;
struct Probe;
struct Cooperative;
struct SyncPolicy;
mod std {}
mod core {}
mod cudarc {}
mod chevron_cuda_runtime {}
trait DeviceArg {}
trait ValueArg {}

#[chevron::kernel(ptx = "kernels/saxpy.ptx", cooperative = "co_resident")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn run(
    s: &CudaStream,
    f: &CudaFunction,
    ev: &::chevron::cudarc::driver::CudaEvent,
    n: u32,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
) -> ::std::result::Result<(), ::chevron::Error> {
    // Locals named like the expansion's own do not interfere either.
    let __chevron_config = 5;
    let __chevron_stream = 6;
    let __chevron_a0 = 7;
    unsafe {
        launch!(saxpy<<<2, 256, s, stream(sync = Spin), cooperative, completion_event = ev,
            mem_sync_domain = Remote>>>(n + __chevron_config as u32, 2.0, x, y))
    }?;
    unsafe { launch!(dyn f<<<1, 1, s>>>(&n, x, &(__chevron_stream + __chevron_a0))) }?;
    // Positions named like the DSL's keywords are positions.
    let (stream, shared) = (s, 64u32);
    unsafe { launch!(dyn f<<<1, shared, stream, stream(sync = Spin), shared = shared>>>()) }
}

fn main() {
    let cfg = config!(<<<8, 64, cluster = 2, stream(sync = Yield)>>>);
    assert_eq!(cfg.launch_attributes().len(), 1);
}
