//! A launch asks the driver for the current context only the first time on a thread (and after
//! chevron bound another context); from then on it compares with the context it last bound.
//! Other code can still change the thread's current context behind chevron's back (cudarc's
//! calls on another context, a raw `cuCtxSetCurrent`, another library): these tests do that
//! before each launch, typed and `dyn`, on a created stream and on the default stream (which
//! stands for the current context's), with and without stream attributes, and check every
//! result against the host. Run on a machine with a GPU:
//! `cargo test --test context_gpu -- --ignored --nocapture`.

#[path = "common/gpu.rs"]
mod gpu;

use std::error::Error;
use std::sync::Arc;

use chevron::cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use chevron::cudarc::nvrtc::Ptx;
use chevron::{kernel, launch, sys};

type TestResult = Result<(), Box<dyn Error>>;

const SAXPY: &str = include_str!("../kernels/saxpy.ptx");
const POISON: f32 = -12345.5;
const N: u32 = 1000;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

/// Deterministic, irregular data in [-8, 8).
fn data(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed.wrapping_mul(6364136223846793005) | 1;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 40) as f32 / (1u64 << 24) as f32) * 16.0 - 8.0
        })
        .collect()
}

/// The thread's current context, from the driver.
fn current() -> sys::CUcontext {
    let mut c = std::ptr::null_mut();
    assert_eq!(
        unsafe { sys::cuCtxGetCurrent(&mut c) },
        sys::cudaError_enum::CUDA_SUCCESS
    );
    c
}

/// Whether the driver takes a stream attribute on `stream` (the default stream may refuse them):
/// sets the policy the stream-attribute launches set anyway.
fn stream_attributes_work(stream: &CudaStream) -> bool {
    use chevron::{Attribute, SyncPolicy};
    stream.context().bind_to_thread().unwrap();
    let value = SyncPolicy::Spin.value();
    let rc = unsafe { sys::cuStreamSetAttribute(stream.cu_stream(), SyncPolicy::ID, &value) };
    rc == sys::cudaError_enum::CUDA_SUCCESS
}

/// How each launch is made.
#[derive(Clone, Copy, Debug)]
enum How {
    Typed,
    TypedStreamAttribute,
    Dyn,
}

/// Launches `saxpy` with `a` on `stream` as `how` says, `change` having run just before; checks
/// every element of y (poisoned past `N`) against the host.
fn launch_after(stream: &Arc<CudaStream>, how: How, seed: u64, change: &dyn Fn()) -> TestResult {
    let ctx = stream.context();
    let f = match how {
        How::Dyn => Some(
            ctx.load_module(Ptx::from_src(SAXPY))?
                .load_function("saxpy")?,
        ),
        _ => None,
    };
    let (x_host, y_host) = (data(N as usize, seed), data(N as usize + 24, seed + 1));
    let mut y_init = y_host.clone();
    y_init[N as usize..].fill(POISON);
    let x = stream.clone_htod(&x_host)?;
    let mut y = stream.clone_htod(&y_init)?;
    stream.synchronize()?;
    let a = 0.5 + seed as f32;
    change();
    unsafe {
        match how {
            How::Typed => launch!(saxpy<<<N.div_ceil(128), 128, stream>>>(N, a, &x, &mut y)),
            How::TypedStreamAttribute => launch!(saxpy<<<N.div_ceil(128), 128, stream,
                stream(sync = Spin)>>>(N, a, &x, &mut y)),
            How::Dyn => {
                let f = f.as_ref().expect("loaded above");
                launch!(dyn f<<<N.div_ceil(128), 128, stream>>>(&N, &a, &x, &mut y))
            }
        }
    }
    .map_err(|e| format!("{how:?} launch on stream {:?}: {e}", stream.cu_stream()))?;
    let got = stream.clone_dtoh(&y)?;
    for i in 0..N as usize {
        assert_eq!(got[i], a.mul_add(x_host[i], y_host[i]), "{how:?}: y[{i}]");
    }
    assert!(
        got[N as usize..].iter().all(|v| *v == POISON),
        "{how:?}: past n written"
    );
    Ok(())
}

