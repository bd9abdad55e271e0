//! Kernels that each embed only their own module (cut out of the PTX file) next to kernels
//! that share module state (rules/tests/fixtures/module_state.cu): a `__device__` counter one
//! kernel increments is the counter another kernel reads, as with the whole file loaded once;
//! a kernel of its own module (`scale`, `say`) runs exactly; and the modules loaded are one for
//! the file's shared text plus one per cut kernel. Run on a CUDA machine:
//! `cargo test --test module_state_gpu -- --ignored --nocapture`.

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch};

type TestResult = Result<(), Box<dyn std::error::Error>>;

const FILE: &str = "rules/tests/fixtures/module_state.ptx";

/// Adds one per thread to the `__device__` counter `launches`; thread 0 writes what it saw.
#[kernel(ptx = "rules/tests/fixtures/module_state.ptx")]
fn count_launch(out: &mut CudaSlice<u32>);

/// Writes the counter `launches`.
#[kernel(ptx = "rules/tests/fixtures/module_state.ptx")]
fn read_count(out: &mut CudaSlice<u32>);

/// `y[i] *= a` for `i < n`: no module state, so its own module.
#[kernel(ptx = "rules/tests/fixtures/module_state.ptx")]
fn scale(y: &mut CudaSlice<f32>, a: f32, n: i32);

#[test]
#[ignore = "needs a CUDA GPU"]
fn kernels_sharing_a_device_variable_share_it_and_cut_kernels_run_exactly() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.default_stream();
    let poison = 0xDEAD_BEEFu32;
    let mut seen = stream.clone_htod(&[poison])?;
    let mut count = stream.clone_htod(&[poison])?;
    // Two launches of 64 threads: the counter goes 0 → 64 → 128 (a `__device__` variable
    // starts at zero when its module loads).
    unsafe { launch!(count_launch<<<1, 64, &stream>>>(&mut seen)) }?;
    unsafe { launch!(count_launch<<<1, 64, &stream>>>(&mut seen)) }?;
    unsafe { launch!(read_count<<<1, 1, &stream>>>(&mut count)) }?;
    let seen = stream.clone_dtoh(&seen)?;
    let count = stream.clone_dtoh(&count)?;
    // The second launch's thread 0 saw the first launch's 64 (at least: threads of its own
    // block may have added before it), and the reader, in another declaration, sees 128: one
    // module, one counter.
    assert!(
        (64..128).contains(&seen[0]),
        "count_launch saw {:#x}, want 64..128",
        seen[0]
    );
    assert_eq!(
        count,
        [128],
        "read_count does not see count_launch's counter"
    );

    let n = 1000i32;
    let host: Vec<f32> = (0..n + 24).map(|i| i as f32 - 7.5).collect();
    let mut y = stream.clone_htod(&host)?;
    unsafe { launch!(scale<<<(n as u32).div_ceil(128), 128, &stream>>>(&mut y, 3.0, n)) }?;
    let y = stream.clone_dtoh(&y)?;
    for (i, (got, x)) in y.iter().zip(&host).enumerate() {
        let want = if (i as i32) < n { x * 3.0 } else { *x };
        assert_eq!(*got, want, "y[{i}]");
    }

    // The whole file once (count_launch and read_count), and scale's own module.
    assert_eq!(chevron::__private::modules_loaded(&ctx, FILE), 2);
    println!("a __device__ counter shared across declarations: 128; scale exact; 2 modules");
    Ok(())
}
