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

fn probe(block: &str) -> Probe {
    let ptx = std::fs::read_to_string(probe::workspace().join("ui-tests/fixtures/fit_bounds.ptx"))
        .expect("fit_bounds.ptx");
    Probe::new(
        &format!("launch_rules_in_check_{block}"),
        &[
            ("src/lib.rs", &SOURCE.replace("BLOCK", block)),
            ("fit_bounds.ptx", &ptx),
        ],
    )
}

#[test]
fn cargo_check_reports_a_literal_block_over_the_kernels_bound() {
    let bad = probe("512");
    let out = bad.check(&[]);
    let text = probe::text(&out);
    assert!(!out.status.success(), "`cargo check` passed:\n{text}");
    assert!(
        text.contains("a block of more than 256 threads cannot launch it"),
        "{text}"
    );
    // Within the bound, the same probe checks.
    let good = probe("256");
    let out = good.check(&[]);
    assert!(out.status.success(), "{}", probe::text(&out));
}
