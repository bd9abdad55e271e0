//! SM partitions (green contexts, [`chevron::Partition`]) against launch priority: a one-block
//! kernel that must answer quickly, launched while long-running blocks flood the GPU.
//!
//! The flood is 16 kernels of 32 blocks per SM of 20 µs each, on a stream of the lowest
//! priority; 300 µs after it starts, the probe kernel is launched and the host waits for it
//! (host clock, from the launch until `cuStreamQuery` first answers done, polled in a loop: the
//! same wait for every variant, whatever the stream's `sync` policy). Four variants,
//! interleaved:
//!
//! - idle GPU: no flood, the floor;
//! - flood, no priority: the probe queues behind flood blocks;
//! - flood, `priority = HIGH`: the block scheduler gives the probe the first SM slot that frees
//!   (the end of one 20 µs flood block at worst);
//! - flood on a partition: `Partition::split(&ctx, 8)` gives 8 SMs (or the driver's minimum) to
//!   the probe's stream and the other SMs to the flood's stream, so no flood block ever holds an
//!   SM the probe may use.
//!
//! Then a `cooperative` launch sized for the whole device is refused on the partition's stream
//! (printed: both SM counts are in the error), and one sized for the partition
//! (`partition.max_cooperative_grid`) runs there and is checked against the host.
//!
//! Checks that every probe wrote its value and that every flood block ran.
//!
//! `cargo run --release --example sm_partition`. Exit code 0 when the checks pass, 2 on a
//! machine without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chevron::cudarc::driver::{result, sys, CudaSlice, CudaStream};
use chevron::{kernel, launch, Partition};

/// Each block spins `ns` nanoseconds, then adds 1 to `*done`.
#[kernel(ptx = "kernels/priority.ptx")]
fn busy(done: &mut CudaSlice<u32>, ns: u64);

/// `*out = value`.
#[kernel(ptx = "kernels/priority.ptx")]
fn probe(out: &mut CudaSlice<u32>, value: u32);

