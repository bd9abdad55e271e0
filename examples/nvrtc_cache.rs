//! A second start of a program with ten `cuda = "…"` kernels skips NVRTC: the first start
//! compiles them (templates instantiated by name, a local header embedded, `<cooperative_groups.h>`
//! and `<cuda_fp16.h>` from the CUDA toolkit, options from the declarations) and writes their
//! machine code to the disk cache; the second loads it from there. Each start is a process of
//! its own (this program, run again), with the cache directory emptied before the first; both
//! check every kernel's result against the host.
//!
//! `cargo run --release --example nvrtc_cache`. Prints each start's time to load the ten kernels
//! and the ratio `second / first` (the target: at most 5 %). Exit code 0 when both starts'
//! results match and the second compiled nothing, 2 on a machine without a CUDA driver (one
//! `error: …` line), 1 for any other failure.
// These kernels are checked at the first NVRTC compile; where nvcc is not found, chevron warns
// that the compile-time check did not run (CI has nvcc).
#![allow(deprecated)]

mod common;

use std::error::Error;
use std::process::{Command, ExitCode};
use std::sync::Arc;
use std::time::Instant;

use chevron::cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use chevron::{kernel, launch};

#[kernel(cuda = "kernels/nvrtc/softmax.cu", name = "softmax<128>")]
fn softmax128(out: &mut CudaSlice<f32>, input: &CudaSlice<f32>, rows: i32, cols: i32);

#[kernel(cuda = "kernels/nvrtc/softmax.cu", name = "softmax<256>")]
fn softmax256(out: &mut CudaSlice<f32>, input: &CudaSlice<f32>, rows: i32, cols: i32);

#[kernel(cuda = "kernels/nvrtc/softmax.cu", name = "row_sum_squares<float>")]
fn row_sum_squares(out: &mut CudaSlice<f32>, input: &CudaSlice<f32>, cols: i32);

#[kernel(cuda = "kernels/nvrtc/vector.cu", name = "axpy<float>")]
fn axpy_f32(y: &mut CudaSlice<f32>, x: &CudaSlice<f32>, a: f32, n: i32);

#[kernel(cuda = "kernels/nvrtc/vector.cu", name = "axpy<double>")]
fn axpy_f64(y: &mut CudaSlice<f64>, x: &CudaSlice<f64>, a: f64, n: i32);

// `__half` travels as its 16 bits.
#[kernel(cuda = "kernels/nvrtc/vector.cu")]
fn scale_half(out: &mut CudaSlice<u16>, input: &CudaSlice<u16>, s: f32, n: i32);

// `float4*`: four floats per element.
#[kernel(cuda = "kernels/nvrtc/vector.cu")]
fn add4(out: &mut CudaSlice<f32>, a: &CudaSlice<f32>, b: &CudaSlice<f32>, n: i32);

#[kernel(cuda = "kernels/nvrtc/options.cu", name = "fill_scaled", options = ["-std=c++17", "-DSCALE=3"])]
fn fill3(out: &mut CudaSlice<f32>, n: i32);

#[kernel(cuda = "kernels/nvrtc/options.cu", name = "fill_scaled", options = ["-std=c++17", "-DSCALE=5", "-DHALF_STEP", "--use_fast_math"])]
fn fill5_half_step(out: &mut CudaSlice<f32>, n: i32);

#[kernel(cuda = "kernels/histogram.cu")]
fn histogram(bins: &mut CudaSlice<u32>, data: &CudaSlice<u8>, len: u32);

/// The NVRTC programs behind the 10 kernels.
const PROGRAMS: u64 = 9;

/// Set in the environment of the two starts this program runs.
const CHILD: &str = "CHEVRON_NVRTC_CACHE_EXAMPLE_CHILD";

fn main() -> ExitCode {
    if std::env::var_os(CHILD).is_some() {
        return common::exit_code(start());
    }
    common::exit_code(run())
}

