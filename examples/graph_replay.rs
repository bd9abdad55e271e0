//! Graph replay against launching: a chain of N dependent tiny kernels (`y = y·a + b`, N = 1, 8,
//! 64, 512) run thirteen ways in interleaved rounds, each round timing every variant once in an
//! order shuffled anew (so no variant always runs after the same one):
//!
//! - raw: `cuLaunchKernelEx` through `chevron::cudarc::driver::sys`, same kernel and arguments
//!   (the driver's floor: no event tracking, no attributes);
//! - direct: chevron's typed `launch!`, one launch per kernel;
//! - direct, PDL: the same with `chain_pdl` (the same math, after `griddepcontrol.wait`) and
//!   `programmatic_serialization`, so each kernel may launch while the previous one runs;
//! - replay: the chain captured once into a [`chevron::Graph`], replayed;
//! - replay, PDL edges: the `chain_pdl` chain captured with `programmatic_serialization`, whose
//!   dependencies become programmatic edges in the graph (checked: N − 1 of them), replayed;
//! - replay, empty kernels: a chain of N kernels that do nothing (`empty`, one block of 32
//!   threads) captured and replayed: what the graph costs per node by itself, the floor under
//!   the two replays above (nothing to check: it writes nothing);
//! - update + replay: every node's arguments changed through the typed `chain::kernel().update` (new
//!   `a` and `b`, and the buffer: rounds alternate between two), then replayed;
//! - update, ordered + replay: the same through `chain::kernel().update_ordered`, given an `Ordered` of
//!   each buffer (`graph.ordered(&mut y)`, made once before the rounds, as the raw update floor
//!   takes its pointers once: the buffer's cross-stream waits once, not per update; the same
//!   ordering as `update`);
//! - update, ordered (batch): the same inside one `Graph::updates` batch per round (updates and
//!   replay), which checks the graph's context once instead of at every call;
//! - update_scalars + replay: every node's `a` and `b` changed through `chain::kernel().update_scalars`,
//!   which keeps the captured buffer, then replayed;
//! - update_scalars (batch): the same inside one `Graph::updates` batch per round;
//! - raw update, context check + replay: the raw update below with a `cuCtxGetCurrent` (and a
//!   compare) before each `cuGraphExecKernelNodeSetParams`: the floor of the typed updates,
//!   which check the context at every call (without it the driver may crash, not fail);
//! - raw update + replay: the update floor, `cuGraphExecKernelNodeSetParams` and `cuGraphLaunch`
//!   through `sys` on the same kind of graph and arguments (alternating buffers, no event
//!   tracking).
//!
//! Prints, per N, host ns per kernel (the enqueueing calls) and launch-to-done ns per kernel
//! (first call to the stream being idle), as ratios to direct launches and to raw; then the
//! update paths' host time over the raw update's (medians of ratios paired within a round),
//! against the targets (`update_scalars` ≤ 1.1×,
//! `update_ordered` ≤ 1.2×), per call and in batches. Every buffer is checked against the same
//! chain computed on the host; a mismatch exits 1.
//!
//! `cargo run --release --example graph_replay`. Exit code 2 on a machine without a CUDA driver
//! (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::time::Instant;

use chevron::cudarc::driver::{CudaSlice, CudaStream, DevicePtrMut};
use chevron::{config, kernel, launch, sys, Graph, GraphNode, LaunchConfig};

/// y = y·a + b
#[kernel(ptx = "kernels/chain.ptx")]
fn chain(n: u32, a: f32, b: f32, y: &mut CudaSlice<f32>);

/// y = y·a + b after `griddepcontrol.wait`, for programmatic dependent launch
#[kernel(ptx = "kernels/chain.ptx")]
fn chain_pdl(n: u32, a: f32, b: f32, y: &mut CudaSlice<f32>);

/// Nothing: the per-node floor.
#[kernel(ptx = "kernels/chain.ptx")]
fn empty();

