//! The driver calls `cudarc::driver::result` lacks, in its shape: each `sys::cu*` call once, its
//! `CUresult` as a `Result<_, DriverError>` (cudarc's `CUresult::result`). Where cudarc's
//! `result` module has the call, the runtime calls it directly (`cudarc::driver::result as cu`);
//! what a failure means is said in one place, `explain.rs`. CUDA versions are told apart by the
//! build script's `cfg`s (`cfg(cuda_12030)`: CUDA 12.3 or later), as everywhere in the crate.

use core::ffi::c_void;

use cudarc::driver::result::{self as cu, DriverError};
use cudarc::driver::{CudaFunction, CudaStream};

use crate::sys;

/// Whether the driver library can be loaded.
pub(crate) fn culib_present() -> bool {
    // SAFETY: only tries to open the library by its usual names.
    unsafe { sys::is_culib_present() }
}

/// `cuLaunchKernelEx`.
///
/// # Safety
/// `config` points at live arrays; `params` matches the kernel's parameters.
#[inline]
pub(crate) unsafe fn launch_kernel_ex(
    config: &sys::CUlaunchConfig,
    func: &CudaFunction,
    params: &mut [*mut c_void],
) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller.
    unsafe {
        sys::cuLaunchKernelEx(
            config,
            func.cu_function(),
            params.as_mut_ptr(),
            core::ptr::null_mut(),
        )
    }
    .result()
}

/// `cuStreamSetAttribute`, the one setter of `launch` and `set_stream_attribute` (a failure is
/// explained by `explain::stream_attribute_error`).
pub(crate) fn set_stream_attribute(
    stream: &CudaStream,
    id: sys::CUstreamAttrID,
    value: &sys::CUstreamAttrValue,
) -> Result<(), DriverError> {
    // SAFETY: the stream is live; callers build `value` for `id`.
    unsafe { sys::cuStreamSetAttribute(stream.cu_stream(), id, value) }.result()
}

/// `cuStreamGetAttribute`.
pub(crate) fn stream_attribute(
    stream: &CudaStream,
    id: sys::CUstreamAttrID,
) -> Result<sys::CUstreamAttrValue, DriverError> {
    let mut value = sys::CUstreamAttrValue { pad: [0; 64] };
    // SAFETY: the stream is live and `value` is a valid out-pointer of the right type.
    unsafe { sys::cuStreamGetAttribute(stream.cu_stream(), id, &mut value) }
        .result()
        .map(|()| value)
}

/// The size in bytes of each of `func`'s parameters, from `cuFuncGetParamInfo` (CUDA 12.4):
/// `None` where the driver does not have the call.
#[cfg(cuda_12040)]
pub(crate) fn param_sizes(func: &CudaFunction) -> Result<Option<Vec<u32>>, DriverError> {
    use std::sync::OnceLock;
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // cudarc panics calling a symbol that an older driver lacks, so look it up first.
    // SAFETY: only looks the symbol up in the already loaded library.
    let present = *PRESENT.get_or_init(|| unsafe {
        sys::culib()
            .get::<unsafe extern "C" fn()>(b"cuFuncGetParamInfo")
            .is_ok()
    });
    if !present {
        return Ok(None);
    }
    let mut sizes = Vec::new();
    loop {
        let (mut offset, mut size) = (0usize, 0usize);
        // SAFETY: the function handle is live; the out-pointers are valid.
        let rc = unsafe {
            sys::cuFuncGetParamInfo(func.cu_function(), sizes.len(), &mut offset, &mut size)
        };
        match rc {
            sys::cudaError_enum::CUDA_SUCCESS => {
                sizes.push(u32::try_from(size).unwrap_or(u32::MAX));
            }
            // The index past the last parameter.
            sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE => return Ok(Some(sizes)),
            other => other.result()?,
        }
    }
}

/// Before CUDA 12.4 there is no `cuFuncGetParamInfo`: nothing to check against.
#[cfg(not(cuda_12040))]
pub(crate) fn param_sizes(_func: &CudaFunction) -> Result<Option<Vec<u32>>, DriverError> {
    Ok(None)
}

/// `cuOccupancyMaxActiveClusters` with a full launch configuration (attributes included, which
/// cudarc's helper leaves out).
pub(crate) fn max_active_clusters(
    func: &CudaFunction,
    config: &sys::CUlaunchConfig,
) -> Result<i32, DriverError> {
    let mut clusters = 0;
    // SAFETY: `config` points at live arrays; the function handle is live.
    unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, func.cu_function(), config) }
        .result()
        .map(|()| clusters)
}

// ---------------------------------------------------------------------------------------------
// Graphs: capture information, kernel-node parameters and attributes, edges.

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

/// Why a link failed: the driver's code and the linker's error log.
pub(crate) struct LinkFailure {
    pub(crate) call: &'static str,
    pub(crate) source: DriverError,
    pub(crate) log: String,
}

