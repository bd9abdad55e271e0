//! Iterate until converged with no host round trip per iteration: Jacobi relaxation of the
//! screened Poisson equation `-u'' + s·u = b` on N points (`u = 0` outside), one sweep per
//! launch of `jacobi_step` (`kernels/jacobi.cu`), whose last block to finish decides whether
//! another sweep is needed (the largest change still over the tolerance). Three ways to run it,
//! side by side in interleaved rounds:
//!
//! - graph WHILE: `jacobi_init` and a `while_loop` whose body is one `jacobi_step`, captured once
//!   into a [`chevron::Graph`]; the kernel sets the loop's [`chevron::ConditionalHandle`] with
//!   `cudaGraphSetConditional`, so one replay runs the whole solve on the GPU;
//! - host loop, synchronized: launch `jacobi_step`, copy its "go on" flag back (a synchronize),
//!   test it on the host, repeat: what deciding on the host costs;
//! - host loop, fixed count: launch `jacobi_step` as many times as the solve takes (known from
//!   the host reference) with no synchronization until the end: the launch cost alone, with the
//!   answer known in advance.
//!
//! Prints time per iteration for each (median over the rounds) and the ratios; checks every
//! variant's iteration count and solution against a host reference that runs the same sweeps in
//! the same `f32` arithmetic (bit for bit equal) and the solution's residual. A mismatch exits 1.
//!
//! `cargo run --release --example conditional_jacobi`. Exit code 2 on a machine without a CUDA
//! driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::time::Instant;

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, ConditionalHandle, Graph};

/// `u0 = u1 = 0`; `state = [0, 0, 0, 1]`.
#[kernel(ptx = "kernels/jacobi.ptx")]
fn jacobi_init(
    n: u32,
    u0: &mut CudaSlice<f32>,
    u1: &mut CudaSlice<f32>,
    state: &mut CudaSlice<u32>,
);

/// One sweep; the last block decides whether to go on and, with `in_graph = 1`, sets `handle`.
#[kernel(ptx = "kernels/jacobi.ptx")]
#[allow(clippy::too_many_arguments)]
fn jacobi_step(
    handle: ConditionalHandle,
    in_graph: u32,
    n: u32,
    rhs: &CudaSlice<f32>,
    inv_diag: f32,
    tol: f32,
    max_iter: u32,
    u0: &mut CudaSlice<f32>,
    u1: &mut CudaSlice<f32>,
    state: &mut CudaSlice<u32>,
);

/// The same entry for launches outside a graph: no condition to set (`in_graph = 0`), so the
/// handle is a plain `0u64`. (A `ConditionalHandle` exists only inside a capture.)
#[kernel(ptx = "kernels/jacobi.ptx", name = "jacobi_step")]
#[allow(clippy::too_many_arguments)]
fn jacobi_step_outside_graph(
    no_handle: u64,
    in_graph: u32,
    n: u32,
    rhs: &CudaSlice<f32>,
    inv_diag: f32,
    tol: f32,
    max_iter: u32,
    u0: &mut CudaSlice<f32>,
    u1: &mut CudaSlice<f32>,
    state: &mut CudaSlice<u32>,
);

const BLOCK: u32 = 256;
/// The screening `s·h²` (2 + it is the diagonal): the sweeps converge geometrically, about
/// 1,900 of them to the tolerance whatever N.
const SCREENING: f32 = 0.01;
const TOLERANCE: f32 = 1e-7;
/// A cap, so that a loop that never converges still ends.
const MAX_ITER: u32 = 100_000;

/// `h²·b[i]`: varied, positive.
fn rhs(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| 1e-3 * (1.0 + ((i * 7) % 13) as f32 / 13.0))
        .collect()
}

/// The host reference: the same sweeps in the same order of `f32` operations. Returns the
/// iterations done and the last sweep's output.
fn host_jacobi(rhs: &[f32], inv_diag: f32) -> (u32, Vec<f32>) {
    let n = rhs.len();
    let (mut src, mut dst) = (vec![0f32; n], vec![0f32; n]);
    let mut iter = 0u32;
    loop {
        let mut change = 0f32;
        for i in 0..n {
            let left = if i > 0 { src[i - 1] } else { 0.0 };
            let right = if i + 1 < n { src[i + 1] } else { 0.0 };
            let v = (left + right + rhs[i]) * inv_diag;
            dst[i] = v;
            change = change.max((v - src[i]).abs());
        }
        iter += 1;
        std::mem::swap(&mut src, &mut dst);
        if !(change > TOLERANCE && iter < MAX_ITER) {
            return (iter, src);
        }
    }
}

