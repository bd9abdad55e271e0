//! `#[kernels]` over a real codebase: every entry of llm.c's GPT-2 training programs and of six
//! of its kernel development files (`dev/cuda/*.cu`, many versions of each kernel)
//! (`kernels/corpus/llmc/`: karpathy/llm.c at f1e2ace, MIT License, its LICENSE beside the
//! PTX; `train_gpt2.cu`, `train_gpt2_fp32.cu` and `dev/cuda/NAME.cu` as `dev_NAME.ptx`, compiled by nvcc 13.0 with
//! `-ptx -arch=sm_90`), declared in one line each, with one mapping for the by-value
//! `std::integral_constant<bool, true>` its templates take. And three files of ggml's CUDA
//! backend (`kernels/corpus/ggml/`: ggml-org/ggml at d99724f2, MIT License): templates
//! instantiated with function pointers to `static` functions and to template instances, `__half`
//! parameters, and a struct by value mapped to its `#[repr(C)]` mirror. CPU only: the types are
//! checked.
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

/// ggml's `struct soft_max_params` (softmax.cu), field for field: 120 bytes, align 8.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SoftMaxParams {
    pub nheads: i64,
    pub n_head_log2: u32,
    pub ncols: i64,
    pub nrows_x: i64,
    pub nrows_y: i64,
    pub ne00: i64,
    pub ne01: i64,
    pub ne02: i64,
    pub ne03: i64,
    pub nb11: i64,
    pub nb12: i64,
    pub nb13: i64,
    pub ne12: i64,
    pub ne13: i64,
    pub scale: f32,
    pub max_bias: f32,
    pub m0: f32,
    pub m1: f32,
}
// SAFETY: `#[repr(C)]` plain numbers, laid out as the C++ struct.
unsafe impl DeviceRepr for SoftMaxParams {}

#[kernels(ptx = "kernels/corpus/ggml/unary.ptx")]
pub mod ggml_unary {}

#[kernels(ptx = "kernels/corpus/ggml/cpy.ptx")]
pub mod ggml_cpy {}

#[kernels(
    ptx = "kernels/corpus/ggml/softmax.ptx",
    types("soft_max_params" = super::SoftMaxParams)
)]
pub mod ggml_softmax {}

/// ggml's instances by the source's spelling of a function-pointer template argument, which
/// nvcc puts in an `_INTERNAL_<hash>` namespace no user can type, and by `c++filt`'s spelling of
/// a pointer to a template instance.
pub mod ggml_by_name {
    use chevron::cudarc::driver::CudaSlice;
    use chevron::kernel;

    #[kernel(
        ptx = "kernels/corpus/ggml/unary.ptx",
        name = "unary_op_kernel<&op_abs, float>"
    )]
    pub fn abs_f32(x: &CudaSlice<f32>, dst: &mut CudaSlice<f32>, k: i32);

    #[kernel(
        ptx = "kernels/corpus/ggml/cpy.ptx",
        name = "cpy_q_f32<&(void cpy_blck_q_f32<&dequantize_q4_0, 32>(char const*, char*)), 32>"
    )]
    #[allow(clippy::too_many_arguments)]
    pub fn q4_0_to_f32(
        cx: &CudaSlice<i8>,
        cdst: &mut CudaSlice<i8>,
        ne: i64,
        ne00: i64,
        ne01: i64,
        ne02: i64,
        nb00: i64,
        nb01: i64,
        nb02: i64,
        nb03: i64,
        ne10: i64,
        ne11: i64,
        ne12: i64,
        nb10: i64,
        nb11: i64,
        nb12: i64,
        nb13: i64,
    );
}

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

#[test]
fn every_entry_of_three_ggml_files_is_declared() {
    use chevron::half::f16;
    // unary_op_kernel<&op_abs, float>(float const*, float*, int), generated and by hand.
    let _: fn((R<f32>, M<f32>, i32)) = sig::<ggml_unary::unary_op_kernel__op_abs_float>();
    let _: fn((R<f32>, M<f32>, i32)) = sig::<ggml_by_name::abs_f32>();
    let _: fn((R<f16>, M<f16>, i32)) = sig::<ggml_unary::unary_op_kernel__op_abs_half>();
    // soft_max_f32<true, 64, 64, float>(float const*, float const*, float const*, float*,
    //     soft_max_params): the struct by value as its mirror.
    let _: fn((R<f32>, R<f32>, R<f32>, M<f32>, SoftMaxParams)) =
        sig::<ggml_softmax::soft_max_f32__true_64_64_float>();
    // 17 parameters, `char const*`/`char*` as bytes.
    type L = i64;
    type Cpy = (R<i8>, M<i8>, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L);
    let _: fn(Cpy) = sig::<ggml_by_name::q4_0_to_f32>();
}
