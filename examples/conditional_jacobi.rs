//! Iterate until converged with no host round trip per iteration: Jacobi relaxation of the
//! screened Poisson equation `-u'' + s·u = b` on N points (`u = 0` outside), one sweep per
//! kernel launch (`kernels/jacobi.cu`). Every variant tests every sweep: it goes on while the
//! sweep's largest change is over the tolerance, and stops after exactly the sweeps the host
//! reference does. Run side by side in interleaved rounds:
//!
//! - graph WHILE, one sweep per body: `jacobi_init` and a `while_loop` whose body is one
//!   `jacobi_step`, whose last block to finish (one 64-bit atomic per block: no fence) sets the
//!   loop's [`chevron::ConditionalHandle`] with `cudaGraphSetConditional`;
//! - graph WHILE, K sweeps per body: the body is K launches of `jacobi_sweep` (alternating
//!   direction), each of which first tests the sweep before it (the largest change the blocks
//!   of that sweep left with a fire-and-forget `atomicMax`) and does nothing once the solve is
//!   over; the first launch that finds the solve over sets the condition to 0. No block waits
//!   for another, and the node's per-iteration cost is shared by K sweeps; the up to K launches
//!   that return at once after the last sweep are in its time;
//! - graph, unrolled: the same sweeps captured one after another (as many as the solve takes,
//!   known from the host reference), no conditional node: what a sweep costs in a graph by
//!   itself, the floor under the WHILE rows;
//! - host loop, synchronized: launch `jacobi_sweep`, copy its largest change back, synchronize,
//!   test on the host, repeat: what deciding on the host costs, with a pageable copy
//!   (`memcpy_dtoh`) and with a raw `cuMemcpyDtoHAsync` into pinned memory;
//! - host loop, K self-stopping sweeps per synchronize: K launches of `jacobi_sweep` (which stop
//!   themselves, as in the graph) between two read-backs of whether the solve is over;
//! - host loop, fixed count: launch `jacobi_sweep` as many times as the solve takes with no
//!   synchronization until the end: the launch cost alone, with the answer known in advance.
//!
//! Prints time per sweep for each (median over the rounds) and the ratios to the faster of the
//! two synchronized host loops and to the fixed-count one; checks every variant's sweep count
//! and solution against a host reference that runs the same sweeps in the same `f32`
//! arithmetic (bit for bit equal) and the solution's residual. A mismatch exits 1.
//!
//! `cargo run --release --example conditional_jacobi`. Exit code 2 on a machine without a CUDA
//! driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::time::Instant;

use chevron::cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use chevron::{kernel, launch, sys, ConditionalHandle, Graph};

/// `u0 = u1 = 0`; `state = [0, 1, 0, 0]`.
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

/// `u0 = u1 = 0`; `state = [sweep 0 changed by +inf, nothing, running]`.
#[kernel(ptx = "kernels/jacobi.ptx")]
fn jacobi_sweep_init(
    n: u32,
    u0: &mut CudaSlice<f32>,
    u1: &mut CudaSlice<f32>,
    state: &mut CudaSlice<u64>,
);

/// One sweep of parity `parity` from `src` to `dst`, once the sweep before needs a successor.
#[kernel(ptx = "kernels/jacobi.ptx")]
#[allow(clippy::too_many_arguments)]
fn jacobi_sweep(
    handle: ConditionalHandle,
    in_graph: u32,
    parity: u32,
    n: u32,
    rhs: &CudaSlice<f32>,
    inv_diag: f32,
    tol: f32,
    max_iter: u32,
    src: &CudaSlice<f32>,
    dst: &mut CudaSlice<f32>,
    state: &mut CudaSlice<u64>,
);

/// The same entry for launches outside a graph: no condition to set (`in_graph = 0`), so the
/// handle is a plain `0u64`. (A `ConditionalHandle` exists only inside a capture.)
#[kernel(ptx = "kernels/jacobi.ptx", name = "jacobi_sweep")]
#[allow(clippy::too_many_arguments)]
fn jacobi_sweep_outside_graph(
    no_handle: u64,
    in_graph: u32,
    parity: u32,
    n: u32,
    rhs: &CudaSlice<f32>,
    inv_diag: f32,
    tol: f32,
    max_iter: u32,
    src: &CudaSlice<f32>,
    dst: &mut CudaSlice<f32>,
    state: &mut CudaSlice<u64>,
);

