//! The expansions name only absolute paths: they work in a crate without the prelude.
#![no_implicit_prelude]

extern crate chevron;

use ::chevron::cudarc::driver::{CudaFunction, CudaSlice, CudaStream};

#[::chevron::kernel(ptx = "kernels/saxpy.ptx", cooperative = "co_resident")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[allow(dead_code)]
fn run(
    s: &CudaStream,
    f: &CudaFunction,
    ev: &::chevron::cudarc::driver::CudaEvent,
    n: u32,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
) -> ::core::result::Result<(), ::chevron::Error> {
    let policy = ::chevron::SyncPolicy::Spin;
    unsafe {
        ::chevron::launch!(saxpy<<<(n, 2), 256, s, stream(sync = policy, priority = 0),
            cooperative, cluster = 2, completion_event = ev, shared = 16>>>(n, 2.0, x, y))
    }?;
    unsafe { ::chevron::launch!(dyn f<<<1, 1, s, stream(sync = Spin), priority = 1>>>(&n, x)) }
}

fn main() {
    let cfg = ::chevron::config!(<<<8, 64, cluster = 2, stream(sync = Yield)>>>);
    ::core::assert_eq!(cfg.launch_attributes().len(), 1);
}
