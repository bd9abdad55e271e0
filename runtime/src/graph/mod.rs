//! CUDA graphs of typed launches: [`Graph`], its rules and its nodes.
//!
//! One concern per file: here the [`Graph`] itself, its rules, its public entries whose bounds
//! rustc names in errors ([`Graph::capture`], [`Graph::build`], [`Graph::set_node_attribute`])
//! and the context check of the hot calls; the capture in `capture.rs`, graphs built by hand in
//! `build.rs`, replays in `replay.rs`, kernel nodes in `node.rs`, untyped argument updates and
//! the record of updated arguments in `params.rs`, buffers ordered once for typed updates in
//! `update.rs`, conditional nodes in `conditional.rs`.

use std::sync::Arc;

use cudarc::driver::{result as cu, CudaContext, CudaEvent, CudaStream};

use crate::config::attr::{GraphAttribute, Reached};
use crate::driver;
use crate::error::{Error, KernelName};
use crate::sys;

mod build;
mod capture;
mod conditional;
mod device;
mod node;
mod params;
mod replay;
mod update;
pub use build::{BuiltNode, GraphBuilder, KernelNodes, MemsetValue};
pub use capture::Capture;
pub use conditional::{ConditionalHandle, ConditionalNodes, SwitchNodes};
pub use device::{DeviceGraph, DeviceGraphHandle, DeviceLaunchable};
use node::device_node_of;
pub use node::{DeviceNode, GraphEdge, GraphNode};
use params::Records;
pub use update::{Ordered, OrderedBuffer, OrderedPtr, OrderedRead};

/// Type-erases the capture body: the graph keeps it, and with it everything it borrows or owns.
trait Keep {}
impl<T: ?Sized> Keep for T {}

/// An instantiated CUDA graph, captured from launches on a stream by [`Graph::capture`] (or built
/// node by node, with explicit dependencies, by [`Graph::build`]): capture the launches made on
/// a stream once, replay them at a fraction of the driver's per-launch cost, and change their
/// arguments between replays without instantiating again.
///
/// ```no_run
/// use chevron::cudarc::driver::CudaSlice;
/// use chevron::{kernel, launch, Graph};
///
/// /// y = y·a + b
/// #[kernel(ptx = "kernels/chain.ptx")]
/// fn chain(n: u32, a: f32, b: f32, y: &mut CudaSlice<f32>);
///
/// fn main() -> Result<(), chevron::Error> {
///     let ctx = chevron::context(0)?;
///     let stream = ctx.new_stream()?;
///     let mut y = stream.clone_htod(&[1.0f32; 256])?;
///     // Everything the body borrows (buffers, events, configs) stays borrowed for the graph's
///     // life: `y` until `graph` is dropped.
///     // SAFETY: `graph` is dropped below, not leaked; one block of 256 threads covers y's 256
///     // elements.
///     let (mut graph, node) = unsafe {
///         Graph::capture(&stream, |capture| {
///             launch!(chain<<<1, 256, capture.stream()>>>(256, 0.5, 1.0, &mut y))?;
///             capture.last_node()
///         })
///     }?;
///     for _ in 0..100 {
///         graph.replay(&stream)?;
///     }
///     // SAFETY: the node is `chain`'s on 256 elements; it keeps its buffer.
///     unsafe { chain::kernel().update_scalars(&mut graph, &node, (256, 0.25, 2.0)) }?;
///     graph.replay(&stream)?;
///     drop(graph); // waits for the last replay and ends the borrow of `y`
///     println!("{:?}", &stream.clone_dtoh(&y)?[..4]);
///     Ok(())
/// }
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
/// - **A graph is dropped, never leaked** (the caller's promise: [`Graph::capture`] is
///   `unsafe`): a leaked graph (`std::mem::forget`, `ManuallyDrop`, `Box::leak`, an `Rc`
///   cycle) ends the borrows without waiting for its last replay, and safe code could then free
///   a buffer the replay still writes (seen on the H200: a later allocation held the replay's
///   values). Rust lets safe code leak any value, so no type can make the wait at drop
///   unskippable; the alternatives were a scope closure around every use of a graph (as
///   `std::thread::scope`) or an event recorded on every captured buffer at every replay, and
///   both cost every user of graphs for a mistake only a leak makes.
/// - **Not enforced**: what the kernels do with their arguments (launching and updating stay
///   `unsafe`, as launching does); buffers the body creates and drops inside itself (a freed
///   buffer the graph still uses): create them outside the body; buffers given to a typed
///   `update`, which are borrowed for the call only (see its safety section); and buffers a
///   kernel points a device-updatable node at ([`DeviceNode`]), which are raw pointers to the
///   graph.
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
    /// update path), all in one allocation (see [`Records`]); updates after the first of each
    /// node allocate nothing.
    records: core::cell::RefCell<Records>,
    /// Whether a kernel node that the walk of the graph does not reach (in a conditional body)
    /// has, or had, a priority other than 0: the graph then instantiates with node priorities.
    body_priority: bool,
    /// Of a graph built by hand ([`Graph::build`]): how many times its host functions panicked
    /// since [`Graph::synchronize`] last reported it.
    host_panics: Option<Arc<core::sync::atomic::AtomicU32>>,
    _body: Box<dyn Keep + 'a>,
}

