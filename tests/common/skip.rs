//! A test binary whose tests cannot run here (no nvcc, no NVRTC) ends with one `skipped:` line
//! and exit code 0, before any of its tests reports `ok`: what did not run is reported as a
//! skip, not as passes. Tests call it before they do anything else, so no result of the binary
//! is hidden by the exit (a test that finished earlier has already printed its own line).

#![allow(dead_code)] // Each test binary uses what it needs.

use std::io::Write;
use std::sync::Mutex;

/// The binary's name: `nvrtc_cpu-0123abcd…` → `nvrtc_cpu`.
pub fn binary_name() -> String {
    let exe = std::env::current_exe().ok();
    let stem = exe
        .as_deref()
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    stem.rsplit_once('-')
        .map_or(stem.as_str(), |(n, _)| n)
        .to_string()
}

/// Prints `skipped: {why}, so the tests of `{binary}` did not run ({how})` past the test
/// harness's capture and exits the process with code 0. Called from a test thread: other tests
/// running at the same moment wait here until the process is gone, so the line is printed once.
pub fn binary(why: &str, how: &str) -> ! {
    static ONCE: Mutex<()> = Mutex::new(());
    let _held = ONCE.lock();
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "skipped: {why}, so the tests of `{}` did not run ({how})",
        binary_name()
    );
    let _ = out.flush();
    std::process::exit(0)
}
