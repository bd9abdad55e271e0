//! SM partitions of a device (green contexts) as a launch target: [`Partition`], streams whose
//! kernels run only on the partition's SMs, and the checks that depend on how many SMs a launch
//! may use (cooperative residency, [`Partition::max_cooperative_grid`],
//! [`Partition::occupancy`], [`Partition::max_active_clusters`]) made against the partition.
//!
//! How a partition is made (CUDA 12.5): the device's SMs (`cuDeviceGetDevResource`), split into
//! a group of at least the SMs asked for and the rest (`cuDevSmResourceSplitByCount`), one green
//! context per part (`cuDevResourceGenerateDesc`, `cuGreenCtxCreate`), streams of each
//! (`cuGreenCtxStreamCreate`).
//!
//! Ownership: a green context is not a context cudarc can own. `cuCtxFromGreenCtx` gives a
//! `CUcontext` for it, but cudarc's `CudaContext` destroys a non-primary context with
//! `cuCtxDestroy` when dropped, which is wrong for that handle (the green context owns it and is
//! destroyed with `cuGreenCtxDestroy`). So chevron never hands a green context to cudarc: the
//! [`Partition`] owns it and its streams, and the streams it gives out are cudarc streams of the
//! device's primary context (`CudaContext::wrap_borrowed_stream`, which never destroys the
//! stream). Kernels, buffers and events therefore stay the primary context's, as on any other
//! stream of the device: modules are loaded once per device, not per partition, and a buffer
//! moves between a partition's stream and a device stream with cudarc's usual event ordering.
//! The driver runs a launch on such a stream on the green context's SMs.

use core::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaStream};

use crate::config::dim::Dim3;
use crate::config::LaunchConfig;
use crate::error::{Error, KernelName};
use crate::launch::occupancy::Occupancy;
use crate::sys;

// Below CUDA 12.5 no partition can be made: what only a partition uses is unused.
#[cfg_attr(not(cuda_12050), allow(dead_code))]
/// Partitions alive in this process: while there are none, a launch skips the partition checks
/// with one relaxed load.
static ALIVE: AtomicUsize = AtomicUsize::new(0);

/// A partition of a device's SMs (a CUDA green context): the kernels launched on its streams
/// ([`Partition::new_stream`]) run only on its SMs, so that a latency-critical kernel on one
/// partition is not queued behind a flood of long kernels on the rest. Made in pairs by
/// [`Partition::split`]: one of the SMs asked for and one of the others.
///
/// What depends on the number of SMs is checked against the partition: a `cooperative` launch
/// on a partition's stream whose grid does not fit the partition at once is
/// [`Error::CooperativeTooLargeForPartition`] (both SM counts in the message) before anything
/// is launched; [`Partition::max_cooperative_grid`], [`Partition::occupancy`] and
/// [`Partition::max_active_clusters`] answer for the partition, as their device-wide forms
/// ([`crate::max_cooperative_grid`], …) answer for the device. Stream attributes (`sync`,
/// `priority`, …) are set on a partition's streams as on any stream.
///
/// Kernels, buffers and events are the device's primary context's ([`Partition::context`]):
/// load and allocate as for any stream of the device, and pass a partition's stream to
/// `launch!` like any other.
///
/// Dropping a partition waits for its streams and destroys them and its green context, unless a
/// stream it gave out is still held elsewhere (an `Arc` clone, a buffer allocated on it): then
/// the partition is left alive, with its streams, until the process ends, so that nothing held
/// refers to a destroyed stream. Allocate buffers on a stream of the device, not of a partition,
/// to let the partition go when dropped.
///
/// ```no_run
/// # fn main() -> Result<(), chevron::Error> {
/// use chevron::{context, Partition};
///
/// let ctx = context(0)?;
/// let (mut urgent, mut rest) = Partition::split(&ctx, 8)?; // 8 SMs (or the driver's minimum)
/// println!("{} + {} of {} SMs", urgent.sms(), rest.sms(), urgent.device_sms());
/// let probe_stream = urgent.new_stream()?; // launch!(probe<<<1, 32, &probe_stream>>>(…))
/// let flood_stream = rest.new_stream()?; // the long kernels, on the other SMs
/// # let _ = (probe_stream, flood_stream); Ok(()) }
/// ```
pub struct Partition {
    #[cfg(cuda_12050)]
    green: sys::CUgreenCtx,
    /// The device's primary context: what the partition's streams are cudarc streams of.
    ctx: Arc<CudaContext>,
    sms: u32,
    device_sms: u32,
    /// Every stream given out, destroyed with the partition.
    streams: Vec<Arc<CudaStream>>,
}

// SAFETY: the green context is touched only through `&mut self` (making streams) and in `Drop`;
// `&self` methods read the numbers kept at creation or call the driver on the primary context.
unsafe impl Send for Partition {}
// SAFETY: as above.
unsafe impl Sync for Partition {}