/// `cuLinkCreate` … `cuLinkComplete`: links the relocatable PTX `ptx` (NUL-terminated, named
/// `name` in messages) with the static device libraries `libraries` (`libcudadevrt.a`) into a
/// cubin for the current context's device, and returns a copy of it.
pub(crate) fn link(
    ptx: &std::ffi::CStr,
    name: &std::ffi::CStr,
    libraries: &[std::ffi::CString],
) -> Result<Vec<u8>, LinkFailure> {
    /// Destroys the linker state (which owns the cubin) on every path.
    struct State(sys::CUlinkState);
    impl Drop for State {
        fn drop(&mut self) {
            // SAFETY: created by cuLinkCreate below, destroyed once.
            let _ = unsafe { sys::cuLinkDestroy(self.0) };
        }
    }
    // The error log outlives the state (declared first, dropped last): the linker writes into
    // it until cuLinkDestroy.
    let mut log = vec![0u8; 16 * 1024];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut values = [
        log.as_mut_ptr() as *mut c_void,
        // The size travels in the pointer itself, as the driver API wants it.
        log.len() as *mut c_void,
    ];
    let mut raw: sys::CUlinkState = core::ptr::null_mut();
    let fail = |call: &'static str, rc: DriverError, log: &[u8]| LinkFailure {
        call,
        source: rc,
        log: String::from_utf8_lossy(log.split(|&b| b == 0).next().unwrap_or_default())
            .trim_end()
            .to_string(),
    };
    // SAFETY: the option arrays have two entries each and outlive the state.
    let rc = unsafe {
        sys::cuLinkCreate_v2(
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
            &mut raw,
        )
    };
    rc.result().map_err(|e| fail("cuLinkCreate", e, &[]))?;
    let state = State(raw);
    // SAFETY: the PTX and name are NUL-terminated and live across the call (the driver copies).
    let rc = unsafe {
        sys::cuLinkAddData_v2(
            state.0,
            sys::CUjitInputType::CU_JIT_INPUT_PTX,
            ptx.as_ptr() as *mut c_void,
            ptx.to_bytes_with_nul().len(),
            name.as_ptr(),
            0,
            core::ptr::null_mut(),
            core::ptr::null_mut(),
        )
    };
    if let Err(e) = rc.result() {
        drop(state);
        return Err(fail("cuLinkAddData", e, &log));
    }
    for library in libraries {
        // SAFETY: the path is NUL-terminated; the driver reads the file during the call.
        let rc = unsafe {
            sys::cuLinkAddFile_v2(
                state.0,
                sys::CUjitInputType::CU_JIT_INPUT_LIBRARY,
                library.as_ptr(),
                0,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
            )
        };
        if let Err(e) = rc.result() {
            drop(state);
            return Err(fail("cuLinkAddFile", e, &log));
        }
    }
    let (mut cubin, mut size): (*mut c_void, usize) = (core::ptr::null_mut(), 0);
    // SAFETY: the state is live; the cubin it returns lives until cuLinkDestroy.
    let rc = unsafe { sys::cuLinkComplete(state.0, &mut cubin, &mut size) };
    if let Err(e) = rc.result() {
        drop(state);
        return Err(fail("cuLinkComplete", e, &log));
    }
    // SAFETY: `size` bytes at `cubin`, owned by the state, which is still live.
    let image = unsafe { core::slice::from_raw_parts(cubin as *const u8, size) }.to_vec();
    drop(state);
    Ok(image)
}

// ---------------------------------------------------------------------------------------------
// Conditional nodes (CUDA 12.3): the capture's graph and dependencies, condition handles, the
// node itself, capturing into its bodies, and what a body holds.

#[cfg(cuda_12030)]
/// `cuDriverGetVersion`: the CUDA version of the installed driver (`13000` for 13.0).
pub(crate) fn driver_version() -> Result<i32, DriverError> {
    let mut version = 0;
    // SAFETY: a valid out-pointer.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map(|()| version)
}

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

/// The SM resource of device `dev` (`cuDeviceGetDevResource`, `CU_DEV_RESOURCE_TYPE_SM`).
#[cfg(cuda_12050)]
pub(crate) fn device_sm_resource(dev: sys::CUdevice) -> Result<sys::CUdevResource, DriverError> {
    // SAFETY: a plain C struct, all zeros valid; the driver fills it.
    let mut res: sys::CUdevResource = unsafe { core::mem::zeroed() };
    // SAFETY: an out-pointer to a local.
    check(unsafe {
        sys::cuDeviceGetDevResource(
            dev,
            &mut res,
            sys::CUdevResourceType::CU_DEV_RESOURCE_TYPE_SM,
        )
    })?;
    Ok(res)
}

