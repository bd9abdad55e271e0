//! The driver and where work goes: whether the driver library is there, opening a device's
//! context, whether a stream is capturing a graph. What every other module may ask first.

use std::sync::Arc;

use cudarc::driver::result as cu;
use cudarc::driver::{CudaContext, CudaStream};

use crate::driver;
use crate::error::{Error, KernelName};
use crate::sys;

/// Whether the CUDA driver library can be loaded; checked once per process.
pub fn driver_present() -> bool {
    use std::sync::OnceLock;
    static PRESENT: OnceLock<bool> = OnceLock::new();
    *PRESENT.get_or_init(driver::culib_present)
}

/// `Err(Error::NoDriver)` unless the driver library can be loaded. Call before anything that
/// would make cudarc load it (cudarc panics when it is missing).
pub fn ensure_driver() -> Result<(), Error> {
    if driver_present() {
        Ok(())
    } else {
        Err(Error::NoDriver)
    }
}

/// Opens the primary context of device `ordinal`: `Error::NoDriver` on a machine without a CUDA
/// driver, where cudarc's `CudaContext::new` would panic.
///
/// ```
/// match chevron::context(0) {
///     Ok(ctx) => println!("{}", ctx.name().unwrap_or_default()),
///     Err(chevron::Error::NoDriver) => println!("no GPU here"),
///     Err(e) => println!("{e}"),
/// }
/// ```
pub fn context(ordinal: usize) -> Result<Arc<CudaContext>, Error> {
    ensure_driver()?;
    CudaContext::new(ordinal).map_err(|e| Error::driver("cuCtxCreate", KernelName(None), e))
}

/// Whether `stream` is capturing a graph.
pub fn is_capturing(stream: &CudaStream) -> bool {
    // SAFETY: the stream is live.
    unsafe { cu::stream::is_capturing(stream.cu_stream()) }
        .is_ok_and(|s| s == sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE)
}