const LEN: u32 = 256;
const CHAINS: &[usize] = &[1, 8, 64, 512];
/// Kernel launches per variant and chain length: enough rounds for a stable median, few enough
/// that the whole run stays within seconds.
const LAUNCHES_PER_VARIANT: usize = 16_384;
const MIN_ROUNDS: usize = 101;
/// The same under `CHEVRON_QUICK`: still at least 2 timed rounds, so that the update rounds use
/// both buffers.
const QUICK_CHAINS: &[usize] = &[1, 8, 64];
const QUICK_LAUNCHES_PER_VARIANT: usize = 64;
const QUICK_MIN_ROUNDS: usize = 2;
/// The variants, in print order (each round runs them in a shuffled order).
const VARIANTS: [&str; 13] = [
    "raw",
    "direct",
    "direct, PDL",
    "replay",
    "replay, PDL edges",
    "replay, empty kernels",
    "update + replay",
    "update, ordered + replay",
    "update, ordered (batch)",
    "update_scalars + replay",
    "update_scalars (batch)",
    "raw update, ctx check",
    "raw update + replay",
];

/// The arguments of kernel `k` of the chain in round `round`: `a` a power of two (so the GPU's
/// fused multiply-add and the host's agree exactly), `b` varying with both.
fn args(k: usize, round: usize) -> (f32, f32) {
    let a = if (k + round).is_multiple_of(2) {
        0.5
    } else {
        0.25
    };
    let b = 1.0 + ((k * 7 + round * 3) % 16) as f32 * 0.125;
    (a, b)
}

fn host_chain(y: &mut [f32], n: usize, round: impl Fn(usize) -> (f32, f32)) {
    for k in 0..n {
        let (a, b) = round(k);
        for v in y.iter_mut() {
            *v = v.mul_add(a, b);
        }
    }
}

fn initial() -> Vec<f32> {
    // Non-zero and different everywhere, so a kernel that wrote a constant could not match.
    (0..LEN).map(|i| 1.0 + i as f32 * 0.001).collect()
}

/// Runs `enqueue` (host time) then waits for the stream (launch-to-done); ns per kernel.
fn time(
    stream: &CudaStream,
    n: usize,
    enqueue: impl FnOnce() -> Result<(), Box<dyn Error>>,
) -> Result<(f64, f64), Box<dyn Error>> {
    stream.synchronize()?;
    let t = Instant::now();
    enqueue()?;
    let host = t.elapsed().as_secs_f64();
    stream.synchronize()?;
    let done = t.elapsed().as_secs_f64();
    Ok((host * 1e9 / n as f64, done * 1e9 / n as f64))
}

/// The raw update floor, one round: `cuGraphExecKernelNodeSetParams` on every node with the
/// round's `a`, `b` and buffer `y`, then `cuGraphLaunch` on `stream`. With `ctx`, each update is
/// preceded by a `cuCtxGetCurrent` and a compare with it: the floor of the typed updates, which
/// check the context at every call.
///
/// # Safety
/// `nodes` are `chain` nodes of `exec`, a live executable graph of `stream`'s context; `y` is a
/// buffer of `LEN` floats that stays alive and untouched by the host while the graph may run.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn raw_update_round(
    exec: sys::CUgraphExec,
    nodes: &[GraphNode],
    template: sys::CUDA_KERNEL_NODE_PARAMS,
    len: u32,
    y: u64,
    round: usize,
    stream: sys::CUstream,
    ctx: Option<sys::CUcontext>,
) -> Result<(), Box<dyn Error>> {
    for (k, node) in nodes.iter().enumerate() {
        let (a, b) = args(k, round);
        let mut params = [
            &len as *const u32 as *mut _,
            &a as *const f32 as *mut _,
            &b as *const f32 as *mut _,
            &y as *const u64 as *mut _,
        ];
        let mut p = template;
        p.kernelParams = params.as_mut_ptr();
        if let Some(want) = ctx {
            let mut current = std::ptr::null_mut();
            // SAFETY: an out-pointer to a local.
            let rc = unsafe { sys::cuCtxGetCurrent(&mut current) };
            if rc != sys::cudaError_enum::CUDA_SUCCESS || current != want {
                return Err(format!("cuCtxGetCurrent: {rc:?}, {current:?}").into());
            }
        }
        // SAFETY: the node is `chain`'s in `exec` (the caller's promise); the parameters match
        // it and the driver copies them.
        let rc = unsafe { sys::cuGraphExecKernelNodeSetParams_v2(exec, node.raw(), &p) };
        if rc != sys::cudaError_enum::CUDA_SUCCESS {
            return Err(format!("cuGraphExecKernelNodeSetParams: {rc:?}").into());
        }
    }
    // SAFETY: `exec` is live and of the stream's context (the caller's promise).
    let rc = unsafe { sys::cuGraphLaunch(exec, stream) };
    if rc != sys::cudaError_enum::CUDA_SUCCESS {
        return Err(format!("cuGraphLaunch: {rc:?}").into());
    }
    Ok(())
}

