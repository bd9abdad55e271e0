//! Misuse on a real GPU is a typed error whose message says what is wrong and what to do: each
//! test provokes one, matches the variant and asserts the words of the message, and prints the
//! message (the lead quotes it). Run on a machine with a CUDA GPU:
//! `cargo test --test misuse_gpu -- --ignored --nocapture`.
//!
//! The sticky error of a trapping kernel has its own binary (`tests/sticky_gpu.rs`): it makes
//! the context unusable for the rest of the process.

#[path = "common/gpu.rs"]
mod gpu;

use std::sync::Arc;

use chevron::cudarc::driver::{sys, CudaContext, CudaSlice, CudaStream};
use chevron::cudarc::nvrtc::Ptx;
use chevron::{kernel, launch, Error, Kernel, KernelName};

type TestResult = Result<(), Box<dyn std::error::Error>>;

#[kernel(ptx = "kernels/saxpy.ptx")]
fn saxpy(n: u32, a: f32, x: &CudaSlice<f32>, y: &mut CudaSlice<f32>);

#[allow(deprecated)] // without nvcc: checked at run time (a warning otherwise)
#[kernel(cuda = "ui-tests/fixtures/kernel_broken.cu")]
fn broken(out: &mut CudaSlice<f32>);

const CLUSTER: &str = include_str!("../kernels/cluster.ptx");

fn setup() -> Result<(Arc<CudaContext>, Arc<CudaStream>), Error> {
    let ctx = gpu::context(0)?;
    let stream = ctx.new_stream()?;
    Ok((ctx, stream))
}

/// Launches saxpy (a = 2, x = i, y = 1) on 4096 elements through `launch!` with `priority`
/// as a launch attribute, or as a stream attribute when `on_stream`, and checks y = 2·i + 1.
fn saxpy_with_priority(
    stream: &Arc<CudaStream>,
    priority: i32,
    on_stream: bool,
) -> Result<(), Error> {
    let n = 4096u32;
    let x: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let x = stream.clone_htod(&x)?;
    let mut y = stream.clone_htod(&vec![1.0f32; n as usize])?;
    if on_stream {
        unsafe {
            launch!(saxpy<<<n.div_ceil(256), 256, stream, stream(priority = priority)>>>(
                n, 2.0, &x, &mut y))
        }?;
    } else {
        unsafe {
            launch!(saxpy<<<n.div_ceil(256), 256, stream, priority = priority>>>(
                n, 2.0, &x, &mut y))
        }?;
    }
    let y = stream.clone_dtoh(&y)?;
    for (i, v) in y.iter().enumerate() {
        assert_eq!(*v, 2.0 * i as f32 + 1.0, "y[{i}] with priority {priority}");
    }
    Ok(())
}