/// `CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY`: replays run each kernel node at its own
/// priority attribute instead of the priority of the stream they are launched into.
const USE_NODE_PRIORITY: sys::CUgraphInstantiate_flags =
    sys::CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;

/// The `cuGraphInstantiateWithFlags` flags of a graph whose kernel nodes have `priorities`:
/// [`USE_NODE_PRIORITY`] when one of them is not the default priority 0, else none.
///
/// Without the flag the driver ignores node priorities at replay (the replay runs at the
/// priority of the stream it is launched into), so a `priority = …` captured in the graph, or
/// set with [`Graph::set_node_attribute`], would do nothing. With it, every kernel node runs at
/// its own priority, which stream capture copies from the launch's `priority` or else from the
/// capturing stream's: a graph with no priority anywhere keeps the replay stream's priority (a
/// graph replayed into a high-priority stream still runs high), and a graph with one runs every
/// node at the priority it was captured with.
fn instantiate_flags(priorities: impl IntoIterator<Item = i32>) -> sys::CUgraphInstantiate_flags {
    if priorities.into_iter().any(|p| p != 0) {
        USE_NODE_PRIORITY
    } else {
        sys::CUgraphInstantiate_flags(0)
    }
}

/// The priority attribute of kernel node `node`; 0 (the default) when the driver does not
/// report one.
///
/// # Safety
/// `node` is a live kernel node.
unsafe fn node_priority(node: sys::CUgraphNode) -> i32 {
    let id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PRIORITY;
    // SAFETY: forwarded from the caller.
    unsafe { driver::kernel_node_attribute(node, id) }
        .map_or(0, |value| crate::config::attr::u32_at(&value, 0) as i32)
}

/// [`instantiate_flags`] of `graph`, from the priority attribute of its kernel nodes and of
/// those of its child graphs; `bodies`: whether a kernel node of a conditional body (which this
/// walk does not reach: the capture of the body looked) has one.
///
/// # Safety
/// `graph` is live.
unsafe fn flags_of(
    graph: sys::CUgraph,
    bodies: bool,
) -> Result<sys::CUgraphInstantiate_flags, Error> {
    if bodies {
        return Ok(USE_NODE_PRIORITY);
    }
    let mut nodes = Vec::new();
    // SAFETY: forwarded from the caller.
    unsafe { device::nodes_of(graph, &mut nodes) }?;
    Ok(instantiate_flags(
        nodes
            .into_iter()
            .filter(|&(_, kind)| kind == 0)
            // SAFETY: a kernel node of the live graph.
            .map(|(node, _)| unsafe { node_priority(node) }),
    ))
}

