//! Programmatic dependent launch (sm_90): a chain of 64 short kernels, each reading the previous
//! one's output, launched four ways:
//!
//! - `plain`: one stream, no attribute: each kernel starts when the previous one has finished.
//! - `programmatic_serialization`: one stream; each kernel after the first may launch as soon as
//!   every block of the previous one has run `griddepcontrol.launch_dependents`
//!   (`cudaTriggerProgrammaticLaunchCompletion()`), does its independent prologue, and waits in
//!   `griddepcontrol.wait` (`cudaGridDependencySynchronize()`) before it reads.
//! - `programmatic_event`: two streams taking turns; each kernel triggers an event with
//!   `programmatic_event = &event` and the other stream waits for that event before the next
//!   kernel, which again waits in `griddepcontrol.wait`: the same overlap across streams.
//! - `completion_event`: as `programmatic_serialization`, plus `completion_event = &event` on
//!   every launch (the event fires once all of a kernel's blocks have started): what the
//!   attribute costs.
//!
//! Each timed chain is queued behind a gate that holds stream 0 until the host has launched all
//! 64, so the time is the GPU's alone, not the host's launch rate. The gate is a stream memory
//! operation: `cuStreamWaitValue32` on one u32 of page-locked, device-mapped host memory, which
//! the host opens with a plain store. Simpler gates can hang: a kernel spinning on a flag that a
//! copy on another stream sets, or a host function (`cuLaunchHostFunc`) spinning on a flag,
//! which may hold a driver lock that the host's next calls need. The warm-up chain of each
//! variant runs without the gate: the first launch of a kernel loads its module, and the driver
//! may synchronize the context while it loads, which would wait for the held stream forever.
//! A watchdog thread ends the program with `error: pdl_chain: no progress in 30 s while …` if
//! a stage (queueing, waiting, checking) lasts 30 s, so a hang names where it happened.
//!
//! Prints one line per variant once its warm-up chain matches the host's result, then the
//! end-to-end time per chain (CUDA events, start of the first kernel to the end of the last,
//! median over interleaved repeats) and the ratio to `plain`; checks that every chain's result
//! equals the host's, bit for bit.
//!
//! `cargo run --release --example pdl_chain`. Exit code 0 when the checks pass, 2 on a machine
//! without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::cell::Cell;
use std::error::Error;
use std::ffi::c_void;
use std::process::ExitCode;
use std::sync::atomic::{fence, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use chevron::cudarc::driver::{sys, CudaContext, CudaEvent, CudaSlice, CudaStream};
use chevron::{kernel, launch};

/// `out[i] = in[i] * 3 + hash(i, step)` after `rounds` rounds of independent work.
#[kernel(ptx = "kernels/pdl.ptx")]
fn pdl_step(input: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32, step: u32, rounds: u32);

/// Kernels in the chain.
const STEPS: u32 = 64;
/// Elements: 1,024 blocks of 256 threads, a few microseconds per kernel on an H200
/// (`CHEVRON_QUICK`: 2^12, 16 blocks).
const N: u32 = 1 << 18;
const BLOCK: u32 = 256;
/// Rounds of the hash each thread computes before it waits: the work that can overlap the
/// previous kernel's tail.
const ROUNDS: u32 = 64;
/// Timed chains per variant (after one warm-up chain each), interleaved (`CHEVRON_QUICK`: 2).
const REPEATS: usize = 51;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Variant {
    Plain,
    Serialization,
    Event,
    Completion,
}

impl Variant {
    const ALL: [Self; 4] = [
        Self::Plain,
        Self::Serialization,
        Self::Event,
        Self::Completion,
    ];

    fn name(self) -> &'static str {
        match self {
            Self::Plain => "plain (no attribute)",
            Self::Serialization => "`programmatic_serialization`",
            Self::Event => "`programmatic_event` (2 streams)",
            Self::Completion => "`programmatic_serialization` + `completion_event`",
        }
    }
}

/// How long a stage may last before the watchdog ends the program.
const STALL: Duration = Duration::from_secs(30);

/// What the program is doing, for the watchdog: how many stages have begun, and the last one.
static STAGE: Mutex<(u64, String)> = Mutex::new((0, String::new()));

/// A panic elsewhere cannot leave the stage inconsistent (it is replaced whole), so poisoning is
/// ignored.
fn stage_lock() -> MutexGuard<'static, (u64, String)> {
    STAGE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Begins a stage: `what` completes "while …" in the watchdog's message.
