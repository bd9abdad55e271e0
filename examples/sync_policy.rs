//! What `stream(sync = …)` (`CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY`) trades: the round trip
//! of a tiny kernel (launch + `cuStreamSynchronize`) against the CPU time the waiting thread
//! burns.
//!
//! One stream per policy, each set once by a `launch!` with `stream(sync = …)` and read back with
//! `chevron::stream_attribute`; then 5,000 round trips per policy, in interleaved batches. Prints
//! the median and 99th percentile round trip and the calling thread's CPU time over wall time
//! (`CLOCK_THREAD_CPUTIME_ID`): `Spin` keeps a core busy for the lowest latency, `BlockingSync`
//! sleeps in the kernel's wait and wakes later. Checks that every launch ran (a counter per
//! stream) and that each stream reports the policy it was given.
//!
//! `cargo run --release --example sync_policy`. Exit code 0 when the checks pass, 2 on a machine
//! without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, SyncPolicy};

/// `*count += 1` by one thread.
#[kernel(ptx = "kernels/sync_policy.ptx")]
fn tick(count: &mut CudaSlice<u32>);

const POLICIES: [SyncPolicy; 4] = [
    SyncPolicy::Auto,
    SyncPolicy::Spin,
    SyncPolicy::Yield,
    SyncPolicy::BlockingSync,
];

fn main() -> ExitCode {
    common::exit_code(run())
}

/// The value at quantile `q` (0 to 1) of sorted `v`.
fn quantile(v: &[f64], q: f64) -> f64 {
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn run() -> Result<(), Box<dyn Error>> {
    // Round trips per policy, measured (a multiple of the batch, so the counters' check holds);
    // round trips per batch (batches of the four policies alternate, so drift hits all alike);
    // unmeasured round trips per policy first (module load, clocks ramping up). Under
    // CHEVRON_QUICK a handful of each.
    let (round_trips, batch, warm_up) = if common::quick() {
        (4usize, 2usize, 2usize)
    } else {
        (5_000usize, 100usize, 200usize)
    };
    let ctx = chevron::context(0)?;
    // After the context, so that without a driver the one `error: …` line is all there is.
    common::announce_quick();
    println!("device 0: {}", ctx.name()?);
    // Each counter is used on its own stream only and read after that stream synchronizes, so
    // cudarc's cross-stream events (an event record per launch) are not needed; without them a
    // round trip is the launch and the wait alone, as in C.
    // SAFETY: see above: no buffer is shared between streams.
    unsafe { ctx.disable_event_tracking() };

    let mut lanes = Vec::new();
    for policy in POLICIES {
        let stream = ctx.new_stream()?;
        let mut count: CudaSlice<u32> = stream.alloc_zeros(1)?;
        // The policy is a stream attribute: set here once, it stays on the stream.
        unsafe { launch!(tick<<<1, 32, &stream, stream(sync = policy)>>>(&mut count)) }?;
        stream.synchronize()?;
        let read_back = chevron::stream_attribute::<SyncPolicy>(&stream)?;
        println!("stream(sync = {policy:?}) reads back as {read_back:?}");
        if read_back != Some(policy) {
            return Err(
                format!("the stream was given {policy:?} and reports {read_back:?}").into(),
            );
        }
        for _ in 0..warm_up {
            unsafe { launch!(tick<<<1, 32, &stream>>>(&mut count)) }?;
            stream.synchronize()?;
        }
        lanes.push((
            policy,
            stream,
            count,
            Vec::with_capacity(round_trips),
            Duration::ZERO,
            Duration::ZERO,
        ));
    }

    for _ in 0..round_trips / batch {
        for (_, stream, count, trips, cpu, wall) in lanes.iter_mut() {
            let cpu0 = common::cpu_time(common::CpuClock::Thread);
            let wall0 = Instant::now();
            for _ in 0..batch {
                let t = Instant::now();
                unsafe { launch!(tick<<<1, 32, &**stream>>>(count)) }?;
                stream.synchronize()?;
                trips.push(t.elapsed().as_secs_f64() * 1e6);
            }
            *wall += wall0.elapsed();
            if let (Some(a), Some(b)) = (cpu0, common::cpu_time(common::CpuClock::Thread)) {
                *cpu += b.saturating_sub(a);
            }
        }
    }

    println!();
    println!("{round_trips} × (launch + stream synchronize) of a 1-block kernel per policy:");
    println!("| policy | median round trip | p99 round trip | thread CPU / wall |");
    println!("|---|---|---|---|");
    for (policy, stream, count, trips, cpu, wall) in lanes.iter_mut() {
        trips.sort_by(f64::total_cmp);
        let cpu_share = if cfg!(target_os = "linux") {
            format!("{:.2}", cpu.as_secs_f64() / wall.as_secs_f64())
        } else {
            "n/a".to_string()
        };
        println!(
            "| `{policy:?}` | {:.1} µs | {:.1} µs | {cpu_share} |",
            quantile(trips, 0.5),
            quantile(trips, 0.99)
        );
        let got = stream.clone_dtoh(count)?[0];
        let want = (1 + warm_up + round_trips) as u32;
        if got != want {
            return Err(format!("{policy:?}: counter is {got} after {want} launches").into());
        }
    }
    println!();
    println!(
        "checked: every stream's counter = {} (one per launch); each stream reports its policy",
        1 + warm_up + round_trips
    );
    Ok(())
}
