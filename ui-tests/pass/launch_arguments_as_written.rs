//! What typed launches accepted before their arguments and stream went through chevron's
//! probes (which turn host memory, a view for a whole buffer and a stream by value into
//! chevron's messages) still compiles: references to buffers and views, `&mut` views where
//! the kernel reads, temporaries (`&x.slice(..)`), numbers whose type the parameter decides,
//! `&mut` buffers reborrowed across launches, and every form of stream reference.
#![allow(dead_code)]

use std::sync::Arc;

use chevron::cudarc::driver::{CudaSlice, CudaStream, CudaView, CudaViewMut};
use chevron::{kernel, launch};

/// y = a·x + y
#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
fn saxpy_views(n: u32, a: f32, x: &CudaView<'_, f32>, y: &mut CudaViewMut<'_, f32>);

#[kernel(ptx = "kernels/saxpy.ptx", name = "saxpy")]
fn saxpy_reads_view_mut(n: u32, a: f32, x: &CudaViewMut<'_, f32>, y: &mut CudaSlice<f32>);

fn buffers(
    s: &CudaStream,
    x: CudaSlice<f32>,
    mut y: CudaSlice<f32>,
    y_ref: &mut CudaSlice<f32>,
) -> Result<(), chevron::Error> {
    // The type of `n` and `a` comes from the kernel's parameters.
    let n = 1024;
    let a = 2.0;
    unsafe { launch!(saxpy<<<4, 256, s>>>(n, a, &x, &mut y)) }?;
    // A `&mut` buffer passed on, twice: reborrowed, not moved.
    for _ in 0..2 {
        unsafe { launch!(saxpy<<<4, 256, s>>>(n, a, &x, y_ref)) }?;
    }
    // `&mut` where the kernel reads: coerced, as without the probes.
    let mut x_mut = x;
    unsafe { launch!(saxpy<<<4, 256, s>>>(n, a, &mut x_mut, y_ref)) }?;
    Ok(())
}

fn views(
    s: &CudaStream,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
    mut whole: CudaSlice<f32>,
) -> Result<(), chevron::Error> {
    // Temporaries live to the end of the launch statement.
    unsafe {
        launch!(saxpy_views<<<4, 256, s>>>(1024, 2.0, &x.slice(0..1024), &mut y.slice_mut(0..1024)))
    }?;
    let view = x.as_view();
    let mut view_mut = whole.as_view_mut();
    unsafe { launch!(saxpy_views<<<4, 256, s>>>(1024, 2.0, &view, &mut view_mut)) }?;
    // A `&mut CudaViewMut` where the kernel reads a `&CudaViewMut`.
    unsafe { launch!(saxpy_reads_view_mut<<<4, 256, s>>>(1024, 2.0, &mut view_mut, y)) }?;
    unsafe { launch!(saxpy_reads_view_mut<<<4, 256, s>>>(1024, 2.0, &view_mut, y)) }?;
    Ok(())
}

fn streams(
    arc: Arc<CudaStream>,
    by_ref: &Arc<CudaStream>,
    x: &CudaSlice<f32>,
    y: &mut CudaSlice<f32>,
    f: &chevron::cudarc::driver::CudaFunction,
) -> Result<(), chevron::Error> {
    unsafe { launch!(saxpy<<<4, 256, &arc>>>(1024, 2.0, x, y)) }?;
    unsafe { launch!(saxpy<<<4, 256, by_ref>>>(1024, 2.0, x, y)) }?;
    unsafe { launch!(saxpy<<<4, 256, &by_ref>>>(1024, 2.0, x, y)) }?;
    let plain: &CudaStream = &arc;
    unsafe { launch!(saxpy<<<4, 256, plain>>>(1024, 2.0, x, y)) }?;
    unsafe { launch!(dyn f<<<4, 256, &arc>>>()) }?;
    unsafe { launch!(dyn f<<<4, 256, by_ref>>>()) }?;
    unsafe { launch!(dyn f<<<4, 256, &by_ref>>>()) }?;
    Ok(())
}

fn main() {}
