//! `#[kernels]` over the project's own C++ kernels: every entry declared in one line, typed as
//! a hand declaration would be. CPU only: the types are what is checked (launches of these
//! kernels run in `examples/cpp_port.rs`, on a GPU).
// The argument tuples, spelled out, are what each test asserts.
#![allow(clippy::type_complexity)]

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::DeviceRepr;
use chevron::kernels;
use chevron::vec::Float4;
use chevron::Typed;

/// The header's `struct Affine { float scale; float bias; }`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Affine {
    pub scale: f32,
    pub bias: f32,
}
// SAFETY: `#[repr(C)]`, two `f32`, as the C++ struct.
unsafe impl DeviceRepr for Affine {}

#[kernels(ptx = "kernels/templates.ptx")]
pub mod templates {}

#[kernels(ptx = "kernels/port_rows.ptx", types("Affine" = super::Affine))]
pub mod rows {}

#[kernels(ptx = "kernels/port_hist.ptx")]
pub mod hist {}

#[path = "common/sig.rs"]
mod sig;
use sig::{sig, M, R};

#[test]
fn every_entry_is_declared_with_its_cpp_types() {
    // gemm<128>(float const*, float const*, float*, int, int, int)
    let _: &Typed<templates::gemm> = templates::gemm::kernel();
    let _: fn((R<f32>, R<f32>, M<f32>, i32, i32, i32)) = sig::<templates::gemm>();
    // scale<float>(float*, float, unsigned int) and scale<double>(…): template arguments.
    let _: fn((M<f32>, f32, u32)) = sig::<templates::scale__float>();
    let _: fn((M<f64>, f64, u32)) = sig::<templates::scale__double>();
    let _: fn((M<f32>, f32, u32)) = sig::<templates::offset_add>();
    // Overloads: their parameter types.
    let _: fn((M<f32>, R<f32>, f32, i32)) = sig::<rows::axpy__float_p_float_const_p_float_int>();
    let _: fn((M<f64>, R<f64>, f64, i32)) = sig::<rows::axpy__double_p_double_const_p_double_int>();
    // row_sums<256> and row_sums<128>; `float4 const*` is a buffer of Float4.
    let _: fn((M<f32>, R<Float4>, i32)) = sig::<rows::row_sums__256>();
    let _: fn((M<f32>, R<Float4>, i32)) = sig::<rows::row_sums__128>();
    let _: fn((M<Float4>, R<Float4>, R<f32>, i32)) = sig::<rows::normalize_rows>();
    // A struct by value, mapped with `types`; `unsigned long` is u64.
    let _: fn((M<f32>, Affine, u64)) = sig::<rows::affine>();
    let _: fn((M<u32>, M<u64>, R<i32>, i32, i32, i32)) = sig::<hist::histogram>();
    let _: fn((M<f32>, R<u32>, i32)) = sig::<hist::bin_total>();
}

/// A multi-kernel C++ file in the shapes of a transformer training codebase
/// (`kernels/llm_like.cu`, written for these tests: no open-source corpus was at hand): every
/// entry declared, the dependent typedef `vec4<float>::Type` mapped once.
#[kernels(ptx = "kernels/llm_like.ptx", types("vec4<float>::Type" = chevron::vec::Float4))]
pub mod llm {}

