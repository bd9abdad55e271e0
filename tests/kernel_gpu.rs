//! `#[kernel]` on a real GPU: each declaration is launched through `KERNEL::kernel().launch` and
//! checked against a host reference. Outputs are poisoned first, so a launch that does nothing
//! fails.
//!
//! Run on a machine with a CUDA GPU: `cargo test --test kernel_gpu -- --include-ignored`.
//! The module sources are embedded by the macro (`include_str!`), so the binary runs anywhere.

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::Arc;

use chevron::cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, CudaView, CudaViewMut, DeviceRepr,
};
use chevron::{kernel, Error, LaunchConfig};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// y = a·x + y
#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
fn saxpy_views(n: u32, a: f32, x: &CudaView<'_, f32>, y: &mut CudaViewMut<'_, f32>);

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

#[kernel(ptx = "kernels/structs.ptx")]
fn affine(p: Affine, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>, n: u32);

#[kernel(ptx = "kernels/pipeline.ptx")]
fn produce(buf: &mut CudaSlice<f32>, v: f32, n: u32, spin: u32);

#[kernel(ptx = "kernels/pipeline.ptx")]
fn consume(input: &CudaSlice<f32>, out: &mut CudaSlice<f32>, n: u32);

#[allow(deprecated)] // without nvcc: checked at run time (a warning otherwise)
#[kernel(cuda = "kernels/histogram.cu")]
fn histogram(bins: &mut CudaSlice<u32>, data: &CudaView<'_, u8>, len: u32);

// Declared wrong on purpose: `len` is 32-bit in the CUDA source, which NVRTC's output shows.
// `-default-device` (NVRTC's alone) keeps the compile-time nvcc from refusing it first.
#[allow(deprecated)] // checked at run time (the warning says why)
#[kernel(cuda = "kernels/histogram.cu", name = "histogram", options = ["-default-device"])]
fn histogram_wrong(bins: &mut CudaSlice<u32>, data: &CudaView<'_, u8>, len: u64);

#[allow(deprecated)] // without nvcc: checked at run time (a warning otherwise)
#[kernel(cuda = "ui-tests/fixtures/kernel_broken.cu")]
fn broken(out: &mut CudaSlice<f32>);

// A C++ kernel found by its plain name (`_Z10offset_addPffj`).
#[kernel(ptx = "kernels/templates.ptx")]
fn offset_add(y: &mut CudaSlice<f32>, v: f32, n: u32);

#[kernel(ptx = "kernels/templates.ptx", name = "_Z4gemmILi128EEvPKfS1_Pfiii")]
fn gemm128(a: &CudaSlice<f32>, b: &CudaSlice<f32>, c: &mut CudaSlice<f32>, m: i32, n: i32, k: i32);

#[kernel(ptx = "kernels/params.ptx")]
fn all_types(
    a: u8,
    b: i8,
    c: u16,
    d: i16,
    e: u32,
    f: i32,
    g: u64,
    h: i64,
    i: f32,
    j: f64,
    k: bool,
    out: &mut CudaSlice<f64>,
);

// Parameters named like the expansion's own locals, items and parameters: each must still reach
// its own slot (parameter 0 once received `x`'s device pointer here).
#[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
fn saxpy_named_like_locals(
    __chevron_ptr_2: u32,
    a: f32,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
);

#[allow(non_snake_case)]
#[kernel(ptx = "kernels/params.ptx", name = "all_types")]
fn all_types_named_like_locals(
    __chevron_ptr_11: u8,
    launch: i8,
    stream: u16,
    __chevron_stream: i16,
    config: u32,
    __chevron_config: i32,
    function: u64,
    __CHEVRON_KERNEL: i64,
    __chevron_func: f32,
    __chevron_params: f64,
    all_types_named_like_locals: bool,
    __chevron_sync_11: &mut CudaSlice<f64>,
);

/// The PTX entry `match`, declared under its raw identifier.
#[kernel(ptx = "kernels/raw_names.ptx")]
fn r#match(n: u32, y: &mut CudaSlice<f32>);

#[kernel(ptx = "kernels/bigshared.ptx")]
fn bigshared(input: &CudaSlice<u32>, out: &mut CudaSlice<u32>, words: u32);

const POISON: f32 = -12345.5;

/// A small LCG, so the data is "random" but the same on every run.
struct Lcg(u64);

impl Lcg {
    fn next_u32(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }

    /// Uniform in [-1, 1).
    fn next_f32(&mut self) -> f32 {
        (self.next_u32() as f32 / (1u64 << 31) as f32) * 2.0 - 1.0
    }

    fn floats(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.next_f32()).collect()
    }
}

fn setup() -> Result<(Arc<CudaContext>, Arc<CudaStream>), Error> {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream().map_err(|source| Error::Driver {
        call: "cuStreamCreate",
        kernel: Default::default(),
        attributes: String::new(),
        source,
    })?;
    Ok((ctx, stream))
}

fn blocks(n: usize, block: u32) -> u32 {
    (n as u32).div_ceil(block)
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
fn saxpy_matches_the_host() -> TestResult {
    let (_ctx, stream) = setup()?;
    let n = (1 << 20) + 3; // not a multiple of the block
    let mut rng = Lcg(7);
    let (x, y0) = (rng.floats(n), rng.floats(n));
    let a = 1.0 + rng.next_f32();
    // One more element than the kernel may touch: it must keep its poison.
    let mut y_host = y0.clone();
    y_host.push(POISON);
    let x_dev = stream.clone_htod(&x)?;
    let mut y_dev = stream.clone_htod(&y_host)?;
    let cfg = LaunchConfig::new(blocks(n, 256), 256);
    unsafe { saxpy::kernel().launch(&stream, &cfg, (n as u32, a, &x_dev, &mut y_dev)) }?;
    let got = stream.clone_dtoh(&y_dev)?;
    // The kernel computes `a * x + y` as one fused multiply-add.
    let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| a.mul_add(*x, *y)).collect();
    assert_close(&got[..n], &want, "y");
    assert_eq!(got[n], POISON, "saxpy wrote past n");

    // The config is a plain value: launching it again accumulates once more.
    unsafe { saxpy::kernel().launch(&stream, &cfg, (n as u32, a, &x_dev, &mut y_dev)) }?;
    let twice = stream.clone_dtoh(&y_dev)?;
    let want2: Vec<f32> = x
        .iter()
        .zip(&want)
        .map(|(x, y)| a.mul_add(*x, *y))
        .collect();
    assert_close(&twice[..n], &want2, "y after two launches");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn struct_argument_arrives_by_value() -> TestResult {
    let (_ctx, stream) = setup()?;
    let n = 5000;
    let mut rng = Lcg(11);
    let x = rng.floats(n);
    let p = Affine {
        scale: 2.5 + rng.next_f32(),
        offset: -17,
        bias: 0.125 + f64::from(rng.next_f32()),
    };
    let x_dev = stream.clone_htod(&x)?;
    let mut y_dev = stream.clone_htod(&vec![POISON; n])?;
    let cfg = LaunchConfig::new(blocks(n, 128), 128);
    unsafe { affine::kernel().launch(&stream, &cfg, (p, &x_dev, &mut y_dev, n as u32)) }?;
    let got = stream.clone_dtoh(&y_dev)?;
    let want: Vec<f32> = x
        .iter()
        .map(|x| (f64::from(x * p.scale) + f64::from(p.offset) + p.bias) as f32)
        .collect();
    assert_close(&got, &want, "affine");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn views_into_a_larger_buffer() -> TestResult {
    let (_ctx, stream) = setup()?;
    let (n, off) = (3000, 1000);
    let mut rng = Lcg(3);
    let x = rng.floats(3 * n);
    let y0: Vec<f32> = (0..3 * n)
        .map(|i| {
            if (off..off + n).contains(&i) {
                rng.next_f32()
            } else {
                POISON
            }
        })
        .collect();
    let a = -0.75;
    let x_dev = stream.clone_htod(&x)?;
    let mut y_dev = stream.clone_htod(&y0)?;
    {
        let x_view = x_dev.slice(off + 7..off + 7 + n);
        let mut y_view = y_dev.slice_mut(off..off + n);
        let cfg = LaunchConfig::new(blocks(n, 256), 256);
        unsafe {
            saxpy_views::kernel().launch(&stream, &cfg, (n as u32, a, &x_view, &mut y_view))
        }?;
    }
    let got = stream.clone_dtoh(&y_dev)?;
    for (i, g) in got.iter().enumerate() {
        if (off..off + n).contains(&i) {
            let want = a.mul_add(x[i + 7], y0[i]);
            assert!((g - want).abs() <= 1e-5, "y[{i}]: got {g}, want {want}");
        } else {
            assert_eq!(*g, POISON, "y[{i}] outside the view was written");
        }
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn producer_and_consumer_on_two_streams_are_ordered_by_cudarc_events() -> TestResult {
    let (ctx, a) = setup()?;
    let b = ctx.new_stream()?;
    let n = 1 << 16;
    let v = 3.25f32;
    let mut buf = a.clone_htod(&vec![POISON; n])?;
    let mut out = b.clone_htod(&vec![POISON; n])?;
    let cfg = LaunchConfig::new(blocks(n, 256), 256);
    // ~20 ms of spinning per thread before `produce` writes: `consume` on stream B would read
    // the poison unless it waits for the event cudarc records for `buf` on stream A.
    unsafe { produce::kernel().launch(&a, &cfg, (&mut buf, v, n as u32, 40_000)) }?;
    unsafe { consume::kernel().launch(&b, &cfg, (&buf, &mut out, n as u32)) }?;
    // Only stream B is synchronized (by the copy).
    let got = b.clone_dtoh(&out)?;
    for (i, g) in got.iter().enumerate() {
        let want = (v + i as f32) * 2.0;
        assert_eq!(*g, want, "out[{i}]");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_source_compiled_by_nvrtc() -> TestResult {
    let (_ctx, stream) = setup()?;
    let len = 100_003;
    let mut rng = Lcg(5);
    // Skewed bytes, so the bins differ from each other.
    let data: Vec<u8> = (0..len)
        .map(|_| (rng.next_u32() % 256).min(rng.next_u32() % 256) as u8)
        .collect();
    let mut want = vec![0u32; 256];
    for d in &data {
        want[*d as usize] += 1;
    }
    let data_dev = stream.clone_htod(&data)?;
    // Bins start at zero by definition of a histogram; the check is against the host counts.
    let mut bins = stream.alloc_zeros::<u32>(256)?;
    let cfg = LaunchConfig::new(blocks(len, 256), 256);
    unsafe {
        histogram::kernel().launch(&stream, &cfg, (&mut bins, &data_dev.slice(..), len as u32))
    }?;
    assert_eq!(stream.clone_dtoh(&bins)?, want);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn nvrtc_output_that_does_not_match_the_declaration_is_a_typed_error() -> TestResult {
    let (_ctx, stream) = setup()?;
    let data = stream.clone_htod(&[1u8, 2, 3])?;
    let mut bins = stream.clone_htod(&vec![7u32; 256])?;
    let cfg = LaunchConfig::new(1, 32);
    match unsafe {
        histogram_wrong::kernel().launch(&stream, &cfg, (&mut bins, &data.slice(..), 3))
    } {
        Err(Error::Signature { message, .. }) => {
            assert!(message.contains("`len: u64`"), "{message}");
        }
        other => panic!("expected a signature error, got {other:?}"),
    }
    // Nothing was launched.
    assert_eq!(stream.clone_dtoh(&bins)?, vec![7u32; 256]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn nvrtc_compile_failure_carries_the_log() -> TestResult {
    let (ctx, _stream) = setup()?;
    match broken::kernel().function(&ctx) {
        Err(Error::Compile { log, kernel }) => {
            assert_eq!(kernel, chevron::KernelName(Some("broken")));
            assert!(log.contains("undefined_identifier"), "{log}");
        }
        other => panic!("expected a compile error, got {other:?}"),
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn mangled_kernels() -> TestResult {
    let (_ctx, stream) = setup()?;
    let mut rng = Lcg(17);

    let n = 4097;
    let y0 = rng.floats(n);
    let mut y = stream.clone_htod(&y0)?;
    let cfg = LaunchConfig::new(blocks(n, 128), 128);
    unsafe { offset_add::kernel().launch(&stream, &cfg, (&mut y, 0.5, n as u32)) }?;
    let want: Vec<f32> = y0.iter().map(|y| y + 0.5).collect();
    assert_eq!(stream.clone_dtoh(&y)?, want);

    let (m, nn, k) = (37usize, 29usize, 41usize);
    let (a, b) = (rng.floats(m * k), rng.floats(k * nn));
    let a_dev = stream.clone_htod(&a)?;
    let b_dev = stream.clone_htod(&b)?;
    let mut c_dev = stream.clone_htod(&vec![POISON; m * nn])?;
    let cfg = LaunchConfig::new((blocks(nn, 16), blocks(m, 16)), (16, 16));
    unsafe {
        gemm128::kernel().launch(
            &stream,
            &cfg,
            (&a_dev, &b_dev, &mut c_dev, m as i32, nn as i32, k as i32),
        )
    }?;
    let got = stream.clone_dtoh(&c_dev)?;
    for row in 0..m {
        for col in 0..nn {
            let want: f32 = (0..k).map(|p| a[row * k + p] * b[p * nn + col]).sum();
            let g = got[row * nn + col];
            assert!(
                (g - want).abs() <= 1e-4,
                "c[{row}][{col}]: got {g}, want {want}"
            );
        }
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_scalar_type_arrives_intact() -> TestResult {
    let (_ctx, stream) = setup()?;
    let cfg = LaunchConfig::new(1, 32);
    type Values = (u8, i8, u16, i16, u32, i32, u64, i64, f32, f64, bool);
    let sets: [Values; 2] = [
        (
            200,
            -100,
            60_000,
            -30_000,
            4_000_000_000,
            -2_000_000_000,
            (1 << 53) - 1,
            -(1 << 52) - 1,
            1.5e-3,
            -2.25e100,
            true,
        ),
        (
            7,
            99,
            1,
            32_000,
            3,
            2_100_000_000,
            1 << 40,
            12_345,
            -65504.0,
            0.1,
            false,
        ),
    ];
    for (a, b, c, d, e, f, g, h, i, j, k) in sets {
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
            if k { 1.0 } else { 0.0 },
            -777.0, // not written by the kernel
        ];
        assert_eq!(got, want);
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn parameters_named_like_generated_code_reach_their_place() -> TestResult {
    let (_ctx, stream) = setup()?;
    let n = 1000;
    let mut rng = Lcg(11);
    let (x, y0) = (rng.floats(n), rng.floats(n));
    let a = 0.75f32;
    let mut y_host = y0.clone();
    y_host.push(POISON);
    let x_dev = stream.clone_htod(&x)?;
    let mut y_dev = stream.clone_htod(&y_host)?;
    // `n` is the parameter named `__chevron_ptr_2`: a device pointer in its place would make the
    // kernel run far past `n` (and `y`'s poisoned tail would change).
    let cfg = LaunchConfig::new(blocks(n, 128) + 8, 128);
    unsafe {
        saxpy_named_like_locals::kernel().launch(&stream, &cfg, (n as u32, a, &x_dev, &mut y_dev))
    }?;
    let got = stream.clone_dtoh(&y_dev)?;
    let want: Vec<f32> = x.iter().zip(&y0).map(|(x, y)| a.mul_add(*x, *y)).collect();
    assert_close(&got[..n], &want, "y");
    assert_eq!(got[n], POISON, "wrote past n: n did not arrive");

    let cfg = LaunchConfig::new(1, 32);
    let mut out = stream.clone_htod(&[-777.0f64; 12])?;
    unsafe {
        all_types_named_like_locals::kernel().launch(
            &stream,
            &cfg,
            (
                201,
                -99,
                60_001,
                -30_001,
                4_000_000_001,
                -2_000_000_001,
                (1 << 52) + 5,
                -(1 << 51) - 3,
                -1.25e-3,
                3.5e200,
                true,
                &mut out,
            ),
        )
    }?;
    let got = stream.clone_dtoh(&out)?;
    let want = [
        201.0,
        -99.0,
        60_001.0,
        -30_001.0,
        4_000_000_001.0,
        -2_000_000_001.0,
        ((1u64 << 52) + 5) as f64,
        (-(1i64 << 51) - 3) as f64,
        f64::from(-1.25e-3f32),
        3.5e200,
        1.0,
        -777.0, // not written by the kernel
    ];
    assert_eq!(got, want);
    Ok(())
}

/// Runs everywhere: without a driver, the path to a kernel's function is `Error::NoDriver`
/// (cudarc would panic); with one, it loads.
#[test]
fn no_driver_is_a_typed_error() {
    let function = chevron::context(0).and_then(|ctx| saxpy::kernel().function(&ctx));
    if chevron::driver_present() {
        assert!(function.is_ok(), "{function:?}");
    } else {
        assert!(matches!(function, Err(Error::NoDriver)), "{function:?}");
    }
}

/// What `bigshared` writes for `block` and thread `t`: the sum of the words it reads back.
fn bigshared_host(input: &[u32], block: u32, threads: u32, t: u32) -> u32 {
    let words = input.len() as u32;
    (t..words)
        .step_by(threads as usize)
        .map(|i| {
            input[(words - 1 - i) as usize]
                .wrapping_mul(2)
                .wrapping_add(block)
        })
        .fold(0u32, u32::wrapping_add)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn dynamic_shared_memory_over_48_kib_is_opted_into_at_the_first_launch() -> TestResult {
    let (_ctx, s) = setup()?;
    let (grid, threads) = (4u32, 256u32);
    // 100 KiB, then less (the opt-in already covers it), then 100 KiB again.
    for bytes in [100 * 1024u32, 64 * 1024, 100 * 1024] {
        let words = bytes / 4;
        let mut lcg = Lcg(u64::from(bytes));
        let input: Vec<u32> = (0..words).map(|_| lcg.next_u32()).collect();
        let input_dev = s.clone_htod(&input)?;
        let mut out = s.clone_htod(&vec![0xDEAD_BEEFu32; (grid * threads) as usize])?;
        let cfg = LaunchConfig::new(grid, threads).shared(bytes);
        // SAFETY: `words` words of shared memory are `bytes`; `out` has one word per thread.
        unsafe { bigshared::kernel().launch(&s, &cfg, (&input_dev, &mut out, words)) }?;
        let got = s.clone_dtoh(&out)?;
        s.synchronize()?;
        for b in 0..grid {
            for t in 0..threads {
                let want = bigshared_host(&input, b, threads, t);
                assert_eq!(
                    got[(b * threads + t) as usize],
                    want,
                    "block {b} thread {t}"
                );
            }
        }
        println!(
            "bigshared with {bytes} bytes of dynamic shared memory: ok, {} threads checked",
            grid * threads
        );
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn shared_memory_over_the_device_limit_is_refused_with_the_numbers() -> TestResult {
    use chevron::cudarc::driver::sys::CUdevice_attribute;
    let (ctx, s) = setup()?;
    let limit = ctx
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?
        as u32;
    let input = s.clone_htod(&vec![1u32; 16])?;
    let mut out = s.clone_htod(&vec![0xDEAD_BEEFu32; 32])?;
    let too_much = limit + 1;
    let cfg = LaunchConfig::new(1, 32).shared(too_much);
    // SAFETY: refused before launching.
    let r = unsafe { bigshared::kernel().launch(&s, &cfg, (&input, &mut out, 16)) };
    match r {
        Err(e @ Error::SharedMemoryTooLarge { .. }) => {
            let text = e.to_string();
            println!("{text}");
            assert!(text.contains(&too_much.to_string()), "{text}");
            assert!(text.contains(&limit.to_string()), "{text}");
            let Error::SharedMemoryTooLarge {
                kernel,
                static_bytes,
                dynamic_bytes,
                limit: reported,
            } = e
            else {
                unreachable!()
            };
            assert_eq!(kernel, chevron::KernelName(Some("bigshared")));
            assert_eq!(dynamic_bytes, too_much);
            assert_eq!(reported, limit);
            assert_eq!(static_bytes, 0, "bigshared has no static shared memory");
        }
        other => panic!("expected SharedMemoryTooLarge for {too_much} bytes, got {other:?}"),
    }
    // Nothing ran.
    s.synchronize()?;
    assert_eq!(s.clone_dtoh(&out)?, vec![0xDEAD_BEEFu32; 32]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn dyn_launches_are_checked_against_the_kernels_parameters() -> TestResult {
    use chevron::cudarc::nvrtc::Ptx;
    use chevron::launch;
    let (ctx, s) = setup()?;
    let module = ctx.load_module(Ptx::from_src(include_str!("../kernels/saxpy.ptx")))?;
    let f = module.load_function("saxpy")?;
    let n = 1000u32;
    let mut lcg = Lcg(3);
    let x_host: Vec<f32> = (0..n).map(|_| lcg.next_f32()).collect();
    let x = s.clone_htod(&x_host)?;
    let mut y = s.clone_htod(&vec![POISON; n as usize])?;

    // One argument short: refused, nothing launched.
    let r = unsafe { launch!(dyn f<<<4, 256, &s>>>(&n, &2.0f32, &x)) };
    match r {
        Err(Error::Signature { message, .. }) => {
            println!("dyn launch with 3 arguments: {message}");
            assert!(message.contains("takes 4 parameters"), "{message}");
            assert!(message.contains("passes 3 arguments"), "{message}");
        }
        other => panic!("expected Error::Signature, got {other:?}"),
    }
    // A u64 where the kernel takes a u32: refused.
    let r = unsafe { launch!(dyn f<<<4, 256, &s>>>(&u64::from(n), &2.0f32, &x, &mut y)) };
    match r {
        Err(Error::Signature { message, .. }) => {
            println!("dyn launch with a u64 for a u32: {message}");
            assert!(message.contains("argument 1"), "{message}");
            assert!(message.contains("8 bytes"), "{message}");
            assert!(message.contains("is 4 bytes"), "{message}");
        }
        other => panic!("expected Error::Signature, got {other:?}"),
    }
    s.synchronize()?;
    assert!(
        s.clone_dtoh(&y)?.iter().all(|v| *v == POISON),
        "nothing ran"
    );

    // The right arguments launch (the check is cached now) and compute y = 2·x + y.
    let mut y = s.clone_htod(&vec![1.0f32; n as usize])?;
    for _ in 0..2 {
        unsafe { launch!(dyn f<<<4, 256, &s>>>(&n, &2.0f32, &x, &mut y)) }?;
    }
    let got = s.clone_dtoh(&y)?;
    s.synchronize()?;
    let want: Vec<f32> = x_host.iter().map(|x| 2.0 * x + (2.0 * x + 1.0)).collect();
    assert_close(&got, &want, "saxpy twice through dyn");
    println!("dyn saxpy with the right arguments: ok, {n} values checked");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_kernel_named_like_a_keyword_launches_its_entry() -> TestResult {
    let (_ctx, stream) = setup()?;
    let n: u32 = 1_000;
    let host: Vec<f32> = (0..n + 24).map(|i| i as f32 * 0.25 - 3.0).collect();
    let mut y = stream.clone_htod(&host)?;
    // SAFETY: blocks of 128 cover n; the kernel checks `i < n`, the 24 past n stay as they are.
    unsafe { chevron::launch!(r#match<<<blocks(n as usize, 128), 128, &stream>>>(n, &mut y)) }?;
    let out = stream.clone_dtoh(&y)?;
    stream.synchronize()?;
    for (i, (got, was)) in out.iter().zip(&host).enumerate() {
        let want = if i < n as usize { 2.0 * was } else { *was };
        assert_eq!(*got, want, "y[{i}]");
    }
    Ok(())
}
