//! `#[kernels]` over a real codebase: every entry of llm.c's GPT-2 training programs and of six
//! of its kernel development files (`dev/cuda/*.cu`, many versions of each kernel)
//! (`kernels/corpus/llmc/`: karpathy/llm.c at f1e2ace, MIT License, its LICENSE beside the
//! PTX; `train_gpt2.cu`, `train_gpt2_fp32.cu` and `dev/cuda/NAME.cu` as `dev_NAME.ptx`, compiled by nvcc 13.0 with
//! `-ptx -arch=sm_90`), declared in one line each, with one mapping for the by-value
//! `std::integral_constant<bool, true>` its templates take. CPU only: the types are checked.
#![allow(clippy::type_complexity)]

use chevron::cudarc::driver::DeviceRepr;
use chevron::half::bf16;
use chevron::kernels;

/// C++'s `std::integral_constant<bool, true>`: an empty class, one byte by value.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct True {
    _empty: u8,
}
// SAFETY: `#[repr(C)]`, one byte, as the empty C++ class is passed.
unsafe impl DeviceRepr for True {}

/// C++'s `std::integral_constant<bool, false>`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct False {
    _empty: u8,
}
// SAFETY: as `True`.
unsafe impl DeviceRepr for False {}

#[kernels(
    ptx = "kernels/corpus/llmc/train_gpt2.ptx",
    types("std::integral_constant<bool, true>" = super::True)
)]
pub mod gpt2 {}

#[kernels(ptx = "kernels/corpus/llmc/train_gpt2_fp32.ptx")]
pub mod gpt2_fp32 {}

#[kernels(ptx = "kernels/corpus/llmc/dev_attention_backward.ptx")]
pub mod dev_attention_backward {}

#[kernels(ptx = "kernels/corpus/llmc/dev_layernorm_backward.ptx")]
pub mod dev_layernorm_backward {}

#[kernels(
    ptx = "kernels/corpus/llmc/dev_matmul_backward_bias.ptx",
    types(
        "std::integral_constant<bool, true>" = super::True,
        "std::integral_constant<bool, false>" = super::False
    )
)]
pub mod dev_matmul_backward_bias {}

#[kernels(ptx = "kernels/corpus/llmc/dev_softmax_forward.ptx")]
pub mod dev_softmax_forward {}

#[kernels(ptx = "kernels/corpus/llmc/dev_attention_forward.ptx")]
pub mod dev_attention_forward {}

#[kernels(ptx = "kernels/corpus/llmc/dev_fused_residual_forward.ptx")]
pub mod dev_fused_residual_forward {}

#[path = "common/sig.rs"]
mod sig;
use sig::{sig, M, R};

#[test]
fn every_entry_of_the_codebase_is_declared() {
    // gelu_forward_kernel2(__nv_bfloat16*, __nv_bfloat16 const*)
    let _: fn((M<bf16>, R<bf16>)) = sig::<gpt2::gelu_forward_kernel2>();
    // layernorm_forward_kernel3(__nv_bfloat16* out, float* mean, float* rstd,
    //     __nv_bfloat16 const* inp, __nv_bfloat16 const* weight, __nv_bfloat16 const* bias, int, int)
    type Ln = (M<bf16>, M<f32>, M<f32>, R<bf16>, R<bf16>, R<bf16>, i32, i32);
    let _: fn(Ln) = sig::<gpt2::layernorm_forward_kernel3>();
    // Template instances told apart by their arguments; the by-value tag through `types`.
    let _: fn((M<f32>, R<bf16>, i32, i32, i32, True)) =
        sig::<gpt2::matmul_backward_bias_kernel9__float_true>();
    let _: fn((M<bf16>, R<bf16>, i32, i32, i32, True)) =
        sig::<gpt2::matmul_backward_bias_kernel9__nv_bfloat16_true>();
    // adamw_kernel3<__nv_bfloat16, __nv_bfloat16>: `grads_memory` is a `Tg*` the PTX never
    // stores through, so `&` (two launches may read one gradient buffer).
    type Adam = (
        M<bf16>,
        M<f32>,
        R<bf16>,
        M<f32>,
        M<f32>,
        u64,
        i64,
        i64,
        i64,
        f32,
        f32,
        f32,
        f32,
        f32,
        f32,
        f32,
        f32,
        u32,
    );
    let _: fn(Adam) = sig::<gpt2::adamw_kernel3>();
    // The fp32 program's kernels, in its own module.
    let _: fn((M<f32>, R<f32>, i32)) = sig::<gpt2_fp32::gelu_forward_kernel>();
}
