//! The thin driver layer: every `sys::cu*` call of the runtime goes through here, where a
//! `CUresult` becomes a `Result` (like cudarc's `result` module, for the calls cudarc's safe API
//! does not offer with launch attributes).

use core::ffi::c_void;

use cudarc::driver::{result::DriverError, CudaFunction, CudaStream};

use crate::attr::kind_info;
use crate::config::LaunchConfig;
use crate::error::{Error, KernelName};
use crate::sys;

/// `CUDA_SUCCESS` as `Ok`, anything else as cudarc's `DriverError`.
pub(crate) fn check(rc: sys::CUresult) -> Result<(), DriverError> {
    match rc {
        sys::cudaError_enum::CUDA_SUCCESS => Ok(()),
        other => Err(DriverError(other)),
    }
}

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
    check(unsafe {
        sys::cuLaunchKernelEx(
            config,
            func.cu_function(),
            params.as_mut_ptr(),
            core::ptr::null_mut(),
        )
    })
}

/// `cuStreamSetAttribute`, the one setter of `launch` and `set_stream_attribute`; a failure is
/// `Error::Driver` naming the kind.
pub(crate) fn set_stream_attribute(
    stream: &CudaStream,
    id: sys::CUstreamAttrID,
    value: &sys::CUstreamAttrValue,
    kernel: KernelName,
) -> Result<(), Error> {
    // SAFETY: the stream is live; callers build `value` for `id`.
    let rc = unsafe { sys::cuStreamSetAttribute(stream.cu_stream(), id, value) };
    check(rc).map_err(|source| {
        // A priority outside the device's range gets the range (error path only).
        if id == sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PRIORITY {
            let priority = crate::attr::u32_at(value, 0) as i32;
            if let Ok((least, greatest)) = stream_priority_range() {
                if priority > least || priority < greatest {
                    return Error::PriorityOutOfRange {
                        kernel,
                        priority,
                        least,
                        greatest,
                    };
                }
            }
        }
        stream_error("cuStreamSetAttribute", id, kernel, source)
    })
}

/// `cuStreamGetAttribute`.
pub(crate) fn stream_attribute(
    stream: &CudaStream,
    id: sys::CUstreamAttrID,
) -> Result<sys::CUstreamAttrValue, Error> {
    let mut value = sys::CUstreamAttrValue { pad: [0; 64] };
    // SAFETY: the stream is live and `value` is a valid out-pointer of the right type.
    let rc = unsafe { sys::cuStreamGetAttribute(stream.cu_stream(), id, &mut value) };
    check(rc)
        .map(|()| value)
        .map_err(|source| stream_error("cuStreamGetAttribute", id, KernelName(None), source))
}

fn stream_error(
    call: &'static str,
    id: sys::CUstreamAttrID,
    kernel: KernelName,
    source: DriverError,
) -> Error {
    Error::Driver {
        call,
        kernel,
        attributes: kind_info(id)
            .map(|k| format!("stream {} ({})", k.key, k.cuda_name))
            .unwrap_or_default(),
        source,
    }
}

/// `cuStreamIsCapturing`.
pub(crate) fn stream_capture_status(
    stream: &CudaStream,
) -> Result<sys::CUstreamCaptureStatus, DriverError> {
    let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: the stream is live and `status` is a valid out-pointer.
    check(unsafe { sys::cuStreamIsCapturing(stream.cu_stream(), &mut status) }).map(|()| status)
}

/// Sets `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` on `func` (the launch remembers
/// it per function, in the function's entry).
pub(crate) fn allow_non_portable_cluster(func: &CudaFunction) -> Result<(), DriverError> {
    let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED;
    // SAFETY: the function handle is live for as long as `func`.
    check(unsafe { sys::cuFuncSetAttribute(func.cu_function(), attr, 1) })
}

/// `cuOccupancyMaxActiveClusters` for `config` (its grid, block, shared memory and launch
/// attributes, the cluster among them) on `stream`. Error path only.
pub(crate) fn max_active_clusters_of(
    stream: &CudaStream,
    func: &CudaFunction,
    config: &LaunchConfig<'_>,
) -> Result<i32, DriverError> {
    let raw = config.raw(stream.cu_stream());
    max_active_clusters(func, &raw)
}

/// `cuCtxGetStreamPriorityRange` of the current context: `(least, greatest)`, where greatest is
/// the numerically lowest.
pub(crate) fn stream_priority_range() -> Result<(i32, i32), DriverError> {
    let (mut least, mut greatest): (core::ffi::c_int, core::ffi::c_int) = (0, 0);
    // SAFETY: two valid out-pointers.
    check(unsafe { sys::cuCtxGetStreamPriorityRange(&mut least, &mut greatest) })
        .map(|()| (least, greatest))
}
/// `cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes)`: lets launches of
/// `func` use up to `bytes` of dynamic shared memory (over 48 KiB needs this opt-in).
pub(crate) fn set_max_dynamic_shared(func: &CudaFunction, bytes: u32) -> Result<(), DriverError> {
    let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
    let value = i32::try_from(bytes).unwrap_or(i32::MAX);
    // SAFETY: the function handle is live for as long as `func`.
    check(unsafe { sys::cuFuncSetAttribute(func.cu_function(), attr, value) })
}

