//! Completions on the GPU, for every mechanism: a completion is not done while its stream's work
//! runs and is done, with the work's results in place, when it is ready; it works under a
//! hand-written `block_on`, tokio's current-thread runtime (64 tasks on one thread) and tokio's
//! multi-thread runtime, and moved to another thread; dropped early (polled or not) it neither
//! wakes a dead task nor breaks later completions; on a capturing stream it is `Error::Graph`.
//! The failed-context path is in `completion_sticky_gpu.rs` (its context stays broken), the
//! allocation count in `completion_no_alloc_gpu.rs`.
//!
//! Run on a CUDA machine: `cargo test --test completion_gpu -- --ignored --nocapture`.

#[path = "common/gpu.rs"]
mod gpu;

use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::Context;
use std::time::{Duration, Instant};

use chevron::cudarc::driver::{CudaSlice, CudaStream, PinnedHostSlice};
use chevron::{completion, completion_with, kernel, launch, Error, Graph, Mechanism, SyncPolicy};

#[path = "common/executor.rs"]
mod executor;
use executor::{block_on, thread_waker};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// out[i] = mix(request, i) for i < n.
#[kernel(ptx = "kernels/completion.ptx")]
fn respond(request: u32, n: u32, out: &mut CudaSlice<u32>);

/// Busy for `ns` nanoseconds of GPU time, then out[0] += 1.
#[kernel(ptx = "kernels/completion.ptx")]
fn spin_wait(ns: u64, out: &mut CudaSlice<u32>);

/// The host's `mix` of kernels/completion.cu.
fn mix(request: u32, i: u32) -> u32 {
    let mut x = request.wrapping_mul(0x9E37_79B1).wrapping_add(i);
    x ^= x >> 16;
    x = x.wrapping_mul(0x85EB_CA6B);
    x ^= x >> 13;
    x = x.wrapping_mul(0xC2B2_AE35);
    x ^= x >> 16;
    x
}

/// The mechanisms this build and driver have; a missing one must say why, as
/// `Error::Unavailable` naming cuLaunchHostFunc_v2 (the only one that can be missing).
fn mechanisms() -> Vec<Mechanism> {
    Mechanism::ALL
        .into_iter()
        .filter(|m| match m.available() {
            Ok(()) => true,
            Err(e @ Error::Unavailable { .. }) => {
                assert_eq!(*m, Mechanism::HostFuncV2, "{e}");
                let text = e.to_string();
                assert!(text.contains("cuLaunchHostFunc_v2"), "{text}");
                println!("SKIPPED {}: {text}", m.name());
                false
            }
            Err(e) => panic!("{}: {e}", m.name()),
        })
        .collect()
}

/// Pinned host memory for `n` words, readable by the host (not write-combined).
fn pinned(stream: &Arc<CudaStream>, n: usize) -> Result<PinnedHostSlice<u32>, Error> {
    // SAFETY: u32 is valid for any bits; the memory is only read after a copy fills it.
    Ok(unsafe { stream.context().alloc_pinned_with_flags::<u32>(n, 0) }?)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_mechanism_is_ready_only_after_the_work_with_its_results_in_place() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    // Each kernel's module is loaded (and JIT-compiled) at its first launch: loaded here, so
    // that no load between the two launches below delays the host past the 5 ms of GPU work.
    spin_wait::kernel().function(&ctx)?;
    respond::kernel().function(&ctx)?;
    for policy in [SyncPolicy::Auto, SyncPolicy::Spin, SyncPolicy::BlockingSync] {
        for mechanism in mechanisms() {
            let stream = ctx.new_stream()?;
            chevron::set_stream_attribute(&stream, policy)?;
            let n = 4096u32;
            let mut out = stream.clone_htod(&vec![0xDEAD_BEEFu32; n as usize])?;
            let mut count = stream.clone_htod(&[0u32])?;
            let mut host = pinned(&stream, n as usize)?;
            let start = Instant::now();
            // 5 ms of GPU time first: the completion cannot be ready before.
            unsafe { launch!(spin_wait<<<1, 32, &stream>>>(5_000_000, &mut count)) }?;
            unsafe { launch!(respond<<<n.div_ceil(256), 256, &stream>>>(7, n, &mut out)) }?;
            stream.memcpy_dtoh(&out, &mut host)?;
            let done = completion_with(&stream, mechanism);
            assert!(
                !done.is_done(),
                "{}: done at once, with 5 ms of work queued",
                mechanism.name()
            );
            block_on(done)?;
            let waited = start.elapsed();
            assert!(
                waited >= Duration::from_millis(5),
                "{} under {policy:?}: ready after {waited:?}, before the 5 ms kernel could end",
                mechanism.name()
            );
            // The results are there without another wait: the copy was part of the work.
            let got = host.as_slice()?;
            for (i, v) in got.iter().enumerate() {
                assert_eq!(*v, mix(7, i as u32), "{}: out[{i}]", mechanism.name());
            }
            assert_eq!(stream.clone_dtoh(&count)?, [1]);
            println!(
                "{} under {policy:?}: ready after {waited:?}, {n} results exact",
                mechanism.name()
            );
        }
    }
    Ok(())
}

