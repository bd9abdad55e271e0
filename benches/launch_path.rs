//! Whole launches, each path on its own, for counting their host instructions against the
//! stand-in driver (`benches/stand_in_libcuda`): `scripts/host_cost_callgrind.sh` runs this once
//! per path under callgrind, with `CHEVRON_LAUNCH_PATH=<path>`, and reports instructions and
//! distinct 64-byte code lines per launch. Unlike `host_cost`, nothing is left out: the function
//! lookup, cudarc's pointer guards, the context check and the call into the driver library run
//! as in a program; only the driver does nothing.
//!
//! The paths are those of `examples/launch_overhead.rs` (`saxpy`, 4 arguments, 2 buffers, on
//! the context's default stream, so cudarc tracks nothing), with their floors: the raw
//! `cuLaunchKernelEx`, raw with cudarc's guards, and raw doing the same driver work as the
//! attribute launches.
//!
//! Without `CHEVRON_LAUNCH_PATH` every path runs, and the time per launch is printed: against
//! the stand-in, the host work alone with warm caches; against a real driver, not what a launch
//! costs (the GPU's queue fills; see `examples/launch_overhead.rs`). Without a driver it says so
//! and exits 0 (`cargo test --benches` runs it).

use std::error::Error;
use std::hint::black_box;
use std::time::Instant;

use chevron::cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use chevron::cudarc::nvrtc::Ptx;
use chevron::{kernel, launch, sys, Attribute, LaunchConfig, MemSyncDomain, Priority, SyncPolicy};

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

const N: u32 = 256;

/// What every path gets: the stream, the function (for the raw and `dyn` paths), configs built
/// once (the driver's for the raw paths, without and with two attributes; chevron's for
/// `launch_function` and `saxpy::kernel().launch`) and the buffers.
struct Setup<'a> {
    stream: &'a CudaStream,
    f: &'a CudaFunction,
    plain: &'a sys::CUlaunchConfig,
    with_attributes: &'a sys::CUlaunchConfig,
    cfg: &'a LaunchConfig<'a>,
    x: &'a CudaSlice<f32>,
    y: &'a mut CudaSlice<f32>,
    /// The buffers' device pointers, taken once: what the raw floor launches with.
    px: u64,
    py: u64,
}

/// The scalar arguments, read so that nothing is folded at compile time.
#[inline(always)]
fn scalars() -> (u32, f32) {
    (black_box(N), black_box(1.0f32))
}

/// `cuLaunchKernelEx` of `saxpy` as a program without chevron writes it, with a driver config
/// built once (as `examples/launch_overhead.rs` does).
#[inline(always)]
fn raw(f: &CudaFunction, cfg: &sys::CUlaunchConfig, px: u64, py: u64) {
    let (n, a) = scalars();
    let mut params = [
        &n as *const u32 as *mut _,
        &a as *const f32 as *mut _,
        &px as *const u64 as *mut _,
        &py as *const u64 as *mut _,
    ];
    // SAFETY: `saxpy`'s parameters, alive for the call; the pointers are the buffers'; the
    // config's attribute array is alive.
    let rc = unsafe {
        sys::cuLaunchKernelEx(
            cfg,
            f.cu_function(),
            params.as_mut_ptr(),
            core::ptr::null_mut(),
        )
    };
    assert_eq!(rc, sys::cudaError_enum::CUDA_SUCCESS);
}

#[inline(never)]
fn raw_floor(s: &mut Setup<'_>) {
    raw(s.f, s.plain, s.px, s.py);
}

#[inline(never)]
fn raw_guards(s: &mut Setup<'_>) {
    let (px, _rx) = s.x.device_ptr(s.stream);
    let (py, _wy) = s.y.device_ptr_mut(s.stream);
    raw(s.f, s.plain, px, py);
}

#[inline(never)]
fn raw_guards_attributes(s: &mut Setup<'_>) {
    let (px, _rx) = s.x.device_ptr(s.stream);
    let (py, _wy) = s.y.device_ptr_mut(s.stream);
    raw(s.f, s.with_attributes, px, py);
}

