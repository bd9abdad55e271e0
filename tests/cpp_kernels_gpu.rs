//! C++ kernels (not `extern "C"`) declared by their C++ names and checked against their C++
//! signatures: from PTX (`ptx = …`, checked at compile time) and from CUDA C compiled by NVRTC
//! (`cuda = …`, checked against NVRTC's output before the first launch, with the same rules and
//! words). Launched on a real GPU and checked against a host reference; outputs are poisoned
//! first.
//!
//! Run on a machine with a CUDA GPU: `cargo test --test cpp_kernels_gpu -- --include-ignored`.

#[path = "common/gpu.rs"]
mod gpu;

use chevron::cudarc::driver::CudaSlice;
use chevron::vec::Float4;
use chevron::{kernel, launch, Error};

type TestResult = Result<(), Box<dyn std::error::Error>>;

/// `row_sums<128>(float*, float4 const*, int)`: the other instance of the template the
/// `cpp_port` example uses at 256.
#[kernel(ptx = "kernels/port_rows.ptx", name = "row_sums<128>")]
fn row_sums_128(sums: &mut CudaSlice<f32>, input: &CudaSlice<Float4>, cols4: i32);

/// `offset_add(float*, float, unsigned int)`, from kernels/templates.cu compiled by NVRTC.
#[kernel(cuda = "kernels/templates.cu")]
fn offset_add(y: &mut CudaSlice<f32>, v: f32, n: u32);

/// `scale<double>(double*, double, unsigned int)`, by its template name, from NVRTC.
#[kernel(cuda = "kernels/templates.cu", name = "scale<double>")]
fn scale_f64(x: &mut CudaSlice<f64>, f: f64, n: u32);

/// `offset_add` declared with a read-only buffer for its `float*` and `i32` for its
/// `unsigned int`: NVRTC's output is checked before the launch, which must not run.
/// `-default-device` (NVRTC's alone) keeps the compile-time nvcc from refusing it first.
#[allow(deprecated)] // checked at run time (the warning says why)
#[kernel(cuda = "kernels/templates.cu", name = "offset_add", options = ["-default-device"])]
fn offset_add_wrong(y: &CudaSlice<f32>, v: f32, n: i32);

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_template_instance_from_ptx() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.default_stream();
    let (rows, cols4) = (37usize, 300usize);
    let host: Vec<Float4> = (0..rows * cols4)
        .map(|i| {
            let v = (i % 53) as f32 * 0.5 - 7.0;
            Float4::new(v, v + 1.0, -v, 0.25)
        })
        .collect();
    let input = stream.clone_htod(&host)?;
    let mut sums = stream.clone_htod(&vec![f32::NAN; rows])?;
    unsafe {
        launch!(row_sums_128<<<rows as u32, 128, &stream>>>(&mut sums, &input, cols4 as i32))
    }?;
    let got = stream.clone_dtoh(&sums)?;
    for (r, g) in got.iter().enumerate() {
        let want: f64 = host[r * cols4..(r + 1) * cols4]
            .iter()
            .map(|v| f64::from(v.x + v.y + v.z + v.w))
            .sum();
        assert!(
            (f64::from(*g) - want).abs() <= 1e-4 * want.abs().max(1.0),
            "row {r}: {g} vs {want}"
        );
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cpp_kernels_from_nvrtc_by_their_cpp_names() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.default_stream();
    let n = 10_000u32;
    let y_host: Vec<f32> = (0..n).map(|i| (i % 91) as f32 - 45.0).collect();
    let mut y = stream.clone_htod(&y_host)?;
    unsafe { launch!(offset_add<<<n.div_ceil(256), 256, &stream>>>(&mut y, 2.5, n)) }?;
    let got = stream.clone_dtoh(&y)?;
    for (i, (g, h)) in got.iter().zip(&y_host).enumerate() {
        assert_eq!(*g, h + 2.5, "offset_add at {i}");
    }

    let x_host: Vec<f64> = (0..n).map(|i| f64::from(i % 77) * 0.5 - 3.0).collect();
    let mut x = stream.clone_htod(&x_host)?;
    unsafe { launch!(scale_f64<<<n.div_ceil(256), 256, &stream>>>(&mut x, -1.5, n)) }?;
    let got = stream.clone_dtoh(&x)?;
    for (i, (g, h)) in got.iter().zip(&x_host).enumerate() {
        assert_eq!(*g, h * -1.5, "scale<double> at {i}");
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn nvrtc_output_is_checked_against_the_cpp_signature() -> TestResult {
    let ctx = gpu::context(0)?;
    let stream = ctx.default_stream();
    let n = 1024u32;
    let y_host: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let y = stream.clone_htod(&y_host)?;
    let result =
        unsafe { launch!(offset_add_wrong<<<n.div_ceil(256), 256, &stream>>>(&y, 1.0, n as i32)) };
    match result {
        Err(Error::Signature { message, .. }) => {
            assert!(
                message.contains(
                    "`y: &CudaSlice<f32>` is read-only (`&`), but the kernel takes `float*` here \
                     (parameter 1 of `offset_add(float*, float, unsigned int)`"
                ),
                "{message}"
            );
            assert!(
                message.contains(
                    "`n: i32` is a signed 32-bit integer, but the kernel takes `unsigned int` here"
                ),
                "{message}"
            );
        }
        other => panic!("expected Error::Signature, got {other:?}"),
    }
    // Refused before launching: the buffer is as it was.
    assert_eq!(stream.clone_dtoh(&y)?, y_host);
    Ok(())
}
