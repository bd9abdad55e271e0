//! Conditional nodes in a capture: `while_loop`, `if_then`, `if_else` and `switch` on a
//! [`Capture`], whose bodies are captured like the rest of the graph, and the
//! [`ConditionalHandle`] a kernel sets with `cudaGraphSetConditional` to decide them on the GPU.
//!
//! How a node is made (CUDA 12.3): the capturing stream's graph and dependencies
//! (`cuStreamGetCaptureInfo`), a condition of that graph (`cuGraphConditionalHandleCreate`), the
//! node after those dependencies (`cuGraphAddNode`), the stream's next work after the node
//! (`cuStreamUpdateCaptureDependencies`); each body is captured on a stream of its own into the
//! body graph the driver made (`cuStreamBeginCaptureToGraph`) and then checked for what a body
//! may not hold.

// Below CUDA 12.3 the public methods do not compile (their bounds), and the rest is unused.
#![cfg_attr(not(cuda_12030), allow(dead_code, unused_imports))]

use core::marker::PhantomData;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream};

use super::Capture;
use crate::error::{Error, KernelName};

/// The condition of a conditional node (`CUgraphConditionalHandle`; in CUDA C++ device code,
/// `cudaGraphConditionalHandle`, an `unsigned long long`): made by [`Capture::condition`],
/// decided by a kernel of the graph that calls `cudaGraphSetConditional(handle, value)`, and
/// read by the node ([`Capture::while_loop`], [`Capture::if_then`], [`Capture::if_else`],
/// [`Capture::switch`]) each time the graph reaches it.
///
/// Declared as a kernel parameter of type `ConditionalHandle` it is the 64-bit handle by value
/// (`.param .u64` in the PTX, checked like any other parameter). A kernel calling
/// `cudaGraphSetConditional` calls the CUDA device runtime: compile it with
/// `nvcc -ptx -rdc=true`; chevron links it with `libcudadevrt.a` when it loads (see
/// [`crate::load_ptx`]).
///
/// It lives as long as the capture that made it (the [`Capture`]'s lifetime, not a borrow of the
/// [`Capture`] value, so that the node taking it may borrow the capture mutably), so it cannot
/// leave the body of [`Graph::capture`](crate::Graph::capture): a handle used after its graph's
/// capture does not compile. Inside
/// the capture, a node takes only a condition made on its own graph (a body's nodes take
/// conditions made by the body's [`Capture`]): anything else is `Error::Graph`. A kernel launched
/// outside the graph with the handle is the one misuse nothing checks (the kernel's arguments are
/// unchecked, as for every launch: launching stays `unsafe`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct ConditionalHandle<'c> {
    raw: u64,
    _capture: PhantomData<&'c ()>,
}

impl ConditionalHandle<'_> {
    /// The handle's bits, as device code receives them.
    pub fn raw(self) -> u64 {
        self.raw
    }
}

// SAFETY: a plain 64-bit value, passed by value like `cudaGraphConditionalHandle`.
unsafe impl cudarc::driver::DeviceRepr for ConditionalHandle<'_> {}

/// Holds for every type when the selected CUDA version has conditional `while` and `if` nodes
/// (CUDA 12.3, feature `cuda-12030`): the bound of [`Capture::while_loop`] and
/// [`Capture::if_then`], so that below 12.3 calling them is a compile error naming the feature.
#[diagnostic::on_unimplemented(
    message = "conditional graph nodes (`while_loop`, `if_then`) need CUDA 12.3: use feature cuda-12030 or later",
    label = "not in the selected CUDA version",
    note = "with the default features on, also set `default-features = false`"
)]
pub trait ConditionalNodes {}
#[cfg(cuda_12030)]
impl<T: ?Sized> ConditionalNodes for T {}

