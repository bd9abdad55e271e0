//! Host cost of one launch, chevron against the raw driver, in the two regimes of cudarc's
//! buffer tracking, side by side in one process:
//!
//! - **one stream**: every launch on the context's default stream and no stream created, so
//!   cudarc tracks nothing (its `DevicePtr` guards only read two flags);
//! - **two streams**: a second stream exists, so cudarc orders every buffer across streams: each
//!   launch waits for the buffer's last writer (`cuStreamWaitEvent`, for a written buffer its
//!   readers too) and records an event per buffer (`cuEventRecord`);
//! - **two streams, tracking off**: the same, with the buffers allocated after
//!   `CudaContext::disable_event_tracking` (ordering is then the program's job).
//!
//! In each regime, the floors: raw `cuLaunchKernelEx` (pointers taken once), raw + cudarc's
//! pointer guards, and raw + guards + the same driver work as the attribute launches (two launch
//! attributes; `cuStreamSetAttribute`); the cost of one `cuCtxGetCurrent` per launch (what
//! chevron paid before it remembered the thread's context) and of cudarc's check for an error it
//! recorded in a `Drop` (`CudaContext::check_err`, an atomic swap, which every chevron launch
//! makes so that such an error is reported by the next launch); then cudarc's launch builder and
//! chevron's launches: `launch_function` (a config built once), the `#[kernel]` function,
//! `launch!` (config built per launch), `launch!` with two launch attributes, `launch!` with a
//! stream attribute, `launch!(dyn f)`.
//!
//! On the default stream, a launch with a stream attribute asks the driver for the current
//! context every time (`cuStreamSetAttribute` on that handle would reach whichever context is
//! current); elsewhere chevron compares with the context the thread last bound.
//!
//! Each sample is one batch of launches of one variant, timed between two synchronizations.
//! A round takes one sample of every variant, in an order shuffled anew each round (so that no
//! variant always runs right after the same other one, or first after the warm-up), and every
//! comparison is paired within its round: a variant's ratio to its floor is the median, over the
//! rounds, of its sample divided by the floor's sample of the same round, taken moments apart.
//! Slow drift of the shared machine (clock, other processes) cancels out of such pairs; a burst
//! that hits one sample is one outlier among many rounds. The spread shown is the middle half of
//! the paired ratios (25th–75th percentile). The whole measurement runs 3 times (`CHEVRON_RUNS`
//! to change); the summary line takes the worst run's median.
//!
//! Run on a CUDA machine: `cargo run --release --example launch_overhead`. Exit code 2 on a
//! machine without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use chevron::cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, PushKernelArg,
};
use chevron::cudarc::nvrtc::Ptx;
use chevron::{kernel, launch, sys, Attribute, LaunchConfig, MemSyncDomain, Priority, SyncPolicy};

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

// Small batches, so the launch queue never fills and the host time is the launch call itself
// rather than the GPU draining the queue; many rounds, so that the median of the paired ratios
// is steady. (`CHEVRON_QUICK`: 3 rounds of 10, one run.)
const BATCH: usize = 200;
const ROUNDS: usize = 301;
const RUNS: usize = 3;
const N: u32 = 256;

/// The variants, in print order; `floor` is the row a variant is compared with besides the raw
/// one (its own driver work without chevron).
const VARIANTS: &[(&str, Option<usize>)] = &[
    ("raw cuLaunchKernelEx (the floor)", None),
    ("raw + cudarc pointer guards", Some(RAW)),
    ("raw + guards + 2 launch attributes", Some(GUARDS)),
    ("raw + guards + cuStreamSetAttribute", Some(GUARDS)),
    ("raw + guards + cuCtxGetCurrent", Some(GUARDS)),
    ("raw + guards + cudarc's recorded-error check", Some(GUARDS)),
    ("cudarc launch_builder", Some(GUARDS)),
    ("chevron launch_function", Some(GUARDS)),
    ("chevron #[kernel] saxpy::kernel().launch", Some(GUARDS)),
    ("launch! typed", Some(GUARDS)),
    ("launch! typed + 2 attributes", Some(ATTRS)),
    ("launch! typed + stream(sync = Spin)", Some(STREAM_ATTR)),
    ("launch!(dyn f)", Some(GUARDS)),
];
const RAW: usize = 0;
const GUARDS: usize = 1;
const ATTRS: usize = 2;
const STREAM_ATTR: usize = 3;
const CTX_QUERY: usize = 4;
const ERR_CHECK: usize = 5;
const LAUNCHER: usize = 6;
const FUNCTION: usize = 7;
const KERNEL_FN: usize = 8;
const TYPED: usize = 9;
const TYPED_ATTRS: usize = 10;
const TYPED_STREAM: usize = 11;
const DYN: usize = 12;

