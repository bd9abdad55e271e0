// Every expression whose type rustc infers from unsuffixed literals is passed as `i32` or
// `f64`, whatever the kernel expects: each is refused as `&2.5` is.
use chevron::cudarc::driver::{CudaFunction, CudaStream};
use chevron::launch;

fn run(s: &CudaStream, f: &CudaFunction) -> Result<(), chevron::Error> {
    unsafe { launch!(dyn f<<<1, 256, s>>>(&-2.5)) }?;
    unsafe { launch!(dyn f<<<1, 256, s>>>(&(0.5 * 3.0))) }?;
    unsafe { launch!(dyn f<<<1, 256, s>>>(&(1 << 20))) }?;
    unsafe { launch!(dyn f<<<1, 256, s>>>(&{ 2.0 })) }?;
    unsafe { launch!(dyn f<<<1, 256, s>>>(&-2)) }?;
    // Typed: a suffix anywhere decides the type (`1u32 << 20`, `0.5 * 3.0f32`).
    unsafe { launch!(dyn f<<<1, 256, s>>>(&(1u32 << 20), &(0.5 * 3.0f32), &-2.5f32)) }
}

fn main() {}
