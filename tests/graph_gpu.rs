//! Graphs on the GPU: replayed results equal direct launches, typed updates take effect (scalars
//! and buffers), replay on a second stream, a programmatic edge from `programmatic_serialization`,
//! device-updatable nodes updated by a kernel (outside the graph, and inside it), and replay and
//! update allocating nothing after warm-up.

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::Arc;

use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch, Attribute, DeviceNode, DeviceUpdatable, Graph, GraphNode};

#[path = "common/counting.rs"]
mod counting;

/// y = y·a + b
#[kernel(ptx = "kernels/chain.ptx")]
fn chain(n: u32, a: f32, b: f32, y: &mut CudaSlice<f32>);

/// y = x·a + b
/// `data[i] = 3i + 1`, then lets the dependent kernel start (`griddepcontrol.launch_dependents`).
#[kernel(ptx = "kernels/pdl_checks.ptx")]
fn pdl_produce(data: &mut CudaSlice<u32>, n: u32);

/// Waits for the producer (`griddepcontrol.wait`), then `out[i] = data[i] + 5`.
#[kernel(ptx = "kernels/pdl_checks.ptx")]
fn pdl_consume(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

/// Rewrites `a`, `b` and `y` of a device-updatable `chain` node from the GPU
/// (`cudaGraphKernelNodeSetParam`); `status` gets the device runtime's `cudaError_t`. Relocatable
/// PTX calling the device runtime: linked with libcudadevrt.a when it loads.
#[kernel(ptx = "kernels/device_update.ptx")]
fn retarget(node: DeviceNode, a: f32, b: f32, y: &mut CudaSlice<f32>, status: &mut CudaSlice<i32>);

/// `retarget` from its CUDA C, compiled by NVRTC at the first launch (again with -rdc=true, as
/// it calls the device runtime) and linked with libcudadevrt.
#[allow(deprecated)] // without nvcc: checked at run time (a warning otherwise)
#[kernel(cuda = "kernels/device_update.cu", name = "retarget")]
fn retarget_from_cuda_c(
    node: DeviceNode,
    a: f32,
    b: f32,
    y: &mut CudaSlice<f32>,
    status: &mut CudaSlice<i32>,
);

#[kernel(ptx = "kernels/chain.ptx")]
fn chain_copy(n: u32, a: f32, b: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

type TestResult = Result<(), Box<dyn std::error::Error>>;

const N: u32 = 1000;

fn data(seed: f32) -> Vec<f32> {
    (0..N).map(|i| seed + (i % 97) as f32 * 0.25).collect()
}

fn poison() -> Vec<f32> {
    vec![f32::NAN; N as usize]
}

/// The host's `y = x·a + b` (a fused multiply-add, as the GPU computes it).
fn affine(x: &[f32], a: f32, b: f32) -> Vec<f32> {
    x.iter().map(|v| v.mul_add(a, b)).collect()
}

fn assert_same(what: &str, got: &[f32], want: &[f32]) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-5 * w.abs().max(1.0),
            "{what}: [{i}] = {g}, want {w}"
        );
    }
}

/// A graph of one device-updatable `chain` node, `y = y·2 + 1`, and the node.
fn updatable_chain<'a>(
    stream: &Arc<CudaStream>,
    y: &'a mut CudaSlice<f32>,
) -> Result<(Graph<'a>, GraphNode), chevron::Error> {
    unsafe {
        Graph::capture(stream, move |capture| {
            launch!(chain<<<4, 256, capture.stream(), device_updatable>>>(N, 2.0, 1.0, &mut *y))?;
            capture.last_node()
        })
    }
}

/// Checks the `cudaError_t` a `retarget` launch wrote into `status`: `cudaSuccess`.
fn assert_update_applied(
    stream: &Arc<CudaStream>,
    status: &CudaSlice<i32>,
    what: &str,
) -> TestResult {
    let code = stream.clone_dtoh(status)?[0];
    println!("{what} returned {code}");
    assert_eq!(code, 0, "the device runtime refused the update");
    Ok(())
}

/// The chain of the first tests: copy-scale x into y, then three in-place steps on y.
const STEPS: [(f32, f32); 3] = [(0.5, 1.0), (2.0, -3.0), (0.75, 0.125)];

