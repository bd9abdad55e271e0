//! Launch priority (`priority`, `CU_LAUNCH_ATTRIBUTE_PRIORITY`): a one-block kernel that must
//! answer quickly, launched while another stream floods every SM with long-running blocks.
//!
//! The flood is 16 kernels of 4 waves of 20 µs blocks on a stream of the lowest priority. While
//! it runs, the probe kernel is launched from another stream and the host waits for it (host
//! clock, launch to the end of `cuStreamSynchronize` on a spinning stream). Six variants,
//! interleaved: an idle GPU (the floor), no priority, `priority = HIGH` in the launch list
//! (launch position), `stream(priority = HIGH)` (stream position, read back with
//! `chevron::stream_attribute`), and the probe as the node of a replayed graph, without and
//! with `priority = HIGH` on the node (graph node position: chevron instantiates a graph with a
//! node priority with `CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY`, without which the driver
//! runs the node at the replay stream's priority). With priority, the block scheduler gives the
//! probe's block the first SM slot that frees; without it the probe queues behind flood blocks.
//!
//! Checks that every probe wrote its value and that every flood block ran.
//!
//! `cargo run --release --example priority`. Exit code 0 when the checks pass, 2 on a machine
//! without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use chevron::cudarc::driver::{result, sys, CudaSlice, CudaStream};
use chevron::{kernel, launch, Graph, Priority, SyncPolicy};

/// Each block spins `ns` nanoseconds, then adds 1 to `*done`.
#[kernel(ptx = "kernels/priority.ptx")]
fn busy(done: &mut CudaSlice<u32>, ns: u64);

/// `*out = value`.
#[kernel(ptx = "kernels/priority.ptx")]
fn probe(out: &mut CudaSlice<u32>, value: u32);

const BLOCK_NS: u64 = 20_000;
/// How long the host lets the flood run before it launches the probe.
const HEAD_START: Duration = Duration::from_micros(300);

#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Idle,
    None,
    Launch,
    Stream,
    GraphNone,
    GraphNode,
}

impl Variant {
    const ALL: [Self; 6] = [
        Self::Idle,
        Self::None,
        Self::Launch,
        Self::Stream,
        Self::GraphNone,
        Self::GraphNode,
    ];

    fn name(self, high: i32) -> String {
        match self {
            Self::Idle => "idle GPU (no flood)".into(),
            Self::None => "flood, no priority".into(),
            Self::Launch => format!("flood, `priority = {high}` (launch)"),
            Self::Stream => format!("flood, `stream(priority = {high})`"),
            Self::GraphNone => "flood, replayed graph, no node priority".into(),
            Self::GraphNode => format!("flood, replayed graph, node `priority = {high}`"),
        }
    }
}

fn main() -> ExitCode {
    common::exit_code(run())
}

