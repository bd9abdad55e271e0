//! y = a·x + y through a typed `#[kernel]` and `launch!`, checked against the host.
//!
//! Run on a CUDA machine: `cargo run --example saxpy`.

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch};

/// y = a·x + y
#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let n: u32 = 1 << 20;
    let x_host: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.001 - 0.5).collect();
    let y_host: Vec<f32> = (0..n).map(|i| (i % 777) as f32 * 0.01).collect();
    let x = stream.clone_htod(&x_host)?;
    let mut y = stream.clone_htod(&y_host)?;

    unsafe {
        launch!(saxpy<<<n.div_ceil(256), 256, &stream, stream(sync = Spin), priority = 0>>>(n, 2.0, &x, &mut y))
    }?;

    let got = stream.clone_dtoh(&y)?;
    let mut worst = 0.0f32;
    for i in 0..n as usize {
        let want = 2.0 * x_host[i] + y_host[i];
        worst = worst.max((got[i] - want).abs());
    }
    println!("saxpy over {n} elements: max |error| = {worst:e}");
    if worst > 1e-5 {
        return Err(format!("saxpy differs from the host by {worst}").into());
    }
    let policy = chevron::stream_attribute::<chevron::SyncPolicy>(&stream)?;
    println!("stream sync policy after the launch: {policy:?}");
    if policy != Some(chevron::SyncPolicy::Spin) {
        return Err("stream(sync = Spin) was not applied".into());
    }
    Ok(())
}
