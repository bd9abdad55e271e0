//! Graphs built by hand ([`GraphBuilder`](crate::GraphBuilder)): an empty graph, and nodes
//! added to it after explicit dependencies (memset, memcpy, host, event record and wait, child
//! graph, empty); a stream capturing into the graph after given nodes (CUDA 12.3).

use core::ffi::c_void;

use cudarc::driver::result::DriverError;
#[cfg(cuda_12030)]
use cudarc::driver::CudaStream;

use crate::sys;

/// `cuGraphCreate`: an empty graph.
pub(crate) fn graph_create() -> Result<sys::CUgraph, DriverError> {
    let mut graph: sys::CUgraph = core::ptr::null_mut();
    // SAFETY: a valid out-pointer; flags must be 0.
    unsafe { sys::cuGraphCreate(&mut graph, 0) }
        .result()
        .map(|()| graph)
}

/// The pointer and length the driver's `cuGraphAdd*Node` calls take for a dependency list (a
/// null pointer for none).
fn deps_ptr(deps: &[sys::CUgraphNode]) -> (*const sys::CUgraphNode, usize) {
    if deps.is_empty() {
        (core::ptr::null(), 0)
    } else {
        (deps.as_ptr(), deps.len())
    }
}

/// `cuGraphAddMemsetNode`: sets `count` elements of `size` bytes (1, 2 or 4) at `dst` to
/// `value` (its low `size` bytes), after `deps`.
///
/// # Safety
/// `graph` is live, of context `ctx`, and holds `deps`; `dst` is `count * size` bytes of device
/// memory of `ctx` that stay allocated while the graph may run.
pub(crate) unsafe fn add_memset_node(
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    ctx: sys::CUcontext,
    dst: sys::CUdeviceptr,
    value: u32,
    size: u32,
    count: usize,
) -> Result<sys::CUgraphNode, DriverError> {
    let params = sys::CUDA_MEMSET_NODE_PARAMS {
        dst,
        pitch: 0,
        value,
        elementSize: size,
        width: count,
        height: 1,
    };
    let (ptr, n) = deps_ptr(deps);
    let mut node: sys::CUgraphNode = core::ptr::null_mut();
    // SAFETY: forwarded from the caller; `params` and the dependency array live for the call.
    unsafe { sys::cuGraphAddMemsetNode(&mut node, graph, ptr, n, &params, ctx) }
        .result()
        .map(|()| node)
}

/// `cuGraphAddMemcpyNode`: copies `bytes` bytes from device memory `src` to device memory
/// `dst`, after `deps`.
///
/// # Safety
/// As [`add_memset_node`], for `bytes` bytes at `src` and at `dst`.
pub(crate) unsafe fn add_memcpy_node(
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    ctx: sys::CUcontext,
    dst: sys::CUdeviceptr,
    src: sys::CUdeviceptr,
    bytes: usize,
) -> Result<sys::CUgraphNode, DriverError> {
    // Every field written: the struct holds enums (`CUmemorytype`) for which all-zero is no
    // value, so `mem::zeroed` is undefined (and panics in debug and test builds).
    let params = sys::CUDA_MEMCPY3D {
        srcXInBytes: 0,
        srcY: 0,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        srcHost: core::ptr::null(),
        srcDevice: src,
        srcArray: core::ptr::null_mut(),
        reserved0: core::ptr::null_mut(),
        srcPitch: 0,
        srcHeight: 0,
        dstXInBytes: 0,
        dstY: 0,
        dstZ: 0,
        dstLOD: 0,
        dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        dstHost: core::ptr::null_mut(),
        dstDevice: dst,
        dstArray: core::ptr::null_mut(),
        reserved1: core::ptr::null_mut(),
        dstPitch: 0,
        dstHeight: 0,
        WidthInBytes: bytes,
        Height: 1,
        Depth: 1,
    };
    let (ptr, n) = deps_ptr(deps);
    let mut node: sys::CUgraphNode = core::ptr::null_mut();
    // SAFETY: forwarded from the caller; `params` and the dependency array live for the call.
    unsafe { sys::cuGraphAddMemcpyNode(&mut node, graph, ptr, n, &params, ctx) }
        .result()
        .map(|()| node)
}