const BLOCK: u32 = 256;
/// The screening `s·h²` (2 + it is the diagonal): the sweeps converge geometrically, about
/// 1,900 of them to the tolerance whatever N.
const SCREENING: f32 = 0.01;
const TOLERANCE: f32 = 1e-7;
/// A cap, so that a loop that never converges still ends.
const MAX_ITER: u32 = 100_000;
/// Sweeps per body of the K-sweep WHILE loop (even: the body alternates the two directions)
/// and per synchronize of the self-stopping host loop.
const K: u32 = 4;
/// `state[2]` of `jacobi_sweep` once the solve is over: this bit, or-ed with the sweeps done.
const STOPPED: u64 = 1 << 32;

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
        if !go_on(change, iter) {
            return (iter, src);
        }
    }
}

/// Whether another sweep follows sweep `done` whose largest change was `change`: the test
/// every variant makes, on the host or the GPU.
fn go_on(change: f32, done: u32) -> bool {
    change > TOLERANCE && done < MAX_ITER
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

/// The solution a run left: after `iters` sweeps, in `u1` when the last sweep was odd.
fn solution<'b>(iters: u32, u0: &'b [f32], u1: &'b [f32]) -> &'b [f32] {
    if iters % 2 == 1 {
        u1
    } else {
        u0
    }
}

/// A `jacobi_sweep` slot's sweep and largest change.
fn slot(word: u64) -> (u32, f32) {
    ((word >> 32) as u32, f32::from_bits(word as u32))
}

/// The buffers of one variant, poisoned: NaN solution, all-ones state.
struct Buffers<S> {
    u0: CudaSlice<f32>,
    u1: CudaSlice<f32>,
    state: CudaSlice<S>,
}

fn buffers<S: chevron::cudarc::driver::DeviceRepr + Copy>(
    stream: &std::sync::Arc<CudaStream>,
    n: u32,
    poison: S,
    words: usize,
) -> Result<Buffers<S>, Box<dyn Error>> {
    let nan = vec![f32::NAN; n as usize];
    Ok(Buffers {
        u0: stream.clone_htod(&nan)?,
        u1: stream.clone_htod(&nan)?,
        state: stream.clone_htod(&vec![poison; words])?,
    })
}

// The row names say 4; the body alternates the two directions, so K is even.
const _: () = assert!(K == 4);

/// The variants, in the order they run and print.
const ROWS: [&str; VARIANTS] = [
    "graph WHILE, 1 sweep per body (`jacobi_step`: the last block decides)",
    "graph WHILE, 4 sweeps per body (`jacobi_sweep`: each tests the one before)",
    "graph, the sweeps unrolled (no conditional node; count known)",
    "host loop, launch + copy back + synchronize + test (pageable copy)",
    "host loop, launch + copy back + synchronize + test (pinned, raw cuMemcpyDtoHAsync)",
    "host loop, 4 self-stopping sweeps per synchronize (pinned)",
    "host loop, fixed count, no synchronize (count known)",
];
const GRAPH_STEP: usize = 0;
const GRAPH_SWEEP: usize = 1;
const GRAPH_UNROLLED: usize = 2;
const SYNCED_PAGEABLE: usize = 3;
const SYNCED_PINNED: usize = 4;
const SELF_STOPPING: usize = 5;
const FIXED: usize = 6;
const VARIANTS: usize = 7;

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
    let mut g_step = buffers(&stream, n, u32::MAX, 4)?;
    let mut g_sweep = buffers(&stream, n, u64::MAX, 3)?;
    let mut g_unrolled = buffers(&stream, n, u64::MAX, 3)?;
    let mut h = [
        buffers(&stream, n, u64::MAX, 3)?,
        buffers(&stream, n, u64::MAX, 3)?,
        buffers(&stream, n, u64::MAX, 3)?,
        buffers(&stream, n, u64::MAX, 3)?,
    ];

    let (mut step_graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            let s = capture.stream();
            let b = &mut g_step;
            launch!(jacobi_init<<<blocks, BLOCK, s>>>(n, &mut b.u0, &mut b.u1, &mut b.state))?;
            // 1: the first sweep always runs; then the kernel decides.
            let go = capture.condition(1)?;
            capture.while_loop(&go, |body| launch!(jacobi_step<<<blocks, BLOCK, body.stream()>>>(
                go, 1, n, &rhs, inv_diag, TOLERANCE, MAX_ITER, &mut b.u0, &mut b.u1, &mut b.state
            )))
        })
    }?;
    let (mut sweep_graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            let s = capture.stream();
            let b = &mut g_sweep;
            launch!(jacobi_sweep_init<<<blocks, BLOCK, s>>>(n, &mut b.u0, &mut b.u1, &mut b.state))?;
            // 1 at the start of every replay: only the launch that finds the solve over sets it.
            let go = capture.condition(1)?;
            capture.while_loop(&go, |body| {
                let s = body.stream();
                // Sweep t of the body's k-th launch is odd for even k (K is even): u0 to u1.
                for k in 0..K {
                    if k % 2 == 0 {
                        launch!(jacobi_sweep<<<blocks, BLOCK, s>>>(
                            go, 1, 1, n, &rhs, inv_diag, TOLERANCE, MAX_ITER,
                            &b.u0, &mut b.u1, &mut b.state
                        ))
                    } else {
                        launch!(jacobi_sweep<<<blocks, BLOCK, s>>>(
                            go, 1, 0, n, &rhs, inv_diag, TOLERANCE, MAX_ITER,
                            &b.u1, &mut b.u0, &mut b.state
                        ))
                    }?;
                }
                Ok(())
            })
        })
    }?;
    let (mut unrolled_graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            let s = capture.stream();
            let b = &mut g_unrolled;
            launch!(jacobi_sweep_init<<<blocks, BLOCK, s>>>(n, &mut b.u0, &mut b.u1, &mut b.state))?;
            for t in 1..=iters {
                sweep_on(s, t, n, &rhs, inv_diag, b)?;
            }
            Ok(())
        })
    }?;
    step_graph.upload(&stream)?;
    sweep_graph.upload(&stream)?;
    unrolled_graph.upload(&stream)?;

    // The pinned read-back: 8 bytes, not write-combined (the host reads it).
    let mut pinned = unsafe { ctx.alloc_pinned_with_flags::<u64>(1, 0) }?;
    let pinned_ptr = pinned.as_mut_ptr()?;
    let state_ptrs: Vec<sys::CUdeviceptr> = h
        .iter()
        .map(|b| {
            let (p, _record) = b.state.device_ptr(&stream);
            p
        })
        .collect();
    // `word` of variant `v`'s state into the pinned word, then synchronize and read it.
    let read_pinned = |v: usize, word: u64| -> Result<u64, Box<dyn Error>> {
        // SAFETY: the pinned word and the state's 3 words are live; the copy is on `stream`,
        // after the sweeps that wrote the word, and waited for before the read.
        let rc = unsafe {
            sys::cuMemcpyDtoHAsync_v2(
                pinned_ptr.cast(),
                state_ptrs[v] + 8 * word,
                8,
                stream.cu_stream(),
            )
        };
        if rc != sys::cudaError_enum::CUDA_SUCCESS {
            return Err(format!("cuMemcpyDtoHAsync: {rc:?}").into());
        }
        stream.synchronize()?;
        // SAFETY: the copy is done; nothing else writes the word.
        Ok(unsafe { pinned_ptr.read_volatile() })
    };

    let mut times: [Vec<f64>; VARIANTS] = Default::default();
    let mut seen: [Vec<u32>; VARIANTS] = Default::default();
    // Round 0 warms up (modules, the graphs' first launches) and is not timed.
    for round in 0..=rounds {
        let mut t_round = [0f64; VARIANTS];

        for (v, graph) in [
            (GRAPH_STEP, &mut step_graph),
            (GRAPH_SWEEP, &mut sweep_graph),
            (GRAPH_UNROLLED, &mut unrolled_graph),
        ] {
            let t = Instant::now();
            graph.replay(&stream)?;
            graph.synchronize()?;
            t_round[v] = t.elapsed().as_secs_f64();
        }

        // Synchronized, pageable copy: the sweep's slot comes back after every sweep.
        let t = Instant::now();
        {
            let b = &mut h[0];
            init(&stream, n, blocks, b)?;
            let mut done = 0u32;
            loop {
                done += 1;
                sweep_on(&stream, done, n, &rhs, inv_diag, b)?;
                let mut word = [0u64; 1];
                let p = (done % 2) as usize;
                stream.memcpy_dtoh(&b.state.slice(p..p + 1), &mut word)?;
                stream.synchronize()?;
                let (tag, change) = slot(word[0]);
                if tag != done {
                    return Err(format!("pageable host loop: sweep {done} left tag {tag}").into());
                }
                if !go_on(change, done) {
                    break;
                }
            }
            seen[SYNCED_PAGEABLE].push(done);
        }
        t_round[SYNCED_PAGEABLE] = t.elapsed().as_secs_f64();

        // Synchronized, pinned copy.
        let t = Instant::now();
        {
            init(&stream, n, blocks, &mut h[1])?;
            let mut done = 0u32;
            loop {
                done += 1;
                sweep_on(&stream, done, n, &rhs, inv_diag, &mut h[1])?;
                let (tag, change) = slot(read_pinned(1, u64::from(done % 2))?);
                if tag != done {
                    return Err(format!("pinned host loop: sweep {done} left tag {tag}").into());
                }
                if !go_on(change, done) {
                    break;
                }
            }
            seen[SYNCED_PINNED].push(done);
        }
        t_round[SYNCED_PINNED] = t.elapsed().as_secs_f64();

        // K self-stopping sweeps per synchronize: the kernels test, the host reads whether
        // they found the end.
        let t = Instant::now();
        {
            init(&stream, n, blocks, &mut h[2])?;
            let mut launched = 0u32;
            loop {
                for _ in 0..K {
                    launched += 1;
                    sweep_on(&stream, launched, n, &rhs, inv_diag, &mut h[2])?;
                }
                let stop = read_pinned(2, 2)?;
                if stop != 0 {
                    seen[SELF_STOPPING].push(stop as u32);
                    break;
                }
                if launched > MAX_ITER + K {
                    return Err("the self-stopping host loop did not stop".into());
                }
            }
        }
        t_round[SELF_STOPPING] = t.elapsed().as_secs_f64();

        // Fixed count: as many sweeps, one synchronize at the end.
        let t = Instant::now();
        init(&stream, n, blocks, &mut h[3])?;
        for done in 1..=iters {
            sweep_on(&stream, done, n, &rhs, inv_diag, &mut h[3])?;
        }
        stream.synchronize()?;
        t_round[FIXED] = t.elapsed().as_secs_f64();

        if round > 0 {
            for (v, s) in times.iter_mut().zip(t_round) {
                v.push(s / f64::from(iters) * 1e6);
            }
        }
    }
    // Dropping a graph waits for its last replay; its buffers are readable again.
    drop(step_graph);
    drop(sweep_graph);
    drop(unrolled_graph);

    // Every variant against the host reference: the sweeps, and the solution bit for bit.
    let check = |what: &str, u0: &[f32], u1: &[f32]| -> Result<(), String> {
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
    let state = stream.clone_dtoh(&g_step.state)?;
    if state[0] != iters || state[1] != 0 || state[2] != 0 || state[3] != 0 {
        return Err(format!(
            "{}: state {state:?}, want [{iters}, 0, 0, 0]",
            ROWS[GRAPH_STEP]
        )
        .into());
    }
    check(
        ROWS[GRAPH_STEP],
        &stream.clone_dtoh(&g_step.u0)?,
        &stream.clone_dtoh(&g_step.u1)?,
    )?;
    let sweep_state = |what: &str, state: &[u64], stop: u64| -> Result<(), String> {
        let (tag, change) = slot(state[(iters % 2) as usize]);
        if tag != iters || go_on(change, tag) || state[2] != stop {
            return Err(format!(
                "{what}: last slot sweep {tag} change {change:e}, state[2] = {:#x}; want sweep \
                 {iters}, a change within the tolerance, state[2] = {stop:#x}",
                state[2]
            ));
        }
        Ok(())
    };
    sweep_state(
        ROWS[GRAPH_SWEEP],
        &stream.clone_dtoh(&g_sweep.state)?,
        STOPPED | u64::from(iters),
    )?;
    check(
        ROWS[GRAPH_SWEEP],
        &stream.clone_dtoh(&g_sweep.u0)?,
        &stream.clone_dtoh(&g_sweep.u1)?,
    )?;
    sweep_state(
        ROWS[GRAPH_UNROLLED],
        &stream.clone_dtoh(&g_unrolled.state)?,
        0,
    )?;
    check(
        ROWS[GRAPH_UNROLLED],
        &stream.clone_dtoh(&g_unrolled.u0)?,
        &stream.clone_dtoh(&g_unrolled.u1)?,
    )?;
    for (k, v) in [SYNCED_PAGEABLE, SYNCED_PINNED, SELF_STOPPING, FIXED]
        .into_iter()
        .enumerate()
    {
        if let Some(bad) = seen[v].iter().find(|&&d| d != iters) {
            return Err(format!("{}: stopped after {bad} sweeps, want {iters}", ROWS[v]).into());
        }
        let stop = if v == SELF_STOPPING {
            STOPPED | u64::from(iters)
        } else {
            0
        };
        sweep_state(ROWS[v], &stream.clone_dtoh(&h[k].state)?, stop)?;
        check(
            ROWS[v],
            &stream.clone_dtoh(&h[k].u0)?,
            &stream.clone_dtoh(&h[k].u1)?,
        )?;
    }

    let m: Vec<f64> = times.iter_mut().map(|v| common::median(v)).collect();
    let synced = m[SYNCED_PAGEABLE].min(m[SYNCED_PINNED]);
    let fixed = m[FIXED];
    println!();
    println!(
        "time per sweep, median of {rounds} rounds ({iters} sweeps each; every variant tests every \
         sweep and stops after the same one)."
    );
    println!(
        "ratios: to the faster synchronized host loop ({synced:.2} µs, one test on the host per \
         sweep) and to the fixed-count host loop ({fixed:.2} µs)."
    );
    println!(
        "the {K}-sweep rows launch {K} sweeps per WHILE iteration / per synchronize; after the \
         last sweep up to {K} launches return at once, counted in their time."
    );
    println!("| variant | µs per sweep | ratio to the synchronized host loop | ratio to the fixed-count host loop |");
    println!("|---|---|---|---|");
    for (v, row) in ROWS.iter().enumerate() {
        println!(
            "| {row} | {:.2} | {:.3}× | {:.3}× |",
            m[v],
            m[v] / synced,
            m[v] / fixed
        );
    }
    for v in [GRAPH_STEP, GRAPH_SWEEP] {
        let ratio = m[v] / synced;
        println!(
            "target ≤ 0.25× the synchronized host loop: {} ({ratio:.3}×, {})",
            if ratio <= 0.25 { "met" } else { "NOT met" },
            ROWS[v]
        );
    }
    Ok(())
}