/// Phase 1 `tmp = 3·in`, a grid-wide barrier, phase 2 `out[t] = tmp[(t + blockDim) % n]`.
#[kernel(ptx = "kernels/cooperative.ptx")]
fn grid_rotate(input: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

const BLOCK_NS: u64 = 20_000;
/// How long the host lets the flood run before it launches the probe.
const HEAD_START: Duration = Duration::from_micros(300);
/// The SMs asked for the probe's partition.
const PROBE_SMS: u32 = 8;

#[derive(Clone, Copy, PartialEq)]
enum Variant {
    Idle,
    None,
    Priority,
    Partition,
}

impl Variant {
    const ALL: [Self; 4] = [Self::Idle, Self::None, Self::Priority, Self::Partition];

    fn name(self, high: i32, probe_sms: u32, flood_sms: u32) -> String {
        match self {
            Self::Idle => "idle GPU (no flood)".into(),
            Self::None => "flood, no priority".into(),
            Self::Priority => format!("flood, `priority = {high}` (launch)"),
            Self::Partition => {
                format!("flood on a partition of {flood_sms} SMs, probe on one of {probe_sms} SMs")
            }
        }
    }
}

fn main() -> ExitCode {
    common::exit_code(run())
}

/// Waits for `stream` by polling `cuStreamQuery`.
fn wait(stream: &CudaStream) -> Result<(), Box<dyn Error>> {
    loop {
        // SAFETY: the stream is live.
        match unsafe { sys::cuStreamQuery(stream.cu_stream()) } {
            sys::cudaError_enum::CUDA_SUCCESS => return Ok(()),
            sys::cudaError_enum::CUDA_ERROR_NOT_READY => std::hint::spin_loop(),
            other => return Err(format!("cuStreamQuery: {other:?}").into()),
        }
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let (flood_kernels, flood_blocks_per_sm, trials) = if common::quick() {
        (2u32, 1u32, 2usize)
    } else {
        (16u32, 32u32, 31usize)
    };
    let ctx = chevron::context(0)?;
    common::announce_quick();
    println!("device 0: {}", ctx.name()?);
    // Every buffer is used by one stream at a time, handed over after a synchronize: no event
    // waits in the probe's launch.
    // SAFETY: see above.
    unsafe { ctx.disable_event_tracking() };
    ctx.bind_to_thread()?;
    let (low, high) = result::stream::get_priority_range()?;
    let (mut probe_part, mut flood_part) = Partition::split(&ctx, PROBE_SMS)?;
    let sms = probe_part.device_sms();
    println!(
        "SMs: {sms} on the device; partitions of {} (the probe's) and {} (the flood's); stream \
         priorities {low} (lowest) to {high} (highest)",
        probe_part.sms(),
        flood_part.sms()
    );

    let flood = ctx.new_stream_with_priority(low)?;
    let flood_on_part = flood_part.new_stream_with_priority(low)?;
    // Buffers on device streams (a buffer made on a partition's stream would hold it).
    let mut done = flood.alloc_zeros::<u32>(1)?;
    let mut done_on_part = flood.alloc_zeros::<u32>(1)?;
    let probes: Vec<Arc<CudaStream>> = vec![
        ctx.new_stream()?,
        ctx.new_stream()?,
        ctx.new_stream()?,
        probe_part.new_stream()?,
    ];
    let mut outs: Vec<CudaSlice<u32>> = (0..probes.len())
        .map(|_| flood.alloc_zeros::<u32>(1))
        .collect::<Result<_, _>>()?;
    flood.synchronize()?;

    let flood_grid = sms * flood_blocks_per_sm;
    let (mut launched, mut launched_on_part) = (0u64, 0u64);
    let mut latencies = vec![Vec::new(); Variant::ALL.len()];
    for trial in 0..=trials {
        for (v, variant) in Variant::ALL.into_iter().enumerate() {
            let stream = &probes[v];
            let out = &mut outs[v];
            let value = (trial * 4 + v) as u32 + 1;
            let flood_stream = if variant == Variant::Partition {
                &flood_on_part
            } else {
                &flood
            };
            if variant != Variant::Idle {
                for _ in 0..flood_kernels {
                    let counter = if variant == Variant::Partition {
                        launched_on_part += u64::from(flood_grid);
                        &mut done_on_part
                    } else {
                        launched += u64::from(flood_grid);
                        &mut done
                    };
                    // SAFETY: the counter holds one u32; the kernel touches nothing else.
                    unsafe { launch!(busy<<<flood_grid, 256, flood_stream>>>(counter, BLOCK_NS)) }?;
                }
                let t = Instant::now();
                while t.elapsed() < HEAD_START {
                    std::hint::spin_loop();
                }
            }
            let t = Instant::now();
            // SAFETY: `out` holds one u32.
            unsafe {
                if variant == Variant::Priority {
                    launch!(probe<<<1, 32, stream, priority = high>>>(out, value))
                } else {
                    launch!(probe<<<1, 32, stream>>>(out, value))
                }
            }?;
            wait(stream)?;
            let us = t.elapsed().as_secs_f64() * 1e6;
            flood_stream.synchronize()?;
            let got = stream.clone_dtoh(out)?[0];
            if got != value {
                return Err(format!(
                    "{}: the probe wrote {got}, want {value}",
                    variant.name(high, probe_part.sms(), flood_part.sms())
                )
                .into());
            }
            if trial > 0 {
                latencies[v].push(us);
            }
        }
    }
    for (what, counter, want) in [
        ("device", &done, launched),
        ("partition", &done_on_part, launched_on_part),
    ] {
        let ran = flood.clone_dtoh(counter)?[0];
        if u64::from(ran) != want {
            return Err(format!(
                "{ran} flood blocks ran on the {what} stream, {want} were launched"
            )
            .into());
        }
    }

    println!();
    println!(
        "probe latency (launch until the stream is idle) while {flood_kernels} kernels × \
         {flood_grid} blocks × {} µs flood the GPU, over {trials} trials:",
        BLOCK_NS / 1000
    );
    println!("| variant | median | p90 | min |");
    println!("|---|---|---|---|");
    for (variant, l) in Variant::ALL.into_iter().zip(latencies.iter_mut()) {
        l.sort_by(f64::total_cmp);
        println!(
            "| {} | {:.1} µs | {:.1} µs | {:.1} µs |",
            variant.name(high, probe_part.sms(), flood_part.sms()),
            l[l.len() / 2],
            l[(l.len() - 1) * 9 / 10],
            l[0]
        );
    }
    println!();
    println!(
        "checked: every probe wrote its value, all {launched} + {launched_on_part} flood blocks ran"
    );

    // Cooperative launches on the probe's partition: sized for the device, then for it.
    let part_stream = &probes[3];
    let threads = 256u32;
    let device_grid = grid_rotate::kernel().max_cooperative_grid(&ctx, threads, 0)?;
    let part_grid =
        probe_part.max_cooperative_grid(&grid_rotate::kernel().function(&ctx)?, threads, 0)?;
    let cooperative = |grid: u32| -> Result<Vec<i32>, chevron::Error> {
        let n = grid * threads;
        let input: Vec<i32> = (0..n as i32)
            .map(|i| i.wrapping_mul(7919) % 100_003)
            .collect();
        let input = flood.clone_htod(&input)?;
        let mut tmp = flood.clone_htod(&vec![-1i32; n as usize])?;
        let mut out = flood.clone_htod(&vec![-1i32; n as usize])?;
        flood.synchronize()?;
        // SAFETY: n = grid × threads elements in each buffer, as the kernel expects.
        unsafe {
            launch!(grid_rotate<<<grid, threads, part_stream, cooperative>>>(&input, &mut tmp, &mut out, n))
        }?;
        part_stream.synchronize()?;
        Ok(flood.clone_dtoh(&out)?)
    };
    match cooperative(device_grid) {
        Err(e @ chevron::Error::CooperativeTooLargeForPartition { .. }) => {
            println!("cooperative launch of {device_grid} blocks (sized for the device) on the partition: refused: {e}");
        }
        Err(e) => return Err(format!("a device-sized cooperative launch on the partition: want the partition's refusal, got: {e}").into()),
        Ok(_) => return Err("a device-sized cooperative launch on the partition was not refused".into()),
    }
    let out = cooperative(part_grid)?;
    let n = part_grid * threads;
    for t in 0..n {
        let src = (t + threads) % n;
        let want = ((src as i32).wrapping_mul(7919) % 100_003) * 3;
        if out[t as usize] != want {
            return Err(format!(
                "cooperative launch of {part_grid} blocks on the partition: element {t} is {}, want {want}",
                out[t as usize]
            )
            .into());
        }
    }
    println!(
        "checked: a cooperative launch of {part_grid} blocks (sized for the partition) ran on it, \
         {n} values equal the host's"
    );
    // The partitions, made first, are dropped last: their streams are no longer held then, so
    // they are destroyed.
    Ok(())
}
