//! `cuda = "…"` kernels on a real GPU: templates instantiated by name, embedded headers (one
//! including another), toolkit headers found at run time, options from the declaration (one
//! source compiled twice with other options: two modules), each launched and checked against
//! a host reference with poisoned outputs; and the disk cache: a second start of a process
//! compiles nothing, a damaged entry is compiled again, `CHEVRON_NVRTC_CACHE=0` writes nothing.
//!
//! `cargo test --test nvrtc_gpu -- --ignored`; each start of the cache test is this test binary
//! run again (`cache_start`), with the cache in a fresh directory.
// These kernels are checked at the first NVRTC compile; where nvcc is not found, chevron warns
// that the compile-time check did not run (CI has nvcc).
#![allow(deprecated)]

#[path = "common/gpu.rs"]
mod gpu;

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use chevron::cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use chevron::{kernel, launch, Error};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[kernel(cuda = "kernels/nvrtc/softmax.cu", name = "softmax<128>")]
fn softmax128(out: &mut CudaSlice<f32>, input: &CudaSlice<f32>, rows: i32, cols: i32);

#[kernel(cuda = "kernels/nvrtc/softmax.cu", name = "softmax<256>")]
fn softmax256(out: &mut CudaSlice<f32>, input: &CudaSlice<f32>, rows: i32, cols: i32);

#[kernel(cuda = "kernels/nvrtc/softmax.cu", name = "row_sum_squares<float>")]
fn row_sum_squares(out: &mut CudaSlice<f32>, input: &CudaSlice<f32>, cols: i32);

#[kernel(cuda = "kernels/nvrtc/vector.cu", name = "axpy<double>")]
fn axpy_f64(y: &mut CudaSlice<f64>, x: &CudaSlice<f64>, a: f64, n: i32);

#[kernel(cuda = "kernels/nvrtc/vector.cu")]
fn scale_half(
    out: &mut CudaSlice<chevron::half::f16>,
    input: &CudaSlice<chevron::half::f16>,
    s: f32,
    n: i32,
);

#[kernel(cuda = "kernels/nvrtc/vector.cu")]
fn add4(out: &mut CudaSlice<f32>, a: &CudaSlice<f32>, b: &CudaSlice<f32>, n: i32);

#[kernel(cuda = "kernels/nvrtc/options.cu", name = "fill_scaled", options = ["-std=c++17", "-DSCALE=3"])]
fn fill3(out: &mut CudaSlice<f32>, n: i32);

#[kernel(cuda = "kernels/nvrtc/options.cu", name = "fill_scaled", options = ["-std=c++17", "-DSCALE=5", "-DHALF_STEP"])]
fn fill5(out: &mut CudaSlice<f32>, n: i32);

const POISON: f32 = -12345.5;

fn setup() -> Result<(Arc<CudaContext>, Arc<CudaStream>), Error> {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    Ok((ctx, stream))
}

fn assert_close(got: &[f32], want: &[f32], rel: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= rel * w.abs().max(1.0),
            "{what}[{i}]: got {g}, want {w}"
        );
    }
}