fn partition_error(message: String) -> Error {
    Error::Partition { message }
}

impl Partition {
    /// Splits the SMs of `ctx`'s device in two partitions: the first of at least `sms` SMs (the
    /// driver rounds up to its granularity, 8 SMs on compute capability 9.0, and gives at least
    /// its minimum), the second of the rest. `ctx` is the device's primary context
    /// ([`crate::context`]), whose kernels and buffers the partitions' streams use.
    ///
    /// `Error::Partition` when `sms` is 0 or leaves no SMs for the rest (with the numbers), when
    /// the CUDA version (12.5, feature `cuda-12050`) or the driver has no green contexts, or
    /// when `ctx` is not a primary context; `Error::Driver` when a driver call fails.
    pub fn split(ctx: &Arc<CudaContext>, sms: u32) -> Result<(Partition, Partition), Error> {
        #[cfg(cuda_12050)]
        {
            split_impl(ctx, sms)
        }
        #[cfg(not(cuda_12050))]
        {
            let _ = (ctx, sms);
            Err(partition_error(
                "SM partitions (green contexts) need CUDA 12.5: use feature cuda-12050 or later"
                    .to_string(),
            ))
        }
    }

    /// The partition's SMs.
    pub fn sms(&self) -> u32 {
        self.sms
    }

    /// The device's SMs.
    pub fn device_sms(&self) -> u32 {
        self.device_sms
    }

    /// The device's primary context: the context of the partition's streams, kernels and
    /// buffers.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The driver's green context (owned by this value: do not destroy it, and do not give its
    /// `cuCtxFromGreenCtx` context to cudarc's `CudaContext`, whose drop would destroy it).
    #[cfg(cuda_12050)]
    pub fn cu_green_ctx(&self) -> sys::CUgreenCtx {
        self.green
    }

    /// A new non-blocking stream whose kernels run on this partition's SMs
    /// (`cuGreenCtxStreamCreate`), at the default priority. It is a cudarc stream of the
    /// device's primary context: launch on it, allocate and copy with it, capture it, as any
    /// stream. Destroyed with the partition.
    pub fn new_stream(&mut self) -> Result<Arc<CudaStream>, Error> {
        self.new_stream_with_priority(0)
    }

    /// [`Partition::new_stream`] with stream priority `priority` (lower numbers are higher
    /// priorities; the device's range clamps it).
    pub fn new_stream_with_priority(&mut self, priority: i32) -> Result<Arc<CudaStream>, Error> {
        #[cfg(cuda_12050)]
        {
            let call = |e| Error::driver("cuGreenCtxStreamCreate", KernelName(None), e);
            self.ctx
                .bind_to_thread()
                .map_err(|e| Error::driver("cuCtxSetCurrent", KernelName(None), e))?;
            // SAFETY: the green context is live while `self` is.
            let raw = unsafe { crate::driver::green_stream(self.green, priority) }.map_err(call)?;
            // SAFETY: the stream runs kernels of the device's primary context (a green
            // context's stream does: it shares the primary context's modules and memory); it
            // stays alive while any clone of the wrapper may be used (see `Drop`).
            let stream = unsafe { self.ctx.wrap_borrowed_stream(raw) };
            self.streams.push(stream.clone());
            Ok(stream)
        }
        #[cfg(not(cuda_12050))]
        {
            let _ = priority;
            Err(partition_error(
                "SM partitions (green contexts) need CUDA 12.5: use feature cuda-12050 or later"
                    .to_string(),
            ))
        }
    }

    /// [`crate::occupancy()`] of `func` for `config` on this partition: the same blocks per SM,
    /// with [`Occupancy::sms`] the partition's, so that
    /// [`Occupancy::co_resident_blocks`] is what the partition holds at once.
    pub fn occupancy(
        &self,
        func: &CudaFunction,
        config: &LaunchConfig<'_>,
    ) -> Result<Occupancy, Error> {
        let device = crate::launch::occupancy::occupancy(&self.ctx, func, config)?;
        Ok(Occupancy {
            sms: self.sms,
            ..device
        })
    }

    /// The largest grid a `cooperative` launch of `func` with blocks of `block` and `shared`
    /// bytes of dynamic shared memory may have on this partition's streams: the partition's
    /// SMs × blocks per SM (the device-wide [`crate::max_cooperative_grid`] uses the device's
    /// SMs). A larger cooperative launch on a partition's stream is
    /// [`Error::CooperativeTooLargeForPartition`].
    pub fn max_cooperative_grid(
        &self,
        func: &CudaFunction,
        block: impl Into<Dim3>,
        shared: u32,
    ) -> Result<u32, Error> {
        let block = block.into();
        let config = LaunchConfig::new(1, block).shared(shared);
        let occupancy = self.occupancy(func, &config)?;
        Ok(self.sms.saturating_mul(occupancy.blocks_per_sm))
    }

