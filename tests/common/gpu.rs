//! How a GPU test gets its CUDA context: on a machine without a CUDA driver, the GPU tests of a
//! binary are skipped with one line, not failed one by one with `NoDriver`.
//!
//! Only a missing driver library skips (`Error::NoDriver`); on a machine with a driver, every
//! other error fails the test as before (no device, a broken install, a wrong result). With
//! `CHEVRON_REQUIRE_GPU=1` (`scripts/device-run.sh` sets it) a missing driver fails too, so a GPU
//! run that lost its driver cannot pass by skipping.

#![allow(dead_code)] // Each test binary uses what it needs.

use std::io::Write;
use std::sync::{Arc, Mutex, MutexGuard};

use chevron::cudarc::driver::CudaContext;

/// `chevron::context(ordinal)`; without a CUDA driver, ends the test binary (see the module).
pub fn context(ordinal: usize) -> Result<Arc<CudaContext>, chevron::Error> {
    driver()?;
    chevron::context(ordinal)
}

/// Held for the whole of each test of a binary that captures graphs, so its tests run one at a
/// time even when the harness runs them on several threads: `Graph::capture` first synchronizes
/// the context, which the driver refuses (`CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`) while a
/// stream of another test thread is capturing, and a launch of another test during a capture
/// could invalidate it. A test that failed while holding it does not poison the others.
pub fn serial() -> MutexGuard<'static, ()> {
    static SERIAL: Mutex<()> = Mutex::new(());
    SERIAL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `chevron::ensure_driver()`; without a CUDA driver, ends the test binary (see the module).
pub fn driver() -> Result<(), chevron::Error> {
    match chevron::ensure_driver() {
        Err(chevron::Error::NoDriver) if !required() => skip(),
        other => other,
    }
}

/// Whether `CHEVRON_REQUIRE_GPU` is set to anything but `0`.
fn required() -> bool {
    std::env::var_os("CHEVRON_REQUIRE_GPU").is_some_and(|v| v != "0")
}

/// Prints one line and exits the test binary with code 0. Called from a test thread: other
/// tests running at the same moment wait here until the process is gone, so the line is printed
/// once.
fn skip() -> ! {
    static ONCE: Mutex<()> = Mutex::new(());
    let _held = ONCE.lock();
    let exe = std::env::current_exe().ok();
    let stem = exe
        .as_deref()
        .and_then(|p| p.file_stem())
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // `kernel_gpu-0123abcd…` → `kernel_gpu`.
    let name = stem.rsplit_once('-').map_or(stem.as_str(), |(n, _)| n);
    // Straight to stdout, past the test harness's capture, and after its `test … ` prefix.
    let mut out = std::io::stdout().lock();
    let _ = writeln!(
        out,
        "skipped: no CUDA driver on this machine, so the GPU tests of `{name}` did not run \
         (CHEVRON_REQUIRE_GPU=1 makes this a failure)"
    );
    let _ = out.flush();
    std::process::exit(0)
}

/// Whether `graph` is instantiated with `CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY`
/// (`Graph::uses_node_priorities`: `cuGraphExecGetFlags` does not report the flag).
pub fn uses_node_priority(graph: &chevron::Graph<'_>) -> Result<bool, chevron::Error> {
    graph.uses_node_priorities()
}
