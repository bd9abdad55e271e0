//! Template instances declared by the spellings users write (the source's, `c++filt`'s), from
//! real nvcc output (`rules/tests/fixtures/names.cu`), launched: each instance writes a value
//! only it writes (its template argument, its enum, its function pointer's result), so a
//! spelling bound to the wrong instance fails. And a kernel of 40 parameters, each one summed.
//! Outputs are poisoned first.
//!
//! Run on a machine with a CUDA GPU: `cargo test --test cpp_names_gpu -- --include-ignored`.

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::CudaSlice;
use chevron::{kernel, launch};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "tu<128>")]
fn tu_128(out: &mut CudaSlice<u32>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "tl<128l>")]
fn tl_128(out: &mut CudaSlice<i64>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "ti<(int)-3>")]
fn ti_minus_3(out: &mut CudaSlice<i32>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "tb<false>")]
fn tb_false(out: &mut CudaSlice<i32>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "two::twin<1>")]
fn twin_two(x: &mut CudaSlice<f32>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "te<(Mode)1, (Plain)7>")]
fn te_mul_7(x: &mut CudaSlice<f32>);
#[kernel(
    ptx = "rules/tests/fixtures/names.ptx",
    name = "unary_op_kernel<&op_abs, float>"
)]
fn op_abs(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
#[kernel(
    ptx = "rules/tests/fixtures/names.ptx",
    name = "unary_op_kernel<&op_neg, float>"
)]
fn op_neg(x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
#[kernel(
    ptx = "rules/tests/fixtures/names.ptx",
    name = "cpy_scalar<&(void cpy_1_scalar<float, __half>(char const*, char*))>"
)]
fn cpy_f32_to_f16(src: &CudaSlice<u8>, dst: &mut CudaSlice<u8>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx")]
fn anon(x: &mut CudaSlice<f32>);
#[kernel(ptx = "rules/tests/fixtures/names.ptx", name = "over(float*, index_t)")]
fn over_index(x: &mut CudaSlice<f32>, n: u32);

#[kernel(ptx = "rules/tests/fixtures/names.ptx")]
fn wide40(
    out: &mut CudaSlice<f32>,
    p1: i32,
    p2: i32,
    p3: i32,
    p4: i32,
    p5: i32,
    p6: i32,
    p7: i32,
    p8: i32,
    p9: i32,
    p10: i32,
    p11: i32,
    p12: i32,
    p13: i32,
    p14: i32,
    p15: i32,
    p16: i32,
    p17: i32,
    p18: i32,
    p19: i32,
    p20: i32,
    p21: i32,
    p22: i32,
    p23: i32,
    p24: i32,
    p25: i32,
    p26: i32,
    p27: i32,
    p28: i32,
    p29: i32,
    p30: i32,
    p31: i32,
    p32: i32,
    p33: i32,
    p34: i32,
    p35: i32,
    p36: i32,
    p37: i32,
    p38: i32,
    input: &CudaSlice<f32>,
);

#[test]
#[ignore = "needs a CUDA GPU"]
fn each_spelling_launches_its_own_instance() -> TestResult {
    let ctx = gpu::context(0)?;
    let s = ctx.default_stream();

    let mut u = s.clone_htod(&[u32::MAX])?;
    unsafe { launch!(tu_128<<<1, 1, &s>>>(&mut u)) }?;
    assert_eq!(s.clone_dtoh(&u)?, [128]);
    let mut l = s.clone_htod(&[i64::MIN])?;
    unsafe { launch!(tl_128<<<1, 1, &s>>>(&mut l)) }?;
    assert_eq!(s.clone_dtoh(&l)?, [128]);
    let mut i = s.clone_htod(&[i32::MIN])?;
    unsafe { launch!(ti_minus_3<<<1, 1, &s>>>(&mut i)) }?;
    assert_eq!(s.clone_dtoh(&i)?, [-3]);
    unsafe { launch!(tb_false<<<1, 1, &s>>>(&mut i)) }?;
    assert_eq!(s.clone_dtoh(&i)?, [2]);

    let mut x = s.clone_htod(&[f32::NAN])?;
    unsafe { launch!(twin_two<<<1, 1, &s>>>(&mut x)) }?;
    assert_eq!(s.clone_dtoh(&x)?, [-1.0]);
    let mut x = s.clone_htod(&[3.0f32])?;
    unsafe { launch!(te_mul_7<<<1, 1, &s>>>(&mut x)) }?;
    assert_eq!(s.clone_dtoh(&x)?, [21.0]);
    let mut x = s.clone_htod(&[f32::NAN])?;
    unsafe { launch!(anon<<<1, 1, &s>>>(&mut x)) }?;
    assert_eq!(s.clone_dtoh(&x)?, [2.0]);
    unsafe { launch!(over_index<<<1, 1, &s>>>(&mut x, 4_000_000_000)) }?;
    assert_eq!(s.clone_dtoh(&x)?, [4_000_000_000u32 as f32]);

    let input = s.clone_htod(&[-2.5f32])?;
    let mut y = s.clone_htod(&[f32::NAN])?;
    unsafe { launch!(op_abs<<<1, 1, &s>>>(&input, &mut y)) }?;
    assert_eq!(s.clone_dtoh(&y)?, [2.5]);
    unsafe { launch!(op_neg<<<1, 1, &s>>>(&input, &mut y)) }?;
    assert_eq!(s.clone_dtoh(&y)?, [2.5]);
    let input = s.clone_htod(&[3.0f32])?;
    unsafe { launch!(op_neg<<<1, 1, &s>>>(&input, &mut y)) }?;
    assert_eq!(s.clone_dtoh(&y)?, [-3.0]);

    let src = s.clone_htod(&1.5f32.to_le_bytes())?;
    let mut dst = s.clone_htod(&[0xAAu8; 2])?;
    unsafe { launch!(cpy_f32_to_f16<<<1, 1, &s>>>(&src, &mut dst)) }?;
    let half = s.clone_dtoh(&dst)?;
    assert_eq!(
        u16::from_le_bytes([half[0], half[1]]),
        0x3E00,
        "1.5 as a half"
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn forty_parameters_each_arrive() -> TestResult {
    let ctx = gpu::context(0)?;
    let s = ctx.default_stream();
    let input = s.clone_htod(&[0.5f32])?;
    let mut out = s.clone_htod(&[f32::NAN])?;
    // Distinct values, k·1000 + k², so that a dropped or repeated parameter changes the sum
    // (exact in `float`: under 2^21 with the 0.5).
    let p: Vec<i32> = (1..=38).map(|k| k * 1000 + k * k).collect();
    unsafe {
        launch!(wide40<<<1, 1, &s>>>(
            &mut out, p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8], p[9], p[10], p[11],
            p[12], p[13], p[14], p[15], p[16], p[17], p[18], p[19], p[20], p[21], p[22], p[23],
            p[24], p[25], p[26], p[27], p[28], p[29], p[30], p[31], p[32], p[33], p[34], p[35],
            p[36], p[37], &input
        ))
    }?;
    let want = 0.5 + p.iter().map(|&v| f64::from(v)).sum::<f64>();
    assert_eq!(f64::from(s.clone_dtoh(&out)?[0]), want);
    Ok(())
}
