//! A tiny crate built against this workspace in a temporary directory (the same target directory
//! and profile, so no dependency is compiled again), for tests of what only a whole build shows:
//! build scripts, rebuilds, the compile-time nvcc path. Used through `#[path]`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `<target>` of this test binary, which runs as `<target>/<profile dir>/deps/<test>-…`.
fn target_dir_and_release() -> (PathBuf, bool) {
    let exe = std::env::current_exe().expect("the test's own path");
    let profile_dir = exe.parent().and_then(Path::parent).expect("<profile>/deps");
    let release = profile_dir.file_name() == Some("release".as_ref());
    (
        profile_dir.parent().expect("<target>").to_path_buf(),
        release,
    )
}

/// A probe crate in `CARGO_TARGET_TMPDIR/<name>`.
pub struct Probe {
    pub dir: PathBuf,
}

impl Probe {
    /// Writes the crate: `Cargo.toml` (depending on this workspace's facade and runtime, the
    /// runtime's `f16` feature on as in this workspace's test builds, so the dependencies are
    /// the ones already compiled), the workspace's lock file, and `files` (`src/lib.rs` among
    /// them; `build.rs` makes it the package's build script).
    pub fn new(name: &str, files: &[(&str, &str)]) -> Probe {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("src")).expect("probe dir");
        let ws = workspace().display().to_string();
        std::fs::write(
            dir.join("Cargo.toml"),
            format!(
                "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
                 publish = false\n\n[dependencies]\nchevron-cuda = {{ path = {ws:?} }}\n\
                 chevron-cuda-runtime = {{ path = \"{ws}/runtime\", default-features = false, \
                 features = [\"f16\"] }}\n\n[workspace]\n"
            ),
        )
        .expect("Cargo.toml");
        std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).expect("Cargo.lock");
        let probe = Probe { dir };
        for (path, text) in files {
            probe.write(path, text);
        }
        probe
    }

    /// Writes (or replaces) a file of the probe.
    pub fn write(&self, path: &str, text: &str) {
        let file = self.dir.join(path);
        if let Some(parent) = file.parent() {
            std::fs::create_dir_all(parent).expect("probe subdirectory");
        }
        std::fs::write(file, text).expect("probe file");
    }

    /// `cargo build --lib` of the probe, with `envs` set for it.
    pub fn build(&self, envs: &[(&str, &str)]) -> Output {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_owned());
        let (target, release) = target_dir_and_release();
        let mut cmd = Command::new(cargo);
        cmd.args(["build", "--offline", "--lib", "--message-format=short"])
            .current_dir(&self.dir)
            .env("CARGO_TARGET_DIR", target)
            // The workspace's `.cargo/config.toml` points the macro at the workspace root, and
            // this process inherited that: the probe's kernel paths are relative to the probe.
            .env("CHEVRON_MANIFEST_DIR", &self.dir)
            .env_remove("CARGO_MAKEFLAGS");
        for (k, v) in envs {
            cmd.env(k, v);
        }
        if release {
            cmd.arg("--release");
        }
        cmd.output().expect("running cargo build")
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// stdout and stderr of a build.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The `nvcc` the macro would find (on `PATH`, `$CUDA_PATH/bin`, `/usr/local/cuda/bin`).
pub fn nvcc() -> Option<PathBuf> {
    let mut candidates = Vec::new();
    if let Some(path) = std::env::var_os("PATH") {
        candidates.extend(std::env::split_paths(&path).map(|d| d.join("nvcc")));
    }
    if let Some(cuda) = std::env::var_os("CUDA_PATH") {
        candidates.push(PathBuf::from(cuda).join("bin/nvcc"));
    }
    candidates.push(PathBuf::from("/usr/local/cuda/bin/nvcc"));
    candidates.into_iter().find(|c| c.is_file())
}

/// Whether a missing CUDA tool fails the test (`CHEVRON_REQUIRE_CUDA_TOOLS=1`, set by `.ci/run`)
/// rather than skipping it.
pub fn tools_required() -> bool {
    std::env::var_os("CHEVRON_REQUIRE_CUDA_TOOLS").is_some_and(|v| v == "1")
}
