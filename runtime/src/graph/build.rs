//! Graphs built by hand: [`Graph::build`]'s body adds nodes through a [`GraphBuilder`], one at
//! a time, each after explicit dependencies ([`BuiltNode`]s of the same builder), and the graph
//! is instantiated into the [`Graph`] that capture makes, so that replays and the typed updates
//! work unchanged.
//!
//! How each kind of node is made: kernel nodes are captured, as in [`Graph::capture`], on the
//! builder's stream into the builder's graph after the given nodes
//! (`cuStreamBeginCaptureToGraph`, CUDA 12.3), so that a kernel node is a typed `launch!` with
//! its checks and attributes, and its [`GraphNode`] updates as a captured one; the others are
//! added to the graph directly (`cuGraphAddMemsetNode`, `…MemcpyNode`, `…HostNode`,
//! `…EventRecordNode`, `…EventWaitNode`, `…ChildGraphNode`, `…EmptyNode`).

use core::ffi::c_void;
use core::marker::PhantomData;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaEvent, CudaStream, DevicePtr, DevicePtrMut, DeviceSlice};

use super::update::skip_record;
#[cfg(doc)]
use super::GraphNode;
use super::{conditional, graph_err, Capture, Graph, Keep};
use crate::driver;
use crate::error::{Error, KernelName};
use crate::sys;

/// A node of a [`GraphBuilder`]'s graph: what later nodes list as their dependencies. Made by
/// the builder's methods; tied to its builder (a node of another builder is `Error::Graph`).
/// A node can only name nodes made before it, so a built graph has no cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuiltNode {
    /// The builder's id (that of the [`Graph`] it instantiates into).
    builder: u64,
    node: sys::CUgraphNode,
}

impl BuiltNode {
    /// The driver's node handle (owned by the builder's graph, then by the [`Graph`]).
    pub fn raw(&self) -> sys::CUgraphNode {
        self.node
    }
}

/// Holds for every type when the selected CUDA version can capture into a graph after given
/// nodes (CUDA 12.3, feature `cuda-12030`): the bound of [`GraphBuilder::kernel`], so that
/// below 12.3 calling it is a compile error naming the feature.
#[diagnostic::on_unimplemented(
    message = "kernel nodes of a graph built by hand need CUDA 12.3: use feature cuda-12030 or later",
    label = "not in the selected CUDA version",
    note = "with the default features on, also set `default-features = false`; below 12.3, capture the launches with `Graph::capture`"
)]
pub trait KernelNodes {}
#[cfg(cuda_12030)]
impl<T: ?Sized> KernelNodes for T {}

mod sealed {
    pub trait Sealed {}
}

/// An element type a memset node can set ([`GraphBuilder::memset`]): 1, 2 or 4 bytes, the
/// sizes the driver's memset sets. Sealed.
#[diagnostic::on_unimplemented(
    message = "a memset node cannot set elements of type `{Self}`",
    label = "not 1, 2 or 4 bytes",
    note = "a memset node sets `u8`, `i8`, `u16`, `i16`, `u32`, `i32` or `f32` elements; for other types, write them with a kernel node or copy them with `memcpy`"
)]
pub trait MemsetValue: Copy + sealed::Sealed {
    /// The value's bits, in the low bytes.
    #[doc(hidden)]
    fn __chevron_bits(self) -> u32;
}

macro_rules! memset_values {
    ($($t:ty => |$v:ident| $bits:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl MemsetValue for $t {
            #[inline]
            fn __chevron_bits(self) -> u32 {
                let $v = self;
                $bits
            }
        }
    )*};
}

memset_values! {
    u8 => |v| v as u32;
    i8 => |v| v as u8 as u32;
    u16 => |v| v as u32;
    i16 => |v| v as u16 as u32;
    u32 => |v| v;
    i32 => |v| v as u32;
    f32 => |v| v.to_bits();
}

/// Builder ids: apart from the driver's capture ids (which [`Graph::capture`]'s graphs and
/// nodes carry, counted up from 1), so that no node of a capture passes for a builder's.
static NEXT_ID: AtomicU64 = AtomicU64::new(1 << 63);

