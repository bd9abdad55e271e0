//! Device-side graph launch: a [`DeviceGraph`] (a graph instantiated for launch from the GPU and
//! uploaded) and the [`DeviceGraphHandle`] a kernel of another graph passes to
//! `cudaGraphLaunch(exec, cudaStreamGraphFireAndForget)` (or `cudaStreamGraphTailLaunch`,
//! `cudaStreamGraphFireAndForgetAsSibling`) to launch it without the host.
//!
//! What CUDA requires, and what checks it here:
//! - **instantiated with `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH` and uploaded**: by
//!   construction ([`DeviceGraph::capture`] does both); a host [`Graph`] passed for one is a
//!   compile error ([`DeviceLaunchable`]), a raw executable graph without the flag is
//!   `Error::Graph` ([`Capture::device_graph_raw`]);
//! - **only kernel, memcpy, memset and child graph nodes, on one device**: the captured graph is
//!   walked before instantiation, and a node of another kind (a host function, an event record
//!   or wait, an allocation or free, an external semaphore, a stream memory operation) is
//!   `Error::Graph` naming it and saying what to do; whatever else the driver refuses
//!   (`cuGraphInstantiateWithParams`'s `result_out` and `hErrNode_out`) is `Error::Graph` too,
//!   naming the node's kind;
//! - **launched from the device only by a kernel that itself runs in a graph**: the handle
//!   borrows the [`Capture`] that made it, so a kernel given one can only be launched inside a
//!   graph's capture (a handle used after the capture does not compile);
//! - **not launched from the device while it runs, nor from the host and the device at once**:
//!   not checked (the device launch returns `cudaErrorInvalidValue` for the first; the second
//!   is undefined): the launching kernel picks one thread, and [`DeviceGraph::launch`] takes
//!   `&mut self`, which no graph holding a handle to it allows while it lives.
//!
//! The kernel calling `cudaGraphLaunch` calls the CUDA device runtime: compile it with
//! `nvcc -ptx -rdc=true`; chevron links it with `libcudadevrt.a` when it loads.

use core::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream};

use super::{Capture, Graph};
use crate::error::{Error, KernelName};
use crate::sys;

fn graph_error(message: String) -> Error {
    Error::Graph {
        kernel: KernelName(None),
        message,
    }
}

fn driver_error(call: &'static str) -> impl Fn(cudarc::driver::DriverError) -> Error {
    move |e| Error::driver(call, KernelName(None), e)
}

fn check(call: &'static str, rc: sys::CUresult) -> Result<(), Error> {
    rc.result().map_err(driver_error(call))
}

/// `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH`.
const DEVICE_LAUNCH: u64 = 4;
/// `CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD`.
const UPLOAD: u64 = 2;

/// A graph a kernel can launch: captured like a [`Graph`] (its launches, and what they borrow,
/// kept the same way), then instantiated for device launch
/// (`CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH`) and uploaded to the device. A kernel of another
/// graph launches it with the [`DeviceGraphHandle`] that [`Capture::device_graph`] makes in that
/// graph's capture:
///
/// ```no_run
/// # use chevron::{DeviceGraph, DeviceGraphHandle, Graph};
/// # fn main() -> Result<(), chevron::Error> {
/// # let stream = chevron::context(0)?.new_stream()?;
/// // The work the GPU launches: kernel, memcpy and memset nodes only.
/// // SAFETY (of both captures): the graphs are dropped, never leaked.
/// let (child, ()) = unsafe { DeviceGraph::capture(&stream, |capture| {
///     // launch!(fill<<<grid, block, capture.stream()>>>(&mut out, …))
///     # let _ = capture;
///     Ok(())
/// }) }?;
/// // A host graph whose kernel launches it: `launcher` takes a `DeviceGraphHandle` (C++:
/// // `cudaGraphExec_t`) and calls cudaGraphLaunch(exec, cudaStreamGraphFireAndForget).
/// let (mut parent, ()) = unsafe { Graph::capture(&stream, |capture| {
///     let exec: DeviceGraphHandle = capture.device_graph(&child)?;
///     // launch!(launcher<<<1, 32, capture.stream()>>>(exec, …))
///     # let _ = exec;
///     Ok(())
/// }) }?;
/// parent.replay(&stream)?; // the child runs as part of the replay: the stream sees it done
/// # Ok(()) }
/// ```
///
/// A host graph holding a handle borrows the device graph, so the device graph outlives it. A
/// device graph cannot be updated in place (CUDA updates one from the host and uploads it again;
/// chevron's typed updates address [`Graph`]s): capture a new one. Not enforced: a
/// `DeviceGraph` made and dropped inside the body of the capture that launches it (make it
/// before, as for buffers). Not `Send`, as [`Graph`].
pub struct DeviceGraph<'a> {
    /// The executable graph for device launch (ours to destroy).
    exec: sys::CUgraphExec,
    /// The stream of the upload or of the last host launch.
    last: Arc<CudaStream>,
    /// Whether a host launch may still run on `last`.
    pending: bool,
    /// The captured graph: owns the driver's graph and keeps what the captured launches use.
    /// Its own executable (for host launch) is not used.
    captured: Graph<'a>,
}