#[test]
fn a_codebase_is_declared_whole() {
    let _: fn((M<f32>, R<i32>, R<f32>, R<f32>, i32, i32, i32)) = sig::<llm::encoder_forward>();
    let _: fn((M<f32>, R<f32>, R<f32>, u64)) = sig::<llm::residual_forward>();
    let _: fn((M<f32>, R<f32>, i32)) = sig::<llm::gelu_forward_kernel>();
    let _: fn((M<f32>, R<f32>, R<f32>, i32)) = sig::<llm::gelu_backward_kernel>();
    type Ln = (M<f32>, M<f32>, M<f32>, R<f32>, R<f32>, R<f32>, i32, i32);
    let _: fn(Ln) = sig::<llm::layernorm_forward__128>();
    let _: fn(Ln) = sig::<llm::layernorm_forward__256>();
    // Type and bool template arguments.
    let _: fn((M<f32>, R<f32>, i32, i32)) = sig::<llm::softmax_forward__float_true>();
    let _: fn((M<f32>, R<f32>, i32, i32)) = sig::<llm::softmax_forward__float_false>();
    let _: fn((M<f64>, R<f64>, i32, i32)) = sig::<llm::softmax_forward__double_true>();
    // `vec4<float>::Type*` through `types(…)`.
    let _: fn((M<Float4>, R<Float4>, i32, i32)) = sig::<llm::add_bias4>();
    let _: fn((M<f32>, f32, u32)) = sig::<llm::scale_inplace__float_p_float_unsigned_int>();
    let _: fn((M<f64>, f64, u32)) = sig::<llm::scale_inplace__double_p_double_unsigned_int>();
    // `grads` is `float*` that the PTX never writes through: `&`, so it may alias an input.
    let _: fn(
        (
            M<f32>,
            R<f32>,
            M<f32>,
            M<f32>,
            i64,
            f32,
            f32,
            f32,
            f32,
            f32,
            f32,
            f32,
            u64,
        ),
    ) = sig::<llm::adamw_kernel>();
    let _: fn((M<f32>, R<f32>, R<i32>, R<i8>, i32, i32, i32)) = sig::<llm::crossentropy_forward>();
    // `float const* const*`: device addresses; `void*`: bytes.
    let _: fn((M<f32>, R<u64>, i32, i32)) = sig::<llm::gather_rows>();
    let _: fn((M<u8>, R<u8>, u64)) = sig::<llm::copy_bytes>();
    let _: fn((M<f32>, R<f32>, i32)) = sig::<llm::sum_squares>();
}

/// Generated kernels launched as hand-declared ones are: the mangled entries load, the
/// arguments land in their places, and a `T*` the PTX proves unwritten takes the same buffer
/// as another input (`sum_squares(out, inp)` reads `inp`; `adamw`'s grads may be `&`).
#[test]
#[ignore = "needs a CUDA GPU"]
fn generated_kernels_run_like_hand_declared_ones() -> Result<(), Box<dyn std::error::Error>> {
    use chevron::launch;
    let ctx = gpu::context(0)?;
    let stream = ctx.default_stream();
    let n = 5_000usize;
    let inp_host: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.05 - 2.4).collect();
    let inp = stream.clone_htod(&inp_host)?;
    // Poisoned: a kernel that wrote nothing cannot pass.
    let mut out = stream.clone_htod(&vec![f32::NAN; n])?;
    let blocks = n.div_ceil(256) as u32;
    unsafe {
        launch!(llm::gelu_forward_kernel<<<blocks, 256, &stream>>>(&mut out, &inp, n as i32))
    }?;
    let got = stream.clone_dtoh(&out)?;
    for (i, (&g, &x)) in got.iter().zip(&inp_host).enumerate() {
        let x = f64::from(x);
        let want = 0.5 * x * (1.0 + (0.7978845608 * (x + 0.044715 * x * x * x)).tanh());
        assert!(
            (f64::from(g) - want).abs() <= 1e-5,
            "gelu at {i}: {g} vs {want}"
        );
    }

    // An overload by its parameter types.
    let x_host: Vec<f64> = (0..n).map(|i| f64::from((i % 41) as u32) - 20.0).collect();
    let mut x = stream.clone_htod(&x_host)?;
    unsafe {
        launch!(llm::scale_inplace__double_p_double_unsigned_int<<<blocks, 256, &stream>>>(
            &mut x, -0.5, n as u32
        ))
    }?;
    let got = stream.clone_dtoh(&x)?;
    for (i, (g, h)) in got.iter().zip(&x_host).enumerate() {
        assert_eq!(*g, h * -0.5, "scale_inplace<double> at {i}");
    }

    // `sum_squares(float*, float*, int)`: its input is `&` (the PTX never stores through it).
    let mut total = stream.clone_htod(&[0.0f32])?;
    unsafe { launch!(llm::sum_squares<<<blocks, 256, &stream>>>(&mut total, &inp, n as i32)) }?;
    let got = stream.clone_dtoh(&total)?[0];
    let want: f64 = inp_host.iter().map(|&v| f64::from(v) * f64::from(v)).sum();
    assert!(
        (f64::from(got) - want).abs() <= 1e-4 * want,
        "sum_squares: {got} vs {want}"
    );
    Ok(())
}