/// `cuDevSmResourceSplitByCount` into one group of at least `min_count` SMs (rounded up to the
/// driver's granularity) and the remainder.
#[cfg(cuda_12050)]
pub(crate) fn split_sms(
    input: &sys::CUdevResource,
    min_count: u32,
) -> Result<(sys::CUdevResource, sys::CUdevResource), DriverError> {
    // SAFETY: plain C structs, all zeros valid; the driver fills them.
    let (mut group, mut rest): (sys::CUdevResource, sys::CUdevResource) =
        unsafe { (core::mem::zeroed(), core::mem::zeroed()) };
    let mut groups = 1u32;
    // SAFETY: one result slot for `groups` = 1, out-pointers to locals, `input` from the driver.
    check(unsafe {
        sys::cuDevSmResourceSplitByCount(&mut group, &mut groups, input, &mut rest, 0, min_count)
    })?;
    if groups != 1 {
        return Err(DriverError(sys::cudaError_enum::CUDA_ERROR_INVALID_VALUE));
    }
    Ok((group, rest))
}

/// The SMs of an SM resource.
#[cfg(cuda_12050)]
pub(crate) fn sm_count(res: &sys::CUdevResource) -> u32 {
    // SAFETY: an SM resource (every resource here is): the union holds `sm`.
    unsafe { res.__bindgen_anon_1.sm.smCount }
}

/// A green context of `dev` on the SMs of `res` (`cuDevResourceGenerateDesc`, then
/// `cuGreenCtxCreate` with its default stream).
#[cfg(cuda_12050)]
pub(crate) fn green_context(
    dev: sys::CUdevice,
    res: &sys::CUdevResource,
) -> Result<sys::CUgreenCtx, DriverError> {
    let mut res = *res;
    let mut desc: sys::CUdevResourceDesc = core::ptr::null_mut();
    // SAFETY: one resource from a split of this device; out-pointer to a local.
    check(unsafe { sys::cuDevResourceGenerateDesc(&mut desc, &mut res, 1) })?;
    let mut green: sys::CUgreenCtx = core::ptr::null_mut();
    // SAFETY: `desc` was just generated for this device.
    check(unsafe {
        sys::cuGreenCtxCreate(
            &mut green,
            desc,
            dev,
            sys::CUgreenCtxCreate_flags::CU_GREEN_CTX_DEFAULT_STREAM as u32,
        )
    })?;
    Ok(green)
}

/// `cuGreenCtxDestroy`.
///
/// # Safety
/// `green` is live and nothing uses it or its streams afterwards.
#[cfg(cuda_12050)]
pub(crate) unsafe fn green_context_destroy(green: sys::CUgreenCtx) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller.
    check(unsafe { sys::cuGreenCtxDestroy(green) })
}

/// A non-blocking stream whose work runs on `green`'s SMs (`cuGreenCtxStreamCreate`).
///
/// # Safety
/// `green` is live.
#[cfg(cuda_12050)]
pub(crate) unsafe fn green_stream(
    green: sys::CUgreenCtx,
    priority: i32,
) -> Result<sys::CUstream, DriverError> {
    let mut stream: sys::CUstream = core::ptr::null_mut();
    // SAFETY: forwarded from the caller; an out-pointer to a local.
    check(unsafe {
        sys::cuGreenCtxStreamCreate(
            &mut stream,
            green,
            sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32,
            priority,
        )
    })?;
    Ok(stream)
}

/// `cuStreamDestroy`, for the streams chevron made outside cudarc.
///
/// # Safety
/// Nothing uses `stream` afterwards.
#[cfg(cuda_12050)]
pub(crate) unsafe fn stream_destroy(stream: sys::CUstream) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller.
    check(unsafe { sys::cuStreamDestroy_v2(stream) })
}

/// The green context of `stream` (`cuStreamGetGreenCtx`): null for a stream of a whole device.
#[cfg(cuda_12050)]
pub(crate) fn stream_green_context(stream: &CudaStream) -> Result<sys::CUgreenCtx, DriverError> {
    let mut green: sys::CUgreenCtx = core::ptr::null_mut();
    // SAFETY: the stream is live; an out-pointer to a local.
    check(unsafe { sys::cuStreamGetGreenCtx(stream.cu_stream(), &mut green) })?;
    Ok(green)
}

/// The SMs of green context `green` (`cuGreenCtxGetDevResource`).
///
/// # Safety
/// `green` is live.
#[cfg(cuda_12050)]
pub(crate) unsafe fn green_context_sms(green: sys::CUgreenCtx) -> Result<u32, DriverError> {
    // SAFETY: a plain C struct, all zeros valid; the driver fills it.
    let mut res: sys::CUdevResource = unsafe { core::mem::zeroed() };
    // SAFETY: forwarded from the caller; an out-pointer to a local.
    check(unsafe {
        sys::cuGreenCtxGetDevResource(
            green,
            &mut res,
            sys::CUdevResourceType::CU_DEV_RESOURCE_TYPE_SM,
        )
    })?;
    Ok(sm_count(&res))
}

/// `CUDA_SUCCESS` or the driver's error, for the calls above that cudarc's `result` lacks.
#[cfg(cuda_12050)]
#[inline]
fn check(rc: sys::CUresult) -> Result<(), DriverError> {
    rc.result()
}
