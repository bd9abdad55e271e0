//! Typed graph updates with ordered buffers (`graph.ordered(&mut y)`,
//! `KERNEL::kernel().update_ordered`): the same results as `update` and the host over several
//! rounds with alternating buffers; an ordered buffer of another graph refused; and the ordering
//! kept: a buffer still being written by a slow kernel on another stream is read by the replay only
//! after that write, also when the replay runs on a third stream after a synchronize; every update
//! path and a replay work with no context current on the thread; and the same inside a batch
//! (`Graph::updates`, the context checked once), which binds the context where none is current; and
//! the updated arguments of every node kept when the graph is instantiated again.

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::Arc;

use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch, Graph, GraphNode};

/// y = y·a + b
#[kernel(ptx = "kernels/chain.ptx")]
fn chain(n: u32, a: f32, b: f32, y: &mut CudaSlice<f32>);

/// y = x·a + b
#[kernel(ptx = "kernels/chain.ptx")]
fn chain_copy(n: u32, a: f32, b: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

/// Spins about `spin` × 0.5 µs, then `buf[i] = v + i`.
#[kernel(ptx = "kernels/pipeline.ptx")]
fn produce(buf: &mut CudaSlice<f32>, v: f32, n: u32, spin: u32);

type TestResult = Result<(), Box<dyn std::error::Error>>;

const N: u32 = 1000;
const NODES: usize = 16;

fn data(seed: f32) -> Vec<f32> {
    (0..N).map(|i| seed + (i % 97) as f32 * 0.25).collect()
}

/// Node `k`'s arguments in round `round`: `a` a power of two, so the GPU's fused multiply-add
/// and the host's agree exactly.
fn args(k: usize, round: usize) -> (f32, f32) {
    let a = if (k + round).is_multiple_of(2) {
        0.5
    } else {
        2.0
    };
    (a, (k as f32) * 0.25 - round as f32)
}

fn host_round(y: &mut [f32], round: usize) {
    for k in 0..NODES {
        let (a, b) = args(k, round);
        for v in y.iter_mut() {
            *v = v.mul_add(a, b);
        }
    }
}

fn chain_graph<'a>(
    stream: &Arc<CudaStream>,
    y: &'a mut CudaSlice<f32>,
) -> Result<(Graph<'a>, Vec<GraphNode>), chevron::Error> {
    unsafe {
        Graph::capture(stream, move |capture| {
            let mut nodes = Vec::new();
            for k in 0..NODES {
                let (a, b) = args(k, 0);
                launch!(chain<<<N.div_ceil(256), 256, capture.stream()>>>(N, a, b, &mut *y))?;
                nodes.push(capture.last_node()?);
            }
            Ok(nodes)
        })
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn update_ordered_equals_update_and_the_host() -> TestResult {
    let _serial = gpu::serial();
    const ROUNDS: usize = 5;
    let stream = gpu::context(0)?.new_stream()?;
    let mut captured = [
        stream.clone_htod(&data(0.0))?,
        stream.clone_htod(&data(0.0))?,
    ];
    let mut plain = [
        stream.clone_htod(&data(1.0))?,
        stream.clone_htod(&data(-2.0))?,
    ];
    let mut ordered = [
        stream.clone_htod(&data(1.0))?,
        stream.clone_htod(&data(-2.0))?,
    ];
    let mut want = [data(1.0), data(-2.0)];
    let [c0, c1] = &mut captured;
    let (mut g_plain, plain_nodes) = chain_graph(&stream, c0)?;
    let (mut g_ordered, ordered_nodes) = chain_graph(&stream, c1)?;
    for round in 0..ROUNDS {
        let which = round % 2;
        for (k, node) in plain_nodes.iter().enumerate() {
            let (a, b) = args(k, round);
            unsafe { chain::kernel().update(&mut g_plain, node, (N, a, b, &mut plain[which])) }?;
        }
        g_plain.replay(&stream)?;
        {
            let y = g_ordered.ordered(&mut ordered[which])?;
            for (k, node) in ordered_nodes.iter().enumerate() {
                let (a, b) = args(k, round);
                unsafe { chain::kernel().update_ordered(&mut g_ordered, node, (N, a, b), (&y,)) }?;
            }
        }
        g_ordered.replay(&stream)?;
        host_round(&mut want[which], round);
    }
    drop(g_plain);
    drop(g_ordered);
    for which in 0..2 {
        let (p, o) = (
            stream.clone_dtoh(&plain[which])?,
            stream.clone_dtoh(&ordered[which])?,
        );
        println!(
            "buffer {which}: update {:?}, update_ordered {:?}, host {:?}",
            &p[..3],
            &o[..3],
            &want[which][..3]
        );
        assert_eq!(p, want[which], "update, buffer {which}");
        assert_eq!(o, want[which], "update_ordered, buffer {which}");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn an_ordered_buffer_of_another_graph_is_refused() -> TestResult {
    let _serial = gpu::serial();
    let stream = gpu::context(0)?.new_stream()?;
    let (mut y0, mut y1) = (
        stream.clone_htod(&data(0.0))?,
        stream.clone_htod(&data(0.0))?,
    );
    let mut z = stream.clone_htod(&data(3.0))?;
    let (first, _) = chain_graph(&stream, &mut y0)?;
    let (mut second, nodes) = chain_graph(&stream, &mut y1)?;
    let z = first.ordered(&mut z)?;
    let err =
        unsafe { chain::kernel().update_ordered(&mut second, &nodes[0], (N, 1.0, 0.0), (&z,)) }
            .expect_err("an ordered buffer of another graph was taken");
    println!("{err}");
    assert!(matches!(err, chevron::Error::Graph { .. }), "{err:?}");
    assert!(err.to_string().contains("another graph"), "{err}");
    Ok(())
}

/// A one-node graph `w = x·2 + 1` whose input is then pointed at `z` while a slow kernel on
/// `writer` is still writing it (`z[i] = 5 + i` after spinning); `replay_on` replays it.
/// Returns `w` as the host reads it afterwards.
fn read_while_written(
    capture_on: &Arc<CudaStream>,
    writer: &Arc<CudaStream>,
    replay_on: &Arc<CudaStream>,
    synchronize_first: bool,
) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let x = capture_on.clone_htod(&data(1.0))?;
    let mut y = capture_on.clone_htod(&vec![f32::NAN; N as usize])?;
    let mut z = capture_on.clone_htod(&vec![f32::NAN; N as usize])?;
    let mut w = capture_on.clone_htod(&vec![f32::NAN; N as usize])?;
    capture_on.synchronize()?;
    let (mut graph, node) = unsafe {
        Graph::capture(capture_on, |capture| {
            launch!(chain_copy<<<N.div_ceil(256), 256, capture.stream()>>>(N, 2.0, 1.0, &x, &mut y))?;
            capture.last_node()
        })
    }?;
    graph.replay(capture_on)?;
    if synchronize_first {
        graph.synchronize()?;
    }
    // About 20 ms of spinning before the write; cudarc records the write on `z`'s event.
    unsafe { launch!(produce<<<N.div_ceil(256), 256, writer>>>(&mut z, 5.0, N, 40_000)) }?;
    {
        let z = graph.ordered_read(&z)?;
        let w = graph.ordered(&mut w)?;
        unsafe { chain_copy::kernel().update_ordered(&mut graph, &node, (N, 2.0, 1.0), (&z, &w)) }?;
    }
    graph.replay(replay_on)?;
    drop(graph);
    Ok(capture_on.clone_dtoh(&w)?)
}

fn assert_after_the_write(what: &str, w: &[f32]) {
    println!("{what}: w[0..3] = {:?}", &w[..3]);
    for (i, &v) in w.iter().enumerate() {
        let want = (5.0 + i as f32).mul_add(2.0, 1.0);
        assert_eq!(
            v, want,
            "{what}: w[{i}] (NaN: the replay read `z` before its write)"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn an_ordered_buffer_waits_for_its_writer_on_another_stream() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let (graph_stream, writer) = (ctx.new_stream()?, ctx.new_stream()?);
    let w = read_while_written(&graph_stream, &writer, &graph_stream, false)?;
    assert_after_the_write("replay on the graph's stream", &w);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_ordering_holds_for_a_replay_on_a_third_stream_after_a_synchronize() -> TestResult {
    let _serial = gpu::serial();
    let ctx = gpu::context(0)?;
    let (graph_stream, writer, third) = (ctx.new_stream()?, ctx.new_stream()?, ctx.new_stream()?);
    let w = read_while_written(&graph_stream, &writer, &third, true)?;
    assert_after_the_write("replay on a third stream after a synchronize", &w);
    Ok(())
}

/// The typed updates and a replay on the last stream ask the driver which context is current at
/// every call (`cuCtxGetCurrent`, never assumed from an earlier bind) and bind the graph's where
/// none is: with no context current on the thread before each call (a raw
/// `cuCtxSetCurrent(NULL)`), each still works, and the results equal the host's.
#[test]
#[ignore = "needs a CUDA GPU"]
fn updates_and_replays_work_with_no_context_current() -> TestResult {
    let _serial = gpu::serial();
    const ROUNDS: usize = 4;
    let stream = gpu::context(0)?.new_stream()?;
    let mut captured = stream.clone_htod(&data(0.0))?;
    let mut captured_ordered = stream.clone_htod(&data(0.0))?;
    let mut plain = [
        stream.clone_htod(&data(1.0))?,
        stream.clone_htod(&data(1.0))?,
    ];
    let mut ordered_y = [
        stream.clone_htod(&data(2.0))?,
        stream.clone_htod(&data(2.0))?,
    ];
    let mut kept = stream.clone_htod(&data(3.0))?;
    let mut want_plain = [data(1.0), data(1.0)];
    let mut want_ordered = [data(2.0), data(2.0)];
    let mut want_kept = data(3.0);
    {
        let (mut update_graph, update_nodes) = chain_graph(&stream, &mut captured)?;
        let (mut scalar_graph, scalar_nodes) = chain_graph(&stream, &mut kept)?;
        let (mut ordered_graph, ordered_nodes) = chain_graph(&stream, &mut captured_ordered)?;
        let ord = {
            let [y0, y1] = &mut ordered_y;
            [ordered_graph.ordered(y0)?, ordered_graph.ordered(y1)?]
        };
        for round in 0..ROUNDS {
            let (p, o) = (&mut plain[round % 2], &ord[round % 2]);
            for (k, node) in update_nodes.iter().enumerate() {
                let (a, b) = args(k, round);
                unbind()?;
                // SAFETY: the node is `chain`'s on N elements, as is the buffer, untouched by
                // the host until the graph is dropped.
                unsafe { chain::kernel().update(&mut update_graph, node, (N, a, b, &mut *p)) }?;
            }
            for (k, node) in ordered_nodes.iter().enumerate() {
                let (a, b) = args(k, round);
                unbind()?;
                // SAFETY: as above.
                unsafe {
                    chain::kernel().update_ordered(&mut ordered_graph, node, (N, a, b), (o,))
                }?;
            }
            for (k, node) in scalar_nodes.iter().enumerate() {
                let (a, b) = args(k, round);
                unbind()?;
                // SAFETY: as above; the captured buffer is kept.
                unsafe { chain::kernel().update_scalars(&mut scalar_graph, node, (N, a, b)) }?;
            }
            for graph in [&mut update_graph, &mut ordered_graph, &mut scalar_graph] {
                unbind()?;
                graph.replay(&stream)?;
            }
            host_round(&mut want_plain[round % 2], round);
            host_round(&mut want_ordered[round % 2], round);
            host_round(&mut want_kept, round);
        }
        unbind()?;
        drop(update_graph);
        drop(scalar_graph);
        drop(ordered_graph);
    }
    for (what, got, want) in [
        ("update, buffer 0", &plain[0], &want_plain[0]),
        ("update, buffer 1", &plain[1], &want_plain[1]),
        ("update_ordered, buffer 0", &ordered_y[0], &want_ordered[0]),
        ("update_ordered, buffer 1", &ordered_y[1], &want_ordered[1]),
        ("update_scalars", &kept, &want_kept),
    ] {
        assert_eq!(&stream.clone_dtoh(got)?, want, "{what}");
    }
    Ok(())
}

/// The current context of this thread (null: none).
fn current_context() -> Result<chevron::sys::CUcontext, String> {
    let mut current = std::ptr::null_mut();
    // SAFETY: an out-pointer to a local.
    let rc = unsafe { chevron::sys::cuCtxGetCurrent(&mut current) };
    if rc != chevron::sys::cudaError_enum::CUDA_SUCCESS {
        return Err(format!("cuCtxGetCurrent: {rc:?}"));
    }
    Ok(current)
}

/// Makes no context current on this thread (a raw `cuCtxSetCurrent(NULL)`), checked.
fn unbind() -> Result<(), String> {
    // SAFETY: unbinds whatever context is current on this thread; nothing else runs here.
    let rc = unsafe { chevron::sys::cuCtxSetCurrent(std::ptr::null_mut()) };
    if rc != chevron::sys::cudaError_enum::CUDA_SUCCESS {
        return Err(format!("cuCtxSetCurrent(NULL): {rc:?}"));
    }
    match current_context()? {
        c if c.is_null() => Ok(()),
        c => Err(format!("{c:?} current: want none")),
    }
}

/// Every typed update path and the replays inside batches (`Graph::updates`: the context
/// checked once per batch, not per call), over rounds with alternating buffers: the same
/// results as the host. After the batches the per-call check is back: an update and a replay
/// with no context current still work (they would reach the driver without a context if the
/// batch's mark had stayed).
#[test]
#[ignore = "needs a CUDA GPU"]
fn batched_updates_and_replays_equal_the_host() -> TestResult {
    let _serial = gpu::serial();
    const ROUNDS: usize = 5;
    let stream = gpu::context(0)?.new_stream()?;
    let mut captured = stream.clone_htod(&vec![f32::NAN; N as usize])?;
    let mut captured_ordered = stream.clone_htod(&vec![f32::NAN; N as usize])?;
    let mut plain = [
        stream.clone_htod(&data(1.0))?,
        stream.clone_htod(&data(-1.5))?,
    ];
    let mut ordered_y = [
        stream.clone_htod(&data(2.0))?,
        stream.clone_htod(&data(0.5))?,
    ];
    let mut kept = stream.clone_htod(&data(3.0))?;
    let mut want_plain = [data(1.0), data(-1.5)];
    let mut want_ordered = [data(2.0), data(0.5)];
    let mut want_kept = data(3.0);
    {
        let (mut update_graph, update_nodes) = chain_graph(&stream, &mut captured)?;
        let (mut scalar_graph, scalar_nodes) = chain_graph(&stream, &mut kept)?;
        let (mut ordered_graph, ordered_nodes) = chain_graph(&stream, &mut captured_ordered)?;
        let ord = {
            let [y0, y1] = &mut ordered_y;
            [ordered_graph.ordered(y0)?, ordered_graph.ordered(y1)?]
        };
        for round in 0..ROUNDS {
            let (p, o) = (&mut plain[round % 2], &ord[round % 2]);
            // SAFETY (each batch): nothing in the body changes the thread's current context;
            // the nodes are `chain`'s on N elements, as are the buffers, untouched by the host
            // until the graphs are dropped.
            let n = unsafe {
                update_graph.updates(|g| {
                    for (k, node) in update_nodes.iter().enumerate() {
                        let (a, b) = args(k, round);
                        chain::kernel().update(g, node, (N, a, b, &mut *p))?;
                    }
                    g.replay(&stream)?;
                    Ok(update_nodes.len())
                })
            }?;
            assert_eq!(n, NODES, "the body's result");
            unsafe {
                ordered_graph.updates(|g| {
                    for (k, node) in ordered_nodes.iter().enumerate() {
                        let (a, b) = args(k, round);
                        chain::kernel().update_ordered(g, node, (N, a, b), (o,))?;
                    }
                    g.replay(&stream)
                })
            }?;
            unsafe {
                scalar_graph.updates(|g| {
                    for (k, node) in scalar_nodes.iter().enumerate() {
                        let (a, b) = args(k, round);
                        chain::kernel().update_scalars(g, node, (N, a, b))?;
                    }
                    g.replay(&stream)
                })
            }?;
            host_round(&mut want_plain[round % 2], round);
            host_round(&mut want_ordered[round % 2], round);
            host_round(&mut want_kept, round);
        }
        // Outside a batch again: each call checks (and binds) the context.
        let round = ROUNDS;
        for (k, node) in scalar_nodes.iter().enumerate() {
            let (a, b) = args(k, round);
            unbind()?;
            // SAFETY: as above.
            unsafe { chain::kernel().update_scalars(&mut scalar_graph, node, (N, a, b)) }?;
        }
        unbind()?;
        scalar_graph.replay(&stream)?;
        host_round(&mut want_kept, round);
        drop(update_graph);
        drop(scalar_graph);
        drop(ordered_graph);
    }
    for (what, got, want) in [
        ("update, buffer 0", &plain[0], &want_plain[0]),
        ("update, buffer 1", &plain[1], &want_plain[1]),
        ("update_ordered, buffer 0", &ordered_y[0], &want_ordered[0]),
        ("update_ordered, buffer 1", &ordered_y[1], &want_ordered[1]),
        ("update_scalars", &kept, &want_kept),
    ] {
        let got = stream.clone_dtoh(got)?;
        println!("{what}: {:?}, host {:?}", &got[..3], &want[..3]);
        assert_eq!(&got, want, "{what}");
    }
    Ok(())
}

/// A batch entered on a thread with no context current binds the graph's context before its
/// body runs (its calls then skip the check), and the updates and the replay inside it give the
/// host's results.
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_batch_binds_the_context_where_none_is_current() -> TestResult {
    let _serial = gpu::serial();
    const ROUNDS: usize = 3;
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let mut kept = stream.clone_htod(&data(-4.0))?;
    let mut want = data(-4.0);
    {
        let (mut graph, nodes) = chain_graph(&stream, &mut kept)?;
        for round in 0..ROUNDS {
            unbind()?;
            // SAFETY: nothing in the body changes the thread's current context; the node is
            // `chain`'s on N elements and keeps its captured buffer.
            let bound = unsafe {
                graph.updates(|g| {
                    let bound = current_context();
                    for (k, node) in nodes.iter().enumerate() {
                        let (a, b) = args(k, round);
                        chain::kernel().update_scalars(g, node, (N, a, b))?;
                    }
                    g.replay(&stream)?;
                    Ok(bound)
                })
            }?;
            assert_eq!(
                bound?,
                ctx.cu_ctx(),
                "the graph's context, current in the body"
            );
            host_round(&mut want, round);
        }
        unbind()?;
        drop(graph);
    }
    let got = stream.clone_dtoh(&kept)?;
    println!(
        "update_scalars in batches: {:?}, host {:?}",
        &got[..3],
        &want[..3]
    );
    assert_eq!(got, want);
    Ok(())
}

/// The records of updated arguments across instantiations: every node updated (in a batch; the
/// records' storage grows, and moves, as nodes are first updated), then the graph instantiated
/// again (`set_node_attribute`), which writes each node's record into the graph: the replays
/// after it run the updated arguments, also when only some nodes were updated since.
#[test]
#[ignore = "needs a CUDA GPU"]
fn instantiating_again_keeps_every_nodes_update() -> TestResult {
    use chevron::MemSyncDomain;
    let _serial = gpu::serial();
    let stream = gpu::context(0)?.new_stream()?;
    let mut kept = stream.clone_htod(&data(0.75))?;
    let mut want = data(0.75);
    let host = |want: &mut Vec<f32>, arg: &dyn Fn(usize) -> (f32, f32)| {
        for k in 0..NODES {
            let (a, b) = arg(k);
            for v in want.iter_mut() {
                *v = v.mul_add(a, b);
            }
        }
    };
    // Even nodes take round 2's arguments, odd ones keep round 1's.
    let mixed = |k: usize| args(k, if k.is_multiple_of(2) { 2 } else { 1 });
    {
        let (mut graph, nodes) = chain_graph(&stream, &mut kept)?;
        // SAFETY (each batch): nothing in the body changes the thread's current context; the
        // nodes are `chain`'s on N elements and keep their captured buffer.
        unsafe {
            graph.updates(|g| {
                for (k, node) in nodes.iter().enumerate() {
                    let (a, b) = args(k, 1);
                    chain::kernel().update_scalars(g, node, (N, a, b))?;
                }
                g.replay(&stream)
            })
        }?;
        host(&mut want, &|k| args(k, 1));
        graph.set_node_attribute(&nodes[0], MemSyncDomain::Remote)?;
        graph.replay(&stream)?;
        host(&mut want, &|k| args(k, 1));
        unsafe {
            graph.updates(|g| {
                for (k, node) in nodes.iter().enumerate().step_by(2) {
                    let (a, b) = args(k, 2);
                    chain::kernel().update_scalars(g, node, (N, a, b))?;
                }
                Ok(())
            })
        }?;
        graph.set_node_attribute(&nodes[1], MemSyncDomain::Remote)?;
        graph.replay(&stream)?;
        host(&mut want, &mixed);
        drop(graph);
    }
    let got = stream.clone_dtoh(&kept)?;
    println!(
        "across instantiations: {:?}, host {:?}",
        &got[..3],
        &want[..3]
    );
    assert_eq!(got, want);
    Ok(())
}