/// A host node's function and the count of its graph's host functions' panics, boxed once, so
/// that its address (the node's `userData`) stays put while the box moves into the graph.
struct HostCall<'a> {
    f: Box<dyn FnMut() + Send + 'a>,
    panics: Arc<AtomicU32>,
}

/// What [`Graph::build`]'s body adds nodes through: each node after the nodes it depends on
/// (its `after` list, [`BuiltNode`]s this builder made), each method returning the new node.
/// See [`Graph::build`] for an example and the rules.
///
/// `'a` is the graph's lifetime: what a host node's function or an event node's event borrows
/// stays borrowed until the graph is dropped. Not `Send`, as the graph.
pub struct GraphBuilder<'a> {
    graph: sys::CUgraph,
    ctx: Arc<CudaContext>,
    /// What kernel bodies capture on; the graph's first replay stream is another.
    stream: Arc<CudaStream>,
    id: u64,
    /// What the captures of kernel bodies share (slots of their nodes, conditional bodies).
    shared: conditional::Shared,
    /// Everything the nodes use: host functions, child builders' keeps.
    keep: Vec<Box<dyn Keep + 'a>>,
    /// Whether a node failed part way (see the rules).
    spoiled: bool,
    /// How many times a host function of the graph (or of a child) panicked: shared with the
    /// [`Graph`], whose `synchronize` reports them.
    host_panics: Arc<AtomicU32>,
    _not_send: PhantomData<*const ()>,
}

impl core::fmt::Debug for GraphBuilder<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GraphBuilder")
            .field("graph", &self.graph)
            .field("nodes_kept", &self.keep.len())
            .finish_non_exhaustive()
    }
}

/// The dependencies `after` of a node of builder `builder`: each node's handle, in order, each
/// once; `Error::Graph` for a node of another builder.
fn dependencies(builder: u64, after: &[BuiltNode]) -> Result<Vec<sys::CUgraphNode>, Error> {
    let mut deps = Vec::with_capacity(after.len());
    for (k, node) in after.iter().enumerate() {
        if node.builder != builder {
            return Err(graph_error(format!(
                "dependency {k} is a node of another graph builder: list nodes made by this \
                 builder (a child builder's nodes are inside its child node: depend on that)"
            )));
        }
        if !deps.contains(&node.node) {
            deps.push(node.node);
        }
    }
    Ok(deps)
}

fn graph_error(message: String) -> Error {
    Error::Graph {
        kernel: KernelName(None),
        message,
    }
}

/// `Error::Graph` unless `ctx` is the builder's context.
fn same_context(builder: &CudaContext, ctx: &CudaContext, what: &str) -> Result<(), Error> {
    if builder.cu_ctx() != ctx.cu_ctx() {
        return Err(graph_error(format!(
            "the {what} belongs to another CUDA context than the graph builder: use one of the \
             builder's context"
        )));
    }
    Ok(())
}

/// Calls a host node's function (a [`HostCall`] at `data`) on the driver's thread; a panic stops
/// here and is counted (see the rules of [`Graph::build`]).
unsafe extern "C" fn call_host(data: *mut c_void) {
    // SAFETY: `data` is the address of a `HostCall` the graph owns until it is dropped (after
    // its last replay), called by one replay at a time (replays are ordered).
    let call = unsafe { &mut *(data as *mut HostCall<'static>) };
    let f = &mut call.f;
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    if let Err(payload) = caught {
        call.panics.fetch_add(1, Ordering::Relaxed);
        // Dropping the payload may panic too: not here.
        core::mem::forget(payload);
    }
}

/// Restores cudarc's event tracking when a kernel body ends or panics.
#[cfg(cuda_12030)]
struct Tracking<'c> {
    ctx: &'c CudaContext,
    was: bool,
}

#[cfg(cuda_12030)]
impl<'c> Tracking<'c> {
    /// Pauses event tracking (a capturing stream cannot wait on events recorded outside it).
    fn pause(ctx: &'c CudaContext) -> Self {
        let was = ctx.is_event_tracking();
        // SAFETY: restored by `drop`; see the `Graph` docs for what pausing means.
        unsafe { ctx.disable_event_tracking() };
        Self { ctx, was }
    }
}

#[cfg(cuda_12030)]
impl Drop for Tracking<'_> {
    fn drop(&mut self) {
        if self.was {
            // SAFETY: restores what it was; buffers allocated meanwhile stay untracked, as for
            // a capture.
            unsafe { self.ctx.enable_event_tracking() };
        }
    }
}

