//! Graphs: capture information, kernel-node parameters and attributes, edges.

use cudarc::driver::result::{self as cu, DriverError};
use cudarc::driver::CudaStream;

use crate::sys;

/// `cuStreamGetCaptureInfo`: the capture's id and the node the stream's next work will depend
/// on (after a launch on a capturing stream: the launch's kernel node). `None` for the node when
/// the stream has no single dependency.
pub(crate) fn capture_info(
    stream: &CudaStream,
) -> Result<(sys::CUstreamCaptureStatus, u64, Option<sys::CUgraphNode>), DriverError> {
    let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    let mut id: sys::cuuint64_t = 0;
    let mut deps: *const sys::CUgraphNode = core::ptr::null();
    let mut count: usize = 0;
    // SAFETY: the stream is live; every out-pointer is valid; the graph out-pointer may be null.
    #[cfg(not(cuda_12030))]
    let rc = unsafe {
        sys::cuStreamGetCaptureInfo_v2(
            stream.cu_stream(),
            &mut status,
            &mut id,
            core::ptr::null_mut(),
            &mut deps,
            &mut count,
        )
    };
    // SAFETY: as above; the edge-data out-pointer may be null.
    #[cfg(cuda_12030)]
    let rc = unsafe {
        sys::cuStreamGetCaptureInfo_v3(
            stream.cu_stream(),
            &mut status,
            &mut id,
            core::ptr::null_mut(),
            &mut deps,
            core::ptr::null_mut(),
            &mut count,
        )
    };
    rc.result()?;
    // SAFETY: the driver returns an array of `count` nodes, valid until the next call on the
    // stream; the one node is copied out at once.
    let node = (count == 1 && !deps.is_null()).then(|| unsafe { *deps });
    Ok((status, id, node))
}

/// `cuGraphExecDestroy` then `cuGraphDestroy` (cudarc's); either may be null.
///
/// # Safety
/// Both are live (or null) and used by nothing afterwards.
pub(crate) unsafe fn graph_destroy(
    exec: sys::CUgraphExec,
    graph: sys::CUgraph,
) -> Result<(), DriverError> {
    let mut result = Ok(());
    if !exec.is_null() {
        // SAFETY: forwarded from the caller.
        result = unsafe { cu::graph::exec_destroy(exec) };
    }
    if !graph.is_null() {
        // SAFETY: forwarded from the caller.
        result = result.and(unsafe { cu::graph::destroy(graph) });
    }
    result
}

/// `cuGraphKernelNodeGetParams`: the node's function, grid, block and shared memory (its
/// parameter pointers point into the driver's copy and are not used).
///
/// # Safety
/// `node` is a live kernel node.
pub(crate) unsafe fn kernel_node_params(
    node: sys::CUgraphNode,
) -> Result<sys::CUDA_KERNEL_NODE_PARAMS, DriverError> {
    // SAFETY: all-zero is a valid value of this plain C struct (null pointers, zero sizes).
    let mut params: sys::CUDA_KERNEL_NODE_PARAMS = unsafe { core::mem::zeroed() };
    // SAFETY: forwarded from the caller; `params` is a valid out-pointer.
    unsafe { sys::cuGraphKernelNodeGetParams_v2(node, &mut params) }
        .result()
        .map(|()| params)
}

/// `cuKernelGetFunction`: the function of a context-independent kernel handle in the current
/// context.
///
/// # Safety
/// `kernel` is a live kernel handle.
pub(crate) unsafe fn kernel_function(
    kernel: sys::CUkernel,
) -> Result<sys::CUfunction, DriverError> {
    let mut func = core::ptr::null_mut();
    // SAFETY: forwarded from the caller; `func` is a valid out-pointer.
    unsafe { sys::cuKernelGetFunction(&mut func, kernel) }
        .result()
        .map(|()| func)
}

/// `cuGraphExecKernelNodeSetParams`.
///
/// # Safety
/// `exec` was instantiated from the graph holding kernel node `node`; `params.kernelParams`
/// matches the function's parameters.
#[inline]
pub(crate) unsafe fn exec_set_kernel_params(
    exec: sys::CUgraphExec,
    node: sys::CUgraphNode,
    params: &sys::CUDA_KERNEL_NODE_PARAMS,
) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuGraphExecKernelNodeSetParams_v2(exec, node, params) }.result()
}

