//! GPU tests of the runtime core: the placement table against the real driver, a launch with
//! each launch-valid kind (checked against a host reference), stream attribute round trips, and
//! the enriched errors. Run on a CUDA machine with `cargo test -- --ignored` (or the GPU bundle).

#[path = "../../tests/common/gpu.rs"]
mod gpu;

use std::sync::Arc;

use chevron_cuda_rules::kinds::Position;
use chevron_cuda_runtime::*;
use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use cudarc::nvrtc::Ptx;

const SAXPY: &str = include_str!("../../kernels/saxpy.ptx");
const CLUSTER: &str = include_str!("../../kernels/cluster.ptx");
const COOPERATIVE: &str = include_str!("../../kernels/cooperative.ptx");

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn ctx() -> Arc<CudaContext> {
    gpu::context(0).expect("a CUDA device")
}

fn function(ctx: &Arc<CudaContext>, ptx: &str, name: &str) -> CudaFunction {
    let module = ctx.load_module(Ptx::from_src(ptx)).expect("module loads");
    module.load_function(name).expect("function exists")
}

/// Deterministic pseudo-random floats in [-1, 1).
fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// Launches saxpy over `n` elements with `cfg`'s attributes (grid/block from `cfg`) and checks
/// every element against the host.
struct Saxpy {
    f: CudaFunction,
    x_host: Vec<f32>,
    y_host: Vec<f32>,
    x: CudaSlice<f32>,
    y: CudaSlice<f32>,
}

const N: usize = 8 * 128;
const A: f32 = 1.5;

impl Saxpy {
    fn new(stream: &Arc<CudaStream>, seed: u64) -> Self {
        let x_host = random(N, seed);
        let y_host = random(N, seed + 1);
        Self {
            f: function(stream.context(), SAXPY, "saxpy"),
            x: stream.clone_htod(&x_host).unwrap(),
            y: stream.clone_htod(&y_host).unwrap(),
            x_host,
            y_host,
        }
    }

    fn launch(&mut self, stream: &Arc<CudaStream>, cfg: &LaunchConfig<'_>) -> Result<(), Error> {
        stream.memcpy_htod(&self.y_host, &mut self.y).unwrap();
        let n = N as u32;
        let (x, _rx) = self.x.device_ptr(stream);
        let (y, _wy) = self.y.device_ptr_mut(stream);
        let mut params = [
            &n as *const u32 as *mut _,
            &A as *const f32 as *mut _,
            &x as *const u64 as *mut _,
            &y as *const u64 as *mut _,
        ];
        unsafe { launch_function(stream, &self.f, cfg, &mut params) }
    }

    fn check(&self, stream: &Arc<CudaStream>, what: &str) {
        let got = stream.clone_dtoh(&self.y).unwrap();
        assert_eq!(got.len(), N);
        for (i, (g, (x, y))) in got
            .iter()
            .zip(self.x_host.iter().zip(&self.y_host))
            .enumerate()
        {
            let want = A * x + y;
            assert!(
                (g - want).abs() <= 1e-5 * want.abs().max(1.0),
                "{what}: y[{i}] = {g} but the host computes {want}"
            );
        }
    }
}

fn grid() -> LaunchConfig<'static> {
    LaunchConfig::new((N / 128) as u32, 128)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn launch_with_each_launch_valid_kind() -> TestResult {
    let _serial = gpu::serial();
    let ctx = ctx();
    let stream = ctx.new_stream()?;
    let mut k = Saxpy::new(&stream, 7);
    let done = ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))?;
    let trigger = ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))?;
    let (lo, hi) = priority_range();
    let (y_ptr, _r) = k.y.device_ptr(&stream);
    let window = AccessPolicyWindow::new(y_ptr, N * 4).hit_ratio(0.5);
    drop(_r);
    let cases: Vec<(&str, LaunchConfig<'_>)> = vec![
        ("none", grid()),
        ("access_policy_window", grid().with(window)),
        ("cooperative", grid().with(Cooperative)),
        ("cluster", grid().with(ClusterDim::new(2, 1, 1))),
        (
            "cluster_scheduling",
            grid()
                .with(ClusterDim::new(2, 1, 1))
                .with(ClusterScheduling::Spread),
        ),
        (
            "preferred_cluster",
            grid()
                .with(ClusterDim::new(2, 1, 1))
                .with(PreferredClusterDim::new(4, 1, 1)),
        ),
        (
            "programmatic_serialization",
            grid().with(ProgrammaticSerialization),
        ),
        (
            "programmatic_event",
            grid().with(ProgrammaticEvent::new(&trigger)),
        ),
        ("priority", grid().with(Priority(hi))),
        ("priority (low)", grid().with(Priority(lo))),
        (
            "mem_sync_domain_map",
            grid().with(MemSyncDomainMap {
                default: 0,
                remote: 1,
            }),
        ),
        ("mem_sync_domain", grid().with(MemSyncDomain::Remote)),
        ("completion_event", grid().with(CompletionEvent(&done))),
        ("shared_carveout", grid().with(SharedCarveout::percent(50))),
        ("nvlink_centric", grid().with(NvlinkCentric)),
    ];
    for (what, cfg) in &cases {
        k.launch(&stream, cfg)
            .map_err(|e| format!("{what}: launch failed: {e}"))?;
        stream.synchronize()?;
        k.check(&stream, what);
    }
    done.synchronize()?;
    trigger.synchronize()?;
    println!("launched saxpy with each of {} configs", cases.len());
    Ok(())
}