#[test]
#[ignore = "needs a CUDA GPU"]
fn replayed_results_equal_direct_launches() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let x_host = data(1.5);
    let x = stream.clone_htod(&x_host)?;
    let mut direct = stream.clone_htod(&poison())?;
    let mut replayed = stream.clone_htod(&poison())?;
    let blocks = N.div_ceil(256);

    unsafe { launch!(chain_copy<<<blocks, 256, &stream>>>(N, 3.0, 0.5, &x, &mut direct)) }?;
    for (a, b) in STEPS {
        unsafe { launch!(chain<<<blocks, 256, &stream>>>(N, a, b, &mut direct)) }?;
    }
    let (mut graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            let s = capture.stream();
            launch!(chain_copy<<<blocks, 256, s>>>(N, 3.0, 0.5, &x, &mut replayed))?;
            for (a, b) in STEPS {
                launch!(chain<<<blocks, 256, s>>>(N, a, b, &mut replayed))?;
            }
            Ok(())
        })
    }?;
    // Capturing runs nothing: the buffer is still poisoned until the first replay. Replaying
    // three times gives the same result (the copy restarts the chain).
    for _ in 0..3 {
        graph.replay(&stream)?;
    }
    drop(graph);

    let mut want = affine(&x_host, 3.0, 0.5);
    for (a, b) in STEPS {
        want = affine(&want, a, b);
    }
    let direct = stream.clone_dtoh(&direct)?;
    let replayed = stream.clone_dtoh(&replayed)?;
    println!(
        "replay: y[0..3] = {:?}, direct {:?}, host {:?}",
        &replayed[..3],
        &direct[..3],
        &want[..3]
    );
    assert_same("direct", &direct, &want);
    assert_eq!(
        replayed, direct,
        "replayed results differ from direct launches"
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn updated_arguments_take_effect() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let (x1_host, x2_host) = (data(1.0), data(-7.0));
    let x1 = stream.clone_htod(&x1_host)?;
    let x2 = stream.clone_htod(&x2_host)?;
    let mut y1 = stream.clone_htod(&poison())?;
    let mut y2 = stream.clone_htod(&poison())?;
    let blocks = N.div_ceil(256);

    let (mut graph, node) = unsafe {
        Graph::capture(&stream, |capture| {
            launch!(chain_copy<<<blocks, 256, capture.stream()>>>(N, 2.0, 1.0, &x1, &mut y1))?;
            capture.last_node()
        })
    }?;
    // Scalars a = 4, b = -2 (and the output moved to y2: the captured y1 is the graph's).
    unsafe { chain_copy::kernel().update(&mut graph, &node, (N, 4.0, -2.0, &x1, &mut y2)) }?;
    graph.replay(&stream)?;
    graph.synchronize()?;
    // Buffers given to an update are borrowed for the call only: readable once the replay is
    // done. Same input x1, new a and b.
    let scalars = stream.clone_dtoh(&y2)?;
    println!("update scalars: y2[0..3] = {:?}", &scalars[..3]);
    assert_same("scalars updated", &scalars, &affine(&x1_host, 4.0, -2.0));
    // Buffers too: x2 into y2 with a = 0.5, b = 3.
    unsafe { chain_copy::kernel().update(&mut graph, &node, (N, 0.5, 3.0, &x2, &mut y2)) }?;
    graph.replay(&stream)?;
    drop(graph);

    let y1 = stream.clone_dtoh(&y1)?;
    let y2 = stream.clone_dtoh(&y2)?;
    println!(
        "update: y1[0..3] = {:?} (never replayed into: poisoned), y2[0..3] = {:?}",
        &y1[..3],
        &y2[..3]
    );
    // The first replay already wrote y2 (the update moved the output), the second overwrote it
    // from x2; y1, the captured output, was never written.
    assert!(
        y1.iter().all(|v| v.is_nan()),
        "the captured output was written"
    );
    assert_same("updated", &y2, &affine(&x2_host, 0.5, 3.0));
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_node_of_another_graph_or_kernel_is_refused() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let mut y = stream.clone_htod(&data(2.0))?;
    let mut other = stream.clone_htod(&data(2.0))?;
    let mut out = stream.clone_htod(&poison())?;
    let x_host = data(5.0);
    let x = stream.clone_htod(&x_host)?;
    let (mut graph, node) = unsafe {
        Graph::capture(&stream, |capture| {
            launch!(chain_copy<<<4, 256, capture.stream()>>>(N, 1.0, 0.0, &x, &mut out))?;
            capture.last_node()
        })
    }?;
    let (mut second, chain_node) = unsafe {
        Graph::capture(&stream, |capture| {
            launch!(chain<<<4, 256, capture.stream()>>>(N, 1.0, 1.0, &mut y))?;
            capture.last_node()
        })
    }?;
    // A node of another graph, and a node of another kernel: typed errors.
    let foreign =
        unsafe { chain::kernel().update(&mut graph, &chain_node, (N, 1.0, 1.0, &mut other)) };
    println!("foreign node: {foreign:?}");
    assert!(matches!(foreign, Err(chevron::Error::Graph { .. })));
    let wrong_kernel =
        unsafe { chain::kernel().update(&mut graph, &node, (N, 1.0, 1.0, &mut other)) };
    println!("node of another kernel: {wrong_kernel:?}");
    assert!(matches!(wrong_kernel, Err(chevron::Error::Graph { .. })));
    // The refused updates changed nothing: the graph still copies x into out.
    graph.replay(&stream)?;
    second.replay(&stream)?;
    drop(second);
    drop(graph);
    assert_same("after refused updates", &stream.clone_dtoh(&out)?, &x_host);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn replay_on_a_second_stream_is_ordered() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    let start = data(0.5);
    let mut y = s1.clone_htod(&start)?;
    let steps = 64;
    let (mut graph, ()) = unsafe {
        Graph::capture(&s1, |capture| {
            // Many dependent steps per replay, so that unordered replays would overlap.
            for _ in 0..steps {
                launch!(chain<<<4, 256, capture.stream()>>>(N, 1.0, 1.0, &mut y))?;
            }
            Ok(())
        })
    }?;
    let replays = 10usize;
    for r in 0..replays {
        graph.replay(if r.is_multiple_of(2) { &s1 } else { &s2 })?;
    }
    drop(graph);
    let got = s1.clone_dtoh(&y)?;
    let want: Vec<f32> = start.iter().map(|v| v + (steps * replays) as f32).collect();
    println!(
        "two streams: y[0] = {} after {replays} replays of {steps} steps (host {})",
        got[0], want[0]
    );
    assert_same("two streams", &got, &want);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn programmatic_serialization_becomes_a_programmatic_edge() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let poison = vec![0xDEAD_BEEFu32; N as usize];
    let mut produced = stream.clone_htod(&poison)?;
    let mut out = stream.clone_htod(&poison)?;
    let mut z = stream.clone_htod(&data(1.0))?;
    let grid = N.div_ceil(256);
    // A producer and a consumer that waits in `griddepcontrol.wait`: the pair PDL is for (the
    // launch rules refuse `programmatic_serialization` on a kernel that never waits).
    let (mut graph, (first, second)) = unsafe {
        Graph::capture(&stream, |capture| {
            let s = capture.stream();
            launch!(pdl_produce<<<grid, 256, s>>>(&mut produced, N))?;
            let first = capture.last_node()?;
            launch!(pdl_consume<<<grid, 256, s, programmatic_serialization>>>(&produced, &mut out, N))?;
            Ok((first, capture.last_node()?))
        })
    }?;
    let edges = graph.edges()?;
    println!("with programmatic_serialization: {edges:?}");
    assert!(
        edges
            .iter()
            .any(|e| e.from == first.raw() && e.to == second.raw() && e.programmatic),
        "no programmatic edge between the two nodes: {edges:?}"
    );
    // The replayed pair computes what it should: the consumer read the producer's writes.
    graph.replay(&stream)?;
    graph.synchronize()?;
    drop(graph);
    let got = stream.clone_dtoh(&out)?;
    let want: Vec<u32> = (0..N).map(|i| 3 * i + 1 + 5).collect();
    assert_eq!(
        got, want,
        "the replayed consumer read something else than the producer wrote"
    );
    println!("replayed producer → consumer over the programmatic edge: {N} values right");
    let (plain, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            let s = capture.stream();
            launch!(chain<<<4, 256, s>>>(N, 1.0, 1.0, &mut z))?;
            launch!(chain<<<4, 256, s>>>(N, 1.0, 1.0, &mut z))?;
            Ok(())
        })
    }?;
    let plain_edges = plain.edges()?;
    println!("without: {plain_edges:?}");
    assert_eq!(plain_edges.len(), 1);
    assert!(!plain_edges[0].programmatic);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn device_updatable_node_has_a_device_handle() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let start = data(3.0);
    let mut y = stream.clone_htod(&start)?;
    let (mut graph, node) = updatable_chain(&stream, &mut y)?;
    let value = graph.node_attribute(&node, DeviceUpdatable::ID)?;
    // SAFETY: the driver filled the union's member for this kind.
    let (updatable, dev_node) = unsafe {
        (
            value.deviceUpdatableKernelNode.deviceUpdatable,
            value.deviceUpdatableKernelNode.devNode,
        )
    };
    println!("device_updatable node: deviceUpdatable = {updatable}, devNode = {dev_node:?}");
    assert_eq!(updatable, 1);
    assert!(!dev_node.is_null(), "no device-side node handle");
    graph.replay(&stream)?;
    drop(graph);
    let got = stream.clone_dtoh(&y)?;
    assert_same("device-updatable node", &got, &affine(&start, 2.0, 1.0));
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_kernel_updates_a_node_from_the_device() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let (first, second) = (data(3.0), data(-2.0));
    let mut y1 = stream.clone_htod(&first)?;
    let mut y2 = stream.clone_htod(&second)?;
    let mut status = stream.clone_htod(&[-1i32])?;
    let (mut graph, node) = updatable_chain(&stream, &mut y1)?;
    let device = graph.device_node(&node)?;
    println!("device node {:#x}", device.raw());
    graph.replay(&stream)?; // y1 = first·2 + 1
    graph.synchronize()?;
    // From the GPU: a = 0.5, b = 3, y = y2; the next replay runs with those.
    unsafe { launch!(retarget<<<1, 32, &stream>>>(device, 0.5, 3.0, &mut y2, &mut status)) }?;
    assert_update_applied(
        &stream,
        &status,
        "cudaGraphKernelNodeSetParam from the device",
    )?;
    graph.replay(&stream)?; // y2 = second·0.5 + 3; y1 untouched
    drop(graph);
    assert_same(
        "before the device update",
        &stream.clone_dtoh(&y1)?,
        &affine(&first, 2.0, 1.0),
    );
    assert_same(
        "after the device update",
        &stream.clone_dtoh(&y2)?,
        &affine(&second, 0.5, 3.0),
    );
    // A node that is not device-updatable has no device handle.
    let mut y3 = stream.clone_htod(&first)?;
    let (plain, plain_node) = unsafe {
        Graph::capture(&stream, |capture| {
            launch!(chain<<<4, 256, capture.stream()>>>(N, 2.0, 1.0, &mut y3))?;
            capture.last_node()
        })
    }?;
    assert!(
        plain.edges()?.is_empty(),
        "a graph of one node has no edges"
    );
    let refused = plain.device_node(&plain_node).unwrap_err().to_string();
    println!("{refused}");
    assert!(refused.contains("not device-updatable"), "{refused}");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn device_runtime_ptx_links_and_an_unresolved_call_is_a_link_error() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    println!("libcudadevrt: {}", chevron::cudadevrt()?.display());
    let ptx = include_str!("../kernels/device_update.ptx");
    chevron::load_ptx(&ctx, "device_update.ptx", ptx)?.load_function("retarget")?;
    let missing = ptx.replace(
        "cudaGraphKernelNodeSetParam",
        "cudaGraphKernelNodeSetParamGone",
    );
    let e = chevron::load_ptx(&ctx, "missing.ptx", &missing).unwrap_err();
    println!("{e}");
    assert!(
        matches!(e, chevron::Error::Link { .. }),
        "not a link error: {e:?}"
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_cuda_c_kernel_compiled_at_run_time_updates_a_node_from_the_device() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let (first, second) = (data(1.5), data(-4.0));
    let mut y1 = stream.clone_htod(&first)?;
    let mut y2 = stream.clone_htod(&second)?;
    let mut status = stream.clone_htod(&[-1i32])?;
    let (mut graph, node) = updatable_chain(&stream, &mut y1)?;
    let device = graph.device_node(&node)?;
    graph.upload(&stream)?; // the executable graph is on the device before a kernel changes it
    unsafe {
        launch!(retarget_from_cuda_c<<<1, 32, &stream>>>(device, 0.75, -2.0, &mut y2, &mut status))
    }?;
    assert_update_applied(
        &stream,
        &status,
        "NVRTC-compiled retarget: cudaGraphKernelNodeSetParam",
    )?;
    graph.replay(&stream)?; // y2 = second·0.75 − 2; y1 untouched
    drop(graph);
    assert_same("untouched", &stream.clone_dtoh(&y1)?, &first);
    assert_same(
        "updated from CUDA C",
        &stream.clone_dtoh(&y2)?,
        &affine(&second, 0.75, -2.0),
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_graph_updates_its_own_node_for_the_next_replay() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let (first, second) = (data(5.0), data(0.5));
    let mut y1 = stream.clone_htod(&first)?;
    let mut y2 = stream.clone_htod(&second)?;
    let mut status = stream.clone_htod(&[-1i32])?;
    // chain on y1, then a kernel that points the chain node at y2 with new scalars.
    let (mut graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            launch!(chain<<<4, 256, capture.stream(), device_updatable>>>(N, 4.0, -1.0, &mut y1))?;
            let device = capture.device_node(&capture.last_node()?)?;
            launch!(retarget<<<1, 32, capture.stream()>>>(device, 0.25, 2.0, &mut y2, &mut status))?;
            Ok(())
        })
    }?;
    graph.replay(&stream)?; // y1 = first·4 − 1, then the node is retargeted
    graph.replay(&stream)?; // y2 = second·0.25 + 2
    drop(graph);
    assert_update_applied(
        &stream,
        &status,
        "cudaGraphKernelNodeSetParam inside the graph",
    )?;
    assert_same(
        "first replay",
        &stream.clone_dtoh(&y1)?,
        &affine(&first, 4.0, -1.0),
    );
    assert_same(
        "second replay",
        &stream.clone_dtoh(&y2)?,
        &affine(&second, 0.25, 2.0),
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn replay_and_update_allocate_nothing_after_warm_up() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let s1 = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    let start = data(1.0);
    let mut y = s1.clone_htod(&start)?;
    let mut other = s1.clone_htod(&start)?;
    let (mut graph, nodes) = unsafe {
        Graph::capture(&s1, |capture| {
            let mut nodes = Vec::new();
            for _ in 0..8 {
                launch!(chain<<<4, 256, capture.stream()>>>(N, 1.0, 1.0, &mut y))?;
                nodes.push(capture.last_node()?);
            }
            Ok(nodes)
        })
    }?;
    let mut run = |graph: &mut Graph<'_>, count: usize| -> Result<(), chevron::Error> {
        for i in 0..count {
            for node in &nodes {
                unsafe { chain::kernel().update(graph, node, (N, 1.0, 2.0, &mut other)) }?;
            }
            graph.replay(if i.is_multiple_of(2) { &s1 } else { &s2 })?;
        }
        Ok(())
    };
    run(&mut graph, 2)?; // warms up: the first replays on each stream
    graph.synchronize()?;
    let before = counting::allocations();
    let rounds = 100;
    run(&mut graph, rounds)?;
    let allocations = counting::allocations() - before;
    drop(graph);
    println!(
        "{rounds} rounds of 8 updates + 1 replay on alternating streams: {allocations} allocations"
    );
    let got = s1.clone_dtoh(&other)?;
    let want: Vec<f32> = start
        .iter()
        .map(|v| v + (2 * 8 * (rounds + 2)) as f32)
        .collect();
    assert_same("updated chain", &got, &want);
    assert_eq!(allocations, 0, "replay or update allocated");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn update_scalars_keeps_the_buffers_and_instantiating_again_keeps_updates() -> TestResult {
    let _serial = gpu::serial();
    use chevron::MemSyncDomain;
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let (start, other) = (data(2.0), data(7.0));
    let mut y = stream.clone_htod(&start)?;
    let mut z = stream.clone_htod(&other)?;
    let (mut graph, node) = unsafe {
        Graph::capture(&stream, |capture| {
            launch!(chain<<<4, 256, capture.stream()>>>(N, 2.0, 1.0, &mut y))?;
            capture.last_node()
        })
    }?;
    graph.replay(&stream)?; // y = start·2 + 1
                            // New scalars, the captured buffer (still borrowed by the graph: it cannot be named here).
    unsafe { chain::kernel().update_scalars(&mut graph, &node, (N, 0.5, -1.0)) }?;
    graph.replay(&stream)?; // y = y·0.5 − 1
                            // A new buffer, then new scalars keeping that one.
    unsafe { chain::kernel().update(&mut graph, &node, (N, 3.0, 0.0, &mut z)) }?;
    unsafe { chain::kernel().update_scalars(&mut graph, &node, (N, 1.0, 4.0)) }?;
    graph.replay(&stream)?; // z = z + 4
                            // Instantiating again (a node attribute) starts from the updated arguments.
    graph.set_node_attribute(&node, MemSyncDomain::Remote)?;
    graph.replay(&stream)?; // z = z + 4
    drop(graph);
    let want_y = affine(&affine(&start, 2.0, 1.0), 0.5, -1.0);
    let want_z = affine(&affine(&other, 1.0, 4.0), 1.0, 4.0);
    assert_same(
        "update_scalars on the captured buffer",
        &stream.clone_dtoh(&y)?,
        &want_y,
    );
    assert_same(
        "update_scalars after a buffer update",
        &stream.clone_dtoh(&z)?,
        &want_z,
    );
    println!("update_scalars kept the captured buffer, then the updated one, across instantiation");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn node_attribute_set_after_capture_takes_effect() -> TestResult {
    let _serial = gpu::serial();
    use chevron::{sys, MemSyncDomain};
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let start = data(4.0);
    let mut y = stream.clone_htod(&start)?;
    let (mut graph, node) = unsafe {
        Graph::capture(&stream, |capture| {
            launch!(chain<<<4, 256, capture.stream()>>>(N, 0.5, 1.0, &mut y))?;
            capture.last_node()
        })
    }?;
    let read = |graph: &Graph<'_>| -> Result<sys::CUlaunchMemSyncDomain, chevron::Error> {
        let value = graph.node_attribute(&node, MemSyncDomain::ID)?;
        // SAFETY: the driver filled the union's member for this kind.
        Ok(unsafe { value.memSyncDomain })
    };
    let before = read(&graph)?;
    graph.set_node_attribute(&node, MemSyncDomain::Remote)?; // instantiates again
    let after = read(&graph)?;
    println!("node mem_sync_domain: {before:?} -> {after:?}");
    assert_eq!(
        after,
        sys::CUlaunchMemSyncDomain::CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE
    );
    assert_ne!(before, after);
    // The re-instantiated graph still runs the kernel.
    graph.replay(&stream)?;
    drop(graph);
    assert_same(
        "after set_node_attribute",
        &stream.clone_dtoh(&y)?,
        &affine(&start, 0.5, 1.0),
    );
    Ok(())
}

