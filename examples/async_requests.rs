//! A request loop served from one thread: 64 tasks on tokio's current-thread runtime, each with a
//! stream of its own, each taking 10,000 requests in turn: launch the kernel that answers the
//! request, copy the answer to pinned host memory, await the stream's completion (the task
//! sleeps, the thread serves the other 63), check every value of the answer. Prints the
//! throughput, the latency of a request (launch to checked answer) and the process's CPU time,
//! for the default completion mechanism, then for the others on 1,000 requests per task.
//!
//! `cargo run --release --example async_requests`. Exit code 0 when every answer is right, 2 on
//! a machine without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{completion_with, kernel, launch, Mechanism};

/// out[i] = mix(request, i) for i < n.
#[kernel(ptx = "kernels/completion.ptx")]
fn respond(request: u32, n: u32, out: &mut CudaSlice<u32>);

/// Values per answer.
const N: u32 = 256;
const STREAMS: usize = 64;

fn main() -> ExitCode {
    common::exit_code(run())
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

/// What one task saw: the latency of each request in µs, and how many values it checked.
type Served = Result<(Vec<f32>, u64), String>;

/// One task: `requests` requests on `stream`, each answer checked.
async fn serve(stream: Arc<CudaStream>, task: u32, requests: u32, mechanism: Mechanism) -> Served {
    let e = |e: &dyn std::fmt::Display| format!("task {task}: {e}");
    let mut out = stream.alloc_zeros::<u32>(N as usize).map_err(|x| e(&x))?;
    // SAFETY: u32 is valid for any bits; read only after the copy into it completed.
    let mut host = unsafe {
        stream
            .context()
            .alloc_pinned_with_flags::<u32>(N as usize, 0)
    }
    .map_err(|x| e(&x))?;
    let mut latencies = Vec::with_capacity(requests as usize);
    let mut checked = 0u64;
    for r in 0..requests {
        let request = task.wrapping_mul(1_000_003).wrapping_add(r);
        let t = Instant::now();
        unsafe { launch!(respond<<<1, N, &stream>>>(request, N, &mut out)) }.map_err(|x| e(&x))?;
        stream.memcpy_dtoh(&out, &mut host).map_err(|x| e(&x))?;
        completion_with(&stream, mechanism)
            .await
            .map_err(|x| e(&x))?;
        let answer = host.as_slice().map_err(|x| e(&x))?;
        for (i, v) in answer.iter().enumerate() {
            if *v != mix(request, i as u32) {
                return Err(format!(
                    "task {task}, request {request}: value {i} is {v:#x}, not {:#x}",
                    mix(request, i as u32)
                ));
            }
        }
        checked += u64::from(N);
        latencies.push(t.elapsed().as_secs_f32() * 1e6);
    }
    Ok((latencies, checked))
}

fn run() -> Result<(), Box<dyn Error>> {
    let ctx = chevron::context(0)?;
    common::announce_quick();
    println!("device 0: {}", ctx.name()?);
    let streams: Vec<_> = (0..STREAMS)
        .map(|_| ctx.new_stream())
        .collect::<Result<_, _>>()?;
    let rt = tokio::runtime::Builder::new_current_thread().build()?;
    let mut runs = vec![(Mechanism::DEFAULT, common::size(10_000u32, 20))];
    for m in Mechanism::ALL {
        if m != Mechanism::DEFAULT {
            match m.available() {
                Ok(()) => runs.push((m, common::size(1_000, 10))),
                Err(e) => println!("not run: {e}"),
            }
        }
    }
    println!(
        "| mechanism | streams × requests | requests/s | latency median | p99 | values checked | process CPU / wall |"
    );
    println!("|---|---|---|---|---|---|---|");
    for (mechanism, requests) in runs {
        let cpu0 = common::cpu_time(common::CpuClock::Process);
        let start = Instant::now();
        let served: Vec<Served> = rt.block_on(async {
            let tasks: Vec<_> = streams
                .iter()
                .enumerate()
                .map(|(t, s)| tokio::spawn(serve(s.clone(), t as u32, requests, mechanism)))
                .collect();
            let mut all = Vec::new();
            for t in tasks {
                all.push(
                    t.await
                        .unwrap_or_else(|e| Err(format!("task panicked: {e}"))),
                );
            }
            all
        });
        let wall = start.elapsed();
        let cpu = match (cpu0, common::cpu_time(common::CpuClock::Process)) {
            (Some(a), Some(b)) => format!("{:.2}", (b - a).as_secs_f64() / wall.as_secs_f64()),
            _ => "n/a".into(),
        };
        let mut latencies = Vec::new();
        let mut checked = 0u64;
        for s in served {
            let (l, c) = s?;
            latencies.extend(l);
            checked += c;
        }
        let total = STREAMS as u64 * u64::from(requests);
        if checked != total * u64::from(N) {
            return Err(format!("{checked} values checked, want {}", total * u64::from(N)).into());
        }
        latencies.sort_by(f32::total_cmp);
        let q = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
        println!(
            "| {} | {STREAMS} × {requests} | {:.0} | {:.1} µs | {:.1} µs | {checked} | {cpu} |",
            mechanism.name(),
            total as f64 / wall.as_secs_f64(),
            q(0.5),
            q(0.99)
        );
    }
    println!(
        "checked: every answer of every request, {N} values each, equals the host's; one thread"
    );
    Ok(())
}