/// The largest `|(2 + s)·u[i] - u[i-1] - u[i+1] - rhs[i]|`, relative to the largest `rhs`.
fn residual(u: &[f32], rhs: &[f32]) -> f64 {
    let n = u.len();
    let diag = 2.0 + f64::from(SCREENING);
    let mut worst = 0f64;
    for i in 0..n {
        let left = if i > 0 { f64::from(u[i - 1]) } else { 0.0 };
        let right = if i + 1 < n { f64::from(u[i + 1]) } else { 0.0 };
        let r = diag * f64::from(u[i]) - left - right - f64::from(rhs[i]);
        worst = worst.max(r.abs());
    }
    worst / rhs.iter().fold(0f32, |m, &v| m.max(v)) as f64
}

/// The solution a run left: after `iters` sweeps, in `u1` when the last sweep was even.
fn solution<'b>(iters: u32, u0: &'b [f32], u1: &'b [f32]) -> &'b [f32] {
    if (iters - 1).is_multiple_of(2) {
        u1
    } else {
        u0
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn run() -> Result<(), Box<dyn Error>> {
    let ctx = chevron::context(0)?;
    common::announce_quick();
    let stream = ctx.new_stream()?;
    let n: u32 = common::size(1 << 16, 4096);
    let rounds: usize = common::size(11, 2);
    let blocks = n.div_ceil(BLOCK);
    let inv_diag = 1.0f32 / (2.0 + SCREENING);
    let rhs_host = rhs(n as usize);
    let (iters, want) = host_jacobi(&rhs_host, inv_diag);
    let res = residual(&want, &rhs_host);
    println!(
        "Jacobi, screened Poisson: n = {n}, grid {blocks} × block {BLOCK}, tolerance {TOLERANCE:e}"
    );
    println!("host reference: {iters} sweeps, relative residual {res:.2e}");
    if iters >= MAX_ITER || res > 1e-3 {
        return Err(
            format!("the host reference did not converge ({iters} sweeps, {res:e})").into(),
        );
    }

    let rhs = stream.clone_htod(&rhs_host)?;
    let nan = vec![f32::NAN; n as usize];
    let (mut g_u0, mut g_u1) = (stream.clone_htod(&nan)?, stream.clone_htod(&nan)?);
    let mut g_state = stream.clone_htod(&[u32::MAX; 4])?;
    let (mut h_u0, mut h_u1) = (stream.clone_htod(&nan)?, stream.clone_htod(&nan)?);
    let mut h_state = stream.clone_htod(&[u32::MAX; 4])?;

    let (mut graph, ()) = Graph::capture(&stream, |capture| {
        let s = capture.stream();
        unsafe {
            launch!(jacobi_init<<<blocks, BLOCK, s>>>(n, &mut g_u0, &mut g_u1, &mut g_state))
        }?;
        // 1: the first sweep always runs; then the kernel decides.
        let go_on = capture.condition(1)?;
        capture.while_loop(&go_on, |body| unsafe {
            launch!(jacobi_step<<<blocks, BLOCK, body.stream()>>>(
                go_on, 1, n, &rhs, inv_diag, TOLERANCE, MAX_ITER, &mut g_u0, &mut g_u1, &mut g_state
            ))
        })
    })?;
    graph.upload(&stream)?;

    let mut flag = [0u32; 1];
    let mut times: [Vec<f64>; 3] = Default::default();
    let mut host_iters = Vec::new();
    // Round 0 warms up (modules, the graph's first launch) and is not timed.
    for round in 0..=rounds {
        // Graph WHILE: one replay, the whole solve.
        let t = Instant::now();
        graph.replay(&stream)?;
        graph.synchronize()?;
        let graph_s = t.elapsed().as_secs_f64();

        // Host loop, synchronized: the flag comes back after every sweep.
        let t = Instant::now();
        unsafe {
            launch!(jacobi_init<<<blocks, BLOCK, &stream>>>(n, &mut h_u0, &mut h_u1, &mut h_state))
        }?;
        let mut done = 0u32;
        loop {
            unsafe {
                launch!(jacobi_step_outside_graph<<<blocks, BLOCK, &stream>>>(
                    0, 0, n, &rhs, inv_diag, TOLERANCE, MAX_ITER, &mut h_u0, &mut h_u1, &mut h_state
                ))
            }?;
            done += 1;
            stream.memcpy_dtoh(&h_state.slice(3..4), &mut flag)?;
            stream.synchronize()?;
            if flag[0] == 0 {
                break;
            }
            if done > MAX_ITER {
                return Err("the synchronized host loop did not stop".into());
            }
        }
        let synced_s = t.elapsed().as_secs_f64();
        host_iters.push(done);

        // Host loop, fixed count: as many sweeps, one synchronize at the end.
        let t = Instant::now();
        unsafe {
            launch!(jacobi_init<<<blocks, BLOCK, &stream>>>(n, &mut h_u0, &mut h_u1, &mut h_state))
        }?;
        for _ in 0..iters {
            unsafe {
                launch!(jacobi_step_outside_graph<<<blocks, BLOCK, &stream>>>(
                    0, 0, n, &rhs, inv_diag, TOLERANCE, MAX_ITER, &mut h_u0, &mut h_u1, &mut h_state
                ))
            }?;
        }
        stream.synchronize()?;
        let fixed_s = t.elapsed().as_secs_f64();

        if round > 0 {
            for (v, s) in times.iter_mut().zip([graph_s, synced_s, fixed_s]) {
                v.push(s / f64::from(iters) * 1e6);
            }
        }
    }
    drop(graph); // waits for the last replay; the graph's buffers are readable again

    // Every variant against the host reference, bit for bit.
    let check = |what: &str, state: &[u32], u0: &[f32], u1: &[f32]| -> Result<(), String> {
        if state[0] != iters || state[3] != 0 {
            return Err(format!(
                "{what}: {} sweeps (go on = {}), the host reference {iters}",
                state[0], state[3]
            ));
        }
        let got = solution(iters, u0, u1);
        let worst = got
            .iter()
            .zip(&want)
            .map(|(g, w)| (g - w).abs())
            .fold(
                0f32,
                |m, d| if d.is_nan() { f32::INFINITY } else { m.max(d) },
            );
        if worst != 0.0 {
            return Err(format!("{what}: max |u - u_host| = {worst:e}, want 0"));
        }
        println!("checked: {what}: {iters} sweeps, u equals the host's bit for bit");
        Ok(())
    };
    check(
        "graph WHILE",
        &stream.clone_dtoh(&g_state)?,
        &stream.clone_dtoh(&g_u0)?,
        &stream.clone_dtoh(&g_u1)?,
    )?;
    // The fixed-count loop ran last on the host buffers.
    check(
        "host loop, fixed count",
        &stream.clone_dtoh(&h_state)?,
        &stream.clone_dtoh(&h_u0)?,
        &stream.clone_dtoh(&h_u1)?,
    )?;
    if let Some(bad) = host_iters.iter().find(|&&d| d != iters) {
        return Err(
            format!("host loop, synchronized: stopped after {bad} sweeps, want {iters}").into(),
        );
    }
    println!("checked: host loop, synchronized: stopped after {iters} sweeps in every round");

    let [mut graph_t, mut synced_t, mut fixed_t] = times;
    let (g, s, f) = (
        median(&mut graph_t),
        median(&mut synced_t),
        median(&mut fixed_t),
    );
    println!();
    println!("time per iteration, median of {rounds} rounds ({iters} iterations each):");
    println!("| variant | µs per iteration | ratio to the synchronized host loop | ratio to the fixed-count host loop |");
    println!("|---|---|---|---|");
    println!(
        "| graph WHILE (decided on the GPU) | {g:.2} | **{:.3}×** | {:.3}× |",
        g / s,
        g / f
    );
    println!(
        "| host loop, launch + synchronize + test | {s:.2} | 1.000× | {:.3}× |",
        s / f
    );
    println!(
        "| host loop, fixed count, no synchronize | {f:.2} | {:.3}× | 1.000× |",
        f / s
    );
    Ok(())
}

fn main() -> ExitCode {
    common::exit_code(run())
}
