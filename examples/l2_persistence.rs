//! L2 persistence (`access_policy_window`, `CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW`): a kernel
//! that streams a cold 2 GiB buffer once and re-reads a hot 20 MiB region (one hot vector per two
//! cold ones, so the hot region comes round again after about 60 MiB of traffic, more than L2
//! keeps without help).
//!
//! The persisting part of L2 is set aside with `cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE)`
//! (as much of 20 MiB as the device allows); then three variants, interleaved: no window (after
//! `cuCtxResetPersistingL2Cache`, so nothing persists from the other variants), the window over
//! the hot region as a launch attribute, and the same window as a stream attribute
//! (`stream(access_policy_window = …)`, read back with `chevron::stream_attribute`). Prints the
//! time (CUDA events, median) and the effective bandwidth; checks each variant's checksum against
//! the host's. The effect is bounded: at best the hot re-reads (a third of the bytes) come from
//! L2 instead of DRAM.
//!
//! `cargo run --release --example l2_persistence`. Exit code 0 when the checks pass, 2 on a
//! machine without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;

use chevron::cudarc::driver::{sys, CudaSlice};
use chevron::{kernel, launch, AccessPolicyWindow};

/// `x[i] = i * mul ^ salt`.
#[kernel(ptx = "kernels/l2_persistence.ptx")]
fn fill(x: &mut CudaSlice<u32>, n: u64, mul: u32, salt: u32);

/// `*sum += Σ cold ^ hot` over the cold vectors, re-reading hot.
#[kernel(ptx = "kernels/l2_persistence.ptx")]
fn l2_mix(
    cold: &CudaSlice<u32>,
    n4: u64,
    hot: &CudaSlice<u32>,
    hot_n4: u64,
    sum: &mut CudaSlice<u32>,
);

const COLD: (u32, u32) = (2_654_435_761, 0x5BD1_E995);
const HOT: (u32, u32) = (40_503, 0x1B87_3593);
const BLOCK: u32 = 256;

fn main() -> ExitCode {
    common::exit_code(run())
}

/// The kernel's checksum, on the host (threads over chunks of the cold vectors).
fn host_checksum(n4: u64, hot_n4: u64) -> u32 {
    let value = |i: u64, (mul, salt): (u32, u32)| (i as u32).wrapping_mul(mul) ^ salt;
    let threads = std::thread::available_parallelism().map_or(4, |n| n.get()) as u64;
    let chunk = n4.div_ceil(threads);
    std::thread::scope(|s| {
        let parts: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    let mut acc = 0u32;
                    for k in t * chunk..((t + 1) * chunk).min(n4) {
                        let h = (k / 2) % hot_n4;
                        for c in 0..4 {
                            let x = value(4 * k + c, COLD) ^ value(4 * h + c, HOT);
                            acc = acc.wrapping_add(x);
                        }
                    }
                    acc
                })
            })
            .collect();
        parts
            .into_iter()
            .map(|p| p.join().expect("a checksum thread"))
            .fold(0u32, u32::wrapping_add)
    })
}