/// The kinds of node a device graph may not hold (`CUgraphNodeType` values), with what to do.
/// Empty and conditional nodes are left to the driver, which says whether it takes them.
fn refused_node(kind: u32) -> Option<&'static str> {
    Some(match kind {
        3 => {
            "a host function node (`cuLaunchHostFunc`): a device graph runs without the host; \
              do the host's part after the launching graph"
        }
        6 => {
            "an event wait node (a stream waiting on an event): order the work inside one \
              stream of the capture instead"
        }
        7 => "an event record node: record events around the launching graph instead",
        8 | 9 => "an external semaphore node: signal or wait around the launching graph instead",
        10 => {
            "an allocation node (`cuMemAllocAsync` in the capture): allocate the buffer \
               before the capture"
        }
        11 => "a free node (`cuMemFreeAsync` in the capture): free the buffer after the graphs",
        12 => {
            "a stream memory operation node (`cuStreamWaitValue`/`cuStreamWriteValue`): use a \
               kernel instead"
        }
        _ => return None,
    })
}

/// What a node of `CUgraphNodeType` `kind` is, in words.
fn node_kind(kind: u32) -> &'static str {
    match kind {
        0 => "a kernel node",
        1 => "a memcpy node",
        2 => "a memset node",
        3 => "a host function node",
        4 => "a child graph node",
        5 => "an empty node",
        6 => "an event wait node",
        7 => "an event record node",
        8 => "an external semaphore signal node",
        9 => "an external semaphore wait node",
        10 => "an allocation node",
        11 => "a free node",
        12 => "a stream memory operation node",
        13 => "a conditional node",
        _ => "a node of a kind chevron does not know",
    }
}

/// The message for a failed device instantiation (`CUgraphInstantiateResult` `result`, the
/// node the driver blamed being of kind `node`, where it named one).
fn instantiate_message(result: u32, node: Option<u32>) -> String {
    let blamed = node.map_or("a node".to_string(), |k| node_kind(k).to_string());
    match result {
        2 => "the graph's structure cannot be instantiated for device launch (a cycle or an \
              invalid edge): capture it from launches on one stream"
            .to_string(),
        3 => format!(
            "{blamed} is not supported in a graph launched from the device: a device graph may \
             hold kernel nodes (no dynamic parallelism), memcpy nodes between device (or pinned, \
             mapped host) memory, memset nodes and child graphs"
        ),
        4 => "the graph's nodes are on more than one device or context: a device graph runs on \
              one device; capture it on one stream"
            .to_string(),
        5 => "a condition made in the capture is used by no conditional node: make conditions \
              only for the nodes that read them"
            .to_string(),
        _ => format!(
            "the driver refused to instantiate the graph for device launch ({blamed}): a device \
             graph may hold kernel, memcpy, memset and child graph nodes only"
        ),
    }
}

/// The nodes of `graph` and of its child graphs, with their `CUgraphNodeType` values.
///
/// # Safety
/// `graph` is live.
pub(super) unsafe fn nodes_of(
    graph: sys::CUgraph,
    out: &mut Vec<(sys::CUgraphNode, u32)>,
) -> Result<(), Error> {
    let mut count = 0usize;
    // SAFETY: the caller's promise; a null array asks for the count.
    check("cuGraphGetNodes", unsafe {
        sys::cuGraphGetNodes(graph, core::ptr::null_mut(), &mut count)
    })?;
    let mut nodes = vec![core::ptr::null_mut(); count];
    // SAFETY: `nodes` holds `count` entries.
    check("cuGraphGetNodes", unsafe {
        sys::cuGraphGetNodes(graph, nodes.as_mut_ptr(), &mut count)
    })?;
    nodes.truncate(count);
    for node in nodes {
        let kind = node_type(node)?;
        out.push((node, kind));
        if kind == 4 {
            let mut child: sys::CUgraph = core::ptr::null_mut();
            // SAFETY: a child graph node of a live graph.
            check("cuGraphChildGraphNodeGetGraph", unsafe {
                sys::cuGraphChildGraphNodeGetGraph(node, &mut child)
            })?;
            // SAFETY: owned by the live node.
            unsafe { nodes_of(child, out) }?;
        }
    }
    Ok(())
}

