//! Replaying a graph: on any stream of its context, each replay ordered after the last.

use std::sync::Arc;

use cudarc::driver::{result as cu, CudaStream};

use super::{graph_err, Graph};
use crate::error::{Error, KernelName};
use crate::sys;

impl<'a> Graph<'a> {
    /// Replays the graph on `stream`, any stream of the graph's context. A replay on another
    /// stream than the previous replay first waits for that one; on the same stream it is one
    /// `cuGraphLaunch`. Allocates nothing.
    #[inline]
    pub fn replay(&mut self, stream: &Arc<CudaStream>) -> Result<(), Error> {
        if stream.cu_stream() == self.last.cu_stream() {
            // The graph's context must be current: checked at every call outside a batch (see
            // `Graph::ensure_current`).
            self.ensure_current(KernelName(None))?;
        } else {
            self.switch_to(stream)?;
        }
        // SAFETY: `exec` is live and of the stream's context (the stream of the last replay or
        // the capture's, or checked by `switch_to`), which is current. Straight to the driver's
        // entry point, as a program without chevron calls it.
        let rc = unsafe { sys::cuGraphLaunch(self.exec, stream.cu_stream()) };
        if rc != sys::cudaError_enum::CUDA_SUCCESS {
            return Err(launch_error(rc));
        }
        self.pending = true;
        Ok(())
    }

    /// Uploads the graph's resources to the device on `stream`, so that the first replay does
    /// not pay for it.
    pub fn upload(&mut self, stream: &Arc<CudaStream>) -> Result<(), Error> {
        self.switch_to(stream)?;
        // SAFETY: as in `replay`.
        unsafe { cu::graph::upload(self.exec, stream.cu_stream()) }
            .map_err(graph_err("cuGraphUpload"))?;
        self.pending = true;
        Ok(())
    }

    /// Binds the context and orders `stream` after the previous replay's stream.
    #[inline(never)]
    fn switch_to(&mut self, stream: &Arc<CudaStream>) -> Result<(), Error> {
        if stream.cu_stream() == self.last.cu_stream() {
            return self
                .ctx
                .bind_to_thread()
                .map_err(graph_err("cuCtxSetCurrent"));
        }
        if stream.context().cu_ctx() != self.ctx.cu_ctx() {
            return Err(Error::Graph {
                kernel: KernelName(None),
                message: "the stream belongs to another CUDA context than the graph: replay \
                          on a stream of the context it was captured in"
                    .to_string(),
            });
        }
        self.ctx
            .bind_to_thread()
            .map_err(graph_err("cuCtxSetCurrent"))?;
        if self.pending || self.waits_on_last.get() {
            self.order
                .record(&self.last)
                .map_err(graph_err("cuEventRecord"))?;
            stream
                .wait(&self.order)
                .map_err(graph_err("cuStreamWaitEvent"))?;
        }
        self.waits_on_last.set(false);
        self.last = stream.clone();
        Ok(())
    }

    /// Waits until the last replay is done.
    ///
    /// `Error::Graph` when a host function of a graph built by hand ([`Graph::build`]) panicked
    /// since the last call (each panic is caught where the driver calls the function, and
    /// reported once, here).
    pub fn synchronize(&mut self) -> Result<(), Error> {
        if self.pending {
            self.last
                .synchronize()
                .map_err(graph_err("cuStreamSynchronize"))?;
            self.pending = false;
        }
        if let Some(panics) = &self.host_panics {
            let n = panics.swap(0, core::sync::atomic::Ordering::Relaxed);
            if n > 0 {
                return Err(host_panicked(n));
            }
        }
        Ok(())
    }

    /// The stream updates order new buffers on: the last replay's (first: the capture stream),
    /// which the next replay follows, on whatever stream it runs. Typed updates use it; it is
    /// public for them only.
    #[doc(hidden)]
    pub fn order_stream(&self) -> &Arc<CudaStream> {
        // The caller enqueues waits on it: a replay on another stream must follow them even
        // after a synchronize.
        self.waits_on_last.set(true);
        &self.last
    }
}

/// The error of host functions that panicked `n` times.
#[cold]
fn host_panicked(n: u32) -> Error {
    Error::Graph {
        kernel: KernelName(None),
        message: format!(
            "a host node's function panicked ({n} time{} since the last `synchronize`; the \
             panic hook printed each): the panic was caught at the driver's boundary and the \
             nodes after it ran; fix the function, or catch its panics in it",
            if n == 1 { "" } else { "s" }
        ),
    }
}

/// The error of `cuGraphLaunch`, made off the hot path.
#[cold]
#[inline(never)]
fn launch_error(rc: sys::CUresult) -> Error {
    graph_err("cuGraphLaunch")(cudarc::driver::DriverError(rc))
}