#[derive(Clone, Copy, PartialEq)]
enum Regime {
    OneStream,
    TwoStreams,
    TrackingOff,
}

impl Regime {
    const ALL: [Regime; 3] = [Regime::OneStream, Regime::TwoStreams, Regime::TrackingOff];

    fn title(self) -> &'static str {
        match self {
            Regime::OneStream => {
                "one stream (launches on the default stream, no stream created: cudarc tracks nothing)"
            }
            Regime::TwoStreams => {
                "two streams (a second stream exists: cudarc waits on and records an event per buffer)"
            }
            Regime::TrackingOff => {
                "two streams, tracking off (buffers allocated after `disable_event_tracking`)"
            }
        }
    }
}

/// One regime's run: per round, the ns per launch of each variant's sample (NaN: the driver
/// refused the variant on this stream), and the launches made.
type Measured = (Vec<Vec<f64>>, u64);

/// One regime's samples over the runs: `runs[run][round][variant]`, ns per launch.
struct Timings {
    runs: Vec<Vec<Vec<f64>>>,
}

impl Timings {
    /// Per run, the median over its rounds of `f(round)` (rounds where it is NaN left out);
    /// `None` when a run has no such round.
    fn per_run(&self, f: impl Fn(&[f64]) -> f64) -> Option<Vec<f64>> {
        self.runs
            .iter()
            .map(|rounds| {
                let mut v: Vec<f64> = rounds
                    .iter()
                    .map(|r| f(r))
                    .filter(|x| !x.is_nan())
                    .collect();
                (!v.is_empty()).then(|| common::median(&mut v))
            })
            .collect()
    }

    /// Over every round of every run: the median and the 25th and 75th percentiles of `f(round)`.
    fn pooled(&self, f: impl Fn(&[f64]) -> f64) -> Option<(f64, f64, f64)> {
        let mut v: Vec<f64> = self
            .runs
            .iter()
            .flatten()
            .map(|r| f(r))
            .filter(|x| !x.is_nan())
            .collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
        Some((at(0.5), at(0.25), at(0.75)))
    }
}

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

fn main() -> ExitCode {
    common::exit_code(run())
}

