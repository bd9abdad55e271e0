//! A launch after a kernel trapped: the context is unusable for the rest of the process (a
//! "sticky" error), so this is the only test of its binary. Every later launch must return
//! `Error::ContextUnusable` saying so, at once: nothing may hang. Run on a machine with a CUDA
//! GPU: `cargo test --test sticky_gpu -- --ignored --nocapture`. (Not under compute-sanitizer:
//! the trap is on purpose.)

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::mpsc;
use std::time::{Duration, Instant};

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, Error};

#[kernel(ptx = "kernels/trap.ptx")]
fn trap(trigger: u32, out: &mut CudaSlice<u32>);

/// What the thread doing the GPU work reports.
type Report = Result<(String, String, String), String>;

fn after_a_trap() -> Report {
    let e = |e: Error| e.to_string();
    let ctx = gpu::context(0).map_err(e)?;
    let stream = ctx.new_stream().map_err(|x| e(x.into()))?;
    let mut out = stream.clone_htod(&[7u32]).map_err(|x| e(x.into()))?;
    // A control: without the trigger the kernel writes 1.
    unsafe { launch!(trap<<<1, 32, &stream>>>(0, &mut out)) }.map_err(e)?;
    let v = stream.clone_dtoh(&out).map_err(|x| e(x.into()))?;
    if v != [1] {
        return Err(format!("the control launch wrote {v:?}, not [1]"));
    }
    unsafe { launch!(trap<<<1, 32, &stream>>>(1, &mut out)) }.map_err(e)?;
    // The trap surfaces at the next synchronization, as cudarc's error.
    let sync = match stream.synchronize() {
        Ok(()) => return Err("the trapping kernel completed without an error".into()),
        Err(x) => format!("{x:?}"),
    };
    let first = match unsafe { launch!(trap<<<1, 32, &stream>>>(0, &mut out)) } {
        Err(x @ Error::ContextUnusable { device: 0, .. }) => x.to_string(),
        other => return Err(format!("the launch after the trap gave {other:?}")),
    };
    // And again: the context does not recover.
    let second = match unsafe { launch!(trap<<<1, 32, &stream>>>(0, &mut out)) } {
        Err(x @ Error::ContextUnusable { .. }) => x.to_string(),
        other => return Err(format!("the second launch after the trap gave {other:?}")),
    };
    Ok((sync, first, second))
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_launch_after_a_trap_says_the_context_is_unusable_and_nothing_hangs() {
    let start = Instant::now();
    let (tx, rx) = mpsc::channel();
    // On its own thread, so that a hang fails the test instead of stalling the run.
    std::thread::spawn(move || {
        let _ = tx.send(after_a_trap());
    });
    let report = rx
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("no answer within 30 s after a trap: something hangs"));
    let (sync, first, second) = report.unwrap_or_else(|e| panic!("{e}"));
    println!("synchronize after the trap: {sync}");
    println!("launch after the trap: {first}");
    println!("all within {:?}", start.elapsed());
    assert!(
        first.starts_with("cannot launch for `trap`: the CUDA context of device 0 is unusable"),
        "{first}"
    );
    assert!(first.contains("the process must exit"), "{first}");
    assert_eq!(first, second);
}