/// The parent: the two starts and the ratio.
fn run() -> Result<(), Box<dyn Error>> {
    let ctx = chevron::context(0)?; // Error::NoDriver on a machine without a CUDA driver
    println!("device 0: {}", ctx.name()?);
    drop(ctx);
    let dir = std::env::temp_dir().join(format!(
        "chevron-nvrtc-cache-example-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    println!("cache directory (emptied first): {}", dir.display());
    let first = run_start(&dir, "first start (nothing cached)")?;
    let second = run_start(&dir, "second start (cached)")?;
    let _ = std::fs::remove_dir_all(&dir);
    // 10 kernels, 9 programs: `scale_half` and `add4` are two entries of one program
    // (vector.cu with no name expression and the same options), compiled once.
    if first.compiled != PROGRAMS || first.from_disk != 0 {
        return Err(format!(
            "the first start compiled {} and loaded {} from disk, expected {PROGRAMS} and 0",
            first.compiled, first.from_disk
        )
        .into());
    }
    if second.compiled != 0 || second.from_disk != PROGRAMS {
        return Err(format!(
            "the second start compiled {} and loaded {} from disk, expected 0 and {PROGRAMS}",
            second.compiled, second.from_disk
        )
        .into());
    }
    let ratio = second.load_ms / first.load_ms;
    println!(
        "cached start / uncached start (loading 10 kernels): {:.2} ms / {:.2} ms = {:.2} % (target: at most 5 %: {})",
        second.load_ms,
        first.load_ms,
        100.0 * ratio,
        if ratio <= 0.05 { "met" } else { "NOT met" }
    );
    Ok(())
}

/// What one start reports.
struct Start {
    load_ms: f64,
    compiled: u64,
    from_disk: u64,
}

/// Runs this program as one start with the cache in `dir`; reads its `loaded …` line.
fn run_start(dir: &std::path::Path, what: &str) -> Result<Start, Box<dyn Error>> {
    let exe = std::env::current_exe()?;
    let out = Command::new(exe)
        .env(CHILD, "1")
        .env(chevron::CACHE_DIR_VAR, dir)
        .env_remove(chevron::CACHE_SWITCH_VAR)
        // The driver's own JIT cache off: what is measured is chevron's cache alone.
        .env("CUDA_CACHE_DISABLE", "1")
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    for line in stdout.lines() {
        println!("  {what}: {line}");
    }
    if !out.status.success() {
        return Err(format!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )
        .into());
    }
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("stats: "))
        .ok_or("a start printed no `stats:` line")?;
    let field = |name: &str| -> Result<f64, Box<dyn Error>> {
        let v = line
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('='))
            .ok_or_else(|| format!("no {name} in `{line}`"))?;
        Ok(v.parse()?)
    };
    Ok(Start {
        load_ms: field("load_ms")?,
        compiled: field("compiled")? as u64,
        from_disk: field("from_disk")? as u64,
    })
}

/// One start: loads the ten kernels (timed), then checks each one's result.
fn start() -> Result<(), Box<dyn Error>> {
    let ctx = chevron::context(0)?;
    let t = Instant::now();
    load_all(&ctx)?;
    let load_ms = t.elapsed().as_secs_f64() * 1e3;
    let stats = chevron::nvrtc_stats();
    println!(
        "loaded 10 kernels in {load_ms:.2} ms: {} compiled by NVRTC, {} from the disk cache",
        stats.compiled, stats.from_disk
    );
    let stream = ctx.new_stream()?;
    check_all(&stream)?;
    println!("checked: all 10 kernels match the host");
    println!(
        "stats: load_ms={load_ms} compiled={} from_disk={}",
        stats.compiled, stats.from_disk
    );
    Ok(())
}

fn load_all(ctx: &Arc<CudaContext>) -> Result<(), chevron::Error> {
    softmax128::kernel().function(ctx)?;
    softmax256::kernel().function(ctx)?;
    row_sum_squares::kernel().function(ctx)?;
    axpy_f32::kernel().function(ctx)?;
    axpy_f64::kernel().function(ctx)?;
    scale_half::kernel().function(ctx)?;
    add4::kernel().function(ctx)?;
    fill3::kernel().function(ctx)?;
    fill5_half_step::kernel().function(ctx)?;
    histogram::kernel().function(ctx)?;
    Ok(())
}

fn close(what: &str, got: &[f32], want: &[f32], tol: f32) -> Result<(), Box<dyn Error>> {
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        if (g - w).abs() > tol * w.abs().max(1.0) || g.is_nan() {
            return Err(format!("{what}: element {i} is {g}, the host says {w}").into());
        }
    }
    if got.len() != want.len() {
        return Err(format!("{what}: {} elements, expected {}", got.len(), want.len()).into());
    }
    Ok(())
}