/// Each block spins `ns` nanoseconds of the global timer, then adds 1 to `*done`.
#[kernel(ptx = "kernels/priority.ptx")]
fn busy(done: &mut CudaSlice<u32>, ns: u64);

/// `*out = value`.
#[kernel(ptx = "kernels/priority.ptx")]
fn probe(out: &mut CudaSlice<u32>, value: u32);

/// `cuGraphExecGetFlags` does not read `CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY` back
/// (measured on the H200, CUDA 13.0 driver: 0 for an executable instantiated with it), which is
/// why `Graph::uses_node_priorities` answers from the graph instead. If a driver starts to
/// report it, this test fails, and the flag can be read back from the executable.
#[test]
#[ignore = "needs a CUDA GPU"]
fn use_node_priority_is_not_read_back_by_the_driver() -> TestResult {
    use chevron::sys;
    let ctx = gpu::context(0)?;
    ctx.bind_to_thread()?;
    let ok = sys::CUresult::CUDA_SUCCESS;
    let mut graph: sys::CUgraph = std::ptr::null_mut();
    let mut node: sys::CUgraphNode = std::ptr::null_mut();
    let mut exec: sys::CUgraphExec = std::ptr::null_mut();
    let mut flags: sys::cuuint64_t = 0;
    let flag = sys::CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
    // SAFETY: out-pointers valid; the graph and exec are destroyed below.
    let read = unsafe {
        assert_eq!(sys::cuGraphCreate(&mut graph, 0), ok);
        assert_eq!(
            sys::cuGraphAddEmptyNode(&mut node, graph, std::ptr::null(), 0),
            ok
        );
        let rc = sys::cuGraphInstantiateWithFlags(&mut exec, graph, u64::from(flag.0));
        assert_eq!(rc, ok, "cuGraphInstantiateWithFlags(USE_NODE_PRIORITY)");
        let rc = sys::cuGraphExecGetFlags(exec, &mut flags);
        sys::cuGraphExecDestroy(exec);
        sys::cuGraphDestroy(graph);
        rc
    };
    assert_eq!(read, ok);
    println!("cuGraphExecGetFlags after USE_NODE_PRIORITY: {flags:#x}");
    assert_eq!(
        flags & u64::from(flag.0),
        0,
        "the driver now reports the flag"
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn node_priority_applies_at_replay() -> TestResult {
    // As examples/priority.rs for the launch and stream positions, in a replayed graph: a
    // one-block probe replayed while a lowest-priority stream floods every SM with 20 µs blocks.
    // The two graphs differ only in the probe node's `priority = high`; both replay on the same
    // stream of the default priority, so without CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY
    // (chevron before it chose the flag) the node priority did nothing and both queued alike.
    let _serial = gpu::serial();
    use chevron::cudarc::driver::result;
    use chevron::sys;
    let ctx = gpu::context(0)?;
    ctx.bind_to_thread()?;
    let (low, high) = result::stream::get_priority_range()?;
    assert!(
        high < low,
        "the device has no stream priorities: {high}..{low}"
    );
    let sms = ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let flood = ctx.new_stream_with_priority(low)?;
    let replay = ctx.new_stream()?;
    chevron::set_stream_attribute(&replay, chevron::SyncPolicy::Spin)?;
    let mut done = flood.alloc_zeros::<u32>(1)?;
    let mut plain_out = replay.clone_htod(&[0xDEAD_BEEFu32])?;
    let mut high_out = replay.clone_htod(&[0xDEAD_BEEFu32])?;
    replay.synchronize()?;
    let (mut plain, plain_node) = unsafe {
        Graph::capture(&replay, |capture| {
            launch!(probe<<<1, 32, capture.stream()>>>(&mut plain_out, 0))?;
            capture.last_node()
        })
    }?;
    let (mut prioritized, high_node) = unsafe {
        Graph::capture(&replay, |capture| {
            launch!(probe<<<1, 32, capture.stream(), priority = high>>>(&mut high_out, 0))?;
            capture.last_node()
        })
    }?;
    let node_priority = prioritized.node_attribute(&high_node, chevron::Priority::ID)?;
    // SAFETY: the driver filled the union's member for this kind.
    let read = unsafe { node_priority.priority };
    assert_eq!(read, high, "the node's priority as captured");
    assert!(!gpu::uses_node_priority(&plain)?, "no node has a priority");
    assert!(
        gpu::uses_node_priority(&prioritized)?,
        "the probe node has priority {high}"
    );

    const BLOCK_NS: u64 = 20_000;
    const FLOOD_KERNELS: u32 = 16;
    const TRIALS: u32 = 31;
    let flood_grid = sms as u32 * 32;
    let mut flood_blocks = 0u64;
    let (mut plain_us, mut high_us) = (Vec::new(), Vec::new());
    for trial in 0..=TRIALS {
        for prioritized_now in [false, true] {
            let value = trial * 2 + prioritized_now as u32 + 1;
            unsafe {
                if prioritized_now {
                    probe::kernel().update_scalars(&mut prioritized, &high_node, (value,))
                } else {
                    probe::kernel().update_scalars(&mut plain, &plain_node, (value,))
                }
            }?;
            for _ in 0..FLOOD_KERNELS {
                // SAFETY: `done` holds one u32; the kernel touches nothing else.
                unsafe { launch!(busy<<<flood_grid, 256, &flood>>>(&mut done, BLOCK_NS)) }?;
            }
            flood_blocks += u64::from(flood_grid * FLOOD_KERNELS);
            let head_start = std::time::Instant::now();
            while head_start.elapsed() < std::time::Duration::from_micros(300) {
                std::hint::spin_loop();
            }
            let t = std::time::Instant::now();
            if prioritized_now {
                prioritized.replay(&replay)?;
                prioritized.synchronize()?;
            } else {
                plain.replay(&replay)?;
                plain.synchronize()?;
            }
            let us = t.elapsed().as_secs_f64() * 1e6;
            flood.synchronize()?;
            if trial > 0 {
                if prioritized_now {
                    &mut high_us
                } else {
                    &mut plain_us
                }
                .push(us);
            }
        }
    }
    drop((plain, prioritized));
    assert_eq!(
        replay.clone_dtoh(&plain_out)?,
        [TRIALS * 2 + 1],
        "the plain probe's last value"
    );
    assert_eq!(
        replay.clone_dtoh(&high_out)?,
        [TRIALS * 2 + 2],
        "the prioritized probe's last value"
    );
    assert_eq!(
        u64::from(flood.clone_dtoh(&done)?[0]),
        flood_blocks,
        "every flood block ran"
    );
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    let (plain_median, high_median) = (median(&mut plain_us), median(&mut high_us));
    println!(
        "replayed probe under a flood, median of {TRIALS}: no node priority {plain_median:.1} µs, \
         node `priority = {high}` {high_median:.1} µs"
    );
    // On the H200 the launch position measured 55 µs without and 23 µs with priority.
    assert!(
        high_median < 0.7 * plain_median,
        "the node priority did not shorten the probe's latency: {high_median:.1} µs against \
         {plain_median:.1} µs"
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn dropping_a_graph_waits_so_a_freed_buffer_is_not_written_by_its_replay() -> TestResult {
    // The sequence that corrupted memory on the H200 with `mem::forget(graph)` (now outside the
    // promise of the `unsafe` `Graph::capture`; ui-tests/fail/graph_capture_without_unsafe.rs),
    // kept: a long replay writes `y`, the graph is dropped, `y` is freed and its memory handed
    // to a new allocation on the same stream. Dropping waits for the replay, so the new buffer
    // keeps what it was given.
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let mut y = stream.clone_htod(&[0u32; 64])?;
    let y_ptr = {
        use chevron::cudarc::driver::DevicePtr;
        let (ptr, _record) = y.device_ptr(&stream);
        ptr
    };
    let (mut graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            // 50 ms, then y[0] += 1 by each of the 64 blocks.
            launch!(busy<<<64, 32, capture.stream()>>>(&mut y, 50_000_000))
        })
    }?;
    graph.replay(&stream)?;
    drop(graph); // waits for the replay
    drop(y);
    let fresh = stream.clone_htod(&[0xDEAD_BEEFu32; 64])?;
    let reused = {
        use chevron::cudarc::driver::DevicePtr;
        let (ptr, _record) = fresh.device_ptr(&stream);
        ptr == y_ptr
    };
    stream.synchronize()?;
    std::thread::sleep(std::time::Duration::from_millis(100)); // past any replay still running
    let got = stream.clone_dtoh(&fresh)?;
    println!(
        "the new buffer {} the freed one's memory",
        if reused { "reuses" } else { "does not reuse" }
    );
    assert!(
        got.iter().all(|&v| v == 0xDEAD_BEEF),
        "a replay wrote a freed buffer: {:?}",
        &got[..4]
    );
    Ok(())
}

/// `nvlink_centric` on a launch inside a capture: the capture drops it (measured,
/// `capture_column_matches_the_driver`), so chevron refuses the launch with the fix (set it on
/// the node after the capture); the same launch outside a capture runs, and the fix runs: the
/// driver takes the attribute on the node, and the replay computes what it should.
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_kind_the_capture_drops_is_refused_in_a_capture_and_set_on_the_node_instead() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let mut y = stream.clone_htod(&vec![1.0f32; N as usize])?;
    let blocks = N.div_ceil(256);
    unsafe { launch!(chain<<<blocks, 256, &stream, nvlink_centric>>>(N, 2.0, 1.0, &mut y)) }?;
    assert_same(
        "outside a capture",
        &stream.clone_dtoh(&y)?,
        &vec![3.0; N as usize],
    );
    // The refused capture's borrow of `y` ends with this block.
    let message = {
        let refused = unsafe {
            Graph::capture(
                &stream,
                |capture| launch!(chain<<<blocks, 256, capture.stream(), nvlink_centric>>>(N, 2.0, 1.0, &mut y)),
            )
        };
        match refused {
            Err(chevron::Error::Graph { message, .. }) => message,
            Err(other) => panic!("another error: {other}"),
            Ok(_) => panic!("a capture dropping `nvlink_centric` was accepted"),
        }
    };
    assert!(
        message.contains("`nvlink_centric`") && message.contains("Graph::set_node_attribute"),
        "{message}"
    );
    println!("refused in a capture: {message}");
    let (mut graph, node) = unsafe {
        Graph::capture(&stream, |capture| {
            launch!(chain<<<blocks, 256, capture.stream()>>>(N, 2.0, 1.0, &mut y))?;
            capture.last_node()
        })
    }?;
    // The driver takes it on the node (the graph node column), though it does not read it back
    // (`cuGraphKernelNodeGetAttribute`: CUDA_ERROR_INVALID_VALUE on the H200, CUDA 13.0).
    graph.set_node_attribute(&node, chevron::NvlinkCentric)?;
    let read = graph.node_attribute(&node, chevron::NvlinkCentric::ID);
    println!(
        "nvlink_centric read back from the node: {:?}",
        read.as_ref().map(|_| ())
    );
    graph.replay(&stream)?;
    stream.synchronize()?;
    drop(graph);
    // 1 → 3 (outside) → 7 (the replay); the refused capture recorded nothing.
    assert_same(
        "after the replay",
        &stream.clone_dtoh(&y)?,
        &vec![7.0; N as usize],
    );
    Ok(())
}
