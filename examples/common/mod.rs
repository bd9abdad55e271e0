//! How every example ends: one line on stderr for a failure and an exit code a script can test.
//! (A directory with `mod.rs` rather than `examples/common.rs`, which Cargo would take for an
//! example of its own.)

use std::error::Error;
use std::process::ExitCode;

/// The exit code of an example on a machine without a CUDA driver.
pub const NO_DRIVER: u8 = 2;

/// Exit code 0 for `Ok`; otherwise prints `error: …` with the error's own text (not the `Debug`
/// form that a `main` returning `Result` would print) and returns [`NO_DRIVER`] for
/// `chevron::Error::NoDriver`, 1 for any other failure.
pub fn exit_code(result: Result<(), Box<dyn Error>>) -> ExitCode {
    let Err(e) = result else {
        return ExitCode::SUCCESS;
    };
    eprintln!("error: {e}");
    match e.downcast_ref::<chevron::Error>() {
        Some(chevron::Error::NoDriver) => ExitCode::from(NO_DRIVER),
        _ => ExitCode::FAILURE,
    }
}

/// Whether `CHEVRON_QUICK` is set (to anything but `0`): the example then runs the same kernels
/// and checks on small data with few repeats, so that `compute-sanitizer` (`scripts/sanitize.sh`)
/// can cover it in seconds; its timings mean nothing in that mode.
#[allow(dead_code)] // Not every example has sizes to shrink.
pub fn quick() -> bool {
    std::env::var_os("CHEVRON_QUICK").is_some_and(|v| v != "0")
}

/// `full`, or `small` under [`quick`].
#[allow(dead_code)]
pub fn size<T>(full: T, small: T) -> T {
    if quick() {
        small
    } else {
        full
    }
}

/// Under [`quick`], prints the line that says so; examples call it once the context exists (so
/// that a machine without a driver still sees only the `error: …` line), before any other output.
#[allow(dead_code)]
pub fn announce_quick() {
    if quick() {
        println!("quick mode (CHEVRON_QUICK): small data, timings not meaningful");
    }
}

/// A deterministic shuffle of `0..n` for round `round` (xorshift, Fisher–Yates): the same
/// orders on every run of the example, a different one each round.
#[allow(dead_code)] // Only the examples that time in rounds use it.
pub fn order(n: usize, round: usize) -> Vec<usize> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ (round as u64).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut v: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        v.swap(i, (next() % (i as u64 + 1)) as usize);
    }
    v
}

/// Whose CPU time [`cpu_time`] reads.
#[allow(dead_code)] // Each example reads one of them.
pub enum CpuClock {
    /// The whole process's (`CLOCK_PROCESS_CPUTIME_ID`).
    Process,
    /// The calling thread's (`CLOCK_THREAD_CPUTIME_ID`).
    Thread,
}

/// CPU time so far of the process or of the calling thread, from `clock_gettime`; `None` where
/// that clock is not available (off Linux).
#[allow(dead_code)] // Only the examples that report CPU time use it.
#[cfg(target_os = "linux")]
pub fn cpu_time(clock: CpuClock) -> Option<std::time::Duration> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    // `CLOCK_PROCESS_CPUTIME_ID` and `CLOCK_THREAD_CPUTIME_ID` in Linux's `<time.h>`.
    let id = match clock {
        CpuClock::Process => 2,
        CpuClock::Thread => 3,
    };
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable `struct timespec` (two 64-bit fields on 64-bit Linux).
    let rc = unsafe { clock_gettime(id, &mut ts) };
    (rc == 0).then(|| std::time::Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

/// CPU time: not available off Linux.
#[allow(dead_code)] // Only the examples that report CPU time use it.
#[cfg(not(target_os = "linux"))]
pub fn cpu_time(_clock: CpuClock) -> Option<std::time::Duration> {
    None
}

/// The median of `v` (sorts it; the upper middle of an even count).
#[allow(dead_code)] // Only the examples that time in rounds use it.
pub fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