fn stage(what: String) {
    let mut s = stage_lock();
    s.0 += 1;
    s.1 = what;
}

/// Starts the watchdog: a thread that ends the program with exit code 1 and one `error: …` line
/// naming the stage if no new stage begins for [`STALL`], so a hang in the driver or on the GPU
/// is never silent. The thread ends with the process.
fn start_watchdog() {
    std::thread::spawn(|| {
        let (mut seen, mut since) = (0, Instant::now());
        loop {
            std::thread::sleep(Duration::from_millis(250));
            let (count, what) = {
                let s = stage_lock();
                (s.0, s.1.clone())
            };
            if count != seen {
                (seen, since) = (count, Instant::now());
            } else if since.elapsed() >= STALL {
                eprintln!(
                    "error: pdl_chain: no progress in {} s while {what}",
                    STALL.as_secs()
                );
                std::process::exit(1);
            }
        }
    });
}

/// `rc` as a `Result`, naming the driver call in the error.
fn check(call: &str, rc: sys::CUresult) -> Result<(), Box<dyn Error>> {
    if rc == sys::cudaError_enum::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(format!(
            "{call} failed: {}",
            chevron::cudarc::driver::DriverError(rc)
        )
        .into())
    }
}

/// Holds a stream until the host opens it: `cuStreamWaitValue32` (greater or equal) on one u32
/// of page-locked, device-mapped host memory. Each closing waits for the next generation number,
/// so the flag only grows and never needs resetting while a stream may still read it; no host
/// function, kernel or copy is involved.
struct Gate {
    ctx: Arc<CudaContext>,
    /// The flag, as the host writes it.
    host: *mut u32,
    /// The same flag, as the stream reads it.
    device: sys::CUdeviceptr,
    /// The generation the last closing waits for (the flag holds it once that closing is open).
    generation: Cell<u32>,
}

impl Gate {
    fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn Error>> {
        ctx.bind_to_thread()?;
        let mut host: *mut c_void = std::ptr::null_mut();
        let flags = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
        // SAFETY: `host` receives a fresh allocation of 4 bytes, freed in `drop`.
        check("cuMemHostAlloc", unsafe {
            sys::cuMemHostAlloc(&mut host, std::mem::size_of::<u32>(), flags)
        })?;
        let mut gate = Self {
            ctx: ctx.clone(),
            host: host.cast(),
            device: 0,
            generation: Cell::new(0),
        };
        // SAFETY: `host` is a live, aligned allocation of one u32 that no stream reads yet.
        unsafe { std::ptr::write_volatile(gate.host, 0) };
        // SAFETY: `host` was allocated with CU_MEMHOSTALLOC_DEVICEMAP; flags must be 0.
        check("cuMemHostGetDevicePointer", unsafe {
            sys::cuMemHostGetDevicePointer_v2(&mut gate.device, host, 0)
        })?;
        Ok(gate)
    }

    /// Closes the gate on `stream`: work queued after this waits until the returned guard is
    /// dropped, so an error while queueing the chain cannot leave the stream held.
    fn close_on<'g>(&'g self, stream: &CudaStream) -> Result<Opener<'g>, Box<dyn Error>> {
        let generation = self
            .generation
            .get()
            .checked_add(1)
            .ok_or("pdl_chain: the gate's generation number overflowed")?;
        self.generation.set(generation);
        // The flag holds `generation - 1` (or less), so the wait below holds the stream. The
        // opener exists before the wait is queued: if queueing fails, dropping it still opens.
        let opener = Opener(self);
        stream.context().bind_to_thread()?;
        let geq = sys::CUstreamWaitValue_flags::CU_STREAM_WAIT_VALUE_GEQ as u32;
        // SAFETY: `device` maps the live flag; `drop` synchronizes before freeing it.
        check("cuStreamWaitValue32", unsafe {
            sys::cuStreamWaitValue32_v2(stream.cu_stream(), self.device, generation, geq)
        })?;
        Ok(opener)
    }

    /// Lets every wait queued so far pass.
    fn open(&self) {
        // SAFETY: `host` is the live flag (freed only in `drop`); the stream only reads it.
        unsafe { std::ptr::write_volatile(self.host, self.generation.get()) };
        fence(Ordering::SeqCst);
    }
}