#[inline(never)]
fn raw_guards_stream_attribute(s: &mut Setup<'_>) {
    let (px, _rx) = s.x.device_ptr(s.stream);
    let (py, _wy) = s.y.device_ptr_mut(s.stream);
    let spin = SyncPolicy::Spin.value();
    // SAFETY: a live stream and a value of the attribute's kind.
    let rc = unsafe { sys::cuStreamSetAttribute(s.stream.cu_stream(), SyncPolicy::ID, &spin) };
    assert_eq!(rc, sys::cudaError_enum::CUDA_SUCCESS);
    raw(s.f, s.plain, px, py);
}

#[inline(never)]
fn launch_function(s: &mut Setup<'_>) {
    let (n, a) = scalars();
    let (px, _rx) = s.x.device_ptr(s.stream);
    let (py, _wy) = s.y.device_ptr_mut(s.stream);
    let mut params = [
        &n as *const u32 as *mut _,
        &a as *const f32 as *mut _,
        &px as *const u64 as *mut _,
        &py as *const u64 as *mut _,
    ];
    // SAFETY: `saxpy`'s parameters.
    unsafe { chevron::launch_function(s.stream, s.f, s.cfg, &mut params) }.unwrap();
}

#[inline(never)]
fn kernel_launch(s: &mut Setup<'_>) {
    let (n, a) = scalars();
    // SAFETY: `saxpy` stays within `N` elements.
    unsafe { saxpy::kernel().launch(s.stream, s.cfg, (n, a, s.x, s.y)) }.unwrap();
}

#[inline(never)]
fn typed(s: &mut Setup<'_>) {
    let (n, a) = scalars();
    let (stream, x, y) = (s.stream, s.x, &mut *s.y);
    // SAFETY: as above.
    unsafe { launch!(saxpy<<<1, N, stream>>>(n, a, x, y)) }.unwrap();
}

#[inline(never)]
fn typed_attributes(s: &mut Setup<'_>) {
    let (n, a) = scalars();
    let (stream, x, y) = (s.stream, s.x, &mut *s.y);
    // SAFETY: as above.
    unsafe {
        launch!(saxpy<<<1, N, stream, priority = 0, mem_sync_domain = Default>>>(n, a, x, y))
    }
    .unwrap();
}

#[inline(never)]
fn typed_stream_attribute(s: &mut Setup<'_>) {
    let (n, a) = scalars();
    let (stream, x, y) = (s.stream, s.x, &mut *s.y);
    // SAFETY: as above.
    unsafe { launch!(saxpy<<<1, N, stream, stream(sync = Spin)>>>(n, a, x, y)) }.unwrap();
}

#[inline(never)]
fn dynamic(s: &mut Setup<'_>) {
    let (n, a) = scalars();
    let (stream, f, x, y) = (s.stream, s.f, s.x, &mut *s.y);
    // SAFETY: as above.
    unsafe { launch!(dyn f<<<1, N, stream>>>(&n, &a, x, &mut *y)) }.unwrap();
}

