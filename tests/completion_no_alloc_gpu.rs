//! After warm-up, awaiting a completion allocates nothing, for every mechanism: making it
//! (slot, event or flag from their pools, the reactor's lists at their high-water mark),
//! polling it (the waker kept, not cloned again) and dropping it. A counting global allocator
//! proves it on the GPU; run alone (`RUST_TEST_THREADS=1`, the counter is process-wide):
//! `cargo test --test completion_no_alloc_gpu -- --ignored --nocapture`.

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::CudaSlice;
use chevron::{completion_with, kernel, launch, Mechanism, SyncPolicy};

#[path = "common/counting.rs"]
mod counting;
#[path = "common/executor.rs"]
mod executor;

/// Busy for `ns` nanoseconds of GPU time, then out[0] += 1.
#[kernel(ptx = "kernels/completion.ptx")]
fn spin_wait(ns: u64, out: &mut CudaSlice<u32>);

#[test]
#[ignore = "needs a CUDA GPU"]
fn awaiting_allocates_nothing_after_warm_up() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = gpu::context(0)?;
    let (_, waker) = executor::thread_waker();
    let mut report = Vec::new();
    for policy in [SyncPolicy::Auto, SyncPolicy::Spin] {
        for mechanism in Mechanism::ALL {
            if mechanism.available().is_err() {
                continue;
            }
            let stream = ctx.new_stream()?;
            chevron::set_stream_attribute(&stream, policy)?;
            let mut count = stream.clone_htod(&[0u32])?;
            let mut round = |rounds: u32| -> Result<(), chevron::Error> {
                for _ in 0..rounds {
                    unsafe { launch!(spin_wait<<<1, 32, &stream>>>(20_000, &mut count)) }?;
                    executor::block_on_with(&waker, completion_with(&stream, mechanism))?;
                }
                Ok(())
            };
            // Warm-up: the pools and the reactor's lists grow to their high-water mark.
            round(300)?;
            // Let the reactor hand back what the warm-up used.
            std::thread::sleep(std::time::Duration::from_millis(5));
            let before = counting::allocations();
            round(1000)?;
            let allocated = counting::allocations() - before;
            assert_eq!(stream.clone_dtoh(&count)?, [1300], "{}", mechanism.name());
            report.push(format!(
                "{} under {policy:?}: {allocated} allocations in 1000 awaited launches",
                mechanism.name()
            ));
            assert_eq!(allocated, 0, "{}", report.last().unwrap());
        }
    }
    for line in report {
        println!("{line}");
    }
    Ok(())
}
