//! Untyped launches accept cudarc's kernel-argument kinds: references to numbers and to
//! `#[repr(C)]` structs, device slices, views, mutable ones. Compiled, never launched.
use chevron::cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DeviceRepr};
use chevron::launch;

#[repr(C)]
#[derive(Clone, Copy)]
struct Affine {
    scale: f32,
    offset: i32,
    bias: f64,
}

// SAFETY: `#[repr(C)]` plain data, matching `struct Affine` in kernels/structs.cu.
unsafe impl DeviceRepr for Affine {}

#[allow(dead_code)]
fn kinds(
    s: &CudaStream,
    f: &CudaFunction,
    owned: CudaFunction,
    n: u32,
    a: f32,
    x: &CudaSlice<f32>,
    mut y: CudaSlice<f32>,
    affine: Affine,
) -> Result<(), chevron::Error> {
    let bias = 0.5f64;
    let flag = true;
    unsafe { launch!(dyn f<<<1, 32, s>>>(&n, &a, x, &mut y)) }?;
    unsafe { launch!(dyn f<<<1, 32, s>>>(&affine, x, &mut y, &n)) }?;
    unsafe { launch!(dyn f<<<1, 32, s>>>(&x.slice(1..), &mut y.slice_mut(..4), &(n + 1))) }?;
    unsafe { launch!(dyn f<<<1, 32, s>>>(&1u8, &-1i8, &2u16, &-2i16, &3u32, &-3i32, &4u64, &-4i64, &1.5f32, &bias, &flag, &mut y)) }?;
    unsafe { launch!(dyn f<<<1, 32, s>>>(&y, &x.slice(..), &n)) }?;
    // A mutable view read through a shared reference, as typed kernels take `&CudaViewMut`.
    let view_mut = y.slice_mut(..4);
    unsafe { launch!(dyn f<<<1, 32, s>>>(&view_mut, &n)) }?;
    drop(view_mut);
    unsafe { launch!(dyn f<<<1, 32, s>>>()) }?;
    unsafe { launch!(dyn (&owned)<<<1, 32, s, cooperative>>>(&n)) }?;
    unsafe { launch!(dyn (owned)<<<1, 32, s, stream(sync = Spin)>>>(x)) }
}

// A launch inside a `macro_rules!` macro, with its parts passed as fragments.
macro_rules! launch_n {
    ($f:expr, $grid:expr, $s:expr, $($arg:expr),*) => {
        unsafe { launch!(dyn ($f)<<<$grid, 64, $s>>>($($arg),*)) }
    };
}

#[allow(dead_code)]
fn through_macro_rules(s: &CudaStream, f: &CudaFunction, n: u32) -> Result<(), chevron::Error> {
    launch_n!(f, 4, s, &n, &n)
}

fn main() {}