/// Holds for every type when the selected CUDA version has `switch` nodes and `if` nodes with
/// an `else` body (CUDA 12.8, feature `cuda-12080`): the bound of [`Capture::if_else`] and
/// [`Capture::switch`].
#[diagnostic::on_unimplemented(
    message = "conditional `switch` nodes and `if` nodes with an `else` body need CUDA 12.8: use feature cuda-12080 or later",
    label = "not in the selected CUDA version",
    note = "with the default features on, also set `default-features = false`"
)]
pub trait SwitchNodes {}
#[cfg(cuda_12080)]
impl<T: ?Sized> SwitchNodes for T {}

/// What a capture and the captures of its bodies share: the conditions made so far (with the
/// graph each belongs to), the streams the bodies were captured on (kept until the capture
/// ends), and the slot of each node `last_node` returned.
pub(crate) struct Shared {
    #[cfg_attr(not(cuda_12030), allow(dead_code))]
    ctx: Arc<CudaContext>,
    /// `(handle, graph)` of every condition made in this capture.
    handles: RefCell<Vec<(u64, usize)>>,
    #[cfg_attr(not(cuda_12030), allow(dead_code))]
    streams: RefCell<Vec<Arc<CudaStream>>>,
    /// Node → slot: the index its graph records the node's updates at.
    slots: RefCell<HashMap<usize, u32>>,
    /// Whether a kernel node of a body has a priority other than 0 (the graph then instantiates
    /// with node priorities: the walk of its nodes does not reach into bodies).
    priority: core::cell::Cell<bool>,
}

impl Shared {
    pub(crate) fn new(ctx: Arc<CudaContext>) -> Self {
        Self {
            ctx,
            handles: RefCell::new(Vec::new()),
            streams: RefCell::new(Vec::new()),
            slots: RefCell::new(HashMap::new()),
            priority: core::cell::Cell::new(false),
        }
    }

    /// Whether a kernel node of a conditional body captured so far has a priority other than 0.
    pub(crate) fn node_priority(&self) -> bool {
        self.priority.get()
    }

    /// Marks that a kernel node the walk of the graph does not reach has a priority other
    /// than 0 (a child graph's conditional body, for a graph built by hand).
    pub(crate) fn mark_priority(&self) {
        self.priority.set(true);
    }

    /// The slot of `node`: the same for every `last_node` of one node, the next free one for a
    /// new node.
    pub(crate) fn slot(&self, node: crate::sys::CUgraphNode) -> u32 {
        let mut slots = self.slots.borrow_mut();
        let next = slots.len() as u32;
        *slots.entry(node as usize).or_insert(next)
    }
}

fn graph_error(message: String) -> Error {
    Error::Graph {
        kernel: KernelName(None),
        message,
    }
}

/// The kinds of conditional node, with what each needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(cuda_12030), allow(dead_code))]
enum NodeKind {
    While,
    If,
    IfElse,
    Switch,
}

impl NodeKind {
    fn name(self) -> &'static str {
        match self {
            Self::While => "while_loop",
            Self::If => "if_then",
            Self::IfElse => "if_else",
            Self::Switch => "switch",
        }
    }

    /// The driver version (as `cuDriverGetVersion` reports it) that has the node.
    #[cfg_attr(not(cuda_12030), allow(dead_code))]
    fn driver_needed(self) -> i32 {
        match self {
            Self::While | Self::If => 12030,
            Self::IfElse | Self::Switch => 12080,
        }
    }
}