impl Drop for Gate {
    fn drop(&mut self) {
        // Every opener has opened the gate by now; synchronizing makes sure no stream still
        // reads the flag when it is freed. A failure here (a sticky error) leaves nothing else to
        // wait for.
        let _ = self.ctx.synchronize();
        // SAFETY: `host` came from cuMemHostAlloc and is freed once.
        let rc = unsafe { sys::cuMemFreeHost(self.host.cast()) };
        if let Err(e) = check("cuMemFreeHost", rc) {
            eprintln!("warning: {e}");
        }
    }
}

/// Opens its gate when dropped.
struct Opener<'g>(&'g Gate);

impl Drop for Opener<'_> {
    fn drop(&mut self) {
        self.0.open();
    }
}

/// The kernel's hash, on the host.
fn hash(i: u32, step: u32) -> u32 {
    let mut h = i.wrapping_mul(0x9E37_79B9) ^ step;
    for _ in 0..ROUNDS {
        h ^= h >> 15;
        h = h.wrapping_mul(0x2C1B_3C6D);
        h ^= h >> 12;
    }
    h
}

fn main() -> ExitCode {
    start_watchdog();
    common::exit_code(run())
}

struct Chain<'a> {
    /// Elements per buffer.
    n: u32,
    streams: [&'a Arc<CudaStream>; 2],
    /// Holds stream 0 while the chain is queued.
    gate: &'a Gate,
    /// One event per step for `programmatic_event` (an event may be waited on only after it was
    /// recorded for that step), one for `completion_event`, one for the end of the two-stream
    /// chain.
    events: &'a [CudaEvent],
    completion: &'a CudaEvent,
    done: &'a CudaEvent,
    /// Timing events around the chain, on stream 0.
    start: &'a CudaEvent,
    end: &'a CudaEvent,
}

