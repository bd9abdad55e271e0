//! A tiny crate built in a temporary directory against this workspace (the same target
//! directory, profile and features, so no dependency is compiled again), for tests of what
//! only a real `cargo build` of another crate shows: rebuilds, dependency names.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// This workspace's root.
pub fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `<target>` of this test binary, which runs as `<target>/<profile dir>/deps/<test>-…`, and
/// whether the profile is `release`.
fn target_dir_and_release() -> (PathBuf, bool) {
    let exe = std::env::current_exe().expect("the test's own path");
    let profile_dir = exe.parent().and_then(Path::parent).expect("<profile>/deps");
    let release = profile_dir.file_name() == Some("release".as_ref());
    (
        profile_dir.parent().expect("<target>").to_path_buf(),
        release,
    )
}

/// A fresh probe crate in `CARGO_TARGET_TMPDIR/<name>`, with `dependencies` (TOML lines of its
/// `[dependencies]`) and this workspace's lock file. The runtime's `f16` feature is on in this
/// workspace's test builds (a dev-dependency), so the probe turns it on too: the same
/// features, the same compiled dependencies.
pub fn create(name: &str, dependencies: &str) -> PathBuf {
    create_in_workspace(name, dependencies, "")
}

/// [`create`], with `workspace_table` as the body of the probe's own `[workspace]` table (for
/// `[workspace.dependencies]`).
pub fn create_in_workspace(name: &str, dependencies: &str, workspace_table: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).expect("probe dir");
    let ws = workspace().display().to_string();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
             publish = false\n\n[dependencies]\n{dependencies}\n\
             chevron-cuda-runtime = {{ path = \"{ws}/runtime\", default-features = false, \
             features = [\"f16\"] }}\n\n[workspace]\n{workspace_table}\n"
        ),
    )
    .expect("Cargo.toml");
    // The workspace's lock file: the same dependency versions, nothing to resolve offline.
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).expect("Cargo.lock");
    dir
}

/// `cargo build --lib` of the probe in `dir`.
pub fn build(dir: &Path) -> Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_owned());
    let (target, release) = target_dir_and_release();
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--offline", "--lib", "--message-format=short"])
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target)
        // The workspace's `.cargo/config.toml` points the macro at the workspace root, and this
        // process inherited that: the probe's kernel paths are relative to the probe.
        .env("CHEVRON_MANIFEST_DIR", dir)
        .env_remove("CARGO_MAKEFLAGS");
    if release {
        cmd.arg("--release");
    }
    cmd.output().expect("running cargo build")
}

/// Cargo's output, stdout then stderr.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}