fn run() -> Result<(), Box<dyn Error>> {
    // 2 GiB cold and 20 MiB hot, or 4 MiB and 64 KiB under CHEVRON_QUICK: the kernels stride over
    // any size, and the set-aside and the window below shrink with the hot region (never more
    // than it, nor than the device allows).
    let (cold_bytes, hot_bytes, size_label) = if common::quick() {
        (
            4u64 << 20,
            64u64 << 10,
            "4 MiB streamed + 64 KiB re-read (6 MiB of loads)",
        )
    } else {
        (
            2u64 << 30,
            20u64 << 20,
            "2 GiB streamed + 20 MiB re-read (3 GiB of loads)",
        )
    };
    let repeats: usize = common::size(21, 2);
    let ctx = chevron::context(0)?;
    // After the context, so that without a driver the one `error: …` line is all there is.
    common::announce_quick();
    println!("device 0: {}", ctx.name()?);
    let attr = |a| ctx.attribute(a);
    use sys::CUdevice_attribute as A;
    let sms = attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32;
    let l2 = attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)? as u64;
    let max_persisting = attr(A::CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE)? as u64;
    let max_window = attr(A::CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE)? as u64;
    let set_aside = hot_bytes.min(max_persisting);
    // cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, …)
    ctx.set_limit(
        sys::CUlimit::CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
        set_aside as usize,
    )?;
    let window_bytes = hot_bytes.min(max_window);
    // Where the set-aside is smaller than the window, only that share of it persists.
    let hit_ratio = (set_aside as f32 / window_bytes as f32).min(1.0);
    println!(
        "L2 {} MiB, persisting at most {} MiB, set aside {:.1} MiB; window {:.1} MiB, hit ratio {hit_ratio:.2}",
        l2 >> 20,
        max_persisting >> 20,
        set_aside as f64 / (1 << 20) as f64,
        window_bytes as f64 / (1 << 20) as f64
    );

    let plain = ctx.new_stream()?;
    let windowed = ctx.new_stream()?;
    let (n, hot_n) = (cold_bytes / 4, hot_bytes / 4);
    let mut cold = plain.alloc_zeros::<u32>(n as usize)?;
    let mut hot = plain.alloc_zeros::<u32>(hot_n as usize)?;
    let fill_grid = sms * 8;
    // SAFETY: fill strides over n elements of a buffer of n.
    unsafe {
        launch!(fill<<<fill_grid, BLOCK, &plain>>>(&mut cold, n, COLD.0, COLD.1))?;
        launch!(fill<<<fill_grid, BLOCK, &plain>>>(&mut hot, hot_n, HOT.0, HOT.1))?;
    }
    let mut sum = plain.alloc_zeros::<u32>(1)?;
    let want = host_checksum(n / 4, hot_n / 4);
    let window = AccessPolicyWindow::over(&hot, &plain).hit_ratio(hit_ratio);
    let window = AccessPolicyWindow {
        num_bytes: window_bytes as usize,
        ..window
    };

    let names = [
        "no window",
        "`access_policy_window` (launch)",
        "`stream(access_policy_window = …)`",
    ];
    let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
    let (start, end) = (ctx.new_event(timing)?, ctx.new_event(timing)?);
    let mut times = vec![Vec::new(); names.len()];
    let grid = sms * 8;
    for repeat in 0..=repeats {
        for (v, name) in names.iter().enumerate() {
            let stream = if v == 2 { &windowed } else { &plain };
            plain.synchronize()?;
            windowed.synchronize()?;
            if v == 0 {
                // Lines the other variants made persisting become normal again.
                // SAFETY: a plain driver call on the current context (bound by synchronize).
                let rc = unsafe { sys::cuCtxResetPersistingL2Cache() };
                if rc != sys::CUresult::CUDA_SUCCESS {
                    return Err(format!("cuCtxResetPersistingL2Cache failed: {rc:?}").into());
                }
            }
            stream.memset_zeros(&mut sum)?;
            start.record(stream)?;
            // SAFETY: l2_mix reads n / 4 cold and hot_n / 4 hot vectors, adds into sum[0].
            unsafe {
                match v {
                    0 => {
                        launch!(l2_mix<<<grid, BLOCK, stream>>>(&cold, n / 4, &hot, hot_n / 4, &mut sum))
                    }
                    1 => launch!(l2_mix<<<grid, BLOCK, stream, access_policy_window = window>>>(
                        &cold, n / 4, &hot, hot_n / 4, &mut sum)),
                    _ => {
                        launch!(l2_mix<<<grid, BLOCK, stream, stream(access_policy_window = window)>>>(
                        &cold, n / 4, &hot, hot_n / 4, &mut sum))
                    }
                }
            }?;
            end.record(stream)?;
            let ms = f64::from(start.elapsed_ms(&end)?);
            let got = stream.clone_dtoh(&sum)?[0];
            if got != want {
                return Err(
                    format!("{name}: checksum {got:#010x}, the host's {want:#010x}").into(),
                );
            }
            if repeat > 0 {
                times[v].push(ms);
            }
        }
    }
    let read_back = chevron::stream_attribute::<AccessPolicyWindow>(&windowed)?;
    if read_back.map(|w| (w.base, w.num_bytes)) != Some((window.base, window.num_bytes)) {
        return Err(format!("the stream's window reads back as {read_back:?}").into());
    }

    // Bytes the kernel asks for: all of cold once, and one hot vector per two cold ones.
    let bytes = cold_bytes as f64 * 1.5;
    println!();
    println!("{size_label}, median of {repeats}:");
    println!("| variant | time | loads / time | ratio to no window |");
    println!("|---|---|---|---|");
    let medians: Vec<f64> = times
        .iter_mut()
        .map(|t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect();
    for (name, m) in names.iter().zip(&medians) {
        println!(
            "| {name} | {m:.3} ms | {:.0} GB/s | {:.3}× |",
            bytes / (m * 1e-3) / 1e9,
            m / medians[0]
        );
    }
    println!();
    println!(
        "checked: every run's checksum = the host's ({want:#010x}); the stream's window reads back (base {:#x}, {} bytes)",
        window.base, window.num_bytes
    );
    Ok(())
}
