//! CUDA graphs of typed launches: [`Graph`], its rules and its nodes.

use core::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaEvent, CudaFunction, CudaStream};

use crate::attr::{GraphAttribute, Reached};
use crate::driver;
use crate::error::{Error, KernelName};
use crate::sys;
use cudarc::driver::result as cu;

mod conditional;
mod device;
mod update;
pub use conditional::{ConditionalHandle, ConditionalNodes, SwitchNodes};
pub use device::{DeviceGraph, DeviceGraphHandle, DeviceLaunchable};
pub use update::{Ordered, OrderedBuffer, OrderedRead};

/// Type-erases the capture body: the graph keeps it, and with it everything it borrows or owns.
trait Keep {}
impl<T: ?Sized> Keep for T {}

/// An instantiated CUDA graph, captured from launches on a stream by [`Graph::capture`]: capture
/// the launches made on a stream once, replay them at a fraction of the driver's per-launch cost,
/// and change their arguments between replays without instantiating again.
///
/// ```no_run
/// # fn main() -> Result<(), chevron::Error> {
/// use chevron::{context, launch_function, Graph, LaunchConfig};
/// # use chevron::cudarc::nvrtc::Ptx;
/// let ctx = context(0)?;
/// let stream = ctx.new_stream()?;
/// # let f = ctx.load_module(Ptx::from_file("kernels/tick.ptx"))?.load_function("tick")?;
/// let cfg = LaunchConfig::new(1, 32);
/// // Everything the body borrows (buffers, events, configs) stays borrowed for the graph's life.
/// let (mut graph, node) = Graph::capture(&stream, |capture| {
///     let mut params: [*mut core::ffi::c_void; 0] = [];
///     unsafe { launch_function(capture.stream(), &f, &cfg, &mut params) }?;
///     capture.last_node()
/// })?;
/// for _ in 0..100 {
///     graph.replay(&stream)?;
/// }
/// # let _ = node;
/// drop(graph); // waits for the last replay
/// # Ok(()) }
/// ```
///
/// # The rules, and what enforces them
///
/// - **A graph cannot outlive what its launches use** (enforced by the compiler): the capture
///   body is kept in the [`Graph`] and its type bounds the graph's lifetime, so every buffer,
///   view, event and config the body borrows stays borrowed, and everything it owns stays alive,
///   until the graph is dropped. Buffers the kernels write are borrowed `&mut` for that long, so
///   the host cannot read, write or free them while a replay might run; buffers they only read
///   are borrowed shared, so nothing can write them.
/// - **Dropping a graph waits for its last replay** (enforced at run time): when the borrows
///   end, no replay is running, so the host may read the results on any stream.
/// - **Replays are ordered with each other** (enforced at run time): a replay on a different
///   stream than the previous one waits for it (an event), so two replays never write the same
///   buffers at once. [`Graph::replay`] takes `&mut self`.
/// - **Work enqueued before the capture is finished before the graph runs** (enforced at run
///   time): [`Graph::capture`] synchronizes the context first. Buffers given to an update are
///   ordered after their earlier uses on other streams through cudarc's events, on the stream of
///   the last replay; the update records no event of its own on them (the graph uses them later,
///   when it replays), so later uses are ordered by dropping the graph, which waits.
/// - **cudarc's event tracking is paused while the body runs** (a cost): a stream that captures
///   cannot wait on events recorded outside the capture, and cudarc's buffers record such events
///   on every use. While the body runs, buffers used on other threads of the same context are not
///   tracked either, and buffers *allocated* by any thread of the context in that time never are.
///   Capture where no other thread works on the same context (and one capture at a time per
///   context), or track those by hand.
/// - **Not enforced**: what the kernels do with their arguments (launching and updating stay
///   `unsafe`, as launching does); buffers the body creates and drops inside itself (a freed
///   buffer the graph still uses): create them outside the body; buffers given to a typed
///   `update`, which are borrowed for the call only (see its safety section); buffers a kernel
///   points a device-updatable node at ([`DeviceNode`]), which are raw pointers to the graph; and
///   a graph leaked with `std::mem::forget`, which ends the borrows without waiting for the last
///   replay.
///
/// `'a` is the lifetime of what the captured launches use: the graph cannot outlive it. Not
/// `Send`: the driver's graph objects are not synchronized.
pub struct Graph<'a> {
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
    ctx: Arc<CudaContext>,
    /// The stream of the last replay (first: the capture stream).
    last: Arc<CudaStream>,
    /// Whether a replay may still run on `last`.
    pending: bool,
    /// Whether updates enqueued waits on `last` (for their buffers' earlier uses) that the next
    /// replay must follow, even when no replay is pending there.
    waits_on_last: core::cell::Cell<bool>,
    /// Recorded on `last` when the next replay goes to another stream.
    order: CudaEvent,
    id: u64,
    /// The arguments of the updated nodes as the executable graph has them, where the graph's
    /// own nodes still hold the captured ones: read by `set_params_keeping`, written into the
    /// graph's nodes before instantiating again. Indexed by the node's slot (no hashing on the
    /// update path); storage is reused, so updates after the first of each node allocate
    /// nothing.
    updated: core::cell::RefCell<Vec<Option<Recorded>>>,
    _body: Box<dyn Keep + 'a>,
}