/// `tasks` tasks, each on a stream of its own, each `rounds` times: launch `respond` for a new
/// request, copy the answer to pinned memory, await the completion, check every element.
async fn serve(stream: Arc<CudaStream>, task: u32, rounds: u32, mechanism: Mechanism) -> u64 {
    let n = 256u32;
    let mut out = stream.alloc_zeros::<u32>(n as usize).expect("alloc");
    let mut host = pinned(&stream, n as usize).expect("pinned");
    let mut checked = 0u64;
    for round in 0..rounds {
        let request = task * 1_000_003 + round;
        unsafe { launch!(respond<<<1, 256, &stream>>>(request, n, &mut out)) }.expect("launch");
        stream.memcpy_dtoh(&out, &mut host).expect("copy");
        completion_with(&stream, mechanism)
            .await
            .expect("completion");
        for (i, v) in host.as_slice().expect("read").iter().enumerate() {
            assert_eq!(
                *v,
                mix(request, i as u32),
                "task {task} round {round} [{i}]"
            );
            checked += 1;
        }
    }
    checked
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn tokio_current_thread_serves_64_streams_from_one_thread() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let streams: Vec<_> = (0..64)
        .map(|_| ctx.new_stream())
        .collect::<Result<_, _>>()?;
    let rt = tokio::runtime::Builder::new_current_thread().build()?;
    for mechanism in mechanisms() {
        let start = Instant::now();
        // Spawned from inside `block_on`: on a current-thread runtime every task runs on this
        // thread.
        let checked: u64 = rt.block_on(async {
            let tasks: Vec<_> = streams
                .iter()
                .enumerate()
                .map(|(t, s)| tokio::spawn(serve(s.clone(), t as u32, 100, mechanism)))
                .collect();
            let mut sum = 0;
            for t in tasks {
                sum += t.await.expect("task");
            }
            sum
        });
        assert_eq!(checked, 64 * 100 * 256);
        println!(
            "tokio current-thread, {}: 64 tasks × 100 awaited launches in {:?}, {checked} values checked",
            mechanism.name(),
            start.elapsed()
        );
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn tokio_multi_thread_serves_from_every_worker() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(4)
        .build()?;
    for mechanism in mechanisms() {
        let checked: u64 = rt.block_on(async {
            let tasks: Vec<_> = (0..16)
                .map(|t| {
                    let stream = ctx.new_stream().expect("stream");
                    tokio::spawn(serve(stream, t, 200, mechanism))
                })
                .collect();
            let mut sum = 0;
            for t in tasks {
                sum += t.await.expect("task");
            }
            sum
        });
        assert_eq!(checked, 16 * 200 * 256);
        println!(
            "tokio multi-thread (4 workers), {}: 16 tasks × 200 awaited launches, {checked} values checked",
            mechanism.name()
        );
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_completion_moved_to_another_thread_is_woken_there() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    for mechanism in mechanisms() {
        let stream = ctx.new_stream()?;
        let mut count = stream.clone_htod(&[0u32])?;
        unsafe { launch!(spin_wait<<<1, 32, &stream>>>(2_000_000, &mut count)) }?;
        let done = completion_with(&stream, mechanism);
        let waited = std::thread::spawn(move || block_on(done))
            .join()
            .expect("thread");
        waited?;
        assert_eq!(stream.clone_dtoh(&count)?, [1], "{}", mechanism.name());
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn dropping_a_completion_early_wakes_nobody_and_later_ones_still_work() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    for mechanism in mechanisms() {
        let stream = ctx.new_stream()?;
        let mut count = stream.clone_htod(&[0u32])?;
        unsafe { launch!(spin_wait<<<1, 32, &stream>>>(20_000_000, &mut count)) }?;
        // Polled once (its waker kept), then dropped while the kernel runs.
        let (unpark, waker) = thread_waker();
        let mut polled = completion_with(&stream, mechanism);
        let mut cx = Context::from_waker(&waker);
        assert!(std::pin::Pin::new(&mut polled).poll(&mut cx).is_pending());
        drop(polled);
        // Never polled, dropped at once: many, so that slots and flags are reused below.
        for _ in 0..1000 {
            drop(completion_with(&stream, mechanism));
        }
        stream.synchronize()?;
        // The callbacks and the reactor have run (or run now): give them time.
        std::thread::sleep(Duration::from_millis(20));
        assert_eq!(
            unpark.wakes.load(Ordering::SeqCst),
            0,
            "{}: the waker of a dropped completion was woken",
            mechanism.name()
        );
        // Later completions, reusing the slots, still wait for their own work.
        for round in 0..100u32 {
            unsafe { launch!(spin_wait<<<1, 32, &stream>>>(100_000, &mut count)) }?;
            let done = completion_with(&stream, mechanism);
            block_on(done)?;
            assert_eq!(
                stream.clone_dtoh(&count)?,
                [2 + round],
                "{}",
                mechanism.name()
            );
        }
        println!(
            "{}: 1001 completions dropped early, no wake; 100 later ones exact",
            mechanism.name()
        );
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_default_mechanism_and_wait_need_no_executor() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let mut count = stream.clone_htod(&[0u32])?;
    for round in 1..=50u32 {
        unsafe { launch!(spin_wait<<<1, 32, &stream>>>(50_000, &mut count)) }?;
        completion(&stream).wait()?;
        assert_eq!(stream.clone_dtoh(&count)?, [round]);
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_completion_of_a_capturing_stream_is_a_graph_error() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let mut count = stream.clone_htod(&[0u32])?;
    let mut seen = Vec::new();
    let (graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            launch!(spin_wait<<<1, 32, capture.stream()>>>(1000, &mut count))?;
            for mechanism in Mechanism::ALL {
                if mechanism.available().is_ok() {
                    seen.push((
                        mechanism,
                        block_on(completion_with(capture.stream(), mechanism)),
                    ));
                }
            }
            Ok(())
        })
    }?;
    drop(graph);
    for (mechanism, result) in seen {
        match result {
            Err(Error::Graph { message, .. }) => {
                assert!(message.contains("capturing a graph"), "{message}")
            }
            other => panic!("{}: {other:?}", mechanism.name()),
        }
    }
    Ok(())
}
