//! Launches from many threads at once: 8 threads × 10,000 launches, each on its own stream with
//! its own stream attributes, results checked exactly; 32 threads making the first launch of one
//! kernel at the same moment load its module once. Run on a machine with a CUDA GPU:
//! `cargo test --test concurrency_gpu -- --ignored --nocapture`.

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::{Arc, Barrier};
use std::time::Instant;

use chevron::cudarc::driver::{CudaContext, CudaSlice};
use chevron::{kernel, launch, stream_attribute, MemSyncDomain, Priority, SyncPolicy};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

// Launched only by the race test (with trigger 0: it never traps), so that the modules of its
// file it counts are those the race loaded.
#[kernel(ptx = "kernels/trap.ptx")]
fn trap(trigger: u32, out: &mut CudaSlice<u32>);

const THREADS: usize = 8;
const LAUNCHES: usize = 10_000;
const N: u32 = 1024;

#[test]
#[ignore = "needs a CUDA GPU"]
fn eight_threads_ten_thousand_launches_each_on_their_own_streams() -> TestResult {
    let ctx = gpu::context(0)?;
    let start = Instant::now();
    let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let ctx = Arc::clone(&ctx);
                scope.spawn(move || one_thread(&ctx, t).map_err(|e| format!("thread {t}: {e}")))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a thread panicked".into())))
            .collect()
    });
    let took = start.elapsed();
    for r in &results {
        if let Err(e) = r {
            panic!("{e}");
        }
    }
    println!(
        "{THREADS} threads × {LAUNCHES} launches, each stream with its own attributes: all \
         results exact, {took:?} ({:.2} µs per launch overall)",
        took.as_secs_f64() * 1e6 / (THREADS * LAUNCHES) as f64
    );
    Ok(())
}

/// Thread `t`: y = i, then LAUNCHES times y += (t + 1)·1 on its own stream with a sync policy,
/// memory-sync domain and priority of its own; y must end at i + LAUNCHES·(t + 1) (exact in
/// f32: below 2^24).
fn one_thread(ctx: &Arc<CudaContext>, t: usize) -> Result<(), Box<dyn std::error::Error>> {
    let stream = ctx.new_stream()?;
    let sync = [
        SyncPolicy::Auto,
        SyncPolicy::Spin,
        SyncPolicy::Yield,
        SyncPolicy::BlockingSync,
    ][t % 4];
    let domain = [MemSyncDomain::Default, MemSyncDomain::Remote][t % 2];
    let priority = -((t % 2) as i32); // 0 or -1: inside every device's range
    let x = stream.clone_htod(&vec![1.0f32; N as usize])?;
    let y0: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let mut y = stream.clone_htod(&y0)?;
    let a = (t + 1) as f32;
    for _ in 0..LAUNCHES {
        unsafe {
            launch!(saxpy<<<N / 256, 256, &stream,
                stream(sync = sync, mem_sync_domain = domain, priority = priority)
            >>>(N, a, &x, &mut y))
        }?;
    }
    let out = stream.clone_dtoh(&y)?;
    for (i, v) in out.iter().enumerate() {
        let want = i as f32 + (LAUNCHES as f32) * a;
        if *v != want {
            return Err(format!("y[{i}] = {v}, want {want}").into());
        }
    }
    // Each stream kept its own attributes while the others set theirs.
    if stream_attribute::<SyncPolicy>(&stream)? != Some(sync)
        || stream_attribute::<MemSyncDomain>(&stream)? != Some(domain)
        || stream_attribute::<Priority>(&stream)? != Some(Priority(priority))
    {
        return Err(format!(
            "stream attributes: {:?} {:?} {:?}, want {sync:?} {domain:?} {priority}",
            stream_attribute::<SyncPolicy>(&stream)?,
            stream_attribute::<MemSyncDomain>(&stream)?,
            stream_attribute::<Priority>(&stream)?
        )
        .into());
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn thirty_two_first_launches_at_once_load_one_module() -> TestResult {
    const RACERS: usize = 32;
    let ctx = gpu::context(0)?;
    assert_eq!(
        chevron::__private::modules_loaded(&ctx, "/kernels/trap.ptx"),
        0,
        "trap.ptx was loaded before the race"
    );
    let barrier = Barrier::new(RACERS);
    let functions: Vec<Result<usize, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..RACERS)
            .map(|t| {
                let (ctx, barrier) = (Arc::clone(&ctx), &barrier);
                scope.spawn(move || -> Result<usize, String> {
                    let stream = ctx.new_stream().map_err(|e| e.to_string())?;
                    let mut out = stream
                        .clone_htod(&[0xDEAD_BEEFu32])
                        .map_err(|e| e.to_string())?;
                    barrier.wait();
                    unsafe { launch!(trap<<<1, 32, &stream>>>(0, &mut out)) }
                        .map_err(|e| format!("racer {t}: {e}"))?;
                    let v = stream.clone_dtoh(&out).map_err(|e| e.to_string())?;
                    if v != [1] {
                        return Err(format!("racer {t}: out = {v:?}, want [1]"));
                    }
                    let f = trap::function(&ctx).map_err(|e| e.to_string())?;
                    Ok(f.cu_function() as usize)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a racer panicked".into())))
            .collect()
    });
    let functions: Vec<usize> = functions.into_iter().collect::<Result<_, _>>()?;
    let modules = chevron::__private::modules_loaded(&ctx, "/kernels/trap.ptx");
    println!(
        "{RACERS} threads' first launches at one barrier: {modules} module loaded, {} distinct \
         function handle(s)",
        {
            let mut f = functions.clone();
            f.sort();
            f.dedup();
            f.len()
        }
    );
    assert_eq!(modules, 1);
    assert!(
        functions.iter().all(|f| *f == functions[0] && *f != 0),
        "{functions:x?}"
    );
    Ok(())
}