/// The `CUgraphNodeType` of a live node, as its value.
fn node_type(node: sys::CUgraphNode) -> Result<u32, Error> {
    let mut kind = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL;
    // SAFETY: the node is live (its graph is); `kind` is a valid out-pointer.
    check("cuGraphNodeGetType", unsafe {
        sys::cuGraphNodeGetType(node, &mut kind)
    })?;
    Ok(kind as u32)
}

impl<'a> DeviceGraph<'a> {
    /// Captures the launches `body` makes on `stream` as [`Graph::capture`] does (same rules:
    /// everything the body borrows stays borrowed for the device graph's life), then
    /// instantiates the graph for device launch and uploads it on `stream`
    /// (`cuGraphInstantiateWithParams` with `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH |
    /// CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD`). Returns the graph and what `body` returned.
    ///
    /// `Error::Graph` when the graph holds a node a device graph may not (a host function, an
    /// event record or wait, an allocation or free, an external semaphore, a stream memory
    /// operation), or when the driver refuses the instantiation (naming the node's kind it
    /// blamed), with what to change; otherwise the errors of [`Graph::capture`].
    ///
    /// # Safety
    /// As for [`Graph::capture`]: the device graph is dropped, never leaked, before what its
    /// body borrows is freed or used again (dropping it waits for its last host launch; a host
    /// graph launching it borrows it, and waits for its own replays when dropped).
    pub unsafe fn capture<R, F>(stream: &Arc<CudaStream>, body: F) -> Result<(Self, R), Error>
    where
        F: FnMut(&mut Capture<'_>) -> Result<R, Error> + 'a,
    {
        // SAFETY: the graph is kept in the device graph, which the caller does not leak.
        let (captured, out) = unsafe { Graph::capture(stream, body) }?;
        let graph = captured.cu_graph();
        let mut nodes = Vec::new();
        // SAFETY: `captured` owns the live graph.
        unsafe { nodes_of(graph, &mut nodes) }?;
        for &(_, kind) in &nodes {
            if let Some(why) = refused_node(kind) {
                return Err(graph_error(format!(
                    "a graph launched from the device may not hold {why}"
                )));
            }
        }
        let mut params = sys::CUDA_GRAPH_INSTANTIATE_PARAMS {
            flags: DEVICE_LAUNCH | UPLOAD,
            hUploadStream: stream.cu_stream(),
            hErrNode_out: core::ptr::null_mut(),
            result_out: sys::CUgraphInstantiateResult::CUDA_GRAPH_INSTANTIATE_SUCCESS,
        };
        let mut exec: sys::CUgraphExec = core::ptr::null_mut();
        // SAFETY: the graph is live, the stream is of its context (current since the capture),
        // and every pointer is valid.
        let rc = unsafe { sys::cuGraphInstantiateWithParams(&mut exec, graph, &mut params) };
        if rc != sys::CUresult::CUDA_SUCCESS {
            let result = params.result_out as u32;
            let blamed = if params.hErrNode_out.is_null() {
                None
            } else {
                node_type(params.hErrNode_out).ok()
            };
            if result == 0 || (result == 1 && blamed.is_none()) {
                // No graph-specific reason: the driver's own error says more.
                return Err(driver_error("cuGraphInstantiateWithParams")(
                    cudarc::driver::DriverError(rc),
                ));
            }
            return Err(graph_error(instantiate_message(result, blamed)));
        }
        Ok((
            DeviceGraph {
                exec,
                last: stream.clone(),
                pending: true,
                captured,
            },
            out,
        ))
    }

    /// Launches the graph from the host on `stream` (a stream of its context), as a
    /// [`Graph::replay`]; when the previous host launch was on another stream, first waits for
    /// it. A device graph may be launched from the host or from the device, never both at
    /// once: this takes `&mut self`, which no host graph holding a handle to it allows.
    pub fn launch(&mut self, stream: &Arc<CudaStream>) -> Result<(), Error> {
        self.context()
            .bind_to_thread()
            .map_err(driver_error("cuCtxSetCurrent"))?;
        if stream.context().cu_ctx() != self.context().cu_ctx() {
            return Err(graph_error(
                "the stream belongs to another CUDA context than the graph: launch it on a \
                 stream of the context it was captured in"
                    .to_string(),
            ));
        }
        if stream.cu_stream() != self.last.cu_stream() {
            self.synchronize()?;
            self.last = stream.clone();
        }
        // SAFETY: `exec` is live and of the stream's context, which is current.
        unsafe { cudarc::driver::result::graph::launch(self.exec, stream.cu_stream()) }
            .map_err(driver_error("cuGraphLaunch"))?;
        self.pending = true;
        Ok(())
    }

    /// Waits until the upload or the last host launch is done. (A device launch is part of
    /// the launching graph's replay: wait for that graph.)
    pub fn synchronize(&mut self) -> Result<(), Error> {
        if self.pending {
            self.last
                .synchronize()
                .map_err(driver_error("cuStreamSynchronize"))?;
            self.pending = false;
        }
        Ok(())
    }

    /// The graph's context.
    pub fn context(&self) -> &Arc<CudaContext> {
        self.captured.context()
    }

    /// The captured graph (owned by this value: do not destroy it).
    pub fn cu_graph(&self) -> sys::CUgraph {
        self.captured.cu_graph()
    }

    /// The executable graph instantiated for device launch: the bits a [`DeviceGraphHandle`]
    /// carries (owned by this value: do not destroy it).
    pub fn cu_graph_exec(&self) -> sys::CUgraphExec {
        self.exec
    }
}

impl Drop for DeviceGraph<'_> {
    fn drop(&mut self) {
        let _ = self.context().bind_to_thread();
        let _ = self.synchronize();
        // SAFETY: no host launch runs, and no host graph holding a handle to it lives (they
        // borrow it), so no device launch runs either; nothing else holds the executable.
        let _ = unsafe { cudarc::driver::result::graph::exec_destroy(self.exec) };
        // `captured` drops next: the graph, its host executable and the body.
    }
}

