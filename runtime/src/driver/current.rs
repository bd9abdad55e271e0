//! The context chevron last made current on this thread: a launch compares with it instead of
//! asking the driver (`cuCtxGetCurrent`) each time; the per-function opt-ins bind through it.

use std::cell::Cell;

use cudarc::driver::CudaContext;

use crate::error::driver_error;
use crate::error::{Error, KernelName};

thread_local! {
    /// The context chevron last made current on this thread (its `CUcontext` as an address; 0:
    /// none yet). Only a hint: other code may bind another context since, which a failed launch
    /// finds out (see `launch::after_failure`).
    static BOUND: Cell<usize> = const { Cell::new(0) };
}

/// Makes `ctx` current on this thread (cudarc's `bind_to_thread`: `cuCtxGetCurrent`, then
/// `cuCtxSetCurrent` where another context is current), and remembers it for this thread. Also
/// reports an error cudarc recorded where it could not return one (in a `Drop`).
pub(crate) fn bind(ctx: &CudaContext, kernel: KernelName) -> Result<(), Error> {
    ctx.bind_to_thread()
        .map_err(|e| driver_error("cuCtxSetCurrent", kernel, ctx, e))?;
    BOUND.set(ctx.cu_ctx() as usize);
    Ok(())
}

/// Remembers `ctx` as this thread's current context, found current by asking the driver.
#[inline(always)]
pub(crate) fn remember(ctx: &CudaContext) {
    BOUND.set(ctx.cu_ctx() as usize);
}

/// Whether this thread's last bind through chevron was `ctx`.
#[inline(always)]
pub(crate) fn last_bound(ctx: &CudaContext) -> bool {
    BOUND.get() == ctx.cu_ctx() as usize
}
