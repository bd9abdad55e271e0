//! What the runtime learns and sets once per `CUfunction`, for typed and `dyn` launches alike:
//! the table of per-function facts (parameter sizes, the dynamic shared memory opted into), the
//! shared-memory opt-in and the non-portable-cluster opt-in.

use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use cudarc::driver::result::{self as cu, DriverError};
use cudarc::driver::{CudaContext, CudaFunction};

use crate::driver;
use crate::error::{Error, KernelName};
use crate::sys;

/// What the runtime learns once per `CUfunction` from the driver (shared memory opt-in,
/// parameter sizes), for typed and `dyn` launches alike.
///
/// Keyed by the function handle in a fixed table read without a lock: a lookup is a few atomic
/// loads. Entries are never removed. `#[kernel]` modules are never unloaded, so their handles
/// are never reused; a handle of a module the user loaded, dropped and replaced could come back
/// for another function and find the old entry: a shared-memory opt-in then looks done (the
/// driver refuses the launch: an error, not a wrong launch) and the `dyn` parameter check
/// compares with the old function's sizes.
pub(crate) struct FunctionInfo {
    key: AtomicUsize,
    /// The largest `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` checked and set so far;
    /// launches asking for at most this much need nothing more.
    pub(crate) dynamic_shared: AtomicU32,
    /// Each parameter's size from `cuFuncGetParamInfo`; `None` where that call is missing.
    pub(crate) params: OnceLock<Option<Box<[u32]>>>,
}

impl FunctionInfo {
    const fn new(key: usize) -> Self {
        Self {
            key: AtomicUsize::new(key),
            dynamic_shared: AtomicU32::new(0),
            params: OnceLock::new(),
        }
    }

    /// `func`'s parameter sizes (`cuFuncGetParamInfo`, asked once; `ctx`, the function's
    /// context, is made current for that call); `None` where the driver lacks the call. A
    /// failure leaves them unknown, as if the call were missing.
    pub(crate) fn param_sizes(
        &'static self,
        ctx: &CudaContext,
        func: &CudaFunction,
    ) -> Option<&'static [u32]> {
        self.params
            .get_or_init(|| {
                let _ = ctx.bind_to_thread();
                driver::param_sizes(func)
                    .ok()
                    .flatten()
                    .map(Vec::into_boxed_slice)
            })
            .as_deref()
    }
}

/// Functions served without a lock; more go to a locked list.
const INFO_SLOTS: usize = 64;

static INFO: [FunctionInfo; INFO_SLOTS] = [const { FunctionInfo::new(0) }; INFO_SLOTS];
static INFO_OVERFLOW: Mutex<Vec<&'static FunctionInfo>> = Mutex::new(Vec::new());

/// The entry of `func`, created on first use.
#[inline]
pub(crate) fn function_info(func: &CudaFunction) -> &'static FunctionInfo {
    let key = func.cu_function() as usize;
    for entry in &INFO {
        match entry.key.load(Ordering::Acquire) {
            k if k == key => return entry,
            // Entries fill in order, so the first empty one ends the search.
            0 => break,
            _ => {}
        }
    }
    function_info_cold(key)
}

#[cold]
fn function_info_cold(key: usize) -> &'static FunctionInfo {
    // A panic elsewhere while the list was locked leaves it consistent (entries are only
    // pushed), so poisoning is ignored.
    let mut overflow = INFO_OVERFLOW.lock().unwrap_or_else(|p| p.into_inner());
    for entry in &INFO {
        match entry.key.load(Ordering::Acquire) {
            k if k == key => return entry,
            0 => {
                // Writers hold INFO_OVERFLOW; the other fields are already initialized, so
                // publishing the key publishes a complete entry.
                entry.key.store(key, Ordering::Release);
                return entry;
            }
            _ => {}
        }
    }
    if let Some(entry) = overflow
        .iter()
        .find(|e| e.key.load(Ordering::Relaxed) == key)
    {
        return entry;
    }
    let entry: &'static FunctionInfo = Box::leak(Box::new(FunctionInfo::new(key)));
    overflow.push(entry);
    entry
}

/// Makes `shared` bytes of dynamic shared memory available to `func`: above the driver's default
/// (48 KiB minus the kernel's static shared memory) it needs
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, set here the first time a launch asks for
/// that much; static + dynamic over the device's opt-in limit is refused with the numbers.
/// Afterwards a launch asking for at most as much finds the function's entry and compares once.
/// The function's context must be current.
#[inline]
pub(crate) fn ensure_shared(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    shared: u32,
    kernel: KernelName,
) -> Result<(), Error> {
    let info = function_info(func);
    if shared <= info.dynamic_shared.load(Ordering::Relaxed) {
        return Ok(());
    }
    opt_in_shared(ctx, func, info, shared, kernel)
}

#[cold]
fn opt_in_shared(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    info: &FunctionInfo,
    shared: u32,
    kernel: KernelName,
) -> Result<(), Error> {
    use sys::CUfunction_attribute::{
        CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES as MAX_DYNAMIC,
        CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES as STATIC,
    };
    let attribute = |attr| {
        // SAFETY: the function handle is live for as long as `func`.
        unsafe { cu::function::get_function_attribute(func.cu_function(), attr) }
            .map(|v| v.max(0) as u32)
            .map_err(|e| Error::driver("cuFuncGetAttribute", kernel, e))
    };
    let static_bytes = attribute(STATIC)?;
    let limit = ctx
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        .map_err(|e| Error::driver("cuDeviceGetAttribute", kernel, e))?
        .max(0) as u32;
    if u64::from(static_bytes) + u64::from(shared) > u64::from(limit) {
        return Err(Error::SharedMemoryTooLarge {
            kernel,
            static_bytes,
            dynamic_bytes: shared,
            limit,
        });
    }
    if shared > attribute(MAX_DYNAMIC)? {
        let value = i32::try_from(shared).unwrap_or(i32::MAX);
        // SAFETY: the function handle is live for as long as `func`.
        unsafe { cu::function::set_function_attribute(func.cu_function(), MAX_DYNAMIC, value) }
            .map_err(|e| Error::Driver {
                call: "cuFuncSetAttribute",
                kernel,
                attributes: "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES".to_string(),
                source: e,
            })?;
    }
    info.dynamic_shared.fetch_max(shared, Ordering::Relaxed);
    Ok(())
}

/// Functions that have `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` set, by handle.
static NON_PORTABLE: RwLock<Vec<usize>> = RwLock::new(Vec::new());

/// Sets `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` on `func`, once per function:
/// later calls only find it in a short list. Called only for launches that opted into a
/// non-portable cluster and use one.
pub(crate) fn allow_non_portable_cluster(func: &CudaFunction) -> Result<(), DriverError> {
    let handle = func.cu_function() as usize;
    if NON_PORTABLE.read().is_ok_and(|set| set.contains(&handle)) {
        return Ok(());
    }
    let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED;
    // SAFETY: the function handle is live for as long as `func`.
    unsafe { cu::function::set_function_attribute(func.cu_function(), attr, 1) }?;
    if let Ok(mut set) = NON_PORTABLE.write() {
        if !set.contains(&handle) {
            set.push(handle);
        }
    }
    Ok(())
}
