//! Typed graph updates, each path on its own, for counting their host instructions against the
//! stand-in driver (`benches/stand_in_libcuda`): `scripts/update_cost_callgrind.sh` runs this once
//! per path under callgrind, with `CHEVRON_UPDATE_PATH=<path>`, and reports instructions and
//! distinct 64-byte code lines per update, and each path over the raw floor. Nothing is left
//! out: the function lookup, the node checks, the context check, the record of the arguments and
//! the call into the driver library run as in a program; only the driver does nothing.
//!
//! The paths are those of `examples/graph_replay.rs`'s update rows, on one node of `saxpy` (4
//! arguments, 2 of them buffers): the raw `cuGraphExecKernelNodeSetParams` with pointers taken
//! once (the floor), `saxpy::update_scalars` (keeps both buffers), `saxpy::update_ordered` (both
//! buffers as `Ordered`), and `saxpy::update` (both buffers, their waits at every call); and a replay on the last stream against the raw
//! `cuGraphLaunch`.
//!
//! Without `CHEVRON_UPDATE_PATH` every path runs, and the time per update is printed (against
//! the stand-in: the host work alone, warm caches). Without a driver it says so and exits 0
//! (`cargo test --benches` runs it).

use std::error::Error;
use std::hint::black_box;
use std::time::Instant;

use chevron::cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};
use chevron::{kernel, launch, sys, Graph, GraphNode, Ordered};

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

const N: u32 = 256;

/// What every path gets: the graph and its node, the ordered buffers, the
/// buffers themselves (for `update`) and their pointers taken once (for the raw floor).
struct Setup<'g, 'b> {
    graph: &'g mut Graph<'b>,
    node: GraphNode,
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
/// buffers' pointers taken once.
#[inline(never)]
fn raw_update(s: &mut Setup<'_, '_>) {
    let (n, a) = scalars();
    let mut params = [
        &n as *const u32 as *mut _,
        &a as *const f32 as *mut _,
        &s.px as *const u64 as *mut _,
        &s.py as *const u64 as *mut _,
    ];
    let mut p = raw_node(&s.node);
    p.kernelParams = params.as_mut_ptr();
    // SAFETY: the node is `saxpy`'s in this executable graph; the parameters match it.
    let rc = unsafe {
        sys::cuGraphExecKernelNodeSetParams_v2(s.graph.cu_graph_exec(), s.node.raw(), &p)
    };
    assert_eq!(rc, sys::cudaError_enum::CUDA_SUCCESS);
}

/// The node's launch as the raw floor keeps it (built once per call here: a copy, as the floor's
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

#[inline(never)]
fn update_scalars(s: &mut Setup<'_, '_>) {
    let (n, a) = scalars();
    // SAFETY: nothing runs (the stand-in driver); the node is `saxpy`'s.
    unsafe { saxpy::update_scalars(s.graph, &s.node, n, a) }.unwrap();
}

#[inline(never)]
fn update_ordered(s: &mut Setup<'_, '_>) {
    let (n, a) = scalars();
    // SAFETY: as above.
    unsafe { saxpy::update_ordered(s.graph, &s.node, n, a, s.ordered.0, s.ordered.1) }.unwrap();
}

#[inline(never)]
fn update(s: &mut Setup<'_, '_>) {
    let (n, a) = scalars();
    // SAFETY: as above.
    unsafe { saxpy::update(s.graph, &s.node, n, a, s.x, s.y) }.unwrap();
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
        "update_scalars",
        "saxpy::update_scalars",
        Some("raw_update"),
        update_scalars,
    ),
    (
        "update_ordered",
        "saxpy::update_ordered",
        Some("raw_update"),
        update_ordered,
    ),
    ("update", "saxpy::update", Some("raw_update"), update),
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
    let iters: usize = std::env::var("CHEVRON_UPDATES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
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
    let (mut graph, node) = Graph::capture(&stream, |capture| {
        let s = capture.stream();
        let (n, a) = scalars();
        // SAFETY: nothing runs (the stand-in driver).
        unsafe { launch!(saxpy<<<1, N, s>>>(n, a, &x0, &mut y0)) }?;
        capture.last_node()
    })?;
    let (mut ox, mut oy) = (
        stream.clone_htod(&vec![1.0f32; N as usize])?,
        stream.clone_htod(&vec![0.0f32; N as usize])?,
    );
    let (ordered_x, ordered_y) = (graph.ordered(&mut ox)?, graph.ordered(&mut oy)?);
    let mut setup = Setup {
        graph: &mut graph,
        node,
        ordered: (&ordered_x, &ordered_y),
        x: &x,
        y: &mut y,
        px,
        py,
        stream: &stream,
    };
    if only.is_none() {
        println!("host ns per update, fastest of 5 × {iters} (warm caches; not an update's cost on a GPU):");
    }
    for (name, what, _, path) in PATHS {
        if only.as_ref().is_some_and(|o| o != name) {
            continue;
        }
        // Once before: the node's first update (its record) and the first call's one-time work.
        path(&mut setup);
        let mut fastest = f64::MAX;
        for _ in 0..if only.is_some() { 1 } else { 5 } {
            let t = Instant::now();
            for _ in 0..iters {
                path(&mut setup);
            }
            fastest = fastest.min(t.elapsed().as_secs_f64() * 1e9 / iters as f64);
        }
        if only.is_none() {
            println!("  {what:<48} {fastest:7.1} ns");
        }
    }
    drop(graph); // waits for the last replay
    Ok(())
}
