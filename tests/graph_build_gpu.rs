//! Graphs built by hand (`Graph::build`) on the GPU: a diamond (memsets → two kernels → a copy
//! and a host node → a join → an event record, after an event wait) replayed several times in
//! rounds on poisoned buffers, its kernel node updated between replays, against the host's
//! reference; the edges the dependencies made; a child graph; typed errors for nodes of another
//! builder (another build's, a child's), a kernel body that captured nothing and a builder
//! spoiled by a failed kernel body.

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, BuiltNode, Error, Graph, GraphNode, KernelName};

/// y = y·a + b
#[kernel(ptx = "kernels/chain.ptx")]
fn chain(n: u32, a: f32, b: f32, y: &mut CudaSlice<f32>);

/// y = x·a + b
#[kernel(ptx = "kernels/chain.ptx")]
fn chain_copy(n: u32, a: f32, b: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

type TestResult = Result<(), Box<dyn std::error::Error>>;

const N: u32 = 1000;

fn poison() -> Vec<f32> {
    vec![f32::NAN; N as usize]
}

fn assert_all(what: &str, got: &[f32], want: f32) {
    assert_eq!(got.len(), N as usize, "{what}");
    for (i, g) in got.iter().enumerate() {
        assert!(
            (g - want).abs() <= 1e-5 * want.abs().max(1.0),
            "{what}: [{i}] = {g}, want {want}"
        );
    }
}

fn graph_message(e: Error) -> String {
    match e {
        Error::Graph { message, .. } => message,
        other => panic!("expected Error::Graph, got {other}"),
    }
}

/// The memset value of `x` and the scalars of the diamond's kernels.
const X: f32 = 1.5;
const B1: f32 = 0.5;
const A2: f32 = -2.0;
const B2: f32 = -1.0;

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_diamond_replays_in_dependency_order_and_updates() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let other = ctx.new_stream()?;
    let blocks = N.div_ceil(256);
    let gate = ctx.new_event(None)?;
    let done = ctx.new_event(None)?;
    for round in 0..3u32 {
        // Fresh poisoned buffers each round: a node that did not run leaves NaN behind.
        let mut x = other.clone_htod(&poison())?;
        let mut y1 = other.clone_htod(&poison())?;
        let mut y2 = other.clone_htod(&poison())?;
        let mut z = other.clone_htod(&poison())?;
        gate.record(&other)?; // the graph's first node waits for it
        let calls = Arc::new(AtomicU32::new(0));
        let a1_first = round as f32 + 0.25;
        let (mut graph, (k1, nodes)) = unsafe {
            Graph::build(&ctx, |b| {
                let wait = b.wait(&[], &gate)?;
                let mx = b.memset(&[wait], &mut x, X)?;
                let (k1, node1) = b.kernel(&[mx], |c| {
                    launch!(chain_copy<<<blocks, 256, c.stream()>>>(N, a1_first, B1, &x, &mut y1))?;
                    c.last_node()
                })?;
                let (k2, ()) = b.kernel(
                    &[mx],
                    |c| launch!(chain_copy<<<blocks, 256, c.stream()>>>(N, A2, B2, &x, &mut y2)),
                )?;
                let copy = b.memcpy(&[k1], &mut z, &y1)?;
                let counter = calls.clone();
                let host = b.host(&[k1, k2], move || {
                    counter.fetch_add(1, Ordering::Relaxed);
                })?;
                let join = b.empty(&[copy, host])?;
                let record = b.record(&[join], &done)?;
                Ok((node1, [wait, mx, k1, k2, copy, host, join, record]))
            })
        }?;
        // Building runs nothing.
        assert_eq!(calls.load(Ordering::Relaxed), 0);
        let edges = graph.edges()?;
        let raw = |n: BuiltNode| n.raw();
        let [wait, mx, k1n, k2n, copy, host, join, record] = nodes.map(raw);
        let mut want = vec![
            (wait, mx),
            (mx, k1n),
            (mx, k2n),
            (k1n, copy),
            (k1n, host),
            (k2n, host),
            (copy, join),
            (host, join),
            (join, record),
        ];
        let mut got: Vec<_> = edges.iter().map(|e| (e.from, e.to)).collect();
        want.sort();
        got.sort();
        assert_eq!(got, want, "the edges are the dependencies given");
        assert!(edges.iter().all(|e| !e.programmatic));

        let replays = 4u32;
        let mut a1 = a1_first;
        for k in 0..replays {
            if k > 0 {
                a1 = a1_first + k as f32;
                // SAFETY: the node is chain_copy's over N elements; it keeps its buffers.
                unsafe { chain_copy::kernel().update_scalars(&mut graph, &k1, (N, a1, B1)) }?;
            }
            // Every other replay on another stream: ordered after the previous one.
            let on = if k % 2 == 0 { &stream } else { &other };
            graph.replay(on)?;
        }
        done.synchronize()?;
        assert_eq!(
            calls.load(Ordering::Relaxed),
            replays,
            "the host node ran once per replay, before the event was recorded"
        );
        drop(graph);
        assert_all("x (memset)", &stream.clone_dtoh(&x)?, X);
        let y1_want = X.mul_add(a1, B1);
        assert_all("y1 (updated kernel)", &stream.clone_dtoh(&y1)?, y1_want);
        assert_all("y2 (kernel)", &stream.clone_dtoh(&y2)?, X.mul_add(A2, B2));
        assert_all("z (copy of y1)", &stream.clone_dtoh(&z)?, y1_want);
        println!(
            "round {round}: {replays} replays, y1 = {y1_want}, host node called {replays} times"
        );
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_child_graph_runs_inside_its_node() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let blocks = N.div_ceil(256);
    let mut w = stream.clone_htod(&poison())?;
    let mut v = stream.clone_htod(&poison())?;
    let calls = Arc::new(AtomicU32::new(0));
    let (mut graph, (child_node, inner)) = unsafe {
        Graph::build(&ctx, |b| {
            let counter = calls.clone();
            let (child, inner) = b.child(&[], |c| {
                let set = c.memset(&[], &mut w, 3.0f32)?;
                let (step, ()) = c.kernel(
                    &[set],
                    |cap| launch!(chain<<<blocks, 256, cap.stream()>>>(N, 2.0, 1.0, &mut w)),
                )?;
                // A host node of the child: its function moves into the parent's graph.
                c.host(&[step], move || {
                    counter.fetch_add(1, Ordering::Relaxed);
                })?;
                Ok(step)
            })?;
            let copy = b.memcpy(&[child], &mut v, &w)?;
            b.kernel(
                &[copy],
                |cap| launch!(chain<<<blocks, 256, cap.stream()>>>(N, 0.5, 0.0, &mut v)),
            )?;
            // A node of the child is not the parent's.
            let refused = b.empty(&[inner]).map(|_| ());
            let message = graph_message(refused.expect_err("a child's node"));
            assert!(message.contains("another graph builder"), "{message}");
            Ok((child, inner))
        })
    }?;
    assert_ne!(child_node.raw(), inner.raw());
    for _ in 0..3 {
        graph.replay(&stream)?;
    }
    graph.synchronize()?;
    assert_eq!(
        calls.load(Ordering::Relaxed),
        3,
        "the child's host node, once per replay"
    );
    drop(graph);
    assert_all(
        "w (child: memset 3, then ·2 + 1)",
        &stream.clone_dtoh(&w)?,
        7.0,
    );
    assert_all("v (copy of w, then ·0.5)", &stream.clone_dtoh(&v)?, 3.5);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn misuse_is_a_typed_error() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let mut y = stream.clone_htod(&poison())?;
    let mut short = stream.alloc_zeros::<f32>(10)?;

    // A node of another build.
    let (first, node) = unsafe { Graph::build(&ctx, |b| b.memset(&[], &mut y, 0.0f32)) }?;
    drop(first);
    let e = unsafe { Graph::build(&ctx, |b| b.empty(&[node])) }.expect_err("a foreign node");
    let message = graph_message(e);
    assert!(
        message.starts_with("dependency 0 is a node of another graph builder"),
        "{message}"
    );

    // Copies of two lengths; an empty memset.
    let e = unsafe { Graph::build(&ctx, |b| b.memcpy(&[], &mut short, &y)) }.expect_err("lengths");
    assert!(graph_message(e).contains("copies 1000 elements into 10"));
    let mut flags = stream.alloc_zeros::<u32>(4)?;
    let mut empty = flags.slice_mut(0..0);
    let e = unsafe { Graph::build(&ctx, |b| b.memset(&[], &mut empty, 0u32)) }.expect_err("empty");
    assert!(graph_message(e).contains("is empty"));

    // A kernel body that captured nothing leaves the builder usable; one that failed spoils it,
    // and a build whose body went on regardless does not instantiate.
    let spoiled = unsafe {
        Graph::build(&ctx, |b| {
            let nothing = b.kernel(&[], |_| Ok(())).map(|_| ());
            assert!(graph_message(nothing.expect_err("no work")).contains("captured no work"));
            b.empty(&[])?;
            let failed = b.kernel(&[], |c| {
                launch!(chain<<<4, 256, c.stream()>>>(N, 1.0, 0.0, &mut y))?;
                Err::<(), _>(Error::Graph {
                    kernel: KernelName(None),
                    message: "the body's own error".to_string(),
                })
            });
            assert_eq!(
                graph_message(failed.map(|_| ()).expect_err("body")),
                "the body's own error"
            );
            let after = b.empty(&[]).map(|_| ());
            assert!(graph_message(after.expect_err("spoiled")).contains("failed part way"));
            Ok(())
        })
    }
    .map(|_| ())
    .expect_err("a spoiled builder instantiates nothing");
    assert!(graph_message(spoiled).contains("failed part way"));

    // A host function's panic is caught, the replay goes on, and `synchronize` reports it once.
    let mut after_panic = stream.clone_htod(&[0u32])?;
    let (mut panicking, ()) = unsafe {
        Graph::build(&ctx, |b| {
            let host = b.host(&[], || panic!("a host node's function panics"))?;
            b.memset(&[host], &mut after_panic, 9u32)?;
            Ok(())
        })
    }?;
    panicking.replay(&stream)?;
    let e = panicking.synchronize().expect_err("the panic is reported");
    assert!(graph_message(e).contains("panicked (1 time since"));
    panicking.synchronize()?; // reported once
    drop(panicking);
    assert_eq!(
        stream.clone_dtoh(&after_panic)?,
        [9],
        "the node after it ran"
    );

    // A kernel node of a built graph updates only that graph.
    let mut z = stream.clone_htod(&poison())?;
    let (mut built, built_node): (Graph<'_>, GraphNode) = unsafe {
        Graph::build(&ctx, |b| {
            let (_, node) = b.kernel(&[], |c| {
                launch!(chain<<<4, 256, c.stream()>>>(N, 1.0, 0.0, &mut z))?;
                c.last_node()
            })?;
            Ok(node)
        })
    }?;
    built.replay(&stream)?;
    let mut u = stream.clone_htod(&poison())?;
    let (mut captured, ()) = unsafe {
        Graph::capture(
            &stream,
            |capture| launch!(chain<<<4, 256, capture.stream()>>>(N, 1.0, 0.0, &mut u)),
        )
    }?;
    let e = unsafe { chain::kernel().update_scalars(&mut captured, &built_node, (N, 2.0, 0.0)) }
        .expect_err("a built graph's node on a captured graph");
    assert!(graph_message(e).contains("belongs to another graph"));
    Ok(())
}