/// `cuGraphAddHostNode`: calls `func(data)` on a driver thread, after `deps`.
///
/// # Safety
/// `graph` is live and holds `deps`; `func` may be called with `data` from another thread
/// whenever the graph runs, until it is destroyed.
pub(crate) unsafe fn add_host_node(
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    func: unsafe extern "C" fn(*mut c_void),
    data: *mut c_void,
) -> Result<sys::CUgraphNode, DriverError> {
    let params = sys::CUDA_HOST_NODE_PARAMS {
        fn_: Some(func),
        userData: data,
    };
    let (ptr, n) = deps_ptr(deps);
    let mut node: sys::CUgraphNode = core::ptr::null_mut();
    // SAFETY: forwarded from the caller; `params` and the dependency array live for the call.
    unsafe { sys::cuGraphAddHostNode(&mut node, graph, ptr, n, &params) }
        .result()
        .map(|()| node)
}

/// `cuGraphAddEventRecordNode` (`wait` false) or `cuGraphAddEventWaitNode` (`wait` true) on
/// `event`, after `deps`.
///
/// # Safety
/// `graph` is live and holds `deps`; `event` is live, of the graph's context, while the graph
/// may run.
pub(crate) unsafe fn add_event_node(
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    event: sys::CUevent,
    wait: bool,
) -> Result<sys::CUgraphNode, DriverError> {
    let (ptr, n) = deps_ptr(deps);
    let mut node: sys::CUgraphNode = core::ptr::null_mut();
    // SAFETY: forwarded from the caller.
    let rc = unsafe {
        if wait {
            sys::cuGraphAddEventWaitNode(&mut node, graph, ptr, n, event)
        } else {
            sys::cuGraphAddEventRecordNode(&mut node, graph, ptr, n, event)
        }
    };
    rc.result().map(|()| node)
}

/// `cuGraphAddChildGraphNode`: a node running a copy of `child` (the driver clones it), after
/// `deps`.
///
/// # Safety
/// `graph` and `child` are live, of one context; `graph` holds `deps`; what `child`'s nodes use
/// stays valid while `graph` may run.
pub(crate) unsafe fn add_child_node(
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    child: sys::CUgraph,
) -> Result<sys::CUgraphNode, DriverError> {
    let (ptr, n) = deps_ptr(deps);
    let mut node: sys::CUgraphNode = core::ptr::null_mut();
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuGraphAddChildGraphNode(&mut node, graph, ptr, n, child) }
        .result()
        .map(|()| node)
}

/// `cuGraphAddEmptyNode`: a node that does nothing, after `deps` (a join).
///
/// # Safety
/// `graph` is live and holds `deps`.
pub(crate) unsafe fn add_empty_node(
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
) -> Result<sys::CUgraphNode, DriverError> {
    let (ptr, n) = deps_ptr(deps);
    let mut node: sys::CUgraphNode = core::ptr::null_mut();
    // SAFETY: forwarded from the caller.
    unsafe { sys::cuGraphAddEmptyNode(&mut node, graph, ptr, n) }
        .result()
        .map(|()| node)
}

/// `cuStreamBeginCaptureToGraph`: `stream` captures into `graph`, its first work after `deps`
/// (plain dependencies).
///
/// # Safety
/// `graph` is live, of the stream's context, and holds `deps`.
#[cfg(cuda_12030)]
pub(crate) unsafe fn begin_capture_after(
    stream: &CudaStream,
    graph: sys::CUgraph,
    deps: &[sys::CUgraphNode],
    mode: sys::CUstreamCaptureMode,
) -> Result<(), DriverError> {
    let (ptr, n) = deps_ptr(deps);
    // SAFETY: forwarded from the caller; no edge data (plain dependencies).
    unsafe {
        sys::cuStreamBeginCaptureToGraph(stream.cu_stream(), graph, ptr, core::ptr::null(), n, mode)
    }
    .result()
}