fn softmax_input(rows: usize, cols: usize) -> (Vec<f32>, Vec<f32>) {
    let input: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 37) % 101) as f32 * 0.05 - 2.0)
        .collect();
    let mut want = vec![0.0f32; rows * cols];
    for r in 0..rows {
        let row = &input[r * cols..(r + 1) * cols];
        let m = row.iter().copied().fold(f32::MIN, f32::max);
        let sum: f32 = row.iter().map(|x| (x - m).exp()).sum();
        for c in 0..cols {
            want[r * cols + c] = (row[c] - m).exp() / sum;
        }
    }
    (input, want)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn template_instances_and_headers_match_the_host() -> TestResult {
    let (_ctx, s) = setup()?;
    let (rows, cols) = (33usize, 777usize);
    let (input, want) = softmax_input(rows, cols);
    let x = s.clone_htod(&input)?;
    for block in [128u32, 256] {
        let mut out = s.clone_htod(&vec![POISON; rows * cols])?;
        if block == 128 {
            unsafe {
                launch!(softmax128<<<rows as u32, 128, &s>>>(&mut out, &x, rows as i32, cols as i32))
            }?;
        } else {
            unsafe {
                launch!(softmax256<<<rows as u32, 256, &s>>>(&mut out, &x, rows as i32, cols as i32))
            }?;
        }
        assert_close(
            &s.clone_dtoh(&out)?,
            &want,
            1e-4,
            &format!("softmax<{block}>"),
        );
    }
    // `__launch_bounds__(128)` reached the runtime's checks from NVRTC's PTX. The block is a
    // run-time value: where the build machine has nvcc, a literal 256 is a compile error
    // (the compile-time nvcc sees the instance `softmax<128>` through its name expression).
    let mut out = s.clone_htod(&vec![POISON; rows * cols])?;
    let too_big = std::hint::black_box(256u32);
    let e = unsafe {
        launch!(softmax128<<<rows as u32, too_big, &s>>>(&mut out, &x, rows as i32, cols as i32))
    }
    .expect_err("a block of 256 over `__launch_bounds__(128)`");
    assert!(e.to_string().contains(".maxntid 128"), "{e}");

    let want: Vec<f32> = (0..rows)
        .map(|r| input[r * cols..(r + 1) * cols].iter().map(|v| v * v).sum())
        .collect();
    let mut sums = s.clone_htod(&vec![POISON; rows])?;
    unsafe { launch!(row_sum_squares<<<rows as u32, 192, &s>>>(&mut sums, &x, cols as i32)) }?;
    assert_close(&s.clone_dtoh(&sums)?, &want, 1e-4, "row_sum_squares<float>");

    let n = 5000usize;
    let xs: Vec<f64> = (0..n).map(|i| (i % 97) as f64 * 0.5 + 0.25).collect();
    let ys: Vec<f64> = (0..n).map(|i| (i % 13) as f64).collect();
    let xd = s.clone_htod(&xs)?;
    let mut yd = s.clone_htod(&ys)?;
    unsafe {
        launch!(axpy_f64<<<(n as u32).div_ceil(256), 256, &s>>>(&mut yd, &xd, -1.5, n as i32))
    }?;
    let got = s.clone_dtoh(&yd)?;
    for (i, (g, (x, y))) in got.iter().zip(xs.iter().zip(&ys)).enumerate() {
        assert_eq!(*g, (-1.5f64).mul_add(*x, *y), "axpy<double>[{i}]");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn toolkit_headers_and_vector_types_match_the_host() -> TestResult {
    use chevron::half::f16;
    let (_ctx, s) = setup()?;
    let n = 3000usize;
    let halves: Vec<f16> = (0..n)
        .map(|i| f16::from_f32((i % 100) as f32 * 0.25))
        .collect();
    let hd = s.clone_htod(&halves)?;
    let mut out = s.clone_htod(&vec![f16::from_f32(POISON); n + 1])?;
    unsafe {
        launch!(scale_half<<<(n as u32).div_ceil(256), 256, &s>>>(&mut out, &hd, 2.0, n as i32))
    }?;
    let got = s.clone_dtoh(&out)?;
    for (i, g) in got[..n].iter().enumerate() {
        assert_eq!(*g, f16::from_f32((i % 100) as f32 * 0.5), "scale_half[{i}]");
    }
    assert_eq!(got[n], f16::from_f32(POISON), "scale_half wrote past n");

    let n4 = 1025usize;
    let a: Vec<f32> = (0..4 * n4).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..4 * n4).map(|i| (i % 7) as f32 * 0.5).collect();
    let (ad, bd) = (s.clone_htod(&a)?, s.clone_htod(&b)?);
    let mut out = s.clone_htod(&vec![POISON; 4 * n4 + 4])?;
    unsafe {
        launch!(add4<<<(n4 as u32).div_ceil(128), 128, &s>>>(&mut out, &ad, &bd, n4 as i32))
    }?;
    let got = s.clone_dtoh(&out)?;
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    assert_close(&got[..4 * n4], &want, 0.0, "add4");
    assert_eq!(&got[4 * n4..], &[POISON; 4], "add4 wrote past n");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn one_source_with_two_sets_of_options_is_two_modules() -> TestResult {
    let (ctx, s) = setup()?;
    let m = 1000usize;
    let mut out = s.clone_htod(&vec![POISON; m])?;
    unsafe { launch!(fill3<<<4, 256, &s>>>(&mut out, m as i32)) }?;
    let want: Vec<f32> = (0..m).map(|i| (3 * i) as f32).collect();
    assert_close(&s.clone_dtoh(&out)?, &want, 0.0, "-DSCALE=3");
    let mut out = s.clone_htod(&vec![POISON; m])?;
    unsafe { launch!(fill5<<<4, 256, &s>>>(&mut out, m as i32)) }?;
    let want: Vec<f32> = (0..m).map(|i| (5 * i) as f32 + 0.5).collect();
    assert_close(&s.clone_dtoh(&out)?, &want, 0.0, "-DSCALE=5 -DHALF_STEP");
    assert_eq!(
        chevron::__private::modules_loaded(&ctx, "kernels/nvrtc/options.cu"),
        2
    );
    Ok(())
}

/// Set for the starts the cache test runs.
const CHILD: &str = "CHEVRON_NVRTC_GPU_CHILD";

/// One start of the cache test (a no-op unless run by it): loads and checks four kernels,
/// prints `stats: compiled=N from_disk=M`.
#[test]
#[ignore = "needs a CUDA GPU"]
fn cache_start() -> TestResult {
    if std::env::var_os(CHILD).is_none() {
        return Ok(());
    }
    let (_ctx, s) = setup()?;
    let (rows, cols) = (8usize, 300usize);
    let (input, want) = softmax_input(rows, cols);
    let x = s.clone_htod(&input)?;
    let mut out = s.clone_htod(&vec![POISON; rows * cols])?;
    unsafe {
        launch!(softmax128<<<rows as u32, 128, &s>>>(&mut out, &x, rows as i32, cols as i32))
    }?;
    assert_close(&s.clone_dtoh(&out)?, &want, 1e-4, "softmax<128>");
    let m = 100usize;
    let mut out = s.clone_htod(&vec![POISON; m])?;
    unsafe { launch!(fill3<<<1, 128, &s>>>(&mut out, m as i32)) }?;
    let want: Vec<f32> = (0..m).map(|i| (3 * i) as f32).collect();
    assert_close(&s.clone_dtoh(&out)?, &want, 0.0, "-DSCALE=3");
    unsafe { launch!(fill5<<<1, 128, &s>>>(&mut out, m as i32)) }?;
    let want: Vec<f32> = (0..m).map(|i| (5 * i) as f32 + 0.5).collect();
    assert_close(&s.clone_dtoh(&out)?, &want, 0.0, "-DSCALE=5");
    add4::kernel().function(s.context())?;
    let stats = chevron::nvrtc_stats();
    println!(
        "stats: compiled={} from_disk={}",
        stats.compiled, stats.from_disk
    );
    Ok(())
}

/// Runs `cache_start` as a process of its own with the cache in `dir`; its (compiled, from_disk).
fn start(dir: &Path, cache_on: bool) -> (u64, u64) {
    let exe = std::env::current_exe().expect("this test binary");
    let mut cmd = Command::new(exe);
    cmd.args([
        "cache_start",
        "--exact",
        "--ignored",
        "--nocapture",
        "--test-threads=1",
    ])
    .env(CHILD, "1")
    .env(chevron::CACHE_DIR_VAR, dir)
    .env("CUDA_CACHE_DISABLE", "1");
    if cache_on {
        cmd.env_remove(chevron::CACHE_SWITCH_VAR);
    } else {
        cmd.env(chevron::CACHE_SWITCH_VAR, "0");
    }
    let out = cmd.output().expect("running a start");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "a start failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        // With --nocapture the line follows the harness's `test cache_start ... `.
        .find_map(|l| l.split_once("stats: ").map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("no stats line in:\n{stdout}"));
    let get = |k: &str| -> u64 {
        line.split_whitespace()
            .find_map(|kv| kv.strip_prefix(k)?.strip_prefix('='))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {k} in `{line}`"))
    };
    (get("compiled"), get("from_disk"))
}

fn entries(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir.join("nvrtc"))
        .map(|r| r.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_second_start_skips_nvrtc_and_a_damaged_entry_is_rebuilt() -> TestResult {
    gpu::context(0)?;
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("nvrtc-cache-gpu");
    let _ = std::fs::remove_dir_all(&dir);
    // Four programs: softmax<128>, the two option sets of options.cu, add4.
    assert_eq!(start(&dir, true), (4, 0), "first start");
    let files = entries(&dir);
    assert_eq!(files.len(), 4, "{files:?}");
    assert_eq!(start(&dir, true), (0, 4), "second start");
    // One entry damaged: that program alone is compiled again, and rewritten.
    let mut bytes = std::fs::read(&files[0])?;
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x5a;
    std::fs::write(&files[0], &bytes)?;
    assert_eq!(start(&dir, true), (1, 3), "start after damaging one entry");
    assert_eq!(
        start(&dir, true),
        (0, 4),
        "start after the entry was rewritten"
    );
    // Turned off: everything compiled, nothing read or written.
    let before: Vec<_> = files
        .iter()
        .map(|f| std::fs::metadata(f).and_then(|m| m.modified()).ok())
        .collect();
    assert_eq!(start(&dir, false), (4, 0), "start with the cache off");
    let after: Vec<_> = files
        .iter()
        .map(|f| std::fs::metadata(f).and_then(|m| m.modified()).ok())
        .collect();
    assert_eq!(before, after, "the cache was written while off");
    assert_eq!(entries(&dir).len(), 4);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