impl core::fmt::Debug for DeviceGraph<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceGraph")
            .field("graph", &self.cu_graph())
            .field("exec", &self.exec)
            .finish_non_exhaustive()
    }
}

mod sealed {
    pub trait Sealed {
        /// The executable graph for device launch, and its context.
        fn exec_and_context(
            &self,
        ) -> (crate::sys::CUgraphExec, &std::sync::Arc<super::CudaContext>);
    }
}

/// A graph a kernel can launch: [`DeviceGraph`] only (a [`Graph`] is instantiated for host
/// launch). The bound of [`Capture::device_graph`], so that passing a host graph is a compile
/// error saying what to use.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not instantiated for device launch: a kernel can launch only a `DeviceGraph`",
    label = "not launchable from the device",
    note = "capture the graph the kernel launches with `DeviceGraph::capture` (it instantiates it with `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH` and uploads it)"
)]
pub trait DeviceLaunchable: sealed::Sealed {}

impl sealed::Sealed for DeviceGraph<'_> {
    fn exec_and_context(&self) -> (sys::CUgraphExec, &Arc<CudaContext>) {
        (self.exec, self.context())
    }
}
impl DeviceLaunchable for DeviceGraph<'_> {}

/// The device-side handle of a [`DeviceGraph`] (`CUgraphExec`; in CUDA C++ device code,
/// `cudaGraphExec_t`, a pointer): a kernel launches the graph with
/// `cudaGraphLaunch(handle, cudaStreamGraphFireAndForget)` (the graph runs as a child of the
/// launching graph's replay, which completes with it), `cudaStreamGraphTailLaunch` (it runs
/// after the launching graph and its children) or `cudaStreamGraphFireAndForgetAsSibling`.
///
/// Declared as a kernel parameter of type `DeviceGraphHandle` it is the 64-bit handle by value
/// (`.param .u64` in the PTX; against a C++ kernel's signature, a pointer parameter:
/// `cudaGraphExec_t` is `CUgraphExec_st*`). Made by [`Capture::device_graph`], it borrows the
/// capture, so the kernel it is given is launched inside a graph, as CUDA requires of a device
/// launch: a handle used after the capture does not compile. As for every launch, what the
/// kernel does with it is unchecked (launching stays `unsafe`): one thread should launch, and
/// not while the graph still runs from an earlier launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct DeviceGraphHandle<'c> {
    raw: u64,
    _capture: PhantomData<&'c ()>,
}

