//! Kernel parameters may have any name, including those of the expansion's own locals, items and
//! parameters: each still reaches its own place in the kernel's parameter list (the GPU test
//! `parameters_named_like_generated_code_reach_their_place` checks the values).
#![allow(non_snake_case, clippy::too_many_arguments)]
use chevron::cudarc::driver::{CudaSlice, CudaStream};
use chevron::{kernel, launch, LaunchConfig, TypedKernel};
use std::marker::PhantomData;

// Parameter 0 once received the pointer bound to `__chevron_ptr_2`.
#[kernel(ptx = "kernels/saxpy.ptx")]
pub fn saxpy(__chevron_ptr_2: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = "kernels/params.ptx")]
pub fn all_types(
    __chevron_ptr_11: u8,
    launch: i8,
    stream: u16,
    __chevron_stream: i16,
    config: u32,
    __chevron_config: i32,
    function: u64,
    __CHEVRON_KERNEL: i64,
    __chevron_func: f32,
    __chevron_params: f64,
    all_types: bool,
    __chevron_sync_11: &mut CudaSlice<f64>,
);

#[kernel(ptx = "kernels/params.ptx", name = "all_types")]
pub fn renamed(
    __chevron_kernel: u8,
    KERNEL: i8,
    __on: u16,
    renamed: i16,
    __chevron_stream_1: u32,
    __chevron_config_1: i32,
    ctx: u64,
    __chevron_ptr_0: i64,
    __chevron_sync_0: f32,
    __chevron_ptr_10: f64,
    __chevron_params_0: bool,
    __chevron_ptr_1: &mut CudaSlice<f64>,
);

/// Never called: the typed `launch!` path with these names compiles.
#[allow(dead_code)]
fn typed_launches(
    s: &CudaStream,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
    out: &mut CudaSlice<f64>,
) -> Result<(), chevron::Error> {
    unsafe {
        launch!(saxpy<<<1, 32, s>>>(7, 2.0, x, y))?;
        launch!(all_types<<<1, 32, s>>>(1, 2, 3, 4, 5, 6, 7, 8, 9.0, 10.0, true, out))?;
        launch!(renamed<<<1, 32, s>>>(1, 2, 3, 4, 5, 6, 7, 8, 9.0, 10.0, true, out))?;
    }
    Ok(())
}

fn main() {
    // The direct calls, with locals named like the parameters and like the calls' own.
    let _launch = |stream: &CudaStream,
                   config: &LaunchConfig<'_>,
                   launch: u32,
                   kernel: f32,
                   x: &CudaSlice<f32>,
                   y: &mut CudaSlice<f32>|
     -> Result<(), chevron::Error> {
        unsafe { saxpy::kernel().launch(stream, config, (launch, kernel, x, y)) }
    };
    let _: PhantomData<<saxpy as TypedKernel>::Args<'static, 'static>> =
        PhantomData::<(u32, f32, &CudaSlice<f32>, &mut CudaSlice<f32>)>;
    let _ = (all_types::kernel(), renamed::kernel());
    assert_eq!(<renamed as TypedKernel>::BUFFERS.len(), 12);
}
