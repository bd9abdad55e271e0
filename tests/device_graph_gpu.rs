//! Device-side graph launch on the GPU: a kernel of a host-launched graph launches a
//! [`DeviceGraph`] fire-and-forget (extern "C" launcher) and as a tail launch (a C++ launcher,
//! whose `cudaGraphExec_t` parameter is checked against the `DeviceGraphHandle` declaration), a
//! device graph that relaunches itself from the GPU until a count, and a device graph launched
//! from the host; each checked against what the host expects (outputs poisoned first, the device
//! runtime's `cudaError_t` of every device launch checked). The misuses that are typed errors: an
//! executable graph not instantiated for device launch, and a host function node in a device
//! graph.

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::Arc;

use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch, sys, DeviceGraph, DeviceGraphHandle, Graph};

/// `out[i] = value + i` for `i < n`.
#[kernel(ptx = "kernels/device_graph.ptx")]
fn fill_ramp(out: &mut CudaSlice<u32>, n: u32, value: u32);

/// `counter[0] += 1`.
#[kernel(ptx = "kernels/device_graph.ptx")]
fn count_once(counter: &mut CudaSlice<u32>);

/// One thread: `status[0] = cudaGraphLaunch(exec, cudaStreamGraphFireAndForget)`.
#[kernel(ptx = "kernels/device_graph.ptx")]
fn launch_fire_and_forget(exec: DeviceGraphHandle, status: &mut CudaSlice<i32>);

/// One thread: `status[0] = cudaGraphLaunch(exec, cudaStreamGraphTailLaunch)`. C++ linkage: the
/// symbol says `launch_tail(CUgraphExec_st*, int*)`.
#[kernel(ptx = "kernels/device_graph.ptx")]
fn launch_tail(exec: DeviceGraphHandle, status: &mut CudaSlice<i32>);

/// Run `k` writes `trace[k] = k + 1` and relaunches its own graph (tail launch) until
/// `counter[0] == limit`; `status[0]` gets the first failed launch's `cudaError_t`.
#[kernel(ptx = "kernels/device_graph.ptx")]
fn relaunch_until(
    counter: &mut CudaSlice<u32>,
    limit: u32,
    trace: &mut CudaSlice<u32>,
    status: &mut CudaSlice<i32>,
);

type TestResult = Result<(), Box<dyn std::error::Error>>;

const POISON: u32 = 0xDEAD_BEEF;
const N: u32 = 5000;

fn setup() -> Result<Arc<CudaStream>, chevron::Error> {
    let ctx = gpu::context(0)?;
    Ok(ctx.new_stream()?)
}

