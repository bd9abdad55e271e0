//! What may cross threads, checked at compile time: a config built on one thread can be used to
//! launch on another, a kernel's cache lives in a `static` shared by every thread, errors go
//! through `Box<dyn Error + Send + Sync>` and across `join`.

use chevron::{
    ClusterDim, CompletionEvent, Dim3, Error, Kernel, KernelName, LaunchConfig, ProgrammaticEvent,
    SyncPolicy, Violation,
};

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn configs_kernels_and_errors_are_send_and_sync() {
    assert_send_sync::<LaunchConfig<'static>>();
    assert_send_sync::<LaunchConfig<'_>>();
    assert_send_sync::<Kernel>();
    assert_send_sync::<&'static Kernel>();
    assert_send_sync::<Error>();
    assert_send_sync::<KernelName>();
    assert_send_sync::<Violation>();
    assert_send_sync::<Dim3>();
    assert_send_sync::<ClusterDim>();
    assert_send_sync::<SyncPolicy>();
    assert_send_sync::<CompletionEvent<'static>>();
    assert_send_sync::<ProgrammaticEvent<'static>>();
    // And `?` into the usual boxed error of threaded code.
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(Error::NoDriver);
    assert!(boxed.to_string().starts_with("no CUDA driver"));
}

#[test]
fn a_config_built_on_one_thread_is_read_on_another() {
    let cfg = LaunchConfig::new((64, 2, 1), 256)
        .with(ClusterDim::new(2, 1, 1))
        .with_stream(SyncPolicy::Spin);
    let (grid, attrs) = std::thread::scope(|s| {
        s.spawn(|| (cfg.grid(), cfg.launch_attributes().len()))
            .join()
            .expect("the reader thread")
    });
    assert_eq!(grid, Dim3::new(64, 2, 1));
    assert_eq!(attrs, 1);
}
