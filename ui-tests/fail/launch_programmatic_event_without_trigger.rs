//! `programmatic_event` on a kernel that never executes `griddepcontrol.launch_dependents` is a
//! warning (made an error here to be seen); not on one that does, nor where it is allowed.
#![deny(deprecated)]
use chevron::cudarc::driver::{CudaEvent, CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "ui-tests/fixtures/fit_pdl.ptx")]
fn pdl_produce(out: &mut CudaSlice<u32>, n: u32);

#[kernel(ptx = "ui-tests/fixtures/fit_pdl.ptx")]
fn pdl_consume(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

fn run(s: &CudaStream, e: &CudaEvent, d: &CudaSlice<u32>, out: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    // It triggers: no warning.
    unsafe { launch!(pdl_produce<<<4, 256, s, programmatic_event = e>>>(out, 1024)) }?;
    unsafe { launch!(pdl_consume<<<4, 256, s, programmatic_event = e>>>(d, out, 1024)) }
}

#[allow(deprecated)]
fn ordered_at_the_end(s: &CudaStream, e: &CudaEvent, d: &CudaSlice<u32>, out: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    unsafe { launch!(pdl_consume<<<4, 256, s, programmatic_event = e>>>(d, out, 1024)) }
}

fn main() {
    let _ = (run, ordered_at_the_end);
}
