//! After the first launch in a context, launching allocates nothing: not the typed `launch!`
//! (cached function lookup, stack parameter array, fixed-size attribute array), not the untyped
//! one. A counting global allocator proves it on the GPU.

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::CudaSlice;
use chevron::cudarc::nvrtc::Ptx;
use chevron::{kernel, launch};

#[path = "common/counting.rs"]
mod counting;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[test]
#[ignore = "needs a CUDA GPU"]
fn launching_allocates_nothing_after_the_first_launch() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let f = ctx
        .load_module(Ptx::from_src(include_str!("../kernels/saxpy.ptx")))?
        .load_function("saxpy")?;
    let n = 4096u32;
    let x = stream.clone_htod(&vec![1.0f32; n as usize])?;
    let mut y = stream.clone_htod(&vec![0.0f32; n as usize])?;
    let one = 1.0f32;
    let launches = 200;
    let mut run = |count: usize| -> Result<(), chevron::Error> {
        for _ in 0..count {
            unsafe {
                launch!(saxpy<<<n / 256, 256, &stream, stream(sync = Spin), priority = 0, cluster = 2>>>(n, 1.0, &x, &mut y))
            }?;
            unsafe {
                launch!(dyn f<<<n / 256, 256, &stream, mem_sync_domain = Remote>>>(&n, &one, &x, &mut y))
            }?;
        }
        Ok(())
    };
    run(2)?; // loads the module, warms up
    stream.synchronize()?;
    let before = counting::allocations();
    run(launches)?;
    let after = counting::allocations();
    stream.synchronize()?;
    let got = stream.clone_dtoh(&y)?;
    let want = (2 * (launches + 2)) as f32;
    assert!(
        got.iter().all(|&v| v == want),
        "y = {} after the launches, want {want}",
        got[0]
    );
    println!("{} launches: {} allocations", 2 * launches, after - before);
    assert_eq!(after - before, 0, "launching allocated");
    Ok(())
}
