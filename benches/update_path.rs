//! Typed graph updates, each path on its own, for counting their host instructions against the
//! stand-in driver (`benches/stand_in_libcuda`): `scripts/update_cost_callgrind.sh` runs this once
//! per path under callgrind, with `CHEVRON_UPDATE_PATH=<path>`, and reports instructions and
//! distinct 64-byte code lines per update, and each path over the raw floor. Nothing is left
//! out: the function lookup, the node checks, the context check, the record of the arguments and
//! the call into the driver library run as in a program; only the driver does nothing.
//!
//! The paths are those of `examples/graph_replay.rs`'s update rows, on `saxpy` nodes (4
//! arguments, 2 of them buffers): the raw `cuGraphExecKernelNodeSetParams` with pointers taken
//! once (the floor), the same after a `cuCtxGetCurrent` (the floor of a context check per
//! update), `saxpy::kernel().update_scalars` (keeps both buffers) and
//! `saxpy::kernel().update_ordered` (both buffers as `Ordered`), each also inside a batch
//! (`Graph::updates`: the context checked once per round of updates), and
//! `saxpy::kernel().update` (both buffers, their waits at every call); and a replay on the last
//! stream against the raw `cuGraphLaunch`.
//!
//! A round updates every node once (one node unless `CHEVRON_NODES=<n>` captures more);
//! `CHEVRON_UPDATES` updates per path in all (default 10 000). The stand-in driver has no working
//! set of its own, so with warm caches a path's record reads never miss, where on a GPU the
//! driver's own work between two updates of a node (its node, the parameter upload, the launch)
//! evicts them: `CHEVRON_EVICT_KIB=<k>` writes a buffer of `k` KiB between rounds (outside the
//! timing), so that each round starts with what a driver would leave in the caches, and what a
//! path touches per node shows as misses.
//!
//! Without `CHEVRON_UPDATE_PATH` every path runs, and the median time per update over the rounds
//! is printed, with what it adds to its floor (against the stand-in: the host work alone).
//! Without a driver it says so and exits 0 (`cargo test --benches` runs it).

use std::error::Error;
use std::hint::black_box;
use std::time::Instant;

use chevron::cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use chevron::{kernel, launch, sys, Graph, GraphNode, Ordered};

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

const N: u32 = 256;

/// What every path gets: the graph and its nodes, the ordered buffers, the
/// buffers themselves (for `update`) and their pointers taken once (for the raw floor).
struct Setup<'g, 'b> {
    graph: &'g mut Graph<'b>,
    nodes: Vec<GraphNode>,
    ordered: (&'g Ordered<'g, f32>, &'g Ordered<'g, f32>),
    x: &'g CudaSlice<f32>,
    y: &'g mut CudaSlice<f32>,
    px: u64,
    py: u64,
    stream: &'g std::sync::Arc<chevron::cudarc::driver::CudaStream>,
}

/// The scalar arguments, read so that nothing is folded at compile time.
#[inline(always)]
fn scalars() -> (u32, f32) {
    (black_box(N), black_box(1.0f32))
}

/// `cuGraphExecKernelNodeSetParams` as a program without chevron writes it (as
/// `examples/graph_replay.rs`'s floor does): the node's captured launch taken once, the
/// buffers' pointers taken once; every node.
#[inline(never)]
fn raw_update(s: &mut Setup<'_, '_>) {
    let exec = s.graph.cu_graph_exec();
    let p0 = raw_node(&s.nodes[0]);
    for node in &s.nodes {
        let (n, a) = scalars();
        let mut params = [
            &n as *const u32 as *mut _,
            &a as *const f32 as *mut _,
            &s.px as *const u64 as *mut _,
            &s.py as *const u64 as *mut _,
        ];
        let mut p = p0;
        p.kernelParams = params.as_mut_ptr();
        // SAFETY: the node is `saxpy`'s in this executable graph; the parameters match it.
        let rc = unsafe { sys::cuGraphExecKernelNodeSetParams_v2(exec, node.raw(), &p) };
        assert_eq!(rc, sys::cudaError_enum::CUDA_SUCCESS);
    }
}

/// [`raw_update`] after a `cuCtxGetCurrent` and a compare per node: the floor of an update that
/// checks the context at every call.
#[inline(never)]
fn raw_update_ctx(s: &mut Setup<'_, '_>) {
    let exec = s.graph.cu_graph_exec();
    let ctx = s.graph.context().cu_ctx();
    let p0 = raw_node(&s.nodes[0]);
    for node in &s.nodes {
        let (n, a) = scalars();
        let mut params = [
            &n as *const u32 as *mut _,
            &a as *const f32 as *mut _,
            &s.px as *const u64 as *mut _,
            &s.py as *const u64 as *mut _,
        ];
        let mut p = p0;
        p.kernelParams = params.as_mut_ptr();
        let mut current = core::ptr::null_mut();
        // SAFETY: an out-pointer to a local.
        let rc = unsafe { sys::cuCtxGetCurrent(&mut current) };
        assert!(rc == sys::cudaError_enum::CUDA_SUCCESS && current == ctx);
        // SAFETY: as in `raw_update`.
        let rc = unsafe { sys::cuGraphExecKernelNodeSetParams_v2(exec, node.raw(), &p) };
        assert_eq!(rc, sys::cudaError_enum::CUDA_SUCCESS);
    }
}