/// `cuFuncGetAttribute`; the function's context must be current.
pub(crate) fn function_attribute(
    func: &CudaFunction,
    attr: sys::CUfunction_attribute,
) -> Result<i32, DriverError> {
    let mut value = 0;
    // SAFETY: the function handle is live for as long as `func`; `value` is a valid out-pointer.
    check(unsafe { sys::cuFuncGetAttribute(&mut value, attr, func.cu_function()) }).map(|()| value)
}

/// The size in bytes of each of `func`'s parameters, from `cuFuncGetParamInfo` (CUDA 12.4):
/// `None` where the driver does not have the call.
#[cfg(not(any(
    feature = "cuda-12000",
    feature = "cuda-12010",
    feature = "cuda-12020",
    feature = "cuda-12030"
)))]
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
            other => return Err(DriverError(other)),
        }
    }
}

/// Before CUDA 12.4 there is no `cuFuncGetParamInfo`: nothing to check against.
#[cfg(any(
    feature = "cuda-12000",
    feature = "cuda-12010",
    feature = "cuda-12020",
    feature = "cuda-12030"
))]
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
    check(unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, func.cu_function(), config) })
        .map(|()| clusters)
}

// ---------------------------------------------------------------------------------------------
// Graphs: stream capture, instantiation, replay and kernel-node parameters.

/// `cuStreamBeginCapture`.
pub(crate) fn begin_capture(
    stream: &CudaStream,
    mode: sys::CUstreamCaptureMode,
) -> Result<(), DriverError> {
    // SAFETY: the stream is live.
    check(unsafe { sys::cuStreamBeginCapture_v2(stream.cu_stream(), mode) })
}

/// `cuStreamEndCapture`: the captured graph (null where the capture recorded nothing valid).
pub(crate) fn end_capture(stream: &CudaStream) -> Result<sys::CUgraph, DriverError> {
    let mut graph = core::ptr::null_mut();
    // SAFETY: the stream is live and `graph` is a valid out-pointer.
    check(unsafe { sys::cuStreamEndCapture(stream.cu_stream(), &mut graph) }).map(|()| graph)
}

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
    #[cfg(any(feature = "cuda-12000", feature = "cuda-12010", feature = "cuda-12020"))]
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
    #[cfg(not(any(feature = "cuda-12000", feature = "cuda-12010", feature = "cuda-12020")))]
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
    check(rc)?;
    // SAFETY: the driver returns an array of `count` nodes, valid until the next call on the
    // stream; the one node is copied out at once.
    let node = (count == 1 && !deps.is_null()).then(|| unsafe { *deps });
    Ok((status, id, node))
}

/// `cuGraphInstantiateWithFlags`.
pub(crate) fn instantiate(
    graph: sys::CUgraph,
    flags: u64,
) -> Result<sys::CUgraphExec, DriverError> {
    let mut exec = core::ptr::null_mut();
    // SAFETY: `graph` is a live graph and `exec` a valid out-pointer.
    check(unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, graph, flags) }).map(|()| exec)
}

/// `cuGraphLaunch`.
///
/// # Safety
/// `exec` is a live executable graph of the stream's context.
pub(crate) unsafe fn graph_launch(
    exec: sys::CUgraphExec,
    stream: &CudaStream,
) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller.
    check(unsafe { sys::cuGraphLaunch(exec, stream.cu_stream()) })
}

/// `cuGraphUpload`.
///
/// # Safety
/// As [`graph_launch`].
pub(crate) unsafe fn graph_upload(
    exec: sys::CUgraphExec,
    stream: &CudaStream,
) -> Result<(), DriverError> {
    // SAFETY: forwarded from the caller.
    check(unsafe { sys::cuGraphUpload(exec, stream.cu_stream()) })
}

