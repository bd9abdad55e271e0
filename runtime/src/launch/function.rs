//! What the runtime learns and sets once per `CUfunction`, for typed and `dyn` launches alike:
//! the table of per-function facts (parameter sizes, the dynamic shared memory opted into,
//! whether non-portable clusters are allowed), the shared-memory opt-in (serialised per function)
//! and the non-portable-cluster opt-in.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use cudarc::driver::result as cu;
use cudarc::driver::{CudaContext, CudaFunction};

use crate::config::LaunchConfig;
use crate::driver;
use crate::driver::current::bind;
use crate::error::{Error, KernelName};
use crate::sys;

/// What the runtime learns or sets once per `CUfunction` (shared memory opt-in, non-portable
/// clusters, parameter sizes), for typed and `dyn` launches alike.
///
/// Keyed by the function handle in a fixed table read without a lock: a lookup is a few atomic
/// loads. Entries are never removed. `#[kernel]` modules are never unloaded, so their handles
/// are never reused; a handle of a module the user loaded, dropped and replaced could come back
/// for another function and find the old entry: a shared-memory opt-in then looks done (the
/// driver refuses the launch: an error, not a wrong launch) and the `dyn` parameter check
/// compares with the old function's sizes.
pub(crate) struct FunctionInfo {
    key: AtomicUsize,
    /// The dynamic shared memory the function is opted into.
    pub(crate) shared: SharedOptIn,
    /// Whether `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` is set.
    pub(crate) non_portable: AtomicBool,
    /// Each parameter's size from `cuFuncGetParamInfo`; `None` where that call is missing.
    pub(crate) params: OnceLock<Option<Box<[u32]>>>,
    /// The block the function was compiled for (its `.reqntid`), where chevron loaded it from a
    /// PTX that says so (a `Kernel`): what a launch in its own block shape (`_`) runs, which the
    /// driver does not report (`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK` stays 1024).
    pub(crate) own_block: OnceLock<[u32; 3]>,
}

impl FunctionInfo {
    const fn new(key: usize) -> Self {
        Self {
            key: AtomicUsize::new(key),
            shared: SharedOptIn::new(),
            non_portable: AtomicBool::new(false),
            params: OnceLock::new(),
            own_block: OnceLock::new(),
        }
    }

