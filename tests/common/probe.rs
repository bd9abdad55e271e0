//! A tiny crate built in a temporary directory against this workspace (the same target
//! directory, profile and features, so no dependency is compiled again), for tests of what only
//! a real `cargo build` of another crate shows: rebuilds, build scripts, dependency names, the
//! compile-time nvcc path. Used through `#[path]`.

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

/// A probe crate in `CARGO_TARGET_TMPDIR/<name>`, removed when dropped (kept when the test
/// panics, to be looked at).
pub struct Probe {
    pub dir: PathBuf,
}

impl Probe {
    /// A probe depending on this workspace's facade as `chevron-cuda`, with `files` (`src/lib.rs`
    /// among them; `build.rs` makes it the package's build script).
    pub fn new(name: &str, files: &[(&str, &str)]) -> Probe {
        let ws = workspace().display().to_string();
        Probe::with_dependencies(
            name,
            &format!("chevron-cuda = {{ path = {ws:?} }}"),
            "",
            files,
        )
    }

    /// A probe with `dependencies` (TOML lines of its `[dependencies]`), `workspace_table` as the
    /// body of its own `[workspace]` table (for `[workspace.dependencies]`), this workspace's
    /// lock file, and `files`. The runtime's `f16` feature is on in this workspace's test builds
    /// (a dev-dependency), so the probe turns it on too: the same features, the same compiled
    /// dependencies.
    pub fn with_dependencies(
        name: &str,
        dependencies: &str,
        workspace_table: &str,
        files: &[(&str, &str)],
    ) -> Probe {
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
        self.cargo("build", envs)
    }

    /// `cargo check` of the probe (what rust-analyzer runs), with `envs` set.
    #[allow(dead_code)] // Not every test binary checks.
    pub fn check(&self, envs: &[(&str, &str)]) -> Output {
        self.cargo("check", envs)
    }

    fn cargo(&self, verb: &str, envs: &[(&str, &str)]) -> Output {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_owned());
        let (target, release) = target_dir_and_release();
        let mut cmd = Command::new(cargo);
        cmd.args([verb, "--offline", "--lib", "--message-format=short"])
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
        cmd.output().expect("running cargo")
    }
}

impl Drop for Probe {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// Cargo's output, stdout then stderr.
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