fn check(name: &str, n: usize, got: &[f32], want: &[f32]) -> Result<(), Box<dyn Error>> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if (g - w).abs() > 1e-6 * w.abs().max(1.0) {
            return Err(format!("{name}, N = {n}: y[{i}] = {g}, the host says {w}").into());
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    common::exit_code(run())
}

fn run() -> Result<(), Box<dyn Error>> {
    let ctx = chevron::context(0)?; // Error::NoDriver on a machine without a CUDA driver
    let stream = ctx.new_stream()?;
    common::announce_quick();
    let chains = common::size(CHAINS, QUICK_CHAINS);
    let launches_per_variant = common::size(LAUNCHES_PER_VARIANT, QUICK_LAUNCHES_PER_VARIANT);
    let min_rounds = common::size(MIN_ROUNDS, QUICK_MIN_ROUNDS);
    println!("device 0: {}", ctx.name()?);
    let cfg = LaunchConfig::new(1, LEN);
    // The first kernel of a round follows a synchronized stream, so the flag on it changes
    // nothing; one config serves every launch, as `cfg` does for direct.
    let cfg_pdl = config!(<<<1, LEN, programmatic_serialization>>>);
    let f = chain::kernel().function(&ctx)?;
    println!(
        "{:>4}  {:<24} {:>12} {:>12}  {:>9} {:>9}  {:>9} {:>9}",
        "N", "variant", "host ns/k", "done ns/k", "host/dir", "done/dir", "host/raw", "done/raw"
    );
    for &n in chains {
        let rounds = (launches_per_variant / n).max(min_rounds);
        let mut y_raw = stream.clone_htod(&initial())?;
        let mut y_direct = stream.clone_htod(&initial())?;
        let mut y_direct_pdl = stream.clone_htod(&initial())?;
        let mut y_replay = stream.clone_htod(&initial())?;
        let mut y_replay_pdl = stream.clone_htod(&initial())?;
        // The update graph is captured on y_capture (never run: every round updates every node)
        // and its rounds alternate between two buffers.
        let mut y_capture = stream.clone_htod(&initial())?;
        let mut y_update = [
            stream.clone_htod(&initial())?,
            stream.clone_htod(&initial())?,
        ];
        let mut y_capture_ordered = stream.clone_htod(&initial())?;
        let mut y_ordered = [
            stream.clone_htod(&initial())?,
            stream.clone_htod(&initial())?,
        ];
        let mut y_capture_ordered_batch = stream.clone_htod(&initial())?;
        let mut y_ordered_batch = [
            stream.clone_htod(&initial())?,
            stream.clone_htod(&initial())?,
        ];
        let mut y_scalars = stream.clone_htod(&initial())?;
        let mut y_scalars_batch = stream.clone_htod(&initial())?;
        let mut y_capture_raw = stream.clone_htod(&initial())?;
        let mut y_raw_update = [
            stream.clone_htod(&initial())?,
            stream.clone_htod(&initial())?,
        ];
        let mut y_capture_raw_ctx = stream.clone_htod(&initial())?;
        let mut y_raw_ctx = [
            stream.clone_htod(&initial())?,
            stream.clone_htod(&initial())?,
        ];
        let mut want_fixed = initial();
        let mut want_update = [initial(), initial()];
        let mut want_ordered = [initial(), initial()];
        let mut want_scalars = initial();
        let len = LEN;

        // The raw floor's pointer, taken once (no event tracking in the timed loop).
        let raw_ptr = {
            let (p, _record) = y_raw.device_ptr_mut(&stream);
            p
        };
        // The raw update floor's pointers, taken once as well.
        let raw_update_ptrs = y_raw_update.each_mut().map(|y| y.device_ptr_mut(&stream).0);
        let raw_ctx_ptrs = y_raw_ctx.each_mut().map(|y| y.device_ptr_mut(&stream).0);
        let raw_cfg = sys::CUlaunchConfig {
            gridDimX: 1,
            gridDimY: 1,
            gridDimZ: 1,
            blockDimX: LEN,
            blockDimY: 1,
            blockDimZ: 1,
            sharedMemBytes: 0,
            hStream: stream.cu_stream(),
            attrs: std::ptr::null_mut(),
            numAttrs: 0,
        };
        let fixed: Vec<(f32, f32)> = (0..n).map(|k| args(k, 0)).collect();

        // Capture the graphs once: the chain with round 0's arguments.
        let (mut replay, ()) = unsafe {
            Graph::capture(&stream, |capture| {
                for &(a, b) in &fixed {
                    launch!(chain<<<1, LEN, capture.stream()>>>(len, a, b, &mut y_replay))?;
                }
                Ok(())
            })
        }?;
        // Every kernel after the first depends on its predecessor through a programmatic edge.
        let (mut replay_pdl, ()) = unsafe {
            Graph::capture(&stream, |capture| {
                for (k, &(a, b)) in fixed.iter().enumerate() {
                    launch!(chain_pdl<<<1, LEN, capture.stream(), programmatic_serialization = k > 0>>>(
                        len, a, b, &mut y_replay_pdl))?;
                }
                Ok(())
            })
        }?;
        let programmatic = replay_pdl
            .edges()?
            .iter()
            .filter(|e| e.programmatic)
            .count();
        if programmatic != n - 1 {
            return Err(format!(
                "replay, PDL edges, N = {n}: {programmatic} programmatic edges, expected {}",
                n - 1
            )
            .into());
        }
        let (mut empties, ()) = unsafe {
            Graph::capture(&stream, |capture| {
                for _ in 0..n {
                    launch!(empty<<<1, 32, capture.stream()>>>())?;
                }
                Ok(())
            })
        }?;
        let (mut updated, nodes) = unsafe {
            Graph::capture(&stream, |capture| {
                let mut nodes: Vec<GraphNode> = Vec::with_capacity(n);
                for &(a, b) in &fixed {
                    launch!(chain<<<1, LEN, capture.stream()>>>(len, a, b, &mut y_capture))?;
                    nodes.push(capture.last_node()?);
                }
                Ok(nodes)
            })
        }?;
        let (mut ordered, ordered_nodes) = unsafe {
            Graph::capture(&stream, |capture| {
                let mut nodes: Vec<GraphNode> = Vec::with_capacity(n);
                for &(a, b) in &fixed {
                    launch!(chain<<<1, LEN, capture.stream()>>>(len, a, b, &mut y_capture_ordered))?;
                    nodes.push(capture.last_node()?);
                }
                Ok(nodes)
            })
        }?;
        let (mut ordered_batch, ordered_batch_nodes) = unsafe {
            Graph::capture(&stream, |capture| {
                let mut nodes: Vec<GraphNode> = Vec::with_capacity(n);
                for &(a, b) in &fixed {
                    launch!(chain<<<1, LEN, capture.stream()>>>(
                        len, a, b, &mut y_capture_ordered_batch))?;
                    nodes.push(capture.last_node()?);
                }
                Ok(nodes)
            })
        }?;
        let (mut scalars, scalar_nodes) = unsafe {
            Graph::capture(&stream, |capture| {
                let mut nodes: Vec<GraphNode> = Vec::with_capacity(n);
                for &(a, b) in &fixed {
                    launch!(chain<<<1, LEN, capture.stream()>>>(len, a, b, &mut y_scalars))?;
                    nodes.push(capture.last_node()?);
                }
                Ok(nodes)
            })
        }?;
        let (mut scalars_batch, scalar_batch_nodes) = unsafe {
            Graph::capture(&stream, |capture| {
                let mut nodes: Vec<GraphNode> = Vec::with_capacity(n);
                for &(a, b) in &fixed {
                    launch!(chain<<<1, LEN, capture.stream()>>>(len, a, b, &mut y_scalars_batch))?;
                    nodes.push(capture.last_node()?);
                }
                Ok(nodes)
            })
        }?;
        let (mut raw_updated, raw_nodes) = unsafe {
            Graph::capture(&stream, |capture| {
                let mut nodes: Vec<GraphNode> = Vec::with_capacity(n);
                for &(a, b) in &fixed {
                    launch!(chain<<<1, LEN, capture.stream()>>>(len, a, b, &mut y_capture_raw))?;
                    nodes.push(capture.last_node()?);
                }
                Ok(nodes)
            })
        }?;
        let (mut raw_ctx_updated, raw_ctx_nodes) = unsafe {
            Graph::capture(&stream, |capture| {
                let mut nodes: Vec<GraphNode> = Vec::with_capacity(n);
                for &(a, b) in &fixed {
                    launch!(chain<<<1, LEN, capture.stream()>>>(len, a, b, &mut y_capture_raw_ctx))?;
                    nodes.push(capture.last_node()?);
                }
                Ok(nodes)
            })
        }?;
        // SAFETY: all-zero is a valid value of this plain C struct; the fields that matter are
        // set below.
        let mut raw_node: sys::CUDA_KERNEL_NODE_PARAMS = unsafe { std::mem::zeroed() };
        raw_node.func = f.cu_function();
        (raw_node.gridDimX, raw_node.gridDimY, raw_node.gridDimZ) = (1, 1, 1);
        (raw_node.blockDimX, raw_node.blockDimY, raw_node.blockDimZ) = (LEN, 1, 1);
        replay.upload(&stream)?;
        replay_pdl.upload(&stream)?;
        empties.upload(&stream)?;
        updated.upload(&stream)?;
        ordered.upload(&stream)?;
        ordered_batch.upload(&stream)?;
        scalars.upload(&stream)?;
        scalars_batch.upload(&stream)?;
        raw_updated.upload(&stream)?;
        raw_ctx_updated.upload(&stream)?;
        let raw_exec = raw_updated.cu_graph_exec();
        let raw_ctx_exec = raw_ctx_updated.cu_graph_exec();
        let cu_ctx = ctx.cu_ctx();
        // The ordered buffers of `update_ordered`, made once (as the raw pointers are taken
        // once): each borrows its buffer until it is dropped, after the rounds.
        let y_ord = {
            let [y0, y1] = &mut y_ordered;
            [ordered.ordered(y0)?, ordered.ordered(y1)?]
        };
        let y_ord_batch = {
            let [y0, y1] = &mut y_ordered_batch;
            [ordered_batch.ordered(y0)?, ordered_batch.ordered(y1)?]
        };

        // Every variant as a closure of the round, timed in an order shuffled anew each round
        // (no variant always follows the same one), each round's samples paired below.
        type Timed<'t> = Box<dyn FnMut(usize) -> Result<(), Box<dyn Error>> + 't>;
        let mut timed: [Timed<'_>; VARIANTS.len()] = [
            Box::new(|_: usize| {
                for &(a, b) in &fixed {
                    let mut params = [
                        &len as *const u32 as *mut _,
                        &a as *const f32 as *mut _,
                        &b as *const f32 as *mut _,
                        &raw_ptr as *const u64 as *mut _,
                    ];
                    // SAFETY: the parameters match `chain`; y_raw outlives the launch and
                    // is used on this stream only.
                    let rc = unsafe {
                        sys::cuLaunchKernelEx(
                            &raw_cfg,
                            f.cu_function(),
                            params.as_mut_ptr(),
                            std::ptr::null_mut(),
                        )
                    };
                    if rc != sys::cudaError_enum::CUDA_SUCCESS {
                        return Err(format!("cuLaunchKernelEx: {rc:?}").into());
                    }
                }
                Ok(())
            }),
            Box::new(|_: usize| {
                for &(a, b) in &fixed {
                    unsafe { launch!(chain<<<config = cfg, &stream>>>(len, a, b, &mut y_direct)) }?;
                }
                Ok(())
            }),
            Box::new(|_: usize| {
                for &(a, b) in &fixed {
                    unsafe {
                        launch!(chain_pdl<<<config = cfg_pdl, &stream>>>(
                            len, a, b, &mut y_direct_pdl))
                    }?;
                }
                Ok(())
            }),
            Box::new(|_: usize| Ok(replay.replay(&stream)?)),
            Box::new(|_: usize| Ok(replay_pdl.replay(&stream)?)),
            Box::new(|_: usize| Ok(empties.replay(&stream)?)),
            Box::new(|round: usize| {
                let y = &mut y_update[round % 2];
                for (k, node) in nodes.iter().enumerate() {
                    let (a, b) = args(k, round);
                    // SAFETY: the node is `chain`'s on LEN elements, as is the buffer, which
                    // the host leaves alone until the graph is dropped.
                    unsafe { chain::kernel().update(&mut updated, node, (len, a, b, y)) }?;
                }
                Ok(updated.replay(&stream)?)
            }),
            Box::new(|round: usize| {
                // Ordered once (its cross-stream waits), then given to every update.
                let y = &y_ord[round % 2];
                for (k, node) in ordered_nodes.iter().enumerate() {
                    let (a, b) = args(k, round);
                    // SAFETY: as for `update`.
                    unsafe {
                        chain::kernel().update_ordered(&mut ordered, node, (len, a, b), (y,))
                    }?;
                }
                Ok(ordered.replay(&stream)?)
            }),
            Box::new(|round: usize| {
                let y = &y_ord_batch[round % 2];
                // SAFETY: nothing in the batch changes the thread's current context (only
                // this context's updates and replay run in it).
                unsafe {
                    ordered_batch.updates(|graph| {
                        for (k, node) in ordered_batch_nodes.iter().enumerate() {
                            let (a, b) = args(k, round);
                            // SAFETY: as for `update`.
                            chain::kernel().update_ordered(graph, node, (len, a, b), (y,))?;
                        }
                        graph.replay(&stream)
                    })
                }?;
                Ok(())
            }),
            Box::new(|round: usize| {
                for (k, node) in scalar_nodes.iter().enumerate() {
                    let (a, b) = args(k, round);
                    // SAFETY: as for `update`; the captured buffer is kept.
                    unsafe { chain::kernel().update_scalars(&mut scalars, node, (len, a, b)) }?;
                }
                Ok(scalars.replay(&stream)?)
            }),
            Box::new(|round: usize| {
                // SAFETY: as for the ordered batch.
                unsafe {
                    scalars_batch.updates(|graph| {
                        for (k, node) in scalar_batch_nodes.iter().enumerate() {
                            let (a, b) = args(k, round);
                            // SAFETY: as for `update`; the captured buffer is kept.
                            chain::kernel().update_scalars(graph, node, (len, a, b))?;
                        }
                        graph.replay(&stream)
                    })
                }?;
                Ok(())
            }),
            Box::new(|round: usize| {
                let y = raw_ctx_ptrs[round % 2];
                // SAFETY: the nodes are `chain`'s in this live executable graph, of the stream's
                // context; its buffers stay alive and untouched by the host until it is dropped.
                unsafe {
                    raw_update_round(
                        raw_ctx_exec,
                        &raw_ctx_nodes,
                        raw_node,
                        len,
                        y,
                        round,
                        stream.cu_stream(),
                        Some(cu_ctx),
                    )
                }
            }),
            Box::new(|round: usize| {
                let y = raw_update_ptrs[round % 2];
                // SAFETY: as for the context-checked floor above.
                unsafe {
                    raw_update_round(
                        raw_exec,
                        &raw_nodes,
                        raw_node,
                        len,
                        y,
                        round,
                        stream.cu_stream(),
                        None,
                    )
                }
            }),
        ];
        let mut t: [[Vec<f64>; 2]; VARIANTS.len()] = Default::default();
        // Each variant's host time over the raw update's in the same round.
        let mut paired: [Vec<f64>; VARIANTS.len()] = Default::default();
        for round in 0..rounds + 1 {
            let mut r = [(0.0, 0.0); VARIANTS.len()];
            for v in common::order(VARIANTS.len(), round) {
                r[v] = time(&stream, n, || timed[v](round))?;
            }
            host_chain(&mut want_fixed, n, |k| fixed[k]);
            host_chain(&mut want_update[round % 2], n, |k| args(k, round));
            host_chain(&mut want_ordered[round % 2], n, |k| args(k, round));
            host_chain(&mut want_scalars, n, |k| args(k, round));
            if round >= 1 {
                // Round 0 warms up (module load, graph upload, caches).
                let raw_update = r[VARIANTS.len() - 1].0;
                for ((v, p), (host, done)) in t.iter_mut().zip(&mut paired).zip(r) {
                    v[0].push(host);
                    v[1].push(done);
                    p.push(host / raw_update);
                }
            }
        }
        drop(timed); // ends the closures' borrows
        drop(replay); // waits for its last replay; ends the borrows of y_replay
        drop(replay_pdl);
        drop(empties);
        drop(updated);
        drop(ordered);
        drop(ordered_batch);
        drop(scalars);
        drop(scalars_batch);
        // Its replays were launched around the Graph: wait for them before the buffers are read.
        stream.synchronize()?;
        drop(raw_updated);
        drop(raw_ctx_updated);
        let rounds_run = rounds + 1;
        let fixed_buffers = [&y_raw, &y_direct, &y_direct_pdl, &y_replay, &y_replay_pdl];
        for (name, y) in VARIANTS.iter().zip(fixed_buffers) {
            check(name, n, &stream.clone_dtoh(y)?, &want_fixed)?;
        }
        for (y, want) in y_update.iter().zip(&want_update) {
            check("update + replay", n, &stream.clone_dtoh(y)?, want)?;
        }
        for (y, want) in y_ordered.iter().zip(&want_ordered) {
            check("update, ordered + replay", n, &stream.clone_dtoh(y)?, want)?;
        }
        // The batches get the same arguments as their per-call counterparts.
        for (y, want) in y_ordered_batch.iter().zip(&want_ordered) {
            check("update, ordered (batch)", n, &stream.clone_dtoh(y)?, want)?;
        }
        check(
            "update_scalars + replay",
            n,
            &stream.clone_dtoh(&y_scalars)?,
            &want_scalars,
        )?;
        check(
            "update_scalars (batch)",
            n,
            &stream.clone_dtoh(&y_scalars_batch)?,
            &want_scalars,
        )?;
        for (y, want) in y_raw_update.iter().zip(&want_update) {
            check("raw update + replay", n, &stream.clone_dtoh(y)?, want)?;
        }
        for (y, want) in y_raw_ctx.iter().zip(&want_update) {
            check("raw update, ctx check", n, &stream.clone_dtoh(y)?, want)?;
        }

        let m: Vec<[f64; 2]> = t
            .iter_mut()
            .map(|[h, d]| [common::median(h), common::median(d)])
            .collect();
        let (raw, direct) = (m[0], m[1]);
        for (name, [host, done]) in VARIANTS.iter().zip(&m) {
            println!(
                "{n:>4}  {name:<24} {host:>12.0} {done:>12.0}  {:>8.3}× {:>8.3}×  {:>8.3}× {:>8.3}×",
                host / direct[0],
                done / direct[1],
                host / raw[0],
                done / raw[1]
            );
        }
        // The updates' host time against the raw driver's (`cuGraphExecKernelNodeSetParams` per
        // node, then `cuGraphLaunch`): the cost of the typed paths over the driver call.
        debug_assert_eq!(VARIANTS[VARIANTS.len() - 1], "raw update + replay");
        // Medians of the ratios paired within rounds: drift between rounds cancels.
        let mut of = |name: &str| {
            let k = VARIANTS.iter().position(|v| *v == name).unwrap_or(0);
            common::median(&mut paired[k])
        };
        let verdict = |ratio: f64, target: f64| {
            if ratio <= target {
                format!("{ratio:.2}× (target ≤ {target}×: met)")
            } else {
                format!("{ratio:.2}× (target ≤ {target}×: NOT met)")
            }
        };
        println!(
            "{n:>4}  host time over raw update + replay: update {:.2}× (waits for its buffer's events at every call), update (ordered) {}, update_scalars {}; raw + cuCtxGetCurrent per update {:.2}× (the context check's floor)",
            of("update + replay"),
            verdict(of("update, ordered + replay"), 1.2),
            verdict(of("update_scalars + replay"), 1.1),
            of("raw update, ctx check")
        );
        println!(
            "{n:>4}  in a batch (Graph::updates: the context checked once per round): update (ordered) {}, update_scalars {}",
            verdict(of("update, ordered (batch)"), 1.2),
            verdict(of("update_scalars (batch)"), 1.1),
        );
        println!("{n:>4}  checked: 17 buffers equal the host's chain after {rounds_run} rounds");
    }
    Ok(())
}
