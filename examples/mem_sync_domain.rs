//! Memory-synchronization domains (`mem_sync_domain`, `mem_sync_domain_map`; sm_90): a
//! fence-heavy kernel (a system-scope fence after every store, as a communication kernel does)
//! running next to a kernel that writes 512 MiB several times over.
//!
//! A fence waits until the writes it must order are visible, and without domains the GPU cannot
//! tell the neighbour's writes from the fencing kernel's own, so the fences also wait for the
//! neighbour's traffic. With `mem_sync_domain = Remote` (and `mem_sync_domain_map` sending the
//! remote domain to physical domain 1, the neighbour's default domain to 0) the fences only wait
//! for their own domain. Four variants, interleaved: the fence kernel alone, next to the writer
//! in the same domain, in the remote domain as a launch attribute, and as a stream attribute
//! (`stream(mem_sync_domain = Remote)`, read back with `chevron::stream_attribute`). Prints the
//! fence kernel's time (CUDA events on its stream, median).
//!
//! One GPU shows the mechanism, not the whole use: domains were made for kernels that fence
//! across GPUs (NCCL) next to compute kernels, where the cost of waiting is larger.
//!
//! `cargo run --release --example mem_sync_domain`. Exit code 0 when the checks pass, 2 on a
//! machine without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;

use chevron::cudarc::driver::{sys, CudaSlice};
use chevron::{kernel, launch, MemSyncDomain, MemSyncDomainMap};

/// Each thread: `iters` × (store to its counter, `__threadfence_system()`).
#[kernel(ptx = "kernels/mem_sync_domain.ptx")]
fn fence_heavy(counters: &mut CudaSlice<u32>, iters: u32);

/// `passes` × (out[i] = in[i] * 3 + 1).
#[kernel(ptx = "kernels/mem_sync_domain.ptx")]
fn stream_write(input: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u64, passes: u32);

const FENCE_BLOCK: u32 = 128;
/// Remote to physical domain 1, default to 0: the split.
const SPLIT: MemSyncDomainMap = MemSyncDomainMap {
    default: 0,
    remote: 1,
};

fn main() -> ExitCode {
    common::exit_code(run())
}

fn run() -> Result<(), Box<dyn Error>> {
    // Fences per thread, the writer's buffer (elements, and its size for the output), its passes
    // and the repeats: the full run, or under CHEVRON_QUICK few of each (every kernel strides or
    // loops over these, so any value is valid; the fence grid stays one block per SM).
    let (iters, write_n, write_label, passes, repeats) = if common::quick() {
        (4u32, 1u64 << 16, "256 KiB", 2u32, 2usize)
    } else {
        (256u32, 128u64 << 20, "512 MiB", 8u32, 15usize)
    };
    let ctx = chevron::context(0)?;
    // After the context, so that without a driver the one `error: …` line is all there is.
    common::announce_quick();
    println!("device 0: {}", ctx.name()?);
    let sms =
        ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
    let domains =
        ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT)?;
    println!("memory-synchronization domains on this device: {domains}");
    // Each buffer is used on one stream only and read after that stream synchronizes.
    // SAFETY: see above.
    unsafe { ctx.disable_event_tracking() };
    let writer = ctx.new_stream()?;
    let fencer = ctx.new_stream()?;
    let fencer_remote = ctx.new_stream()?;

    let threads = sms * FENCE_BLOCK;
    let mut counters = fencer.alloc_zeros::<u32>(threads as usize)?;
    let mut counters_remote = fencer_remote.alloc_zeros::<u32>(threads as usize)?;
    let input: Vec<u32> = (0..write_n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let input_dev = writer.clone_htod(&input)?;
    let mut out = writer.alloc_zeros::<u32>(write_n as usize)?;
    // Two blocks per SM for the writer leave room for the fence kernel's one.
    let write_grid = sms * 2;

    let names = [
        "fence kernel alone",
        "next to the writer, same domain",
        "next to the writer, `mem_sync_domain = Remote` (launch)",
        "next to the writer, `stream(mem_sync_domain = Remote)`",
    ];
    let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
    let (start, end) = (ctx.new_event(timing)?, ctx.new_event(timing)?);
    let mut times = vec![Vec::new(); names.len()];
    let mut fence_launches = [0u32; 2];
    for repeat in 0..=repeats {
        for v in 0..names.len() {
            if v > 0 {
                // SAFETY: stream_write strides over n elements of buffers of n.
                unsafe {
                    launch!(stream_write<<<write_grid, 256, &writer>>>(&input_dev, &mut out, write_n, passes))
                }?;
            }
            let (stream, counters) = if v == 3 {
                (&fencer_remote, &mut counters_remote)
            } else {
                (&fencer, &mut counters)
            };
            start.record(stream)?;
            // SAFETY: one counter per thread of sms × FENCE_BLOCK.
            unsafe {
                match v {
                    0 | 1 => launch!(fence_heavy<<<sms, FENCE_BLOCK, stream>>>(counters, iters)),
                    2 => launch!(fence_heavy<<<sms, FENCE_BLOCK, stream, mem_sync_domain = Remote,
                        mem_sync_domain_map = SPLIT>>>(counters, iters)),
                    _ => launch!(fence_heavy<<<sms, FENCE_BLOCK, stream,
                        stream(mem_sync_domain = Remote, mem_sync_domain_map = SPLIT)>>>(counters, iters)),
                }
            }?;
            end.record(stream)?;
            fence_launches[usize::from(v == 3)] += 1;
            let ms = f64::from(start.elapsed_ms(&end)?);
            writer.synchronize()?;
            if repeat > 0 {
                times[v].push(ms);
            }
        }
    }

    let read_back = chevron::stream_attribute::<MemSyncDomain>(&fencer_remote)?;
    if read_back != Some(MemSyncDomain::Remote) {
        return Err(format!("stream(mem_sync_domain = Remote) reads back as {read_back:?}").into());
    }
    for (buffer, launches, stream) in [
        (&counters, fence_launches[0], &fencer),
        (&counters_remote, fence_launches[1], &fencer_remote),
    ] {
        let got = stream.clone_dtoh(buffer)?;
        let want = launches * iters;
        if let Some(i) = got.iter().position(|&c| c != want) {
            return Err(format!("fence counter {i} is {}, want {want}", got[i]).into());
        }
    }
    let written = writer.clone_dtoh(&out)?;
    if let Some(i) =
        (0..write_n as usize).find(|&i| written[i] != input[i].wrapping_mul(3).wrapping_add(1))
    {
        return Err(format!("the writer's element {i} is {}", written[i]).into());
    }

    println!();
    println!(
        "fence kernel ({sms} blocks × {FENCE_BLOCK} threads × {iters} system fences) next to a writer ({passes} × {write_label}), median of {repeats}:"
    );
    println!("| variant | fence kernel | ratio to alone |");
    println!("|---|---|---|");
    let medians: Vec<f64> = times
        .iter_mut()
        .map(|t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect();
    for (name, m) in names.iter().zip(&medians) {
        println!("| {name} | {m:.3} ms | {:.2}× |", m / medians[0]);
    }
    println!();
    println!(
        "checked: every fence counter = launches × {iters}, the writer's {write_label} = in × 3 + 1, the stream reads back {read_back:?}"
    );
    Ok(())
}
