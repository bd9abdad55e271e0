//! Conditional graph nodes on the GPU: a `while` loop, an `if`, an `if`/`else`, a `switch` and
//! an `if` nested in a `while`, each decided by a kernel with `cudaGraphSetConditional` and
//! checked against what the host expects after several replays (outputs poisoned first); a
//! kernel node inside a body updated between replays; and the misuses that are typed errors: a
//! condition of another graph, work on an enclosing capture's stream inside a body, `sync` on a
//! body's stream, a cooperative launch and an allocation in a body.

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::Arc;

use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch, ConditionalHandle, Graph};

/// `*counter += 1`, `trace[*counter - 1] = 10 · *counter`, and the loop goes on while
/// `*counter < limit`.
#[kernel(ptx = "kernels/conditional.ptx")]
fn count_up(
    handle: ConditionalHandle,
    counter: &mut CudaSlice<u32>,
    limit: u32,
    trace: &mut CudaSlice<u32>,
);

/// Sets the condition to `*value`.
#[kernel(ptx = "kernels/conditional.ptx")]
fn set_condition(handle: ConditionalHandle, value: &CudaSlice<u32>);

/// Sets the condition to `*counter & 1`.
#[kernel(ptx = "kernels/conditional.ptx")]
fn set_odd(handle: ConditionalHandle, counter: &CudaSlice<u32>);

/// `out[index] = value`.
#[kernel(ptx = "kernels/conditional.ptx")]
fn mark(out: &mut CudaSlice<u32>, index: u32, value: u32);

/// `out[index] += 1`.
#[kernel(ptx = "kernels/conditional.ptx")]
fn bump(out: &mut CudaSlice<u32>, index: u32);

