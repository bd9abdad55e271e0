//! Stream attributes outside a launch.

use cudarc::driver::CudaStream;

use crate::attr::StreamAttribute;
use crate::error::{Error, KernelName};
use crate::sys;

fn stream_error(call: &'static str, key: &str, cuda_name: &str, rc: sys::CUresult) -> Error {
    Error::Driver {
        call,
        kernel: KernelName(None),
        attributes: format!("stream {key} ({cuda_name})"),
        source: cudarc::driver::DriverError(rc),
    }
}

/// Sets a stream attribute with `cuStreamSetAttribute`. Only kinds the driver accepts on a
/// stream compile:
///
/// ```no_run
/// # fn main() -> Result<(), chevron_cuda_runtime::Error> {
/// use chevron_cuda_runtime::{context, set_stream_attribute, stream_attribute, SyncPolicy};
/// let stream = context(0)?.default_stream();
/// set_stream_attribute(&stream, SyncPolicy::Spin)?;
/// assert_eq!(stream_attribute::<SyncPolicy>(&stream)?, Some(SyncPolicy::Spin));
/// # Ok(()) }
/// ```
///
/// ```compile_fail
/// # fn f(stream: &chevron_cuda_runtime::cudarc::driver::CudaStream) {
/// chevron_cuda_runtime::set_stream_attribute(stream, chevron_cuda_runtime::Cooperative); // launch only
/// # }
/// ```
pub fn set_stream_attribute<A: StreamAttribute>(stream: &CudaStream, attr: A) -> Result<(), Error> {
    stream
        .context()
        .bind_to_thread()
        .map_err(|e| Error::driver("cuCtxSetCurrent", KernelName(None), e))?;
    let value = attr.value();
    // SAFETY: the stream is live and the value was built for `A::ID`.
    let rc = unsafe { sys::cuStreamSetAttribute(stream.cu_stream(), A::ID, &value) };
    match rc {
        sys::cudaError_enum::CUDA_SUCCESS => Ok(()),
        rc => Err(stream_error(
            "cuStreamSetAttribute",
            A::KEY,
            A::CUDA_NAME,
            rc,
        )),
    }
}

/// Reads a stream attribute with `cuStreamGetAttribute`; `None` where the stream has no value of
/// that kind (a fresh stream's sync policy, which the driver reports as -1).
pub fn stream_attribute<A: StreamAttribute>(stream: &CudaStream) -> Result<Option<A>, Error> {
    stream
        .context()
        .bind_to_thread()
        .map_err(|e| Error::driver("cuCtxSetCurrent", KernelName(None), e))?;
    let mut value = sys::CUstreamAttrValue { pad: [0; 64] };
    // SAFETY: the stream is live and `value` is a valid out-pointer of the right type.
    let rc = unsafe { sys::cuStreamGetAttribute(stream.cu_stream(), A::ID, &mut value) };
    match rc {
        sys::cudaError_enum::CUDA_SUCCESS => Ok(A::from_stream_value(&value)),
        rc => Err(stream_error(
            "cuStreamGetAttribute",
            A::KEY,
            A::CUDA_NAME,
            rc,
        )),
    }
}