impl<'s> Capture<'s> {
    /// A condition for a conditional node of this capture's graph, set to `default` at the start
    /// of every replay (`cuGraphConditionalHandleCreate` with `CU_GRAPH_COND_ASSIGN_DEFAULT`):
    /// `default = 1` runs a [`Capture::while_loop`] body at least once. Pass it to the kernels
    /// that decide it (a [`ConditionalHandle`] parameter) and to the node.
    ///
    /// Inside a body, this makes a condition of the body's graph (for a node nested in the
    /// body). `Error::Graph` when the selected CUDA version or the driver has no conditional
    /// nodes (CUDA 12.3).
    pub fn condition(&self, default: u32) -> Result<ConditionalHandle<'s>, Error> {
        #[cfg(cuda_12030)]
        {
            check_driver(NodeKind::While)?;
            let state = crate::driver::capture_state(self.stream)
                .map_err(|e| Error::driver("cuStreamGetCaptureInfo", KernelName(None), e))?;
            // SAFETY: the stream captures into `state.graph`, which is live, in this context.
            let raw = unsafe {
                crate::driver::conditional_handle(state.graph, self.shared.ctx.cu_ctx(), default)
            }
            .map_err(|e| Error::driver("cuGraphConditionalHandleCreate", KernelName(None), e))?;
            self.shared
                .handles
                .borrow_mut()
                .push((raw, state.graph as usize));
            Ok(ConditionalHandle {
                raw,
                _capture: PhantomData,
            })
        }
        #[cfg(not(cuda_12030))]
        {
            let _ = default;
            Err(graph_error(
                "conditional graph nodes need CUDA 12.3: use feature cuda-12030 or later"
                    .to_string(),
            ))
        }
    }

    /// A `while` node (`CU_GRAPH_COND_TYPE_WHILE`): the graph runs the body captured by `body`
    /// again and again as long as `condition` is non-zero when the node is reached and after
    /// each run; a kernel in the body (or before the node) sets it with
    /// `cudaGraphSetConditional`. Work captured after this call runs after the loop. Returns
    /// what `body` returns (the body's [`GraphNode`](crate::GraphNode)s, for updates).
    ///
    /// `body` launches on [`Capture::stream`] of the capture it is given (a stream of its own,
    /// capturing into the node's body graph). A body may hold kernel launches (not cooperative
    /// ones), memsets, copies and further conditional nodes; anything else, a `sync` set on the
    /// body's stream, a condition of another graph, or a driver without conditional nodes is
    /// `Error::Graph` saying what to change. Compiles with CUDA 12.3 (feature `cuda-12030`) or
    /// later.
    ///
    /// Work captured on an enclosing capture's stream while the body runs would land outside
    /// the node, in the enclosing graph, and run once per replay whatever the condition says.
    /// The node borrows the enclosing [`Capture`] mutably for the call, so the body cannot name
    /// its [`Capture::stream`] (that does not compile); work on that stream under another name
    /// (the stream given to [`Graph::capture`](crate::Graph::capture), a clone of it, a stream
    /// forked from it) is found when the body ends: `Error::Graph`, and the capture fails.
    ///
    /// ```compile_fail,E0502
    /// # fn f(capture: &mut chevron::Capture<'_>) -> Result<(), chevron::Error> {
    /// let go_on = capture.condition(1)?;
    /// capture.while_loop(&go_on, |body| {
    ///     let outer = capture.stream(); // the enclosing capture's stream: does not compile
    ///     # let _ = (body, outer);
    ///     Ok(())
    /// })
    /// # }
    /// ```
    ///
    /// ```no_run
    /// # use chevron::{Graph, ConditionalHandle};
    /// # fn main() -> Result<(), chevron::Error> {
    /// # let stream = chevron::context(0)?.new_stream()?;
    /// // SAFETY: the graph is dropped, never leaked.
    /// let (mut graph, ()) = unsafe { Graph::capture(&stream, |capture| {
    ///     let until_converged = capture.condition(1)?; // the body runs at least once
    ///     capture.while_loop(&until_converged, |body| {
    ///         // launch!(step<<<grid, block, body.stream()>>>(until_converged, …)), where `step`
    ///         // ends with cudaGraphSetConditional(handle, keep_going)
    ///         # let _ = body;
    ///         Ok(())
    ///     })
    /// }) }?;
    /// graph.replay(&stream)?; // runs the loop to the end on the GPU: no host round trip
    /// # Ok(()) }
    /// ```
    pub fn while_loop<R, F>(
        &mut self,
        condition: &ConditionalHandle<'_>,
        body: F,
    ) -> Result<R, Error>
    where
        F: FnOnce(&mut Capture<'_>) -> Result<R, Error>,
        F: ConditionalNodes,
    {
        self.one_body(NodeKind::While, condition, body)
    }

    /// An `if` node (`CU_GRAPH_COND_TYPE_IF`): the graph runs the body captured by `body` once
    /// when `condition` is non-zero as the graph reaches the node, else skips it. Otherwise as
    /// [`Capture::while_loop`]. Compiles with CUDA 12.3 (feature `cuda-12030`) or later.
    pub fn if_then<R, F>(&mut self, condition: &ConditionalHandle<'_>, body: F) -> Result<R, Error>
    where
        F: FnOnce(&mut Capture<'_>) -> Result<R, Error>,
        F: ConditionalNodes,
    {
        self.one_body(NodeKind::If, condition, body)
    }

    /// A node of one body (`while`, `if`): `body` captured once into it, its value returned.
    fn one_body<R, F>(
        &self,
        kind: NodeKind,
        condition: &ConditionalHandle<'_>,
        body: F,
    ) -> Result<R, Error>
    where
        F: FnOnce(&mut Capture<'_>) -> Result<R, Error>,
    {
        let mut body = Some(body);
        let mut out = None;
        self.conditional(kind, condition, 1, &mut |_, capture| {
            let f = body
                .take()
                .ok_or_else(|| graph_error("one body".to_string()))?;
            out = Some(f(capture)?);
            Ok(())
        })?;
        out.ok_or_else(|| graph_error("the body was not captured".to_string()))
    }

    /// An `if` node with an `else` body (`CU_GRAPH_COND_TYPE_IF` of size 2): the graph runs the
    /// body captured by `bodies(true, capture)` when `condition` is non-zero as the graph reaches
    /// the node, else the one captured by `bodies(false, capture)` (called in that order; one
    /// closure for both, so that both bodies can write the same buffers). Returns what the two
    /// calls returned, `then` first. Otherwise as [`Capture::while_loop`]. Compiles with CUDA
    /// 12.8 (feature `cuda-12080`) or later, and needs a CUDA 12.8 driver.
    ///
    /// ```no_run
    /// # use chevron::Graph;
    /// # fn main() -> Result<(), chevron::Error> {
    /// # let stream = chevron::context(0)?.new_stream()?;
    /// // SAFETY: the graph is dropped, never leaked.
    /// let (graph, ()) = unsafe { Graph::capture(&stream, |capture| {
    ///     let fits = capture.condition(0)?; // set by a kernel launched before the node
    ///     capture.if_else(&fits, |then, body| {
    ///         // launch!(fast_path<<<…, body.stream()>>>(…)) when `then`, else the slow path
    ///         # let _ = (then, body);
    ///         Ok(())
    ///     })?;
    ///     Ok(())
    /// }) }?;
    /// # let _ = graph; Ok(()) }
    /// ```
    pub fn if_else<R, F>(
        &mut self,
        condition: &ConditionalHandle<'_>,
        mut bodies: F,
    ) -> Result<(R, R), Error>
    where
        F: FnMut(bool, &mut Capture<'_>) -> Result<R, Error>,
        F: SwitchNodes,
    {
        let (mut then, mut otherwise) = (None, None);
        self.conditional(NodeKind::IfElse, condition, 2, &mut |k, capture| {
            if k == 0 {
                then = Some(bodies(true, capture)?);
            } else {
                otherwise = Some(bodies(false, capture)?);
            }
            Ok(())
        })?;
        match (then, otherwise) {
            (Some(a), Some(b)) => Ok((a, b)),
            _ => Err(graph_error("the bodies were not captured".to_string())),
        }
    }

    /// A `switch` node (`CU_GRAPH_COND_TYPE_SWITCH`) of `cases` bodies: the graph runs body
    /// `condition` (captured by `body(k, capture)` for `k` in `0..cases`), or none when the
    /// condition is `cases` or more. Returns what each call of `body` returned, in order.
    /// Otherwise as [`Capture::while_loop`]. Compiles with CUDA 12.8 (feature `cuda-12080`) or
    /// later, and needs a CUDA 12.8 driver. `Error::Graph` for `cases == 0`.
    pub fn switch<R, F>(
        &mut self,
        condition: &ConditionalHandle<'_>,
        cases: u32,
        mut body: F,
    ) -> Result<Vec<R>, Error>
    where
        F: FnMut(u32, &mut Capture<'_>) -> Result<R, Error>,
        F: SwitchNodes,
    {
        if cases == 0 {
            return Err(graph_error(
                "a `switch` node needs at least one case: give `cases` of 1 or more".to_string(),
            ));
        }
        let mut out = Vec::with_capacity(cases as usize);
        self.conditional(NodeKind::Switch, condition, cases, &mut |k, capture| {
            out.push(body(k, capture)?);
            Ok(())
        })?;
        Ok(out)
    }

    /// Adds the node and captures its `size` bodies with `bodies(k, capture)`.
    #[cfg(cuda_12030)]
    fn conditional(
        &self,
        kind: NodeKind,
        condition: &ConditionalHandle<'_>,
        size: u32,
        bodies: &mut dyn FnMut(u32, &mut Capture<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        use crate::driver;
        use crate::sys;
        check_driver(kind)?;
        let ctx = &self.shared.ctx;
        ctx.bind_to_thread()
            .map_err(|e| Error::driver("cuCtxSetCurrent", KernelName(None), e))?;
        let state = driver::capture_state(self.stream)
            .map_err(|e| Error::driver("cuStreamGetCaptureInfo", KernelName(None), e))?;
        let mine = self
            .shared
            .handles
            .borrow()
            .iter()
            .any(|&(h, g)| h == condition.raw && g == state.graph as usize);
        if !mine {
            return Err(graph_error(format!(
                "the condition of this `{}` node was made for another graph: a node takes a \
                 condition made by `condition` on the capture it is added in (inside a body, \
                 the body's own `condition`); pass the outer condition only to the kernels that \
                 set it",
                kind.name()
            )));
        }
        let node_type =
            match kind {
                NodeKind::While => sys::CUgraphConditionalNodeType::CU_GRAPH_COND_TYPE_WHILE,
                NodeKind::If | NodeKind::IfElse => {
                    sys::CUgraphConditionalNodeType::CU_GRAPH_COND_TYPE_IF
                }
                #[cfg(cuda_12080)]
                NodeKind::Switch => sys::CUgraphConditionalNodeType::CU_GRAPH_COND_TYPE_SWITCH,
                #[cfg(not(cuda_12080))]
                NodeKind::Switch => return Err(graph_error(
                    "conditional `switch` nodes need CUDA 12.8: use feature cuda-12080 or later"
                        .to_string(),
                )),
            };
        // SAFETY: `state` is this stream's live capture state in `ctx`; the condition was made
        // on `state.graph` (checked above).
        let (node, graphs) = unsafe {
            driver::add_conditional_node(&state, ctx.cu_ctx(), condition.raw, node_type, size)
        }
        .map_err(|e| Error::driver("cuGraphAddNode", KernelName(None), e))?;
        // SAFETY: the node was just added to the graph the stream captures into.
        unsafe { driver::set_capture_dependency(self.stream, node) }
            .map_err(|e| Error::driver("cuStreamUpdateCaptureDependencies", KernelName(None), e))?;
        if graphs.len() != size as usize {
            return Err(graph_error(format!(
                "the driver made {} body graphs for a `{}` node of {size}",
                graphs.len(),
                kind.name()
            )));
        }
        // SAFETY: the graph the stream captures into is live.
        let outer = || unsafe { driver::graph_nodes(state.graph) }.map(|nodes| nodes.len());
        let before = outer().map_err(|e| Error::driver("cuGraphGetNodes", KernelName(None), e))?;
        for (k, graph) in graphs.into_iter().enumerate() {
            self.capture_body(kind, k as u32, graph, bodies)?;
        }
        let after = outer().map_err(|e| Error::driver("cuGraphGetNodes", KernelName(None), e))?;
        if after != before {
            return Err(graph_error(format!(
                "{} node(s) were captured into the enclosing graph while the bodies of a `{}` \
                 node were captured: work on the enclosing capture's stream (the stream given \
                 to `Graph::capture`, a clone of it, or a body's stream inside a nested body) \
                 runs outside the node, once per replay; launch a body's work on the stream of \
                 the `Capture` the body is given (`body.stream()`)",
                after.abs_diff(before),
                kind.name()
            )));
        }
        Ok(())
    }

    #[cfg(not(cuda_12030))]
    fn conditional(
        &self,
        _kind: NodeKind,
        _condition: &ConditionalHandle<'_>,
        _size: u32,
        _bodies: &mut dyn FnMut(u32, &mut Capture<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        // The public methods do not compile below 12.3 (their `ConditionalNodes` bound).
        Err(graph_error(
            "conditional graph nodes need CUDA 12.3: use feature cuda-12030 or later".to_string(),
        ))
    }

    /// Captures body `k` of a node into `graph` on a new stream, then checks what it holds.
    #[cfg(cuda_12030)]
    fn capture_body(
        &self,
        kind: NodeKind,
        k: u32,
        graph: crate::sys::CUgraph,
        bodies: &mut dyn FnMut(u32, &mut Capture<'_>) -> Result<(), Error>,
    ) -> Result<(), Error> {
        use crate::config::attr::SyncPolicy;
        use crate::driver;
        use crate::launch::stream::stream_attribute;
        use crate::sys;
        let stream = self
            .shared
            .ctx
            .new_stream()
            .map_err(|e| Error::driver("cuStreamCreate", KernelName(None), e))?;
        // Kept until the whole capture ends: destroying a stream mid-capture is not needed.
        self.shared.streams.borrow_mut().push(stream.clone());
        // What a fresh stream reports (no policy): a body that changes it set `sync`.
        let policy_before = stream_attribute::<SyncPolicy>(&stream).ok();
        let mode = sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED;
        // SAFETY: the body graph is owned by the node just added, live, of this context.
        unsafe { driver::begin_capture_to_graph(&stream, graph, mode) }
            .map_err(|e| Error::driver("cuStreamBeginCaptureToGraph", KernelName(None), e))?;
        let mut guard = BodyGuard {
            stream: &stream,
            active: true,
        };
        let mut capture = Capture {
            stream: &stream,
            root: self.root,
            shared: self.shared,
        };
        bodies(k, &mut capture)?;
        guard.end().map_err(|e| {
            Error::driver(
                "cuStreamEndCapture",
                KernelName(None),
                cudarc::driver::DriverError(e),
            )
        })?;
        drop(guard);
        let which = match kind {
            NodeKind::IfElse if k == 1 => "the `else` body of an `if_else` node".to_string(),
            NodeKind::IfElse => "the `then` body of an `if_else` node".to_string(),
            NodeKind::Switch => format!("case {k} of a `switch` node"),
            other => format!("the body of a `{}` node", other.name()),
        };
        let policy_after = stream_attribute::<SyncPolicy>(&stream).ok();
        if let (Some(Some(policy)), true) = (policy_after, policy_after != policy_before) {
            return Err(graph_error(format!(
                "`sync = {policy:?}` was set on the stream of {which}: a body runs inside the \
                 graph on the GPU, where no host thread waits for its stream; set \
                 `stream(sync = {policy:?})` on the stream you replay the graph on, outside the \
                 capture"
            )));
        }
        if check_body(graph, &which)? {
            self.shared.priority.set(true);
        }
        Ok(())
    }
}

mod body;
#[cfg(cuda_12030)]
use body::{check_body, check_driver, BodyGuard};

#[cfg(test)]
mod tests;
