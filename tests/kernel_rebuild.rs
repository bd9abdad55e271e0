//! `#[kernel]` rebuilds when its PTX changes: a tiny crate declaring a kernel is built in a
//! temporary directory against this workspace (same target directory and profile, so no
//! dependency is compiled again), its `.ptx` is edited so that the declaration no longer
//! matches, and the next build must fail with the macro's error about the new PTX; restored, it
//! builds again. The macro embeds the file with `include_str!`, so rustc lists it in the crate's
//! dep-info and cargo rebuilds when it changes; this test checks that chain end to end.

use std::time::Instant;

#[path = "common/probe.rs"]
mod probe;

const DECLARATION: &str = r#"//! Rebuild probe.
use chevron::cudarc::driver::CudaSlice;

/// y = a·x + y
#[chevron::kernel(ptx = "k.ptx")]
pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
"#;

#[test]
fn editing_the_ptx_rebuilds_and_the_new_error_shows() {
    let start = Instant::now();
    let ws = probe::workspace().display().to_string();
    let dir = probe::create(
        "rebuild-probe",
        &format!("chevron-cuda = {{ path = {ws:?} }}"),
    );
    std::fs::write(dir.join("src/lib.rs"), DECLARATION).expect("lib.rs");
    let ptx =
        std::fs::read_to_string(probe::workspace().join("kernels/saxpy.ptx")).expect("saxpy.ptx");
    std::fs::write(dir.join("k.ptx"), &ptx).expect("k.ptx");

    let first = probe::build(&dir);
    assert!(
        first.status.success(),
        "the probe does not build:\n{}",
        probe::text(&first)
    );

    // `n` becomes 64-bit in the PTX: the declaration's `n: u32` no longer matches.
    let param = ".param .u32 saxpy_param_0";
    assert!(ptx.contains(param), "saxpy.ptx has no `{param}`");
    let edited = ptx.replace(param, ".param .u64 saxpy_param_0");
    std::fs::write(dir.join("k.ptx"), &edited).expect("edit k.ptx");
    let second = probe::build(&dir);
    let out = probe::text(&second);
    assert!(
        !second.status.success(),
        "the edited PTX was not seen:\n{out}"
    );
    assert!(
        out.contains("`n: u32` is a 32-bit integer, but the kernel takes a 64-bit"),
        "{out}"
    );

    std::fs::write(dir.join("k.ptx"), &ptx).expect("restore k.ptx");
    let third = probe::build(&dir);
    assert!(
        third.status.success(),
        "the restored PTX was not seen:\n{}",
        probe::text(&third)
    );
    let _ = std::fs::remove_dir_all(&dir);
    println!("three builds of the probe in {:?}", start.elapsed());
}
