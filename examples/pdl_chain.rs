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
//! Each chain is queued behind a gate that holds the stream until the host has launched all 64,
//! so the time is the GPU's alone, not the host's launch rate. The gate is a host function
//! (`cuLaunchHostFunc`) waiting for a flag: a kernel spinning on a flag written by a copy on
//! another stream can wait forever when the driver puts both streams' work in one hardware queue. Prints the end-to-end time
//! per chain (CUDA events, start of the first kernel to the end of the last, median over
//! interleaved repeats) and the ratio to `plain`; checks that every variant's result equals the
//! host's, bit for bit.
//!
//! `cargo run --release --example pdl_chain`. Exit code 0 when the checks pass, 2 on a machine
//! without a CUDA driver (one `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::ffi::c_void;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use chevron::cudarc::driver::{sys, CudaEvent, CudaSlice, CudaStream};
use chevron::{kernel, launch};

/// `out[i] = in[i] * 3 + hash(i, step)` after `rounds` rounds of independent work.
#[kernel(ptx = "kernels/pdl.ptx")]
fn pdl_step(input: &CudaSlice<u32>, out: &mut CudaSlice<u32>, n: u32, step: u32, rounds: u32);

/// Kernels in the chain.
const STEPS: u32 = 64;
/// Elements: 1,024 blocks of 256 threads, a few microseconds per kernel on an H200.
const N: u32 = 1 << 18;
const BLOCK: u32 = 256;
/// Rounds of the hash each thread computes before it waits: the work that can overlap the
/// previous kernel's tail.
const ROUNDS: u32 = 64;
/// Timed chains per variant (after one warm-up chain each), interleaved.
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

/// Holds a stream until the host opens it: a host function queued with `cuLaunchHostFunc`.
struct Gate {
    open: AtomicBool,
}

/// The host function: returns once the gate is open.
unsafe extern "C" fn hold(gate: *mut c_void) {
    // SAFETY: `gate` is the `AtomicBool` of a `Gate` that outlives the stream's work (`run`
    // opens it and synchronizes before returning).
    let open = unsafe { &*(gate as *const AtomicBool) };
    while !open.load(Ordering::Acquire) {
        std::hint::spin_loop();
    }
}

impl Gate {
    /// Closes the gate and queues it on `stream`; the returned guard opens it when dropped, so
    /// an error while queueing the chain cannot leave the stream held.
    fn close_on<'g>(&'g self, stream: &CudaStream) -> Result<Opener<'g>, chevron::Error> {
        self.open.store(false, Ordering::Release);
        let opener = Opener(self);
        stream.context().bind_to_thread()?;
        let data = &self.open as *const AtomicBool as *mut c_void;
        // SAFETY: `hold` only reads the flag, which lives as long as `self`; the opener makes
        // sure it is set.
        let rc = unsafe { sys::cuLaunchHostFunc(stream.cu_stream(), Some(hold), data) };
        if rc != sys::cudaError_enum::CUDA_SUCCESS {
            return Err(chevron::cudarc::driver::DriverError(rc).into());
        }
        Ok(opener)
    }
}

/// Opens its gate when dropped.
struct Opener<'g>(&'g Gate);

impl Drop for Opener<'_> {
    fn drop(&mut self) {
        self.0.open.store(true, Ordering::Release);
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
    common::exit_code(run())
}

