//! Soak: 1,000,000 launches through `launch!` with stream and launch attributes on one stream,
//! the result checked exactly at the end, and the resident memory of the process after the first
//! 10,000 launches and at the end: it may grow by less than 1 MB (no per-launch leak on the host).
//! Then the same for graphs: a graph of 4 `launch!` launches with launch attributes (`priority`,
//! `mem_sync_domain`: kinds the driver accepts on graph nodes), captured once and replayed
//! 100,000 times, the result checked exactly, the resident memory after the first 1,000 replays
//! and at the end, with the same limit.
//!
//! The kernel adds 1 to 256 floats per launch (y = 1·1 + y), so after N launches y[i] = i + N,
//! exact in f32 below 2^24. At the ~4 µs of host time per launch measured on an H200 this is
//! about 5 s of launches (plus a set of each stream attribute per launch).
//!
//! `CHEVRON_QUICK=1`: 20,000 launches and 2,000 replays, the same checks, except that the resident-memory growth
//! is printed but not enforced (too few launches to tell a leak, and a sanitizer's own memory
//! counts in the process).
//!
//! Run on a CUDA machine: `cargo run --release --example soak`. Exit code 2 on a machine without
//! a CUDA driver (one `error: …` line), 1 for a wrong result, a leak or any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::time::Instant;

use std::sync::Arc;

use chevron::cudarc::driver::{CudaContext, CudaSlice};
use chevron::{kernel, launch, Graph};

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

const LAUNCHES: u32 = 1_000_000;
const QUICK_LAUNCHES: u32 = 20_000;
const WARMUP: u32 = 10_000;
const N: u32 = 256;
/// The largest allowed growth of the resident set between the first 10,000 launches and the end.
const MAX_GROWTH: u64 = 1 << 20;
/// How often the host waits for the GPU, so the launch queue never blocks for long.
const SYNC_EVERY: u32 = 50_000;

const REPLAYS: u32 = 100_000;
const QUICK_REPLAYS: u32 = 2_000;
/// Replays before the first reading of the resident set.
const REPLAY_WARMUP: u32 = 1_000;
/// How often the host waits for the replays.
const REPLAY_SYNC_EVERY: u32 = 10_000;
/// The `a` of each launch in the graph: each replay adds their sum (10) to every y, so after R
/// replays y[i] = i + 10·R, exact in f32 (at most 255 + 1,000,000 < 2^24). Different values, so
/// a replay that skipped a node could not match.
const GRAPH_A: [f32; 4] = [1.0, 2.0, 3.0, 4.0];

fn main() -> ExitCode {
    common::exit_code(run())
}

/// The resident set of this process in bytes, from `/proc/self/statm` (pages).
fn resident_bytes() -> Result<u64, Box<dyn Error>> {
    let statm = std::fs::read_to_string("/proc/self/statm")?;
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .ok_or("no resident field in /proc/self/statm")?
        .parse()?;
    Ok(pages * 4096)
}

fn run() -> Result<(), Box<dyn Error>> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    common::announce_quick();
    let quick = common::quick();
    let launches = if quick { QUICK_LAUNCHES } else { LAUNCHES };
    let x = stream.clone_htod(&[1.0f32; N as usize])?;
    let y0: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let mut y = stream.clone_htod(&y0)?;
    let start = Instant::now();
    let mut after_warmup = 0;
    for k in 1..=launches {
        unsafe {
            launch!(saxpy<<<1, N, &stream, stream(sync = Spin, mem_sync_domain = Default),
                priority = 0, mem_sync_domain = Default>>>(N, 1.0, &x, &mut y))
        }?;
        if k % SYNC_EVERY == 0 {
            stream.synchronize()?;
        }
        if k == WARMUP {
            stream.synchronize()?;
            after_warmup = resident_bytes()?;
        }
    }
    stream.synchronize()?;
    let took = start.elapsed();
    let at_end = resident_bytes()?;
    let out = stream.clone_dtoh(&y)?;
    for (i, v) in out.iter().enumerate() {
        let want = i as f32 + launches as f32;
        if *v != want {
            return Err(format!("y[{i}] = {v} after {launches} launches, want {want}").into());
        }
    }
    println!(
        "soak: {launches} launches with attributes in {:.2} s ({:.2} µs each), results exact",
        took.as_secs_f64(),
        took.as_secs_f64() * 1e6 / launches as f64
    );
    check_growth(
        &format!("{WARMUP} launches"),
        &format!("{launches} launches"),
        after_warmup,
        at_end,
        quick,
    )?;
    graph_phase(&ctx, quick)
}

