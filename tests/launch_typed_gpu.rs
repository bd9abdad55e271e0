//! `launch!` with typed `#[kernel]` declarations on the GPU, checked against host references.

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::{CudaSlice, CudaView, CudaViewMut};
use chevron::{config, kernel, launch, stream_attribute, SyncPolicy};

/// y = a·x + y. Launched with `cooperative` below only to show the key: `co_resident` says that
/// is meant, though saxpy never syncs the grid (and then every launch of it is cooperative).
#[kernel(ptx = "kernels/saxpy.ptx", cooperative = "co_resident")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

/// The same kernel, declared without options, for plain launches.
#[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
fn saxpy_plain(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
fn saxpy_views(n: u32, a: f32, x: &CudaView<'_, f32>, y: &mut CudaViewMut<'_, f32>);

#[kernel(ptx = "kernels/cluster.ptx")]
fn cluster_info(out: &mut CudaSlice<u32>);

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn random(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(2_654_435_761).wrapping_add(12345);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1u32 << 24) as f32 * 4.0 - 2.0
        })
        .collect()
}

fn check(got: &[f32], a: f32, x: &[f32], y: &[f32], what: &str) {
    assert_eq!(got.len(), x.len());
    for (i, g) in got.iter().enumerate() {
        let want = a.mul_add(x[i], y[i]);
        assert!(
            (g - want).abs() <= 1e-5 * want.abs().max(1.0),
            "{what}: y[{i}] = {g}, host {want}"
        );
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn typed_launch_with_stream_and_launch_attributes() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    // 64 blocks of 256: small enough to be co-resident, so `cooperative` is valid.
    let n: u32 = 64 * 256;
    let (x_host, y_host) = (random(n as usize, 1), random(n as usize, 2));
    let x = stream.clone_htod(&x_host)?;
    let mut y = stream.clone_htod(&y_host)?;
    unsafe {
        launch!(saxpy<<<n.div_ceil(256), 256, &stream, stream(sync = Spin), cooperative>>>(n, 2.0, &x, &mut y))
    }?;
    check(
        &stream.clone_dtoh(&y)?,
        2.0,
        &x_host,
        &y_host,
        "headline launch",
    );
    assert_eq!(
        stream_attribute::<SyncPolicy>(&stream)?,
        Some(SyncPolicy::Spin)
    );

    // Both positions at once, with run-time values; a config built once and reused.
    let prio = 0;
    let cfg = config!(<<<(n / 128, 1, 1), 128, stream(sync = BlockingSync, priority = prio), priority = prio, mem_sync_domain = Remote, shared_carveout = 50>>>);
    for round in 0..3 {
        let y_host = random(n as usize, 10 + round);
        stream.memcpy_htod(&y_host, &mut y)?;
        unsafe { saxpy_plain::kernel().launch(&stream, &cfg, (n, -0.5, &x, &mut y)) }?;
        check(
            &stream.clone_dtoh(&y)?,
            -0.5,
            &x_host,
            &y_host,
            "reused config",
        );
    }
    assert_eq!(
        stream_attribute::<SyncPolicy>(&stream)?,
        Some(SyncPolicy::BlockingSync)
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn typed_launch_on_views_leaves_the_rest_untouched() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let total = 10_000usize;
    let (lo, len) = (1_000usize, 4_096usize);
    let x_host = random(total, 3);
    let poison = f32::from_bits(0x7fc0_dead);
    let x = stream.clone_htod(&x_host)?;
    let mut y = stream.clone_htod(&vec![poison; total])?;
    let y_init = random(len, 4);
    {
        let mut window = y.slice_mut(lo..lo + len);
        stream.memcpy_htod(&y_init, &mut window)?;
        let xs = x.slice(lo..lo + len);
        let n = len as u32;
        unsafe {
            launch!(saxpy_views<<<n.div_ceil(128), 128, &stream, cluster = 1>>>(n, 3.0, &xs, &mut window))
        }?;
    }
    let got = stream.clone_dtoh(&y)?;
    check(
        &got[lo..lo + len],
        3.0,
        &x_host[lo..lo + len],
        &y_init,
        "view",
    );
    for (i, g) in got.iter().enumerate() {
        if !(lo..lo + len).contains(&i) {
            assert_eq!(
                g.to_bits(),
                poison.to_bits(),
                "y[{i}] outside the view was written"
            );
        }
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn typed_cluster_launch() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let mut out = stream.clone_htod(&vec![u32::MAX; 16 * 2])?;
    unsafe {
        launch!(cluster_info<<<16, 64, &stream, cluster = (4, 1, 1), cluster_scheduling = Spread>>>(&mut out))
    }?;
    let got = stream.clone_dtoh(&out)?;
    for b in 0..16 {
        assert_eq!(got[2 * b], 4, "block {b}: cluster size");
        assert_eq!(got[2 * b + 1], (b % 4) as u32, "block {b}: rank");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn declarations_of_one_file_share_its_module() -> TestResult {
    let ctx = gpu::context(0)?;
    // Both declarations name kernels/saxpy.ptx and its `saxpy` entry: one module per context,
    // so the driver hands out the same function handle. A second load would give another.
    let a = saxpy::kernel().function(&ctx)?;
    let b = saxpy_views::kernel().function(&ctx)?;
    assert_eq!(a.cu_function(), b.cu_function());
    let separate = ctx
        .load_module(chevron::cudarc::nvrtc::Ptx::from_src(include_str!(
            "../kernels/saxpy.ptx"
        )))?
        .load_function("saxpy")?;
    assert_ne!(a.cu_function(), separate.cu_function());
    Ok(())
}

/// Records `what` in `log` and passes `value` through.
fn seen<T>(log: &std::cell::RefCell<Vec<&'static str>>, what: &'static str, value: T) -> T {
    log.borrow_mut().push(what);
    value
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn typed_launch_evaluates_each_expression_once_in_written_order() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let n: u32 = 4_099;
    let (x_host, y_host) = (random(n as usize, 21), random(n as usize, 22));
    let x = stream.clone_htod(&x_host)?;
    let mut y = stream.clone_htod(&y_host)?;
    let log = std::cell::RefCell::new(Vec::new());
    unsafe {
        launch!(saxpy_plain<<<seen(&log, "grid", (n as usize).div_ceil(128)), seen(&log, "block", 128),
            seen(&log, "stream", &stream), mem_sync_domain = seen(&log, "domain", chevron::MemSyncDomain::Remote),
            stream(priority = seen(&log, "priority", 0)), shared = seen(&log, "shared", 0usize)
        >>>(seen(&log, "n", n), seen(&log, "a", 1.25), seen(&log, "x", &x), seen(&log, "y", &mut y)))
    }?;
    assert_eq!(
        *log.borrow(),
        ["grid", "block", "stream", "domain", "priority", "shared", "n", "a", "x", "y"]
    );
    check(
        &stream.clone_dtoh(&y)?,
        1.25,
        &x_host,
        &y_host,
        "ordered launch",
    );
    Ok(())
}

/// A launch whose only literal is its block and that sets nothing else (its config built by
/// the kernel's `LiteralBlock`, grid and stream in place, no locals): the same order.
#[test]
#[ignore = "needs a CUDA GPU"]
fn typed_launch_of_a_literal_block_alone_evaluates_in_written_order() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let n: u32 = 4_099;
    let (x_host, y_host) = (random(n as usize, 23), random(n as usize, 24));
    let x = stream.clone_htod(&x_host)?;
    let mut y = stream.clone_htod(&y_host)?;
    let log = std::cell::RefCell::new(Vec::new());
    unsafe {
        launch!(saxpy_plain<<<seen(&log, "grid", n.div_ceil(128)), 128, seen(&log, "stream", &stream)>>>(
            seen(&log, "n", n), seen(&log, "a", -0.5), seen(&log, "x", &x), seen(&log, "y", &mut y)
        ))
    }?;
    assert_eq!(*log.borrow(), ["grid", "stream", "n", "a", "x", "y"]);
    check(
        &stream.clone_dtoh(&y)?,
        -0.5,
        &x_host,
        &y_host,
        "literal block alone",
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn typed_launch_with_a_prebuilt_config() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let n: u32 = 10_000;
    let (x_host, y_host) = (random(n as usize, 31), random(n as usize, 32));
    let x = stream.clone_htod(&x_host)?;
    let mut y = stream.clone_htod(&y_host)?;
    let cfg = config!(<<<n.div_ceil(256), 256, stream(sync = Yield)>>>);
    unsafe { launch!(saxpy_plain<<<config = cfg, &stream>>>(n, -2.0, &x, &mut y)) }?;
    check(
        &stream.clone_dtoh(&y)?,
        -2.0,
        &x_host,
        &y_host,
        "prebuilt config",
    );
    assert_eq!(
        stream_attribute::<SyncPolicy>(&stream)?,
        Some(SyncPolicy::Yield)
    );
    Ok(())
}
