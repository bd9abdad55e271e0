//! The expansion names only `::chevron::__private`: it works without the prelude and next to
//! local items called `Result`, `Ok`, `Some`, `std`, `core`, `cudarc`, `Arc`, and like the
//! expansion's own names (`Typed`, `TypedKernel`, `KernelInfo`, `Kernel`, `NoElementType`,
//! `KERNEL`, `kernel`), and with parameters called `stream` and `config`.
#![no_implicit_prelude]

mod kernels {
    #![allow(dead_code, non_camel_case_types)]
    use ::chevron::cudarc::driver::CudaSlice;
    use ::chevron::kernel;

    struct Result;
    struct Ok;
    struct Some;
    struct Arc;
    mod std {}
    mod core {}
    mod cudarc {}
    struct Typed;
    struct TypedKernel;
    struct KernelInfo;
    struct Kernel;
    struct NoElementType;
    struct KERNEL;
    fn kernel() {}

    #[kernel(ptx = "kernels/pipeline.ptx")]
    pub fn consume(stream: &CudaSlice<f32>, config: &mut CudaSlice<f32>, n: u32);

    /// Documented, with other attributes kept.
    #[kernel(ptx = "kernels/saxpy.ptx")]
    #[allow(clippy::all)]
    pub(crate) fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);
}

fn main() {
    let _ = (kernels::consume::kernel(), kernels::saxpy::kernel());
}
