//! `launch!`'s checks of literal values against the kernel's rules fail `cargo check`, not only
//! `cargo build`: rust-analyzer and `cargo check` run no code generation, and an inline
//! `const { … }` block is evaluated only when its function is built, so the checks are `const`
//! items, which checking evaluates. (The ui cases, which trybuild builds, cannot tell.)

#[path = "common/probe.rs"]
mod probe;

use probe::Probe;

/// A block over the kernel's `.maxntid 256`, and one within it.
const SOURCE: &str = r#"//! Launch-rules probe.
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(ptx = "fit_bounds.ptx")]
pub fn bounded_scale(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);

pub fn run(s: &CudaStream, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { launch!(bounded_scale<<<8, (16, 16), s>>>(x, &mut *y, 2048)) }?;
    unsafe { launch!(bounded_scale<<<4, BLOCK, s>>>(x, y, 2048)) }
}
"#;

/// The probe with the second launch's grid written as `grid` (`4`, or an expression).
fn probe_with_grid(grid: &str, block: &str) -> Probe {
    let ptx = std::fs::read_to_string(probe::workspace().join("ui-tests/fixtures/fit_bounds.ptx"))
        .expect("fit_bounds.ptx");
    let name = if grid == "4" {
        format!("launch_rules_in_check_{block}")
    } else {
        format!("launch_rules_in_check_computed_{block}")
    };
    let source = SOURCE
        .replace("<<<4, BLOCK", &format!("<<<{grid}, BLOCK"))
        .replace("BLOCK", block);
    Probe::new(&name, &[("src/lib.rs", &source), ("fit_bounds.ptx", &ptx)])
}

/// `cargo check` of the probe with the second launch's block over the bound fails with the
/// bound's words, and with one within it passes; `grid` is that launch's grid.
fn refused_then_accepted(grid: &str) {
    let bad = probe_with_grid(grid, "512");
    let out = bad.check(&[]);
    let text = probe::text(&out);
    assert!(!out.status.success(), "`cargo check` passed:\n{text}");
    assert!(
        text.contains("a block of more than 256 threads cannot launch it"),
        "{text}"
    );
    let good = probe_with_grid(grid, "256");
    let out = good.check(&[]);
    assert!(out.status.success(), "{}", probe::text(&out));
}

#[test]
fn cargo_check_reports_a_literal_block_over_the_kernels_bound() {
    refused_then_accepted("4");
}

/// The same with the grid computed: a launch whose only literal is its block is checked in
/// types (the kernel's `LiteralBlock`), which `cargo check` reports too.
#[test]
fn cargo_check_reports_a_literal_block_over_the_bound_with_a_computed_grid() {
    refused_then_accepted("2048u32.div_ceil(BLOCK)");
}