impl DeviceGraphHandle<'_> {
    /// The handle's bits, as device code receives them.
    pub fn raw(self) -> u64 {
        self.raw
    }
}

// SAFETY: a plain 64-bit value, passed by value like `cudaGraphExec_t`.
unsafe impl cudarc::driver::DeviceRepr for DeviceGraphHandle<'_> {}

impl Capture<'_> {
    /// The handle of `graph` for a kernel launched in this capture, which launches it with
    /// `cudaGraphLaunch` (see [`DeviceGraphHandle`]). `graph` stays borrowed by the graph being
    /// captured (its body borrows it), so it outlives every replay that may launch it.
    ///
    /// A [`Graph`] is refused at compile time (it is not [`DeviceLaunchable`]); a device graph
    /// of another context is `Error::Graph`.
    pub fn device_graph<'c, G>(&'c self, graph: &'c G) -> Result<DeviceGraphHandle<'c>, Error>
    where
        G: DeviceLaunchable + ?Sized,
    {
        let (exec, ctx) = graph.exec_and_context();
        if ctx.cu_ctx() != self.stream().context().cu_ctx() {
            return Err(graph_error(
                "the device graph belongs to another CUDA context than this capture: a kernel \
                 launches graphs of its own device; capture the device graph on a stream of \
                 this context"
                    .to_string(),
            ));
        }
        Ok(DeviceGraphHandle {
            raw: exec as u64,
            _capture: PhantomData,
        })
    }

    /// The handle of an executable graph made elsewhere (`cuGraphInstantiate` by other code),
    /// for a kernel launched in this capture. `Error::Graph` when it was not instantiated for
    /// device launch (`cuGraphExecGetFlags` lacks `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH`),
    /// saying how to make one.
    ///
    /// # Safety
    /// `exec` is a live executable graph of this capture's context, uploaded (or launched once
    /// from the host) before the graph being captured replays, and it outlives every replay.
    pub unsafe fn device_graph_raw(
        &self,
        exec: sys::CUgraphExec,
    ) -> Result<DeviceGraphHandle<'_>, Error> {
        let mut flags: sys::cuuint64_t = 0;
        // SAFETY: the caller's promise that `exec` is live.
        check("cuGraphExecGetFlags", unsafe {
            sys::cuGraphExecGetFlags(exec, &mut flags)
        })?;
        if flags & DEVICE_LAUNCH == 0 {
            return Err(graph_error(
                "the graph was not instantiated for device launch, so a kernel cannot launch \
                 it: capture it with `DeviceGraph::capture`, or instantiate it with \
                 `CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH` and upload it"
                    .to_string(),
            ));
        }
        Ok(DeviceGraphHandle {
            raw: exec as u64,
            _capture: PhantomData,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_kernel_copy_set_and_child_nodes_pass_the_walk() {
        for allowed in [0, 1, 2, 4] {
            assert_eq!(refused_node(allowed), None, "{allowed}");
        }
        // Left to the driver: empty and conditional nodes.
        assert_eq!(refused_node(5), None);
        assert_eq!(refused_node(13), None);
        for refused in [3, 6, 7, 8, 9, 10, 11, 12] {
            let why = refused_node(refused).unwrap();
            // Each names the node and says what to do instead.
            assert!(why.starts_with("a") && why.contains(':'), "{why}");
        }
        assert!(refused_node(10).unwrap().contains("before the capture"));
    }

    #[test]
    fn instantiation_failures_name_the_node_and_the_fix() {
        let m = instantiate_message(3, Some(13));
        assert!(
            m.starts_with(
                "a conditional node is not supported in a graph launched from the device"
            ),
            "{m}"
        );
        assert!(m.contains("kernel nodes"), "{m}");
        assert!(instantiate_message(3, None).starts_with("a node is not"));
        assert!(instantiate_message(4, None).contains("one device"));
        assert!(instantiate_message(2, None).contains("structure"));
        assert!(instantiate_message(5, None).contains("no conditional node"));
        assert!(instantiate_message(9, Some(5)).contains("an empty node"));
    }

    #[test]
    fn the_handle_is_the_bits_by_value() {
        assert_eq!(core::mem::size_of::<DeviceGraphHandle<'static>>(), 8);
        assert_eq!(core::mem::align_of::<DeviceGraphHandle<'static>>(), 8);
        let h = DeviceGraphHandle {
            raw: 0x1234_5678_9abc,
            _capture: PhantomData,
        };
        assert_eq!(h.raw(), 0x1234_5678_9abc);
    }
}