fn priority_range() -> (i32, i32) {
    let (mut least, mut greatest) = (0, 0);
    let rc = unsafe { sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest) };
    assert_eq!(rc, sys::cudaError_enum::CUDA_SUCCESS);
    (least, greatest)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cluster_dimension_reaches_the_kernel() -> TestResult {
    let _serial = gpu::serial();
    let ctx = ctx();
    let stream = ctx.new_stream()?;
    let f = function(&ctx, CLUSTER, "cluster_info");
    let blocks = 8usize;
    for (cfg, allowed) in [
        (
            LaunchConfig::new(blocks as u32, 32).with(ClusterDim::new(2, 1, 1)),
            &[2u32][..],
        ),
        (
            LaunchConfig::new(blocks as u32, 32)
                .with(ClusterDim::new(2, 1, 1))
                .with(PreferredClusterDim::new(4, 1, 1)),
            &[2, 4][..],
        ),
        (LaunchConfig::new(blocks as u32, 32), &[1][..]),
    ] {
        let mut out = stream.clone_htod(&vec![0xDEAD_BEEFu32; blocks * 2])?;
        {
            let (p, _w) = out.device_ptr_mut(&stream);
            let mut params = [&p as *const u64 as *mut _];
            unsafe { launch_function(&stream, &f, &cfg, &mut params) }?;
        }
        let got = stream.clone_dtoh(&out)?;
        for b in 0..blocks {
            let (size, rank) = (got[2 * b], got[2 * b + 1]);
            assert!(
                allowed.contains(&size),
                "block {b}: cluster size {size}, want {allowed:?}"
            );
            assert!(rank < size, "block {b}: rank {rank} in a cluster of {size}");
        }
        println!(
            "{cfg:?}: cluster sizes {:?}",
            got.iter().step_by(2).collect::<Vec<_>>()
        );
    }
    Ok(())
}

