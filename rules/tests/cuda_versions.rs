//! The CUDA versions (`kinds::CUDA_VERSIONS`, from `for_each_cuda_version!`) against the Cargo
//! features that select them: the facade, the runtime and the macros each have one feature per
//! version and no other, the runtime's forwards to cudarc's, the facade's to both crates', and
//! the default is [`DEFAULT_CUDA_VERSION`]. Adding a version is its row plus these features.

use chevron_cuda_rules::kinds::{feature_name, CUDA_VERSIONS, DEFAULT_CUDA_VERSION};
use std::path::Path;

/// The `[features]` lines of a manifest, as `(name, value)`.
fn features(manifest: &str) -> Vec<(String, String)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(manifest);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let mut in_features = false;
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_features = line == "[features]";
            continue;
        }
        if !in_features || line.starts_with('#') || line.is_empty() {
            continue;
        }
        if let Some((name, value)) = line.split_once('=') {
            out.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    out
}

fn cuda_features(manifest: &str) -> Vec<(String, String)> {
    features(manifest)
        .into_iter()
        .filter(|(name, _)| name.starts_with("cuda-"))
        .collect()
}

#[test]
fn every_version_has_its_feature_in_every_crate() {
    let want: Vec<String> = CUDA_VERSIONS.iter().map(|v| feature_name(*v)).collect();
    for (manifest, value) in [
        ("../runtime/Cargo.toml", "[\"cudarc/{f}\"]"),
        ("../macros/Cargo.toml", "[]"),
        (
            "../Cargo.toml",
            "[\"chevron-cuda-runtime/{f}\", \"chevron-cuda-macros/{f}\"]",
        ),
    ] {
        let found = cuda_features(manifest);
        let names: Vec<&String> = found.iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            want.iter().collect::<Vec<_>>(),
            "{manifest}: one `cuda-*` feature per version of `for_each_cuda_version!`, in order"
        );
        for (name, found) in &found {
            assert_eq!(*found, value.replace("{f}", name), "{manifest}: {name}");
        }
    }
}

#[test]
fn the_default_feature_is_the_default_version() {
    let default = format!("[\"{}\"]", feature_name(DEFAULT_CUDA_VERSION));
    for manifest in ["../runtime/Cargo.toml", "../Cargo.toml"] {
        let found = features(manifest);
        let value = found
            .iter()
            .find(|(n, _)| n == "default")
            .map(|(_, v)| v.clone());
        assert_eq!(value.as_deref(), Some(default.as_str()), "{manifest}");
    }
}