/// A kernel node of a captured graph, as [`Capture::last_node`] returns it: what a typed
/// `update` (generated by `#[kernel]`) or [`Graph::set_params`] changes.
#[derive(Clone, Copy, Debug)]
pub struct GraphNode {
    capture: u64,
    /// The node's index among the nodes `last_node` returned in its capture: where its graph
    /// records its updates.
    slot: u32,
    node: sys::CUgraphNode,
    params: sys::CUDA_KERNEL_NODE_PARAMS,
}

impl GraphNode {
    /// The driver's node handle (owned by its graph).
    pub fn raw(&self) -> sys::CUgraphNode {
        self.node
    }

    /// The node's function handle.
    pub fn cu_function(&self) -> sys::CUfunction {
        self.params.func
    }

    /// `Error::Graph` unless the node was captured in capture `id`.
    fn check_capture(&self, id: u64, kernel: KernelName) -> Result<(), Error> {
        if self.capture != id {
            return Err(Error::Graph {
                kernel,
                message: "the node belongs to another graph: use a node returned by \
                          `last_node` in this graph's capture"
                    .to_string(),
            });
        }
        Ok(())
    }
}

/// The last update of a node: the node, its launch (function, grid, block, shared memory, as
/// the node was captured) and its arguments' bytes, one parameter after another with `sizes`.
struct Recorded {
    node: sys::CUgraphNode,
    params: sys::CUDA_KERNEL_NODE_PARAMS,
    bytes: Vec<u8>,
    sizes: &'static [u32],
}

impl Recorded {
    /// Copies the arguments `params` points at into `bytes` (as long as the sizes' sum, from
    /// the first record): one store for a 4- or 8-byte parameter, allocates nothing.
    ///
    /// # Safety
    /// Parameter `k` points at `sizes[k]` readable bytes.
    #[inline]
    unsafe fn record(&mut self, params: &[*mut c_void]) {
        let mut at = 0usize;
        for (param, &size) in params.iter().zip(self.sizes) {
            let size = size as usize;
            let Some(to) = self.bytes.get_mut(at..at + size) else {
                return;
            };
            let from = *param as *const u8;
            // SAFETY: the caller's promise; `to` is `size` bytes of `bytes`.
            unsafe {
                match size {
                    4 => (to.as_mut_ptr() as *mut u32)
                        .write_unaligned((from as *const u32).read_unaligned()),
                    8 => (to.as_mut_ptr() as *mut u64)
                        .write_unaligned((from as *const u64).read_unaligned()),
                    _ => core::ptr::copy_nonoverlapping(from, to.as_mut_ptr(), size),
                }
            }
            at += size;
        }
    }
}

