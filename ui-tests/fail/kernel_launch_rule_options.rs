//! `pdl` and `cooperative` take one value each.
use chevron::cudarc::driver::CudaSlice;
use chevron::kernel;

#[kernel(ptx = "ui-tests/fixtures/fit_pdl.ptx", pdl = "none")]
fn pdl_consume(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

#[kernel(ptx = "ui-tests/fixtures/fit_pdl.ptx", cooperative = "yes")]
fn pdl_produce(data: &mut CudaSlice<u32>, n: u32);

#[kernel(ptx = "ui-tests/fixtures/fit_pdl.ptx", pdl = 1)]
fn pdl_consume_nowait(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

fn main() {}
