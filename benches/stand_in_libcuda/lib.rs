//! A stand-in for the CUDA driver library, for counting the host instructions of whole launches
//! on a machine without a GPU (`scripts/host_cost_callgrind.sh`): the calls a launch and its
//! setup make, each succeeding at once and doing nothing. Built as a `cdylib`
//! (`cargo build --release --example stand_in_libcuda`), which the script copies under the name
//! `libcuda.so` into a folder of its own and puts first on `LD_LIBRARY_PATH` for the one program
//! it measures (`benches/launch_path.rs`). Nothing else loads it: under its own name it is no
//! driver, and it is never in a folder cargo puts on the library path.
//!
//! One device (compute capability 9.0), one context, one module with one function whose four
//! parameters have `saxpy`'s sizes; memory is a counter of fake addresses; copies from the device
//! write zeros. Graphs (for `benches/update_path.rs`): a stream capture records one kernel node
//! per launch (nodes are fake handles, the launch's `kernelParams` are not kept: the node's
//! arguments read back are fixed values), and every graph call succeeds.

#![allow(non_snake_case, clippy::missing_safety_doc)]

use core::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU64, Ordering};

type CUresult = c_int;
const SUCCESS: CUresult = 0;
const INVALID_VALUE: CUresult = 1;
const INVALID_DEVICE: CUresult = 101;

/// Distinct addresses for the handles the driver would return.
static CONTEXT: u8 = 0;
static MODULE: u8 = 0;
static FUNCTION: u8 = 0;
static STREAM: u8 = 0;
static EVENT: u8 = 0;
static GRAPH: u8 = 0;
static EXEC: u8 = 0;
/// Whether the stand-in stream is capturing, and the last node its capture added (0: none).
static CAPTURING: AtomicBool = AtomicBool::new(false);
static LAST_NODE: AtomicU64 = AtomicU64::new(0);
static NEXT_NODE: AtomicU64 = AtomicU64::new(0x6e00_0000_0000);
static CURRENT: AtomicPtr<c_void> = AtomicPtr::new(core::ptr::null_mut());
static NEXT_ADDRESS: AtomicU64 = AtomicU64::new(0x7f00_0000_0000);

fn handle(h: &'static u8) -> *mut c_void {
    h as *const u8 as *mut c_void
}

/// Writes `value` through `out`, as the driver's out-parameters.
unsafe fn put<T>(out: *mut T, value: T) -> CUresult {
    // SAFETY: the caller passes a valid out-pointer, as the driver API requires.
    unsafe { out.write(value) };
    SUCCESS
}

fn alloc(bytes: usize) -> u64 {
    let size = (bytes as u64 + 255) & !255;
    NEXT_ADDRESS.fetch_add(size.max(256), Ordering::Relaxed)
}

