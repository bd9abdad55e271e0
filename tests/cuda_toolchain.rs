//! The CUDA compilers, without a GPU (`.ci/run` installs nvcc and NVRTC from pip and sets
//! `CHEVRON_REQUIRE_CUDA_TOOLS=1`, which turns a missing tool into a failure instead of a
//! `skipped:` line):
//!
//! - `kernels/build.sh` into a temporary directory gives the committed PTX byte for byte, the
//!   PTX reader's fixtures (rules/tests/fixtures) included (the committed files are what the
//!   script makes, with the pinned nvcc);
//! - the compile-time nvcc path of `cuda = "…"`: a probe crate launching a kernel with a block
//!   over its `__launch_bounds__` fails to build where nvcc is found, and builds with
//!   `CHEVRON_NVCC=0` (the check then falls to the run time); nvcc gets the declaration's
//!   `-D`/`-I` options and compiles a template instance named by a name expression.

#[path = "common/probe.rs"]
mod probe;
#[path = "common/skip.rs"]
mod skip;

use std::path::Path;
use std::process::Command;

use probe::{text, tools_required, Probe};

/// Whether to run: nvcc is here; else the binary ends with one `skipped:` line (a failure when
/// tools are required).
fn nvcc_or_skip(test: &str) -> bool {
    if probe::nvcc().is_some() {
        return true;
    }
    assert!(
        !tools_required(),
        "{test}: CHEVRON_REQUIRE_CUDA_TOOLS=1 but no nvcc on PATH, in $CUDA_PATH/bin or /usr/local/cuda/bin"
    );
    skip::binary(
        "no nvcc on PATH, in $CUDA_PATH/bin or /usr/local/cuda/bin",
        "CHEVRON_REQUIRE_CUDA_TOOLS=1 makes this a failure",
    )
}

