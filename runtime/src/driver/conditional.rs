//! Conditional nodes (CUDA 12.3): the capture's graph and dependencies, condition handles, the
//! node itself, capturing into its bodies, and what a body holds.

use cudarc::driver::result::DriverError;
use cudarc::driver::CudaStream;

use crate::sys;

/// What a capturing stream records into: the capture's id, its graph (the root graph, or the
/// body graph of a conditional node for `cuStreamBeginCaptureToGraph`) and the nodes its next
/// work will depend on, with their edge data (empty when every edge is a plain dependency).
#[cfg(cuda_12030)]
pub(crate) struct CaptureState {
    pub(crate) graph: sys::CUgraph,
    pub(crate) deps: Vec<sys::CUgraphNode>,
    pub(crate) edges: Vec<sys::CUgraphEdgeData>,
}

/// `cuStreamGetCaptureInfo` (v3, with edge data) on a capturing stream.
#[cfg(cuda_12030)]
pub(crate) fn capture_state(stream: &CudaStream) -> Result<CaptureState, DriverError> {
    let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    let mut id: sys::cuuint64_t = 0;
    let mut graph: sys::CUgraph = core::ptr::null_mut();
    let mut deps: *const sys::CUgraphNode = core::ptr::null();
    let mut edges: *const sys::CUgraphEdgeData = core::ptr::null();
    let mut count: usize = 0;
    // SAFETY: the stream is live; every out-pointer is valid.
    unsafe {
        sys::cuStreamGetCaptureInfo_v3(
            stream.cu_stream(),
            &mut status,
            &mut id,
            &mut graph,
            &mut deps,
            &mut edges,
            &mut count,
        )
    }
    .result()?;
    if status != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_ACTIVE || graph.is_null() {
        return Err(DriverError(
            sys::cudaError_enum::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED,
        ));
    }
    // SAFETY: the driver returns arrays of `count` entries (edge data may be null: all plain),
    // valid until the next call on the stream; both are copied out at once.
    let (deps, edges) = unsafe {
        (
            if deps.is_null() || count == 0 {
                Vec::new()
            } else {
                core::slice::from_raw_parts(deps, count).to_vec()
            },
            if edges.is_null() || count == 0 {
                Vec::new()
            } else {
                core::slice::from_raw_parts(edges, count).to_vec()
            },
        )
    };
    Ok(CaptureState { graph, deps, edges })
}

/// `cuGraphConditionalHandleCreate` with `CU_GRAPH_COND_ASSIGN_DEFAULT`: a condition of
/// `graph`, set to `default` at the start of every launch of the graph.
///
/// # Safety
/// `graph` is live; `ctx` is the graph's context.
#[cfg(cuda_12030)]
pub(crate) unsafe fn conditional_handle(
    graph: sys::CUgraph,
    ctx: sys::CUcontext,
    default: u32,
) -> Result<u64, DriverError> {
    let mut handle: sys::CUgraphConditionalHandle = 0;
    // SAFETY: forwarded from the caller; `handle` is a valid out-pointer.
    unsafe {
        sys::cuGraphConditionalHandleCreate(
            &mut handle,
            graph,
            ctx,
            default,
            sys::CU_GRAPH_COND_ASSIGN_DEFAULT,
        )
    }
    .result()
    .map(|()| handle)
}

