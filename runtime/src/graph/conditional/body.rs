//! What a conditional node's body may hold, checked after its capture, and the driver version
//! the node needs.

use crate::error::{Error, KernelName};

#[cfg(cuda_12030)]
use cudarc::driver::CudaStream;

use super::{graph_error, NodeKind};

/// `Error::Graph` unless the driver has the node (the build's cudarc would panic calling a
/// function an older driver lacks).
#[cfg(cuda_12030)]
pub(super) fn check_driver(kind: NodeKind) -> Result<(), Error> {
    let version = crate::driver::driver_version()
        .map_err(|e| Error::driver("cuDriverGetVersion", KernelName(None), e))?;
    let needed = kind.driver_needed();
    if version < needed {
        return Err(graph_error(format!(
            "a `{}` node needs a CUDA {} driver; this one is CUDA {}: update the NVIDIA driver",
            kind.name(),
            version_text(needed),
            version_text(version)
        )));
    }
    Ok(())
}

#[cfg(cuda_12030)]
fn version_text(v: i32) -> String {
    format!("{}.{}", v / 1000, v % 1000 / 10)
}

/// Ends a body's capture on every path (the graph belongs to its node: never destroyed here).
#[cfg(cuda_12030)]
pub(super) struct BodyGuard<'s> {
    pub(super) stream: &'s CudaStream,
    pub(super) active: bool,
}

#[cfg(cuda_12030)]
impl BodyGuard<'_> {
    pub(super) fn end(&mut self) -> Result<(), crate::sys::CUresult> {
        self.active = false;
        // SAFETY: the stream is live.
        unsafe { cudarc::driver::result::stream::end_capture(self.stream.cu_stream()) }
            .map(|_| ())
            .map_err(|e| e.0)
    }
}

#[cfg(cuda_12030)]
impl Drop for BodyGuard<'_> {
    fn drop(&mut self) {
        if self.active {
            let _ = self.end();
        }
    }
}

/// The node types a conditional body may hold (the driver's list: kernel, memcpy, memset, child
/// graph, empty, conditional), by the enum's number.
pub(super) const BODY_TYPES: [u32; 6] = [0, 1, 2, 4, 5, 13];

/// What a node type that a body may not hold usually comes from, for the message.
pub(super) fn forbidden_node(kind: u32) -> &'static str {
    match kind {
        3 => "a host function node (`cuLaunchHostFunc` on the body's stream)",
        6 | 7 => {
            "an event node (an event recorded on, or waited for by, the body's stream and \
             another stream)"
        }
        8 | 9 => "an external semaphore node",
        10 | 11 => {
            "a memory allocation or free node (`cuMemAllocAsync`/`cuMemFreeAsync`, e.g. a \
             buffer allocated or dropped on the body's stream): allocate before the capture"
        }
        12 => "a batch memory operation node (stream wait/write value)",
        _ => "a node of a kind this build does not know",
    }
}

/// Checks the nodes of a captured body: only the allowed types, and no cooperative kernel.
/// Returns whether a kernel node of the body has a priority other than 0.
#[cfg(cuda_12030)]
pub(super) fn check_body(graph: crate::sys::CUgraph, which: &str) -> Result<bool, Error> {
    let mut priority = false;
    use crate::driver;
    // SAFETY: the body graph is owned by its node, which lives in the graph being captured.
    let nodes = unsafe { driver::graph_nodes(graph) }
        .map_err(|e| Error::driver("cuGraphGetNodes", KernelName(None), e))?;
    for node in nodes {
        // SAFETY: a node of the live body graph.
        let kind = unsafe { driver::node_type(node) }
            .map_err(|e| Error::driver("cuGraphNodeGetType", KernelName(None), e))?;
        if !BODY_TYPES.contains(&kind) {
            return Err(graph_error(format!(
                "{which} holds {}; a conditional body may hold only kernel launches, memsets, \
                 copies and conditional nodes: move it before or after the conditional node",
                forbidden_node(kind)
            )));
        }
        if kind == 0 && cooperative(node)? {
            return Err(graph_error(format!(
                "{which} holds a cooperative launch (`cooperative`), which the driver does not \
                 run inside a conditional body: launch it before or after the conditional node, \
                 or without `cooperative` (and without a grid-wide sync)"
            )));
        }
        // SAFETY: a kernel node of the live body graph.
        priority |= kind == 0 && unsafe { crate::graph::node_priority(node) } != 0;
    }
    Ok(priority)
}

/// Whether kernel node `node` was captured with `cooperative`.
#[cfg(cuda_12030)]
fn cooperative(node: crate::sys::CUgraphNode) -> Result<bool, Error> {
    let id = crate::sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    // SAFETY: a kernel node of a live graph.
    let value = unsafe { crate::driver::kernel_node_attribute(node, id) }
        .map_err(|e| Error::driver("cuGraphKernelNodeGetAttribute", KernelName(None), e))?;
    Ok(crate::config::attr::u32_at(&value, 0) != 0)
}
