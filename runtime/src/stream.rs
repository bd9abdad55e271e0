//! Stream attributes outside a launch.

use cudarc::driver::CudaStream;

use crate::attr::{Reached, StreamAttribute};
use crate::driver;
use crate::error::{Error, KernelName};
/// Sets a stream attribute with `cuStreamSetAttribute`. Only kinds the driver accepts on a
/// stream compile:
///
/// ```no_run
/// # fn main() -> Result<(), chevron::Error> {
/// use chevron::{context, set_stream_attribute, stream_attribute, SyncPolicy};
/// let stream = context(0)?.default_stream();
/// set_stream_attribute(&stream, SyncPolicy::Spin)?;
/// assert_eq!(stream_attribute::<SyncPolicy>(&stream)?, Some(SyncPolicy::Spin));
/// # Ok(()) }
/// ```
///
/// ```compile_fail,E0277
/// # fn f(stream: &chevron::cudarc::driver::CudaStream) {
/// chevron::set_stream_attribute(stream, chevron::Cooperative); // launch only
/// # }
/// ```
pub fn set_stream_attribute<A: StreamAttribute>(stream: &CudaStream, attr: A) -> Result<(), Error>
where
    A::Since: Reached<A>,
{
    stream
        .context()
        .bind_to_thread()
        .map_err(|e| Error::driver("cuCtxSetCurrent", KernelName(None), e))?;
    driver::set_stream_attribute(stream, A::ID, &attr.value(), KernelName(None))
}

/// Reads a stream attribute with `cuStreamGetAttribute`; `None` where the stream has no value of
/// that kind (a fresh stream's sync policy, which the driver reports as -1).
pub fn stream_attribute<A: StreamAttribute>(stream: &CudaStream) -> Result<Option<A>, Error>
where
    A::Since: Reached<A>,
{
    stream
        .context()
        .bind_to_thread()
        .map_err(|e| Error::driver("cuCtxSetCurrent", KernelName(None), e))?;
    Ok(A::from_stream_value(&driver::stream_attribute(
        stream,
        A::ID,
    )?))
}