#[no_mangle]
pub extern "C" fn cuInit(_flags: c_uint) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub unsafe extern "C" fn cuDriverGetVersion(v: *mut c_int) -> CUresult {
    unsafe { put(v, 13000) }
}
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetCount(n: *mut c_int) -> CUresult {
    unsafe { put(n, 1) }
}
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGet(d: *mut c_int, ordinal: c_int) -> CUresult {
    if ordinal != 0 {
        return INVALID_DEVICE;
    }
    unsafe { put(d, 0) }
}
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, _d: c_int) -> CUresult {
    let text = b"stand-in\0";
    let n = text.len().min(len.max(0) as usize);
    unsafe { core::ptr::copy_nonoverlapping(text.as_ptr().cast(), name, n) };
    SUCCESS
}
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetAttribute(
    v: *mut c_int,
    attribute: c_int,
    _d: c_int,
) -> CUresult {
    let value = match attribute {
        75 => 9,       // compute capability major
        76 => 0,       // minor
        97 => 232_448, // shared memory per block, opt-in
        _ => 1,
    };
    unsafe { put(v, value) }
}
#[no_mangle]
pub unsafe extern "C" fn cuDevicePrimaryCtxRetain(c: *mut *mut c_void, _d: c_int) -> CUresult {
    unsafe { put(c, handle(&CONTEXT)) }
}
#[no_mangle]
pub extern "C" fn cuDevicePrimaryCtxRelease_v2(_d: c_int) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetCurrent(c: *mut *mut c_void) -> CUresult {
    unsafe { put(c, CURRENT.load(Ordering::Relaxed)) }
}
#[no_mangle]
pub extern "C" fn cuCtxSetCurrent(c: *mut c_void) -> CUresult {
    CURRENT.store(c, Ordering::Relaxed);
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuCtxSynchronize() -> CUresult {
    SUCCESS
}
#[no_mangle]
pub unsafe extern "C" fn cuCtxGetDevice(d: *mut c_int) -> CUresult {
    unsafe { put(d, 0) }
}
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadData(m: *mut *mut c_void, _image: *const c_void) -> CUresult {
    unsafe { put(m, handle(&MODULE)) }
}
#[no_mangle]
pub unsafe extern "C" fn cuModuleLoadDataEx(
    m: *mut *mut c_void,
    _image: *const c_void,
    _n: c_uint,
    _options: *mut c_int,
    _values: *mut *mut c_void,
) -> CUresult {
    unsafe { put(m, handle(&MODULE)) }
}
#[no_mangle]
pub unsafe extern "C" fn cuModuleGetFunction(
    f: *mut *mut c_void,
    _m: *mut c_void,
    _name: *const c_char,
) -> CUresult {
    unsafe { put(f, handle(&FUNCTION)) }
}
#[no_mangle]
pub extern "C" fn cuModuleUnload(_m: *mut c_void) -> CUresult {
    SUCCESS
}
/// `saxpy`'s parameters: a `u32`, an `f32` and two pointers.
#[no_mangle]
pub unsafe extern "C" fn cuFuncGetParamInfo(
    _f: *mut c_void,
    index: usize,
    offset: *mut usize,
    size: *mut usize,
) -> CUresult {
    const SIZES: [usize; 4] = [4, 4, 8, 8];
    const OFFSETS: [usize; 4] = [0, 4, 8, 16];
    if index >= SIZES.len() {
        return INVALID_VALUE;
    }
    unsafe {
        put(offset, OFFSETS[index]);
        put(size, SIZES[index])
    }
}
#[no_mangle]
pub unsafe extern "C" fn cuFuncGetAttribute(v: *mut c_int, _a: c_int, _f: *mut c_void) -> CUresult {
    unsafe { put(v, 0) }
}
#[no_mangle]
pub extern "C" fn cuFuncSetAttribute(_f: *mut c_void, _a: c_int, _v: c_int) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuLaunchKernelEx(
    _config: *const c_void,
    _f: *mut c_void,
    _params: *mut *mut c_void,
    _extra: *mut *mut c_void,
) -> CUresult {
    if CAPTURING.load(Ordering::Relaxed) {
        LAST_NODE.store(
            NEXT_NODE.fetch_add(64, Ordering::Relaxed),
            Ordering::Relaxed,
        );
    }
    SUCCESS
}
/// What cudarc's launch builder calls (`examples/launch_overhead.rs` times it beside chevron).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn cuLaunchKernel(
    _f: *mut c_void,
    _gx: c_uint,
    _gy: c_uint,
    _gz: c_uint,
    _bx: c_uint,
    _by: c_uint,
    _bz: c_uint,
    _shared: c_uint,
    _stream: *mut c_void,
    _params: *mut *mut c_void,
    _extra: *mut *mut c_void,
) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuStreamSetAttribute(_s: *mut c_void, _id: c_int, _v: *const c_void) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuStreamSynchronize(_s: *mut c_void) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub unsafe extern "C" fn cuStreamCreate(s: *mut *mut c_void, _flags: c_uint) -> CUresult {
    unsafe { put(s, handle(&STREAM)) }
}
#[no_mangle]
pub unsafe extern "C" fn cuStreamCreateWithPriority(
    s: *mut *mut c_void,
    _flags: c_uint,
    _priority: c_int,
) -> CUresult {
    unsafe { put(s, handle(&STREAM)) }
}
#[no_mangle]
pub extern "C" fn cuStreamDestroy_v2(_s: *mut c_void) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuStreamWaitEvent(_s: *mut c_void, _e: *mut c_void, _flags: c_uint) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub unsafe extern "C" fn cuEventCreate(e: *mut *mut c_void, _flags: c_uint) -> CUresult {
    unsafe { put(e, handle(&EVENT)) }
}
#[no_mangle]
pub extern "C" fn cuEventRecord(_e: *mut c_void, _s: *mut c_void) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuEventDestroy_v2(_e: *mut c_void) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuEventSynchronize(_e: *mut c_void) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocAsync(p: *mut u64, bytes: usize, _s: *mut c_void) -> CUresult {
    unsafe { put(p, alloc(bytes)) }
}
#[no_mangle]
pub unsafe extern "C" fn cuMemAlloc_v2(p: *mut u64, bytes: usize) -> CUresult {
    unsafe { put(p, alloc(bytes)) }
}
#[no_mangle]
pub extern "C" fn cuMemFreeAsync(_p: u64, _s: *mut c_void) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuMemFree_v2(_p: u64) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuMemsetD8Async(_p: u64, _v: u8, _n: usize, _s: *mut c_void) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuMemcpyHtoDAsync_v2(
    _d: u64,
    _h: *const c_void,
    _n: usize,
    _s: *mut c_void,
) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(
    h: *mut c_void,
    _d: u64,
    n: usize,
    _s: *mut c_void,
) -> CUresult {
    unsafe { core::ptr::write_bytes(h.cast::<u8>(), 0, n) };
    SUCCESS
}
#[no_mangle]
pub unsafe extern "C" fn cuGetErrorString(_e: CUresult, s: *mut *const c_char) -> CUresult {
    unsafe { put(s, c"stand-in driver".as_ptr()) }
}
#[no_mangle]
pub unsafe extern "C" fn cuGetErrorName(_e: CUresult, s: *mut *const c_char) -> CUresult {
    unsafe { put(s, c"CUDA_ERROR_STAND_IN".as_ptr()) }
}

// Graphs: capture, nodes, instantiation, updates and replays.

