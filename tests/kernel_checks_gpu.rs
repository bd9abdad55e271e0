//! The launch checked against the kernel's PTX at run time: each fixture kernel launched as its
//! directives allow (results checked against the host), then with run-time values that break a
//! rule, which must be refused with `Error::KernelConstraint` before anything runs.
//!
//! Each test prints the refusal it got (`refused: …`), so a run shows the messages.

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch, Error};

#[kernel(ptx = "kernels/bounds.ptx")]
fn bounded_scale(input: &CudaSlice<f32>, out: &mut CudaSlice<f32>, n: u32);

#[kernel(ptx = "kernels/bounds.ptx")]
fn clustered_rank(out: &mut CudaSlice<u32>);

#[kernel(ptx = "kernels/pdl_checks.ptx")]
fn pdl_produce(data: &mut CudaSlice<u32>, n: u32);

#[kernel(ptx = "kernels/pdl_checks.ptx")]
fn pdl_consume(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

#[kernel(ptx = "kernels/pdl_checks.ptx")]
fn pdl_consume_nowait(data: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32);

#[kernel(ptx = "kernels/cooperative.ptx")]
fn grid_rotate(input: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

/// The same `__launch_bounds__(256)` kernel, compiled by NVRTC at first use: its rules are read
/// from NVRTC's output (or from `nvcc -ptx` at compile time, where the build machine has nvcc).
#[allow(deprecated)] // without nvcc: checked at run time (a warning otherwise)
#[kernel(cuda = "kernels/bounds.cu", name = "bounded_scale")]
fn bounded_scale_nvrtc(input: &CudaSlice<f32>, out: &mut CudaSlice<f32>, n: u32);

type TestResult = Result<(), Box<dyn std::error::Error>>;

const POISON_F32: f32 = -7.25;
const POISON_U32: u32 = 0xDEAD_BEEF;

/// The message of a `KernelConstraint` refusal; fails the test on anything else.
fn refused(result: Result<(), Error>, what: &str) -> String {
    match result {
        Err(Error::KernelConstraint { message, .. }) => {
            println!("refused ({what}): {message}");
            message
        }
        Err(other) => panic!("{what}: expected a KernelConstraint refusal, got {other}"),
        Ok(()) => panic!("{what}: the launch was not refused"),
    }
}

fn scale_inputs(n: usize) -> Vec<f32> {
    (0..n).map(|i| i as f32 * 0.5 - 100.0).collect()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn launch_bounds_block_checked() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let n: u32 = 4096;
    let host = scale_inputs(n as usize);
    let input = stream.clone_htod(&host)?;
    let mut out = stream.clone_htod(&vec![POISON_F32; n as usize])?;
    // A block beyond `.maxntid 256, 1, 1`, known only at run time: refused before launching.
    let big: u32 = std::hint::black_box(512);
    let message = refused(
        unsafe { launch!(bounded_scale<<<n / big, big, &stream>>>(&input, &mut out, n)) },
        "block 512 over .maxntid 256",
    );
    assert!(message.contains("`.maxntid 256, 1, 1`"), "{message}");
    assert!(message.contains("kernels/bounds.ptx:"), "{message}");
    assert!(
        message.ends_with("(this launch: block (512, 1, 1))"),
        "{message}"
    );
    let untouched = stream.clone_dtoh(&out)?;
    assert!(untouched
        .iter()
        .all(|v| v.to_bits() == POISON_F32.to_bits()));
    // Within the bound: runs.
    let block: u32 = std::hint::black_box(256);
    unsafe { launch!(bounded_scale<<<n / block, block, &stream>>>(&input, &mut out, n)) }?;
    let got = stream.clone_dtoh(&out)?;
    for (i, (g, x)) in got.iter().zip(&host).enumerate() {
        assert_eq!(*g, x * 2.0, "out[{i}]");
    }
    println!("bounded_scale: {n} values scaled with block 256, block 512 refused");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cluster_dims_checked() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let blocks: u32 = 8;
    let mut out = stream.clone_htod(&vec![POISON_U32; blocks as usize])?;
    // The compiled-in clusters of 2 apply without a `cluster` attribute.
    unsafe { launch!(clustered_rank<<<blocks, 32, &stream>>>(&mut out)) }?;
    let got = stream.clone_dtoh(&out)?;
    let want: Vec<u32> = (0..blocks).map(|b| b % 2 + 20).collect();
    assert_eq!(got, want, "rank + 10 * cluster size per block");
    println!("clustered_rank: per block (rank + 10 * cluster size) = {got:?}");
    // A run-time cluster other than the compiled-in one, and a grid of 7 blocks (3.5 clusters).
    let four: u32 = std::hint::black_box(4);
    let message = refused(
        unsafe { launch!(clustered_rank<<<blocks, 32, &stream, cluster = four>>>(&mut out)) },
        "cluster 4 against __cluster_dims__(2, 1, 1)",
    );
    assert!(
        message.contains("`.reqnctapercluster 2, 1, 1`"),
        "{message}"
    );
    assert!(
        message.ends_with("(this launch: cluster (4, 1, 1))"),
        "{message}"
    );
    let seven: u32 = std::hint::black_box(7);
    let message = refused(
        unsafe { launch!(clustered_rank<<<seven, 32, &stream>>>(&mut out)) },
        "grid 7 with clusters of 2",
    );
    assert!(message.contains("whole number of clusters"), "{message}");
    assert!(
        message.ends_with("(this launch: grid (7, 1, 1))"),
        "{message}"
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn programmatic_dependent_launch_checked() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let n: u32 = 1 << 16;
    let mut data = stream.clone_htod(&vec![POISON_U32; n as usize])?;
    let mut out = stream.clone_htod(&vec![POISON_U32; n as usize])?;
    // The consumer waits (`griddepcontrol.wait`) before reading what the producer wrote.
    unsafe { launch!(pdl_produce<<<n / 256, 256, &stream>>>(&mut data, n)) }?;
    unsafe {
        launch!(pdl_consume<<<n / 256, 256, &stream, programmatic_serialization>>>(&data, &mut out, n))
    }?;
    let got = stream.clone_dtoh(&out)?;
    for (i, g) in got.iter().enumerate() {
        assert_eq!(*g, i as u32 * 3 + 6, "out[{i}]");
    }
    println!("pdl_consume after pdl_produce with programmatic_serialization: {n} values right");
    // The kernel without the wait, with the flag known only at run time: refused.
    let on = std::hint::black_box(true);
    let message = refused(
        unsafe {
            launch!(pdl_consume_nowait<<<n / 256, 256, &stream, programmatic_serialization = on>>>(&data, &mut out, n))
        },
        "programmatic_serialization without griddepcontrol.wait",
    );
    assert!(
        message.contains("never executes `griddepcontrol.wait`"),
        "{message}"
    );
    // Without the flag it runs (after the previous kernel, as plain stream order has it).
    let off = std::hint::black_box(false);
    let mut out2 = stream.clone_htod(&vec![POISON_U32; n as usize])?;
    unsafe {
        launch!(pdl_consume_nowait<<<n / 256, 256, &stream, programmatic_serialization = off>>>(&data, &mut out2, n))
    }?;
    assert_eq!(stream.clone_dtoh(&out2)?, got);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn grid_sync_needs_cooperative() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let (blocks, block) = (8u32, 128u32);
    let n = blocks * block;
    let host: Vec<i32> = (0..n as i32).map(|i| i * 7 - 300).collect();
    let input = stream.clone_htod(&host)?;
    let mut tmp = stream.clone_htod(&vec![i32::MIN; n as usize])?;
    let mut out = stream.clone_htod(&vec![i32::MIN; n as usize])?;
    // A plain launch of the grid-syncing kernel, decided at run time: refused.
    let on = std::hint::black_box(false);
    let message = refused(
        unsafe {
            launch!(grid_rotate<<<blocks, block, &stream, cooperative = on>>>(&input, &mut tmp, &mut out, n))
        },
        "grid sync without cooperative",
    );
    assert!(message.contains("syncs the whole grid"), "{message}");
    assert!(
        message.ends_with("(this launch: no `cooperative`)"),
        "{message}"
    );
    let untouched = stream.clone_dtoh(&out)?;
    assert!(
        untouched.iter().all(|v| *v == i32::MIN),
        "refused launch wrote output"
    );
    unsafe {
        launch!(grid_rotate<<<blocks, block, &stream, cooperative>>>(&input, &mut tmp, &mut out, n))
    }?;
    let got = stream.clone_dtoh(&out)?;
    for (t, g) in got.iter().enumerate() {
        let want = host[(t + block as usize) % n as usize] * 3;
        assert_eq!(*g, want, "out[{t}]");
    }
    println!("grid_rotate cooperative: {n} values right; plain launch refused");
    // `cooperative` on a kernel that never syncs the grid, decided at run time: refused.
    let host_f = scale_inputs(256);
    let x = stream.clone_htod(&host_f)?;
    let mut y = stream.clone_htod(&vec![POISON_F32; 256])?;
    let coop = std::hint::black_box(true);
    let message = refused(
        unsafe { launch!(bounded_scale<<<1, 256, &stream, cooperative = coop>>>(&x, &mut y, 256)) },
        "cooperative without grid sync",
    );
    assert!(message.contains("never syncs the whole grid"), "{message}");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn nvrtc_kernel_checked_from_its_compiled_ptx() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let n: u32 = 2048;
    let host = scale_inputs(n as usize);
    let input = stream.clone_htod(&host)?;
    let mut out = stream.clone_htod(&vec![POISON_F32; n as usize])?;
    // The first launch compiles with NVRTC and reads `.maxntid` from its output: refused.
    let big: u32 = std::hint::black_box(1024);
    let message = refused(
        unsafe { launch!(bounded_scale_nvrtc<<<n / big, big, &stream>>>(&input, &mut out, n)) },
        "NVRTC kernel, block 1024 over __launch_bounds__(256)",
    );
    assert!(message.contains("`.maxntid 256, 1, 1`"), "{message}");
    // Read from NVRTC's output at first use, or from nvcc's at compile time where the build
    // machine has nvcc (the const the launch then checks against).
    assert!(
        message.contains("PTX of ") && message.contains("bounds.cu:"),
        "{message}"
    );
    unsafe { launch!(bounded_scale_nvrtc<<<n / 128, 128, &stream>>>(&input, &mut out, n)) }?;
    let got = stream.clone_dtoh(&out)?;
    for (i, (g, x)) in got.iter().zip(&host).enumerate() {
        assert_eq!(*g, x * 2.0, "out[{i}]");
    }
    println!("bounded_scale (NVRTC): {n} values scaled with block 128, block 1024 refused");
    Ok(())
}
