//! y = a·x + y through a typed `#[kernel]` and `launch!` with one stream attribute and one launch
//! attribute, checked against the same computation on the host.
//!
//! `cargo run --release --example saxpy` (`CHEVRON_QUICK=1`: 2^14 elements instead of 2^20). Exit code 0 when the GPU's result matches, 2 on a
//! machine without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, SyncPolicy};

/// y = a·x + y
#[kernel(ptx = "kernels/saxpy.ptx")] // checked against `.entry saxpy` when this file compiles
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

/// The largest difference from the host's result that still counts as equal: the GPU may fuse
/// `a * x + y` into one FMA, which rounds once where the host rounds twice.
const TOLERANCE: f32 = 1e-5;

fn main() -> ExitCode {
    common::exit_code(run())
}

fn run() -> Result<(), Box<dyn Error>> {
    let ctx = chevron::context(0)?; // Error::NoDriver on a machine without a CUDA driver
    let stream = ctx.new_stream()?;
    common::announce_quick();
    println!("device 0: {}", ctx.name()?);

    let n: u32 = common::size(1 << 20, 1 << 14);
    let a = 2.0f32;
    // Non-constant data, so a kernel that wrote one value everywhere could not match.
    let x_host: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.001 - 0.5).collect();
    let y_host: Vec<f32> = (0..n).map(|i| (i % 777) as f32 * 0.01).collect();
    let x = stream.clone_htod(&x_host)?;
    let mut y = stream.clone_htod(&y_host)?;

    unsafe {
        launch!(saxpy<<<n.div_ceil(256), 256, &stream, stream(sync = Spin), priority = 0>>>(n, a, &x, &mut y))
    }?;

    let got = stream.clone_dtoh(&y)?;
    let worst = got
        .iter()
        .zip(x_host.iter().zip(&y_host))
        .map(|(g, (x, y))| (g - (a * x + y)).abs())
        .fold(0.0f32, f32::max);
    println!(
        "saxpy: n = {n}, a = {a}, grid {} × block 256",
        n.div_ceil(256)
    );
    println!(
        "checked: max |y_gpu - y_host| = {worst:e} over {n} elements (tolerance {TOLERANCE:e})"
    );
    if worst > TOLERANCE {
        return Err(format!("the GPU's saxpy differs from the host's by {worst:e}").into());
    }

    let policy = chevron::stream_attribute::<SyncPolicy>(&stream)?;
    println!("checked: stream attribute sync = Spin (CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY) reads back as {policy:?}");
    if policy != Some(SyncPolicy::Spin) {
        return Err("stream(sync = Spin) was not applied to the stream".into());
    }
    println!("checked: launch attribute priority = 0 (CU_LAUNCH_ATTRIBUTE_PRIORITY) accepted by cuLaunchKernelEx");
    Ok(())
}