/// The device-side handle of a kernel node captured with `device_updatable`
/// (`CUgraphDeviceNode`, the `cudaGraphDeviceNode_t` of device code): pass it to a kernel,
/// which changes the node's arguments, grid or enabled state with `cudaGraphKernelNodeSetParam`,
/// `cudaGraphKernelNodeSetGridDim`, `cudaGraphKernelNodeSetEnabled` or
/// `cudaGraphKernelNodeUpdatesApply`; the changes hold for the graph's later replays until a
/// host update of the node. Such a kernel calls the CUDA device runtime: compile it with
/// `nvcc -ptx -rdc=true`; chevron links it with `libcudadevrt.a` when it loads (see
/// [`crate::load_ptx`]). Declared as a kernel parameter of type `DeviceNode`, it is the 64-bit
/// handle by value.
///
/// From [`Capture::device_node`] (to launch the updating kernel in the same capture) or
/// [`Graph::device_node`]. A kernel outside the graph changes a graph that is on the device:
/// [`Graph::upload`] or replay it first (as the GPU tests do). A host update of the node
/// (`update`, [`Graph::set_params`]) replaces what the device set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct DeviceNode(u64);

impl DeviceNode {
    /// The handle's bits, as device code receives them.
    pub fn raw(self) -> u64 {
        self.0
    }
}

// SAFETY: a plain 64-bit value, passed by value like `cudaGraphDeviceNode_t`.
unsafe impl cudarc::driver::DeviceRepr for DeviceNode {}

/// The device handle of `node`, or `Error::Graph` when it was not captured with
/// `device_updatable`.
fn device_node_of(node: &GraphNode) -> Result<DeviceNode, Error> {
    #[cfg(not(cuda_12040))]
    let _ = node;
    #[cfg(cuda_12040)]
    {
        let id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE;
        // SAFETY: the node's graph is live (the caller holds it or its capture).
        let value = unsafe { driver::kernel_node_attribute(node.node, id) }
            .map_err(graph_err("cuGraphKernelNodeGetAttribute"))?;
        // SAFETY: the driver filled the union's member for this attribute.
        let updatable = unsafe { value.deviceUpdatableKernelNode };
        if updatable.deviceUpdatable != 0 && !updatable.devNode.is_null() {
            return Ok(DeviceNode(updatable.devNode as u64));
        }
    }
    Err(Error::Graph {
        kernel: KernelName(None),
        message: "the node is not device-updatable: launch it with `device_updatable` inside \
                  the capture (CUDA 12.4 or later)"
            .to_string(),
    })
}

/// One dependency of a captured graph, as [`Graph::edges`] lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GraphEdge {
    /// The node depended on.
    pub from: sys::CUgraphNode,
    /// The dependent node.
    pub to: sys::CUgraphNode,
    /// A programmatic dependency (`CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC`, from a launch with
    /// `programmatic_serialization`): the dependent kernel may start before the other finishes.
    pub programmatic: bool,
}

/// The stream a [`Graph::capture`] body launches on, and the nodes its launches add; also the
/// body of a conditional node ([`Capture::while_loop`] and the others).
pub struct Capture<'s> {
    stream: &'s Arc<CudaStream>,
    /// The id of the capture of the whole graph: what its nodes (those of bodies included) are
    /// tagged with.
    root: u64,
    /// What the captures of the conditional bodies share with it.
    #[cfg_attr(not(cuda_12030), allow(dead_code))]
    shared: &'s conditional::Shared,
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

/// `cuGraphInstantiateWithFlags` flags: none.
const INSTANTIATE: sys::CUgraphInstantiate_flags = sys::CUgraphInstantiate_flags(0);

