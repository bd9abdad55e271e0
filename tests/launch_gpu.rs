//! GPU tests of `launch!` (untyped form, kernels loaded with cudarc) and `config!`: real launches
//! with attributes in both positions, checked element by element against a host reference, on
//! outputs poisoned beforehand. Run on a machine with a GPU:
//! `cargo test --test launch_gpu -- --ignored`.

#[path = "common/gpu.rs"]
mod gpu;

use std::error::Error;
use std::sync::Arc;

use chevron::cudarc::driver::{CudaFunction, CudaStream, DevicePtr, DevicePtrMut};
use chevron::cudarc::nvrtc::Ptx;
use chevron::{config, launch, launch_function, stream_attribute, MemSyncDomain, SyncPolicy};

type TestResult = Result<(), Box<dyn Error>>;

const SAXPY: &str = include_str!("../kernels/saxpy.ptx");
const CLUSTER: &str = include_str!("../kernels/cluster.ptx");
const COOPERATIVE: &str = include_str!("../kernels/cooperative.ptx");

/// A fresh stream on device 0 and the function `name` of `ptx`.
fn load(ptx: &str, name: &str) -> Result<(Arc<CudaStream>, CudaFunction), Box<dyn Error>> {
    let ctx = gpu::context(0)?;
    let module = ctx.load_module(Ptx::from_src(ptx))?;
    let function = module.load_function(name)?;
    Ok((ctx.new_stream()?, function))
}

/// Deterministic, irregular data: a linear congruential generator mapped to [-8, 8).
fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 16.0 - 8.0
        })
        .collect()
}

const POISON_F32: f32 = -12345.5;
const POISON_U32: u32 = 0xDEAD_BEEF;

