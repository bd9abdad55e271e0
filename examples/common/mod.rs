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
