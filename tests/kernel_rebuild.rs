//! `#[kernel]` rebuilds when its PTX changes: a tiny crate declaring a kernel is built in a
//! temporary directory against this workspace (same target directory and profile, so no
//! dependency is compiled again), its `.ptx` is edited so that the declaration no longer
//! matches, and the next build must fail with the macro's error about the new PTX; restored, it
//! builds again. The macro embeds the file with `include_str!`, so rustc lists it in the crate's
//! dep-info and cargo rebuilds when it changes; this test checks that chain end to end.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

const DECLARATION: &str = r#"//! Rebuild probe.
use chevron::cudarc::driver::CudaSlice;

/// y = a·x + y
#[chevron::kernel(ptx = "k.ptx")]
pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
"#;

fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `<target>` of this test binary, which runs as `<target>/<profile dir>/deps/kernel_rebuild-…`.
fn target_dir_and_release() -> (PathBuf, bool) {
    let exe = std::env::current_exe().expect("the test's own path");
    let profile_dir = exe.parent().and_then(Path::parent).expect("<profile>/deps");
    let release = profile_dir.file_name() == Some("release".as_ref());
    (
        profile_dir.parent().expect("<target>").to_path_buf(),
        release,
    )
}

fn build(dir: &Path) -> Output {
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

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn editing_the_ptx_rebuilds_and_the_new_error_shows() {
    let start = Instant::now();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("kernel-rebuild-probe");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).expect("probe dir");
    let ws = workspace().display().to_string();
    // The runtime's `f16` feature is on in this workspace's test builds (a dev-dependency), so
    // the probe turns it on too: the same features, the same compiled dependencies.
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"rebuild-probe\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
             publish = false\n\n[dependencies]\nchevron-cuda = {{ path = {ws:?} }}\n\
             chevron-cuda-runtime = {{ path = \"{ws}/runtime\", default-features = false, \
             features = [\"f16\"] }}\n\n[workspace]\n"
        ),
    )
    .expect("Cargo.toml");
    // The workspace's lock file: the same dependency versions, nothing to resolve offline.
    std::fs::copy(workspace().join("Cargo.lock"), dir.join("Cargo.lock")).expect("Cargo.lock");
    std::fs::write(dir.join("src/lib.rs"), DECLARATION).expect("lib.rs");
    let ptx = std::fs::read_to_string(workspace().join("kernels/saxpy.ptx")).expect("saxpy.ptx");
    std::fs::write(dir.join("k.ptx"), &ptx).expect("k.ptx");

    let first = build(&dir);
    assert!(
        first.status.success(),
        "the probe does not build:\n{}",
        text(&first)
    );

    // `n` becomes 64-bit in the PTX: the declaration's `n: u32` no longer matches.
    let param = ".param .u32 saxpy_param_0";
    assert!(ptx.contains(param), "saxpy.ptx has no `{param}`");
    let edited = ptx.replace(param, ".param .u64 saxpy_param_0");
    std::fs::write(dir.join("k.ptx"), &edited).expect("edit k.ptx");
    let second = build(&dir);
    let out = text(&second);
    assert!(
        !second.status.success(),
        "the edited PTX was not seen:\n{out}"
    );
    assert!(
        out.contains("`n: u32` is a 32-bit integer, but the kernel takes a 64-bit"),
        "{out}"
    );

    std::fs::write(dir.join("k.ptx"), &ptx).expect("restore k.ptx");
    let third = build(&dir);
    assert!(
        third.status.success(),
        "the restored PTX was not seen:\n{}",
        text(&third)
    );
    let _ = std::fs::remove_dir_all(&dir);
    println!("three builds of the probe in {:?}", start.elapsed());
}