fn graph_err(call: &'static str) -> impl Fn(cudarc::driver::result::DriverError) -> Error {
    move |e| Error::driver(call, KernelName(None), e)
}

impl<'a> Graph<'a> {
    /// Captures the launches `body` makes on `stream` (through [`Capture::stream`]) into a graph
    /// and instantiates it; returns the graph and what `body` returned (typically the
    /// [`GraphNode`]s to update later).
    ///
    /// First synchronizes the context, so that work enqueued earlier is done; captures in
    /// `CU_STREAM_CAPTURE_MODE_RELAXED` mode (a kernel may be used for the first time, loading
    /// its module, inside the body) with cudarc's event tracking paused (see the
    /// [`Graph`] docs). The graph replays on any stream of the context.
    ///
    /// `Error::Graph` when the stream is already capturing; `Error::Driver` naming
    /// `cuStreamEndCapture` when the driver invalidated the capture (an operation the capture
    /// cannot record); the body's own error when it fails. On any error or panic the capture is
    /// ended and discarded, and event tracking restored.
    pub fn capture<R, F>(stream: &Arc<CudaStream>, mut body: F) -> Result<(Self, R), Error>
    where
        F: FnMut(&mut Capture<'_>) -> Result<R, Error> + 'a,
    {
        let ctx = stream.context().clone();
        ctx.bind_to_thread().map_err(graph_err("cuCtxSetCurrent"))?;
        if crate::device::is_capturing(stream) {
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
        // SAFETY: the graph is live.
        let exec = match unsafe { cu::graph::instantiate(graph, INSTANTIATE) } {
            Ok(exec) => exec,
            Err(e) => {
                // SAFETY: the graph was never instantiated and nothing else holds it.
                let _ = unsafe { driver::graph_destroy(core::ptr::null_mut(), graph) };
                return Err(graph_err("cuGraphInstantiate")(e));
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
                updated: core::cell::RefCell::new(Vec::new()),
                _body: Box::new(body),
            },
            out,
        ))
    }

    /// Replays the graph on `stream`, any stream of the graph's context. A replay on another
    /// stream than the previous replay first waits for that one; on the same stream it is one
    /// `cuGraphLaunch`. Allocates nothing.
    pub fn replay(&mut self, stream: &Arc<CudaStream>) -> Result<(), Error> {
        if stream.cu_stream() == self.last.cu_stream() {
            // The graph's context must be current: without it the driver's graph calls may
            // crash instead of failing (seen on the H200 with driver 580), so it is checked
            // (`cuCtxGetCurrent`) at every call, never assumed.
            self.ctx
                .bind_to_thread()
                .map_err(graph_err("cuCtxSetCurrent"))?;
        } else {
            self.switch_to(stream)?;
        }
        // SAFETY: `exec` is live and of the stream's context (the stream of the last replay or
        // the capture's, or checked by `switch_to`), which is current.
        unsafe { cu::graph::launch(self.exec, stream.cu_stream()) }
            .map_err(graph_err("cuGraphLaunch"))?;
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
    #[inline]
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
    pub fn synchronize(&mut self) -> Result<(), Error> {
        if self.pending {
            self.last
                .synchronize()
                .map_err(graph_err("cuStreamSynchronize"))?;
            self.pending = false;
        }
        Ok(())
    }

    /// The graph's context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
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

    /// Sets the parameters of kernel node `node` for the following replays, without
    /// instantiating again (`cuGraphExecKernelNodeSetParams`): the untyped form of the `update`
    /// function `#[kernel]` generates. `func` must be the node's function, `name` is for
    /// messages. The graph remembers the new arguments, so that [`Graph::set_params_keeping`]
    /// and an instantiation again ([`Graph::set_node_attribute`]) start from them, not from the
    /// captured ones. Allocates nothing after the first update of each node.
    ///
    /// `Error::Graph` when `node` is of another graph or another function.
    ///
    /// # Safety
    /// As [`crate::launch_function`]: `params` matches the kernel's parameters, and what it
    /// points at (buffers included) stays valid while the graph may replay, which for buffers
    /// means borrowed for the graph's lifetime `'a`.
    pub unsafe fn set_params(
        &mut self,
        node: &GraphNode,
        func: &CudaFunction,
        name: Option<&'static str>,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        // SAFETY: forwarded from the caller.
        unsafe { self.__set_params(node, func, name, params) }
    }

    /// [`Graph::set_params`] through a shared borrow, for the typed updates: they hold the
    /// stream of [`Graph::order_stream`] (borrowed from the graph) until the call, which a
    /// mutable borrow would make them clone. The graph is not `Sync`, and the record of the
    /// arguments is behind a `RefCell`.
    ///
    /// The hot path is what cannot be decided once: the node and function checks (two
    /// compares), the context check (`cuCtxGetCurrent`: the driver's graph calls may crash
    /// rather than fail without their context), the driver call, and the copy of the arguments
    /// into the node's slot.
    ///
    /// # Safety
    /// As [`Graph::set_params`].
    #[doc(hidden)]
    #[inline]
    pub unsafe fn __set_params(
        &self,
        node: &GraphNode,
        func: &CudaFunction,
        name: Option<&'static str>,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        let kernel = KernelName(name);
        self.check_kernel_node(node, func, kernel)?;
        // SAFETY: forwarded from the caller; the node is checked.
        unsafe { self.set_checked(node, func, kernel, params) }
    }

    /// [`Graph::set_params`] after its checks: the driver call, then the record of the
    /// arguments in the node's slot (one index, no hashing; the parameter sizes are looked up
    /// at the node's first update only).
    ///
    /// # Safety
    /// As [`Graph::set_params`]; `node` passed [`Graph::check_kernel_node`] with `func`.
    #[inline]
    unsafe fn set_checked(
        &self,
        node: &GraphNode,
        func: &CudaFunction,
        kernel: KernelName,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        let mut raw = node.params;
        raw.kernelParams = params.as_mut_ptr();
        raw.extra = core::ptr::null_mut();
        // SAFETY: `exec` was instantiated from the graph holding `node` (checked by the caller);
        // the parameters are the caller's promise. The driver copies them before returning.
        // Checked at every call, never assumed: without its context the driver may crash.
        self.ctx
            .bind_to_thread()
            .map_err(|e| Error::driver("cuCtxSetCurrent", kernel, e))?;
        unsafe { driver::exec_set_kernel_params(self.exec, node.node, &raw) }
            .map_err(|e| Error::driver("cuGraphExecKernelNodeSetParams", kernel, e))?;
        let mut updated = self.updated.borrow_mut();
        if let Some(Some(recorded)) = updated.get_mut(node.slot as usize) {
            if recorded.sizes.len() == params.len() {
                // SAFETY: `params` matches the node's function, whose sizes these are.
                unsafe { recorded.record(params) };
                return Ok(());
            }
        }
        drop(updated);
        // SAFETY: as above.
        unsafe { self.first_record(node, func, kernel, &raw, params) }
    }

    /// The first update of a node: its slot, with the function's parameter sizes.
    ///
    /// # Safety
    /// As [`Graph::set_checked`]; `raw` is the node's launch with `params`.
    #[cold]
    unsafe fn first_record(
        &self,
        node: &GraphNode,
        func: &CudaFunction,
        kernel: KernelName,
        raw: &sys::CUDA_KERNEL_NODE_PARAMS,
        params: &mut [*mut c_void],
    ) -> Result<(), Error> {
        match crate::function::function_info(func).param_sizes(&self.ctx, func) {
            Some(sizes) if sizes.len() == params.len() => {
                let slot = node.slot as usize;
                let mut updated = self.updated.borrow_mut();
                if updated.len() <= slot {
                    updated.resize_with(slot + 1, || None);
                }
                let total = sizes.iter().map(|&s| s as usize).sum();
                let recorded = updated[slot].insert(Recorded {
                    node: node.node,
                    params: node.params,
                    bytes: vec![0; total],
                    sizes,
                });
                // SAFETY: `params` matches the node's function, whose sizes these are.
                unsafe { recorded.record(params) };
                Ok(())
            }
            // No parameter sizes from this driver (before CUDA 12.4): the graph's node gets the
            // arguments at once (one more driver call).
            // SAFETY: as above, for the graph's own node.
            _ => unsafe { driver::kernel_node_set_params(node.node, raw) }
                .map_err(|e| Error::driver("cuGraphKernelNodeSetParams", kernel, e)),
        }
    }

    /// Writes the recorded arguments of updated nodes into the graph's nodes
    /// (`cuGraphKernelNodeSetParams`), before the graph is instantiated again.
    fn write_back_updates(&mut self) -> Result<(), Error> {
        let updated = self.updated.get_mut();
        for recorded in updated.iter_mut().flatten() {
            let mut pointers: Vec<*mut c_void> = Vec::with_capacity(recorded.sizes.len());
            let mut at = 0usize;
            for &size in recorded.sizes {
                pointers.push(recorded.bytes[at..].as_mut_ptr() as *mut c_void);
                at += size as usize;
            }
            let mut raw = recorded.params;
            raw.kernelParams = pointers.as_mut_ptr();
            // SAFETY: the node belongs to this graph, which is live; the bytes were recorded
            // from parameters matching the node's function, in its parameter order and sizes.
            unsafe { driver::kernel_node_set_params(recorded.node, &raw) }
                .map_err(graph_err("cuGraphKernelNodeSetParams"))?;
        }
        updated.clear();
        Ok(())
    }

    /// [`Graph::set_params`] keeping some of the node's current arguments: for each `k` with
    /// `keep[k]`, parameter `k` is the node's current value (the captured one, or the last
    /// update's), read into `kept[k]` (a 64-bit device pointer: `keep` marks buffer parameters
    /// only), and `params[k]` is ignored. The untyped form of the `update_scalars` function
    /// `#[kernel]` generates. Allocates nothing.
    ///
    /// `Error::Graph` when `node` is of another graph or another function, or the slices'
    /// lengths differ from each other.
    ///
    /// # Safety
    /// As [`Graph::set_params`], and every kept parameter is 8 bytes.
    pub unsafe fn set_params_keeping(
        &mut self,
        node: &GraphNode,
        func: &CudaFunction,
        name: Option<&'static str>,
        params: &mut [*mut c_void],
        keep: &[bool],
        kept: &mut [u64],
    ) -> Result<(), Error> {
        // SAFETY: forwarded from the caller.
        unsafe { self.__set_params_keeping(node, func, name, params, keep, kept) }
    }

    /// [`Graph::set_params_keeping`] through a shared borrow, for the typed `update_scalars`
    /// (see [`Graph::__set_params`]).
    ///
    /// # Safety
    /// As [`Graph::set_params_keeping`].
    #[doc(hidden)]
    #[inline]
    pub unsafe fn __set_params_keeping(
        &self,
        node: &GraphNode,
        func: &CudaFunction,
        name: Option<&'static str>,
        params: &mut [*mut c_void],
        keep: &[bool],
        kept: &mut [u64],
    ) -> Result<(), Error> {
        let kernel = KernelName(name);
        self.check_kernel_node(node, func, kernel)?;
        if keep.len() != params.len() || kept.len() != params.len() {
            return Err(Error::Graph {
                kernel,
                message: format!(
                    "{} parameters, {} keep flags and {} kept slots: give one of each per \
                     parameter",
                    params.len(),
                    keep.len(),
                    kept.len()
                ),
            });
        }
        let found = match self.updated.borrow().get(node.slot as usize) {
            Some(Some(recorded)) => {
                // The last update's arguments.
                let mut at = 0usize;
                for (k, &size) in recorded.sizes.iter().enumerate().take(params.len()) {
                    if keep[k] {
                        let value = recorded.bytes.get(at..at + 8).filter(|_| size == 8);
                        let Some(value) = value else {
                            return Err(Error::Graph {
                                kernel,
                                message: format!("parameter {k} is not 8 bytes: update it"),
                            });
                        };
                        kept[k] = u64::from_ne_bytes(value.try_into().unwrap_or([0; 8]));
                    }
                    at += size as usize;
                }
                true
            }
            _ => false,
        };
        if !found {
            // SAFETY: forwarded from the caller.
            unsafe { self.kept_from_node(node, kernel, keep, kept) }?;
        }
        for (k, param) in params.iter_mut().enumerate() {
            if keep[k] {
                *param = &mut kept[k] as *mut u64 as *mut c_void;
            }
        }
        // SAFETY: forwarded from the caller; the node is checked.
        unsafe { self.set_checked(node, func, kernel, params) }
    }

    /// The kept arguments of a node not updated yet: the graph's node's, the captured ones.
    ///
    /// # Safety
    /// As [`Graph::set_params_keeping`]; `node` passed [`Graph::check_kernel_node`].
    #[cold]
    unsafe fn kept_from_node(
        &self,
        node: &GraphNode,
        kernel: KernelName,
        keep: &[bool],
        kept: &mut [u64],
    ) -> Result<(), Error> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| Error::driver("cuCtxSetCurrent", kernel, e))?;
        // SAFETY: the node belongs to this graph (checked), which is live.
        let current = unsafe { driver::kernel_node_params(node.node) }
            .map_err(|e| Error::driver("cuGraphKernelNodeGetParams", kernel, e))?;
        if current.kernelParams.is_null() {
            return Err(Error::Graph {
                kernel,
                message: "the driver gave no parameters for the node: update all of them"
                    .to_string(),
            });
        }
        for (k, slot) in kept.iter_mut().enumerate() {
            if keep[k] {
                // SAFETY: the driver's array has one pointer per parameter of the node's
                // function (checked to be the caller's), whose parameters `keep` covers (the
                // caller's promise), and each kept parameter is 8 bytes. The copy is taken
                // before the node is set again.
                *slot = unsafe { (*current.kernelParams.add(k) as *const u64).read_unaligned() };
            }
        }
        Ok(())
    }