/// Needs a cooperative launch (a grid-wide sync).
#[kernel(ptx = "kernels/cooperative.ptx")]
fn grid_rotate(input: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

type TestResult = Result<(), Box<dyn std::error::Error>>;

const POISON: u32 = 0xDEAD_BEEF;

fn setup() -> Result<Arc<CudaStream>, chevron::Error> {
    let ctx = gpu::context(0)?;
    Ok(ctx.new_stream()?)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn while_loop_runs_until_a_kernel_says_stop() -> TestResult {
    let _serial = gpu::serial();
    const LIMIT: u32 = 37;
    let stream = setup()?;
    let mut counter = stream.clone_htod(&[POISON])?;
    let mut trace = stream.clone_htod(&vec![POISON; LIMIT as usize + 3])?;
    let mut replays = stream.clone_htod(&[0u32])?;
    let (mut graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            let s = capture.stream();
            launch!(mark<<<1, 32, s>>>(&mut counter, 0, 0))?;
            let more = capture.condition(1)?;
            capture.while_loop(&more, |body| {
                let s = body.stream();
                launch!(count_up<<<1, 32, s>>>(more, &mut counter, LIMIT, &mut trace))
            })?;
            // After the loop, in every replay. (The node borrowed `capture` mutably: `s` ended.)
            launch!(bump<<<1, 32, capture.stream()>>>(&mut replays, 0))
        })
    }?;
    // The second replay starts from the default (1) again: the loop runs anew, not zero times.
    graph.replay(&stream)?;
    graph.replay(&stream)?;
    drop(graph);
    let (counter, trace, replays) = (
        stream.clone_dtoh(&counter)?,
        stream.clone_dtoh(&trace)?,
        stream.clone_dtoh(&replays)?,
    );
    println!(
        "while: counter = {counter:?}, trace[..4] = {:?}, replays = {replays:?}",
        &trace[..4]
    );
    assert_eq!(counter, [LIMIT], "the loop ran another number of times");
    assert_eq!(replays, [2]);
    for (k, &t) in trace.iter().enumerate() {
        let want = if (k as u32) < LIMIT {
            10 * (k as u32 + 1)
        } else {
            POISON
        };
        assert_eq!(t, want, "trace[{k}]");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn if_then_runs_its_body_only_when_the_condition_is_set() -> TestResult {
    let _serial = gpu::serial();
    let stream = setup()?;
    let mut value = stream.clone_htod(&[POISON])?;
    let mut hits = stream.clone_htod(&[0u32, 0])?;
    let (mut graph, node) = unsafe {
        Graph::capture(&stream, |capture| {
            let s = capture.stream();
            launch!(mark<<<1, 32, s>>>(&mut value, 0, 1))?;
            let node = capture.last_node()?;
            let yes = capture.condition(0)?;
            launch!(set_condition<<<1, 32, s>>>(yes, &value))?;
            capture.if_then(
                &yes,
                |body| launch!(bump<<<1, 32, body.stream()>>>(&mut hits, 0)),
            )?;
            // Always, after the node.
            launch!(bump<<<1, 32, capture.stream()>>>(&mut hits, 1))?;
            Ok(node)
        })
    }?;
    // Conditions 1, 0, 7, 0, 2: the body runs 3 times out of 5.
    for v in [1u32, 0, 7, 0, 2] {
        unsafe { mark::kernel().update_scalars(&mut graph, &node, (0, v)) }?;
        graph.replay(&stream)?;
    }
    drop(graph);
    let hits = stream.clone_dtoh(&hits)?;
    println!(
        "if: body ran {} times, the node was reached {} times",
        hits[0], hits[1]
    );
    assert_eq!(hits, [3, 5]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn if_else_runs_one_of_its_two_bodies() -> TestResult {
    let _serial = gpu::serial();
    let stream = setup()?;
    let mut value = stream.clone_htod(&[POISON])?;
    let mut out = stream.clone_htod(&[POISON, POISON])?;
    let mut hits = stream.clone_htod(&[0u32, 0])?;
    let (mut graph, node) = unsafe {
        Graph::capture(&stream, |capture| {
            let s = capture.stream();
            launch!(mark<<<1, 32, s>>>(&mut value, 0, 1))?;
            let node = capture.last_node()?;
            let choose = capture.condition(0)?;
            launch!(set_condition<<<1, 32, s>>>(choose, &value))?;
            capture.if_else(&choose, |then, body| {
                let (index, value) = if then { (0, 111) } else { (1, 222) };
                launch!(bump<<<1, 32, body.stream()>>>(&mut hits, index))?;
                launch!(mark<<<1, 32, body.stream()>>>(&mut out, index, value))
            })?;
            Ok(node)
        })
    }?;
    // Non-zero, zero, non-zero, zero, zero: `then` twice, `else` three times.
    for v in [5u32, 0, 1, 0, 0] {
        unsafe { mark::kernel().update_scalars(&mut graph, &node, (0, v)) }?;
        graph.replay(&stream)?;
    }
    drop(graph);
    let (hits, out) = (stream.clone_dtoh(&hits)?, stream.clone_dtoh(&out)?);
    println!(
        "if/else: then ran {}, else ran {}; out = {out:?}",
        hits[0], hits[1]
    );
    assert_eq!(hits, [2, 3]);
    assert_eq!(out, [111, 222]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn switch_runs_the_chosen_case_or_none() -> TestResult {
    let _serial = gpu::serial();
    const CASES: u32 = 3;
    let stream = setup()?;
    let mut value = stream.clone_htod(&[POISON])?;
    let mut hits = stream.clone_htod(&[0u32; CASES as usize + 1])?;
    let (mut graph, node) = unsafe {
        Graph::capture(&stream, |capture| {
            let s = capture.stream();
            launch!(mark<<<1, 32, s>>>(&mut value, 0, 0))?;
            let node = capture.last_node()?;
            let case = capture.condition(0)?;
            launch!(set_condition<<<1, 32, s>>>(case, &value))?;
            let indices = capture.switch(&case, CASES, |k, body| {
                launch!(bump<<<1, 32, body.stream()>>>(&mut hits, k))?;
                Ok(k)
            })?;
            assert_eq!(indices, [0, 1, 2]);
            // Always, after the node.
            launch!(bump<<<1, 32, capture.stream()>>>(&mut hits, CASES))?;
            Ok(node)
        })
    }?;
    // Case 2, 0, 2, 7 (none: out of range), 1, 2.
    for v in [2u32, 0, 2, 7, 1, 2] {
        unsafe { mark::kernel().update_scalars(&mut graph, &node, (0, v)) }?;
        graph.replay(&stream)?;
    }
    drop(graph);
    let hits = stream.clone_dtoh(&hits)?;
    println!(
        "switch: cases ran {:?} times, the node was reached {}",
        &hits[..3],
        hits[3]
    );
    assert_eq!(hits, [1, 1, 3, 6]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn an_if_nested_in_a_while_body() -> TestResult {
    let _serial = gpu::serial();
    const LIMIT: u32 = 9;
    let stream = setup()?;
    let mut counter = stream.clone_htod(&[POISON])?;
    let mut trace = stream.clone_htod(&vec![POISON; LIMIT as usize])?;
    let mut odd = stream.clone_htod(&[0u32])?;
    let (mut graph, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            launch!(mark<<<1, 32, capture.stream()>>>(&mut counter, 0, 0))?;
            let more = capture.condition(1)?;
            capture.while_loop(&more, |body| {
                let s = body.stream();
                launch!(count_up<<<1, 32, s>>>(more, &mut counter, LIMIT, &mut trace))?;
                // A condition of the body's graph, for the node inside it.
                let is_odd = body.condition(0)?;
                launch!(set_odd<<<1, 32, s>>>(is_odd, &counter))?;
                body.if_then(
                    &is_odd,
                    |inner| launch!(bump<<<1, 32, inner.stream()>>>(&mut odd, 0)),
                )
            })
        })
    }?;
    graph.replay(&stream)?;
    graph.replay(&stream)?;
    drop(graph);
    let (counter, odd) = (stream.clone_dtoh(&counter)?, stream.clone_dtoh(&odd)?);
    println!("nested: counter = {counter:?}, odd iterations over two replays = {odd:?}");
    // Counters 1..=9 in each replay: 1, 3, 5, 7, 9 are odd.
    assert_eq!(counter, [LIMIT]);
    assert_eq!(odd, [10]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_kernel_node_inside_a_body_is_updated_between_replays() -> TestResult {
    let _serial = gpu::serial();
    let stream = setup()?;
    let mut out = stream.clone_htod(&[POISON])?;
    let (mut graph, node) = unsafe {
        Graph::capture(&stream, |capture| {
            let run = capture.condition(1)?;
            capture.if_then(&run, |body| {
                launch!(mark<<<1, 32, body.stream()>>>(&mut out, 0, 5))?;
                body.last_node()
            })
        })
    }?;
    graph.replay(&stream)?;
    graph.synchronize()?;
    unsafe { mark::kernel().update_scalars(&mut graph, &node, (0, 9)) }?;
    graph.replay(&stream)?;
    drop(graph);
    let out = stream.clone_dtoh(&out)?;
    println!("update inside a body: out = {out:?}");
    assert_eq!(out, [9]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_condition_of_another_graph_is_refused() -> TestResult {
    let _serial = gpu::serial();
    let stream = setup()?;
    let mut counter = stream.clone_htod(&[0u32])?;
    let err = unsafe {
        Graph::capture(&stream, |capture| {
            let outer = capture.condition(1)?;
            capture.if_then(&outer, |body| {
                // The outer graph's condition for a node inside the body: refused.
                body.if_then(
                    &outer,
                    |inner| launch!(bump<<<1, 32, inner.stream()>>>(&mut counter, 0)),
                )
            })
        })
    }
    .expect_err("a condition of the outer graph was taken by a body's node");
    println!("{err}");
    assert!(matches!(err, chevron::Error::Graph { .. }), "{err:?}");
    assert!(err.to_string().contains("made for another graph"), "{err}");
    // The stream is usable again: the failed capture was ended.
    assert!(!chevron::is_capturing(&stream));
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn work_on_an_enclosing_capture_stream_inside_a_body_is_refused() -> TestResult {
    // The body cannot name `capture.stream()` (the node borrows the capture mutably: see
    // ui-tests/fail/graph_conditional_body_launches_on_outer_stream.rs), but it can name the
    // stream given to `Graph::capture`, or a clone of a stream: the launch would land in the
    // enclosing graph, after the node, and run in every replay whatever the condition says
    // (seen on the H200 before this check). Each is refused when the body ends.
    let _serial = gpu::serial();
    let stream = setup()?;
    let mut counter = stream.clone_htod(&[POISON])?;
    let err = unsafe {
        Graph::capture(&stream, |capture| {
            let never = capture.condition(0)?;
            capture.if_then(
                &never,
                |_body| launch!(bump<<<1, 32, &stream>>>(&mut counter, 0)),
            )
        })
    }
    .expect_err("a body's launch on the captured stream was taken");
    println!("{err}");
    assert!(matches!(err, chevron::Error::Graph { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("captured into the enclosing graph"), "{text}");
    assert!(
        text.contains("`if_then`") && text.contains("body.stream()"),
        "{text}"
    );
    assert!(!chevron::is_capturing(&stream));

    // A body's stream, cloned, used inside a node nested in that body: caught by the nested node
    // (the `while` body's graph gained the launch).
    let err = unsafe {
        Graph::capture(&stream, |capture| {
            let more = capture.condition(1)?;
            capture.while_loop(&more, |body| {
                let middle = body.stream().clone();
                let inner = body.condition(0)?;
                body.if_then(
                    &inner,
                    |_nested| launch!(bump<<<1, 32, &middle>>>(&mut counter, 0)),
                )
            })
        })
    }
    .expect_err("a nested body's launch on its enclosing body's stream was taken");
    println!("{err}");
    assert!(
        err.to_string()
            .contains("captured into the enclosing graph"),
        "{err}"
    );
    assert!(!chevron::is_capturing(&stream));
    // Nothing ran: both captures failed before any replay.
    assert_eq!(stream.clone_dtoh(&counter)?, [POISON]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_priority_inside_a_body_instantiates_with_node_priorities() -> TestResult {
    // The walk of a graph's nodes does not reach into conditional bodies: the capture of each
    // body looks at its kernels' priorities instead (tests/graph_gpu.rs measures what the flag
    // does at replay).
    let _serial = gpu::serial();
    let stream = setup()?;
    stream.context().bind_to_thread()?;
    let (_, high) = chevron::cudarc::driver::result::stream::get_priority_range()?;
    let mut hits = stream.clone_htod(&[0u32; 2])?;
    for prioritized in [false, true] {
        let graph = unsafe {
            Graph::capture(&stream, |capture| {
                let once = capture.condition(1)?;
                capture.if_then(&once, |body| {
                    if prioritized {
                        launch!(bump<<<1, 32, body.stream(), priority = high>>>(&mut hits, 0))
                    } else {
                        launch!(bump<<<1, 32, body.stream()>>>(&mut hits, 0))
                    }
                })
            })
        }?
        .0;
        assert_eq!(
            gpu::uses_node_priority(&graph)?,
            prioritized,
            "priority in the body: {prioritized}"
        );
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn sync_on_a_body_stream_is_refused() -> TestResult {
    let _serial = gpu::serial();
    let stream = setup()?;
    let mut counter = stream.clone_htod(&[0u32])?;
    let err = unsafe {
        Graph::capture(&stream, |capture| {
            let run = capture.condition(1)?;
            capture.if_then(&run, |body| launch!(bump<<<1, 32, body.stream(), stream(sync = Spin)>>>(&mut counter, 0)))
        })
    }
    .expect_err("`sync` on a body's stream was taken");
    println!("{err}");
    assert!(err.to_string().contains("`sync = Spin`"), "{err}");
    assert!(!chevron::is_capturing(&stream));
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_cooperative_launch_in_a_body_is_refused() -> TestResult {
    let _serial = gpu::serial();
    const N: u32 = 256;
    let stream = setup()?;
    let input = stream.clone_htod(&(0..N as i32).collect::<Vec<_>>())?;
    let mut tmp = stream.clone_htod(&vec![0i32; N as usize])?;
    let mut out = stream.clone_htod(&vec![0i32; N as usize])?;
    let err = unsafe { Graph::capture(&stream, |capture| {
        let run = capture.condition(1)?;
        capture.if_then(&run, |body| launch!(grid_rotate<<<2, 128, body.stream(), cooperative>>>(&input, &mut tmp, &mut out, N)))
    }) }
    .expect_err("a cooperative launch in a conditional body was taken");
    // Refused by the driver at the launch, or by chevron's check of the body: either names it.
    println!("{err}");
    assert!(err.to_string().contains("cooperative"), "{err}");
    assert!(!chevron::is_capturing(&stream));
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn an_allocation_in_a_body_is_refused() -> TestResult {
    let _serial = gpu::serial();
    let stream = setup()?;
    let err = unsafe {
        Graph::capture(&stream, |capture| {
            let run = capture.condition(1)?;
            capture.if_then(&run, |body| {
                // A stream-ordered allocation and free on the body's stream.
                let scratch = body.stream().alloc_zeros::<u32>(64)?;
                drop(scratch);
                Ok(())
            })
        })
    }
    .expect_err("an allocation in a conditional body was taken");
    println!("{err}");
    assert!(!chevron::is_capturing(&stream));
    Ok(())
}
