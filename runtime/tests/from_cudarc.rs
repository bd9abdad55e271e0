//! `?` on cudarc's own calls in a function returning chevron's `Error`: the conversions compile
//! and keep what cudarc's error holds. Formatting a `DriverError` asks the driver for its text, so
//! without a driver (CI) the tests look at the fields, not at the message.

use std::ffi::CString;

use chevron_cuda_runtime::{context, driver_present, Error, KernelName};
use cudarc::driver::{sys::CUresult, DriverError};
use cudarc::nvrtc::{self, result::NvrtcError, sys::nvrtcResult};

/// The calls a user of cudarc and chevron makes around a launch, each with `?`.
fn round_trip_through_cudarc() -> Result<Vec<f32>, Error> {
    let ctx = context(0)?; // chevron's error
    let stream = ctx.new_stream()?; // cudarc's DriverError from here on
    let ptx = nvrtc::compile_ptx("extern \"C\" __global__ void k() {}")?; // cudarc's CompileError
    let module = ctx.load_module(ptx)?;
    let _k = module.load_function("k")?;
    let x = stream.clone_htod(&[1.0f32, 2.0, 3.0])?;
    Ok(stream.clone_dtoh(&x)?)
}

#[test]
fn question_mark_without_a_driver_stops_at_the_first_call() {
    if driver_present() {
        // The GPU tests launch through the same conversions; nothing to check here.
        return;
    }
    assert!(matches!(round_trip_through_cudarc(), Err(Error::NoDriver)));
}

#[test]
fn a_driver_error_becomes_error_driver_with_its_code() {
    let e = Error::from(DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY));
    match e {
        Error::Driver {
            call,
            kernel,
            attributes,
            source,
        } => {
            assert_eq!(call, "a cudarc call");
            assert_eq!(kernel, KernelName(None));
            assert!(attributes.is_empty(), "{attributes}");
            assert_eq!(source.0, CUresult::CUDA_ERROR_OUT_OF_MEMORY);
        }
        other => panic!(
            "want Error::Driver, got a different variant: {}",
            variant(&other)
        ),
    }
}

#[test]
fn an_nvrtc_compile_error_becomes_error_compile_with_the_log() {
    let e = Error::from(nvrtc::CompileError::CompileError {
        nvrtc: NvrtcError(nvrtcResult::NVRTC_ERROR_COMPILATION),
        options: vec!["--gpu-architecture=compute_90".to_owned()],
        log: CString::new("k.cu(1): error: identifier \"x\" is undefined").unwrap(),
    });
    let Error::Compile { kernel, log } = &e else {
        panic!(
            "want Error::Compile, got a different variant: {}",
            variant(&e)
        );
    };
    assert_eq!(*kernel, KernelName(None));
    assert!(log.contains("identifier \"x\" is undefined"), "{log}");
    assert!(log.contains("compute_90"), "{log}");
    assert!(
        e.to_string().starts_with("NVRTC failed to compile:\n"),
        "{e}"
    );
}

/// The variant's name, without formatting a `DriverError` (which needs the driver).
fn variant(e: &Error) -> &'static str {
    match e {
        Error::NoDriver => "NoDriver",
        Error::Driver { .. } => "Driver",
        Error::Compile { .. } => "Compile",
        _ => "another variant",
    }
}
