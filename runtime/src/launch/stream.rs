//! Stream attributes outside a launch.

use cudarc::driver::CudaStream;

use crate::config::attr::{Reached, StreamAttribute};
use crate::driver;
use crate::error::{Error, KernelName};
use crate::launch::explain::stream_attribute_error;

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
    let value = attr.value();
    driver::set_stream_attribute(stream, A::ID, &value).map_err(|source| {
        let call = "cuStreamSetAttribute";
        stream_attribute_error(call, A::ID, Some(&value), KernelName(None), source)
    })
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
    let value = driver::stream_attribute(stream, A::ID).map_err(|source| {
        stream_attribute_error(
            "cuStreamGetAttribute",
            A::ID,
            None,
            KernelName(None),
            source,
        )
    })?;
    Ok(A::from_stream_value(&value))
}
