//! Launches that fit the kernels' PTX rules, the declarations' opt-outs, and values only known
//! at run time (checked there): all compile. Never launched (no GPU on the test machine).
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

/// Reads nothing `pdl_produce` writes (here: declared so), so it needs no wait.
#[kernel(ptx = "ui-tests/fixtures/fit_pdl.ptx", pdl = "no_upstream_reads")]
fn pdl_consume_nowait(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

/// Wants its blocks co-resident without a grid barrier.
#[kernel(ptx = "ui-tests/fixtures/fit_pdl.ptx", name = "pdl_consume_nowait", cooperative = "co_resident")]
fn co_resident(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

/// Syncs the grid only when launched cooperatively (declared so).
#[kernel(ptx = "ui-tests/fixtures/fit_cooperative.ptx", cooperative = "optional")]
fn grid_rotate(input: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

#[kernel(ptx = "ui-tests/fixtures/fit_bounds.ptx")]
fn bounded_scale(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);

#[kernel(ptx = "ui-tests/fixtures/fit_bounds.ptx")]
fn clustered_rank(out: &mut CudaSlice<u32>);

#[allow(dead_code, clippy::too_many_arguments)]
fn run(
    s: &CudaStream,
    d: &CudaSlice<u32>,
    o: &mut CudaSlice<u32>,
    a: &CudaSlice<i32>,
    b: &mut CudaSlice<i32>,
    c: &mut CudaSlice<i32>,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
    block: u32,
    on: bool,
) -> Result<(), chevron::Error> {
    unsafe { launch!(pdl_consume_nowait<<<4, 256, s, programmatic_serialization>>>(d, o, 1024)) }?;
    unsafe { launch!(co_resident<<<4, 256, s, cooperative>>>(d, o, 1024)) }?;
    unsafe { launch!(grid_rotate<<<4, 256, s>>>(a, b, c, 1024)) }?;
    unsafe { launch!(grid_rotate<<<4, 256, s, cooperative>>>(a, b, c, 1024)) }?;
    // Run-time values: checked before the launch, not here.
    unsafe { launch!(bounded_scale<<<4, block, s, cooperative = on>>>(x, y, 1024)) }?;
    unsafe { launch!(clustered_rank<<<(block, 1, 1), 32, s>>>(o)) }
}

fn main() {}
