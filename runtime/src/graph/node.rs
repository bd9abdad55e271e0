//! Kernel nodes of a captured graph: [`GraphNode`], [`DeviceNode`], [`GraphEdge`], and the
//! graph's per-node queries.

#[cfg(doc)]
use super::Capture;
use super::{graph_err, Graph};
use crate::driver;
use crate::error::{Error, KernelName};
use crate::sys;

/// A kernel node of a captured graph, as [`Capture::last_node`] returns it: what a typed
/// update ([`Typed::update`](crate::Typed::update) and its kin, `KERNEL::kernel().update(…)`)
/// or [`Graph::set_params`] changes.
#[derive(Clone, Copy, Debug)]
pub struct GraphNode {
    pub(super) capture: u64,
    /// The node's index among the nodes `last_node` returned in its capture: where its graph
    /// records its updates.
    pub(super) slot: u32,
    pub(super) node: sys::CUgraphNode,
    pub(super) params: sys::CUDA_KERNEL_NODE_PARAMS,
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
    #[inline(always)]
    pub(super) fn check_capture(&self, id: u64, kernel: KernelName) -> Result<(), Error> {
        if self.capture != id {
            return Err(other_graph(kernel));
        }
        Ok(())
    }
}

#[cold]
#[inline(never)]
fn other_graph(kernel: KernelName) -> Error {
    Error::Graph {
        kernel,
        message: "the node belongs to another graph: use a node returned by `last_node` in \
                  this graph's capture"
            .to_string(),
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
pub(super) fn device_node_of(node: &GraphNode) -> Result<DeviceNode, Error> {
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

impl<'a> Graph<'a> {
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
}