fn run() -> Result<(), Box<dyn Error>> {
    let ctx = chevron::context(0)?;
    common::announce_quick();
    let (batch, rounds) = (common::size(BATCH, 10), common::size(ROUNDS, 3));
    let runs = std::env::var("CHEVRON_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(common::size(RUNS, 1))
        .max(1);
    let module = ctx.load_module(Ptx::from_src(include_str!("../kernels/saxpy.ptx")))?;
    let f = module.load_function("saxpy")?;
    let mut all: Vec<Timings> = Regime::ALL
        .iter()
        .map(|_| Timings { runs: Vec::new() })
        .collect();
    let mut launches = 0u64;
    for _ in 0..runs {
        for (regime, timings) in Regime::ALL.into_iter().zip(&mut all) {
            let (samples, n) = measure(&ctx, &f, regime, batch, rounds)?;
            timings.runs.push(samples);
            launches += n;
        }
    }
    println!(
        "host ns per launch of `saxpy` (4 arguments, 2 buffers): {runs} run(s) of {rounds} \
         rounds; a round times one batch of {batch} launches of each variant, in a shuffled \
         order; ratios paired within rounds: median [25th–75th percentile] over all rounds"
    );
    for (regime, timings) in Regime::ALL.into_iter().zip(&all) {
        print_regime(regime, timings);
    }
    println!("checked: every buffer holds exactly its launch count ({launches} launches)");
    Ok(())
}

/// One regime, one run: the median ns per launch of each variant, and the launches made.
fn measure(
    ctx: &Arc<CudaContext>,
    f: &CudaFunction,
    regime: Regime,
    batch: usize,
    rounds: usize,
) -> Result<Measured, Box<dyn Error>> {
    // The streams of the regime; they are dropped at the end, so that the next regime (and the
    // next run's one-stream regime) starts from what it says.
    let (stream, _other) = match regime {
        Regime::OneStream => {
            if ctx.is_in_multi_stream_mode() {
                return Err("a stream of another regime is still alive".into());
            }
            (ctx.default_stream(), None)
        }
        Regime::TwoStreams | Regime::TrackingOff => (ctx.new_stream()?, Some(ctx.new_stream()?)),
    };
    if regime == Regime::TrackingOff {
        // SAFETY: the buffers below live on `stream` only, which orders all their uses.
        unsafe { ctx.disable_event_tracking() };
    }
    let x = stream.clone_htod(&vec![1.0f32; N as usize])?;
    let mut y = stream.clone_htod(&vec![0.0f32; N as usize])?;
    if regime == Regime::TrackingOff {
        // SAFETY: buffers created from here on are tracked again; `x` and `y` are not.
        unsafe { ctx.enable_event_tracking() };
    }
    stream.synchronize()?;
    let result = measure_on(&stream, f, &x, &mut y, batch, rounds);
    let (samples, launches) = result?;
    // Every launch added 1.0 to each y.
    let got = stream.clone_dtoh(&y)?;
    let want = launches as f32;
    if got.iter().any(|&v| v != want) {
        return Err(format!(
            "{}: y = {} after {launches} launches, want {want}",
            regime.title(),
            got[0]
        )
        .into());
    }
    Ok((samples, launches))
}

fn measure_on(
    stream: &Arc<CudaStream>,
    f: &CudaFunction,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
    batch: usize,
    rounds: usize,
) -> Result<Measured, Box<dyn Error>> {
    let cu_cfg = chevron::cudarc::driver::LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (N, 1, 1),
        shared_mem_bytes: 0,
    };
    let cfg = LaunchConfig::new(1, N);
    let (a, n) = (1.0f32, N);
    let cu_f = f.cu_function();
    let cu_stream = stream.cu_stream();
    let attrs = [
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
    let raw_cfg = |attrs: &[sys::CUlaunchAttribute]| sys::CUlaunchConfig {
        gridDimX: 1,
        gridDimY: 1,
        gridDimZ: 1,
        blockDimX: N,
        blockDimY: 1,
        blockDimZ: 1,
        sharedMemBytes: 0,
        hStream: cu_stream,
        attrs: if attrs.is_empty() {
            std::ptr::null_mut()
        } else {
            attrs.as_ptr() as *mut _
        },
        numAttrs: attrs.len() as u32,
    };
    let (plain, with_attrs) = (raw_cfg(&[]), raw_cfg(&attrs));
    let spin = SyncPolicy::Spin.value();
    let set_spin = || unsafe { sys::cuStreamSetAttribute(cu_stream, SyncPolicy::ID, &spin) };
    // Some drivers refuse stream attributes on the default stream: those variants are skipped.
    let stream_attributes_ok = set_spin() == sys::cudaError_enum::CUDA_SUCCESS;
    let raw = |cfg: &sys::CUlaunchConfig, px: &u64, py: &u64| unsafe {
        let mut params = [
            &n as *const u32 as *mut _,
            &a as *const f32 as *mut _,
            px as *const u64 as *mut _,
            py as *const u64 as *mut _,
        ];
        let rc = sys::cuLaunchKernelEx(cfg, cu_f, params.as_mut_ptr(), std::ptr::null_mut());
        assert_eq!(rc, sys::cudaError_enum::CUDA_SUCCESS);
    };
    // The raw floor takes the pointers once, outside the timed loop.
    let (px, py) = {
        let (px, _rx) = x.device_ptr(stream);
        let (py, _wy) = y.device_ptr_mut(stream);
        (px, py)
    };

    let mut launches = 0u64;
    let mut samples: Vec<Vec<f64>> = Vec::with_capacity(rounds);
    // The variants the driver accepts on this stream.
    let measured: Vec<usize> = (0..VARIANTS.len())
        .filter(|&v| stream_attributes_ok || (v != STREAM_ATTR && v != TYPED_STREAM))
        .collect();
    for round in 0..rounds + 2 {
        let mut r = vec![f64::NAN; VARIANTS.len()];
        for i in common::order(measured.len(), round) {
            let v = measured[i];
            r[v] = match v {
                RAW => time_batch(stream, batch, || raw(&plain, &px, &py)),
                GUARDS => time_batch(stream, batch, || {
                    let (px, _rx) = x.device_ptr(stream);
                    let (py, _wy) = y.device_ptr_mut(stream);
                    raw(&plain, &px, &py);
                }),
                ATTRS => time_batch(stream, batch, || {
                    let (px, _rx) = x.device_ptr(stream);
                    let (py, _wy) = y.device_ptr_mut(stream);
                    raw(&with_attrs, &px, &py);
                }),
                STREAM_ATTR => time_batch(stream, batch, || {
                    let (px, _rx) = x.device_ptr(stream);
                    let (py, _wy) = y.device_ptr_mut(stream);
                    assert_eq!(set_spin(), sys::cudaError_enum::CUDA_SUCCESS);
                    raw(&plain, &px, &py);
                }),
                ERR_CHECK => time_batch(stream, batch, || {
                    let (px, _rx) = x.device_ptr(stream);
                    let (py, _wy) = y.device_ptr_mut(stream);
                    stream.context().check_err().unwrap();
                    raw(&plain, &px, &py);
                }),
                CTX_QUERY => time_batch(stream, batch, || {
                    let (px, _rx) = x.device_ptr(stream);
                    let (py, _wy) = y.device_ptr_mut(stream);
                    let mut current = std::ptr::null_mut();
                    assert_eq!(
                        unsafe { sys::cuCtxGetCurrent(&mut current) },
                        sys::cudaError_enum::CUDA_SUCCESS
                    );
                    raw(&plain, &px, &py);
                }),
                LAUNCHER => time_batch(stream, batch, || unsafe {
                    stream
                        .launch_builder(f)
                        .arg(&n)
                        .arg(&a)
                        .arg(x)
                        .arg(&mut *y)
                        .launch(cu_cfg)
                        .unwrap();
                }),
                FUNCTION => time_batch(stream, batch, || unsafe {
                    let (px, _rx) = x.device_ptr(stream);
                    let (py, _wy) = y.device_ptr_mut(stream);
                    let mut params = [
                        &n as *const u32 as *mut _,
                        &a as *const f32 as *mut _,
                        &px as *const u64 as *mut _,
                        &py as *const u64 as *mut _,
                    ];
                    chevron::launch_function(stream, f, &cfg, &mut params).unwrap();
                }),
                KERNEL_FN => time_batch(stream, batch, || unsafe {
                    saxpy::kernel().launch(stream, &cfg, (n, a, x, y)).unwrap();
                }),
                TYPED => time_batch(stream, batch, || unsafe {
                    launch!(saxpy<<<1, N, stream>>>(n, a, x, y)).unwrap();
                }),
                TYPED_ATTRS => time_batch(stream, batch, || unsafe {
                    launch!(saxpy<<<1, N, stream, priority = 0, mem_sync_domain = Default>>>(n, a, x, y))
                        .unwrap();
                }),
                TYPED_STREAM => time_batch(stream, batch, || unsafe {
                    launch!(saxpy<<<1, N, stream, stream(sync = Spin)>>>(n, a, x, y)).unwrap();
                }),
                DYN => time_batch(stream, batch, || unsafe {
                    launch!(dyn f<<<1, N, stream>>>(&n, &a, x, &mut *y)).unwrap();
                }),
                _ => unreachable!("variant {v}"),
            };
        }
        launches += r.iter().filter(|v| !v.is_nan()).count() as u64 * batch as u64;
        if round >= 2 {
            // The first two rounds warm up (module load, caches).
            samples.push(r);
        }
    }
    Ok((samples, launches))
}

/// `1.008× [1.003–1.013]`: a paired ratio's median over all rounds and its middle half.
fn ratio((median, lo, hi): (f64, f64, f64)) -> String {
    format!("{median:.3}× [{lo:.3}–{hi:.3}]")
}

fn print_regime(regime: Regime, timings: &Timings) {
    println!();
    println!("{}:", regime.title());
    println!();
    println!("| variant | ns per launch | × raw | × own floor | over own floor |");
    println!("|---|---|---|---|---|");
    // Within one round: `v`'s sample over `base`'s, and `v`'s minus `base`'s.
    let over = |v: usize, base: usize| move |r: &[f64]| r[v] / r[base];
    let minus = |v: usize, base: usize| move |r: &[f64]| r[v] - r[base];
    for (v, (name, floor)) in VARIANTS.iter().enumerate() {
        let Some((ns, _, _)) = timings.pooled(|r| r[v]) else {
            println!("| {name} | n/a: the driver refuses stream attributes on this stream | | | |");
            continue;
        };
        let to_raw = match v {
            RAW => String::new(),
            _ => timings.pooled(over(v, RAW)).map_or("n/a".into(), ratio),
        };
        let (to_floor, added) = match floor {
            Some(fl) if *fl != RAW => (
                timings.pooled(over(v, *fl)).map_or("n/a".into(), ratio),
                timings
                    .pooled(minus(v, *fl))
                    .map_or("n/a".into(), |(d, _, _)| format!("{d:+.0} ns")),
            ),
            _ => (String::new(), String::new()),
        };
        println!("| {name} | {ns:.0} | {to_raw} | {to_floor} | {added} |");
    }
    // The target on one stream: typed, `dyn` and attribute launches within 1.02× of the
    // raw launch doing the same driver work (and, for the record, of the plain raw floor): the
    // worst run's median paired ratio.
    let worst = |pairs: &[(usize, usize)]| -> Option<f64> {
        pairs
            .iter()
            .map(|&(v, fl)| {
                timings
                    .per_run(over(v, fl))
                    .map(|r| r.into_iter().fold(0.0, f64::max))
            })
            .try_fold(0.0f64, |m, r| Some(m.max(r?)))
    };
    let own = worst(&[(TYPED, GUARDS), (DYN, GUARDS), (TYPED_ATTRS, ATTRS)]);
    let plain = worst(&[(TYPED, RAW), (DYN, RAW), (TYPED_ATTRS, RAW)]);
    if let (Some(own), Some(plain)) = (own, plain) {
        println!();
        println!(
            "typed, dyn and 2-attribute launch!, worst run: {own:.3}× their own floor ({}), \
             {plain:.3}× the raw floor",
            if own <= 1.02 {
                "within 1.02×"
            } else {
                "over 1.02×"
            }
        );
    }
    // Where the time goes: each step of the launch path over the previous one (the median of
    // the paired differences; a few ns of noise either way).
    let step = |from: usize, to: usize| timings.pooled(minus(to, from)).map(|(d, _, _)| d);
    println!();
    println!("where the time goes (medians of paired differences, ns per launch):");
    for (what, from, to) in [
        ("cudarc's pointer guards (raw → raw + guards)", RAW, GUARDS),
        (
            "a cuCtxGetCurrent per launch (not paid by chevron after the first launch on a thread)",
            GUARDS,
            CTX_QUERY,
        ),
        (
            "cudarc's recorded-error check, an atomic swap (paid by every chevron launch)",
            GUARDS,
            ERR_CHECK,
        ),
        (
            "launch_function: limit check, context check (raw + guards → launch_function)",
            GUARDS,
            FUNCTION,
        ),
        (
            "#[kernel] launch: function lookup, kernel rules (launch_function → saxpy::kernel().launch)",
            FUNCTION,
            KERNEL_FN,
        ),
        (
            "launch!: the config built per launch (saxpy::kernel().launch → launch!)",
            KERNEL_FN,
            TYPED,
        ),
        (
            "2 launch attributes, chevron's part (over raw + guards + 2 attributes)",
            ATTRS,
            TYPED_ATTRS,
        ),
        (
            "stream(sync = Spin), chevron's part (over raw + guards + cuStreamSetAttribute)",
            STREAM_ATTR,
            TYPED_STREAM,
        ),
        (
            "dyn: argument slots, size check (launch_function → launch!(dyn f))",
            FUNCTION,
            DYN,
        ),
    ] {
        match step(from, to) {
            Some(d) => println!("  {what}: {d:+.0}"),
            None => println!("  {what}: n/a"),
        }
    }
}