    /// How many clusters of `config` this partition holds at once: the driver's
    /// `cuOccupancyMaxActiveClusters` asked for a stream of the partition, and at most what the
    /// partition's SMs hold at the kernel's blocks per SM (`sms × blocks per SM / cluster
    /// blocks`), which bounds the driver's answer where it counts the whole device. An upper
    /// bound where the driver counts the device: clusters also need their SMs within one GPC.
    pub fn max_active_clusters(
        &self,
        func: &CudaFunction,
        config: &LaunchConfig<'_>,
    ) -> Result<u32, Error> {
        let device = crate::launch::occupancy::max_active_clusters(&self.ctx, func, config)?;
        let by_stream = match self.streams.first() {
            Some(stream) => {
                crate::launch::occupancy::max_active_clusters_on(&self.ctx, func, config, stream)?
            }
            None => device,
        };
        let cluster = match config.cluster() {
            Some(c) => c.volume().max(1),
            // A compiled-in cluster: the device's answer in blocks per cluster is unknown here;
            // the driver's answers are all there is.
            None => return Ok(by_stream.min(device)),
        };
        let occupancy = self.occupancy(func, config)?;
        let by_sms = u64::from(self.sms) * u64::from(occupancy.blocks_per_sm) / cluster;
        Ok(by_stream
            .min(device)
            .min(u32::try_from(by_sms).unwrap_or(u32::MAX)))
    }
}

#[cfg(cuda_12050)]
fn split_impl(ctx: &Arc<CudaContext>, sms: u32) -> Result<(Partition, Partition), Error> {
    use crate::driver;
    let kernel = KernelName(None);
    crate::driver::device::ensure_driver()?;
    let version =
        driver::driver_version().map_err(|e| Error::driver("cuDriverGetVersion", kernel, e))?;
    if version < 12050 {
        return Err(partition_error(format!(
            "SM partitions (green contexts) need a CUDA 12.5 driver; this one is {}.{}",
            version / 1000,
            version % 1000 / 10
        )));
    }
    if !ctx.is_primary() {
        return Err(partition_error(
            "split the SMs of a device's primary context (`chevron::context`): the partitions' \
             streams use its kernels and buffers"
                .to_string(),
        ));
    }
    if sms == 0 {
        return Err(partition_error(
            "a partition of 0 SMs: ask for 1 or more (the driver rounds up to its granularity)"
                .to_string(),
        ));
    }
    ctx.bind_to_thread()
        .map_err(|e| Error::driver("cuCtxSetCurrent", kernel, e))?;
    let dev = ctx.cu_device();
    let device_res = driver::device_sm_resource(dev)
        .map_err(|e| Error::driver("cuDeviceGetDevResource", kernel, e))?;
    let device_sms = driver::sm_count(&device_res);
    if sms >= device_sms {
        return Err(partition_error(format!(
            "a partition of {sms} SMs leaves none of the device's {device_sms} for the rest: ask \
             for fewer"
        )));
    }
    let (group, rest) = driver::split_sms(&device_res, sms)
        .map_err(|e| Error::driver("cuDevSmResourceSplitByCount", kernel, e))?;
    let (group_sms, rest_sms) = (driver::sm_count(&group), driver::sm_count(&rest));
    if group_sms < sms || rest_sms == 0 {
        return Err(partition_error(format!(
            "asked for {sms} of the device's {device_sms} SMs, the driver's split gives \
             {group_sms} and leaves {rest_sms} for the rest: ask for fewer"
        )));
    }
    let make = |res: &sys::CUdevResource, count: u32| -> Result<Partition, Error> {
        let green = driver::green_context(dev, res)
            .map_err(|e| Error::driver("cuGreenCtxCreate", kernel, e))?;
        ALIVE.fetch_add(1, Ordering::Relaxed);
        Ok(Partition {
            green,
            ctx: ctx.clone(),
            sms: count,
            device_sms,
            streams: Vec::new(),
        })
    };
    let first = make(&group, group_sms)?;
    let second = make(&rest, rest_sms)?;
    Ok((first, second))
}

