//! One declaration over several compiled variants on a real GPU: the variant loaded is the one
//! whose `.target` is the newest the device runs and whose `.version` the driver knows; code
//! for a newer GPU only, or of a PTX ISA newer than the driver, is refused with a message that
//! names both sides and the fix. The variants are kernels/variants/saxpy_*.ptx
//! (kernels/build.sh): sm_75 (ISA 8.0), sm_90 (ISA 8.0), sm_100 (ISA 8.6), and the sm_90 one
//! claiming ISA 9.1 (CUDA 13.1).
//!
//! `cargo test --test variants_gpu -- --ignored`. The expectations follow the device's compute
//! capability and the driver's version, so the test holds on any GPU.

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::Arc;

use chevron::cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use chevron::{kernel, launch, Error, Kernel};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[kernel(ptx = [
    "kernels/variants/saxpy_sm75.ptx",
    "kernels/variants/saxpy_sm90.ptx",
    "kernels/variants/saxpy_sm100.ptx",
])]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

// Declared by hand: the macro refuses ISA 9.1 under the default feature (cuda-13000), whose
// drivers cannot compile it.
static ISA91: Kernel = Kernel::ptx(
    "saxpy_isa91",
    "saxpy",
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/kernels/variants/saxpy_isa91.ptx"
    ),
    include_str!("../kernels/variants/saxpy_isa91.ptx"),
);

static SM100_ONLY: Kernel = Kernel::ptx(
    "saxpy_sm100",
    "saxpy",
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/kernels/variants/saxpy_sm100.ptx"
    ),
    include_str!("../kernels/variants/saxpy_sm100.ptx"),
);

static ISA91_OR_SM75: Kernel = Kernel::ptx_variants(
    "saxpy_isa91_or_sm75",
    "saxpy",
    &[
        chevron::PtxVariant {
            path: concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/kernels/variants/saxpy_isa91.ptx"
            ),
            text: include_str!("../kernels/variants/saxpy_isa91.ptx"),
            info: &chevron::KernelInfo::UNKNOWN,
        },
        // The path only keys the module: its own, so that other tests' loads of this file
        // do not count here.
        chevron::PtxVariant {
            path: concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/kernels/variants/saxpy_sm75.ptx?isa91"
            ),
            text: include_str!("../kernels/variants/saxpy_sm75.ptx"),
            info: &chevron::KernelInfo::UNKNOWN,
        },
    ],
);

fn setup() -> Result<(Arc<CudaContext>, Arc<CudaStream>), Error> {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    Ok((ctx, stream))
}

/// The driver's CUDA version, `(major, minor)`.
fn driver() -> (i32, i32) {
    let mut v = 0;
    // SAFETY: one out-parameter; `setup` loaded the driver.
    let rc = unsafe { chevron::sys::cuDriverGetVersion(&mut v) };
    assert_eq!(rc, chevron::sys::cudaError_enum::CUDA_SUCCESS);
    (v / 1000, (v % 1000) / 10)
}

