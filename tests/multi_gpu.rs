//! Two GPUs in one process: the same `#[kernel]` launched on devices 0 and 1, each device's
//! module loaded in its own context, results checked exactly; a config built while device 0 was
//! in use launches on a stream of device 1 (a config holds no device state). With fewer than two
//! devices each test prints a note and returns. Run on a machine with two GPUs:
//! `cargo test --test multi_gpu -- --ignored --nocapture`.

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::Arc;

use chevron::cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use chevron::{config, kernel, launch, Error};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

/// Contexts of devices 0 and 1, or `None` (after a printed note) with fewer than two devices.
fn two_devices(test: &str) -> Result<Option<[Arc<CudaContext>; 2]>, Error> {
    gpu::driver()?;
    let count = CudaContext::device_count()?;
    if count < 2 {
        println!("SKIPPED {test}: {count} CUDA device(s), the test needs 2");
        return Ok(None);
    }
    Ok(Some([gpu::context(0)?, gpu::context(1)?]))
}

/// y = a·x + y on `stream` with x = i, y = 3, a = 2 + device ordinal; checks y = a·i + 3.
fn run_on(stream: &Arc<CudaStream>, n: u32) -> Result<f32, Box<dyn std::error::Error>> {
    let a = 2.0 + stream.context().ordinal() as f32;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let x = stream.clone_htod(&x)?;
    let mut y = stream.clone_htod(&vec![3.0f32; n as usize])?;
    unsafe {
        launch!(saxpy<<<n.div_ceil(256), 256, stream, stream(sync = Spin), priority = 0>>>(
            n, a, &x, &mut y))
    }?;
    let y = stream.clone_dtoh(&y)?;
    for (i, v) in y.iter().enumerate() {
        let want = a * i as f32 + 3.0;
        assert_eq!(*v, want, "device {}: y[{i}]", stream.context().ordinal());
    }
    Ok(a)
}

#[test]
#[ignore = "needs two CUDA GPUs"]
fn one_kernel_on_two_devices_each_in_its_own_context() -> TestResult {
    let Some([ctx0, ctx1]) = two_devices("one_kernel_on_two_devices_each_in_its_own_context")?
    else {
        return Ok(());
    };
    let (s0, s1) = (ctx0.new_stream()?, ctx1.new_stream()?);
    let n = 100_000;
    // Interleaved, twice: each device's cached function must stay its own.
    for _ in 0..2 {
        let a0 = run_on(&s0, n)?;
        let a1 = run_on(&s1, n)?;
        assert_eq!((a0, a1), (2.0, 3.0));
    }
    let (f0, f1) = (
        saxpy::kernel().function(&ctx0)?,
        saxpy::kernel().function(&ctx1)?,
    );
    assert_ne!(
        f0.cu_function(),
        f1.cu_function(),
        "one function for two contexts"
    );
    for ctx in [&ctx0, &ctx1] {
        assert_eq!(
            chevron::__private::modules_loaded(ctx, "/kernels/saxpy.ptx"),
            1
        );
    }
    println!(
        "saxpy on devices 0 and 1 ({} and {}): results exact, one module per context, \
         functions {:?} and {:?}",
        ctx0.name()?,
        ctx1.name()?,
        f0.cu_function(),
        f1.cu_function()
    );
    // From two threads at once, one per device.
    std::thread::scope(|scope| -> TestResult {
        let h0 = scope.spawn(|| run_on(&s0, n).map_err(|e| e.to_string()));
        let h1 = scope.spawn(|| run_on(&s1, n).map_err(|e| e.to_string()));
        h0.join().expect("device 0 thread")?;
        h1.join().expect("device 1 thread")?;
        Ok(())
    })?;
    Ok(())
}

#[test]
#[ignore = "needs two CUDA GPUs"]
fn a_config_built_on_device_0_launches_on_device_1() -> TestResult {
    let Some([ctx0, ctx1]) = two_devices("a_config_built_on_device_0_launches_on_device_1")? else {
        return Ok(());
    };
    ctx0.bind_to_thread()?;
    let n = 4096u32;
    let cfg = config!(<<<n.div_ceil(256), 256, stream(sync = Yield), priority = 0>>>);
    // Used on device 0 first, then on device 1's stream.
    for ctx in [&ctx0, &ctx1] {
        let stream = ctx.new_stream()?;
        let x = stream.clone_htod(&vec![1.0f32; n as usize])?;
        let mut y = stream.clone_htod(&vec![0.25f32; n as usize])?;
        unsafe { launch!(saxpy<<<config = cfg, &stream>>>(n, 4.0, &x, &mut y)) }?;
        assert_eq!(
            stream.clone_dtoh(&y)?,
            vec![4.25f32; n as usize],
            "device {}",
            ctx.ordinal()
        );
    }
    println!("a config built on device 0 launched on devices 0 and 1: results exact");
    Ok(())
}
