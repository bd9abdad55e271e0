//! A grid-syncing kernel launched without `cooperative`, and `cooperative` on a kernel that
//! never syncs the grid.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "ui-tests/fixtures/fit_cooperative.ptx")]
fn grid_rotate(input: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

#[kernel(ptx = "ui-tests/fixtures/fit_bounds.ptx")]
fn bounded_scale(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);

fn run(
    s: &CudaStream,
    a: &CudaSlice<i32>,
    b: &mut CudaSlice<i32>,
    c: &mut CudaSlice<i32>,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
) -> Result<(), chevron::Error> {
    unsafe { launch!(grid_rotate<<<4, 256, s>>>(a, b, c, 1024)) }?;
    unsafe { launch!(grid_rotate<<<4, 256, s, cooperative = false>>>(a, b, c, 1024)) }?;
    unsafe { launch!(bounded_scale<<<4, 256, s, cooperative>>>(x, y, 1024)) }?;
    // As the kernels need: no error.
    unsafe { launch!(grid_rotate<<<4, 256, s, cooperative>>>(a, b, c, 1024)) }?;
    unsafe { launch!(bounded_scale<<<4, 256, s>>>(x, y, 1024)) }
}

fn main() {
    let _ = run;
}