/// Instantiates `graph` with [`flags_of`] it (`bodies` as there).
///
/// # Safety
/// `graph` is live, in the current context.
unsafe fn instantiate(graph: sys::CUgraph, bodies: bool) -> Result<sys::CUgraphExec, Error> {
    // SAFETY: forwarded from the caller.
    let flags = unsafe { flags_of(graph, bodies) }?;
    // SAFETY: forwarded from the caller.
    unsafe { cu::graph::instantiate(graph, flags) }.map_err(graph_err("cuGraphInstantiate"))
}

fn graph_err(call: &'static str) -> impl Fn(cudarc::driver::result::DriverError) -> Error {
    move |e| Error::driver(call, KernelName(None), e)
}

impl<'a> Graph<'a> {
    /// The graph's context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    #[inline(always)]
    fn check_node(&self, node: &GraphNode, kernel: KernelName) -> Result<(), Error> {
        node.check_capture(self.id, kernel)
    }

    /// Captures the launches `body` makes on `stream` (through [`Capture::stream`]) into a graph
    /// and instantiates it; returns the graph and what `body` returned (typically the
    /// [`GraphNode`]s to update later).
    ///
    /// First synchronizes the context, so that work enqueued earlier is done; captures in
    /// `CU_STREAM_CAPTURE_MODE_RELAXED` mode (a kernel may be used for the first time, loading
    /// its module, inside the body) with cudarc's event tracking paused (see the
    /// [`Graph`] docs). The graph replays on any stream of the context.
    ///
    /// Node priorities apply at replay: when a kernel node of the graph (or of a child graph)
    /// has a priority other than the default 0 (a `priority = …` in its launch, or a capture
    /// on a stream of another priority), the graph is instantiated with
    /// `CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY`, and every kernel node then runs at its
    /// own priority instead of the replay stream's; a graph without any keeps running at the
    /// priority of the stream it is replayed into. Kernels of conditional bodies count; once
    /// [`Graph::set_node_attribute`] has given any node a priority other than 0, the graph
    /// keeps the flag when it instantiates again.
    ///
    /// `Error::Graph` when the stream is already capturing; `Error::Driver` naming
    /// `cuStreamEndCapture` when the driver invalidated the capture (an operation the capture
    /// cannot record); the body's own error when it fails. On any error or panic the capture is
    /// ended and discarded, and event tracking restored.
    ///
    /// # Safety
    /// The graph is dropped, never leaked (`std::mem::forget`, `ManuallyDrop`, `Box::leak`, an
    /// `Rc` cycle), while anything its body borrows may still be freed or used: dropping it
    /// waits for its last replay before the borrows end; a leaked graph's borrows end without
    /// that wait, and a replay may then write a buffer that safe code freed or reuses. (The
    /// launches in the body are `unsafe` on their own, for what the kernels do.)
    ///
    /// A leak cannot compile without `unsafe` (the sequence that freed a buffer under a
    /// running replay on the H200):
    ///
    /// ```compile_fail,E0133
    /// # fn f(stream: &std::sync::Arc<chevron::cudarc::driver::CudaStream>) -> Result<(), chevron::Error> {
    /// let mut y = stream.alloc_zeros::<f32>(256)?;
    /// let (mut graph, ()) = chevron::Graph::capture(stream, |capture| {
    ///     // unsafe { launch!(saxpy<<<1, 256, capture.stream()>>>(256, 2.0, &x, &mut y)) }?;
    ///     # let _ = (capture, &mut y);
    ///     Ok(())
    /// })?;
    /// graph.replay(stream)?;
    /// std::mem::forget(graph); // the borrow of `y` ends, the replay may still run
    /// drop(y); // freed under the replay
    /// # Ok(()) }
    /// ```
    pub unsafe fn capture<R, F>(stream: &Arc<CudaStream>, body: F) -> Result<(Self, R), Error>
    where
        F: FnMut(&mut Capture<'_>) -> Result<R, Error> + 'a,
    {
        Self::capture_body(stream, body)
    }

    /// Builds a graph node by node, each after the nodes it depends on: `body` adds them
    /// through the [`GraphBuilder`] it is given (kernel launches, memsets, copies, host
    /// functions, event records and waits, child graphs, empty nodes; every method takes the
    /// new node's dependencies as a list of [`BuiltNode`]s and returns the new node), then the
    /// graph is instantiated into a [`Graph`] like a captured one: replays, typed updates (on
    /// the [`GraphNode`] of a kernel node, from `last_node`), node attributes and the rest
    /// work unchanged. Returns the graph and what `body` returned.
    ///
    /// ```no_run
    /// use chevron::cudarc::driver::CudaSlice;
    /// use chevron::{kernel, launch, Graph};
    ///
    /// /// y = y·a + b
    /// #[kernel(ptx = "kernels/chain.ptx")]
    /// fn chain(n: u32, a: f32, b: f32, y: &mut CudaSlice<f32>);
    ///
    /// fn main() -> Result<(), chevron::Error> {
    ///     let ctx = chevron::context(0)?;
    ///     let stream = ctx.new_stream()?;
    ///     let mut y = stream.alloc_zeros::<f32>(256)?;
    ///     let mut z = stream.alloc_zeros::<f32>(256)?;
    ///     // SAFETY: `graph` is dropped, not leaked; one block of 256 threads covers y's 256
    ///     // elements.
    ///     let (mut graph, node) = unsafe {
    ///         Graph::build(&ctx, |b| {
    ///             let ones = b.memset(&[], &mut y, 1.0f32)?;
    ///             let (step, node) = b.kernel(&[ones], |c| {
    ///                 launch!(chain<<<1, 256, c.stream()>>>(256, 0.5, 1.0, &mut y))?;
    ///                 c.last_node()
    ///             })?;
    ///             b.memcpy(&[step], &mut z, &y)?;
    ///             Ok(node)
    ///         })
    ///     }?;
    ///     graph.replay(&stream)?; // z = 1·0.5 + 1
    ///     // SAFETY: the node is `chain`'s on 256 elements; it keeps its buffer.
    ///     unsafe { chain::kernel().update_scalars(&mut graph, &node, (256, 2.0, 0.0)) }?;
    ///     graph.replay(&stream)?; // z = 1·2 + 0
    ///     drop(graph); // waits for the last replay and ends the borrows of `y` and `z`
    ///     assert_eq!(stream.clone_dtoh(&z)?[0], 2.0);
    ///     Ok(())
    /// }
    /// ```
    ///
    /// # The rules, and what enforces them
    ///
    /// Those of [`Graph`], for every kind of node:
    ///
    /// - **Everything the body borrows stays borrowed** (compiler): `body` is kept in the graph,
    ///   as [`Graph::capture`]'s, so the buffers its nodes write (memset and copy destinations,
    ///   kernel arguments) stay borrowed `&mut` until the graph is dropped, and those they only
    ///   read stay borrowed shared. The body holds each borrow once, for every node that uses
    ///   the buffer; a kernel node's own body ([`GraphBuilder::kernel`]) runs at once, inside it.
    /// - **What outlives the body is borrowed for the graph's life** (compiler): an event
    ///   node's event and what a host node's function borrows are borrowed for `'a`, the
    ///   graph's lifetime, so one the body creates (and would drop at its end) does not
    ///   compile.
    /// - **A host node's function is owned by the graph** (compiler, run time): boxed, it lives
    ///   until the graph is dropped, which waits for the last replay, so the driver never calls
    ///   a freed function. It is `Send` (the driver calls it on a thread of its own) and
    ///   `FnMut` only: replays are ordered with each other, so two calls never overlap. A panic
    ///   is caught at the driver's boundary (unwinding into C is undefined behaviour): the
    ///   panic hook prints it, the call ends, the nodes after it run, later replays call the
    ///   function again, and the next [`Graph::synchronize`] returns `Error::Graph`.
    /// - **Dependencies are checked** (run time): a [`BuiltNode`] of another builder (a child
    ///   graph's, another build's) is `Error::Graph`; a node can name only nodes made before
    ///   it, so the graph has no cycle.
    /// - **Work enqueued before is finished before the graph runs** (run time): the context is
    ///   synchronized once the body returns, before instantiating.
    /// - **A failed kernel node spoils the builder** (run time): a kernel body that failed or
    ///   panicked may have left part of its work in the graph, so every later call is
    ///   `Error::Graph`.
    /// - **Not enforced**, as for [`Graph::capture`]: a buffer of a memset, a copy or a kernel
    ///   that the body creates and drops inside itself (create buffers outside the body: the
    ///   body then borrows them, once, for every node); and what the kernels do with their
    ///   arguments (`launch!` stays `unsafe`).
    ///
    /// `Error::Driver` naming the call the driver refused (`cuGraphCreate`, a `cuGraphAdd…`
    /// call, `cuCtxSynchronize`, `cuGraphInstantiate`); the body's own error when it fails.
    ///
    /// # Safety
    /// As [`Graph::capture`]: the graph is dropped, never leaked (`std::mem::forget`,
    /// `ManuallyDrop`, `Box::leak`, an `Rc` cycle), while anything its nodes use may still be
    /// freed or used: dropping it waits for its last replay before the borrows end. (The
    /// launches in kernel nodes are `unsafe` on their own, for what the kernels do.)
    pub unsafe fn build<R, F>(ctx: &Arc<CudaContext>, body: F) -> Result<(Self, R), Error>
    where
        F: FnMut(&mut GraphBuilder<'a>) -> Result<R, Error> + 'a,
    {
        Self::build_body(ctx, body)
    }

    /// Sets launch attribute `attr` on kernel node `node` (`cuGraphKernelNodeSetAttribute`) and
    /// instantiates the graph again, after the last replay, so that it takes effect (a
    /// [`Priority`](crate::Priority) other than 0 on any node instantiates with
    /// `CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY`, see [`Graph::capture`]). Only kinds
    /// the driver accepts on a graph node compile (the rules crate table's `graph` column):
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
        // A priority set on a node of a conditional body is not seen by the walk of the graph:
        // from the first one on, the graph instantiates with node priorities.
        if A::ID == sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PRIORITY
            && crate::config::attr::u32_at(&attr.value(), 0) != 0
        {
            self.body_priority = true;
        }
        // SAFETY: the graph is live, its context current (bound above). Instantiated with
        // node priorities when a node has one now (this call may have given it one).
        let exec = unsafe { instantiate(self.graph, self.body_priority) }?;
        let old = core::mem::replace(&mut self.exec, exec);
        // SAFETY: no replay of the old executable graph runs (synchronized above).
        unsafe { driver::graph_destroy(old, core::ptr::null_mut()) }
            .map_err(graph_err("cuGraphExecDestroy"))
    }

    /// Runs `body` as a batch of updates and replays: the graph's context is checked, and
    /// bound if it is not current, once, here; inside `body`, the updates (the typed
    /// [`update`](crate::Typed::update), [`update_ordered`](crate::Typed::update_ordered) and
    /// [`update_scalars`](crate::Typed::update_scalars), [`Graph::set_params`],
    /// [`Graph::set_params_keeping`]) and replays on the last replay's stream, of this graph
    /// and of any other graph of the same context, skip the per-call context check
    /// (`cuCtxGetCurrent`, which outside a batch every such call makes, as before): on the
    /// H200 that check is up to a tenth of the raw `cuGraphExecKernelNodeSetParams`'s time, as
    /// much as the typed updates may add in all (`examples/graph_replay.rs`). Returns what
    /// `body` returns; `body` gets the graph.
    ///
    /// ```no_run
    /// # use chevron::{Graph, GraphNode};
    /// # fn f(graph: &mut Graph<'_>, nodes: &[GraphNode], stream: &std::sync::Arc<chevron::cudarc::driver::CudaStream>) -> Result<(), chevron::Error> {
    /// // SAFETY: nothing in the body changes the thread's current context.
    /// unsafe {
    ///     graph.updates(|graph| {
    ///         for node in nodes {
    ///             // no context check:
    ///             // chain::kernel().update_scalars(graph, node, (256, 0.5, 1.0))?;
    /// #           let _ = node;
    ///         }
    ///         graph.replay(stream)
    ///     })
    /// }
    /// # }
    /// ```
    ///
    /// What the skip assumes is that the context bound here stays current on this thread until
    /// `body` returns. The batch is the thread's (a thread-local mark, set here and restored
    /// when `body` returns or panics): `body` runs on this thread, and the graph, which is not
    /// `Send`, cannot be taken to another one; a thread `body` starts has no batch. A batch of
    /// another context inside `body` binds that context, after which this one's calls check
    /// again. Calls on the graph's own context (its streams, its buffers, cudarc's calls on
    /// them, which bind it) keep it current and are fine inside.
    ///
    /// `Error::Driver` naming `cuCtxSetCurrent` when the context could not be bound; else
    /// `body`'s result.
    ///
    /// # Safety
    /// Nothing `body` runs makes another context, or none, current on this thread: no raw
    /// `cuCtxSetCurrent`, `cuCtxPushCurrent` or `cuCtxPopCurrent`, no library that does, and no
    /// cudarc or chevron call on another context (a `CudaContext::bind_to_thread`, a use of its
    /// streams, buffers, events or modules, dropping its last handle), since cudarc binds the
    /// context of what it works on. Without their context the driver's graph calls may crash
    /// rather than fail (seen on the H200 with driver 580 and no context current), which the
    /// per-call check prevents outside a batch.
    pub unsafe fn updates<R>(
        &mut self,
        body: impl FnOnce(&mut Self) -> Result<R, Error>,
    ) -> Result<R, Error> {
        self.ensure_current(KernelName(None))?;
        let _batch = RestoreBatch::enter(self.ctx.cu_ctx() as usize);
        body(self)
    }

    /// The context check of the hot graph calls (updates, a replay on the last stream): the
    /// driver is asked which context is current (`cuCtxGetCurrent`, straight through the
    /// driver's entry point), and the graph's is bound (cudarc's `bind_to_thread`) only when
    /// another one or none is. Asked at every call, never assumed from an earlier bind: other
    /// code on the thread (a raw `cuCtxSetCurrent(NULL)`, another library) may have changed it
    /// since, and without its context the driver's graph calls may crash instead of failing
    /// (seen on the H200 with driver 580); except inside a batch of the context on this thread
    /// ([`Graph::updates`]), whose caller promised it stays current (one thread-local load and
    /// a compare then). An error cudarc recorded where it could not return one (in a `Drop`)
    /// is reported by the next bind or launch, not by this check.
    #[inline(always)]
    fn ensure_current(&self, kernel: KernelName) -> Result<(), Error> {
        if BATCH.with(core::cell::Cell::get) == self.ctx.cu_ctx() as usize {
            return Ok(());
        }
        let mut current = core::ptr::null_mut();
        // SAFETY: an out-pointer to a local.
        let rc = unsafe { sys::cuCtxGetCurrent(&mut current) };
        if rc == sys::cudaError_enum::CUDA_SUCCESS && current == self.ctx.cu_ctx() {
            return Ok(());
        }
        self.bind_current(kernel)
    }

    /// [`Graph::ensure_current`] when the graph's context is not current: binds it.
    #[cold]
    #[inline(never)]
    fn bind_current(&self, kernel: KernelName) -> Result<(), Error> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| Error::driver("cuCtxSetCurrent", kernel, e))
    }

    /// The driver's graph (owned by this value: do not destroy it).
    pub fn cu_graph(&self) -> sys::CUgraph {
        self.graph
    }

    /// The driver's executable graph (owned by this value: do not destroy it).
    pub fn cu_graph_exec(&self) -> sys::CUgraphExec {
        self.exec
    }

    /// Whether the graph is instantiated with `CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY`,
    /// so that each kernel node replays at its own priority: whether one of its kernel nodes
    /// (in child graphs and conditional bodies too) has a priority other than 0. Asked of the
    /// graph as instantiated (`cuGraphExecGetFlags` does not report this flag: on a CUDA 13.0
    /// driver it reads 0 for an executable instantiated with it).
    ///
    /// # Errors
    /// `Error::Driver` when the driver cannot list the graph's nodes.
    pub fn uses_node_priorities(&self) -> Result<bool, Error> {
        self.ensure_current(KernelName(None))?;
        // SAFETY: the graph is live, its context current (made so above).
        let flags = unsafe { flags_of(self.graph, self.body_priority) }?;
        Ok(flags == USE_NODE_PRIORITY)
    }
}