struct Chain<'a> {
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
    /// Queues the 64 kernels behind a closed gate, ping-ponging between `a` and `b` (the result
    /// ends in `a`: the number of steps is even), opens the gate and waits for the last one.
    /// Returns the seconds from the first kernel's start to the last one's end (CUDA events).
    fn run(
        &self,
        variant: Variant,
        a: &mut CudaSlice<u32>,
        b: &mut CudaSlice<u32>,
    ) -> Result<f64, chevron::Error> {
        let [s0, s1] = self.streams;
        let grid = N.div_ceil(BLOCK);
        s0.synchronize()?;
        s1.synchronize()?;
        let opener = self.gate.close_on(s0)?;
        self.start.record(s0)?;
        for step in 0..STEPS {
            let (input, out) = if step % 2 == 0 {
                (&*a, &mut *b)
            } else {
                (&*b, &mut *a)
            };
            // SAFETY: grid × BLOCK threads cover N; the kernel checks `i < n`; each buffer
            // holds N u32.
            unsafe {
                match variant {
                    Variant::Plain => {
                        launch!(pdl_step<<<grid, BLOCK, s0>>>(input, out, N, step, ROUNDS))
                    }
                    Variant::Serialization => launch!(pdl_step<<<grid, BLOCK, s0,
                        programmatic_serialization = step > 0>>>(input, out, N, step, ROUNDS)),
                    Variant::Completion => launch!(pdl_step<<<grid, BLOCK, s0,
                        programmatic_serialization = step > 0, completion_event = self.completion>>>(
                            input, out, N, step, ROUNDS)),
                    Variant::Event => {
                        let (here, there) = if step % 2 == 0 { (s0, s1) } else { (s1, s0) };
                        let event = &self.events[step as usize];
                        launch!(pdl_step<<<grid, BLOCK, here, programmatic_event = event>>>(
                            input, out, N, step, ROUNDS))?;
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
        drop(opener);
        s0.synchronize()?;
        s1.synchronize()?;
        Ok(f64::from(self.start.elapsed_ms(self.end)?) * 1e-3)
    }
}

fn run() -> Result<(), Box<dyn Error>> {
    let ctx = chevron::context(0)?;
    println!("device 0: {}", ctx.name()?);
    // Two streams share the buffers here, ordered by the programmatic events themselves: cudarc's
    // own events would add a cuStreamWaitEvent on the buffers before every launch, which would
    // stand between consecutive kernels and defeat the programmatic overlap.
    // SAFETY: every cross-stream use is ordered by `there.wait(event)` above, and the host only
    // reads after synchronizing both streams.
    unsafe { ctx.disable_event_tracking() };
    let s0 = ctx.new_stream()?;
    let s1 = ctx.new_stream()?;
    let events: Vec<CudaEvent> = (0..STEPS)
        .map(|_| ctx.new_event(None)) // timing disabled, as programmatic events must be
        .collect::<Result<_, _>>()?;
    let completion = ctx.new_event(None)?;
    let done = ctx.new_event(None)?;
    let timing = Some(sys::CUevent_flags::CU_EVENT_DEFAULT);
    let (start, end) = (ctx.new_event(timing)?, ctx.new_event(timing)?);
    let chain = Chain {
        streams: [&s0, &s1],
        gate: &Gate {
            open: AtomicBool::new(true),
        },
        events: &events,
        completion: &completion,
        done: &done,
        start: &start,
        end: &end,
    };

    let init: Vec<u32> = (0..N).map(|i| i.wrapping_mul(2_654_435_761) >> 7).collect();
    let mut want = init.clone();
    for step in 0..STEPS {
        for (i, v) in want.iter_mut().enumerate() {
            *v = v.wrapping_mul(3).wrapping_add(hash(i as u32, step));
        }
    }

    let mut a = s0.clone_htod(&init)?;
    let mut b = s0.alloc_zeros::<u32>(N as usize)?;
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); Variant::ALL.len()];
    for repeat in 0..=REPEATS {
        for (v, variant) in Variant::ALL.into_iter().enumerate() {
            s0.memcpy_htod(&init, &mut a)?;
            // Poisoned, so a kernel that skipped its work could not leave the right answer.
            s0.memset_zeros(&mut b)?;
            let secs = chain.run(variant, &mut a, &mut b)?;
            if repeat > 0 {
                times[v].push(secs);
            }
            let got = s0.clone_dtoh(&a)?;
            if let Some(i) = (0..N as usize).find(|&i| got[i] != want[i]) {
                return Err(format!(
                    "{}: element {i} is {} after {STEPS} steps, the host says {}",
                    variant.name(),
                    got[i],
                    want[i]
                )
                .into());
            }
        }
    }

    println!();
    println!(
        "{STEPS} dependent kernels of {} blocks × {BLOCK} threads, end to end (median of {REPEATS}):",
        N.div_ceil(BLOCK)
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
        "checked: all {} variants × {} chains equal the host's result bit for bit ({N} elements)",
        Variant::ALL.len(),
        REPEATS + 1
    );
    Ok(())
}
