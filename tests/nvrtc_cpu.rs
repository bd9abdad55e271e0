//! `cuda = "…"` kernels compiled by NVRTC without a GPU: local headers embedded by the macro
//! (one including another from a subdirectory), toolkit headers (`<cooperative_groups.h>`,
//! `<cuda_fp16.h>`) found at run time, template instances by name (`name = "softmax<128>"`,
//! resolved by NVRTC's name expressions), options from the declaration, and the declared
//! signature checked against what NVRTC made.
//!
//! Needs libnvrtc (and its libnvrtc-builtins) where the loader finds it, e.g.
//! `LD_LIBRARY_PATH=…/site-packages/nvidia/cu13/lib` for the pip packages `.ci/run` installs;
//! without it the binary prints one `skipped:` line and runs no test, unless
//! `CHEVRON_REQUIRE_CUDA_TOOLS=1` (set by `.ci/run`) makes that a failure.
// These kernels are checked at the first NVRTC compile; where nvcc is not found, chevron warns
// that the compile-time check did not run (CI has nvcc).
#![allow(deprecated)]

#[path = "common/skip.rs"]
mod skip;

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, nvrtc_present, Error};

/// Whether to run: NVRTC is here; else the binary ends with one `skipped:` line (or a failure
/// under `CHEVRON_REQUIRE_CUDA_TOOLS=1`).
fn nvrtc_or_skip(test: &str) -> bool {
    if nvrtc_present() {
        return true;
    }
    assert!(
        std::env::var_os("CHEVRON_REQUIRE_CUDA_TOOLS").is_none_or(|v| v != "1"),
        "{test}: CHEVRON_REQUIRE_CUDA_TOOLS=1 but libnvrtc cannot be loaded (LD_LIBRARY_PATH?)"
    );
    skip::binary(
        "libnvrtc cannot be loaded (set LD_LIBRARY_PATH to its directory)",
        "CHEVRON_REQUIRE_CUDA_TOOLS=1 makes this a failure",
    )
}

const HOPPER: (i32, i32) = (9, 0);

#[kernel(cuda = "kernels/nvrtc/softmax.cu", name = "softmax<128>")]
fn softmax128(out: &mut CudaSlice<f32>, input: &CudaSlice<f32>, rows: i32, cols: i32);

#[kernel(cuda = "kernels/nvrtc/softmax.cu", name = "row_sum_squares<float>")]
fn row_sum_squares(out: &mut CudaSlice<f32>, input: &CudaSlice<f32>, cols: i32);

#[kernel(cuda = "kernels/nvrtc/vector.cu", name = "axpy<double>")]
fn axpy_f64(y: &mut CudaSlice<f64>, x: &CudaSlice<f64>, a: f64, n: i32);

#[kernel(cuda = "kernels/nvrtc/vector.cu")]
fn scale_half(out: &mut CudaSlice<u16>, input: &CudaSlice<u16>, s: f32, n: i32);

#[kernel(cuda = "kernels/nvrtc/options.cu", options = ["-std=c++17", "-DSCALE=3", "--use_fast_math"])]
fn fill_scaled(out: &mut CudaSlice<f32>, n: i32);

// A header that only `--pre-include` brings in, embedded like an included one: NVRTC finds it
// by the name the option gives, from any working directory.
#[kernel(
    cuda = "ui-tests/fixtures/nvcc_pre_include.cu",
    options = ["--pre-include=nvcc_pre_include.cuh"]
)]
fn pre_bounded(out: &mut CudaSlice<f32>, n: u32);

// Wrong on purpose: `a` is a `double` in `axpy<double>`. `-default-device` (NVRTC's alone)
// keeps the compile-time nvcc from checking it (which would refuse it where nvcc is found):
// the run-time check is what is under test.
#[kernel(cuda = "kernels/nvrtc/vector.cu", name = "axpy<double>", options = ["-default-device"])]
fn axpy_wrong(y: &mut CudaSlice<f64>, x: &CudaSlice<f64>, a: f32, n: i32);

// Without `-DSCALE=…` the source's `#error` fires.
#[kernel(cuda = "kernels/nvrtc/options.cu", options = ["-std=c++17"])]
fn fill_unscaled(out: &mut CudaSlice<f32>, n: i32);

// No such template.
#[kernel(cuda = "kernels/nvrtc/softmax.cu", name = "softmx<128>")]
fn softmax_misspelled(out: &mut CudaSlice<f32>, input: &CudaSlice<f32>, rows: i32, cols: i32);

#[test]
fn templates_headers_and_options_compile_without_a_gpu() {
    if !nvrtc_or_skip("templates_headers_and_options_compile_without_a_gpu") {
        return;
    }
    // Each entry is the lowered name NVRTC gave for the name expression, checked against the
    // declaration.
    assert_eq!(
        softmax128::kernel().compile_check(HOPPER).unwrap(),
        "_Z7softmaxILi128EEvPfPKfii"
    );
    assert_eq!(
        row_sum_squares::kernel().compile_check(HOPPER).unwrap(),
        "_Z15row_sum_squaresIfEvPT_PKS0_i"
    );
    assert_eq!(
        axpy_f64::kernel().compile_check(HOPPER).unwrap(),
        "_Z4axpyIdEvPT_PKS0_S0_i"
    );
    // `<cuda_fp16.h>` from the toolkit; an `extern "C"` kernel keeps its name.
    assert_eq!(
        scale_half::kernel().compile_check(HOPPER).unwrap(),
        "scale_half"
    );
    assert_eq!(
        fill_scaled::kernel().compile_check(HOPPER).unwrap(),
        "fill_scaled"
    );
    // The pre-included header is NVRTC's from the binary, not from the disk: run from
    // another directory.
    let here = std::env::current_dir().unwrap();
    std::env::set_current_dir(std::env::temp_dir()).unwrap();
    let pre = pre_bounded::kernel().compile_check(HOPPER);
    std::env::set_current_dir(here).unwrap();
    assert_eq!(pre.unwrap(), "pre_bounded");
    // An older architecture NVRTC 12 and 13 both know.
    assert_eq!(
        softmax128::kernel().compile_check((8, 0)).unwrap(),
        "_Z7softmaxILi128EEvPfPKfii"
    );
}

#[test]
fn wrong_declarations_and_sources_are_typed_errors() {
    if !nvrtc_or_skip("wrong_declarations_and_sources_are_typed_errors") {
        return;
    }
    match axpy_wrong::kernel().compile_check(HOPPER) {
        Err(Error::Signature { message, .. }) => {
            assert!(message.contains("`a: f32`"), "{message}");
            assert!(message.contains("64-bit float"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    match fill_unscaled::kernel().compile_check(HOPPER) {
        Err(Error::Compile { log, .. }) => {
            assert!(log.contains("compile with -DSCALE=<integer>"), "{log}");
            // The options NVRTC got: the device's architecture, then the declaration's.
            assert!(log.contains("--gpu-architecture=sm_90"), "{log}");
            assert!(log.contains("-std=c++17"), "{log}");
        }
        other => panic!("{other:?}"),
    }
    match softmax_misspelled::kernel().compile_check(HOPPER) {
        Err(Error::Compile { log, .. }) => {
            assert!(
                log.contains("`name = \"softmx<128>\"` is not a kernel of the source"),
                "{log}"
            );
        }
        other => panic!("{other:?}"),
    }
}