std::thread_local! {
    /// The context ([`sys::CUcontext`] as an address) that a batch ([`Graph::updates`]) running
    /// on this thread bound and was promised stays current; 0 outside batches.
    static BATCH: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

/// Ends a batch (also when its body panics): the thread's mark goes back to the enclosing
/// batch's, when that one is of the same context; else to none, since this batch bound its own
/// context over the enclosing one's, whose calls check again.
struct RestoreBatch {
    outer: usize,
    inner: usize,
}

impl RestoreBatch {
    /// Marks this thread as in a batch of context `ctx` until the value is dropped.
    fn enter(ctx: usize) -> Self {
        let outer = BATCH.with(|batch| batch.replace(ctx));
        Self { outer, inner: ctx }
    }
}

impl Drop for RestoreBatch {
    fn drop(&mut self) {
        let back = if self.outer == self.inner {
            self.outer
        } else {
            0
        };
        BATCH.with(|batch| batch.set(back));
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

#[cfg(test)]
mod tests {
    use super::*;

    fn mark() -> usize {
        BATCH.with(core::cell::Cell::get)
    }

    #[test]
    fn node_priorities_apply_when_a_node_has_one() {
        assert_eq!(instantiate_flags([]), sys::CUgraphInstantiate_flags(0));
        assert_eq!(
            instantiate_flags([0, 0, 0]),
            sys::CUgraphInstantiate_flags(0)
        );
        for priorities in [[0, -5, 0], [0, 0, 3]] {
            let flags = instantiate_flags(priorities);
            assert_eq!(flags, USE_NODE_PRIORITY, "{priorities:?}");
            assert_eq!(flags.0, 8, "CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY");
        }
    }

    #[test]
    fn a_batch_mark_goes_back_to_an_enclosing_batch_of_its_context_only() {
        assert_eq!(mark(), 0, "no batch");
        {
            let _outer = RestoreBatch::enter(0x10);
            assert_eq!(mark(), 0x10);
            {
                let _same = RestoreBatch::enter(0x10);
                assert_eq!(mark(), 0x10);
            }
            assert_eq!(
                mark(),
                0x10,
                "the enclosing batch of the same context goes on"
            );
            {
                let _other = RestoreBatch::enter(0x20);
                assert_eq!(mark(), 0x20);
            }
            assert_eq!(
                mark(),
                0,
                "another context's batch bound its own: the enclosing one's calls check again"
            );
        }
        assert_eq!(mark(), 0);
        let panicked = std::panic::catch_unwind(|| {
            let _batch = RestoreBatch::enter(0x30);
            panic!("the body panics");
        });
        assert!(panicked.is_err());
        assert_eq!(mark(), 0, "ended by the panic");
        let elsewhere = {
            let _batch = RestoreBatch::enter(0x40);
            std::thread::spawn(mark).join().unwrap()
        };
        assert_eq!(elsewhere, 0, "another thread has no batch");
    }
}