/// The node's launch as the raw floor keeps it (built once per round here: a copy, as the floor's
/// `let mut p = raw_node;`).
#[inline(always)]
fn raw_node(node: &GraphNode) -> sys::CUDA_KERNEL_NODE_PARAMS {
    sys::CUDA_KERNEL_NODE_PARAMS {
        func: node.cu_function(),
        gridDimX: 1,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: N,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: 0,
        kernelParams: core::ptr::null_mut(),
        extra: core::ptr::null_mut(),
        kern: core::ptr::null_mut(),
        ctx: core::ptr::null_mut(),
    }
}

/// `update_scalars` of every node of `nodes` in `graph`.
#[inline(always)]
fn scalars_round(graph: &mut Graph<'_>, nodes: &[GraphNode]) -> Result<(), chevron::Error> {
    for node in nodes {
        let (n, a) = scalars();
        // SAFETY: nothing runs (the stand-in driver); the node is `saxpy`'s.
        unsafe { saxpy::kernel().update_scalars(graph, node, (n, a)) }?;
    }
    Ok(())
}

/// `update_ordered` of every node of `nodes` in `graph`.
#[inline(always)]
fn ordered_round(
    graph: &mut Graph<'_>,
    nodes: &[GraphNode],
    (x, y): (&Ordered<'_, f32>, &Ordered<'_, f32>),
) -> Result<(), chevron::Error> {
    for node in nodes {
        let (n, a) = scalars();
        // SAFETY: as above.
        unsafe { saxpy::kernel().update_ordered(graph, node, (n, a), (x, y)) }?;
    }
    Ok(())
}

#[inline(never)]
fn update_scalars(s: &mut Setup<'_, '_>) {
    scalars_round(s.graph, &s.nodes).unwrap();
}

#[inline(never)]
fn update_scalars_batch(s: &mut Setup<'_, '_>) {
    let nodes = &s.nodes;
    // SAFETY: nothing in the body changes the thread's current context.
    unsafe { s.graph.updates(|g| scalars_round(g, nodes)) }.unwrap();
}

#[inline(never)]
fn update_ordered(s: &mut Setup<'_, '_>) {
    ordered_round(s.graph, &s.nodes, s.ordered).unwrap();
}

#[inline(never)]
fn update_ordered_batch(s: &mut Setup<'_, '_>) {
    let (nodes, ordered) = (&s.nodes, s.ordered);
    // SAFETY: as above.
    unsafe { s.graph.updates(|g| ordered_round(g, nodes, ordered)) }.unwrap();
}

#[inline(never)]
fn update(s: &mut Setup<'_, '_>) {
    for node in &s.nodes {
        let (n, a) = scalars();
        // SAFETY: as above.
        unsafe { saxpy::kernel().update(s.graph, node, (n, a, s.x, s.y)) }.unwrap();
    }
}

#[inline(never)]
fn raw_replay(s: &mut Setup<'_, '_>) {
    // SAFETY: the executable graph is live and of the stream's context.
    let rc = unsafe { sys::cuGraphLaunch(s.graph.cu_graph_exec(), s.stream.cu_stream()) };
    assert_eq!(rc, sys::cudaError_enum::CUDA_SUCCESS);
}

#[inline(never)]
fn replay(s: &mut Setup<'_, '_>) {
    s.graph.replay(s.stream).unwrap();
}

/// Each path: its name (`CHEVRON_UPDATE_PATH`), what it is, its floor, and one update.
type Path = (
    &'static str,
    &'static str,
    Option<&'static str>,
    fn(&mut Setup<'_, '_>),
);

const PATHS: &[Path] = &[
    (
        "raw_update",
        "raw cuGraphExecKernelNodeSetParams (the floor)",
        None,
        raw_update,
    ),
    (
        "raw_update_ctx",
        "raw, cuCtxGetCurrent per update",
        Some("raw_update"),
        raw_update_ctx,
    ),
    (
        "update_scalars",
        "saxpy::kernel().update_scalars",
        Some("raw_update"),
        update_scalars,
    ),
    (
        "update_scalars_batch",
        "saxpy::kernel().update_scalars (batch)",
        Some("raw_update"),
        update_scalars_batch,
    ),
    (
        "update_ordered",
        "saxpy::kernel().update_ordered",
        Some("raw_update"),
        update_ordered,
    ),
    (
        "update_ordered_batch",
        "saxpy::kernel().update_ordered (batch)",
        Some("raw_update"),
        update_ordered_batch,
    ),
    (
        "update",
        "saxpy::kernel().update",
        Some("raw_update"),
        update,
    ),
    ("raw_replay", "raw cuGraphLaunch", None, raw_replay),
    (
        "replay",
        "Graph::replay (same stream)",
        Some("raw_replay"),
        replay,
    ),
];

