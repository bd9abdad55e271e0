//! Launches that real nvcc output allows, which chevron once refused: facts found through
//! helper calls and `-G` builds, `.blocksareclusters` grids that count clusters, and kernels
//! calling code their PTX does not hold (unknown facts refuse nothing).
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

// `this_grid()` only for indexing: under -G nvcc reads the grid workspace, but nothing syncs.
#[kernel(ptx = "kernels/grid_helpers_debug.ptx")]
fn grid_index(out: &mut CudaSlice<u32>, n: u32);

// `cudaGridDependencySynchronize()`: under -G a `call` into a `.func` holding the wait.
#[kernel(ptx = "kernels/pdl_helpers_debug.ptx")]
fn pdl_wait_direct(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

// The wait in a `__noinline__` helper, release build.
#[kernel(ptx = "kernels/pdl_helpers.ptx")]
fn pdl_wait_helper(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

// `__block_size__((64, 1, 1), (2, 1, 1))`: the grid counts clusters of 2.
#[kernel(ptx = "kernels/block_size.ptx")]
fn block_size_rank(out: &mut CudaSlice<u32>);

// Relocatable code calling an `.extern .func`: whether it syncs or waits is unknown.
#[kernel(ptx = "rules/tests/fixtures/calls.ptx")]
fn calls_extern(data: &mut CudaSlice<u32>, n: u32);

fn run(
    s: &CudaStream,
    d: &CudaSlice<u32>,
    out: &mut CudaSlice<u32>,
) -> Result<(), chevron::Error> {
    unsafe { launch!(grid_index<<<4, 256, s>>>(out, 1024)) }?;
    unsafe { launch!(pdl_wait_direct<<<4, 256, s, programmatic_serialization>>>(d, out, 1024)) }?;
    unsafe { launch!(pdl_wait_helper<<<4, 256, s, programmatic_serialization>>>(d, out, 1024)) }?;
    unsafe { launch!(block_size_rank<<<3, 64, s>>>(out)) }?;
    unsafe { launch!(calls_extern<<<4, 256, s, cooperative, programmatic_serialization>>>(out, 1024)) }?;
    unsafe { launch!(calls_extern<<<4, 256, s>>>(out, 1024)) }
}

fn main() {
    let _ = run;
}
