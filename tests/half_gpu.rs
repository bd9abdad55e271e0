//! Half-precision parameters by value (feature `f16`) on the GPU, against the host.

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::CudaSlice;
use chevron::half::{bf16, f16};
use chevron::{kernel, launch};

#[kernel(ptx = "kernels/half.ptx")]
fn scale_f16(x: &mut CudaSlice<f16>, f: f16, n: u32);

#[kernel(ptx = "kernels/half.ptx")]
fn scale_bf16(x: &mut CudaSlice<bf16>, f: bf16, n: u32);

fn values(n: usize) -> Vec<f32> {
    (0..n)
        .map(|i| ((i * 37 % 1001) as f32 - 500.0) / 64.0)
        .collect()
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn half_and_bfloat16_scalars_arrive_intact() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    let n = 3000u32;
    let src = values(n as usize);

    // The product of two halves is exact in f32, so rounding it once gives __hmul's result.
    let host: Vec<f16> = src.iter().map(|&v| f16::from_f32(v)).collect();
    let factor = f16::from_f32(-1.375);
    let mut x = stream.clone_htod(&host)?;
    unsafe { launch!(scale_f16<<<n.div_ceil(256), 256, &stream>>>(&mut x, factor, n)) }?;
    let got = stream.clone_dtoh(&x)?;
    for (i, (g, h)) in got.iter().zip(&host).enumerate() {
        let want = f16::from_f32(h.to_f32() * factor.to_f32());
        assert_eq!(g.to_bits(), want.to_bits(), "f16 x[{i}]: {g} vs {want}");
    }

    let host: Vec<bf16> = src.iter().map(|&v| bf16::from_f32(v)).collect();
    let factor = bf16::from_f32(3.25);
    let mut x = stream.clone_htod(&host)?;
    unsafe { launch!(scale_bf16<<<n.div_ceil(256), 256, &stream>>>(&mut x, factor, n)) }?;
    let got = stream.clone_dtoh(&x)?;
    for (i, (g, h)) in got.iter().zip(&host).enumerate() {
        let want = bf16::from_f32(h.to_f32() * factor.to_f32());
        assert_eq!(g.to_bits(), want.to_bits(), "bf16 x[{i}]: {g} vs {want}");
    }
    Ok(())
}