fn check_all(s: &Arc<CudaStream>) -> Result<(), Box<dyn Error>> {
    let poison = f32::NAN;
    // softmax over rows of 1000 columns, both block sizes.
    let (rows, cols) = (64usize, 1000usize);
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
    let x = s.clone_htod(&input)?;
    for block in [128u32, 256] {
        let mut out = s.clone_htod(&vec![poison; rows * cols])?;
        if block == 128 {
            unsafe {
                launch!(softmax128<<<rows as u32, 128, s>>>(&mut out, &x, rows as i32, cols as i32))
            }?;
        } else {
            unsafe {
                launch!(softmax256<<<rows as u32, 256, s>>>(&mut out, &x, rows as i32, cols as i32))
            }?;
        }
        close(
            &format!("softmax<{block}>"),
            &s.clone_dtoh(&out)?,
            &want,
            1e-4,
        )?;
    }
    // Row sums of squares.
    let want: Vec<f32> = (0..rows)
        .map(|r| input[r * cols..(r + 1) * cols].iter().map(|v| v * v).sum())
        .collect();
    let mut out = s.clone_htod(&vec![poison; rows])?;
    unsafe { launch!(row_sum_squares<<<rows as u32, 256, s>>>(&mut out, &x, cols as i32)) }?;
    close("row_sum_squares<float>", &s.clone_dtoh(&out)?, &want, 1e-4)?;

    // axpy in both precisions.
    let n = 10_000usize;
    let xs: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.5).collect();
    let ys: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
    let (xd, mut yd) = (s.clone_htod(&xs)?, s.clone_htod(&ys)?);
    unsafe {
        launch!(axpy_f32<<<(n as u32).div_ceil(256), 256, s>>>(&mut yd, &xd, 3.0, n as i32))
    }?;
    let want: Vec<f32> = xs.iter().zip(&ys).map(|(x, y)| 3.0 * x + y).collect();
    close("axpy<float>", &s.clone_dtoh(&yd)?, &want, 1e-6)?;
    let xs64: Vec<f64> = xs.iter().map(|&v| v as f64 + 0.25).collect();
    let ys64: Vec<f64> = ys.iter().map(|&v| v as f64).collect();
    let (xd, mut yd) = (s.clone_htod(&xs64)?, s.clone_htod(&ys64)?);
    unsafe {
        launch!(axpy_f64<<<(n as u32).div_ceil(256), 256, s>>>(&mut yd, &xd, -1.5, n as i32))
    }?;
    let got = s.clone_dtoh(&yd)?;
    for (i, (g, (x, y))) in got.iter().zip(xs64.iter().zip(&ys64)).enumerate() {
        if *g != -1.5 * x + y {
            return Err(format!(
                "axpy<double>: element {i} is {g}, the host says {}",
                -1.5 * x + y
            )
            .into());
        }
    }

    // Half precision: 16-bit patterns of small integers scaled by 2 (exact in f16).
    let halves: Vec<u16> = (0..n).map(|i| f32_to_f16_bits((i % 100) as f32)).collect();
    let hd = s.clone_htod(&halves)?;
    let mut out = s.clone_htod(&vec![0xffffu16; n])?;
    unsafe {
        launch!(scale_half<<<(n as u32).div_ceil(256), 256, s>>>(&mut out, &hd, 2.0, n as i32))
    }?;
    let got = s.clone_dtoh(&out)?;
    for (i, g) in got.iter().enumerate() {
        let want = f32_to_f16_bits(2.0 * (i % 100) as f32);
        if *g != want {
            return Err(
                format!("scale_half: element {i} is {g:#06x}, the host says {want:#06x}").into(),
            );
        }
    }

    // float4 adds.
    let n4 = 4096usize;
    let a: Vec<f32> = (0..4 * n4).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..4 * n4).map(|i| (i % 7) as f32 * 0.5).collect();
    let (ad, bd) = (s.clone_htod(&a)?, s.clone_htod(&b)?);
    let mut out = s.clone_htod(&vec![poison; 4 * n4])?;
    unsafe { launch!(add4<<<(n4 as u32).div_ceil(128), 128, s>>>(&mut out, &ad, &bd, n4 as i32)) }?;
    let want: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    close("add4", &s.clone_dtoh(&out)?, &want, 0.0)?;

    // The same source with two sets of options.
    let m = 1000usize;
    let mut out = s.clone_htod(&vec![poison; m])?;
    unsafe { launch!(fill3<<<4, 256, s>>>(&mut out, m as i32)) }?;
    let want: Vec<f32> = (0..m).map(|i| (3 * i) as f32).collect();
    close("fill_scaled -DSCALE=3", &s.clone_dtoh(&out)?, &want, 0.0)?;
    unsafe { launch!(fill5_half_step<<<4, 256, s>>>(&mut out, m as i32)) }?;
    let want: Vec<f32> = (0..m).map(|i| (5 * i) as f32 + 0.5).collect();
    close(
        "fill_scaled -DSCALE=5 -DHALF_STEP",
        &s.clone_dtoh(&out)?,
        &want,
        0.0,
    )?;

    // histogram.
    let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let mut want = vec![0u32; 256];
    for &d in &data {
        want[d as usize] += 1;
    }
    let dd = s.clone_htod(&data)?;
    let mut bins = s.clone_htod(&vec![0u32; 256])?;
    unsafe {
        launch!(histogram<<<(data.len() as u32).div_ceil(256), 256, s>>>(&mut bins, &dd, data.len() as u32))
    }?;
    if s.clone_dtoh(&bins)? != want {
        return Err("histogram: the bins differ from the host's".into());
    }
    Ok(())
}

/// IEEE half bits of a small non-negative integer-valued `f32` (exact below 2048).
fn f32_to_f16_bits(v: f32) -> u16 {
    if v == 0.0 {
        return 0;
    }
    let bits = v.to_bits();
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let mant = (bits >> 13) & 0x3ff;
    ((exp as u32) << 10 | mant) as u16
}
