//! The basic declaration: scalars and device buffers, against kernels/saxpy.ptx.
use std::marker::PhantomData;
use std::sync::Arc;

use chevron::cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream};
use chevron::{kernel, LaunchConfig, TypedKernel};

/// y = a·x + y
#[kernel(ptx = "kernels/saxpy.ptx")]
pub fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

fn main() {
    // Never touches the GPU: only names and types.
    // The parameters as one tuple: all of them, the values, and the buffers ordered.
    let _: PhantomData<<saxpy as TypedKernel>::Args<'static, 'static>> =
        PhantomData::<(u32, f32, &CudaSlice<f32>, &mut CudaSlice<f32>)>;
    let _: PhantomData<<saxpy as TypedKernel>::Scalars<'static>> = PhantomData::<(u32, f32)>;
    let _: PhantomData<<saxpy as TypedKernel>::Ordered<'static>> = PhantomData::<(
        &dyn chevron::OrderedBuffer<f32>,
        &chevron::Ordered<'static, f32>,
    )>;
    assert_eq!(<saxpy as TypedKernel>::BUFFERS, [false, false, true, true]);
    let _launch = |s: &CudaStream, cfg: &LaunchConfig<'_>, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>| -> Result<(), chevron::Error> {
        unsafe { saxpy::kernel().launch(s, cfg, (1024, 2.0, x, y)) }
    };
    let _function = |ctx: &Arc<CudaContext>| -> Result<CudaFunction, chevron::Error> {
        saxpy::kernel().function(ctx)
    };
    assert_eq!(saxpy::kernel().name(), "saxpy");
}