/// Captures [`GRAPH_A`]'s launches into a graph, replays it [`REPLAYS`] times (quick:
/// [`QUICK_REPLAYS`]) on a stream of its own, checks the result exactly and the growth of the
/// resident set from the first [`REPLAY_WARMUP`] replays to the end.
/// Prints the resident memory after the warm-up (`after`) and at the end, and fails when it grew
/// by [`MAX_GROWTH`] or more over `over` (not in quick mode, where the run is too short to tell).
fn check_growth(
    after: &str,
    over: &str,
    after_warmup: u64,
    at_end: u64,
    quick: bool,
) -> Result<(), Box<dyn Error>> {
    let growth = at_end as i64 - after_warmup as i64;
    println!(
        "soak: resident memory after {after} {} KiB, at the end {} KiB, growth {} KiB (limit {} \
         KiB)",
        after_warmup >> 10,
        at_end >> 10,
        growth / 1024,
        MAX_GROWTH >> 10
    );
    if quick {
        println!("soak: quick mode: resident-memory limit not enforced");
    } else if growth >= MAX_GROWTH as i64 {
        return Err(format!("resident memory grew by {growth} bytes over {over}").into());
    }
    Ok(())
}

fn graph_phase(ctx: &Arc<CudaContext>, quick: bool) -> Result<(), Box<dyn Error>> {
    let replays = if quick { QUICK_REPLAYS } else { REPLAYS };
    let stream = ctx.new_stream()?;
    let x = stream.clone_htod(&[1.0f32; N as usize])?;
    let y0: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let mut y = stream.clone_htod(&y0)?;
    // The graph borrows `y` mutably until it is dropped at the end of this block.
    let (took, after_warmup, at_end) = {
        let (mut graph, ()) = unsafe {
            Graph::capture(&stream, |capture| {
                for a in GRAPH_A {
                    // SAFETY: one block of N threads over buffers of N floats, as in the launches
                    // above.
                    launch!(saxpy<<<1, N, capture.stream(), priority = 0,
                        mem_sync_domain = Default>>>(N, a, &x, &mut y))?;
                }
                Ok(())
            })
        }?;
        graph.upload(&stream)?;
        graph.synchronize()?;
        let start = Instant::now();
        let mut after_warmup = 0;
        for k in 1..=replays {
            graph.replay(&stream)?;
            if k % REPLAY_SYNC_EVERY == 0 {
                graph.synchronize()?;
            }
            if k == REPLAY_WARMUP {
                graph.synchronize()?;
                after_warmup = resident_bytes()?;
            }
        }
        graph.synchronize()?;
        (start.elapsed(), after_warmup, resident_bytes()?)
    };
    let out = stream.clone_dtoh(&y)?;
    let per_replay: f32 = GRAPH_A.iter().sum();
    for (i, v) in out.iter().enumerate() {
        let want = i as f32 + replays as f32 * per_replay;
        if *v != want {
            return Err(format!("y[{i}] = {v} after {replays} graph replays, want {want}").into());
        }
    }
    println!(
        "soak: {replays} graph replays of {} kernels in {:.2} s ({:.2} µs each), results exact",
        GRAPH_A.len(),
        took.as_secs_f64(),
        took.as_secs_f64() * 1e6 / replays as f64
    );
    check_growth(
        &format!("{REPLAY_WARMUP} graph replays"),
        &format!("{replays} graph replays"),
        after_warmup,
        at_end,
        quick,
    )
}
