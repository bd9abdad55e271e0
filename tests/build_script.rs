//! Kernels a build script writes into `OUT_DIR` are declared and checked like committed ones:
//! `ptx = concat!(env!("OUT_DIR"), "/k.ptx")` and `cuda = concat!(env!("OUT_DIR"), "/gen.cu")`
//! in a probe crate whose `build.rs` runs nvcc where it is found (else copies a committed PTX),
//! and writes CUDA C with a header it includes. Editing the kernel's source makes the build
//! script run again and the macro report the new mismatch; restored, it builds. And a `cuda =`
//! kernel's header, included by another header, rebuilds the crate when edited.
//!
//! Each probe build is a `cargo build` against this target directory (no dependency compiled
//! again); runs without a GPU.

#[path = "common/probe.rs"]
mod probe;

use probe::{text, Probe};

const BUILD_RS: &str = r##"
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("OUT_DIR"));
    println!("cargo:rerun-if-changed=kernels");
    // PTX for every GPU from Turing on, by nvcc where it is; else the committed copy.
    let by_nvcc = Command::new("nvcc")
        .args(["-ptx", "-arch=compute_75", "-o"])
        .arg(out.join("k.ptx"))
        .arg("kernels/k.cu")
        .status()
        .is_ok_and(|s| s.success());
    if !by_nvcc {
        std::fs::copy("kernels/k.ptx", out.join("k.ptx")).expect("copy k.ptx");
    }
    // CUDA C made here, with a header it includes: the macro embeds both.
    std::fs::write(
        out.join("gen.cu"),
        "#include \"gen.cuh\"\n\
         extern \"C\" __global__ void fill(float* out, unsigned int n)\n\
         {\n    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = VALUE;\n}\n",
    )
    .expect("gen.cu");
    std::fs::write(out.join("gen.cuh"), "#define VALUE 7.0f\n").expect("gen.cuh");
}
"##;

const LIB_RS: &str = r#"//! Build-script probe.
use chevron::cudarc::driver::CudaSlice;

/// y = a·x + y, compiled by the build script.
#[chevron::kernel(ptx = concat!(env!("OUT_DIR"), "/k.ptx"))]
pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

/// Written by the build script, compiled by NVRTC at run time.
#[chevron::kernel(cuda = concat!(env!("OUT_DIR"), "/gen.cu"))]
pub fn fill(out: &mut CudaSlice<f32>, n: u32);
"#;

#[test]
fn kernels_from_a_build_script_are_declared_and_checked() {
    let ws = probe::workspace();
    let cu = std::fs::read_to_string(ws.join("kernels/saxpy.cu")).expect("saxpy.cu");
    let ptx = std::fs::read_to_string(ws.join("kernels/saxpy.ptx")).expect("saxpy.ptx");
    let p = Probe::new(
        "build-script-probe",
        &[
            ("build.rs", BUILD_RS),
            ("src/lib.rs", LIB_RS),
            ("kernels/k.cu", &cu),
            ("kernels/k.ptx", &ptx),
        ],
    );
    let first = p.build(&[]);
    assert!(
        first.status.success(),
        "the probe does not build:\n{}",
        text(&first)
    );

    // `n` becomes 64-bit in both the source nvcc compiles and the copied PTX: the build script
    // runs again (its input changed) and the declaration's `n: u32` no longer matches.
    let (param, wide) = (".param .u32 saxpy_param_0", ".param .u64 saxpy_param_0");
    assert!(ptx.contains(param), "saxpy.ptx has no `{param}`");
    assert!(
        cu.contains("unsigned int n"),
        "saxpy.cu has no `unsigned int n`"
    );
    p.write("kernels/k.ptx", &ptx.replace(param, wide));
    p.write(
        "kernels/k.cu",
        &cu.replace("unsigned int n", "unsigned long long n"),
    );
    let second = p.build(&[]);
    let out = text(&second);
    assert!(
        !second.status.success(),
        "the edited kernel was not seen:\n{out}"
    );
    assert!(
        out.contains("`n: u32` is a 32-bit integer, but the kernel takes a 64-bit"),
        "{out}"
    );
    // The message names the file in OUT_DIR.
    assert!(out.contains("/out/k.ptx"), "{out}");

    p.write("kernels/k.ptx", &ptx);
    p.write("kernels/k.cu", &cu);
    let third = p.build(&[]);
    assert!(
        third.status.success(),
        "the restored kernel was not seen:\n{}",
        text(&third)
    );
}

#[test]
fn an_out_dir_path_without_a_build_script_says_what_is_missing() {
    let p = Probe::new(
        "no-build-script-probe",
        &[(
            "src/lib.rs",
            "use chevron::cudarc::driver::CudaSlice;\n\
             #[chevron::kernel(ptx = concat!(env!(\"OUT_DIR\"), \"/k.ptx\"))]\n\
             pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);\n",
        )],
    );
    let out = p.build(&[]);
    let log = text(&out);
    assert!(!out.status.success(), "{log}");
    assert!(
        log.contains("environment variable `OUT_DIR` is not defined at compile time: cargo sets `OUT_DIR` only for a crate with a build script"),
        "{log}"
    );
}

#[test]
fn editing_an_included_header_rebuilds() {
    let p = Probe::new(
        "header-rebuild-probe",
        &[
            (
                "src/lib.rs",
                "use chevron::cudarc::driver::CudaSlice;\n\
                 #[chevron::kernel(cuda = \"kernels/k.cu\")]\n\
                 pub fn fill(out: &mut CudaSlice<f32>, n: u32);\n",
            ),
            (
                "kernels/k.cu",
                "#include \"k.cuh\"\nextern \"C\" __global__ void fill(float* out, unsigned int n) \
                 { if (threadIdx.x < n) out[threadIdx.x] = VALUE; }\n",
            ),
            ("kernels/k.cuh", "#include \"detail/inner.cuh\"\n"),
            ("kernels/detail/inner.cuh", "#define VALUE 1.0f\n"),
            ("kernels/detail/k.cuh", "#define OTHER 1\n"),
        ],
    );
    // CHEVRON_NVCC=0: only the embedding is under test here.
    let env = [("CHEVRON_NVCC", "0")];
    let first = p.build(&env);
    assert!(
        first.status.success(),
        "the probe does not build:\n{}",
        text(&first)
    );

    // The nested header now includes `k.cuh`, which next to it is another file than the
    // `k.cuh` the source includes: only a new expansion of the declaration, after cargo saw the
    // header change, can report it.
    p.write(
        "kernels/detail/inner.cuh",
        "#include \"k.cuh\"\n#define VALUE 1.0f\n",
    );
    let second = p.build(&env);
    let out = text(&second);
    assert!(
        !second.status.success(),
        "the edited header was not seen:\n{out}"
    );
    assert!(out.contains("two headers are included as `k.cuh`"), "{out}");

    p.write("kernels/detail/inner.cuh", "#define VALUE 2.0f\n");
    let third = p.build(&env);
    assert!(
        third.status.success(),
        "the restored header was not seen:\n{}",
        text(&third)
    );
}
