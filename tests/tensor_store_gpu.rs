//! A tensor-core store is a write: `wmma_tiles` writes `c` only through `wmma.store` (the PTX
//! has no `st` to it) on stream A, and `sum_tiles` reads `c` on stream B. `#[kernel]` refuses
//! `c: &CudaSlice<f32>` (ui-tests/fail/kernel_wmma_store_read_only.rs), so the declaration takes
//! it `&mut`, cudarc records the launch as a write of `c`, and stream B waits for it; a
//! declaration that took `c` read-only would let `sum_tiles` read the poison. Run on a machine
//! with a CUDA GPU (sm_70 or later): `cargo test --test tensor_store_gpu -- --ignored
//! --nocapture`.

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::CudaSlice;
use chevron::half::f16;
use chevron::{kernel, LaunchConfig};

#[kernel(ptx = "kernels/tensor_store.ptx")]
fn wmma_tiles(
    a: &CudaSlice<f16>,
    b: &CudaSlice<f16>,
    c: &mut CudaSlice<f32>,
    tiles: u32,
    reps: u32,
);

#[kernel(ptx = "kernels/tensor_store.ptx")]
fn sum_tiles(c: &CudaSlice<f32>, out: &mut CudaSlice<f32>, tiles: u32);

type TestResult = Result<(), Box<dyn std::error::Error>>;

const POISON: f32 = -7.25;
const TILES: usize = 2048;
/// Products summed per tile: slow enough that an unordered read sees the poison, small enough
/// that every sum stays exact in f32 (below 2^24).
const REPS: u32 = 1000;

/// Tile `t` of `a` (row-major 16×16) and `b` (column-major 16×16): small integers, exact in
/// `f16` and in every sum the tensor cores form.
fn a_at(t: usize, i: usize, k: usize) -> f32 {
    ((t + 2 * i + k) % 5) as f32 - 2.0
}

fn b_at(k: usize, j: usize) -> f32 {
    ((3 * k + j) % 3) as f32 - 1.0
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_tensor_core_store_is_ordered_before_a_read_on_another_stream() -> TestResult {
    let ctx = gpu::context(0)?;
    let (sa, sb) = (ctx.new_stream()?, ctx.new_stream()?);
    let mut a_host = vec![f16::from_f32(0.0); TILES * 256];
    for t in 0..TILES {
        for i in 0..16 {
            for k in 0..16 {
                a_host[t * 256 + i * 16 + k] = f16::from_f32(a_at(t, i, k));
            }
        }
    }
    // Column-major: element (k, j) at j·16 + k.
    let mut b_host = vec![f16::from_f32(0.0); 256];
    for k in 0..16 {
        for j in 0..16 {
            b_host[j * 16 + k] = f16::from_f32(b_at(k, j));
        }
    }
    let want: Vec<f32> = (0..TILES)
        .map(|t| {
            let mut s = 0.0f64;
            for i in 0..16 {
                for j in 0..16 {
                    let dot: f64 = (0..16).map(|k| f64::from(a_at(t, i, k) * b_at(k, j))).sum();
                    s += dot * f64::from(REPS);
                }
            }
            s as f32
        })
        .collect();
    let a = sa.clone_htod(&a_host)?;
    let b = sa.clone_htod(&b_host)?;
    let mut c = sa.clone_htod(&vec![POISON; TILES * 256])?;
    let mut out = sb.clone_htod(&vec![POISON; TILES])?;
    sa.synchronize()?;
    sb.synchronize()?;
    // One warp per tile.
    let cfg = LaunchConfig::new((TILES * 32 / 128) as u32, 128u32);
    unsafe { wmma_tiles::kernel().launch(&sa, &cfg, (&a, &b, &mut c, TILES as u32, REPS)) }?;
    let cfg = LaunchConfig::new((TILES as u32).div_ceil(128), 128u32);
    unsafe { sum_tiles::kernel().launch(&sb, &cfg, (&c, &mut out, TILES as u32)) }?;
    // Only stream B is synchronized (by the copy).
    let got = sb.clone_dtoh(&out)?;
    for (t, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "out[{t}]: the sum of tile {t} of `c`");
    }
    // And `c` itself, tile by tile, against the host.
    let c_host = sa.clone_dtoh(&c)?;
    let first: f32 = (0..16).map(|k| a_at(0, 0, k) * b_at(k, 0)).sum::<f32>() * REPS as f32;
    assert_eq!(c_host[0], first, "c[0]");
    println!("{TILES} tiles of {REPS} tensor-core products, read on a second stream: exact");
    Ok(())
}
