//! Half-precision parameters by value (feature `f16`): nvcc passes `__half` and `__nv_bfloat16`
//! as `.param .align 2 .b8 name[2]`, matched by the 2-byte `half` types.
use chevron::cudarc::driver::CudaSlice;
use chevron::half::{bf16, f16};
use chevron::kernel;

#[kernel(ptx = "kernels/half.ptx")]
fn scale_f16(x: &mut CudaSlice<f16>, f: f16, n: u32);

#[kernel(ptx = "kernels/half.ptx")]
fn scale_bf16(x: &mut CudaSlice<bf16>, f: bf16, n: u32);

fn main() {
    let _: std::marker::PhantomData<<scale_f16 as chevron::TypedKernel>::Scalars<'static>> =
        std::marker::PhantomData::<(f16, u32)>;
    let _: std::marker::PhantomData<<scale_bf16 as chevron::TypedKernel>::Scalars<'static>> =
        std::marker::PhantomData::<(bf16, u32)>;
    assert_eq!((scale_f16::kernel().name(), scale_bf16::kernel().name()), ("scale_f16", "scale_bf16"));
}