/// Launches `grid_rotate(x, tmp, out, n)` (cooperative.cu) with `cfg`.
fn grid_rotate(
    stream: &Arc<CudaStream>,
    f: &CudaFunction,
    cfg: &LaunchConfig<'_>,
    x: &CudaSlice<i32>,
    tmp: &mut CudaSlice<i32>,
    out: &mut CudaSlice<i32>,
) -> Result<(), Error> {
    let n = x.len() as u32;
    let (px, _rx) = x.device_ptr(stream);
    let (pt, _wt) = tmp.device_ptr_mut(stream);
    let (po, _wo) = out.device_ptr_mut(stream);
    let mut params = [
        &px as *const u64 as *mut _,
        &pt as *const u64 as *mut _,
        &po as *const u64 as *mut _,
        &n as *const u32 as *mut _,
    ];
    unsafe { launch_named(stream, f, Some("grid_rotate"), cfg, &mut params) }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cooperative_launch_syncs_the_grid() -> TestResult {
    let _serial = gpu::serial();
    let ctx = ctx();
    let stream = ctx.new_stream()?;
    let f = function(&ctx, COOPERATIVE, "grid_rotate");
    let (blocks, threads) = (8u32, 256u32);
    let n = (blocks * threads) as usize;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 7 - 3000).collect();
    let x = stream.clone_htod(&input)?;
    let mut tmp = stream.clone_htod(&vec![-1i32; n])?;
    let mut out = stream.clone_htod(&vec![-1i32; n])?;
    let cfg = LaunchConfig::new(blocks, threads).with(Cooperative);
    grid_rotate(&stream, &f, &cfg, &x, &mut tmp, &mut out)?;
    let got = stream.clone_dtoh(&out)?;
    for t in 0..n {
        let want = input[(t + threads as usize) % n] * 3;
        assert_eq!(got[t], want, "out[{t}]");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn device_updatable_inside_capture_and_error_outside() -> TestResult {
    let _serial = gpu::serial();
    let ctx = ctx();
    let stream = ctx.new_stream()?;
    let mut k = Saxpy::new(&stream, 11);
    stream.synchronize()?;
    let cfg = grid().with(DeviceUpdatable);

    // Outside capture the driver refuses; chevron says why.
    match k.launch(&stream, &cfg) {
        Err(Error::NotCapturing { .. }) => {}
        other => panic!("expected Error::NotCapturing, got {other:?}"),
    }
    stream.synchronize()?;

    // Inside capture: raw pointers taken before capture, so no event work is captured.
    stream.memcpy_htod(&k.y_host, &mut k.y)?;
    stream.synchronize()?;
    let (x, rx) = k.x.device_ptr(&stream);
    let (y, wy) = k.y.device_ptr_mut(&stream);
    drop((rx, wy));
    stream.synchronize()?;
    let n = N as u32;
    let mut params = [
        &n as *const u32 as *mut _,
        &A as *const f32 as *mut _,
        &x as *const u64 as *mut _,
        &y as *const u64 as *mut _,
    ];
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)?;
    assert!(is_capturing(&stream));
    let launched = unsafe { launch_function(&stream, &k.f, &cfg, &mut params) };
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0))?;
    launched?;
    let graph = graph.expect("a captured graph");
    graph.launch()?;
    stream.synchronize()?;
    k.check(&stream, "device_updatable in a captured graph");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn stream_attributes_round_trip() -> TestResult {
    let _serial = gpu::serial();
    let ctx = ctx();
    let stream = ctx.new_stream()?;
    let fresh = stream_attribute::<SyncPolicy>(&stream)?;
    println!("fresh stream: sync policy {fresh:?}");
    assert_eq!(fresh, None, "a fresh stream reports no sync policy");
    for policy in [
        SyncPolicy::Spin,
        SyncPolicy::Yield,
        SyncPolicy::BlockingSync,
        SyncPolicy::Auto,
    ] {
        set_stream_attribute(&stream, policy)?;
        assert_eq!(stream_attribute::<SyncPolicy>(&stream)?, Some(policy));
    }
    let (lo, hi) = priority_range();
    for p in [hi, lo] {
        set_stream_attribute(&stream, Priority(p))?;
        assert_eq!(stream_attribute::<Priority>(&stream)?, Some(Priority(p)));
    }
    for d in [MemSyncDomain::Remote, MemSyncDomain::Default] {
        set_stream_attribute(&stream, d)?;
        assert_eq!(stream_attribute::<MemSyncDomain>(&stream)?, Some(d));
    }
    let map = MemSyncDomainMap {
        default: 0,
        remote: 1,
    };
    set_stream_attribute(&stream, map)?;
    assert_eq!(stream_attribute::<MemSyncDomainMap>(&stream)?, Some(map));
    let buf = stream.alloc_zeros::<f32>(1 << 16)?;
    let window = AccessPolicyWindow::over(&buf, &stream)
        .hit_ratio(0.5)
        .props(AccessProperty::Streaming, AccessProperty::Normal);
    set_stream_attribute(&stream, window)?;
    assert_eq!(
        stream_attribute::<AccessPolicyWindow>(&stream)?,
        Some(window)
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn launch_applies_stream_attributes_before_launching() -> TestResult {
    let _serial = gpu::serial();
    let ctx = ctx();
    let stream = ctx.new_stream()?;
    let mut k = Saxpy::new(&stream, 3);
    let cfg = grid()
        .with(Priority(0))
        .with_stream(SyncPolicy::BlockingSync)
        .with_stream(MemSyncDomain::Remote);
    k.launch(&stream, &cfg)?;
    stream.synchronize()?;
    k.check(&stream, "with stream attributes");
    assert_eq!(
        stream_attribute::<SyncPolicy>(&stream)?,
        Some(SyncPolicy::BlockingSync)
    );
    assert_eq!(
        stream_attribute::<MemSyncDomain>(&stream)?,
        Some(MemSyncDomain::Remote)
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn failures_are_explained_with_numbers() -> TestResult {
    let _serial = gpu::serial();
    let ctx = ctx();
    let stream = ctx.new_stream()?;
    let f = function(&ctx, COOPERATIVE, "grid_rotate");
    let sms = ctx.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let per_sm = f.occupancy_max_active_blocks_per_multiprocessor(1024, 0, None)?;
    let blocks = sms as u32 * per_sm + 1;
    let n = blocks as usize * 1024;
    let x = stream.alloc_zeros::<i32>(n)?;
    let mut tmp = stream.alloc_zeros::<i32>(n)?;
    let mut out = stream.alloc_zeros::<i32>(n)?;
    let cfg = LaunchConfig::new(blocks, 1024).with(Cooperative);
    let err = grid_rotate(&stream, &f, &cfg, &x, &mut tmp, &mut out)
        .expect_err("too many blocks for a cooperative launch");
    println!("{err}");
    match &err {
        Error::CooperativeTooLarge {
            requested,
            co_resident,
            sms: s,
            per_sm: p,
            ..
        } => {
            assert_eq!(*requested, blocks as u64);
            assert_eq!((*s, *p), (sms as u32, per_sm));
            assert_eq!(*co_resident, blocks as u64 - 1);
        }
        other => panic!("expected CooperativeTooLarge, got {other:?}"),
    }
    assert!(err.to_string().contains("`grid_rotate`"));

    // A cluster over the portable size without the opt-in never reaches the driver.
    let mut k = Saxpy::new(&stream, 5);
    let cfg = LaunchConfig::new(16, 64).with(ClusterDim::new(16, 1, 1));
    let err = k.launch(&stream, &cfg).expect_err("cluster of 16");
    println!("{err}");
    assert!(
        matches!(
            err,
            Error::InvalidConfig {
                violation: Violation::ClusterNotPortable { blocks: 16, .. },
                ..
            }
        ),
        "{err:?}"
    );

    // A run-time value over a limit never reaches the driver.
    let err = k
        .launch(&stream, &LaunchConfig::new(1, (64, 32)))
        .expect_err("2048 threads");
    assert!(
        matches!(
            &err,
            Error::InvalidConfig {
                violation: Violation::BlockTooLarge { threads: 2048, .. },
                ..
            }
        ),
        "{err:?}"
    );
    Ok(())
}

/// Launches `cluster_info` on `blocks` blocks with `cfg`; returns (num_blocks, rank) per block.
fn cluster_info(
    f: &CudaFunction,
    stream: &Arc<CudaStream>,
    cfg: &LaunchConfig<'_>,
    blocks: usize,
) -> Result<Vec<(u32, u32)>, Error> {
    let mut out = stream
        .clone_htod(&vec![0xDEAD_BEEFu32; blocks * 2])
        .expect("alloc");
    {
        let (p, _w) = out.device_ptr_mut(stream);
        let mut params = [&p as *const u64 as *mut _];
        unsafe { launch_function(stream, f, cfg, &mut params) }?;
    }
    let got = stream.clone_dtoh(&out).expect("copy back");
    Ok(got.chunks(2).map(|c| (c[0], c[1])).collect())
}

/// A cluster of 16 blocks, over the portable 8, with the opt-in: every block of the kernel sees
/// 16 blocks in its cluster. Twice: the second launch finds the function attribute already set.
#[test]
#[ignore = "needs a CUDA GPU"]
fn non_portable_cluster_of_16_reaches_the_kernel() -> TestResult {
    let _serial = gpu::serial();
    let ctx = ctx();
    let stream = ctx.new_stream()?;
    let f = function(&ctx, CLUSTER, "cluster_info");
    let blocks = 32usize;
    let cfg = LaunchConfig::new(blocks as u32, 32)
        .with(ClusterDim::new(16, 1, 1))
        .non_portable_cluster();
    for _ in 0..2 {
        let got = cluster_info(&f, &stream, &cfg, blocks)?;
        println!(
            "non-portable cluster sizes {:?}",
            got.iter().map(|g| g.0).collect::<Vec<_>>()
        );
        for (b, (size, rank)) in got.into_iter().enumerate() {
            assert_eq!(size, 16, "block {b}: num_blocks() = {size}");
            assert!(rank < 16, "block {b}: rank {rank}");
        }
    }
    Ok(())
}

/// The same launch without the opt-in is a typed error, before the driver.
#[test]
#[ignore = "needs a CUDA GPU"]
fn non_portable_cluster_without_opt_in_is_a_typed_error() -> TestResult {
    let _serial = gpu::serial();
    let ctx = ctx();
    let stream = ctx.new_stream()?;
    let f = function(&ctx, CLUSTER, "cluster_info");
    let cfg = LaunchConfig::new(32, 32).with(ClusterDim::new(16, 1, 1));
    let err = cluster_info(&f, &stream, &cfg, 32).expect_err("16 blocks without the opt-in");
    println!("without opt-in: {err}");
    assert!(
        matches!(
            err,
            Error::InvalidConfig {
                violation: Violation::ClusterNotPortable { blocks: 16, .. },
                ..
            }
        ),
        "{err:?}"
    );
    Ok(())
}

/// What the raw placement tests launch and take their sample values from: saxpy, an event for
/// the event kinds and a device buffer for the access-policy window.
struct Probe {
    saxpy: CudaFunction,
    event: cudarc::driver::CudaEvent,
    /// The window's buffer, alive as long as the samples that point into it.
    _buf: CudaSlice<f32>,
    window: (sys::CUdeviceptr, usize),
}

impl Probe {
    fn new(ctx: &Arc<CudaContext>) -> Result<Probe, Box<dyn std::error::Error>> {
        let buf = ctx.default_stream().alloc_zeros::<f32>(1024)?;
        let window = AccessPolicyWindow::over(&buf, &ctx.default_stream());
        Ok(Probe {
            saxpy: function(ctx, SAXPY, "saxpy"),
            event: ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))?,
            window: (window.base, window.num_bytes),
            _buf: buf,
        })
    }

    /// Each kind's sample is built over these (`sample`).
    fn samples(&self) -> Samples<'_> {
        Samples {
            event: Some(&self.event),
            window: self.window,
        }
    }
}

/// A valid value of each kind, for the raw matrix tests: each type's sample, beside the type.
fn sample(kind: &KindInfo, samples: &Samples<'_>) -> sys::CUlaunchAttributeValue {
    samples
        .value(kind.id)
        .unwrap_or_else(|| panic!("no sample for {} with an event", kind.key))
}

fn driver_version() -> u32 {
    let mut v = 0;
    let rc = unsafe { sys::cuDriverGetVersion(&mut v) };
    assert_eq!(rc, sys::cudaError_enum::CUDA_SUCCESS);
    // The driver reports 13000 for 13.0, as cudarc's feature numbers do.
    v as u32
}

/// Calls the driver directly (bypassing chevron's types) with each kind in each place, and
/// checks the answers against the table the traits encode.
#[test]
#[ignore = "needs a CUDA GPU"]
fn placement_table_matches_the_driver() -> TestResult {
    let _serial = gpu::serial();
    let ctx = ctx();
    let probe = Probe::new(&ctx)?;
    let (f, samples) = (&probe.saxpy, probe.samples());
    let mut mismatches = Vec::new();
    let driver = driver_version();
    println!("driver CUDA version {driver}, built for {CUDA_VERSION}");
    for kind in KINDS {
        let value = sample(kind, &samples);
        // Launch: saxpy with n = 0 on 8 blocks, this kind alone (the preferred cluster with the
        // cluster dimension it refines); then the same value as a stream attribute.
        let stream = ctx.new_stream()?;
        let (launch_rc, stream_rc) = placement_on(&ctx, &stream, f, kind, value)?;
        let launch_ok = launch_rc == sys::cudaError_enum::CUDA_SUCCESS;
        let stream_ok = stream_rc == sys::cudaError_enum::CUDA_SUCCESS;
        println!(
            "measured {:<28} (id {:>2}, CUDA {}) launch: {:<40} stream: {:?}",
            kind.key,
            kind.id,
            kind.since,
            format!("{launch_rc:?}"),
            stream_rc
        );
        // DeviceUpdatable is launch-valid only while capturing; outside capture the driver
        // answers NOT_SUPPORTED (the capture case is tested above).
        let launch_expected = if kind.key == "device_updatable" {
            assert_eq!(launch_rc, sys::cudaError_enum::CUDA_ERROR_NOT_SUPPORTED);
            false
        } else {
            kind.accepts(Position::Launch)
        };
        // A driver older than the CUDA version that introduced a kind does not know it: the
        // recorded answer is that it rejects the kind in both places.
        let (launch_expected, stream_expected) = if kind.since > driver {
            (false, false)
        } else {
            (launch_expected, kind.accepts(Position::Stream))
        };
        if launch_ok != launch_expected || stream_ok != stream_expected {
            mismatches.push(format!(
                "{}: expected launch {} stream {} (driver {driver}), driver says launch {:?} \
                 stream {:?}",
                kind.key, launch_expected, stream_expected, launch_rc, stream_rc
            ));
        }
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    Ok(())
}

/// The third position: each kind set with `cuGraphKernelNodeSetAttribute` on a kernel node
/// captured from a plain launch (the raw driver call, bypassing chevron's types), against the
/// spec table's `graph` column. `preferred_cluster` is set after a cluster dimension, as in the
/// launch test; its answer alone is printed too.
#[test]
#[ignore = "needs a CUDA GPU"]
fn graph_node_placement_matches_the_driver() -> TestResult {
    let _serial = gpu::serial();
    let ctx = ctx();
    let probe = Probe::new(&ctx)?;
    let (f, samples) = (&probe.saxpy, probe.samples());
    let driver = driver_version();
    println!("driver CUDA version {driver}, built for {CUDA_VERSION}");
    let mut mismatches = Vec::new();
    let mut accepted = 0;
    for kind in KINDS {
        let value = sample(kind, &samples);
        let id = raw_id(kind.id).expect("every kind of KINDS has an id in this build");
        let stream = ctx.new_stream()?;
        let cfg = LaunchConfig::new(8, 32);
        let (n, a, null) = (0u32, 1.0f32, 0u64);
        let (graph, node) = unsafe {
            Graph::capture(&stream, |capture| {
                let mut params = [
                    &n as *const u32 as *mut _,
                    &a as *const f32 as *mut _,
                    &null as *const u64 as *mut _,
                    &null as *const u64 as *mut _,
                ];
                launch_function(capture.stream(), f, &cfg, &mut params)?;
                capture.last_node()
            })
        }?;
        ctx.bind_to_thread()?;
        let alone = unsafe { sys::cuGraphKernelNodeSetAttribute(node.raw(), id, &value) };
        let rc = if kind.key == "preferred_cluster" {
            let cluster = ClusterDim::new(2, 1, 1).value();
            let rc =
                unsafe { sys::cuGraphKernelNodeSetAttribute(node.raw(), ClusterDim::ID, &cluster) };
            assert_eq!(rc, sys::cudaError_enum::CUDA_SUCCESS, "cluster on a node");
            unsafe { sys::cuGraphKernelNodeSetAttribute(node.raw(), id, &value) }
        } else {
            alone
        };
        drop(graph);
        let ok = rc == sys::cudaError_enum::CUDA_SUCCESS;
        accepted += usize::from(ok);
        println!(
            "measured {:<28} (id {:>2}, CUDA {}) graph node: {:<40} alone: {:?}",
            kind.key,
            kind.id,
            kind.since,
            format!("{rc:?}"),
            alone
        );
        // A driver older than the kind's CUDA version does not know it.
        let expected = kind.accepts(Position::GraphNode) && kind.since <= driver;
        if ok != expected {
            mismatches.push(format!(
                "{}: expected graph node {expected} (driver {driver}), driver says {rc:?}",
                kind.key
            ));
        }
    }
    // The measurement can fail: some kinds are accepted, some are not.
    assert!(
        accepted > 0 && accepted < KINDS.len(),
        "accepted {accepted}"
    );
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    Ok(())
}

/// The attribute array of a probe launch of `kind` with `value` (a `preferred_cluster` also
/// needs a cluster).
fn probe_attrs(
    kind: &KindInfo,
    id: sys::CUlaunchAttributeID,
    value: sys::CUlaunchAttributeValue,
) -> Vec<sys::CUlaunchAttribute> {
    let mut attrs = vec![sys::CUlaunchAttribute {
        id,
        pad: [0; 4],
        value,
    }];
    if kind.key == "preferred_cluster" {
        attrs.push(sys::CUlaunchAttribute {
            id: ClusterDim::ID,
            pad: [0; 4],
            value: ClusterDim::new(2, 1, 1).value(),
        });
    }
    attrs
}

/// The probe launch's configuration on `stream`: 8 blocks of 32 threads with `attrs`.
fn probe_config(stream: &CudaStream, attrs: &mut [sys::CUlaunchAttribute]) -> sys::CUlaunchConfig {
    sys::CUlaunchConfig {
        gridDimX: 8,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: 32,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: 0,
        hStream: stream.cu_stream(),
        attrs: attrs.as_mut_ptr(),
        numAttrs: attrs.len() as u32,
    }
}

/// `(cuLaunchKernelEx, cuStreamSetAttribute)` answers for `kind` with `value` on `stream`
/// (saxpy with n = 0 on 8 blocks of 32 threads; `preferred_cluster` with the cluster dimension
/// it refines), the raw calls of [`placement_table_matches_the_driver`].
fn placement_on(
    ctx: &Arc<CudaContext>,
    stream: &CudaStream,
    f: &CudaFunction,
    kind: &KindInfo,
    value: sys::CUlaunchAttributeValue,
) -> Result<(sys::CUresult, sys::CUresult), Box<dyn std::error::Error>> {
    let id = raw_id(kind.id).expect("every kind of KINDS has an id in this build");
    let mut attrs = probe_attrs(kind, id, value);
    let raw = probe_config(stream, &mut attrs);
    let (n, a, null) = (0u32, 1.0f32, 0u64);
    let mut params = [
        &n as *const u32 as *mut _,
        &a as *const f32 as *mut _,
        &null as *const u64 as *mut _,
        &null as *const u64 as *mut _,
    ];
    ctx.bind_to_thread()?;
    let launch_rc = unsafe {
        sys::cuLaunchKernelEx(
            &raw,
            f.cu_function(),
            params.as_mut_ptr(),
            std::ptr::null_mut(),
        )
    };
    stream.synchronize()?;
    let stream_rc = unsafe { sys::cuStreamSetAttribute(stream.cu_stream(), id, &value) };
    Ok((launch_rc, stream_rc))
}

/// The SM-partition position: every kind in a launch and as a stream attribute on a stream of a
/// `Partition` (a green context's stream) is answered by the driver as on a stream of the whole
/// device, so the table's launch and stream columns hold there too, and only what depends on the
/// SM count (cooperative residency, occupancy) is checked against the partition.
#[test]
#[ignore = "needs a CUDA GPU"]
fn partition_placement_matches_the_device_streams() -> TestResult {
    let _serial = gpu::serial();
    let ctx = ctx();
    let probe = Probe::new(&ctx)?;
    let (f, samples) = (&probe.saxpy, probe.samples());
    let (mut part, _rest) = Partition::split(&ctx, 8)?;
    let mut mismatches = Vec::new();
    for kind in KINDS {
        let value = sample(kind, &samples);
        let device = placement_on(&ctx, &*ctx.new_stream()?, f, kind, value)?;
        let partition = placement_on(&ctx, &*part.new_stream()?, f, kind, value)?;
        println!(
            "{:<28} device: launch {:<40} stream {:<30} partition: launch {:<40} stream {:?}",
            kind.key,
            format!("{:?}", device.0),
            format!("{:?}", device.1),
            format!("{:?}", partition.0),
            partition.1
        );
        if device != partition {
            mismatches.push(format!(
                "{}: device stream (launch {:?}, stream {:?}), partition stream (launch {:?}, \
                 stream {:?})",
                kind.key, device.0, device.1, partition.0, partition.1
            ));
        }
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    Ok(())
}

/// What one kind measured under capture: the launch's answer, the capture's end, the node's
/// attribute read back and the edges the launch left.
struct CaptureMeasure {
    launch: sys::CUresult,
    /// `Graph::capture`'s error (ending or instantiating the capture), if any.
    capture: Option<String>,
    /// `cuGraphKernelNodeGetAttribute` on the node, and whether it reads back the value set.
    read_back: Option<(sys::CUresult, bool)>,
    /// `(from_port, type)` of the edges into the node from the kernel before it (for
    /// `programmatic_serialization`) or out of it (for the event kinds, whose event a kernel on
    /// another stream of the capture waited on).
    edges: Vec<(u8, u8)>,
}

impl CaptureMeasure {
    /// The capture column's answer.
    fn captured(&self) -> chevron_cuda_rules::kinds::Captured {
        use chevron_cuda_rules::kinds::Captured;
        if self.launch != sys::cudaError_enum::CUDA_SUCCESS {
            return Captured::Refused;
        }
        // A programmatic (type 1) or launch-order edge, or one from a non-default port.
        if self.edges.iter().any(|&(port, ty)| port != 0 || ty != 0) {
            return Captured::Edge;
        }
        match self.read_back {
            Some((sys::cudaError_enum::CUDA_SUCCESS, true)) => Captured::OnNode,
            _ => Captured::Dropped,
        }
    }
}

/// The bytes of a value union.
fn bytes(value: &sys::CUlaunchAttributeValue) -> &[u8] {
    // SAFETY: a plain-old-data union, read as bytes.
    unsafe {
        std::slice::from_raw_parts(
            (value as *const sys::CUlaunchAttributeValue).cast::<u8>(),
            size_of::<sys::CUlaunchAttributeValue>(),
        )
    }
}

/// The bytes of `value` up to its last non-zero one: what a read-back must hold in place (the
/// rest of the union is padding, or fields the driver fills in, such as a device-updatable
/// node's handle). Empty for an all-zero value, which a read-back cannot tell from the default.
fn significant(value: &sys::CUlaunchAttributeValue) -> &[u8] {
    let all = bytes(value);
    let len = all.iter().rposition(|b| *b != 0).map_or(0, |i| i + 1);
    &all[..len]
}

/// The edges into `node` (`incoming`) or out of it: `(from_port, type)` of each.
fn edges_of(node: sys::CUgraphNode, incoming: bool) -> Vec<(u8, u8)> {
    let mut nodes = [std::ptr::null_mut(); 8];
    let mut edges = [sys::CUgraphEdgeData {
        from_port: 0,
        to_port: 0,
        type_: 0,
        reserved: [0; 5],
    }; 8];
    let mut n = nodes.len();
    let (nodes, data) = (nodes.as_mut_ptr(), edges.as_mut_ptr());
    let rc = unsafe {
        if incoming {
            sys::cuGraphNodeGetDependencies_v2(node, nodes, data, &mut n)
        } else {
            sys::cuGraphNodeGetDependentNodes_v2(node, nodes, data, &mut n)
        }
    };
    assert_eq!(rc, sys::cudaError_enum::CUDA_SUCCESS, "the node's edges");
    edges[..n.min(8)]
        .iter()
        .map(|e| (e.from_port, e.type_))
        .collect()
}

/// The fourth position, measured: each kind in the attribute array of a `cuLaunchKernelEx` on a
/// capturing stream (the raw call, after a plain launch of the same kernel), then what the
/// captured graph holds: the node's attribute read back (`cuGraphKernelNodeGetAttribute`), the
/// edge into it (`programmatic_serialization`), or the edges out of it (`programmatic_event`,
/// `completion_event`: a kernel on a second stream of the capture waits on the event, then the
/// capture joins back). Prints each kind's row as measured, in the form of
/// `chevron_cuda_rules::kinds::CAPTURE` (to paste there with `Evidence::Measured`; also written
/// to the file `CHEVRON_CAPTURE_COLUMN` names, if set), and fails where a documented row is
/// contradicted. Priority and memory-sync domain take values other than the default, so that a
/// dropped value shows.
#[test]
#[ignore = "needs a CUDA GPU"]
fn capture_column_matches_the_driver() -> TestResult {
    use chevron_cuda_rules::kinds::{capture_row, Captured, Evidence};
    let _serial = gpu::serial();
    let ctx = ctx();
    let probe = Probe::new(&ctx)?;
    let (f, samples) = (&probe.saxpy, probe.samples());
    let join = ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))?;
    let driver = driver_version();
    println!("driver CUDA version {driver}, built for {CUDA_VERSION}");
    let (_, greatest) = priority_range();
    let side = ctx.new_stream()?;
    let mut mismatches = Vec::new();
    let mut rows = Vec::new();
    for kind in KINDS {
        let value = match kind.key {
            "priority" => Priority(greatest).value(),
            "mem_sync_domain" => MemSyncDomain::Remote.value(),
            _ => sample(kind, &samples),
        };
        let id = raw_id(kind.id).expect("every kind of KINDS has an id in this build");
        let is_event = matches!(kind.key, "programmatic_event" | "completion_event");
        let stream = ctx.new_stream()?;
        let plain = LaunchConfig::new(8, 32);
        let (n, a, null) = (0u32, 1.0f32, 0u64);
        let params = || {
            [
                &n as *const u32 as *mut _,
                &a as *const f32 as *mut _,
                &null as *const u64 as *mut _,
                &null as *const u64 as *mut _,
            ]
        };
        let launch_rc = std::cell::Cell::new(sys::cudaError_enum::CUDA_SUCCESS);
        let captured = unsafe {
            Graph::capture(&stream, |capture| {
                let s = capture.stream();
                launch_function(s, f, &plain, &mut params())?;
                let mut attrs = probe_attrs(kind, id, value);
                let raw = probe_config(s, &mut attrs);
                let mut p = params();
                let rc = sys::cuLaunchKernelEx(
                    &raw,
                    f.cu_function(),
                    p.as_mut_ptr(),
                    std::ptr::null_mut(),
                );
                launch_rc.set(rc);
                if rc != sys::cudaError_enum::CUDA_SUCCESS {
                    return Ok(None);
                }
                let node = capture.last_node()?.raw();
                if is_event {
                    // A second stream joins the capture by waiting on the event, launches,
                    // and joins back: its kernel depends on the node through the event.
                    let ok = sys::cudaError_enum::CUDA_SUCCESS;
                    let rc = sys::cuStreamWaitEvent(side.cu_stream(), probe.event.cu_event(), 0);
                    assert_eq!(rc, ok, "the side stream waits on the event");
                    launch_function(&side, f, &plain, &mut params())?;
                    let rc = sys::cuEventRecord(join.cu_event(), side.cu_stream());
                    assert_eq!(rc, ok, "the side stream records its end");
                    let rc = sys::cuStreamWaitEvent(s.cu_stream(), join.cu_event(), 0);
                    assert_eq!(rc, ok, "the capture joins the side stream");
                }
                Ok(Some(node))
            })
        };
        let measure = match captured {
            Err(e) => CaptureMeasure {
                launch: launch_rc.get(),
                capture: Some(e.to_string()),
                read_back: None,
                edges: Vec::new(),
            },
            Ok((graph, node)) => {
                ctx.bind_to_thread()?;
                let read_back = node.map(|node| {
                    let mut out: sys::CUlaunchAttributeValue = unsafe { std::mem::zeroed() };
                    let rc = unsafe { sys::cuGraphKernelNodeGetAttribute(node, id, &mut out) };
                    // The value's bytes, read back in place (the driver may fill in more: a
                    // device-updatable node's handle).
                    let want = significant(&value);
                    let same = bytes(&out)[..want.len()] == *want;
                    (rc, rc == sys::cudaError_enum::CUDA_SUCCESS && same)
                });
                let edges = match node {
                    Some(node) if is_event => edges_of(node, false),
                    Some(node) if kind.key == "programmatic_serialization" => edges_of(node, true),
                    _ => Vec::new(),
                };
                drop(graph);
                CaptureMeasure {
                    launch: launch_rc.get(),
                    capture: None,
                    read_back,
                    edges,
                }
            }
        };
        let answer = measure.captured();
        println!(
            "measured {:<28} capture: {:<9} launch {:?}, read back {:?}, edges {:?}{}",
            kind.key,
            answer.words(),
            measure.launch,
            measure.read_back,
            measure.edges,
            measure
                .capture
                .as_deref()
                .map_or(String::new(), |e| format!(", capture: {e}"))
        );
        rows.push(format!(
            "    CaptureRow {{ key: {:?}, captured: Captured::{answer:?}, evidence: \
             Evidence::Measured({driver}), source: \"capture_column_matches_the_driver\" }},",
            kind.key
        ));
        // A driver older than the kind does not know it; an unknown row is only measured.
        let row = capture_row(kind.key).expect("a capture row per kind");
        let checked = kind.since <= driver && row.captured != Captured::Unknown;
        if checked && row.captured != answer {
            mismatches.push(format!(
                "{}: the table says {} ({:?}), the driver {}",
                kind.key,
                row.captured.words(),
                row.evidence,
                answer.words()
            ));
        }
        if let Evidence::Measured(on) = row.evidence {
            println!("  (row measured on a CUDA {on} driver)");
        }
    }
    println!("the capture column as measured:\n{}", rows.join("\n"));
    // For a GPU run that keeps files (`scripts/device-run.sh`): the rows, to paste into
    // `kinds::CAPTURE`.
    if let Some(path) = std::env::var_os("CHEVRON_CAPTURE_COLUMN") {
        std::fs::write(&path, rows.join("\n") + "\n")?;
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
    Ok(())
}
