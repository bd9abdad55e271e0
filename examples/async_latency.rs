//! The awaited round trip against `synchronize()`: launch a 1-block kernel, then either block in
//! `cuStreamSynchronize` or await the stream's completion (`chevron::completion_with`) under a
//! minimal executor (poll, park, poll again), for every completion mechanism and every
//! `stream(sync = …)` policy, side by side in one run (interleaved batches, one stream per
//! variant). Prints per variant the median and 99th percentile round trip, its ratio to
//! `synchronize()` under the same policy, and the process's CPU time over wall time (every
//! thread: the caller, chevron's reactor, the driver's callback threads). The target is
//! the `Spin` row of the default mechanism: at most 1.2× `synchronize()`. Every launch's answer
//! is checked.
//!
//! `cargo run --release --example async_latency`. Exit code 0 when the checks pass, 2 on a
//! machine without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::future::Future;
use std::pin::pin;
use std::process::ExitCode;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{completion_with, kernel, launch, Mechanism, SyncPolicy};

/// out[i] = mix(request, i) for i < n.
#[kernel(ptx = "kernels/completion.ptx")]
fn respond(request: u32, n: u32, out: &mut CudaSlice<u32>);

const POLICIES: [SyncPolicy; 4] = [
    SyncPolicy::Spin,
    SyncPolicy::Yield,
    SyncPolicy::Auto,
    SyncPolicy::BlockingSync,
];

fn main() -> ExitCode {
    common::exit_code(run())
}

/// Unparks the waiting thread.
struct Unpark(std::thread::Thread);
impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.0.unpark();
    }
}

/// The smallest executor: poll, park until woken, poll again.
fn block_on<F: Future>(waker: &Waker, future: F) -> F::Output {
    let mut future = pin!(future);
    let mut cx = Context::from_waker(waker);
    loop {
        if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}

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

fn quantile(v: &[f64], q: f64) -> f64 {
    v[((v.len() - 1) as f64 * q).round() as usize]
}

/// How a round trip waits.
#[derive(Clone, Copy, PartialEq)]
enum Wait {
    Synchronize,
    Await(Mechanism),
}

impl Wait {
    fn name(self) -> String {
        match self {
            Wait::Synchronize => "`synchronize()`".into(),
            Wait::Await(m) => format!("await, {}", m.name()),
        }
    }
}

struct Lane {
    policy: SyncPolicy,
    wait: Wait,
    stream: Arc<CudaStream>,
    out: CudaSlice<u32>,
    trips: Vec<f64>,
    cpu: Duration,
    wall: Duration,
    launches: u32,
}

const N: u32 = 32;

impl Lane {
    fn trip(&mut self, waker: &Waker) -> Result<f64, Box<dyn Error>> {
        self.launches += 1;
        let request = self.launches;
        let t = Instant::now();
        unsafe { launch!(respond<<<1, 32, &self.stream>>>(request, N, &mut self.out)) }?;
        match self.wait {
            Wait::Synchronize => self.stream.synchronize()?,
            Wait::Await(m) => block_on(waker, completion_with(&self.stream, m))?,
        }
        Ok(t.elapsed().as_secs_f64() * 1e6)
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let (round_trips, batch, warm_up) = if common::quick() {
        (4usize, 2usize, 2usize)
    } else {
        (3_000usize, 100usize, 200usize)
    };
    let ctx = chevron::context(0)?;
    common::announce_quick();
    println!("device 0: {}", ctx.name()?);
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut waits = vec![Wait::Synchronize];
    for m in Mechanism::ALL {
        match m.available() {
            Ok(()) => waits.push(Wait::Await(m)),
            Err(e) => println!("not measured: {e}"),
        }
    }
    let mut lanes = Vec::new();
    for policy in POLICIES {
        for &wait in &waits {
            let stream = ctx.new_stream()?;
            chevron::set_stream_attribute(&stream, policy)?;
            let out = stream.alloc_zeros::<u32>(N as usize)?;
            let mut lane = Lane {
                policy,
                wait,
                stream,
                out,
                trips: Vec::with_capacity(round_trips),
                cpu: Duration::ZERO,
                wall: Duration::ZERO,
                launches: 0,
            };
            for _ in 0..warm_up {
                lane.trip(&waker)?;
            }
            lanes.push(lane);
        }
    }
    for _ in 0..round_trips / batch {
        for lane in lanes.iter_mut() {
            let cpu0 = common::cpu_time(common::CpuClock::Process);
            let wall0 = Instant::now();
            for _ in 0..batch {
                let t = lane.trip(&waker)?;
                lane.trips.push(t);
            }
            lane.wall += wall0.elapsed();
            if let (Some(a), Some(b)) = (cpu0, common::cpu_time(common::CpuClock::Process)) {
                lane.cpu += b.saturating_sub(a);
            }
        }
    }
    // Every lane's last answer: the kernel ran for the last request.
    for lane in &lanes {
        let got = lane.stream.clone_dtoh(&lane.out)?;
        for (i, v) in got.iter().enumerate() {
            if *v != mix(lane.launches, i as u32) {
                return Err(format!(
                    "{:?}, {}: out[{i}] = {v:#x} after request {}",
                    lane.policy,
                    lane.wait.name(),
                    lane.launches
                )
                .into());
            }
        }
    }

    println!();
    println!(
        "{round_trips} round trips (launch of a 1-block kernel + wait) per row, batches of \
         {batch} interleaved:"
    );
    println!("| policy | wait | median | p99 | median / `synchronize()` | process CPU / wall |");
    println!("|---|---|---|---|---|---|");
    let mut target = None;
    for policy in POLICIES {
        let rows: Vec<&mut Lane> = lanes.iter_mut().filter(|l| l.policy == policy).collect();
        let mut medians = Vec::new();
        for lane in rows {
            lane.trips.sort_by(f64::total_cmp);
            medians.push((
                lane.wait,
                quantile(&lane.trips, 0.5),
                quantile(&lane.trips, 0.99),
                if cfg!(target_os = "linux") {
                    format!("{:.2}", lane.cpu.as_secs_f64() / lane.wall.as_secs_f64())
                } else {
                    "n/a".into()
                },
            ));
        }
        let sync = medians
            .iter()
            .find(|m| m.0 == Wait::Synchronize)
            .map(|m| m.1)
            .unwrap_or(f64::NAN);
        for (wait, median, p99, cpu) in &medians {
            let ratio = median / sync;
            println!(
                "| `{policy:?}` | {} | {median:.1} µs | {p99:.1} µs | {ratio:.2}× | {cpu} |",
                wait.name()
            );
            if policy == SyncPolicy::Spin && *wait == Wait::Await(Mechanism::DEFAULT) {
                target = Some(ratio);
            }
        }
    }
    println!();
    if let Some(ratio) = target {
        println!(
            "target: awaited round trip ({}, Spin) / synchronize() (Spin) = {ratio:.2}× \
             (target ≤ 1.20×: {})",
            Mechanism::DEFAULT.name(),
            if ratio <= 1.2 { "met" } else { "NOT met" }
        );
    }
    println!("checked: every lane's last answer ({N} values) equals the host's");
    Ok(())
}
