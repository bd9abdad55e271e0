//! A stream whose context fails wakes its waiters with the error: completions of every
//! mechanism, pending behind a kernel that traps, all come back as `Error::StreamFailed` naming
//! the device and saying the context is unusable, within seconds (nothing hangs); a completion
//! made afterwards is an error too. The only test of its binary: the context stays broken. Run
//! on a CUDA machine: `cargo test --test completion_sticky_gpu -- --ignored --nocapture` (not
//! under compute-sanitizer: the trap is on purpose).

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use chevron::cudarc::driver::CudaSlice;
use chevron::{completion_with, kernel, launch, Error, Mechanism};

#[path = "common/executor.rs"]
mod executor;

#[kernel(ptx = "kernels/trap.ptx")]
fn trap(trigger: u32, out: &mut CudaSlice<u32>);

/// Busy for `ns` nanoseconds of GPU time, then out[0] += 1.
#[kernel(ptx = "kernels/completion.ptx")]
fn spin_wait(ns: u64, out: &mut CudaSlice<u32>);

/// Per mechanism, what awaiting its completion gave; then what a completion made after the
/// failure gave.
type Report = Result<(Vec<(Mechanism, String)>, String), String>;

fn after_a_trap() -> Report {
    let e = |e: Error| e.to_string();
    let ctx = gpu::context(0).map_err(e)?;
    let stream = ctx.new_stream().map_err(|x| e(x.into()))?;
    let mut out = stream.clone_htod(&[7u32]).map_err(|x| e(x.into()))?;
    // The completions are made while the GPU is still busy, so all are pending when the trap
    // breaks the context.
    unsafe { launch!(spin_wait<<<1, 32, &stream>>>(20_000_000, &mut out)) }.map_err(e)?;
    unsafe { launch!(trap<<<1, 32, &stream>>>(1, &mut out)) }.map_err(e)?;
    let pending: Vec<_> = Mechanism::ALL
        .into_iter()
        .filter(|m| m.available().is_ok())
        .map(|m| (m, completion_with(&stream, m)))
        .collect();
    let mut results = Vec::new();
    for (mechanism, done) in pending {
        let text = match executor::block_on(done) {
            Err(x @ Error::StreamFailed { device: 0, .. }) => x.to_string(),
            other => return Err(format!("{}: {other:?}", mechanism.name())),
        };
        results.push((mechanism, text));
    }
    let after = match executor::block_on(completion_with(&stream, Mechanism::DEFAULT)) {
        Ok(()) => return Err("a completion made after the trap succeeded".into()),
        Err(x) => format!("{x:?}"),
    };
    Ok((results, after))
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_failed_context_wakes_every_waiter_with_the_error() {
    let start = Instant::now();
    let (tx, rx) = mpsc::channel();
    // On its own thread, so that a hang fails the test instead of stalling the run.
    std::thread::spawn(move || {
        let _ = tx.send(after_a_trap());
    });
    let report = rx
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("no answer within 30 s after a trap: a waiter hangs"));
    let (results, after) = report.unwrap_or_else(|e| panic!("{e}"));
    assert!(results.len() >= 4, "{results:?}");
    for (mechanism, text) in &results {
        println!("{}: {text}", mechanism.name());
        assert!(
            text.starts_with("the work awaited on a stream of device 0 failed ("),
            "{text}"
        );
        assert!(text.contains("the process must exit"), "{text}");
    }
    println!("a completion made after the trap: {after}");
    println!("all within {:?}", start.elapsed());
}
