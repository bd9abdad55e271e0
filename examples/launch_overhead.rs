//! Host-side cost of one launch: the raw driver floor (`cuLaunchKernelEx` through
//! `chevron::cudarc::driver::sys`, no event tracking), cudarc's launch builder, chevron's
//! `launch_function` with a function handle in hand, chevron's typed `#[kernel]` launch (cached
//! function lookup), `launch!` with two attributes, and an untyped `launch!(dyn f …)` (which
//! checks its arguments against the kernel's parameters, from `cuFuncGetParamInfo` once per
//! function). Measured side by side in interleaved rounds; prints medians and ratios against
//! cudarc and against the raw floor (absolute times drift on a shared machine, ratios much less).
//!
//! Run on a CUDA machine: `cargo run --release --example launch_overhead`. Exit code 2 on a
//! machine without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::time::Instant;

use chevron::cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, PushKernelArg};
use chevron::cudarc::nvrtc::Ptx;
use chevron::{kernel, launch, sys, LaunchConfig};

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

// Small batches, so the launch queue never fills and the host time is the launch call itself
// rather than the GPU draining the queue.
// (`CHEVRON_QUICK`: 3 rounds of 10.)
const BATCH: usize = 200;
const ROUNDS: usize = 101;
const N: u32 = 256;

fn time_batch(stream: &CudaStream, batch: usize, mut one: impl FnMut()) -> f64 {
    stream.synchronize().unwrap();
    let t = Instant::now();
    for _ in 0..batch {
        one();
    }
    let host = t.elapsed().as_secs_f64();
    stream.synchronize().unwrap();
    host / batch as f64 * 1e9
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() -> ExitCode {
    common::exit_code(run())
}

fn run() -> Result<(), Box<dyn Error>> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    common::announce_quick();
    let (batch, rounds) = (common::size(BATCH, 10), common::size(ROUNDS, 3));
    let module = ctx.load_module(Ptx::from_src(include_str!("../kernels/saxpy.ptx")))?;
    let f = module.load_function("saxpy")?;
    let x = stream.clone_htod(&vec![1.0f32; N as usize])?;
    let mut y = stream.clone_htod(&vec![0.0f32; N as usize])?;
    let cu_cfg = chevron::cudarc::driver::LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (N, 1, 1),
        shared_mem_bytes: 0,
    };
    let cfg = LaunchConfig::new(1, N);
    let a = 1.0f32;
    let n = N;

    let mut launches = 0u64;
    let mut t: [Vec<f64>; 6] = Default::default();
    // The raw floor: the same kernel and arguments, one `cuLaunchKernelEx` with no attributes
    // and no event tracking (the pointers taken once, outside the timed loop).
    let (px, py) = {
        let (px, _rx) = x.device_ptr(&stream);
        let (py, _wy) = y.device_ptr_mut(&stream);
        (px, py)
    };
    let raw_cfg = sys::CUlaunchConfig {
        gridDimX: 1,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: N,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: 0,
        hStream: stream.cu_stream(),
        attrs: std::ptr::null_mut(),
        numAttrs: 0,
    };
    let cu_f = f.cu_function();
    for round in 0..rounds + 2 {
        let r = [
            time_batch(&stream, batch, || unsafe {
                let mut params = [
                    &n as *const u32 as *mut _,
                    &a as *const f32 as *mut _,
                    &px as *const u64 as *mut _,
                    &py as *const u64 as *mut _,
                ];
                let rc = sys::cuLaunchKernelEx(
                    &raw_cfg,
                    cu_f,
                    params.as_mut_ptr(),
                    std::ptr::null_mut(),
                );
                assert_eq!(rc, sys::cudaError_enum::CUDA_SUCCESS);
            }),
            time_batch(&stream, batch, || unsafe {
                stream
                    .launch_builder(&f)
                    .arg(&n)
                    .arg(&a)
                    .arg(&x)
                    .arg(&mut y)
                    .launch(cu_cfg)
                    .unwrap();
            }),
            time_batch(&stream, batch, || unsafe {
                let (px, _rx) = x.device_ptr(&stream);
                let (py, _wy) = y.device_ptr_mut(&stream);
                let mut params = [
                    &n as *const u32 as *mut _,
                    &a as *const f32 as *mut _,
                    &px as *const u64 as *mut _,
                    &py as *const u64 as *mut _,
                ];
                chevron::launch_function(&stream, &f, &cfg, &mut params).unwrap();
            }),
            time_batch(&stream, batch, || unsafe {
                saxpy::launch(&stream, &cfg, n, a, &x, &mut y).unwrap();
            }),
            time_batch(&stream, batch, || unsafe {
                launch!(saxpy<<<1, N, &stream, priority = 0, mem_sync_domain = Default>>>(n, a, &x, &mut y)).unwrap();
            }),
            time_batch(&stream, batch, || unsafe {
                launch!(dyn f<<<1, N, &stream>>>(&n, &a, &x, &mut y)).unwrap();
            }),
        ];
        launches += r.len() as u64 * batch as u64;
        if round >= 2 {
            // The first two rounds warm up (module load, caches).
            for (v, x) in t.iter_mut().zip(r) {
                v.push(x);
            }
        }
    }
    // Every launch added 1.0 to each y.
    let got = stream.clone_dtoh(&y)?;
    let want = launches as f32;
    if got.iter().any(|&v| v != want) {
        return Err(format!("y = {} after {launches} launches, want {want}", got[0]).into());
    }
    let names = [
        "raw cuLaunchKernelEx",
        "cudarc launch_builder",
        "chevron launch_function",
        "chevron #[kernel] launch",
        "chevron launch! + 2 attrs",
        "chevron launch!(dyn f)",
    ];
    let raw = median(&mut t[0].clone());
    let base = median(&mut t[1].clone());
    println!(
        "host ns per launch (median of {rounds} rounds × {batch} launches), ratio to cudarc, \
         ratio to raw cuLaunchKernelEx:"
    );
    for (name, v) in names.iter().zip(t.iter_mut()) {
        let m = median(v);
        println!(
            "  {name:<28} {m:8.0} ns   {:.2}×   {:.2}× raw",
            m / base,
            m / raw
        );
    }
    println!("checked: y = {want} after {launches} launches");
    Ok(())
}
