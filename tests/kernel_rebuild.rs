//! `#[kernel]` rebuilds when its PTX changes: a tiny crate declaring a kernel is built in a
//! temporary directory against this workspace (same target directory and profile, so no
//! dependency is compiled again), its `.ptx` is edited so that the declaration no longer
//! matches, and the next build must fail with the macro's error about the new PTX; restored, it
//! builds again. Each declaration embeds only its kernel's module, and the first declaration of
//! the file in a compilation names the whole file with `include_bytes!`, so rustc lists it in
//! the crate's dep-info and cargo rebuilds when it changes; this test checks that chain end to
//! end, with two declarations of the file (the second names it with no `include_bytes!`).

use std::time::Instant;

#[path = "common/probe.rs"]
mod probe;

use probe::Probe;

const DECLARATION: &str = r#"//! Rebuild probe.
use chevron::cudarc::driver::CudaSlice;

/// y = a·x + y
#[chevron::kernel(ptx = "k.ptx")]
pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

/// The same kernel, declared again.
#[chevron::kernel(ptx = "k.ptx", name = "saxpy")]
pub fn saxpy_again(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
"#;

#[test]
fn editing_the_ptx_rebuilds_and_the_new_error_shows() {
    let start = Instant::now();
    let ptx =
        std::fs::read_to_string(probe::workspace().join("kernels/saxpy.ptx")).expect("saxpy.ptx");
    let probe = Probe::new(
        "rebuild-probe",
        &[("src/lib.rs", DECLARATION), ("k.ptx", &ptx)],
    );

    let first = probe.build(&[]);
    assert!(
        first.status.success(),
        "the probe does not build:\n{}",
        probe::text(&first)
    );

    // `n` becomes 64-bit in the PTX: the declaration's `n: u32` no longer matches.
    let param = ".param .u32 saxpy_param_0";
    assert!(ptx.contains(param), "saxpy.ptx has no `{param}`");
    let edited = ptx.replace(param, ".param .u64 saxpy_param_0");
    probe.write("k.ptx", &edited);
    let second = probe.build(&[]);
    let out = probe::text(&second);
    assert!(
        !second.status.success(),
        "the edited PTX was not seen:\n{out}"
    );
    assert!(
        out.contains("`n: u32` is a 32-bit integer, but the kernel takes a 64-bit"),
        "{out}"
    );

    probe.write("k.ptx", &ptx);
    let third = probe.build(&[]);
    assert!(
        third.status.success(),
        "the restored PTX was not seen:\n{}",
        probe::text(&third)
    );
    println!("three builds of the probe in {:?}", start.elapsed());
}