#[no_mangle]
pub extern "C" fn cuStreamBeginCapture_v2(_s: *mut c_void, _mode: c_int) -> CUresult {
    CAPTURING.store(true, Ordering::Relaxed);
    LAST_NODE.store(0, Ordering::Relaxed);
    SUCCESS
}
#[no_mangle]
pub unsafe extern "C" fn cuStreamEndCapture(_s: *mut c_void, g: *mut *mut c_void) -> CUresult {
    CAPTURING.store(false, Ordering::Relaxed);
    unsafe { put(g, handle(&GRAPH)) }
}
#[no_mangle]
pub unsafe extern "C" fn cuStreamIsCapturing(_s: *mut c_void, status: *mut c_int) -> CUresult {
    unsafe { put(status, CAPTURING.load(Ordering::Relaxed) as c_int) }
}
thread_local! {
    /// The dependency array `cuStreamGetCaptureInfo` returns (valid until the next call).
    static DEPS: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}
/// One capture (id 1); its dependency is the last node a launch added.
#[no_mangle]
pub unsafe extern "C" fn cuStreamGetCaptureInfo_v3(
    _s: *mut c_void,
    status: *mut c_int,
    id: *mut u64,
    graph: *mut *mut c_void,
    deps: *mut *const u64,
    edges: *mut *const c_void,
    count: *mut usize,
) -> CUresult {
    let node = LAST_NODE.load(Ordering::Relaxed);
    DEPS.set(node);
    unsafe {
        put(status, CAPTURING.load(Ordering::Relaxed) as c_int);
        if !id.is_null() {
            put(id, 1);
        }
        if !graph.is_null() {
            put(graph, handle(&GRAPH));
        }
        if !deps.is_null() {
            put(deps, DEPS.with(|d| d.as_ptr() as *const u64));
        }
        if !edges.is_null() {
            put(edges, core::ptr::null());
        }
        put(count, usize::from(node != 0))
    }
}
/// `CUDA_KERNEL_NODE_PARAMS_v2`.
#[repr(C)]
pub struct KernelNodeParams {
    func: *mut c_void,
    grid: [c_uint; 3],
    block: [c_uint; 3],
    shared: c_uint,
    kernel_params: *mut *mut c_void,
    extra: *mut *mut c_void,
    kern: *mut c_void,
    ctx: *mut c_void,
}
/// The arguments a node reads back: `saxpy`'s, with two fake device pointers.
static NODE_N: u32 = 256;
static NODE_A: f32 = 1.0;
static NODE_X: u64 = 0x7f00_0000_0000;
static NODE_Y: u64 = 0x7f00_0000_1000;
struct Args([*const c_void; 4]);
// SAFETY: pointers to immutable statics.
unsafe impl Sync for Args {}
static NODE_ARGS: Args = Args([
    &NODE_N as *const u32 as *const c_void,
    &NODE_A as *const f32 as *const c_void,
    &NODE_X as *const u64 as *const c_void,
    &NODE_Y as *const u64 as *const c_void,
]);
#[no_mangle]
pub unsafe extern "C" fn cuGraphKernelNodeGetParams_v2(
    _node: *mut c_void,
    p: *mut KernelNodeParams,
) -> CUresult {
    unsafe {
        put(
            p,
            KernelNodeParams {
                func: handle(&FUNCTION),
                grid: [1, 1, 1],
                block: [256, 1, 1],
                shared: 0,
                kernel_params: NODE_ARGS.0.as_ptr() as *mut *mut c_void,
                extra: core::ptr::null_mut(),
                kern: core::ptr::null_mut(),
                ctx: handle(&CONTEXT),
            },
        )
    }
}
#[no_mangle]
pub extern "C" fn cuGraphKernelNodeSetParams_v2(
    _node: *mut c_void,
    _p: *const KernelNodeParams,
) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub unsafe extern "C" fn cuGraphInstantiateWithFlags(
    e: *mut *mut c_void,
    _g: *mut c_void,
    _flags: u64,
) -> CUresult {
    unsafe { put(e, handle(&EXEC)) }
}
/// Reads the arguments as the driver copies them: one load per parameter of `saxpy`.
#[no_mangle]
pub unsafe extern "C" fn cuGraphExecKernelNodeSetParams_v2(
    _exec: *mut c_void,
    _node: *mut c_void,
    p: *const KernelNodeParams,
) -> CUresult {
    let params = unsafe { (*p).kernel_params };
    if params.is_null() {
        return INVALID_VALUE;
    }
    unsafe {
        core::hint::black_box(*(*params as *const u32));
        core::hint::black_box(*(*params.add(1) as *const u32));
        core::hint::black_box(*(*params.add(2) as *const u64));
        core::hint::black_box(*(*params.add(3) as *const u64));
    }
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuGraphLaunch(_e: *mut c_void, _s: *mut c_void) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuGraphUpload(_e: *mut c_void, _s: *mut c_void) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuGraphExecDestroy(_e: *mut c_void) -> CUresult {
    SUCCESS
}
#[no_mangle]
pub extern "C" fn cuGraphDestroy(_g: *mut c_void) -> CUresult {
    SUCCESS
}