    /// [`Graph::check_node`], and that the node launches `func`.
    fn check_kernel_node(
        &self,
        node: &GraphNode,
        func: &CudaFunction,
        kernel: KernelName,
    ) -> Result<(), Error> {
        self.check_node(node, kernel)?;
        if node.params.func != func.cu_function() {
            return Err(Error::Graph {
                kernel,
                message: "the node launches another kernel: update it with that kernel's \
                          `update`"
                    .to_string(),
            });
        }
        Ok(())
    }

    fn check_node(&self, node: &GraphNode, kernel: KernelName) -> Result<(), Error> {
        node.check_capture(self.id, kernel)
    }

    /// Sets launch attribute `attr` on kernel node `node` (`cuGraphKernelNodeSetAttribute`) and
    /// instantiates the graph again, after the last replay, so that it takes effect. Only kinds
    /// the driver accepts on a graph node compile (the spec table's `graph` column):
    ///
    /// ```compile_fail,E0277
    /// # fn f(g: &mut chevron::Graph<'_>, n: &chevron::GraphNode) {
    /// g.set_node_attribute(n, chevron::ProgrammaticSerialization); // not on a node
    /// # }
    /// ```
    pub fn set_node_attribute<A: GraphAttribute>(
        &mut self,
        node: &GraphNode,
        attr: A,
    ) -> Result<(), Error>
    where
        A::Since: Reached<A>,
    {
        self.check_node(node, KernelName(None))?;
        self.ctx
            .bind_to_thread()
            .map_err(graph_err("cuCtxSetCurrent"))?;
        // SAFETY: the node belongs to this graph (checked), which is live.
        unsafe { driver::kernel_node_set_attribute(node.node, A::ID, &attr.value()) }.map_err(
            |source| Error::Driver {
                call: "cuGraphKernelNodeSetAttribute",
                kernel: KernelName(None),
                attributes: format!("graph node {} ({})", A::KEY, A::CUDA_NAME),
                source,
            },
        )?;
        self.synchronize()?;
        self.write_back_updates()?;
        // SAFETY: the graph is live.
        let exec = unsafe { cu::graph::instantiate(self.graph, INSTANTIATE) }
            .map_err(graph_err("cuGraphInstantiate"))?;
        let old = core::mem::replace(&mut self.exec, exec);
        // SAFETY: no replay of the old executable graph runs (synchronized above).
        unsafe { driver::graph_destroy(old, core::ptr::null_mut()) }
            .map_err(graph_err("cuGraphExecDestroy"))
    }