// cudarc 0.19 offers `CudaContext::new_non_primary` up to its CUDA 13.1 bindings.
#[cfg(not(any(feature = "cuda-13020", feature = "cuda-13030", feature = "cuda-13040")))]
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_function_of_another_context_is_a_wrong_context_error() -> TestResult {
    const SAXPY: &str = include_str!("../kernels/saxpy.ptx");
    const POISON: f32 = -12345.5;
    let (_ctx, stream) = setup()?;
    // A second, non-primary context on the same device, with the kernel loaded there.
    let other = CudaContext::new_non_primary(0, 0)?;
    let f = other
        .load_module(Ptx::from_src(SAXPY))?
        .load_function("saxpy")?;
    let n = 1024u32;
    let x = stream.clone_htod(&vec![1.0f32; n as usize])?;
    let mut y = stream.clone_htod(&vec![POISON; n as usize])?;
    let r = unsafe { launch!(dyn f<<<4, 256, &stream>>>(&n, &2.0f32, &x, &mut y)) };
    let e = r.expect_err("a function of another context must not launch on this stream");
    println!("function of another context: {e}");
    assert!(
        matches!(
            e,
            Error::WrongContext {
                stream_device: 0,
                function_device: 0,
                ..
            }
        ),
        "{e:?}"
    );
    let m = e.to_string();
    assert!(
        m.contains(
            "its function was loaded in another CUDA context (on device 0) than the stream's"
        ),
        "{m}"
    );
    assert!(m.contains("stream.context().load_module"), "{m}");
    // Nothing ran.
    assert_eq!(stream.clone_dtoh(&y)?, vec![POISON; n as usize]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_cluster_that_cannot_be_resident_is_a_typed_error() -> TestResult {
    let (ctx, stream) = setup()?;
    let f = ctx
        .load_module(Ptx::from_src(CLUSTER))?
        .load_function("cluster_info")?;
    let optin = ctx
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?
        as u32;
    // The largest cluster (16 blocks, non-portable) of blocks that each need a whole SM's shared
    // memory: resident only where one GPC has 16 free SMs. More shared memory than `optin` is
    // refused earlier (`SharedMemoryTooLarge`), so this is the hardest shape that reaches the
    // driver. Whether it fits depends on the chip's GPCs: either answer must be consistent.
    let shared = optin;
    let blocks = 32u32;
    let mut out = stream.clone_htod(&vec![0xDEAD_BEEFu32; 2 * blocks as usize])?;
    let r = unsafe {
        launch!(dyn f<<<blocks, 1024, &stream, cluster = 16, non_portable_cluster,
            shared = shared>>>(&mut out))
    };
    let cfg =
        chevron::config!(<<<blocks, 1024, cluster = 16, non_portable_cluster, shared = shared>>>);
    match r {
        Ok(()) => {
            let got = stream.clone_dtoh(&out)?;
            let sizes: Vec<u32> = got.iter().step_by(2).copied().collect();
            assert!(sizes.iter().all(|&c| c == 16), "{sizes:?}");
            let k = chevron::max_active_clusters(&ctx, &f, &cfg)?;
            println!(
                "cluster of 16 blocks × 1024 threads × {shared} bytes: launched, every block saw \
                 16; cuOccupancyMaxActiveClusters = {k} on this device, so ClusterNotResident \
                 cannot be provoked here"
            );
            assert!(
                k > 0,
                "the launch succeeded, the occupancy query must agree"
            );
        }
        Err(e) => {
            println!("cluster that cannot be resident ({shared} bytes per block): {e}");
            assert!(
                matches!(e, Error::ClusterNotResident { shared: s, .. } if s == shared),
                "{e:?}"
            );
            let m = e.to_string();
            assert!(m.contains("cuOccupancyMaxActiveClusters is 0"), "{m}");
            assert!(m.contains("use fewer blocks per cluster"), "{m}");
        }
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn priority_outside_the_range_is_clamped_or_a_typed_error() -> TestResult {
    let (ctx, stream) = setup()?;
    let (mut least, mut greatest) = (0i32, 0i32);
    ctx.bind_to_thread()?;
    // SAFETY: two valid out-pointers; the context is current.
    let rc = unsafe { sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest) };
    assert_eq!(rc, sys::cudaError_enum::CUDA_SUCCESS);
    println!("stream priority range of device 0: {greatest} (highest) to {least} (lowest)");
    for on_stream in [false, true] {
        let place = if on_stream { "stream" } else { "launch" };
        for priority in [least + 1000, greatest - 1000, least, greatest] {
            let outside = priority > least || priority < greatest;
            match saxpy_with_priority(&stream, priority, on_stream) {
                Ok(()) if on_stream => {
                    // What the stream kept: the value given, or the clamped one.
                    let kept = chevron::stream_attribute::<chevron::Priority>(&stream)?;
                    println!(
                        "{place} priority {priority}: accepted, results correct, the stream \
                         reports {kept:?}{}",
                        if outside {
                            " (the driver clamps or ignores it)"
                        } else {
                            ""
                        }
                    );
                }
                Ok(()) => println!(
                    "{place} priority {priority}: accepted, results correct{}",
                    if outside {
                        " (the driver clamps it)"
                    } else {
                        ""
                    }
                ),
                Err(e @ Error::PriorityOutOfRange { .. }) => {
                    println!("{place} priority {priority}: {e}");
                    assert!(outside, "{e}");
                    let m = e.to_string();
                    assert!(
                        m.contains(&format!("is {priority}, outside this device's range")),
                        "{m}"
                    );
                }
                Err(e) => panic!("{place} priority {priority}: {e}"),
            }
        }
    }
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
#[allow(deprecated)] // `programmatic_event` on saxpy, which never triggers: only the event matters
fn a_timing_event_in_a_launch_is_a_typed_error_with_the_fix() -> TestResult {
    let (ctx, stream) = setup()?;
    let n = 1024u32;
    let x = stream.clone_htod(&vec![1.0f32; n as usize])?;
    let mut y = stream.clone_htod(&vec![0.5f32; n as usize])?;
    let timing = ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))?;
    let r = unsafe {
        launch!(saxpy<<<4, 256, &stream, completion_event = &timing>>>(n, 2.0, &x, &mut y))
    };
    let e = r.expect_err("a timing-enabled completion event");
    println!("completion_event with timing: {e}");
    assert!(matches!(e, Error::EventRefused { .. }), "{e:?}");
    let m = e.to_string();
    assert!(
        m.starts_with(
            "`completion_event (CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT)` for `saxpy`"
        ),
        "{m}"
    );
    assert!(m.contains("created with timing disabled"), "{m}");
    assert!(m.contains("CU_EVENT_DISABLE_TIMING"), "{m}");

    let r = unsafe {
        launch!(saxpy<<<4, 256, &stream, programmatic_event = &timing>>>(n, 2.0, &x, &mut y))
    };
    let e = r.expect_err("a timing-enabled programmatic event");
    println!("programmatic_event with timing: {e}");
    assert!(
        e.to_string()
            .starts_with("`programmatic_event (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT)`"),
        "{e}"
    );
    assert!(e.to_string().contains("CU_EVENT_DISABLE_TIMING"), "{e}");

    // The fix works: the same launches with cudarc's default event (timing disabled).
    let event = ctx.new_event(None)?;
    unsafe { launch!(saxpy<<<4, 256, &stream, completion_event = &event>>>(n, 2.0, &x, &mut y)) }?;
    unsafe {
        launch!(saxpy<<<4, 256, &stream, programmatic_event = &event>>>(n, 2.0, &x, &mut y))
    }?;
    // Two launches of y = 2·1 + y on y = 0.5 (the refused ones did not run).
    assert_eq!(stream.clone_dtoh(&y)?, vec![4.5f32; n as usize]);
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn an_nvrtc_compile_error_carries_the_log_in_its_message() -> TestResult {
    let (ctx, _stream) = setup()?;
    let e = broken::kernel()
        .function(&ctx)
        .expect_err("kernel_broken.cu does not compile");
    let m = e.to_string();
    println!("NVRTC compile error: {m}");
    assert!(
        matches!(
            e,
            Error::Compile {
                kernel: KernelName(Some("broken")),
                ..
            }
        ),
        "{e:?}"
    );
    assert!(
        m.starts_with("NVRTC failed to compile for `broken`:\n"),
        "{m}"
    );
    assert!(m.contains("undefined_identifier"), "{m}");
    assert!(m.contains("kernel_broken.cu"), "{m}");
    assert!(
        m.contains(" options: --gpu-architecture=sm_") && m.contains("(NVRTC "),
        "{m}"
    );
    Ok(())
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_kernel_missing_from_its_module_is_a_typed_error_listing_the_kernels() -> TestResult {
    static MISSING: Kernel = Kernel::ptx(
        "saxpi",
        "saxpi",
        concat!(env!("CARGO_MANIFEST_DIR"), "/kernels/saxpy.ptx"),
        include_str!("../kernels/saxpy.ptx"),
    );
    let (ctx, _stream) = setup()?;
    let e = MISSING.get(&ctx).expect_err("no `saxpi` in saxpy.ptx");
    let m = e.to_string();
    println!("kernel missing at run time: {m}");
    assert!(
        matches!(
            e,
            Error::MissingKernel {
                kernel: KernelName(Some("saxpi")),
                ..
            }
        ),
        "{e:?}"
    );
    assert!(m.starts_with("no kernel `saxpi` in `"), "{m}");
    assert!(m.contains("its kernels are: `saxpy`"), "{m}");
    assert!(m.contains("CUDA_ERROR_NOT_FOUND"), "{m}");
    // Asked again, the same answer (nothing half-cached).
    assert!(matches!(
        MISSING.get(&ctx),
        Err(Error::MissingKernel { .. })
    ));
    Ok(())
}
