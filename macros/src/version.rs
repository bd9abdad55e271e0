//! The CUDA version this build of the macros serves (a `cuda-*` feature), below every phase.

/// The CUDA version the user selected: the oldest `cuda-*` feature on (with two on, the runtime
/// refuses to build anyway), or the newest version when none is (the macros on their own), as
/// the build script read it.
pub const fn selected_cuda() -> u32 {
    let digits = env!("CHEVRON_CUDA_VERSION").as_bytes();
    let (mut version, mut i) = (0, 0);
    while i < digits.len() {
        version = version * 10 + (digits[i] - b'0') as u32;
        i += 1;
    }
    version
}