    /// The value of launch attribute `id` on kernel node `node`
    /// (`cuGraphKernelNodeGetAttribute`), as the driver's union.
    pub fn node_attribute(
        &self,
        node: &GraphNode,
        id: sys::CUlaunchAttributeID,
    ) -> Result<sys::CUlaunchAttributeValue, Error> {
        self.check_node(node, KernelName(None))?;
        self.ctx
            .bind_to_thread()
            .map_err(graph_err("cuCtxSetCurrent"))?;
        // SAFETY: the node belongs to this graph (checked), which is live.
        unsafe { driver::kernel_node_attribute(node.node, id) }
            .map_err(graph_err("cuGraphKernelNodeGetAttribute"))
    }

    /// The device handle of `node`, a kernel node launched with `device_updatable` in this
    /// graph's capture, for a kernel that updates it from the GPU: see [`DeviceNode`].
    /// `Error::Graph` when the node is of another graph or not device-updatable.
    pub fn device_node(&self, node: &GraphNode) -> Result<DeviceNode, Error> {
        self.check_node(node, KernelName(None))?;
        self.ctx
            .bind_to_thread()
            .map_err(graph_err("cuCtxSetCurrent"))?;
        device_node_of(node)
    }

    /// Every dependency between the graph's nodes, with its type (`cuGraphGetEdges`).
    pub fn edges(&self) -> Result<Vec<GraphEdge>, Error> {
        self.ctx
            .bind_to_thread()
            .map_err(graph_err("cuCtxSetCurrent"))?;
        // SAFETY: the graph is live.
        let edges =
            unsafe { driver::graph_edges(self.graph) }.map_err(graph_err("cuGraphGetEdges"))?;
        Ok(edges
            .into_iter()
            .map(|(from, to, programmatic)| GraphEdge {
                from,
                to,
                programmatic,
            })
            .collect())
    }

    /// The driver's graph (owned by this value: do not destroy it).
    pub fn cu_graph(&self) -> sys::CUgraph {
        self.graph
    }

    /// The driver's executable graph (owned by this value: do not destroy it).
    pub fn cu_graph_exec(&self) -> sys::CUgraphExec {
        self.exec
    }
}

impl Drop for Graph<'_> {
    fn drop(&mut self) {
        // The borrows of the buffers end with the graph: no replay may still use them.
        let _ = self.ctx.bind_to_thread();
        let _ = self.synchronize();
        // SAFETY: no replay runs; nothing else holds the graph or its executable.
        let _ = unsafe { driver::graph_destroy(self.exec, self.graph) };
    }
}

impl core::fmt::Debug for Graph<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Graph")
            .field("graph", &self.graph)
            .field("exec", &self.exec)
            .finish_non_exhaustive()
    }
}