/// `PATH` with the directory of the nvcc found first (a probe crate's build runs it from there).
fn path_with_nvcc() -> String {
    let nvcc_dir = probe::nvcc()
        .and_then(|n| n.parent().map(Path::to_path_buf))
        .expect("nvcc_or_skip checked it");
    let path = std::env::join_paths(std::iter::once(nvcc_dir).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .expect("PATH");
    path.to_string_lossy().into_owned()
}

/// Every `.ptx` under `dir` (one level of subdirectories), relative to it.
fn ptx_files(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("kernels/").flatten() {
        let path = entry.path();
        if path.is_dir() {
            for sub in std::fs::read_dir(&path).expect("a subdirectory").flatten() {
                if sub.path().extension().is_some_and(|e| e == "ptx") {
                    out.push(format!(
                        "{}/{}",
                        entry.file_name().to_string_lossy(),
                        sub.file_name().to_string_lossy()
                    ));
                }
            }
        } else if path.extension().is_some_and(|e| e == "ptx") {
            out.push(entry.file_name().to_string_lossy().into_owned());
        }
    }
    out.sort();
    out
}

/// `bytes` without what depends on where the files lie, in `-G` builds: the `.file` lines and
/// the DWARF sections after the code (`.section .debug_*`: they hold the absolute paths of the
/// source and of the toolkit's headers, as bytes, and offsets that follow their lengths) and the
/// 8 hex digits of nvcc's hash of the source's absolute path (in `_ZN46_INTERNAL_<hash>_…`
/// internal-linkage functions and `__nv_static_<n>__<hash>_…` variables), so that a checkout or a
/// toolkit elsewhere (CI's) compares equal. The code itself, `.loc` lines included, is compared.
fn without_paths(bytes: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    let kept: Vec<&str> = text
        .lines()
        .take_while(|l| !l.trim_start().starts_with(".section"))
        .filter(|l| !l.trim_start().starts_with(".file"))
        .collect();
    without_path_hash(kept.join("\n").as_bytes())
}

/// `bytes` with the 8 hex digits of nvcc's path hash blanked: after each `_INTERNAL_`
/// (internal-linkage functions) and `_GLOBAL__N__` (anonymous namespaces), and in `__nv_static_<n>__<hash>_` (`static` variables of
/// relocatable code).
fn without_path_hash(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let mut i = 0;
    while i < out.len() {
        let start = if out[i..].starts_with(b"_INTERNAL_") {
            Some(i + b"_INTERNAL_".len())
        } else if out[i..].starts_with(b"_GLOBAL__N__") {
            Some(i + b"_GLOBAL__N__".len())
        } else if out[i..].starts_with(b"__nv_static_") {
            let digits = i + b"__nv_static_".len();
            let end = digits
                + out[digits..]
                    .iter()
                    .take_while(|b| b.is_ascii_digit())
                    .count();
            out[end..].starts_with(b"__").then_some(end + 2)
        } else {
            None
        };
        match start {
            Some(start) => {
                if out.len() >= start + 8 && out[start..start + 8].iter().all(u8::is_ascii_hexdigit)
                {
                    out[start..start + 8].fill(b'0');
                }
                i = start;
            }
            None => i += 1,
        }
    }
    out
}

#[test]
fn without_path_hash_blanks_only_the_hash() {
    assert_eq!(
        without_path_hash(b"_ZN46_INTERNAL_52ffd6e1_15_grid x _INTERNAL_zz"),
        b"_ZN46_INTERNAL_00000000_15_grid x _INTERNAL_zz".to_vec()
    );
    assert_eq!(
        without_path_hash(b"__nv_static_30__27eb9f0d_9_stores_cu_f8b17717_table __nv_static_x"),
        b"__nv_static_30__00000000_9_stores_cu_f8b17717_table __nv_static_x".to_vec()
    );
    assert_eq!(
        without_path_hash(b"_ZN40_GLOBAL__N__0bf19b91_8_names_cu_d85cfd804anonEPf"),
        b"_ZN40_GLOBAL__N__00000000_8_names_cu_d85cfd804anonEPf".to_vec()
    );
}

#[test]
fn without_paths_drops_file_lines() {
    assert_eq!(
        without_paths(b"a\n\t.file\t1 \"/x/include/y.h\"\nb"),
        without_paths(b"a\n\t.file\t1 \"/other/include/y.h\"\nb")
    );
    assert_ne!(without_paths(b"a\nb"), without_paths(b"a\nc"));
    assert_eq!(
        without_paths(b"a\n\t.section\t.debug_info\n.b8 47,119"),
        without_paths(b"a\n\t.section\t.debug_info\n.b8 47,120")
    );
}

#[test]
fn regenerating_the_ptx_changes_nothing() {
    if !nvcc_or_skip("regenerating_the_ptx_changes_nothing") {
        return;
    }
    let kernels = probe::workspace().join("kernels");
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("regenerated-ptx");
    let _ = std::fs::remove_dir_all(&out);
    let nvcc = probe::nvcc().expect("checked above");
    let run = Command::new("bash")
        .arg(kernels.join("build.sh"))
        .arg(&out)
        .env("NVCC", &nvcc)
        .output()
        .expect("running kernels/build.sh");
    assert!(
        run.status.success(),
        "kernels/build.sh failed:\n{}",
        text(&run)
    );
    // The PTX reader's fixtures go to `<out>/fixtures`; committed, they sit next to their
    // sources in rules/tests/fixtures.
    let fixtures = probe::workspace().join("rules/tests/fixtures");
    let mut committed = ptx_files(&kernels);
    committed.extend(
        ptx_files(&fixtures)
            .into_iter()
            .map(|f| format!("fixtures/{f}")),
    );
    committed.sort();
    let committed_path = |name: &str| match name.strip_prefix("fixtures/") {
        Some(f) => fixtures.join(f),
        None => kernels.join(name),
    };
    let made = ptx_files(&out);
    assert_eq!(
        committed, made,
        "build.sh makes other files than are committed"
    );
    assert!(committed.len() >= 20, "{committed:?}");
    let mut differ = Vec::new();
    for name in &committed {
        let a = std::fs::read(committed_path(name)).expect("committed PTX");
        let b = std::fs::read(out.join(name)).expect("regenerated PTX");
        if without_paths(&a) != without_paths(&b) {
            differ.push(name.clone());
        }
    }
    assert!(
        differ.is_empty(),
        "regenerated PTX differs from the committed files: {differ:?} (run kernels/build.sh with \
         the nvcc that made them, `{}`, and commit the result)",
        String::from_utf8_lossy(&run.stdout)
            .lines()
            .last()
            .unwrap_or_default()
    );
    let _ = std::fs::remove_dir_all(&out);
}

const BOUNDED_CU: &str = "extern \"C\" __global__ void __launch_bounds__(64) \
    bounded(float* out, unsigned int n)\n\
    {\n    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = 1.0f;\n}\n";

const BOUNDED_LIB: &str = r#"use chevron::cudarc::driver::{CudaSlice, CudaStream};

#[chevron::kernel(cuda = "kernels/bounded.cu")]
pub fn bounded(out: &mut CudaSlice<f32>, n: u32);

pub fn run(s: &CudaStream, out: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { chevron::launch!(bounded<<<4, 128, s>>>(out, 512)) }
}
"#;

#[test]
fn nvcc_checks_cuda_kernels_at_compile_time() {
    if !nvcc_or_skip("nvcc_checks_cuda_kernels_at_compile_time") {
        return;
    }
    let p = Probe::new(
        "nvcc-probe",
        &[
            ("src/lib.rs", BOUNDED_LIB),
            ("kernels/bounded.cu", BOUNDED_CU),
        ],
    );
    let path = path_with_nvcc();
    let checked = p.build(&[("PATH", &path)]);
    let out = text(&checked);
    assert!(
        !checked.status.success(),
        "nvcc's `.maxntid 64` was not seen:\n{out}"
    );
    assert!(
        out.contains(
            "kernel `bounded` is compiled with `.maxntid 64, 1, 1` (from `__launch_bounds__`)"
        ),
        "{out}"
    );
    // Without nvcc's PTX the launch compiles; the runtime checks it against NVRTC's output.
    let unchecked = p.build(&[("PATH", &path), ("CHEVRON_NVCC", "0")]);
    assert!(unchecked.status.success(), "{}", text(&unchecked));
}

/// A template and a plain kernel whose bounds come from the declaration's `-D` option and a
/// header found through its `-I` directory.
const OPTIONS_CU: &str = "#include \"bounds.cuh\"\n\
    template <int N>\n\
    __global__ void __launch_bounds__(N) tbounded(float* out, unsigned int n)\n\
    {\n    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = SCALE * N;\n}\n\
    extern \"C\" __global__ void __launch_bounds__(BLOCK) dbounded(float* out, unsigned int n)\n\
    {\n    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = SCALE;\n}\n";

const OPTIONS_LIB: &str = r#"use chevron::cudarc::driver::{CudaSlice, CudaStream};

#[chevron::kernel(cuda = "kernels/options.cu", name = "tbounded<64>", options = ["-DBLOCK=32", "-Iinc", "-std=c++17"])]
pub fn tbounded(out: &mut CudaSlice<f32>, n: u32);

#[chevron::kernel(cuda = "kernels/options.cu", name = "dbounded", options = ["-DBLOCK=32", "-Iinc"])]
pub fn dbounded(out: &mut CudaSlice<f32>, n: u32);

pub fn run(s: &CudaStream, out: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { chevron::launch!(tbounded<<<4, 128, s>>>(&mut *out, 512)) }?;
    unsafe { chevron::launch!(dbounded<<<4, 64, s>>>(out, 512)) }
}
"#;

#[test]
fn nvcc_gets_the_declarations_options_and_name_expression() {
    if !nvcc_or_skip("nvcc_gets_the_declarations_options_and_name_expression") {
        return;
    }
    let p = Probe::new(
        "nvcc-options-probe",
        &[
            ("src/lib.rs", OPTIONS_LIB),
            ("kernels/options.cu", OPTIONS_CU),
            ("inc/bounds.cuh", "#define SCALE 2.0f\n"),
        ],
    );
    let path = path_with_nvcc();
    let checked = p.build(&[("PATH", &path)]);
    let out = text(&checked);
    assert!(
        !checked.status.success(),
        "nvcc's bounds were not seen:\n{out}"
    );
    // The instance `tbounded<64>` (its `__launch_bounds__(N)`), through the name expression.
    assert!(
        out.contains(
            "kernel `tbounded` is compiled with `.maxntid 64, 1, 1` (from `__launch_bounds__`)"
        ),
        "{out}"
    );
    // `-DBLOCK=32` reached nvcc, and `-Iinc` found `bounds.cuh`.
    assert!(
        out.contains(
            "kernel `dbounded` is compiled with `.maxntid 32, 1, 1` (from `__launch_bounds__`)"
        ),
        "{out}"
    );
}

/// A kernel whose bounds come from `bounds.cuh`, found in the second of two `-I` directories.
const SHADOW_CU: &str = "#include \"bounds.cuh\"\n\
    extern \"C\" __global__ void __launch_bounds__(BLOCK) shadowed(float* out, unsigned int n)\n\
    {\n    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = 1.0f;\n}\n";

const SHADOW_LIB: &str = r#"use chevron::cudarc::driver::{CudaSlice, CudaStream};

#[chevron::kernel(cuda = "kernels/shadow.cu", options = ["-Iinc1", "-Iinc2"])]
pub fn shadowed(out: &mut CudaSlice<f32>, n: u32);

pub fn run(s: &CudaStream, out: &mut CudaSlice<f32>) -> Result<(), chevron::Error> {
    unsafe { chevron::launch!(shadowed<<<4, 128, s>>>(out, 512)) }
}
"#;

#[test]
fn a_header_placed_earlier_on_the_include_path_invalidates_the_nvcc_cache() {
    if !nvcc_or_skip("a_header_placed_earlier_on_the_include_path_invalidates_the_nvcc_cache") {
        return;
    }
    let p = Probe::new(
        "nvcc-shadow-probe",
        &[
            ("src/lib.rs", SHADOW_LIB),
            ("kernels/shadow.cu", SHADOW_CU),
            ("inc1/.keep", ""),
            ("inc2/bounds.cuh", "#define BLOCK 1024\n"),
        ],
    );
    let path = path_with_nvcc();
    let first = p.build(&[("PATH", &path)]);
    assert!(first.status.success(), "{}", text(&first));
    // A header of the same name in the first directory: nvcc would now read it. Cargo does not
    // see a new file, so the crate is edited too, as the next change to it would.
    p.write("inc1/bounds.cuh", "#define BLOCK 64\n");
    p.write("src/lib.rs", &format!("{SHADOW_LIB}\n// edited\n"));
    let second = p.build(&[("PATH", &path)]);
    let out = text(&second);
    assert!(
        !second.status.success(),
        "the cached check of inc2/bounds.cuh was kept:\n{out}"
    );
    assert!(
        out.contains("kernel `shadowed` is compiled with `.maxntid 64, 1, 1`"),
        "{out}"
    );
}
