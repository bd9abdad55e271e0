//! Checks that exactly one CUDA version feature is on, with one line that names the fix (this can
//! run before cudarc's own build fails with less helpful errors), and tells the crate which kinds
//! exist: `cfg(cuda_12030)` means "CUDA 12.3 or later".

const VERSIONS: &[u32] = &[
    12000, 12010, 12020, 12030, 12040, 12050, 12060, 12080, 12090, 13000, 13010, 13020, 13030,
    13040,
];

fn main() {
    let on: Vec<u32> = VERSIONS
        .iter()
        .copied()
        .filter(|v| std::env::var_os(format!("CARGO_FEATURE_CUDA_{v}")).is_some())
        .collect();
    let selected = match on.as_slice() {
        [v] => *v,
        [] => {
            eprintln!(
                "error: chevron needs one CUDA version feature: with `default-features = false`, \
                 add one, e.g. `features = [\"cuda-13000\"]` (cuda-12000 … cuda-13040)"
            );
            std::process::exit(1);
        }
        many => {
            let names: Vec<String> = many.iter().map(|v| format!("cuda-{v}")).collect();
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