/// Each path: its name (`CHEVRON_LAUNCH_PATH`), what it is, its floor (the path doing the same
/// driver work without chevron), and one launch.
type Path = (
    &'static str,
    &'static str,
    Option<&'static str>,
    fn(&mut Setup<'_>),
);

const PATHS: &[Path] = &[
    ("raw", "raw cuLaunchKernelEx (the floor)", None, raw_floor),
    (
        "guards",
        "raw + cudarc pointer guards",
        Some("raw"),
        raw_guards,
    ),
    (
        "guards_attributes",
        "raw + guards + 2 launch attributes",
        Some("guards"),
        raw_guards_attributes,
    ),
    (
        "guards_stream_attribute",
        "raw + guards + cuStreamSetAttribute",
        Some("guards"),
        raw_guards_stream_attribute,
    ),
    (
        "launch_function",
        "chevron launch_function",
        Some("guards"),
        launch_function,
    ),
    (
        "kernel_launch",
        "chevron #[kernel] saxpy::kernel().launch",
        Some("guards"),
        kernel_launch,
    ),
    ("typed", "launch! typed", Some("guards"), typed),
    (
        "typed_attributes",
        "launch! typed + 2 attributes",
        Some("guards_attributes"),
        typed_attributes,
    ),
    (
        "typed_stream_attribute",
        "launch! typed + stream(sync = Spin)",
        Some("guards_stream_attribute"),
        typed_stream_attribute,
    ),
    ("dyn", "launch!(dyn f)", Some("guards"), dynamic),
];

fn main() -> Result<(), Box<dyn Error>> {
    let ctx = match chevron::context(0) {
        Ok(ctx) => ctx,
        Err(chevron::Error::NoDriver) => {
            println!(
                "launch_path: no CUDA driver here; scripts/host_cost_callgrind.sh runs it against \
                 a stand-in"
            );
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    let only = std::env::var("CHEVRON_LAUNCH_PATH").ok();
    if let Some(name) = &only {
        if !PATHS.iter().any(|p| p.0 == name) {
            let names: Vec<&str> = PATHS.iter().map(|p| p.0).collect();
            return Err(format!("no path `{name}`; the paths: {}", names.join(", ")).into());
        }
    }
    let iters: usize = std::env::var("CHEVRON_LAUNCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let module = ctx.load_module(Ptx::from_src(include_str!("../kernels/saxpy.ptx")))?;
    let f = module.load_function("saxpy")?;
    let stream = ctx.default_stream();
    let x = stream.clone_htod(&vec![1.0f32; N as usize])?;
    let mut y = stream.clone_htod(&vec![0.0f32; N as usize])?;
    let (px, py) = {
        let (px, _rx) = x.device_ptr(&stream);
        let (py, _wy) = y.device_ptr_mut(&stream);
        (px, py)
    };
    let cfg = LaunchConfig::new(1, N);
    let mut attrs = [
        sys::CUlaunchAttribute {
            id: Priority::ID,
            pad: [0; 4],
            value: Priority(0).value(),
        },
        sys::CUlaunchAttribute {
            id: MemSyncDomain::ID,
            pad: [0; 4],
            value: MemSyncDomain::Default.value(),
        },
    ];
    let raw_config = |attrs: &mut [sys::CUlaunchAttribute]| sys::CUlaunchConfig {
        gridDimX: 1,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: N,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: 0,
        hStream: stream.cu_stream(),
        attrs: if attrs.is_empty() {
            core::ptr::null_mut()
        } else {
            attrs.as_mut_ptr()
        },
        numAttrs: attrs.len() as u32,
    };
    let (plain, with_attributes) = (raw_config(&mut []), raw_config(&mut attrs));
    let mut setup = Setup {
        stream: &stream,
        f: &f,
        plain: &plain,
        with_attributes: &with_attributes,
        cfg: &cfg,
        x: &x,
        y: &mut y,
        px,
        py,
    };
    if only.is_none() {
        println!("host ns per launch, fastest of 5 × {iters} (warm caches; not a launch's cost on a GPU):");
    }
    for (name, what, _, path) in PATHS {
        if only.as_ref().is_some_and(|o| o != name) {
            continue;
        }
        // Once before: the module load and the first launch's one-time work.
        path(&mut setup);
        let mut fastest = f64::MAX;
        for _ in 0..if only.is_some() { 1 } else { 5 } {
            let t = Instant::now();
            for _ in 0..iters {
                path(&mut setup);
            }
            fastest = fastest.min(t.elapsed().as_secs_f64() * 1e9 / iters as f64);
            stream.synchronize()?;
        }
        if only.is_none() {
            println!("  {what:<40} {fastest:7.1} ns");
        }
    }
    Ok(())
}