fn main() -> Result<(), Box<dyn Error>> {
    let ctx = match chevron::context(0) {
        Ok(ctx) => ctx,
        Err(chevron::Error::NoDriver) => {
            println!(
                "update_path: no CUDA driver here; scripts/update_cost_callgrind.sh runs it \
                 against a stand-in"
            );
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    let only = std::env::var("CHEVRON_UPDATE_PATH").ok();
    if let Some(name) = &only {
        if !PATHS.iter().any(|p| p.0 == name) {
            let names: Vec<&str> = PATHS.iter().map(|p| p.0).collect();
            return Err(format!("no path `{name}`; the paths: {}", names.join(", ")).into());
        }
    }
    let var = |name: &str, default: usize| -> usize {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let updates = var("CHEVRON_UPDATES", 10_000);
    let nodes = var("CHEVRON_NODES", 1).max(1);
    let evict_kib = var("CHEVRON_EVICT_KIB", 0);
    let rounds = (updates / nodes).max(1);
    let stream = ctx.new_stream()?;
    let x0 = stream.clone_htod(&vec![1.0f32; N as usize])?;
    let mut y0 = stream.clone_htod(&vec![0.0f32; N as usize])?;
    // The buffers the updates give (the captured ones stay borrowed by the graph).
    let x = stream.clone_htod(&vec![1.0f32; N as usize])?;
    let mut y = stream.clone_htod(&vec![0.0f32; N as usize])?;
    let (px, py) = {
        let (px, _rx) = x.device_ptr(&stream);
        let (py, _wy) = y.device_ptr_mut(&stream);
        (px, py)
    };
    let (mut graph, captured) = unsafe {
        Graph::capture(&stream, |capture| {
            let s = capture.stream();
            let mut captured = Vec::with_capacity(nodes);
            for _ in 0..nodes {
                let (n, a) = scalars();
                // SAFETY: nothing runs (the stand-in driver).
                launch!(saxpy<<<1, N, s>>>(n, a, &x0, &mut y0))?;
                captured.push(capture.last_node()?);
            }
            Ok(captured)
        })
    }?;
    let (mut ox, mut oy) = (
        stream.clone_htod(&vec![1.0f32; N as usize])?,
        stream.clone_htod(&vec![0.0f32; N as usize])?,
    );
    let (ordered_x, ordered_y) = (graph.ordered(&mut ox)?, graph.ordered(&mut oy)?);
    let mut setup = Setup {
        graph: &mut graph,
        nodes: captured,
        ordered: (&ordered_x, &ordered_y),
        x: &x,
        y: &mut y,
        px,
        py,
        stream: &stream,
    };
    // What a driver would leave in the caches between rounds, written between them.
    let mut evict = vec![0u64; evict_kib * 1024 / 8];
    if only.is_none() {
        println!(
            "host ns per update, median over {rounds} rounds of {nodes} node(s){} \
             (against the stand-in: the host work alone):",
            if evict_kib > 0 {
                format!(", {evict_kib} KiB written between rounds")
            } else {
                ", warm caches".to_string()
            }
        );
    }
    let mut medians: Vec<(&str, f64)> = Vec::new();
    for (name, what, floor, path) in PATHS {
        if only.as_ref().is_some_and(|o| o != name) {
            continue;
        }
        // Once before: the nodes' first updates (their records) and the first call's one-time
        // work.
        path(&mut setup);
        if only.is_some() {
            // Under callgrind: the path alone, nothing timed.
            for _ in 0..rounds {
                path(&mut setup);
            }
            continue;
        }
        // Timed by rounds, the buffer written between them; without one, by groups of rounds
        // of at least 1024 updates (a clock read costs more than an update here).
        let group = if evict.is_empty() {
            1024usize.div_ceil(nodes)
        } else {
            1
        };
        let mut times = Vec::with_capacity(rounds / group + 1);
        for round in 0..(rounds / group).max(1) {
            for (i, line) in evict.iter_mut().enumerate().step_by(8) {
                *line = black_box(*line + (i + round) as u64);
            }
            let t = Instant::now();
            for _ in 0..group {
                path(&mut setup);
            }
            times.push(t.elapsed().as_secs_f64() * 1e9 / group as f64);
        }
        let per = if name.ends_with("replay") { 1 } else { nodes };
        times.sort_by(|a, b| a.total_cmp(b));
        let median = times[times.len() / 2] / per as f64;
        medians.push((name, median));
        let over = floor
            .and_then(|f| medians.iter().find(|m| m.0 == f))
            .map(|&(f, t)| format!("{:+7.1} ns over {f}", median - t))
            .unwrap_or_default();
        println!("  {what:<48} {median:7.1} ns  {over}");
    }
    black_box(&evict);
    drop(graph); // waits for the last replay
    Ok(())
}
