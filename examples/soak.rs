//! Soak: 1,000,000 launches through `launch!` with stream and launch attributes on one stream,
//! the result checked exactly at the end, and the resident memory of the process after the first
//! 10,000 launches and at the end: it may grow by less than 1 MB (no per-launch leak on the host).
//!
//! The kernel adds 1 to 256 floats per launch (y = 1·1 + y), so after N launches y[i] = i + N,
//! exact in f32 below 2^24. At the ~4 µs of host time per launch measured on an H200 this is
//! about 5 s of launches (plus a set of each stream attribute per launch).
//!
//! `CHEVRON_QUICK=1`: 20,000 launches, the same checks, except that the resident-memory growth
//! is printed but not enforced (too few launches to tell a leak, and a sanitizer's own memory
//! counts in the process).
//!
//! Run on a CUDA machine: `cargo run --release --example soak`. Exit code 2 on a machine without
//! a CUDA driver (one `error: …` line), 1 for a wrong result, a leak or any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::time::Instant;

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch};

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
    let growth = at_end as i64 - after_warmup as i64;
    println!(
        "soak: {launches} launches with attributes in {:.2} s ({:.2} µs each), results exact",
        took.as_secs_f64(),
        took.as_secs_f64() * 1e6 / launches as f64
    );
    println!(
        "soak: resident memory after {WARMUP} launches {} KiB, at the end {} KiB, growth {} KiB \
         (limit {} KiB)",
        after_warmup >> 10,
        at_end >> 10,
        growth / 1024,
        MAX_GROWTH >> 10
    );
    if quick {
        println!("soak: quick mode: resident-memory limit not enforced");
    } else if growth >= MAX_GROWTH as i64 {
        return Err(
            format!("resident memory grew by {growth} bytes over {launches} launches").into(),
        );
    }
    Ok(())
}
