//! Every example, run on a machine without a CUDA driver (CI), prints exactly one line,
//! `error: ` and `chevron::Error::NoDriver`'s text, and exits with code 2: the README's first
//! command says so. On a machine with a driver the examples do real work; the GPU run covers
//! them there, and this test says it skipped.
//!
//! Cargo gives integration tests no path to example binaries, so the test builds them with the
//! cargo that runs it (`cargo build --examples`, in the same profile and target directory: a
//! no-op after `cargo test`, which has built them already) and takes their paths from its JSON
//! messages.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The examples of this package: `examples/*.rs`, so a new example is covered without listing it.
fn example_names() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|ext| ext == "rs"))
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Builds the examples and returns `(name, executable)` for each, from cargo's
/// `compiler-artifact` messages.
fn build_examples() -> Vec<(String, PathBuf)> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_owned());
    let mut cmd = Command::new(cargo);
    cmd.args([
        "build",
        "--examples",
        "--message-format=json",
        "--manifest-path",
    ])
    .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
    // This test runs as `<target>/<profile dir>/deps/examples_no_driver-…`: build in the same
    // profile, so that nothing is compiled twice.
    let exe = std::env::current_exe().expect("the test's own path");
    if exe
        .parent()
        .and_then(Path::parent)
        .and_then(Path::file_name)
        == Some("release".as_ref())
    {
        cmd.arg("--release");
    }
    let out = cmd.output().expect("running cargo build --examples");
    assert!(
        out.status.success(),
        "cargo build --examples failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).expect("cargo's JSON is UTF-8");
    stdout
        .lines()
        .filter(|line| line.contains(r#""kind":["example"]"#))
        .filter_map(|line| {
            let name = json_string_after(line, r#""name":""#)?;
            let exe = json_string_after(line, r#""executable":""#)?;
            Some((name, PathBuf::from(exe)))
        })
        .collect()
}

/// The JSON string that follows `key` in `line`, unescaped (paths hold at most `\\` and `\"`).
fn json_string_after(line: &str, key: &str) -> Option<String> {
    let rest = &line[line.find(key)? + key.len()..];
    let mut value = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => return Some(value),
            '\\' => value.push(chars.next()?),
            c => value.push(c),
        }
    }
    None
}

#[test]
fn every_example_prints_one_line_and_exits_2_without_a_driver() {
    if chevron::driver_present() {
        eprintln!("skipped: this machine has a CUDA driver, so the examples run on the GPU");
        return;
    }
    let built = build_examples();
    let want = format!("error: {}\n", chevron::Error::NoDriver);
    let names = example_names();
    assert!(names.contains(&"saxpy".to_owned()), "examples: {names:?}");
    for name in names {
        let exe = &built
            .iter()
            .find(|(built_name, _)| *built_name == name)
            .unwrap_or_else(|| panic!("cargo built no example `{name}`: {built:?}"))
            .1;
        // Both as run by hand and in quick mode (`CHEVRON_QUICK=1`, as under compute-sanitizer).
        for quick in [None, Some("1")] {
            let mut command = Command::new(exe);
            match quick {
                Some(v) => command.env("CHEVRON_QUICK", v),
                None => command.env_remove("CHEVRON_QUICK"),
            };
            let out = command
                .output()
                .unwrap_or_else(|e| panic!("running {}: {e}", exe.display()));
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                stderr, want,
                "stderr of example `{name}`, CHEVRON_QUICK={quick:?}"
            );
            assert_eq!(
                String::from_utf8_lossy(&out.stdout),
                "",
                "stdout of example `{name}`, CHEVRON_QUICK={quick:?}"
            );
            assert_eq!(
                out.status.code(),
                Some(2),
                "exit code of example `{name}`, CHEVRON_QUICK={quick:?}"
            );
        }
    }
}
