//! Compile-time behaviour of `cuda = "…"` declarations where nvcc is found: the PTX nvcc makes
//! of the file is checked as a `ptx = "…"` file is. `ui-tests/nvcc/*.rs` must fail with the
//! messages in the matching `.stderr`. Without nvcc (on `PATH`, in `$CUDA_PATH/bin` or
//! `/usr/local/cuda/bin`) the cases would only warn, so the test says `skipped:` (a failure
//! under `CHEVRON_REQUIRE_CUDA_TOOLS=1`, as in `.ci/run`). Regenerate snapshots with
//! `TRYBUILD=overwrite cargo test --test ui_nvcc`, then read every changed `.stderr`.

#[path = "common/probe.rs"]
mod probe;

#[test]
fn ui_nvcc() {
    if probe::nvcc().is_none() {
        assert!(
            !probe::tools_required(),
            "ui_nvcc: CHEVRON_REQUIRE_CUDA_TOOLS=1 but no nvcc on PATH, in $CUDA_PATH/bin or \
             /usr/local/cuda/bin"
        );
        println!("skipped: ui_nvcc: no nvcc (on PATH, in $CUDA_PATH/bin or /usr/local/cuda/bin)");
        return;
    }
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/nvcc/*.rs");
}
