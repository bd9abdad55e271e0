//! `#[kernel]` parameters whose types are spelled through aliases, `std::primitive`/`core::primitive`
//! paths, renamed imports and an alias of a whole reference type: rustc resolves them, and each
//! argument must reach the kernel as the PTX expects it. Launched on a real GPU and checked
//! against a host reference; outputs are poisoned first.
//!
//! Run on a machine with a CUDA GPU: `cargo test --test param_types_gpu -- --include-ignored`.

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::CudaSlice as DeviceBuffer;
use chevron::cudarc::driver::{CudaSlice, DeviceRepr};
use chevron::{kernel, launch, LaunchConfig};

type TestResult = Result<(), Box<dyn std::error::Error>>;

type Count = u32;
type Scale = f32;
type DevBuf = CudaSlice<f32>;

/// y = a·x + y, every parameter type spelled through an alias or a renamed import.
#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: Count, a: Scale, x: &DevBuf, y: &mut DeviceBuffer<f32>);

mod types {
    pub type Wide = i64;
    pub type Double = f64;
    pub type Flag = bool;
    /// A whole reference type behind an alias: passed as the device buffer it is.
    pub type Out<'a> = &'a mut chevron::cudarc::driver::CudaSlice<Double>;
}

/// One parameter of every scalar type, through paths and aliases (kernels/params.cu).
#[kernel(ptx = "kernels/params.ptx")]
fn all_types(
    a: std::primitive::u8,
    b: core::primitive::i8,
    c: ::core::primitive::u16,
    d: i16,
    e: Count,
    f: std::primitive::i32,
    g: std::primitive::u64,
    h: types::Wide,
    i: Scale,
    j: types::Double,
    k: types::Flag,
    out: types::Out<'_>,
);

/// Mirrors `struct Affine` in kernels/structs.cu.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
struct Affine {
    scale: f32,
    offset: i32,
    bias: f64,
}

// SAFETY: `#[repr(C)]` plain numbers, laid out as the CUDA struct (16 bytes, align 8).
unsafe impl DeviceRepr for Affine {}

type Params = Affine;

#[kernel(ptx = "kernels/structs.ptx")]
fn affine(p: Params, x: &DevBuf, y: &mut DevBuf, n: Count);

const POISON: f32 = -12345.5;

fn inputs(n: usize, seed: u32) -> Vec<f32> {
    (0..n)
        .map(|i| ((i as u32).wrapping_mul(2_654_435_761) ^ seed) as f32 / u32::MAX as f32 - 0.5)
        .collect()
}

fn assert_close(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let tol = 1e-5 * w.abs().max(1.0);
        assert!((g - w).abs() <= tol, "{what}[{i}]: got {g}, want {w}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn aliased_saxpy_matches_the_host() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let n: Count = (1 << 16) + 5;
    let a: Scale = 2.0; // as `unsigned int`, this would arrive as 0x40000000
    let (x, y0) = (inputs(n as usize, 1), inputs(n as usize, 2));
    let mut y_host = y0.clone();
    y_host.push(POISON); // one past `n`: the kernel must leave it
    let x_dev: DevBuf = stream.clone_htod(&x)?;
    let mut y_dev = stream.clone_htod(&y_host)?;
    let cfg = LaunchConfig::new(n.div_ceil(256), 256);
    unsafe { saxpy::kernel().launch(&stream, &cfg, (n, a, &x_dev, &mut y_dev)) }?;
    let once: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| a.mul_add(*x, *y)).collect();
    let got = stream.clone_dtoh(&y_dev)?;
    assert_close(&got[..n as usize], &once, "y");
    assert_eq!(got[n as usize], POISON, "saxpy wrote past n");

    // Through `launch!` too, with another scale.
    let b: Scale = -0.75;
    unsafe { launch!(saxpy<<<n.div_ceil(128), 128, &stream>>>(n, b, &x_dev, &mut y_dev)) }?;
    let twice: Vec<f32> = x
        .iter()
        .zip(&once)
        .map(|(x, y)| b.mul_add(*x, *y))
        .collect();
    let got = stream.clone_dtoh(&y_dev)?;
    assert_close(&got[..n as usize], &twice, "y after launch!");
    assert_eq!(got[n as usize], POISON, "launch! wrote past n");
    println!("aliased saxpy: n = {n}, a = {a} then {b}: matches the host");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn path_qualified_scalars_arrive_intact() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let cfg = LaunchConfig::new(1, 32);
    let (a, b, c, d, e, f) = (201u8, -99i8, 65_000u16, -32_000i16, 4_000_000_001u32, -7i32);
    let (g, h, i, j, k) = ((1u64 << 53) - 3, -(1i64 << 51), 3.25f32, -1.0e-300f64, true);
    let mut out = stream.clone_htod(&[-777.0f64; 12])?;
    unsafe {
        all_types::kernel().launch(&stream, &cfg, (a, b, c, d, e, f, g, h, i, j, k, &mut out))
    }?;
    let got = stream.clone_dtoh(&out)?;
    let want = [
        f64::from(a),
        f64::from(b),
        f64::from(c),
        f64::from(d),
        f64::from(e),
        f64::from(f),
        g as f64,
        h as f64,
        f64::from(i),
        j,
        1.0,
        -777.0, // not written by the kernel
    ];
    assert_eq!(got, want);
    println!("path-qualified scalars: {got:?}");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn aliased_struct_arrives_by_value() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let n: Count = 4099;
    let x = inputs(n as usize, 3);
    let p: Params = Affine {
        scale: -1.5,
        offset: 40,
        bias: 0.0625,
    };
    let x_dev = stream.clone_htod(&x)?;
    let mut y_dev = stream.clone_htod(&vec![POISON; n as usize])?;
    let cfg = LaunchConfig::new(n.div_ceil(128), 128);
    unsafe { affine::kernel().launch(&stream, &cfg, (p, &x_dev, &mut y_dev, n)) }?;
    let got = stream.clone_dtoh(&y_dev)?;
    let want: Vec<f32> = x
        .iter()
        .map(|x| (f64::from(x * p.scale) + f64::from(p.offset) + p.bias) as f32)
        .collect();
    assert_close(&got, &want, "affine");
    println!("aliased struct: {n} elements match the host");
    Ok(())
}
