//! Tells the macros which CUDA version the user selected, from the same `cuda-*` feature the
//! facade forwards to the runtime: the oldest one on (with two on, the runtime refuses to build
//! anyway), or the newest version when none is (the macros on their own). The versions are the
//! rules crate's list.

use chevron_cuda_rules::kinds::{feature_env, selected_version, CUDA_VERSIONS};

fn main() {
    let newest = CUDA_VERSIONS[CUDA_VERSIONS.len() - 1];
    let selected =
        selected_version(|v| std::env::var_os(feature_env(v)).is_some()).unwrap_or(newest);
    println!("cargo::rustc-env=CHEVRON_CUDA_VERSION={selected}");
}
