//! Launches whose only literal is their block (the grid computed, no `cluster`, no flag):
//! checked against the kernel's rules in types (`LaunchConfig::__literal_block`), with the
//! same words as the other launches, at the kernel's name.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "ui-tests/fixtures/fit_bounds.ptx")]
fn bounded_scale(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);

#[kernel(ptx = "ui-tests/fixtures/fit_reqntid.ptx")]
fn exact_block(out: &mut CudaSlice<u32>);

#[kernel(ptx = "kernels/block_size.ptx")]
fn explicit_rank(out: &mut CudaSlice<u32>);

#[kernel(ptx = "kernels/grid_helpers.ptx")]
fn helper_rotate(input: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

#[kernel(ptx = "kernels/saxpy.ptx", cooperative = "co_resident")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

struct NotAKernel;

fn host_saxpy(n: u32) -> u32 {
    n
}

type Renamed = bounded_scale;

#[allow(clippy::too_many_arguments)]
fn run(
    s: &CudaStream,
    n: u32,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
    out: &mut CudaSlice<u32>,
    a: &CudaSlice<i32>,
    b: &mut CudaSlice<i32>,
    c: &mut CudaSlice<i32>,
) -> Result<(), chevron::Error> {
    // `.maxntid 256, 1, 1`: 512 threads, 257, and (16, 17) are over; 256, 255 and (16, 16) are not.
    unsafe { launch!(bounded_scale<<<n.div_ceil(512), 512, s>>>(x, y, n)) }?;
    unsafe { launch!(bounded_scale<<<n.div_ceil(257), 257, s>>>(x, y, n)) }?;
    unsafe { launch!(bounded_scale<<<n.div_ceil(272), (16, 17), s>>>(x, y, n)) }?;
    unsafe { launch!(bounded_scale<<<n.div_ceil(256), 256u32, s>>>(x, y, n)) }?;
    unsafe { launch!(bounded_scale<<<n.div_ceil(255), 255, s>>>(x, y, n)) }?;
    unsafe { launch!(Renamed<<<n.div_ceil(256), (16, 16), s, cooperative = false>>>(x, y, n)) }?;
    unsafe { launch!(Renamed<<<n.div_ceil(1024), 1024, s>>>(x, y, n)) }?;
    // `.reqntid 128, 1, 1`: only that block.
    unsafe { launch!(exact_block<<<n, (64, 2), s>>>(out)) }?;
    unsafe { launch!(exact_block<<<n, 128, s>>>(out)) }?;
    // `.explicitcluster`: only in clusters.
    unsafe { launch!(explicit_rank<<<n, 64, s>>>(out)) }?;
    // A grid barrier: only `cooperative`.
    unsafe { launch!(helper_rotate<<<n, 256, s, programmatic_serialization = false>>>(a, b, c, n)) }?;
    // Declared `co_resident`: only `cooperative`.
    unsafe { launch!(saxpy<<<n.div_ceil(256), 256, s>>>(n, 2.0, x, y)) }?;
    unsafe { launch!(saxpy<<<n.div_ceil(256), 256, s, cooperative>>>(n, 2.0, x, y)) }?;
    // No kernel at all: one error each (and rustc's own for `::kernel()`).
    unsafe { launch!(host_saxpy<<<n, 256, s>>>(n)) }?;
    unsafe { launch!(NotAKernel<<<n, 256, s>>>(n)) }
}

fn function_value(s: &CudaStream, f: &chevron::cudarc::driver::CudaFunction, n: u32) -> Result<(), chevron::Error> {
    unsafe { launch!(f<<<n, 256, s>>>(&n)) }
}

fn main() {
    let _ = (run, function_value);
}