/// `cuGraphAddNode` of a conditional node of type `kind` (`CUgraphConditionalNodeType`'s value)
/// with `size` bodies after `state`'s dependencies: the node and its body graphs (owned by the
/// node).
///
/// # Safety
/// `state` is the live capture state of a stream of context `ctx`; `handle` is a condition of
/// `state.graph`.
#[cfg(cuda_12030)]
pub(crate) unsafe fn add_conditional_node(
    state: &CaptureState,
    ctx: sys::CUcontext,
    handle: u64,
    kind: sys::CUgraphConditionalNodeType,
    size: u32,
) -> Result<(sys::CUgraphNode, Vec<sys::CUgraph>), DriverError> {
    // SAFETY: all-zero is a valid value of this plain C struct (null pointers, zero sizes).
    let mut params: sys::CUgraphNodeParams = unsafe { core::mem::zeroed() };
    params.type_ = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_CONDITIONAL;
    params.__bindgen_anon_1.conditional = sys::CUDA_CONDITIONAL_NODE_PARAMS {
        handle,
        type_: kind,
        size,
        phGraph_out: core::ptr::null_mut(),
        ctx,
    };
    let mut node: sys::CUgraphNode = core::ptr::null_mut();
    let edges = if state.edges.len() == state.deps.len() && !state.edges.is_empty() {
        state.edges.as_ptr()
    } else {
        core::ptr::null()
    };
    // SAFETY: forwarded from the caller; the arrays hold `deps.len()` entries.
    unsafe {
        sys::cuGraphAddNode_v2(
            &mut node,
            state.graph,
            state.deps.as_ptr(),
            edges,
            state.deps.len(),
            &mut params,
        )
    }
    .result()?;
    // SAFETY: the driver filled the union's conditional member, whose output array holds
    // `size` graphs owned by the node.
    let bodies = unsafe {
        let out = params.__bindgen_anon_1.conditional.phGraph_out;
        if out.is_null() {
            Vec::new()
        } else {
            core::slice::from_raw_parts(out, size as usize).to_vec()
        }
    };
    Ok((node, bodies))
}

/// `cuStreamUpdateCaptureDependencies` (set): the capturing stream's next work depends on
/// `node` only.
///
/// # Safety
/// `node` is a node of the graph the stream captures into.
#[cfg(cuda_12030)]
pub(crate) unsafe fn set_capture_dependency(
    stream: &CudaStream,
    mut node: sys::CUgraphNode,
) -> Result<(), DriverError> {
    let set = sys::CUstreamUpdateCaptureDependencies_flags::CU_STREAM_SET_CAPTURE_DEPENDENCIES;
    // SAFETY: forwarded from the caller; one node, no edge data (a plain dependency).
    unsafe {
        sys::cuStreamUpdateCaptureDependencies_v2(
            stream.cu_stream(),
            &mut node,
            core::ptr::null(),
            1,
            set as u32,
        )
    }
    .result()
}

/// `cuStreamBeginCaptureToGraph`: `stream` captures into the existing graph `graph` (a
/// conditional node's body), with no dependencies.
///
/// # Safety
/// `graph` is live and of the stream's context.
#[cfg(cuda_12030)]
pub(crate) unsafe fn begin_capture_to_graph(
    stream: &CudaStream,
    graph: sys::CUgraph,
    mode: sys::CUstreamCaptureMode,
) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller.
    unsafe {
        sys::cuStreamBeginCaptureToGraph(
            stream.cu_stream(),
            graph,
            core::ptr::null(),
            core::ptr::null(),
            0,
            mode,
        )
    }
    .result()
}

#[cfg(cuda_12030)]
/// `cuGraphGetNodes`: every node of `graph` (not of its bodies and child graphs).
///
/// # Safety
/// `graph` is live.
pub(crate) unsafe fn graph_nodes(
    graph: sys::CUgraph,
) -> Result<Vec<sys::CUgraphNode>, DriverError> {
    let mut count = 0usize;
    // SAFETY: a null array asks for the count only.
    unsafe { sys::cuGraphGetNodes(graph, core::ptr::null_mut(), &mut count) }.result()?;
    if count == 0 {
        return Ok(Vec::new());
    }
    let mut nodes = vec![core::ptr::null_mut(); count];
    // SAFETY: the array holds `count` nodes.
    unsafe { sys::cuGraphGetNodes(graph, nodes.as_mut_ptr(), &mut count) }.result()?;
    nodes.truncate(count);
    Ok(nodes)
}

#[cfg(cuda_12030)]
/// `cuGraphNodeGetType`, as the enum's number (a newer driver may know types this build's enum
/// lacks).
///
/// # Safety
/// `node` is live.
pub(crate) unsafe fn node_type(node: sys::CUgraphNode) -> Result<u32, DriverError> {
    let mut raw: u32 = u32::MAX;
    // SAFETY: forwarded from the caller; the enum is a `u32` in C, read back as one.
    unsafe { sys::cuGraphNodeGetType(node, &mut raw as *mut u32 as *mut sys::CUgraphNodeType) }
        .result()
        .map(|()| raw)
}