impl Chain<'_> {
    /// Queues the 64 kernels, behind a closed gate when `gated`, ping-ponging between `a` and
    /// `b` (the result ends in `a`: the number of steps is even), opens the gate and waits for
    /// the last one. `what` names the chain in the watchdog's stages. Returns the seconds from
    /// the first kernel's start to the last one's end (CUDA events).
    fn run(
        &self,
        variant: Variant,
        gated: bool,
        what: &str,
        a: &mut CudaSlice<u32>,
        b: &mut CudaSlice<u32>,
    ) -> Result<f64, Box<dyn Error>> {
        let [s0, s1] = self.streams;
        let n = self.n;
        let grid = n.div_ceil(BLOCK);
        stage(format!("waiting for the streams to be idle before {what}"));
        s0.synchronize()?;
        s1.synchronize()?;
        stage(format!("queueing {what}"));
        let opener = if gated {
            Some(self.gate.close_on(s0)?)
        } else {
            None
        };
        self.start.record(s0)?;
        for step in 0..STEPS {
            let (input, out) = if step % 2 == 0 {
                (&*a, &mut *b)
            } else {
                (&*b, &mut *a)
            };
            // SAFETY: grid × BLOCK threads cover n; the kernel checks `i < n`; each buffer
            // holds n u32.
            unsafe {
                match variant {
                    Variant::Plain => {
                        launch!(pdl_step<<<grid, BLOCK, s0>>>(input, out, n, step, ROUNDS))
                    }
                    Variant::Serialization => launch!(pdl_step<<<grid, BLOCK, s0,
                        programmatic_serialization = step > 0>>>(input, out, n, step, ROUNDS)),
                    Variant::Completion => launch!(pdl_step<<<grid, BLOCK, s0,
                        programmatic_serialization = step > 0, completion_event = self.completion>>>(
                            input, out, n, step, ROUNDS)),
                    Variant::Event => {
                        let (here, there) = if step % 2 == 0 { (s0, s1) } else { (s1, s0) };
                        let event = &self.events[step as usize];
                        launch!(pdl_step<<<grid, BLOCK, here, programmatic_event = event>>>(
                            input, out, n, step, ROUNDS))?;
                        if step + 1 < STEPS {
                            // The next kernel, on the other stream, may start once every block
                            // of this one has triggered; it waits for the data in
                            // griddepcontrol.wait.
                            there.wait(event)?;
                        }
                        Ok(())
                    }
                }
            }?;
        }
        if variant == Variant::Event {
            // The last kernel ran on s1 (STEPS is even): a plain event, which fires when it has
            // finished, brings its end back to s0.
            self.done.record(s1)?;
            s0.wait(self.done)?;
        }
        self.end.record(s0)?;
        stage(format!("waiting for {what}"));
        drop(opener);
        s0.synchronize()?;
        s1.synchronize()?;
        Ok(f64::from(self.start.elapsed_ms(self.end)?) * 1e-3)
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    stage("creating the context".to_string());
    let ctx = chevron::context(0)?;
    common::announce_quick();
    let (n, repeats) = (common::size(N, 1 << 12), common::size(REPEATS, 2));
    println!("device 0: {}", ctx.name()?);
    // Two streams share the buffers here, ordered by the programmatic events themselves: cudarc's
    // own events would add a cuStreamWaitEvent on the buffers before every launch, which would
    // stand between consecutive kernels and defeat the programmatic overlap.
    // SAFETY: every cross-stream use is ordered by `there.wait(event)` above, and the host only
    // reads after synchronizing both streams.
    unsafe { ctx.disable_event_tracking() };
    stage("creating the streams, events and gate".to_string());
    let s0 = ctx.new_stream()?;
    let s1 = ctx.new_stream()?;
    let events: Vec<CudaEvent> = (0..STEPS)
        .map(|_| ctx.new_event(None)) // timing disabled, as programmatic events must be
        .collect::<Result<_, _>>()?;
    let completion = ctx.new_event(None)?;
    let done = ctx.new_event(None)?;
    let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
    let (start, end) = (ctx.new_event(timing)?, ctx.new_event(timing)?);
    // Dropped after the chain and the buffers, before the streams: it synchronizes the context,
    // then frees the flag.
    let gate = Gate::new(&ctx)?;
    let chain = Chain {
        n,
        streams: [&s0, &s1],
        gate: &gate,
        events: &events,
        completion: &completion,
        done: &done,
        start: &start,
        end: &end,
    };

    let init: Vec<u32> = (0..n).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    let mut want = init.clone();
    for step in 0..STEPS {
        stage(format!("computing the host's result (step {step})"));
        for (i, v) in want.iter_mut().enumerate() {
            *v = v.wrapping_mul(3).wrapping_add(hash(i as u32, step));
        }
    }

    stage("copying the input to the device".to_string());
    let mut a = s0.clone_htod(&init)?;
    let mut b = s0.alloc_zeros::<u32>(n as usize)?;
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); Variant::ALL.len()];
    for repeat in 0..=repeats {
        if repeat == 1 {
            println!("timing: {repeats} gated chains per variant, interleaved");
        }
        for (v, variant) in Variant::ALL.into_iter().enumerate() {
            // The warm-up chain runs ungated: it loads the kernel's module, which must not
            // happen while a stream is held (see the top of the file).
            let warm_up = repeat == 0;
            let what = if warm_up {
                format!("the warm-up {} chain (no gate)", variant.name())
            } else {
                format!(
                    "the {} chain {repeat} of {repeats} (behind the gate)",
                    variant.name()
                )
            };
            stage(format!("resetting the buffers for {what}"));
            s0.memcpy_htod(&init, &mut a)?;
            // Poisoned, so a kernel that skipped its work could not leave the right answer.
            s0.memset_zeros(&mut b)?;
            let secs = chain.run(variant, !warm_up, &what, &mut a, &mut b)?;
            stage(format!("checking the result of {what}"));
            let got = s0.clone_dtoh(&a)?;
            if let Some(i) = (0..n as usize).find(|&i| got[i] != want[i]) {
                return Err(format!(
                    "{}: element {i} is {} after {STEPS} steps, the host says {}",
                    variant.name(),
                    got[i],
                    want[i]
                )
                .into());
            }
            if warm_up {
                println!("warm-up: {} chain ok", variant.name());
            } else {
                times[v].push(secs);
            }
        }
    }
    stage("printing the results".to_string());

    println!();
    println!(
        "{STEPS} dependent kernels of {} blocks × {BLOCK} threads, end to end (median of {repeats}):",
        n.div_ceil(BLOCK)
    );
    println!("| variant | chain | per kernel | ratio to plain |");
    println!("|---|---|---|---|");
    let medians: Vec<f64> = times
        .iter_mut()
        .map(|t| {
            t.sort_by(f64::total_cmp);
            t[t.len() / 2]
        })
        .collect();
    for (variant, m) in Variant::ALL.into_iter().zip(&medians) {
        println!(
            "| {} | {:.1} µs | {:.2} µs | {:.2}× |",
            variant.name(),
            m * 1e6,
            m * 1e6 / f64::from(STEPS),
            m / medians[0]
        );
    }
    println!();
    println!(
        "checked: all {} variants × {} chains equal the host's result bit for bit ({n} elements)",
        Variant::ALL.len(),
        repeats + 1
    );
    Ok(())
}