/// Ends a kernel body's capture on every path (the graph is the builder's: never destroyed
/// here).
#[cfg(cuda_12030)]
struct EndCapture<'s> {
    stream: &'s CudaStream,
    active: bool,
}

#[cfg(cuda_12030)]
impl EndCapture<'_> {
    fn end(&mut self) -> Result<(), cudarc::driver::DriverError> {
        self.active = false;
        // SAFETY: the stream is live.
        unsafe { cudarc::driver::result::stream::end_capture(self.stream.cu_stream()) }.map(|_| ())
    }
}

#[cfg(cuda_12030)]
impl Drop for EndCapture<'_> {
    fn drop(&mut self) {
        if self.active {
            let _ = self.end();
        }
    }
}

impl<'a> GraphBuilder<'a> {
    /// An empty graph of context `ctx`, to add nodes to.
    ///
    /// `Error::Driver` naming the call that failed (`cuGraphCreate`, `cuStreamCreate`).
    fn new(ctx: &Arc<CudaContext>) -> Result<Self, Error> {
        ctx.bind_to_thread().map_err(graph_err("cuCtxSetCurrent"))?;
        let stream = ctx.new_stream().map_err(graph_err("cuStreamCreate"))?;
        let graph = driver::graph_create().map_err(graph_err("cuGraphCreate"))?;
        Ok(Self {
            graph,
            ctx: ctx.clone(),
            stream,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            shared: conditional::Shared::new(ctx.clone()),
            keep: Vec::new(),
            spoiled: false,
            host_panics: Arc::new(AtomicU32::new(0)),
            _not_send: PhantomData,
        })
    }

    /// The builder's context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The driver's graph (owned by the builder: do not destroy it).
    pub fn cu_graph(&self) -> sys::CUgraph {
        self.graph
    }

    /// The checked dependencies of a new node, the context bound.
    fn after(&self, after: &[BuiltNode]) -> Result<Vec<sys::CUgraphNode>, Error> {
        if self.spoiled {
            return Err(graph_error(
                "an earlier kernel node of this builder failed part way: build the graph again \
                 with a new builder"
                    .to_string(),
            ));
        }
        let deps = dependencies(self.id, after)?;
        self.ctx
            .bind_to_thread()
            .map_err(graph_err("cuCtxSetCurrent"))?;
        Ok(deps)
    }

    fn node(&self, node: sys::CUgraphNode) -> BuiltNode {
        BuiltNode {
            builder: self.id,
            node,
        }
    }