    /// `func`'s parameter sizes (`cuFuncGetParamInfo`, asked once; `ctx`, the function's
    /// context, is made current for that call); `None` where the driver lacks the call. A
    /// failure leaves them unknown, as if the call were missing. Once asked, one load in line.
    #[inline]
    pub(crate) fn param_sizes(
        &'static self,
        ctx: &CudaContext,
        func: &CudaFunction,
    ) -> Option<&'static [u32]> {
        match self.params.get() {
            Some(sizes) => sizes.as_deref(),
            None => self.ask_param_sizes(ctx, func),
        }
    }

    #[cold]
    #[inline(never)]
    fn ask_param_sizes(
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

/// The block a launch of `func` with `config` runs: the config's, or for a launch in the
/// kernel's own block shape (`_`, whose config holds the driver's placeholder (1, 1, 1)) the
/// `.reqntid` read when chevron loaded the function; `None` where that is not known (a
/// `CudaFunction` chevron did not load).
pub(crate) fn launch_block(
    func: &CudaFunction,
    config: &LaunchConfig<'_>,
) -> Option<crate::config::dim::Dim3> {
    if !config.uses_kernel_block() {
        return Some(config.block());
    }
    let [x, y, z] = *function_info(func).own_block.get()?;
    Some(crate::config::dim::Dim3::new(x, y, z))
}

/// How much dynamic shared memory one function allows (its
/// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, as far as chevron has checked or set it),
/// raised only, under concurrent launches too.
///
/// A launch asking for at most [`Self::covers`] needs nothing more: one atomic load. A launch
/// asking for more calls [`Self::raise`], which serialises the raises of one function: with two
/// threads asking 64 KiB and 100 KiB at once, each reading the driver's value and then setting
/// its own, the 64 KiB one could set last, leaving the function at 64 KiB while the cache said
/// 100 KiB, and later 100 KiB launches would skip the opt-in and fail. Under the lock the driver's
/// value is read after every earlier raise of the function has finished, so it only grows, and
/// the cache is published (with `Release`) only after the driver has the value.
pub(crate) struct SharedOptIn {
    covered: AtomicU32,
    raising: Mutex<()>,
}

impl SharedOptIn {
    pub(crate) const fn new() -> Self {
        Self {
            covered: AtomicU32::new(0),
            raising: Mutex::new(()),
        }
    }

    /// Whether launches of `bytes` need nothing more: the function allows at least that much.
    #[inline]
    pub(crate) fn covers(&self, bytes: u32) -> bool {
        bytes <= self.covered.load(Ordering::Acquire)
    }

    /// Makes the function allow `bytes`: `allowed` reads what it allows now (and may refuse
    /// `bytes`, e.g. over the device's limit), `set` raises that to `bytes`. Both run with this
    /// function's raises serialised, and not at all when another raise already covered `bytes`.
    pub(crate) fn raise<E>(
        &self,
        bytes: u32,
        allowed: impl FnOnce() -> Result<u32, E>,
        set: impl FnOnce(u32) -> Result<(), E>,
    ) -> Result<(), E> {
        let _raising = lock(&self.raising);
        if self.covers(bytes) {
            return Ok(());
        }
        if bytes > allowed()? {
            set(bytes)?;
        }
        // Under the lock, after the driver has it; `bytes` is over what was covered.
        self.covered.store(bytes, Ordering::Release);
        Ok(())
    }
}

/// A lock whose data stays consistent if a holder panicked (entries are only pushed, opt-ins
/// only raised after the driver has the value), so poisoning is ignored.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Functions served without a lock; more go to a locked list. A power of two (see [`home`]).
const INFO_SLOTS: usize = 64;

static INFO: [FunctionInfo; INFO_SLOTS] = [const { FunctionInfo::new(0) }; INFO_SLOTS];
static INFO_OVERFLOW: Mutex<Vec<&'static FunctionInfo>> = Mutex::new(Vec::new());

/// The slot where the search for `key` starts: a multiplicative hash of the handle (its top
/// bits), so that a program with many functions finds each in about one compare, not in a scan
/// of the entries made before it.
#[inline(always)]
fn home(key: usize) -> usize {
    const BITS: u32 = INFO_SLOTS.trailing_zeros();
    const _: () = assert!(INFO_SLOTS.is_power_of_two());
    ((key as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - BITS)) as usize
}

/// The entry of `func`, created on first use.
#[inline]
pub(crate) fn function_info(func: &CudaFunction) -> &'static FunctionInfo {
    info_for(func.cu_function() as usize)
}

/// The entry of the function with handle `key`. Each key's entry is the first free slot from
/// its [`home`] on, at the time it was made, and entries are never removed: a search from the
/// home that meets an empty slot before the key knows it is not there (or being made now, which
/// the cold path, under the lock, finds out).
#[inline]
fn info_for(key: usize) -> &'static FunctionInfo {
    let start = home(key);
    // The home itself first, in line: where a function is found unless its home was taken.
    let entry = &INFO[start];
    if entry.key.load(Ordering::Acquire) == key {
        return entry;
    }
    info_probe(key, start)
}

/// [`info_for`] past the home slot.
#[inline(never)]
fn info_probe(key: usize, start: usize) -> &'static FunctionInfo {
    for i in 0..INFO_SLOTS {
        let entry = &INFO[(start + i) % INFO_SLOTS];
        match entry.key.load(Ordering::Acquire) {
            k if k == key => return entry,
            0 => break,
            _ => {}
        }
    }
    function_info_cold(key)
}

