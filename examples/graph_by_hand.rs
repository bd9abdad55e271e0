//! A graph built by hand (`Graph::build`): a diamond of dependencies given node by node rather
//! than captured, replayed with a kernel node updated between replays, checked against the host.
//!
//! ```text
//!            wait(gate)
//!                |
//!          memset x = 1.5
//!            /        \
//!   y1 = x·a + 0.5   y2 = x·(−2) − 1      (kernel nodes: typed `launch!`)
//!      |       \      /
//!   z ← y1    host node (counts replays)
//!         \    /
//!         empty (join)
//!            |
//!       record(done)
//! ```
//!
//! `cargo run --release --example graph_by_hand`. Exit code 0 when every replay's result matches
//! the host's, 2 on a machine without a CUDA driver (one `error: …` line), 1 for any other
//! failure. Kernel nodes need CUDA 12.3 (the default features select 13.0) and a 12.3 driver.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, Graph};

/// y = x·a + b
#[kernel(ptx = "kernels/chain.ptx")]
fn chain_copy(n: u32, a: f32, b: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

const X: f32 = 1.5;

fn main() -> ExitCode {
    common::exit_code(run())
}

/// The largest difference between `got` and `want` everywhere (NaN counts as infinite).
fn worst(got: &[f32], want: f32) -> f32 {
    got.iter()
        .map(|g| {
            if g.is_nan() {
                f32::INFINITY
            } else {
                (g - want).abs()
            }
        })
        .fold(0.0, f32::max)
}

fn run() -> Result<(), Box<dyn Error>> {
    let ctx = chevron::context(0)?; // Error::NoDriver on a machine without a CUDA driver
    let stream = ctx.new_stream()?;
    common::announce_quick();
    println!("device 0: {}", ctx.name()?);
    let n: u32 = common::size(1 << 20, 1 << 12);
    let blocks = n.div_ceil(256);
    let poison = vec![f32::NAN; n as usize];
    let mut x = stream.clone_htod(&poison)?;
    let mut y1 = stream.clone_htod(&poison)?;
    let mut y2 = stream.clone_htod(&poison)?;
    let mut z = stream.clone_htod(&poison)?;
    let gate = ctx.new_event(None)?;
    let done = ctx.new_event(None)?;
    gate.record(&stream)?;
    let calls = Arc::new(AtomicU32::new(0));

    // SAFETY: the grids cover the n elements of every buffer; `graph` is dropped, not leaked.
    let (mut graph, k1) = unsafe {
        Graph::build(&ctx, |b| {
            let wait = b.wait(&[], &gate)?;
            let mx = b.memset(&[wait], &mut x, X)?;
            let (k1, node) = b.kernel(&[mx], |c| {
                launch!(chain_copy<<<blocks, 256, c.stream()>>>(n, 1.0, 0.5, &x, &mut y1))?;
                c.last_node()
            })?;
            let (k2, ()) = b.kernel(
                &[mx],
                |c| launch!(chain_copy<<<blocks, 256, c.stream()>>>(n, -2.0, -1.0, &x, &mut y2)),
            )?;
            let copy = b.memcpy(&[k1], &mut z, &y1)?;
            let counter = calls.clone();
            let host = b.host(&[k1, k2], move || {
                counter.fetch_add(1, Ordering::Relaxed);
            })?;
            let join = b.empty(&[copy, host])?;
            b.record(&[join], &done)?;
            Ok(node)
        })
    }?;
    println!("built: {} edges", graph.edges()?.len());

    let replays = 5u32;
    let mut a = 1.0f32;
    for k in 0..replays {
        if k > 0 {
            a = 1.0 + k as f32;
            // SAFETY: the node is chain_copy's over n elements; it keeps its buffers.
            unsafe { chain_copy::kernel().update_scalars(&mut graph, &k1, (n, a, 0.5)) }?;
        }
        graph.replay(&stream)?;
    }
    done.synchronize()?;
    let host_calls = calls.load(Ordering::Relaxed);
    drop(graph); // waits for the last replay and ends the borrows of the buffers
    println!(
        "replayed {replays} times, the last with a = {a}; host node called {host_calls} times"
    );
    if host_calls != replays {
        return Err(format!("the host node ran {host_calls} times for {replays} replays").into());
    }
    let checks = [
        ("x (memset)", stream.clone_dtoh(&x)?, X),
        (
            "y1 (kernel, updated)",
            stream.clone_dtoh(&y1)?,
            X.mul_add(a, 0.5),
        ),
        (
            "y2 (kernel)",
            stream.clone_dtoh(&y2)?,
            X.mul_add(-2.0, -1.0),
        ),
        ("z (copy of y1)", stream.clone_dtoh(&z)?, X.mul_add(a, 0.5)),
    ];
    for (what, got, want) in &checks {
        let w = worst(got, *want);
        println!("checked: {what} = {want} over {n} elements, max difference {w:e}");
        if w > 1e-5 {
            return Err(format!("{what} differs from the host's {want} by {w:e}").into());
        }
    }
    Ok(())
}