fn run() -> Result<(), Box<dyn Error>> {
    // The flood's kernels, its blocks per SM and kernel (full: 8 resident blocks of 256 threads ×
    // 4 waves) and the trials; under CHEVRON_QUICK a tiny flood (two kernels of one block per SM)
    // and two trials. The blocks spin on the clock and touch one counter, so any count is valid.
    let (flood_kernels, flood_blocks_per_sm, trials) = if common::quick() {
        (2u32, 1u32, 2usize)
    } else {
        (16u32, 32u32, 31usize)
    };
    let ctx = chevron::context(0)?;
    // After the context, so that without a driver the one `error: …` line is all there is.
    common::announce_quick();
    println!("device 0: {}", ctx.name()?);
    // Every buffer is used on one stream only and read after it synchronizes.
    // SAFETY: see above.
    unsafe { ctx.disable_event_tracking() };
    ctx.bind_to_thread()?;
    let (low, high) = result::stream::get_priority_range()?;
    let sms =
        ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
    println!("stream priorities: {low} (lowest) to {high} (highest)");

    let flood = ctx.new_stream_with_priority(low)?;
    let mut done = flood.alloc_zeros::<u32>(1)?;
    // One probe stream per variant, since a stream attribute stays on its stream.
    let probes: Vec<std::sync::Arc<CudaStream>> = Variant::ALL
        .iter()
        .map(|_| ctx.new_stream())
        .collect::<Result<_, _>>()?;
    let mut outs: Vec<CudaSlice<u32>> = probes
        .iter()
        .map(|s| s.alloc_zeros::<u32>(1))
        .collect::<Result<_, _>>()?;
    for s in &probes {
        // The host spins in cuStreamSynchronize, so its own wake-up adds nothing to the latency.
        chevron::set_stream_attribute(s, SyncPolicy::Spin)?;
    }

    let flood_grid = sms * flood_blocks_per_sm;
    let mut flood_blocks = 0u64;
    let mut latencies = vec![Vec::new(); Variant::ALL.len()];
    for trial in 0..=trials {
        for (v, variant) in Variant::ALL.into_iter().enumerate() {
            let stream = &probes[v];
            let out = &mut outs[v];
            let value = (trial * Variant::ALL.len() + v) as u32 + 1;
            let mut start_flood = || -> Result<(), chevron::Error> {
                for _ in 0..flood_kernels {
                    // SAFETY: `done` holds one u32; the kernel touches nothing else.
                    unsafe { launch!(busy<<<flood_grid, 256, &flood>>>(&mut done, BLOCK_NS)) }?;
                }
                flood_blocks += u64::from(flood_grid * flood_kernels);
                let t = Instant::now();
                while t.elapsed() < HEAD_START {
                    std::hint::spin_loop();
                }
                Ok(())
            };
            let us = if let Variant::GraphNone | Variant::GraphNode = variant {
                let prioritized = variant == Variant::GraphNode;
                let out = &mut *out;
                // Captured before the flood: a capture synchronizes the context first.
                // SAFETY: `out` holds one u32; the graph is dropped below, never leaked.
                let (mut graph, ()) = unsafe {
                    Graph::capture(stream, move |capture| {
                        let s = capture.stream();
                        if prioritized {
                            launch!(probe<<<1, 32, s, priority = high>>>(&mut *out, value))
                        } else {
                            launch!(probe<<<1, 32, s>>>(&mut *out, value))
                        }
                    })
                }?;
                start_flood()?;
                let t = Instant::now();
                graph.replay(stream)?;
                graph.synchronize()?;
                t.elapsed().as_secs_f64() * 1e6
            } else {
                if variant != Variant::Idle {
                    start_flood()?;
                }
                let t = Instant::now();
                // SAFETY: `out` holds one u32.
                unsafe {
                    match variant {
                        Variant::Launch => {
                            launch!(probe<<<1, 32, stream, priority = high>>>(out, value))
                        }
                        Variant::Stream => {
                            launch!(probe<<<1, 32, stream, stream(priority = high)>>>(out, value))
                        }
                        _ => launch!(probe<<<1, 32, stream>>>(out, value)),
                    }
                }?;
                stream.synchronize()?;
                t.elapsed().as_secs_f64() * 1e6
            };
            flood.synchronize()?;
            let got = stream.clone_dtoh(out)?[0];
            if got != value {
                return Err(format!(
                    "{}: the probe wrote {got}, want {value}",
                    variant.name(high)
                )
                .into());
            }
            if trial > 0 {
                latencies[v].push(us);
            }
        }
    }
    let read_back = chevron::stream_attribute::<Priority>(&probes[3])?;
    if read_back != Some(Priority(high)) {
        return Err(format!("stream(priority = {high}) reads back as {read_back:?}").into());
    }
    let ran = flood.clone_dtoh(&done)?[0];
    if u64::from(ran) != flood_blocks {
        return Err(format!("{ran} flood blocks ran, {flood_blocks} were launched").into());
    }

    println!();
    println!(
        "probe latency (launch to synchronize returning) while {flood_kernels} kernels × {flood_grid} blocks × {} µs flood the GPU, median of {trials}:",
        BLOCK_NS / 1000
    );
    println!("| variant | median | p90 | min |");
    println!("|---|---|---|---|");
    for (variant, l) in Variant::ALL.into_iter().zip(latencies.iter_mut()) {
        l.sort_by(f64::total_cmp);
        println!(
            "| {} | {:.1} µs | {:.1} µs | {:.1} µs |",
            variant.name(high),
            l[l.len() / 2],
            l[(l.len() - 1) * 9 / 10],
            l[0]
        );
    }
    println!();
    println!(
        "checked: every probe wrote its value, all {flood_blocks} flood blocks ran, the probe stream reads back {read_back:?}"
    );
    Ok(())
}