fn ramp(value: u32) -> Vec<u32> {
    (0..N).map(|i| value + i).collect()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_kernel_launches_a_device_graph_fire_and_forget() -> TestResult {
    let _serial = gpu::serial();
    const REPLAYS: u32 = 3;
    let stream = setup()?;
    let mut out = stream.clone_htod(&vec![POISON; N as usize])?;
    let mut counter = stream.clone_htod(&[0u32])?;
    let mut status = stream.clone_htod(&[-1i32])?;
    {
        let (child, ()) = unsafe {
            DeviceGraph::capture(&stream, |capture| {
                let s = capture.stream();
                launch!(fill_ramp<<<N.div_ceil(256), 256, s>>>(&mut out, N, 7))?;
                launch!(count_once<<<1, 32, s>>>(&mut counter))
            })
        }?;
        let (mut parent, ()) = unsafe {
            Graph::capture(&stream, |capture| {
                let exec = capture.device_graph(&child)?;
                assert_eq!(exec.raw(), child.cu_graph_exec() as u64);
                let s = capture.stream();
                launch!(launch_fire_and_forget<<<1, 32, s>>>(exec, &mut status))
            })
        }?;
        for _ in 0..REPLAYS {
            parent.replay(&stream)?;
        }
        // The replay's completion includes its fire-and-forget child.
        parent.synchronize()?;
    }
    let (out, counter, status) = (
        stream.clone_dtoh(&out)?,
        stream.clone_dtoh(&counter)?,
        stream.clone_dtoh(&status)?,
    );
    assert_eq!(status, [0], "cudaGraphLaunch on the device failed");
    assert_eq!(
        counter,
        [REPLAYS],
        "the device graph ran {} times",
        counter[0]
    );
    assert_eq!(out, ramp(7));
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_cpp_kernel_tail_launches_a_device_graph() -> TestResult {
    let _serial = gpu::serial();
    let stream = setup()?;
    let mut out = stream.clone_htod(&vec![POISON; N as usize])?;
    let mut status = stream.clone_htod(&[-1i32])?;
    {
        let (child, ()) = unsafe {
            DeviceGraph::capture(&stream, |capture| {
                let s = capture.stream();
                launch!(fill_ramp<<<8, 128, s>>>(&mut out, N, 1000))
            })
        }?;
        let (mut parent, ()) = unsafe {
            Graph::capture(&stream, |capture| {
                let exec = capture.device_graph(&child)?;
                let s = capture.stream();
                launch!(launch_tail<<<1, 32, s>>>(exec, &mut status))
            })
        }?;
        parent.replay(&stream)?;
        parent.synchronize()?;
    }
    assert_eq!(stream.clone_dtoh(&status)?, [0], "tail launch failed");
    assert_eq!(stream.clone_dtoh(&out)?, ramp(1000));
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_device_graph_relaunches_itself_until_a_count() -> TestResult {
    let _serial = gpu::serial();
    const LIMIT: u32 = 200;
    let stream = setup()?;
    let mut counter = stream.clone_htod(&[0u32])?;
    let mut trace = stream.clone_htod(&vec![POISON; LIMIT as usize + 4])?;
    let mut loop_status = stream.clone_htod(&[0i32])?;
    let mut status = stream.clone_htod(&[-1i32])?;
    {
        let (child, ()) = unsafe {
            DeviceGraph::capture(&stream, |capture| {
                let s = capture.stream();
                launch!(relaunch_until<<<1, 32, s>>>(&mut counter, LIMIT, &mut trace, &mut loop_status))
            })
        }?;
        let (mut parent, ()) = unsafe {
            Graph::capture(&stream, |capture| {
                let exec = capture.device_graph(&child)?;
                let s = capture.stream();
                launch!(launch_fire_and_forget<<<1, 32, s>>>(exec, &mut status))
            })
        }?;
        parent.replay(&stream)?;
        parent.synchronize()?;
    }
    assert_eq!(
        stream.clone_dtoh(&status)?,
        [0],
        "the first device launch failed"
    );
    assert_eq!(stream.clone_dtoh(&loop_status)?, [0], "a relaunch failed");
    assert_eq!(stream.clone_dtoh(&counter)?, [LIMIT]);
    let mut expected: Vec<u32> = (1..=LIMIT).collect();
    expected.extend([POISON; 4]);
    assert_eq!(stream.clone_dtoh(&trace)?, expected);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_device_graph_launches_from_the_host_too() -> TestResult {
    let _serial = gpu::serial();
    let stream = setup()?;
    let other = stream.context().new_stream()?;
    let mut counter = stream.clone_htod(&[0u32])?;
    {
        let (mut child, ()) = unsafe {
            DeviceGraph::capture(&stream, |capture| {
                let s = capture.stream();
                launch!(count_once<<<1, 32, s>>>(&mut counter))
            })
        }?;
        child.launch(&stream)?;
        child.launch(&stream)?;
        child.launch(&other)?; // waits for the launches on `stream` first
        child.synchronize()?;
    }
    assert_eq!(stream.clone_dtoh(&counter)?, [3]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_graph_not_instantiated_for_device_launch_is_refused() -> TestResult {
    let _serial = gpu::serial();
    let stream = setup()?;
    let mut out = stream.clone_htod(&vec![POISON; N as usize])?;
    let (host, ()) = unsafe {
        Graph::capture(&stream, |capture| {
            let s = capture.stream();
            launch!(fill_ramp<<<8, 128, s>>>(&mut out, N, 3))
        })
    }?;
    let host_exec = host.cu_graph_exec();
    let err = unsafe {
        Graph::capture(&stream, |capture| {
            // SAFETY: `host` is live for the whole capture (which fails before any replay).
            capture.device_graph_raw(host_exec)?;
            Ok(())
        })
    }
    .expect_err("a host graph was taken for device launch");
    println!("{err}");
    assert!(
        matches!(&err, chevron::Error::Graph { message, .. }
            if message.contains("not instantiated for device launch")
                && message.contains("DeviceGraph::capture")),
        "{err:?}"
    );
    assert!(!chevron::is_capturing(&stream));
    // The same call takes an executable graph that was, and a kernel launches it.
    let mut count = stream.clone_htod(&[0u32])?;
    let mut status = stream.clone_htod(&[-1i32])?;
    {
        let (child, ()) = unsafe {
            DeviceGraph::capture(&stream, |capture| {
                let s = capture.stream();
                launch!(count_once<<<1, 32, s>>>(&mut count))
            })
        }?;
        let child_exec = child.cu_graph_exec();
        let (mut parent, raw) = unsafe {
            Graph::capture(&stream, |capture| {
                // SAFETY: `child` is live and uploaded, and outlives `parent` (dropped first).
                let exec = capture.device_graph_raw(child_exec)?;
                let s = capture.stream();
                launch!(launch_fire_and_forget<<<1, 32, s>>>(exec, &mut status))?;
                Ok(exec.raw())
            })
        }?;
        assert_eq!(raw, child_exec as u64);
        parent.replay(&stream)?;
        parent.synchronize()?;
        drop(parent);
    }
    assert_eq!(
        stream.clone_dtoh(&status)?,
        [0],
        "cudaGraphLaunch on the device failed"
    );
    assert_eq!(stream.clone_dtoh(&count)?, [1]);
    Ok(())
}

unsafe extern "C" fn nothing(_: *mut core::ffi::c_void) {}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_host_function_node_is_refused_in_a_device_graph() -> TestResult {
    let _serial = gpu::serial();
    let stream = setup()?;
    let mut counter = stream.clone_htod(&[0u32])?;
    let err = unsafe {
        DeviceGraph::capture(&stream, |capture| {
            let s = capture.stream();
            launch!(count_once<<<1, 32, s>>>(&mut counter))?;
            // A host function on the capturing stream: a host node.
            // SAFETY: the stream is live; `nothing` ignores its null argument.
            let rc = sys::cuLaunchHostFunc(s.cu_stream(), Some(nothing), core::ptr::null_mut());
            assert_eq!(rc, sys::CUresult::CUDA_SUCCESS);
            Ok(())
        })
    }
    .expect_err("a host node was taken in a device graph");
    println!("{err}");
    assert!(
        matches!(&err, chevron::Error::Graph { message, .. }
            if message.contains("host function node") && message.contains("after the launching graph")),
        "{err:?}"
    );
    assert!(!chevron::is_capturing(&stream));
    Ok(())
}
