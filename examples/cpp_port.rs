//! A small C++ CUDA program ported to chevron as it is: templated kernels, a shared header
//! (`kernels/port_common.cuh`), `float4` loads, `const` inputs, cooperative-groups block
//! reductions, an overloaded kernel and a struct by value, in two files compiled by nvcc to PTX
//! (`kernels/port_rows.cu`, `kernels/port_hist.cu`; `kernels/build.sh` regenerates them).
//!
//! Nothing in the C++ is `extern "C"`: each PTX file is declared whole by one `#[kernels]`
//! module, every kernel typed from the C++ signature its symbol carries (`float4 const*` is
//! `&CudaSlice<Float4>`, `int` is `i32`, `float*` is `&mut`), and two kernels declared by hand
//! in the module's body to take views, checked against the same signatures (`size_t` takes
//! `usize`).
//! Every kernel's result is checked against the same computation on the host.
//!
//! Two of the kernels are declared a second time with `cuda = "…"`: the same C++ source,
//! compiled by NVRTC at run time (its `#include "port_common.cuh"` embedded, `row_sums<256>`
//! instantiated by its name), checked against NVRTC's output with the same C++ rules before the
//! first launch.
//!
//! `cargo run --release --example cpp_port` (`CHEVRON_QUICK=1`: a 64 × 256 matrix instead of
//! 1024 × 4096). Exit code 0 when every check passes, 2 on a machine without a CUDA driver (one
//! `error: …` line), 1 for any other failure.

mod common;

use std::error::Error;
use std::process::ExitCode;

use chevron::cudarc::driver::{CudaSlice, DeviceRepr};
use chevron::vec::Float4;
use chevron::{kernel, kernels, launch};

/// Every kernel of `port_rows.ptx`, declared by `#[kernels]` from the C++ signatures its
/// symbols carry: `row_sums<256>` is `rows::row_sums__256` (`row_sums<128>` is there too),
/// `normalize_rows<256>` the only `normalize_rows`, the `double` overload of `axpy`
/// `rows::axpy__double_p_double_const_p_double_int`. The two declared in the body take views
/// of a buffer (`CudaViewMut`, `CudaView`) instead of the generated `&mut CudaSlice<f32>` and
/// `&CudaSlice<f32>`: a declaration in the body replaces the generated one of its kernel.
#[kernels(ptx = "kernels/port_rows.ptx")]
mod rows {
    use chevron::cudarc::driver::{CudaSlice, CudaView, CudaViewMut};