/// Every launch form on a created stream and on the default stream, each after `change`.
fn every_form_after(ctx: &Arc<CudaContext>, change: &dyn Fn()) -> TestResult {
    let created = ctx.new_stream()?;
    let default = ctx.default_stream();
    let mut seed = 1;
    for stream in [&created, &default] {
        for how in [How::Typed, How::TypedStreamAttribute, How::Dyn] {
            if matches!(how, How::TypedStreamAttribute) && !stream_attributes_work(stream) {
                println!(
                    "the driver refuses stream attributes on stream {:?}: that form is skipped there",
                    stream.cu_stream()
                );
                continue;
            }
            // A first launch on this thread binds the context and remembers it…
            launch_after(stream, how, seed, &|| {})?;
            // …then other code changes the current context before the next one.
            launch_after(stream, how, seed + 1, change)?;
            seed += 2;
        }
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn launches_find_their_context_after_other_code_unbinds_it() -> TestResult {
    let ctx = gpu::context(0)?;
    every_form_after(&ctx, &|| {
        // No context current at all.
        assert_eq!(
            unsafe { sys::cuCtxSetCurrent(std::ptr::null_mut()) },
            sys::cudaError_enum::CUDA_SUCCESS
        );
        assert!(current().is_null());
    })?;
    println!("after cuCtxSetCurrent(NULL): every launch form ran and matched the host");
    Ok(())
}

// cudarc 0.19 offers `CudaContext::new_non_primary` up to its CUDA 13.1 bindings.
#[cfg(not(any(feature = "cuda-13020", feature = "cuda-13030", feature = "cuda-13040")))]
#[test]
#[ignore = "needs a CUDA GPU"]
fn launches_find_their_context_after_other_code_binds_another() -> TestResult {
    let ctx = gpu::context(0)?;
    // A second context on the same device, made current by cudarc as other code would.
    let other = CudaContext::new_non_primary(0, 0)?;
    every_form_after(&ctx, &|| {
        other.bind_to_thread().expect("binding the other context");
        assert_eq!(current(), other.cu_ctx());
    })?;
    // The other context still works, through chevron too.
    let s = other.new_stream()?;
    launch_after(&s, How::Typed, 99, &|| {})?;
    launch_after(&s, How::Dyn, 101, &|| ctx.bind_to_thread().unwrap())?;
    println!("after binding a second context: every launch form ran and matched the host");
    Ok(())
}

/// An error cudarc recorded where it could not return one (in a `Drop`, or a wait its pointer
/// guards enqueued) is reported by the next launch, which then launches nothing; the launch
/// after it runs. Each launch form, on a created stream and on the default stream, on the
/// launch's straight path (the context already bound by this thread) and on its general one
/// (a stream attribute).
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_recorded_error_is_reported_by_the_next_launch_which_runs_nothing() -> TestResult {
    use chevron::cudarc::driver::DriverError;
    use chevron::LaunchConfig;
    #[derive(Clone, Copy, Debug)]
    enum Form {
        Typed,
        TypedStreamAttribute,
        KernelLaunch,
        LaunchFunction,
        Dyn,
    }
    let ctx = gpu::context(0)?;
    let f = ctx
        .load_module(Ptx::from_src(SAXPY))?
        .load_function("saxpy")?;
    let (created, default) = (ctx.new_stream()?, ctx.default_stream());
    let mut checked = 0;
    for stream in [&created, &default] {
        let (x_host, y_host) = (data(N as usize, 7), data(N as usize, 8));
        let x = stream.clone_htod(&x_host)?;
        let mut y = stream.clone_htod(&y_host)?;
        let config = LaunchConfig::new(N.div_ceil(128), 128u32);
        for form in [
            Form::Typed,
            Form::TypedStreamAttribute,
            Form::KernelLaunch,
            Form::LaunchFunction,
            Form::Dyn,
        ] {
            if matches!(form, Form::TypedStreamAttribute) && !stream_attributes_work(stream) {
                continue;
            }
            let mut run = |a: f32| -> Result<(), chevron::Error> {
                unsafe {
                    match form {
                        Form::Typed => {
                            launch!(saxpy<<<N.div_ceil(128), 128, stream>>>(N, a, &x, &mut y))
                        }
                        Form::TypedStreamAttribute => launch!(saxpy<<<N.div_ceil(128), 128,
                            stream, stream(sync = Spin)>>>(N, a, &x, &mut y)),
                        Form::KernelLaunch => {
                            saxpy::kernel().launch(stream, &config, (N, a, &x, &mut y))
                        }
                        Form::LaunchFunction => {
                            use chevron::cudarc::driver::{DevicePtr, DevicePtrMut};
                            let (px, _rx) = x.device_ptr(stream);
                            let (py, _wy) = y.device_ptr_mut(stream);
                            let mut params = [
                                &N as *const u32 as *mut _,
                                &a as *const f32 as *mut _,
                                &px as *const u64 as *mut _,
                                &py as *const u64 as *mut _,
                            ];
                            chevron::launch_function(stream, &f, &config, &mut params)
                        }
                        Form::Dyn => {
                            launch!(dyn f<<<N.div_ceil(128), 128, stream>>>(&N, &a, &x, &mut y))
                        }
                    }
                }
            };
            // Binds the context (the next launch may take the straight path), y = 1·x + y.
            run(1.0).map_err(|e| format!("{form:?}: {e}"))?;
            ctx.record_err::<()>(Err(DriverError(
                sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE,
            )));
            match run(100.0) {
                Err(chevron::Error::Driver { source, .. })
                    if source.0 == sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE => {}
                other => panic!("{form:?} on {:?}: {other:?}", stream.cu_stream()),
            }
            // Reported once: y = 2·x + y, the refused launch added nothing.
            run(1.0).map_err(|e| format!("{form:?}: {e}"))?;
            let got = stream.clone_dtoh(&y)?;
            let want: Vec<f32> = x_host
                .iter()
                .zip(&y_host)
                .map(|(x, y)| 1f32.mul_add(*x, 1f32.mul_add(*x, *y)))
                .collect();
            assert_eq!(got, want, "{form:?} on {:?}", stream.cu_stream());
            // The next form starts from what this one left.
            y = stream.clone_htod(&y_host)?;
            checked += 1;
        }
    }
    println!("{checked} forms × streams: the recorded error reported once, nothing launched");
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn each_thread_binds_its_own_context() -> TestResult {
    let ctx = gpu::context(0)?;
    // A thread that never launched, whose first launch must bind: 8 at once, each changing its
    // own current context between launches.
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8u64)
            .map(|t| {
                let ctx = Arc::clone(&ctx);
                scope.spawn(move || -> Result<(), String> {
                    let s = ctx.new_stream().map_err(|e| e.to_string())?;
                    for round in 0..20u64 {
                        let seed = 1000 * t + 2 * round;
                        launch_after(&s, How::Typed, seed, &|| unsafe {
                            sys::cuCtxSetCurrent(std::ptr::null_mut());
                        })
                        .map_err(|e| format!("thread {t} round {round}: {e}"))?;
                        launch_after(&s, How::Dyn, seed + 1, &|| {})
                            .map_err(|e| format!("thread {t} round {round}: {e}"))?;
                    }
                    Ok(())
                })
            })
            .collect();
        for h in handles {
            h.join().expect("a thread panicked")?;
        }
        Ok::<(), String>(())
    })?;
    println!("8 threads × 20 rounds, context unbound before every other launch: all exact");
    Ok(())
}
