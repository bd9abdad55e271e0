//! Compile-time behaviour with an older CUDA version feature: keys and types of later versions
//! name the feature that has them. Needs a build of its own, since one build has one CUDA
//! feature: `cargo test --test ui_versions --no-default-features --features cuda-12000`
//! (`.ci/run` does it).

// Only in that build: under the default feature the cases would (rightly) compile.
#[cfg(feature = "cuda-12000")]
#[test]
fn kinds_of_later_cuda_versions() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui-tests/cuda-12000/*.rs");
}
