//! Capturing a graph: [`Graph::capture`] and the [`Capture`] its body launches through.

use std::sync::Arc;

use cudarc::driver::{result as cu, CudaContext, CudaStream};

use super::{conditional, device_node_of, graph_err, DeviceNode, Graph, GraphNode};
use crate::driver;
use crate::error::{Error, KernelName};
use crate::sys;

/// The stream a [`Graph::capture`] body launches on, and the nodes its launches add; also the
/// body of a conditional node ([`Capture::while_loop`] and the others), which gets a `Capture`
/// of its own while the node borrows the enclosing one mutably: inside a body only the body's
/// [`Capture::stream`] can be named.
pub struct Capture<'s> {
    pub(super) stream: &'s Arc<CudaStream>,
    /// The id of the capture of the whole graph: what its nodes (those of bodies included) are
    /// tagged with.
    pub(super) root: u64,
    /// What the captures of the conditional bodies share with it.
    #[cfg_attr(not(cuda_12030), allow(dead_code))]
    pub(super) shared: &'s conditional::Shared,
}

impl Capture<'_> {
    /// The capturing stream: launch on it (`launch!(k<<<grid, block, capture.stream()>>>(…))`).
    pub fn stream(&self) -> &Arc<CudaStream> {
        self.stream
    }

    /// The kernel node the last launch on [`Capture::stream`] added, for updates.
    ///
    /// `Error::Graph` when the last work captured on the stream is not a kernel launch.
    pub fn last_node(&self) -> Result<GraphNode, Error> {
        let (_, _, node) = driver::capture_info(self.stream)
            .map_err(|e| Error::driver("cuStreamGetCaptureInfo", KernelName(None), e))?;
        let not_kernel = || Error::Graph {
            kernel: KernelName(None),
            message: "the last work captured on the stream is not a kernel launch: call \
                      `last_node` right after the launch whose node you want"
                .to_string(),
        };
        let node = node.ok_or_else(not_kernel)?;
        // SAFETY: the node belongs to the graph being captured, which is live.
        let mut params = unsafe { driver::kernel_node_params(node) }.map_err(|_| not_kernel())?;
        if params.func.is_null() && !params.kern.is_null() {
            // The driver may describe the node by its context-independent kernel handle: the
            // function in this context is what updates compare against and pass back.
            // SAFETY: the handle comes from the driver and lives as long as the node's module.
            params.func = unsafe { driver::kernel_function(params.kern) }
                .map_err(graph_err("cuKernelGetFunction"))?;
            params.kern = core::ptr::null_mut();
        }
        // The driver's parameter copy is not ours to keep: updates replace it.
        params.kernelParams = core::ptr::null_mut();
        params.extra = core::ptr::null_mut();
        // A body's stream captures with an id of its own; its nodes belong to the whole graph.
        Ok(GraphNode {
            capture: self.root,
            slot: self.shared.slot(node),
            node,
            params,
        })
    }

    /// The device handle of `node`, a kernel node of this capture launched with
    /// `device_updatable`: for a kernel launched later in the same capture that updates it (the
    /// update then holds from the replay after the one that made it). `Error::Graph` when the
    /// node is not device-updatable or of another capture.
    pub fn device_node(&self, node: &GraphNode) -> Result<DeviceNode, Error> {
        node.check_capture(self.root, KernelName(None))?;
        device_node_of(node)
    }
}

/// Ends an unfinished capture (a body that failed or panicked) and restores event tracking.
struct CaptureGuard<'s> {
    stream: &'s CudaStream,
    ctx: &'s CudaContext,
    tracking: bool,
    active: bool,
}

impl CaptureGuard<'_> {
    fn end(&mut self) -> Result<sys::CUgraph, sys::CUresult> {
        self.active = false;
        // SAFETY: the stream is live.
        let result = unsafe { cu::stream::end_capture(self.stream.cu_stream()) }.map_err(|e| e.0);
        if self.tracking {
            // SAFETY: restores what it was before the capture; buffers allocated meanwhile stay
            // untracked, as documented.
            unsafe { self.ctx.enable_event_tracking() };
        }
        result
    }
}

impl Drop for CaptureGuard<'_> {
    fn drop(&mut self) {
        if self.active {
            if let Ok(graph) = self.end() {
                // SAFETY: the graph was never instantiated and nothing else holds it.
                let _ = unsafe { driver::graph_destroy(core::ptr::null_mut(), graph) };
            }
        }
    }
}

impl<'a> Graph<'a> {
    /// [`Graph::capture`], whose entry in `graph/mod.rs` (where rustc names it plainly in a
    /// bound's error) calls this.
    pub(super) fn capture_body<R, F>(
        stream: &Arc<CudaStream>,
        mut body: F,
    ) -> Result<(Self, R), Error>
    where
        F: FnMut(&mut Capture<'_>) -> Result<R, Error> + 'a,
    {
        let ctx = stream.context().clone();
        ctx.bind_to_thread().map_err(graph_err("cuCtxSetCurrent"))?;
        if crate::driver::device::is_capturing(stream) {
            return Err(Error::Graph {
                kernel: KernelName(None),
                message: "the stream is already capturing a graph: end that capture first"
                    .to_string(),
            });
        }
        ctx.synchronize().map_err(graph_err("cuCtxSynchronize"))?;
        let order = ctx
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .map_err(graph_err("cuEventCreate"))?;
        // Declared before the guard, so that the bodies' streams outlive the capture.
        let shared = conditional::Shared::new(ctx.clone());
        let tracking = ctx.is_event_tracking();
        // SAFETY: restored by the guard; see the `Graph` docs for what pausing means.
        unsafe { ctx.disable_event_tracking() };
        let mut guard = CaptureGuard {
            stream,
            ctx: &ctx,
            tracking,
            active: false,
        };
        // Relaxed: a kernel's first use inside the body loads its module, which the stricter
        // modes forbid while a capture runs.
        let mode = sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED;
        // SAFETY: the stream is live.
        if let Err(e) = unsafe { cu::stream::begin_capture(stream.cu_stream(), mode) } {
            if tracking {
                // SAFETY: as in the guard.
                unsafe { ctx.enable_event_tracking() };
            }
            return Err(graph_err("cuStreamBeginCapture")(e));
        }
        guard.active = true;
        let (_, id, _) =
            driver::capture_info(stream).map_err(graph_err("cuStreamGetCaptureInfo"))?;
        let mut capture = Capture {
            stream,
            root: id,
            shared: &shared,
        };
        let out = body(&mut capture)?;
        let graph = guard
            .end()
            .map_err(|rc| graph_err("cuStreamEndCapture")(cudarc::driver::DriverError(rc)))?;
        drop(guard);
        if graph.is_null() {
            return Err(Error::Graph {
                kernel: KernelName(None),
                message: "the capture recorded no graph".to_string(),
            });
        }
        // SAFETY: the graph is live, its context current (bound above).
        let body_priority = shared.node_priority();
        let exec = match unsafe { super::instantiate(graph, body_priority) } {
            Ok(exec) => exec,
            Err(e) => {
                // SAFETY: the graph was never instantiated and nothing else holds it.
                let _ = unsafe { driver::graph_destroy(core::ptr::null_mut(), graph) };
                return Err(e);
            }
        };
        Ok((
            Graph {
                graph,
                exec,
                ctx,
                last: stream.clone(),
                pending: false,
                waits_on_last: core::cell::Cell::new(false),
                order,
                id,
                records: core::cell::RefCell::new(super::Records::new()),
                body_priority,
                host_panics: None,
                _body: Box::new(body),
            },
            out,
        ))
    }
}