/// `cuGraphKernelNodeSetParams`: sets a kernel node of a (not instantiated) graph; the driver
/// copies the parameter values.
///
/// # Safety
/// `node` is a live kernel node; `params.kernelParams` matches the function's parameters.
pub(crate) unsafe fn kernel_node_set_params(
    node: sys::CUgraphNode,
    params: &sys::CUDA_KERNEL_NODE_PARAMS,
) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuGraphKernelNodeSetParams_v2(node, params) }.result()
}

/// `cuGraphKernelNodeSetAttribute` (on the graph's node: it takes effect in the executable
/// graph at the next instantiation).
///
/// # Safety
/// `node` is a live kernel node.
pub(crate) unsafe fn kernel_node_set_attribute(
    node: sys::CUgraphNode,
    id: sys::CUlaunchAttributeID,
    value: &sys::CUlaunchAttributeValue,
) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuGraphKernelNodeSetAttribute(node, id, value) }.result()
}

/// `cuGraphKernelNodeGetAttribute`.
///
/// # Safety
/// `node` is a live kernel node.
pub(crate) unsafe fn kernel_node_attribute(
    node: sys::CUgraphNode,
    id: sys::CUlaunchAttributeID,
) -> Result<sys::CUlaunchAttributeValue, DriverError> {
    // SAFETY: all-zero is a valid value of this plain C union.
    let mut value: sys::CUlaunchAttributeValue = unsafe { core::mem::zeroed() };
    // SAFETY: forwarded from the caller; `value` is a valid out-pointer.
    unsafe { sys::cuGraphKernelNodeGetAttribute(node, id, &mut value) }
        .result()
        .map(|()| value)
}

/// `cuGraphGetEdges`: every edge as (from, to, whether it is a programmatic dependency). Before
/// CUDA 12.3 the driver has no edge data and every edge reads as a full dependency.
///
/// # Safety
/// `graph` is live.
pub(crate) unsafe fn graph_edges(
    graph: sys::CUgraph,
) -> Result<Vec<(sys::CUgraphNode, sys::CUgraphNode, bool)>, DriverError> {
    let mut count = 0usize;
    #[cfg(not(cuda_12030))]
    {
        // SAFETY: null arrays ask for the count only.
        unsafe {
            sys::cuGraphGetEdges(
                graph,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
                &mut count,
            )
        }
        .result()?;
        if count == 0 {
            // The driver refuses empty arrays (CUDA_ERROR_INVALID_VALUE): a graph of one node.
            return Ok(Vec::new());
        }
        let mut from = vec![core::ptr::null_mut(); count];
        let mut to = vec![core::ptr::null_mut(); count];
        // SAFETY: both arrays hold `count` nodes.
        unsafe { sys::cuGraphGetEdges(graph, from.as_mut_ptr(), to.as_mut_ptr(), &mut count) }
            .result()?;
        Ok(from
            .into_iter()
            .zip(to)
            .take(count)
            .map(|(f, t)| (f, t, false))
            .collect())
    }
    #[cfg(cuda_12030)]
    {
        // SAFETY: null arrays ask for the count only.
        unsafe {
            sys::cuGraphGetEdges_v2(
                graph,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
                core::ptr::null_mut(),
                &mut count,
            )
        }
        .result()?;
        if count == 0 {
            // The driver refuses empty arrays (CUDA_ERROR_INVALID_VALUE): a graph of one node.
            return Ok(Vec::new());
        }
        let mut from = vec![core::ptr::null_mut(); count];
        let mut to = vec![core::ptr::null_mut(); count];
        // SAFETY: all-zero edge data is valid (a full dependency).
        let mut data: Vec<sys::CUgraphEdgeData> = vec![unsafe { core::mem::zeroed() }; count];
        // SAFETY: the three arrays hold `count` entries.
        unsafe {
            sys::cuGraphGetEdges_v2(
                graph,
                from.as_mut_ptr(),
                to.as_mut_ptr(),
                data.as_mut_ptr(),
                &mut count,
            )
        }
        .result()?;
        let programmatic = sys::CUgraphDependencyType::CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC as u8;
        Ok(from
            .into_iter()
            .zip(to)
            .zip(data)
            .take(count)
            .map(|((f, t), d)| (f, t, d.type_ == programmatic))
            .collect())
    }
}
