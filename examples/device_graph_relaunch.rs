//! A loop the GPU drives by itself: a [`chevron::DeviceGraph`] whose one kernel relaunches its
//! own graph (`cudaGraphLaunch(cudaGetCurrentGraphExec(), cudaStreamGraphTailLaunch)`) until it
//! has run N times, started by a host graph's kernel that launches it fire-and-forget through a
//! [`chevron::DeviceGraphHandle`] (`kernels/device_graph.cu`). Side by side, in interleaved
//! rounds, the same N one-kernel steps launched by the host:
//!
//! - device relaunch: one replay of the launching graph; the GPU launches the N steps;
//! - host graph replays: a graph of one kernel replayed N times, one synchronize at the end;
//! - host launches of the device graph: the same one-kernel [`chevron::DeviceGraph`] launched N
//!   times from the host ([`chevron::DeviceGraph::launch`]);
//! - host graph replays, synchronized: replay and synchronize N times (what deciding each step
//!   on the host costs).
//!
//! Prints the time per step of each (median over the rounds) and its ratio to the host graph
//! replays; checks every variant's count, and the device loop's trace of its N runs, against the
//! host's expectation (outputs poisoned first). A mismatch exits 1.
//!
//! `cargo run --release --example device_graph_relaunch`. Exit code 2 on a machine without a
//! CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch, DeviceGraph, DeviceGraphHandle, Graph};

/// `counter[0] += 1`.
#[kernel(ptx = "kernels/device_graph.ptx")]
fn count_once(counter: &mut CudaSlice<u32>);

/// One thread: `status[0] = cudaGraphLaunch(exec, cudaStreamGraphFireAndForget)`.
#[kernel(ptx = "kernels/device_graph.ptx")]
fn launch_fire_and_forget(exec: DeviceGraphHandle, status: &mut CudaSlice<i32>);

/// Run `k` writes `trace[k] = k + 1` and relaunches its own graph until `counter[0] == limit`.
#[kernel(ptx = "kernels/device_graph.ptx")]
fn relaunch_until(
    counter: &mut CudaSlice<u32>,
    limit: u32,
    trace: &mut CudaSlice<u32>,
    status: &mut CudaSlice<i32>,
);

const POISON: u32 = 0xDEAD_BEEF;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Fails with `what` unless `got == want`.
fn expect<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<()> {
    if got != want {
        return Err(format!("{what}: got {got:?}, expected {want:?}").into());
    }
    Ok(())
}

/// The device loop: seconds for `n` steps.
fn device_relaunch(stream: &Arc<CudaStream>, n: u32) -> Result<f64> {
    let mut counter = stream.clone_htod(&[0u32])?;
    let mut trace = stream.clone_htod(&vec![POISON; n as usize + 1])?;
    let mut loop_status = stream.clone_htod(&[0i32])?;
    let mut status = stream.clone_htod(&[-1i32])?;
    let seconds;
    {
        let (child, ()) = unsafe {
            DeviceGraph::capture(stream, |capture| {
                let s = capture.stream();
                launch!(relaunch_until<<<1, 32, s>>>(&mut counter, n, &mut trace, &mut loop_status))
            })
        }?;
        let (mut parent, ()) = unsafe {
            Graph::capture(stream, |capture| {
                let exec = capture.device_graph(&child)?;
                let s = capture.stream();
                launch!(launch_fire_and_forget<<<1, 32, s>>>(exec, &mut status))
            })
        }?;
        parent.upload(stream)?;
        parent.synchronize()?;
        let start = Instant::now();
        parent.replay(stream)?;
        parent.synchronize()?;
        seconds = start.elapsed().as_secs_f64();
    }
    expect("device launch", stream.clone_dtoh(&status)?, vec![0])?;
    expect("relaunches", stream.clone_dtoh(&loop_status)?, vec![0])?;
    expect("device loop count", stream.clone_dtoh(&counter)?, vec![n])?;
    let mut want: Vec<u32> = (1..=n).collect();
    want.push(POISON);
    expect(
        "device loop trace",
        stream.clone_dtoh(&trace)? == want,
        true,
    )?;
    Ok(seconds)
}

/// `n` replays of a one-kernel graph (synchronized after each when `sync`): seconds.
fn host_replays(stream: &Arc<CudaStream>, n: u32, sync: bool) -> Result<f64> {
    let mut counter = stream.clone_htod(&[0u32])?;
    let seconds;
    {
        let (mut graph, ()) = unsafe {
            Graph::capture(stream, |capture| {
                let s = capture.stream();
                launch!(count_once<<<1, 32, s>>>(&mut counter))
            })
        }?;
        graph.upload(stream)?;
        graph.synchronize()?;
        let start = Instant::now();
        for _ in 0..n {
            graph.replay(stream)?;
            if sync {
                graph.synchronize()?;
            }
        }
        graph.synchronize()?;
        seconds = start.elapsed().as_secs_f64();
    }
    expect("host replay count", stream.clone_dtoh(&counter)?, vec![n])?;
    Ok(seconds)
}

/// `n` host launches of a one-kernel device graph: seconds.
fn host_launches_of_device_graph(stream: &Arc<CudaStream>, n: u32) -> Result<f64> {
    let mut counter = stream.clone_htod(&[0u32])?;
    let seconds;
    {
        let (mut graph, ()) = unsafe {
            DeviceGraph::capture(stream, |capture| {
                let s = capture.stream();
                launch!(count_once<<<1, 32, s>>>(&mut counter))
            })
        }?;
        graph.synchronize()?;
        let start = Instant::now();
        for _ in 0..n {
            graph.launch(stream)?;
        }
        graph.synchronize()?;
        seconds = start.elapsed().as_secs_f64();
    }
    expect(
        "device graph host launch count",
        stream.clone_dtoh(&counter)?,
        vec![n],
    )?;
    Ok(seconds)
}

fn run() -> Result<()> {
    let n: u32 = common::size(10_000, 50);
    let rounds = common::size(7, 1);
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    let names = [
        "device relaunch (tail launch of itself)",
        "host graph replays, one sync",
        "host launches of the device graph",
        "host graph replays, sync each",
    ];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    for _ in 0..rounds {
        times[0].push(device_relaunch(&stream, n)?);
        times[1].push(host_replays(&stream, n, false)?);
        times[2].push(host_launches_of_device_graph(&stream, n)?);
        times[3].push(host_replays(&stream, n, true)?);
    }
    let per_step: Vec<f64> = times
        .into_iter()
        .map(|mut t| common::median(&mut t) / f64::from(n) * 1e6)
        .collect();
    println!("{n} one-kernel steps, median of {rounds} rounds; all counts checked");
    for (name, us) in names.iter().zip(&per_step) {
        println!(
            "{name:<42} {us:>8.3} µs/step  {:>5.2}× host graph replays",
            us / per_step[1]
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    common::exit_code(run())
}