    /// `affine(float*, Affine, unsigned long)`, on a view: the header's `struct Affine` by
    /// value is the user's `#[repr(C)]` type.
    pub(super) fn affine(x: &mut CudaViewMut<'_, f32>, a: super::Affine, n: usize);

    /// `axpy(float*, float const*, float, int)`, reading a view.
    #[kernel(name = "axpy(float*, const float*, float, int)")]
    pub(super) fn axpy_f32(y: &mut CudaSlice<f32>, x: &CudaView<'_, f32>, a: f32, n: i32);
}

/// The header's `struct Affine { float scale; float bias; }`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Affine {
    scale: f32,
    bias: f32,
}
// SAFETY: `#[repr(C)]`, two `f32`, as the C++ struct.
unsafe impl DeviceRepr for Affine {}

/// Every kernel of `port_hist.ptx`: `histogram(unsigned int*, unsigned long long*, int const*,
/// int, int, int)` and `bin_total<256>(float*, unsigned int const*, int)`.
#[kernels(ptx = "kernels/port_hist.ptx")]
mod hist {}

/// `row_sums<256>` again, from the C++ source through NVRTC.
#[kernel(cuda = "kernels/port_rows.cu", name = "row_sums<256>")]
fn row_sums_nvrtc(sums: &mut CudaSlice<f32>, input: &CudaSlice<Float4>, cols4: i32);

/// `histogram` again, from the C++ source through NVRTC.
#[kernel(cuda = "kernels/port_hist.cu", name = "histogram")]
fn histogram_nvrtc(
    bins: &mut CudaSlice<u32>,
    outside: &mut CudaSlice<u64>,
    values: &CudaSlice<i32>,
    n: i32,
    lo: i32,
    nbins: i32,
);

/// The block size the templates were instantiated for (`__launch_bounds__(256)`).
const BLOCK: u32 = 256;

fn main() -> ExitCode {
    common::exit_code(run())
}

/// The largest relative difference between `got` and `want`.
fn worst_relative(got: impl Iterator<Item = f64>, want: impl Iterator<Item = f64>) -> f64 {
    got.zip(want)
        .map(|(g, w)| (g - w).abs() / w.abs().max(1e-30))
        .fold(0.0, f64::max)
}

fn check(what: &str, worst: f64, tolerance: f64) -> Result<(), Box<dyn Error>> {
    println!("checked: {what}: max relative difference {worst:e} (tolerance {tolerance:e})");
    if worst > tolerance {
        return Err(format!("{what} differs from the host's by {worst:e}").into());
    }
    Ok(())
}

fn run() -> Result<(), Box<dyn Error>> {
    let ctx = chevron::context(0)?;
    let stream = ctx.new_stream()?;
    common::announce_quick();
    println!("device 0: {}", ctx.name()?);

    let rows: usize = common::size(1024, 64);
    let cols: usize = common::size(4096, 256);
    let cols4 = cols / 4;
    let n = rows * cols;
    // Positive, varied values: every row sum differs, none is zero.
    let host: Vec<f32> = (0..n)
        .map(|i| 1.0 + ((i / cols * 7 + i % cols * 13) % 101) as f32 * 0.01)
        .collect();
    let host4: Vec<Float4> = host
        .chunks_exact(4)
        .map(|c| Float4::new(c[0], c[1], c[2], c[3]))
        .collect();
    let input = stream.clone_htod(&host4)?;
    // Poisoned outputs: a kernel that wrote nothing cannot pass.
    let mut sums = stream.clone_htod(&vec![f32::NAN; rows])?;
    let mut out = stream.clone_htod(&vec![Float4::new(f32::NAN, 0.0, 0.0, 0.0); rows * cols4])?;

    let (grid, c4) = (rows as u32, cols4 as i32);
    unsafe { launch!(rows::row_sums__256<<<grid, BLOCK, &stream>>>(&mut sums, &input, c4)) }?;
    unsafe {
        launch!(rows::normalize_rows<<<grid, BLOCK, &stream>>>(&mut out, &input, &sums, c4))
    }?;

    // Row sums, in f64 on the host.
    let want_sums: Vec<f64> = host
        .chunks_exact(cols)
        .map(|r| r.iter().map(|&v| f64::from(v)).sum())
        .collect();
    let got_sums = stream.clone_dtoh(&sums)?;
    check(
        "row_sums<256> (float4 loads, cooperative-groups block sum)",
        worst_relative(
            got_sums.iter().map(|&v| f64::from(v)),
            want_sums.iter().copied(),
        ),
        1e-5,
    )?;
    let mut sums_nvrtc = stream.clone_htod(&vec![f32::NAN; rows])?;
    unsafe { launch!(row_sums_nvrtc<<<grid, BLOCK, &stream>>>(&mut sums_nvrtc, &input, c4)) }?;
    check(
        "row_sums<256> from NVRTC",
        worst_relative(
            stream
                .clone_dtoh(&sums_nvrtc)?
                .iter()
                .map(|&v| f64::from(v)),
            want_sums.iter().copied(),
        ),
        1e-5,
    )?;

    // Each row divided by the GPU's sum (so that this checks the division alone).
    let got_out = stream.clone_dtoh(&out)?;
    let got_flat: Vec<f32> = got_out.iter().flat_map(|v| <[f32; 4]>::from(*v)).collect();
    let want_norm = host
        .iter()
        .enumerate()
        .map(|(i, &v)| f64::from(v) / f64::from(got_sums[i / cols]));
    check(
        "normalize_rows<256> (float4 in, float4 out)",
        worst_relative(got_flat.iter().map(|&v| f64::from(v)), want_norm),
        1e-6,
    )?;

    // The normalized matrix as `n` floats: a view of the `float4` buffer.
    let a = Affine {
        scale: 3.0,
        bias: 0.25,
    };
    {
        // SAFETY: `Float4` is four `f32`s: `rows × cols4` of them are `n` floats.
        let mut flat = unsafe { out.transmute_mut::<f32>(n) }.ok_or("a view of n floats")?;
        unsafe {
            launch!(rows::affine<<<n.div_ceil(256) as u32, 256, &stream>>>(&mut flat, a, n))
        }?;
    }
    let got_affine: Vec<f32> = stream
        .clone_dtoh(&out)?
        .iter()
        .flat_map(|v| <[f32; 4]>::from(*v))
        .collect();
    let want_affine = got_flat
        .iter()
        .map(|&v| f64::from(a.scale) * f64::from(v) + f64::from(a.bias));
    check(
        "affine (struct Affine by value, size_t n)",
        worst_relative(got_affine.iter().map(|&v| f64::from(v)), want_affine),
        1e-6,
    )?;

    // axpy, both overloads: y = 1.5·x + y.
    let y_host: Vec<f32> = (0..n).map(|i| (i % 17) as f32 - 8.5).collect();
    let mut y = stream.clone_htod(&y_host)?;
    let (ni, blocks) = (n as i32, n.div_ceil(256) as u32);
    {
        // SAFETY: as above, read-only.
        let x = unsafe { out.transmute::<f32>(n) }.ok_or("a view of n floats")?;
        unsafe { launch!(rows::axpy_f32<<<blocks, 256, &stream>>>(&mut y, &x, 1.5f32, ni)) }?;
    }
    let want_y = got_affine
        .iter()
        .zip(&y_host)
        .map(|(&x, &y)| 1.5 * f64::from(x) + f64::from(y));
    let got_y = stream.clone_dtoh(&y)?;
    check(
        "axpy(float*, float const*, float, int)",
        worst_relative(got_y.iter().map(|&v| f64::from(v)), want_y),
        1e-6,
    )?;
    let x64: Vec<f64> = (0..n).map(|i| (i % 29) as f64 * 0.125).collect();
    let y64_host: Vec<f64> = (0..n).map(|i| 1.0 + (i % 31) as f64).collect();
    let x64_dev = stream.clone_htod(&x64)?;
    let mut y64 = stream.clone_htod(&y64_host)?;
    unsafe {
        launch!(rows::axpy__double_p_double_const_p_double_int<<<blocks, 256, &stream>>>(&mut y64, &x64_dev, -2.0f64, ni))
    }?;
    let got64 = stream.clone_dtoh(&y64)?;
    check(
        "axpy(double*, double const*, double, int)",
        worst_relative(
            got64.iter().copied(),
            x64.iter().zip(&y64_host).map(|(x, y)| -2.0 * x + y),
        ),
        1e-15,
    )?;

    // A histogram of signed values into unsigned bins, and the bins' total.
    let (lo, nbins) = (-20i32, 100i32);
    let values: Vec<i32> = (0..n as i64)
        .map(|i| ((i * 37 + i / 7) % 200 - 50) as i32)
        .collect();
    let dev_values = stream.clone_htod(&values)?;
    let mut bins = stream.alloc_zeros::<u32>(nbins as usize)?;
    let mut outside = stream.alloc_zeros::<u64>(1)?;
    unsafe {
        launch!(hist::histogram<<<blocks, 256, &stream>>>(&mut bins, &mut outside, &dev_values, ni, lo, nbins))
    }?;
    let mut want_bins = vec![0u32; nbins as usize];
    let mut want_outside = 0u64;
    for &v in &values {
        match usize::try_from(v - lo) {
            Ok(b) if b < nbins as usize => want_bins[b] += 1,
            _ => want_outside += 1,
        }
    }
    let (got_bins, got_outside) = (stream.clone_dtoh(&bins)?, stream.clone_dtoh(&outside)?);
    println!(
        "checked: histogram: {} bins equal the host's ({} values, {} outside [{lo}, {}))",
        nbins,
        n,
        got_outside[0],
        lo + nbins
    );
    if got_bins != want_bins || got_outside[0] != want_outside {
        return Err(format!(
            "the histogram differs from the host's (outside: {} vs {want_outside})",
            got_outside[0]
        )
        .into());
    }
    let mut bins_nvrtc = stream.alloc_zeros::<u32>(nbins as usize)?;
    let mut outside_nvrtc = stream.alloc_zeros::<u64>(1)?;
    unsafe {
        launch!(histogram_nvrtc<<<blocks, 256, &stream>>>(
            &mut bins_nvrtc, &mut outside_nvrtc, &dev_values, ni, lo, nbins
        ))
    }?;
    let got_outside_nvrtc = stream.clone_dtoh(&outside_nvrtc)?[0];
    if stream.clone_dtoh(&bins_nvrtc)? != want_bins || got_outside_nvrtc != want_outside {
        return Err(format!(
            "NVRTC's histogram differs from the host's (outside: {got_outside_nvrtc} vs \
             {want_outside})"
        )
        .into());
    }
    println!("checked: histogram from NVRTC: {nbins} bins equal the host's");
    let mut total = stream.clone_htod(&[f32::NAN])?;
    unsafe { launch!(hist::bin_total<<<1, BLOCK, &stream>>>(&mut total, &bins, nbins)) }?;
    let got_total = stream.clone_dtoh(&total)?[0];
    let want_total = (n as u64 - want_outside) as f32;
    println!("checked: bin_total<256>: {got_total} values in bins (host: {want_total})");
    if got_total != want_total {
        return Err(format!("bin_total gave {got_total}, the host {want_total}").into());
    }
    Ok(())
}