/// `jacobi_sweep_init` on a host loop's buffers.
fn init(
    stream: &std::sync::Arc<CudaStream>,
    n: u32,
    blocks: u32,
    b: &mut Buffers<u64>,
) -> Result<(), chevron::Error> {
    unsafe {
        launch!(jacobi_sweep_init<<<blocks, BLOCK, stream>>>(n, &mut b.u0, &mut b.u1, &mut b.state))
    }
}

/// Sweep `t` (from 1) on `stream`, outside a graph or captured: u0 to u1 when `t` is odd.
fn sweep_on(
    stream: &std::sync::Arc<CudaStream>,
    t: u32,
    n: u32,
    rhs: &CudaSlice<f32>,
    inv_diag: f32,
    b: &mut Buffers<u64>,
) -> Result<(), chevron::Error> {
    let blocks = n.div_ceil(BLOCK);
    let parity = t % 2;
    let (src, dst) = if parity == 1 {
        (&b.u0, &mut b.u1)
    } else {
        (&b.u1, &mut b.u0)
    };
    unsafe {
        launch!(jacobi_sweep_outside_graph<<<blocks, BLOCK, stream>>>(
            0, 0, parity, n, rhs, inv_diag, TOLERANCE, MAX_ITER, src, dst, &mut b.state
        ))
    }
}

fn main() -> ExitCode {
    common::exit_code(run())
}