impl Drop for Partition {
    fn drop(&mut self) {
        #[cfg(cuda_12050)]
        {
            // A stream still held elsewhere: leave the partition alive rather than have it
            // refer to a destroyed stream.
            if self.streams.iter().any(|s| Arc::strong_count(s) > 1) {
                let streams = core::mem::take(&mut self.streams);
                core::mem::forget(streams);
                return;
            }
            let _ = self.ctx.bind_to_thread();
            for stream in self.streams.drain(..) {
                let _ = stream.synchronize();
                let raw = stream.cu_stream();
                drop(stream);
                // SAFETY: the last wrapper of the stream was just dropped (the count was 1).
                let _ = unsafe { crate::driver::stream_destroy(raw) };
            }
            // SAFETY: its streams are destroyed; nothing else holds the green context.
            let _ = unsafe { crate::driver::green_context_destroy(self.green) };
            ALIVE.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl core::fmt::Debug for Partition {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Partition")
            .field("sms", &self.sms)
            .field("device_sms", &self.device_sms)
            .field("streams", &self.streams.len())
            .finish_non_exhaustive()
    }
}

/// The SMs a launch on `stream` may use: its partition's for a stream of a [`Partition`] (or
/// any other stream of a green context), the device's otherwise.
pub fn stream_sms(stream: &CudaStream) -> Result<u32, Error> {
    let kernel = KernelName(None);
    #[cfg(cuda_12050)]
    if let Some((sms, _)) = stream_partition(stream, kernel)? {
        return Ok(sms);
    }
    stream
        .context()
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .map(|v| v.max(0) as u32)
        .map_err(|e| Error::driver("cuDeviceGetAttribute", kernel, e))
}

/// `(partition SMs, device SMs)` when `stream` runs on a green context; `None` for a stream of
/// a whole device (and on a driver without green contexts).
#[cfg(cuda_12050)]
pub(crate) fn stream_partition(
    stream: &CudaStream,
    kernel: KernelName,
) -> Result<Option<(u32, u32)>, Error> {
    if crate::driver::driver_version().unwrap_or(0) < 12050 {
        return Ok(None);
    }
    let green = crate::driver::stream_green_context(stream)
        .map_err(|e| Error::driver("cuStreamGetGreenCtx", kernel, e))?;
    if green.is_null() {
        return Ok(None);
    }
    // SAFETY: the stream's green context is live while the stream is usable.
    let sms = unsafe { crate::driver::green_context_sms(green) }
        .map_err(|e| Error::driver("cuGreenCtxGetDevResource", kernel, e))?;
    let device = stream
        .context()
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .map_err(|e| Error::driver("cuDeviceGetAttribute", kernel, e))?;
    Ok(Some((sms, device.max(0) as u32)))
}

/// The partition check of a launch: nothing but one relaxed load while no [`Partition`] is
/// alive; afterwards, for a `cooperative` launch only, its grid against what the stream's
/// partition holds at once.
#[inline(always)]
pub(crate) fn check_launch(
    stream: &CudaStream,
    func: &CudaFunction,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
) -> Result<(), Error> {
    if ALIVE.load(Ordering::Relaxed) == 0 {
        return Ok(());
    }
    check_cooperative(stream, func, kernel, config)
}

#[cold]
#[inline(never)]
fn check_cooperative(
    stream: &CudaStream,
    func: &CudaFunction,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
) -> Result<(), Error> {
    if !config.has::<crate::config::attr::Cooperative>() {
        return Ok(());
    }
    #[cfg(cuda_12050)]
    if let Some(e) = cooperative_too_large(stream, func, kernel, config)? {
        return Err(e);
    }
    #[cfg(not(cuda_12050))]
    let _ = (stream, func, kernel);
    Ok(())
}

/// The error for a cooperative launch on a partition's stream whose grid the partition does not
/// hold at once; `None` when it fits or the stream is not a partition's. Shared with the
/// explanation of a launch the driver refused.
#[cfg(cuda_12050)]
pub(crate) fn cooperative_too_large(
    stream: &CudaStream,
    func: &CudaFunction,
    kernel: KernelName,
    config: &LaunchConfig<'_>,
) -> Result<Option<Error>, Error> {
    let Some((partition_sms, device_sms)) = stream_partition(stream, kernel)? else {
        return Ok(None);
    };
    let shared = config.shared_bytes();
    if shared > 0 {
        crate::launch::function::ensure_shared(stream.context(), func, shared, kernel, config)?;
    }
    // In the kernel's own block shape, the compiled-in block; unknown (a function chevron did
    // not load), the driver decides alone rather than against the placeholder (1, 1, 1).
    let Some(block) = crate::launch::function::launch_block(func, config) else {
        return Ok(None);
    };
    let per_sm = func
        .occupancy_max_active_blocks_per_multiprocessor(
            u32::try_from(block.volume()).unwrap_or(u32::MAX),
            shared as usize,
            None,
        )
        .map_err(|e| Error::driver("cuOccupancyMaxActiveBlocksPerMultiprocessor", kernel, e))?;
    let co_resident = u64::from(partition_sms) * u64::from(per_sm);
    let requested = config.grid().volume();
    if requested <= co_resident {
        return Ok(None);
    }
    Ok(Some(Error::CooperativeTooLargeForPartition {
        kernel,
        requested,
        co_resident,
        partition_sms,
        device_sms,
        per_sm,
    }))
}
