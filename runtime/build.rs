//! Checks that exactly one CUDA version feature is on, with one line that names the fix (this can
//! run before cudarc's own build fails with less helpful errors), and tells the crate which kinds
//! exist: `cfg(cuda_12030)` means "CUDA 12.3 or later". The versions are the rules crate's list.

use chevron_cuda_rules::kinds::{feature_env, feature_name, CUDA_VERSIONS as VERSIONS};

fn main() {
    let on: Vec<u32> = VERSIONS
        .iter()
        .copied()
        .filter(|v| std::env::var_os(feature_env(*v)).is_some())
        .collect();
    let selected = match on.as_slice() {
        [v] => *v,
        [] => {
            eprintln!(
                "error: chevron needs one CUDA version feature: with `default-features = false`, \
                 add one, e.g. `features = [\"cuda-13000\"]` ({} … {})",
                feature_name(VERSIONS[0]),
                feature_name(VERSIONS[VERSIONS.len() - 1])
            );
            std::process::exit(1);
        }
        many => {
            let names: Vec<String> = many.iter().map(|v| feature_name(*v)).collect();
            eprintln!(
                "error: chevron got {} CUDA version features at once ({}): add \
                 `default-features = false` next to your `features = [\"cuda-…\"]` (the default \
                 is cuda-13000)",
                many.len(),
                names.join(", ")
            );
            std::process::exit(1);
        }
    };
    for v in VERSIONS {
        println!("cargo::rustc-check-cfg=cfg(cuda_{v})");
    }
    for v in VERSIONS.iter().filter(|v| **v <= selected) {
        println!("cargo::rustc-cfg=cuda_{v}");
    }
    println!("cargo::rustc-env=CHEVRON_CUDA_VERSION={selected}");
}
