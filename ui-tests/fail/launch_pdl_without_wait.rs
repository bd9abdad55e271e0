//! `programmatic_serialization` on a kernel that never executes `griddepcontrol.wait`.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "ui-tests/fixtures/fit_pdl.ptx")]
fn pdl_consume_nowait(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

#[kernel(ptx = "ui-tests/fixtures/fit_pdl.ptx")]
fn pdl_consume(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

fn run(s: &CudaStream, d: &CudaSlice<u32>, out: &mut CudaSlice<u32>) -> Result<(), chevron::Error> {
    unsafe { launch!(pdl_consume_nowait<<<4, 256, s, programmatic_serialization>>>(d, out, 1024)) }?;
    unsafe { launch!(pdl_consume_nowait<<<4, 256, s, programmatic_serialization = true>>>(d, out, 1024)) }?;
    // It waits: no error.
    unsafe { launch!(pdl_consume<<<4, 256, s, programmatic_serialization>>>(d, out, 1024)) }
}

fn main() {
    let _ = run;
}