#[cold]
fn function_info_cold(key: usize) -> &'static FunctionInfo {
    let mut overflow = lock(&INFO_OVERFLOW);
    let start = home(key);
    for i in 0..INFO_SLOTS {
        let entry = &INFO[(start + i) % INFO_SLOTS];
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
/// Raises of one function are serialised ([`SharedOptIn`]), so concurrent launches asking
/// different sizes leave it at the largest.
/// With CUDA 13.4, a launch whose `shared_memory_mode` (or else the function's) allows oversized
/// shared memory may go up to the device's oversized limit instead. The function's context must
/// be current.
#[inline]
pub(crate) fn ensure_shared(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    shared: u32,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
) -> Result<(), Error> {
    let info = function_info(func);
    if info.shared.covers(shared) {
        return Ok(());
    }
    opt_in_shared(ctx, func, info, shared, kernel, config)
}

#[cold]
#[inline(never)]
fn opt_in_shared(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    info: &FunctionInfo,
    shared: u32,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
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
    let allowed = || {
        // The function attribute calls want the function's context current; a launch may only
        // have assumed it.
        bind(ctx, kernel)?;
        let static_bytes = attribute(STATIC)?;
        #[cfg_attr(not(cuda_13040), allow(unused_mut))]
        let mut limit = ctx
            .attribute(
                sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )
            .map_err(|e| Error::driver("cuDeviceGetAttribute", kernel, e))?
            .max(0) as u32;
        #[cfg(cuda_13040)]
        if u64::from(static_bytes) + u64::from(shared) > u64::from(limit) {
            let mode = config.launch_value(
                <crate::config::attr::SharedMemoryMode as crate::config::attr::Attribute>::KIND.id,
            );
            if crate::launch::function_attr::oversized_allowed(
                func,
                mode.map(|v| crate::config::attr::u32_at(v, 0)),
            ) {
                use sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK as OVERSIZED;
                if let Ok(oversized) = ctx.attribute(OVERSIZED) {
                    limit = limit.max(oversized.max(0) as u32);
                }
            }
        }
        #[cfg(not(cuda_13040))]
        let _ = config;
        if u64::from(static_bytes) + u64::from(shared) > u64::from(limit) {
            return Err(Error::SharedMemoryTooLarge {
                kernel,
                static_bytes,
                dynamic_bytes: shared,
                limit,
            });
        }
        attribute(MAX_DYNAMIC)
    };
    let set = |bytes: u32| {
        let value = i32::try_from(bytes).unwrap_or(i32::MAX);
        // SAFETY: the function handle is live for as long as `func`.
        unsafe { cu::function::set_function_attribute(func.cu_function(), MAX_DYNAMIC, value) }
            .map_err(|e| Error::Driver {
                call: "cuFuncSetAttribute",
                kernel,
                attributes: "CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES".to_string(),
                source: e,
            })
    };
    info.shared.raise(shared, allowed, set)
}

/// Sets `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` on `func`, once per function:
/// later launches find the function's entry and read one flag. Called only for launches that
/// opted into a non-portable cluster and use one.
#[inline]
pub(crate) fn allow_non_portable_cluster(
    ctx: &CudaContext,
    func: &CudaFunction,
    kernel: KernelName,
) -> Result<(), Error> {
    let info = function_info(func);
    if info.non_portable.load(Ordering::Acquire) {
        return Ok(());
    }
    allow_non_portable_cold(ctx, func, info, kernel)
}

#[cold]
#[inline(never)]
fn allow_non_portable_cold(
    ctx: &CudaContext,
    func: &CudaFunction,
    info: &FunctionInfo,
    kernel: KernelName,
) -> Result<(), Error> {
    bind(ctx, kernel)?;
    let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED;
    // SAFETY: the function handle is live for as long as `func`.
    unsafe { cu::function::set_function_attribute(func.cu_function(), attr, 1) }
        .map_err(|e| Error::driver("cuFuncSetAttribute", kernel, e))?;
    // Setting it twice from two threads is harmless.
    info.non_portable.store(true, Ordering::Release);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every function gets an entry of its own, found again by later lookups, in the slots and
    /// past them (more functions than slots), from threads racing to make them; a lookup from
    /// the home slot finds a function whatever the slots made before it.
    #[test]
    fn each_function_has_one_entry() {
        // Fake handles, far from any real one (no driver in these tests), spaced like pointers.
        let keys: Vec<usize> = (0..3 * INFO_SLOTS)
            .map(|i| 0x5eed_0000_0000 + 48 * i)
            .collect();
        let made: Vec<Vec<usize>> = std::thread::scope(|s| {
            let workers: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        keys.iter()
                            .map(|&k| info_for(k) as *const FunctionInfo as usize)
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).collect()
        });
        for threads in &made[1..] {
            assert_eq!(threads, &made[0], "every thread got the same entries");
        }
        let mut distinct = made[0].clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert_eq!(distinct.len(), keys.len(), "one entry per function");
        for (&k, &entry) in keys.iter().zip(&made[0]) {
            assert_eq!(info_for(k) as *const FunctionInfo as usize, entry);
            assert_eq!(info_for(k).key.load(Ordering::Relaxed), k);
        }
        // The homes spread: the handles above do not all start at one slot.
        let homes: std::collections::HashSet<usize> = keys.iter().map(|&k| home(k)).collect();
        assert!(homes.len() > INFO_SLOTS / 2, "{} homes", homes.len());
    }

    /// Threads raising one function's shared memory to different sizes at once, against a fake
    /// driver attribute that reads, yields and then writes (the window where the unserialised
    /// protocol lost the larger value): after every round the attribute is the largest size asked,
    /// and every raise returned only once the attribute covered its own size.
    #[test]
    fn concurrent_shared_memory_raises_only_grow() {
        use std::sync::Barrier;
        const THREADS: usize = 8;
        const ROUNDS: usize = 200;
        // 48 KiB, the default, then sizes whose largest is asked by a thread in the middle.
        let sizes: [u32; THREADS] = [64, 100, 72, 227, 80, 96, 200, 49].map(|k| k * 1024);
        let largest = *sizes.iter().max().unwrap();
        for round in 0..ROUNDS {
            let opt_in = SharedOptIn::new();
            let attribute = AtomicU32::new(48 * 1024);
            let sets = AtomicUsize::new(0);
            let start = Barrier::new(THREADS);
            std::thread::scope(|scope| {
                for (t, &bytes) in sizes.iter().enumerate() {
                    let (opt_in, attribute, sets, start) = (&opt_in, &attribute, &sets, &start);
                    scope.spawn(move || {
                        start.wait();
                        // Rotate who goes first from round to round.
                        for _ in 0..(t + round) % THREADS {
                            std::thread::yield_now();
                        }
                        if opt_in.covers(bytes) {
                            return;
                        }
                        let r: Result<(), ()> = opt_in.raise(
                            bytes,
                            || {
                                let now = attribute.load(Ordering::SeqCst);
                                std::thread::yield_now();
                                Ok(now)
                            },
                            |b| {
                                std::thread::yield_now();
                                attribute.store(b, Ordering::SeqCst);
                                sets.fetch_add(1, Ordering::SeqCst);
                                Ok(())
                            },
                        );
                        r.unwrap();
                        let now = attribute.load(Ordering::SeqCst);
                        assert!(
                            now >= bytes,
                            "round {round}: raised to {bytes}, attribute {now}"
                        );
                    });
                }
            });
            let now = attribute.load(Ordering::SeqCst);
            assert_eq!(now, largest, "round {round}: the attribute shrank");
            assert!(opt_in.covers(largest) && !opt_in.covers(largest + 1));
            // Each set raised the attribute: at most one per distinct size, at least one.
            let sets = sets.load(Ordering::SeqCst);
            assert!((1..=THREADS).contains(&sets), "round {round}: {sets} sets");
        }
    }

    /// A refused raise (over the device's limit) changes nothing; a later smaller one works.
    #[test]
    fn a_refused_raise_leaves_the_opt_in_as_it_was() {
        let opt_in = SharedOptIn::new();
        let r: Result<(), &str> = opt_in.raise(300 * 1024, || Err("over the limit"), |_| Ok(()));
        assert_eq!(r, Err("over the limit"));
        assert!(!opt_in.covers(1));
        let mut set = None;
        let r: Result<(), &str> = opt_in.raise(
            64 * 1024,
            || Ok(48 * 1024),
            |b| {
                set = Some(b);
                Ok(())
            },
        );
        assert_eq!((r, set), (Ok(()), Some(64 * 1024)));
        assert!(opt_in.covers(64 * 1024) && !opt_in.covers(64 * 1024 + 1));
        // Already allowed by the driver: recorded without a set.
        let r: Result<(), &str> =
            opt_in.raise(90 * 1024, || Ok(96 * 1024), |_| Err("no set expected"));
        assert_eq!(r, Ok(()));
        assert!(opt_in.covers(90 * 1024));
    }
}
