//! A kernel whose `grid.sync()` sits in a `__noinline__` helper (nvcc emits a `call` into it),
//! in the release and the `-G` build, launched without `cooperative`: the grid barrier is found
//! through the call.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "kernels/grid_helpers.ptx")]
fn helper_rotate(input: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

#[kernel(ptx = "kernels/grid_helpers_debug.ptx", name = "helper_rotate")]
fn helper_rotate_debug(input: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

fn run(
    s: &CudaStream,
    a: &CudaSlice<i32>,
    b: &mut CudaSlice<i32>,
    c: &mut CudaSlice<i32>,
) -> Result<(), chevron::Error> {
    unsafe { launch!(helper_rotate<<<4, 256, s>>>(a, b, c, 1024)) }?;
    unsafe { launch!(helper_rotate_debug<<<4, 256, s>>>(a, b, c, 1024)) }?;
    // Cooperative: no error.
    unsafe { launch!(helper_rotate<<<4, 256, s, cooperative>>>(a, b, c, 1024)) }?;
    unsafe { launch!(helper_rotate_debug<<<4, 256, s, cooperative>>>(a, b, c, 1024)) }
}

fn main() {
    let _ = run;
}