/// `cuGraphExecDestroy` then `cuGraphDestroy`; either may be null.
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
        result = check(unsafe { sys::cuGraphExecDestroy(exec) });
    }
    if !graph.is_null() {
        // SAFETY: forwarded from the caller.
        result = result.and(check(unsafe { sys::cuGraphDestroy(graph) }));
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
    check(unsafe { sys::cuGraphKernelNodeGetParams_v2(node, &mut params) }).map(|()| params)
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
    check(unsafe { sys::cuKernelGetFunction(&mut func, kernel) }).map(|()| func)
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
    check(unsafe { sys::cuGraphExecKernelNodeSetParams_v2(exec, node, params) })
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
    check(unsafe { sys::cuGraphKernelNodeSetParams_v2(node, params) })
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
    check(unsafe { sys::cuGraphKernelNodeSetAttribute(node, id, value) })
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
    check(unsafe { sys::cuGraphKernelNodeGetAttribute(node, id, &mut value) }).map(|()| value)
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
    #[cfg(any(feature = "cuda-12000", feature = "cuda-12010", feature = "cuda-12020"))]
    {
        // SAFETY: null arrays ask for the count only.
        check(unsafe {
            sys::cuGraphGetEdges(
                graph,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
                &mut count,
            )
        })?;
        if count == 0 {
            // The driver refuses empty arrays (CUDA_ERROR_INVALID_VALUE): a graph of one node.
            return Ok(Vec::new());
        }
        let mut from = vec![core::ptr::null_mut(); count];
        let mut to = vec![core::ptr::null_mut(); count];
        // SAFETY: both arrays hold `count` nodes.
        check(unsafe {
            sys::cuGraphGetEdges(graph, from.as_mut_ptr(), to.as_mut_ptr(), &mut count)
        })?;
        Ok(from
            .into_iter()
            .zip(to)
            .take(count)
            .map(|(f, t)| (f, t, false))
            .collect())
    }
    #[cfg(not(any(feature = "cuda-12000", feature = "cuda-12010", feature = "cuda-12020")))]
    {
        // SAFETY: null arrays ask for the count only.
        check(unsafe {
            sys::cuGraphGetEdges_v2(
                graph,
                core::ptr::null_mut(),
                core::ptr::null_mut(),
                core::ptr::null_mut(),
                &mut count,
            )
        })?;
        if count == 0 {
            // The driver refuses empty arrays (CUDA_ERROR_INVALID_VALUE): a graph of one node.
            return Ok(Vec::new());
        }
        let mut from = vec![core::ptr::null_mut(); count];
        let mut to = vec![core::ptr::null_mut(); count];
        // SAFETY: all-zero edge data is valid (a full dependency).
        let mut data: Vec<sys::CUgraphEdgeData> = vec![unsafe { core::mem::zeroed() }; count];
        // SAFETY: the three arrays hold `count` entries.
        check(unsafe {
            sys::cuGraphGetEdges_v2(
                graph,
                from.as_mut_ptr(),
                to.as_mut_ptr(),
                data.as_mut_ptr(),
                &mut count,
            )
        })?;
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
    check(rc).map_err(|e| fail("cuLinkCreate", e, &[]))?;
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
    if let Err(e) = check(rc) {
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
        if let Err(e) = check(rc) {
            drop(state);
            return Err(fail("cuLinkAddFile", e, &log));
        }
    }
    let (mut cubin, mut size): (*mut c_void, usize) = (core::ptr::null_mut(), 0);
    // SAFETY: the state is live; the cubin it returns lives until cuLinkDestroy.
    let rc = unsafe { sys::cuLinkComplete(state.0, &mut cubin, &mut size) };
    if let Err(e) = check(rc) {
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
    check(unsafe { sys::cuDriverGetVersion(&mut version) }).map(|()| version)
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
    check(unsafe {
        sys::cuStreamGetCaptureInfo_v3(
            stream.cu_stream(),
            &mut status,
            &mut id,
            &mut graph,
            &mut deps,
            &mut edges,
            &mut count,
        )
    })?;
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
    check(unsafe {
        sys::cuGraphConditionalHandleCreate(
            &mut handle,
            graph,
            ctx,
            default,
            sys::CU_GRAPH_COND_ASSIGN_DEFAULT,
        )
    })
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
    check(unsafe {
        sys::cuGraphAddNode_v2(
            &mut node,
            state.graph,
            state.deps.as_ptr(),
            edges,
            state.deps.len(),
            &mut params,
        )
    })?;
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
    check(unsafe {
        sys::cuStreamUpdateCaptureDependencies_v2(
            stream.cu_stream(),
            &mut node,
            core::ptr::null(),
            1,
            set as u32,
        )
    })
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
    check(unsafe {
        sys::cuStreamBeginCaptureToGraph(
            stream.cu_stream(),
            graph,
            core::ptr::null(),
            core::ptr::null(),
            0,
            mode,
        )
    })
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
    check(unsafe { sys::cuGraphGetNodes(graph, core::ptr::null_mut(), &mut count) })?;
    if count == 0 {
        return Ok(Vec::new());
    }
    let mut nodes = vec![core::ptr::null_mut(); count];
    // SAFETY: the array holds `count` nodes.
    check(unsafe { sys::cuGraphGetNodes(graph, nodes.as_mut_ptr(), &mut count) })?;
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
    check(unsafe {
        sys::cuGraphNodeGetType(node, &mut raw as *mut u32 as *mut sys::CUgraphNodeType)
    })
    .map(|()| raw)
}