#[test]
#[ignore = "needs a CUDA GPU"]
fn saxpy_with_attributes_in_both_positions() -> TestResult {
    let (s, f) = load(SAXPY, "saxpy")?;
    let n: u32 = 100_003; // not a multiple of the block
    let a = 1.75f32;
    let x_host = data(n as usize, 1);
    let y_host = data(n as usize, 2);
    // y has a poisoned tail past n that the kernel must leave alone.
    let tail = 77;
    let mut y_init = y_host.clone();
    y_init.extend(std::iter::repeat_n(POISON_F32, tail));
    let x = s.clone_htod(&x_host)?;
    let mut y = s.clone_htod(&y_init)?;

    unsafe {
        launch!(dyn f<<<n.div_ceil(256), 256, &s,
            stream(sync = Spin, priority = 0), priority = 0, mem_sync_domain = Default
        >>>(&n, &a, &x, &mut y))
    }?;
    let out = s.clone_dtoh(&y)?;
    s.synchronize()?;

    assert_eq!(out.len(), n as usize + tail);
    for i in 0..n as usize {
        // The kernel compiles `a * x + y` to fma.rn.f32, which `mul_add` computes exactly.
        let want = a.mul_add(x_host[i], y_host[i]);
        assert_eq!(out[i], want, "y[{i}]: x = {}, y = {}", x_host[i], y_host[i]);
    }
    for (i, v) in out[n as usize..].iter().enumerate() {
        assert_eq!(*v, POISON_F32, "y[{}] past n was written", n as usize + i);
    }
    // The stream attribute was set on the stream, not passed to the launch.
    assert_eq!(stream_attribute::<SyncPolicy>(&s)?, Some(SyncPolicy::Spin));
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn stream_attributes_change_between_launches() -> TestResult {
    let (s, f) = load(SAXPY, "saxpy")?;
    let n = 1000u32;
    let x = s.clone_htod(&data(n as usize, 3))?;
    let mut y = s.clone_htod(&data(n as usize, 4))?;
    let policy = SyncPolicy::BlockingSync;
    unsafe {
        launch!(dyn f<<<4, 256, &s, stream(sync = policy, mem_sync_domain = Remote)>>>(
            &n, &0.5f32, &x, &mut y))
    }?;
    s.synchronize()?;
    assert_eq!(stream_attribute::<SyncPolicy>(&s)?, Some(policy));
    assert_eq!(
        stream_attribute::<MemSyncDomain>(&s)?,
        Some(MemSyncDomain::Remote)
    );
    unsafe { launch!(dyn f<<<4, 256, &s, stream(sync = Yield)>>>(&n, &0.5f32, &x, &mut y)) }?;
    s.synchronize()?;
    assert_eq!(stream_attribute::<SyncPolicy>(&s)?, Some(SyncPolicy::Yield));
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cluster_launch_reports_clusters_of_two() -> TestResult {
    let (s, f) = load(CLUSTER, "cluster_info")?;
    let grid = 8u32;
    let mut out = s.clone_htod(&vec![POISON_U32; 2 * grid as usize])?;
    unsafe { launch!(dyn f<<<8, 32, &s, cluster = 2>>>(&mut out)) }?;
    let out = s.clone_dtoh(&out)?;
    s.synchronize()?;
    for b in 0..grid as usize {
        assert_eq!(out[2 * b], 2, "block {b}: cluster num_blocks");
        assert_eq!(out[2 * b + 1], b as u32 % 2, "block {b}: rank in cluster");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cooperative_grid_rotate_matches_host() -> TestResult {
    let (s, f) = load(COOPERATIVE, "grid_rotate")?;
    // 4 blocks of 128 threads: far below what an H200 holds at once.
    let (blocks, threads) = (4u32, 128u32);
    let n = blocks * threads;
    let input: Vec<i32> = data(n as usize, 5)
        .iter()
        .map(|v| (v * 1000.0) as i32)
        .collect();
    let input_dev = s.clone_htod(&input)?;
    let mut tmp = s.clone_htod(&vec![i32::MIN; n as usize])?;
    let mut out = s.clone_htod(&vec![i32::MIN; n as usize])?;
    unsafe {
        launch!(dyn f<<<blocks, threads, &s, cooperative>>>(&input_dev, &mut tmp, &mut out, &n))
    }?;
    let out = s.clone_dtoh(&out)?;
    s.synchronize()?;
    for t in 0..n as usize {
        // Each thread reads a value another block wrote before the grid-wide barrier.
        let want = input[(t + threads as usize) % n as usize] * 3;
        assert_eq!(out[t], want, "out[{t}]");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn config_built_once_serves_several_launches() -> TestResult {
    let (s, f) = load(SAXPY, "saxpy")?;
    let n = 5000u32;
    let a = -0.75f32;
    let x_host = data(n as usize, 6);
    let mut want = data(n as usize, 7);
    let x = s.clone_htod(&x_host)?;
    let mut y = s.clone_htod(&want)?;

    let cfg = config!(<<<n.div_ceil(128), 128, priority = 0, stream(sync = Yield)>>>);
    for _ in 0..3 {
        let (x_ptr, _x_record) = x.device_ptr(&s);
        let (y_ptr, _y_record) = y.device_ptr_mut(&s);
        let mut params = [
            &n as *const u32 as *mut core::ffi::c_void,
            &a as *const f32 as *mut core::ffi::c_void,
            &x_ptr as *const _ as *mut core::ffi::c_void,
            &y_ptr as *const _ as *mut core::ffi::c_void,
        ];
        // SAFETY: the parameters match `saxpy(u32, f32, const float*, float*)`.
        unsafe { launch_function(&s, &f, &cfg, &mut params) }?;
    }
    // A fourth application through launch!, with the same attributes written inline.
    unsafe { launch!(dyn f<<<n.div_ceil(128), 128, &s, priority = 0>>>(&n, &a, &x, &mut y)) }?;
    let out = s.clone_dtoh(&y)?;
    s.synchronize()?;
    for (i, w) in want.iter_mut().enumerate() {
        // Four applications: three through the config, one through launch!.
        for _ in 0..4 {
            *w = a.mul_add(x_host[i], *w);
        }
        assert_eq!(out[i], *w, "y[{i}]");
    }
    assert_eq!(stream_attribute::<SyncPolicy>(&s)?, Some(SyncPolicy::Yield));
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn run_time_values_get_the_literal_checks() -> TestResult {
    let (s, f) = load(CLUSTER, "cluster_info")?;
    let mut out = s.clone_htod(&vec![POISON_U32; 16])?;
    let (grid, cluster) = (8u32, 3u32);
    let err = unsafe { launch!(dyn f<<<grid, 32, &s, cluster = cluster>>>(&mut out)) }
        .expect_err("a cluster of 3 does not divide a grid of 8");
    assert!(
        matches!(err, chevron::Error::InvalidConfig { .. }),
        "expected InvalidConfig, got {err}"
    );
    assert!(err.to_string().contains("does not divide"), "{err}");
    // Nothing ran.
    let out = s.clone_dtoh(&out)?;
    s.synchronize()?;
    assert!(out.iter().all(|v| *v == POISON_U32));
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
#[allow(non_snake_case)]
fn user_locals_named_like_the_expansions_pass_their_own_values() -> TestResult {
    // Every name the expansion uses for its own locals, as user locals: were one visible to the
    // other, a parameter would receive another argument's bytes (e.g. `a` would read `n`).
    let (s, f) = load(SAXPY, "saxpy")?;
    let n_host: u32 = 5_003;
    let x_host = data(n_host as usize, 5);
    let y_host = data(n_host as usize, 6);
    let x = s.clone_htod(&x_host)?;
    let mut y = s.clone_htod(&y_host)?;
    let __chevron_arg = -0.625f32;
    let __chevron_v0 = n_host;
    let __chevron_grid = n_host.div_ceil(128);
    let __chevron_block = 128u32;
    let __chevron_func = &f;
    let __chevron_stream = &s;
    let __chevron_config = 0i32;
    let __chevron_slots = 2u32;
    let __chevron_shared = 0u32;
    unsafe {
        launch!(dyn __chevron_func<<<__chevron_grid, __chevron_block, __chevron_stream,
            priority = __chevron_config, shared = __chevron_shared
        >>>(&__chevron_v0, &__chevron_arg, &x, &mut y))
    }?;
    let out = s.clone_dtoh(&y)?;
    s.synchronize()?;
    for i in 0..n_host as usize {
        let want = __chevron_arg.mul_add(x_host[i], y_host[i]);
        assert_eq!(out[i], want, "y[{i}]");
    }
    assert_eq!(__chevron_slots, 2, "a user local was overwritten");
    Ok(())
}

/// Records `what` in `log` and passes `value` through.
fn seen<T>(log: &std::cell::RefCell<Vec<&'static str>>, what: &'static str, value: T) -> T {
    log.borrow_mut().push(what);
    value
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn dyn_launch_evaluates_each_expression_once_in_written_order() -> TestResult {
    let (s, f) = load(SAXPY, "saxpy")?;
    let n: u32 = 1_000;
    let a = 3.5f32;
    let x_host = data(n as usize, 7);
    let y_host = data(n as usize, 8);
    let x = s.clone_htod(&x_host)?;
    let mut y = s.clone_htod(&y_host)?;
    let log = std::cell::RefCell::new(Vec::new());
    unsafe {
        launch!(dyn (seen(&log, "func", &f))<<<seen(&log, "grid", n.div_ceil(256)),
            seen(&log, "block", 256u32), seen(&log, "stream", &*s),
            priority = seen(&log, "priority", 0), stream(sync = seen(&log, "sync", SyncPolicy::Spin)),
            shared = seen(&log, "shared", 0u32)
        >>>(seen(&log, "n", &n), seen(&log, "a", &a), seen(&log, "x", &x), seen(&log, "y", &mut y)))
    }?;
    assert_eq!(
        *log.borrow(),
        ["func", "grid", "block", "stream", "priority", "sync", "shared", "n", "a", "x", "y"]
    );
    let out = s.clone_dtoh(&y)?;
    s.synchronize()?;
    for i in 0..n as usize {
        assert_eq!(out[i], a.mul_add(x_host[i], y_host[i]), "y[{i}]");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn usize_extents_launch_and_out_of_range_ones_are_refused() -> TestResult {
    let (s, f) = load(SAXPY, "saxpy")?;
    let x_host = data(3_000, 9);
    let y_host = data(3_000, 10);
    let n = x_host.len() as u32;
    let x = s.clone_htod(&x_host)?;
    let mut y = s.clone_htod(&y_host)?;
    let a = 0.5f32;
    // `len()` and `size_of` give `usize`: accepted, converted at run time.
    let block: usize = 256;
    unsafe {
        launch!(dyn f<<<x_host.len().div_ceil(256), block, &s,
            shared = core::mem::size_of::<f32>() * 64>>>(&n, &a, &x, &mut y))
    }?;
    let out = s.clone_dtoh(&y)?;
    s.synchronize()?;
    for i in 0..n as usize {
        assert_eq!(out[i], a.mul_add(x_host[i], y_host[i]), "y[{i}]");
    }
    // Out of `u32`'s range: a typed error before anything runs.
    let before = out;
    let err = unsafe { launch!(dyn f<<<usize::MAX, 256, &s>>>(&n, &a, &x, &mut y)) }
        .expect_err("usize::MAX blocks");
    assert!(matches!(err, chevron::Error::InvalidConfig { .. }), "{err}");
    assert!(
        err.to_string().contains("grid x is 18446744073709551615"),
        "{err}"
    );
    let minus_one: i32 = -1;
    let err = unsafe { launch!(dyn f<<<1, (16, minus_one), &s>>>(&n, &a, &x, &mut y)) }
        .expect_err("a negative block extent");
    assert!(err.to_string().contains("block y is -1"), "{err}");
    let after = s.clone_dtoh(&y)?;
    s.synchronize()?;
    assert_eq!(before, after, "a refused launch ran");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn dyn_launch_reads_through_a_shared_reference_to_a_mutable_view() -> TestResult {
    // `x` is passed as `&view_mut` (a `&CudaViewMut`), as typed kernels take it: read only.
    let (s, f) = load(SAXPY, "saxpy")?;
    let n: u32 = 4_099;
    let a = -0.5f32;
    let x_host = data(n as usize + 64, 11);
    let y_host = data(n as usize, 12);
    let mut x_all = s.clone_htod(&x_host)?;
    let mut y = s.clone_htod(&y_host)?;
    {
        // The view starts 64 elements in: the kernel must read from there.
        let x_view = x_all.slice_mut(64..);
        unsafe { launch!(dyn f<<<n.div_ceil(128), 128, &s>>>(&n, &a, &x_view, &mut y)) }?;
    }
    let out = s.clone_dtoh(&y)?;
    let x_after = s.clone_dtoh(&x_all)?;
    s.synchronize()?;
    for i in 0..n as usize {
        let want = a.mul_add(x_host[64 + i], y_host[i]);
        assert_eq!(out[i], want, "y[{i}]");
    }
    assert_eq!(x_after, x_host, "the view was only read");
    Ok(())
}
