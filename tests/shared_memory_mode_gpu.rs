//! CUDA 13.4's oversized shared memory (built with `--no-default-features --features
//! cuda-13040`; other builds compile nothing here): the function attribute
//! `CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE` set and read back, and a launch with
//! `shared_memory_mode = AllowOversized` asking for more than the opt-in limit, checked against a
//! host reference, where the device has oversized shared memory. On a driver older than 13.4
//! the attribute is refused: the test checks the refusal is `Error::Driver` naming it.
#![cfg(feature = "cuda-13040")]

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::CudaSlice;
use chevron::sys::CUdevice_attribute as A;
use chevron::{
    function_attribute, kernel, launch, set_function_attribute, FunctionSharedMemoryMode,
    SharedMemoryMode,
};

/// `buf[i] = in[i]·2 + block` in dynamic shared memory, then each thread sums what it reads back
/// from the far end.
#[kernel(ptx = "kernels/bigshared.ptx")]
fn bigshared(input: &CudaSlice<u32>, out: &mut CudaSlice<u32>, words: u32);

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn driver_version() -> i32 {
    let mut v = 0;
    // SAFETY: a valid out-pointer; the driver is loaded (a context exists).
    unsafe { chevron::sys::cuDriverGetVersion(&mut v) };
    v
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn oversized_shared_memory_mode() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let func = bigshared::kernel().function(&ctx)?;
    let mode = FunctionSharedMemoryMode(SharedMemoryMode::AllowOversized);
    let set = set_function_attribute(&ctx, &func, mode);
    let version = driver_version();
    if version < 13040 {
        let err =
            set.expect_err("a driver older than 13.4 took CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE");
        println!("driver {version}: {err}");
        assert!(matches!(err, chevron::Error::Driver { .. }), "{err:?}");
        assert!(
            err.to_string()
                .contains("CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE"),
            "{err}"
        );
        return Ok(());
    }
    set?;
    assert_eq!(
        function_attribute::<FunctionSharedMemoryMode>(&ctx, &func)?,
        Some(mode)
    );
    set_function_attribute(
        &ctx,
        &func,
        FunctionSharedMemoryMode(SharedMemoryMode::Default),
    )?;

    let optin = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)? as u32;
    let oversized = ctx.attribute(A::CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK)?;
    println!("shared memory per block: opt-in {optin} B, oversized {oversized} B");
    if oversized as u32 <= optin {
        println!("this device has no oversized shared memory: launch part skipped");
        return Ok(());
    }
    // 4 KiB over the opt-in limit (within the oversized one).
    let bytes = (optin + 4096).min(oversized as u32) & !3;
    let words = bytes / 4;
    let (blocks, threads) = (2u32, 256u32);
    let input: Vec<u32> = (0..words)
        .map(|i| i.wrapping_mul(2_654_435_761) >> 7)
        .collect();
    let input_dev = stream.clone_htod(&input)?;
    let mut out = stream.clone_htod(&vec![u32::MAX; (blocks * threads) as usize])?;
    unsafe {
        launch!(bigshared<<<blocks, threads, &stream, shared = bytes,
            shared_memory_mode = AllowOversized>>>(&input_dev, &mut out, words))
    }?;
    let out = stream.clone_dtoh(&out)?;
    for b in 0..blocks {
        for t in 0..threads {
            let want = (t..words)
                .step_by(threads as usize)
                .map(|i| {
                    input[(words - 1 - i) as usize]
                        .wrapping_mul(2)
                        .wrapping_add(b)
                })
                .fold(0u32, u32::wrapping_add);
            assert_eq!(
                out[(b * threads + t) as usize],
                want,
                "block {b}, thread {t}"
            );
        }
    }
    println!("checked: {bytes} B of dynamic shared memory with AllowOversized");
    Ok(())
}