fn run_saxpy(s: &Arc<CudaStream>) -> TestResult {
    let n = 10_001u32;
    let x: Vec<f32> = (0..n).map(|i| (i % 100) as f32 * 0.5).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let xd = s.clone_htod(&x)?;
    let mut yd = s.clone_htod(&y)?;
    unsafe { launch!(saxpy<<<n.div_ceil(256), 256, s>>>(n, 2.0, &xd, &mut yd)) }?;
    let got = s.clone_dtoh(&yd)?;
    for (i, (g, (x, y))) in got.iter().zip(x.iter().zip(&y)).enumerate() {
        assert_eq!(*g, 2.0f32.mul_add(*x, *y), "y[{i}]");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn the_closest_variant_is_loaded() -> TestResult {
    let (ctx, s) = setup()?;
    let (major, minor) = ctx.compute_capability()?;
    let (dmaj, dmin) = driver();
    // sm_100 needs ISA 8.6, which CUDA 12.7 drivers compile.
    let expected = if major >= 10 && (dmaj, dmin) >= (12, 7) {
        "saxpy_sm100.ptx"
    } else if (major, minor) >= (9, 0) {
        "saxpy_sm90.ptx"
    } else {
        "saxpy_sm75.ptx"
    };
    run_saxpy(&s)?;
    for v in ["saxpy_sm75.ptx", "saxpy_sm90.ptx", "saxpy_sm100.ptx"] {
        let loaded = chevron::__private::modules_loaded(&ctx, &format!("variants/{v}"));
        assert_eq!(
            loaded,
            usize::from(v == expected),
            "{v} on sm_{major}{minor} with driver {dmaj}.{dmin}"
        );
    }
    println!("device sm_{major}{minor}, driver {dmaj}.{dmin}: loaded {expected}");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn code_for_a_newer_gpu_only_is_refused() -> TestResult {
    let (ctx, _s) = setup()?;
    let (major, minor) = ctx.compute_capability()?;
    match SM100_ONLY.get(&ctx) {
        Err(Error::Incompatible { message, .. }) => {
            assert!(major < 10, "refused on sm_{major}{minor}: {message}");
            assert!(
                message.starts_with(&format!(
                    "kernel built for sm_100 only; device 0 is sm_{major}{minor}: compile a variant for it"
                )),
                "{message}"
            );
        }
        Ok(_) => assert!(major >= 10, "sm_100 code loaded on sm_{major}{minor}"),
        Err(e) => return Err(e.into()),
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn an_isa_newer_than_the_driver_is_refused_or_passed_over() -> TestResult {
    let (ctx, _s) = setup()?;
    let (dmaj, dmin) = driver();
    let (major, _) = ctx.compute_capability()?;
    let old_driver = (dmaj, dmin) < (13, 1);
    match ISA91.get(&ctx) {
        Err(Error::Incompatible { message, .. }) if major < 9 => {
            assert!(
                message.starts_with("kernel built for sm_90 only"),
                "{message}"
            );
        }
        Err(Error::Incompatible { message, .. }) => {
            assert!(old_driver, "refused under driver {dmaj}.{dmin}: {message}");
            assert_eq!(
                message,
                format!(
                    "PTX ISA 9.1 needs a CUDA 13.1 driver; this driver is {dmaj}.{dmin} (feature \
                     cuda-{dmaj}{dmin:02}0): compile with an older nvcc or use `cuda = …`"
                )
            );
            let e = Error::Incompatible {
                kernel: chevron::KernelName(Some("saxpy_isa91")),
                message,
            };
            assert!(
                e.to_string()
                    .starts_with("cannot load for `saxpy_isa91`: PTX ISA 9.1"),
                "{e}"
            );
        }
        Ok(_) => assert!(
            !old_driver && major >= 9,
            "ISA 9.1 loaded on sm_{major}x under driver {dmaj}.{dmin}"
        ),
        Err(e) => return Err(e.into()),
    }
    // With an sm_75 variant beside it, that one is taken where the 9.1 one cannot load.
    ISA91_OR_SM75.get(&ctx)?;
    let sm75 = chevron::__private::modules_loaded(&ctx, "saxpy_sm75.ptx?isa91");
    assert_eq!(sm75, usize::from(old_driver || major < 9));
    Ok(())
}

// kernels/variants/grid_rotate.cu: the sm_90 variant syncs the grid (and bounds its block at
// 256 threads), the sm_75 one does not. The declaration's launches are cooperative, as its
// sm_90 variant needs (a plain one does not compile).
#[kernel(ptx = [
    "kernels/variants/grid_rotate_sm75.ptx",
    "kernels/variants/grid_rotate_sm90.ptx",
])]
fn grid_rotate(in_: &CudaSlice<i32>, tmp: &mut CudaSlice<i32>, out: &mut CudaSlice<i32>, n: u32);

/// The grid barrier of the variant loaded (sm_90 on an H200) holds in a cooperative launch:
/// every output equals the host's `in[(t + block) % n] * 3`, which for each thread is a value
/// another block wrote before the barrier. On a device below sm_90 the sm_75 variant runs the
/// same launch (its `cooperative` is not refused). A plain launch with a run-time block is
/// refused before it reaches the driver where the sm_90 variant is loaded.
#[test]
#[ignore = "needs a CUDA GPU"]
fn the_loaded_variants_grid_barrier_is_launched_cooperatively() -> TestResult {
    let (ctx, s) = setup()?;
    let (major, _) = ctx.compute_capability()?;
    let block = 256u32;
    let grid = grid_rotate::kernel()
        .max_cooperative_grid(&ctx, block, 0)?
        .min(64);
    assert!(grid >= 2, "a grid barrier needs blocks to wait for: {grid}");
    let n = grid * block;
    let input: Vec<i32> = (0..n as i32).map(|i| i * 7 - 1000).collect();
    let x = s.clone_htod(&input)?;
    // Poisoned: a value the kernel never writes.
    let mut tmp = s.clone_htod(&vec![i32::MIN; n as usize])?;
    let mut out = s.clone_htod(&vec![i32::MIN; n as usize])?;
    unsafe { launch!(grid_rotate<<<grid, block, &s, cooperative>>>(&x, &mut tmp, &mut out, n)) }?;
    let got = s.clone_dtoh(&out)?;
    for t in 0..n as usize {
        let want = input[(t + block as usize) % n as usize] * 3;
        assert_eq!(got[t], want, "out[{t}] (grid {grid} × {block})");
    }
    // Where the sm_90 variant is loaded, its rules are this launch's: a plain launch, and a
    // block over its `__launch_bounds__(256)`, are refused before the driver sees them.
    // Configs built at run time: `launch!` would refuse these literals at compile time.
    let plain_config = chevron::LaunchConfig::new(grid, block)
        .with_flag(chevron::Cooperative, std::hint::black_box(false));
    let plain =
        unsafe { grid_rotate::kernel().launch(&s, &plain_config, (&x, &mut tmp, &mut out, n)) };
    let wide_config =
        chevron::LaunchConfig::new(1u32, std::hint::black_box(512u32)).with(chevron::Cooperative);
    let over =
        unsafe { grid_rotate::kernel().launch(&s, &wide_config, (&x, &mut tmp, &mut out, 512)) };
    if major >= 9 {
        let e = plain.expect_err("the sm_90 variant syncs the grid");
        assert!(e.to_string().contains("grid_rotate_sm90.ptx"), "{e}");
        let e = over.expect_err("over the sm_90 variant's bound");
        assert!(e.to_string().contains(".maxntid 256, 1, 1"), "{e}");
    } else {
        plain?;
        over?;
    }
    s.synchronize()?;
    Ok(())
}