    /// Kernel nodes after `after`: `body` launches on [`Capture::stream`] of the capture it is
    /// given, as the body of [`Graph::capture`] does (typed `launch!` with every check and
    /// attribute, `last_node` for the [`GraphNode`] of a launch, to update; several launches
    /// run in order; conditional nodes), captured into this builder's graph after `after`.
    /// Returns the node later nodes depend on (the last work `body` captured; an empty node
    /// joining it when that is more than one node) and what `body` returned.
    ///
    /// What `body` borrows is borrowed for the graph's life through [`Graph::build`]'s body,
    /// which holds it (as for [`Graph::capture`]); cudarc's event tracking is paused while
    /// `body` runs (see [`Graph`]). Compiles with CUDA 12.3 (feature `cuda-12030`) or later,
    /// and needs a CUDA 12.3 driver.
    ///
    /// `Error::Graph` for a dependency of another builder, a body that captured no work, or a
    /// driver older than 12.3; the body's own error when it fails; `Error::Driver` naming the
    /// call the driver refused. A body that fails or panics spoils the builder.
    pub fn kernel<R, F>(&mut self, after: &[BuiltNode], body: F) -> Result<(BuiltNode, R), Error>
    where
        F: FnOnce(&mut Capture<'_>) -> Result<R, Error>,
        F: KernelNodes,
    {
        let deps = self.after(after)?;
        let mut body = Some(body);
        let (last, out) = self.capture_after(&deps, &mut |capture| match body.take() {
            Some(body) => body(capture),
            None => Err(graph_error("the kernel node's body ran twice".to_string())),
        })?;
        Ok((self.node(last), out))
    }

    /// Captures `body` after `deps`; returns the node its last work ends at.
    #[cfg(cuda_12030)]
    fn capture_after<R>(
        &mut self,
        deps: &[sys::CUgraphNode],
        body: &mut dyn FnMut(&mut Capture<'_>) -> Result<R, Error>,
    ) -> Result<(sys::CUgraphNode, R), Error> {
        let version = driver::driver_version()
            .map_err(|e| Error::driver("cuDriverGetVersion", KernelName(None), e))?;
        if version < 12030 {
            return Err(graph_error(format!(
                "kernel nodes of a graph built by hand need a CUDA 12.3 driver; this one is \
                 CUDA {}.{}: update the NVIDIA driver",
                version / 1000,
                version % 1000 / 10
            )));
        }
        let _tracking = Tracking::pause(&self.ctx);
        // Relaxed: a kernel's first use inside the body loads its module.
        let mode = sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED;
        // SAFETY: the builder's graph is live, of the stream's context, and holds `deps`
        // (checked to be this builder's nodes).
        unsafe { driver::begin_capture_after(&self.stream, self.graph, deps, mode) }
            .map_err(graph_err("cuStreamBeginCaptureToGraph"))?;
        // From here until the capture ends well, a failure may leave work in the graph.
        self.spoiled = true;
        let mut guard = EndCapture {
            stream: &self.stream,
            active: true,
        };
        let mut capture = Capture {
            stream: &self.stream,
            root: self.id,
            shared: &self.shared,
        };
        let out = body(&mut capture)?;
        let state =
            driver::capture_state(&self.stream).map_err(graph_err("cuStreamGetCaptureInfo"))?;
        guard.end().map_err(graph_err("cuStreamEndCapture"))?;
        let mut ends = state.deps;
        let same = ends.len() == deps.len() && ends.iter().all(|n| deps.contains(n));
        if same {
            // Nothing was added to the graph: the builder is as it was.
            self.spoiled = false;
            return Err(graph_error(
                "the kernel node's body captured no work: launch on the stream of the \
                 `Capture` it is given (`launch!(k<<<grid, block, c.stream()>>>(…))`)"
                    .to_string(),
            ));
        }
        let last = if ends.len() == 1 {
            ends.pop().unwrap_or(core::ptr::null_mut())
        } else {
            // SAFETY: the graph is live and holds the nodes the capture ended at.
            unsafe { driver::add_empty_node(self.graph, &ends) }
                .map_err(graph_err("cuGraphAddEmptyNode"))?
        };
        self.spoiled = false;
        Ok((last, out))
    }

    #[cfg(not(cuda_12030))]
    fn capture_after<R>(
        &mut self,
        _deps: &[sys::CUgraphNode],
        _body: &mut dyn FnMut(&mut Capture<'_>) -> Result<R, Error>,
    ) -> Result<(sys::CUgraphNode, R), Error> {
        // `kernel` does not compile below 12.3 (its `KernelNodes` bound).
        Err(graph_error(
            "kernel nodes of a graph built by hand need CUDA 12.3: use feature cuda-12030 or \
             later"
                .to_string(),
        ))
    }

    /// A memset node after `after`: sets every element of `dst` to `value`
    /// (`cuGraphAddMemsetNode`), at each replay. `dst` is a `CudaSlice` or `CudaViewMut` of the
    /// builder's context, of 1-, 2- or 4-byte elements, that [`Graph::build`]'s body borrows
    /// mutably (so that other nodes can write it too: the body holds the borrow for the graph's
    /// life); not one the body creates (see [`Graph::build`]).
    ///
    /// `Error::Graph` for a dependency of another builder, a buffer of another context or an
    /// empty buffer; `Error::Driver` when the driver refuses the node.
    pub fn memset<T, B>(
        &mut self,
        after: &[BuiltNode],
        dst: &mut B,
        value: T,
    ) -> Result<BuiltNode, Error>
    where
        T: MemsetValue,
        B: DevicePtrMut<T> + DeviceSlice<T> + ?Sized,
    {
        let deps = self.after(after)?;
        same_context(&self.ctx, dst.stream().context(), "buffer")?;
        let count = dst.len();
        if count == 0 {
            return Err(graph_error(
                "the memset node's buffer is empty: give it at least one element".to_string(),
            ));
        }
        let ptr = self.pointer_mut(dst)?;
        // SAFETY: the graph is live, of `ctx`, and holds `deps`; `ptr` is `count` elements of
        // `T` of `ctx`, which `Graph::build`'s body borrows mutably for the graph's life (the
        // caller's promise of `Graph::build` for a buffer the body creates).
        let node = unsafe {
            driver::add_memset_node(
                self.graph,
                &deps,
                self.ctx.cu_ctx(),
                ptr,
                value.__chevron_bits(),
                core::mem::size_of::<T>() as u32,
                count,
            )
        }
        .map_err(graph_err("cuGraphAddMemsetNode"))?;
        Ok(self.node(node))
    }

    /// A memcpy node after `after`: copies `src` into `dst`, device to device
    /// (`cuGraphAddMemcpyNode`), at each replay. Both of the builder's context and of one
    /// length, borrowed by [`Graph::build`]'s body as for [`GraphBuilder::memset`] (`src`
    /// shared, or mutably where other nodes write it).
    ///
    /// `Error::Graph` for a dependency of another builder, a buffer of another context, lengths
    /// that differ or empty buffers; `Error::Driver` when the driver refuses the node.
    pub fn memcpy<T, D, S>(
        &mut self,
        after: &[BuiltNode],
        dst: &mut D,
        src: &S,
    ) -> Result<BuiltNode, Error>
    where
        D: DevicePtrMut<T> + DeviceSlice<T> + ?Sized,
        S: DevicePtr<T> + DeviceSlice<T> + ?Sized,
    {
        let deps = self.after(after)?;
        same_context(&self.ctx, dst.stream().context(), "destination buffer")?;
        same_context(&self.ctx, src.stream().context(), "source buffer")?;
        if dst.len() != src.len() || src.len() == 0 {
            return Err(graph_error(format!(
                "the memcpy node copies {} elements into {}: give buffers (or views, `.slice(..)`) \
                 of one length, at least one element",
                src.len(),
                dst.len()
            )));
        }
        let bytes = src.num_bytes();
        let (from, guard) = src.device_ptr(&self.stream);
        skip_record(guard);
        let to = self.pointer_mut(dst)?;
        // SAFETY: the graph is live, of `ctx`, and holds `deps`; both pointers are `bytes`
        // bytes of `ctx`, borrowed as in `memset`.
        let node = unsafe {
            driver::add_memcpy_node(self.graph, &deps, self.ctx.cu_ctx(), to, from, bytes)
        }
        .map_err(graph_err("cuGraphAddMemcpyNode"))?;
        Ok(self.node(node))
    }

    /// The device pointer of `buffer`, taken on the builder's stream (which is not capturing
    /// here: the waits cudarc makes for the buffer's earlier uses land there, harmlessly, and
    /// `instantiate` synchronizes the context anyway), recording no use (the graph uses it
    /// later).
    fn pointer_mut<T, B>(&self, buffer: &mut B) -> Result<sys::CUdeviceptr, Error>
    where
        B: DevicePtrMut<T> + ?Sized,
    {
        let (ptr, guard) = buffer.device_ptr_mut(&self.stream);
        skip_record(guard);
        self.ctx
            .check_err()
            .map_err(|e| Error::driver("cuStreamWaitEvent", KernelName(None), e))?;
        Ok(ptr)
    }

    /// A host node after `after`: the driver calls `f` on a thread of its own at each replay,
    /// once the dependencies are done; nodes after it wait for it to return
    /// (`cuGraphAddHostNode`). `f` is owned by the graph and dropped with it; it must not call
    /// CUDA (the driver forbids it in host nodes). A panic in `f` is caught, and reported by the
    /// next [`Graph::synchronize`] (see the rules of [`Graph::build`]).
    ///
    /// `Error::Graph` for a dependency of another builder; `Error::Driver` when the driver
    /// refuses the node.
    pub fn host<F>(&mut self, after: &[BuiltNode], f: F) -> Result<BuiltNode, Error>
    where
        F: FnMut() + Send + 'a,
    {
        let deps = self.after(after)?;
        let mut boxed = Box::new(HostCall {
            f: Box::new(f),
            panics: self.host_panics.clone(),
        });
        let data = &mut *boxed as *mut HostCall<'a> as *mut c_void;
        // SAFETY: the graph is live and holds `deps`; `data` is the address of the boxed
        // function, which moves into `keep` below and lives, unmoved, until the graph is
        // dropped (after its last replay); `call_host` calls it as such.
        let node = unsafe { driver::add_host_node(self.graph, &deps, call_host, data) }
            .map_err(graph_err("cuGraphAddHostNode"))?;
        self.keep.push(boxed);
        Ok(self.node(node))
    }

    /// An event record node after `after`: records `event` at each replay, when the
    /// dependencies are done (`cuGraphAddEventRecordNode`), for a stream or the host to wait
    /// on. `event` (of the builder's context) is borrowed until the graph is dropped.
    ///
    /// `Error::Graph` for a dependency of another builder or an event of another context;
    /// `Error::Driver` when the driver refuses the node.
    pub fn record(
        &mut self,
        after: &[BuiltNode],
        event: &'a CudaEvent,
    ) -> Result<BuiltNode, Error> {
        self.event(after, event, false)
    }

    /// An event wait node after `after`: at each replay, the nodes after it wait for the last
    /// record of `event` before the replay reached the node (`cuGraphAddEventWaitNode`).
    /// Otherwise as [`GraphBuilder::record`].
    pub fn wait(&mut self, after: &[BuiltNode], event: &'a CudaEvent) -> Result<BuiltNode, Error> {
        self.event(after, event, true)
    }

    fn event(
        &mut self,
        after: &[BuiltNode],
        event: &'a CudaEvent,
        wait: bool,
    ) -> Result<BuiltNode, Error> {
        let deps = self.after(after)?;
        same_context(&self.ctx, event.context(), "event")?;
        // SAFETY: the graph is live and holds `deps`; the event is of its context, borrowed
        // for `'a`, which the graph cannot outlive.
        let node = unsafe { driver::add_event_node(self.graph, &deps, event.cu_event(), wait) }
            .map_err(graph_err(if wait {
                "cuGraphAddEventWaitNode"
            } else {
                "cuGraphAddEventRecordNode"
            }))?;
        Ok(self.node(node))
    }

    /// A child graph node after `after`: `body` builds a graph of its own, through a builder
    /// of its own, and this node runs it (`cuGraphAddChildGraphNode`, which copies it). What
    /// the child's nodes keep moves into this graph. The child's [`BuiltNode`]s are not this
    /// builder's (depend on the child node), and its kernel nodes cannot be updated through
    /// this graph. Returns the node and what `body` returned.
    ///
    /// `Error::Graph` for a dependency of another builder or a spoiled child; `body`'s own
    /// error; `Error::Driver` when the driver refuses the node (a child holding conditional
    /// nodes, for one).
    pub fn child<R, F>(&mut self, after: &[BuiltNode], body: F) -> Result<(BuiltNode, R), Error>
    where
        F: FnOnce(&mut GraphBuilder<'a>) -> Result<R, Error>,
    {
        let deps = self.after(after)?;
        let mut child = GraphBuilder::new(&self.ctx)?;
        child.host_panics = self.host_panics.clone();
        let out = body(&mut child)?;
        child.after(&[])?;
        self.ctx
            .bind_to_thread()
            .map_err(graph_err("cuCtxSetCurrent"))?;
        // SAFETY: both graphs are live, of one context; the graph holds `deps`; what the
        // child's nodes use moves into `keep` below, for `'a`.
        let node = unsafe { driver::add_child_node(self.graph, &deps, child.graph) }
            .map_err(graph_err("cuGraphAddChildGraphNode"))?;
        self.keep.append(&mut child.keep);
        if child.shared.node_priority() {
            self.shared.mark_priority();
        }
        Ok((self.node(node), out))
    }

    /// An empty node after `after` (`cuGraphAddEmptyNode`): one node to depend on for many.
    ///
    /// `Error::Graph` for a dependency of another builder.
    pub fn empty(&mut self, after: &[BuiltNode]) -> Result<BuiltNode, Error> {
        let deps = self.after(after)?;
        // SAFETY: the graph is live and holds `deps`.
        let node = unsafe { driver::add_empty_node(self.graph, &deps) }
            .map_err(graph_err("cuGraphAddEmptyNode"))?;
        Ok(self.node(node))
    }

    /// Instantiates the graph into a [`Graph`] that keeps everything the nodes use and
    /// `body` (the build's body, with what it owns), first synchronizing the context (work
    /// enqueued before, on the buffers the nodes use, is done before the first replay). Node
    /// priorities apply as for [`Graph::capture`].
    fn instantiate(mut self, body: Box<dyn Keep + 'a>) -> Result<Graph<'a>, Error> {
        self.after(&[])?;
        self.ctx
            .synchronize()
            .map_err(graph_err("cuCtxSynchronize"))?;
        let order = self
            .ctx
            .new_event(Some(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING))
            .map_err(graph_err("cuEventCreate"))?;
        let body_priority = self.shared.node_priority();
        // SAFETY: the graph is live, its context current (bound by `after`).
        let exec = unsafe { super::instantiate(self.graph, body_priority) }?;
        let graph = core::mem::replace(&mut self.graph, core::ptr::null_mut());
        let mut keep = core::mem::take(&mut self.keep);
        keep.push(body);
        Ok(Graph {
            graph,
            exec,
            ctx: self.ctx.clone(),
            last: self.stream.clone(),
            pending: false,
            waits_on_last: core::cell::Cell::new(false),
            order,
            id: self.id,
            records: core::cell::RefCell::new(super::Records::new()),
            body_priority,
            host_panics: Some(self.host_panics.clone()),
            _body: Box::new(keep),
        })
    }
}

impl<'a> Graph<'a> {
    /// [`Graph::build`], whose entry in `graph/mod.rs` (where rustc names it plainly in a
    /// bound's error) calls this.
    pub(super) fn build_body<R, F>(ctx: &Arc<CudaContext>, mut body: F) -> Result<(Self, R), Error>
    where
        F: FnMut(&mut GraphBuilder<'a>) -> Result<R, Error> + 'a,
    {
        let mut builder = GraphBuilder::new(ctx)?;
        let out = body(&mut builder)?;
        let graph = builder.instantiate(Box::new(body))?;
        Ok((graph, out))
    }
}

impl Drop for GraphBuilder<'_> {
    fn drop(&mut self) {
        if !self.graph.is_null() {
            let _ = self.ctx.bind_to_thread();
            // SAFETY: never instantiated; nothing else holds it (a child node holds a copy).
            let _ = unsafe { driver::graph_destroy(core::ptr::null_mut(), self.graph) };
        }
    }
}

#[cfg(test)]
mod tests;
