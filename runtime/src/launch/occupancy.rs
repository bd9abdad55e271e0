//! Occupancy queries that honour a launch configuration: its block, shared memory and launch
//! attributes (a cluster given at run time included, which cudarc's helpers leave out, so that
//! `cuOccupancyMaxActiveClusters` refuses them).
//!
//! Each query first makes the config's dynamic shared memory available to the function (the
//! opt-in a launch would make above 48 KiB), so that it answers for the launch as it will run.

use std::sync::Arc;

use cudarc::driver::result as cu;
use cudarc::driver::{CudaContext, CudaFunction};

use crate::config::dim::Dim3;
use crate::config::LaunchConfig;
use crate::driver;
use crate::driver::device::ensure_driver;
use crate::error::{Error, KernelName};
use crate::launch::function::{ensure_shared, launch_block};
use crate::sys;

use sys::CUdevice_attribute as A;

/// How many blocks of a kernel fit on one multiprocessor at a given block size and shared
/// memory, from `cuOccupancyMaxActiveBlocksPerMultiprocessor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Occupancy {
    /// Blocks resident on one multiprocessor at once.
    pub blocks_per_sm: u32,
    /// Multiprocessors on the device (`CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT`).
    pub sms: u32,
    /// Warps resident on one multiprocessor: `blocks_per_sm` × warps per block.
    pub active_warps_per_sm: u32,
    /// The most warps one multiprocessor holds
    /// (`CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR` / warp size).
    pub max_warps_per_sm: u32,
    /// The resource that stops one more block from fitting, when a simple per-resource bound
    /// equals the driver's answer; `None` when none does.
    pub limited_by: Option<OccupancyLimit>,
}

impl Occupancy {
    /// Blocks resident on the whole device at once: `sms × blocks_per_sm`, the largest grid a
    /// cooperative launch of this configuration may have.
    pub fn co_resident_blocks(&self) -> u64 {
        u64::from(self.sms) * u64::from(self.blocks_per_sm)
    }

    /// Active warps over the most a multiprocessor holds, in `0.0..=1.0`.
    pub fn ratio(&self) -> f64 {
        if self.max_warps_per_sm == 0 {
            0.0
        } else {
            f64::from(self.active_warps_per_sm) / f64::from(self.max_warps_per_sm)
        }
    }
}

/// What limits the blocks per multiprocessor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OccupancyLimit {
    /// Registers: the kernel's registers per thread × the block's threads.
    Registers,
    /// Shared memory: static + dynamic (+ the driver's reserve) per block.
    SharedMemory,
    /// Threads (warps) per multiprocessor.
    Threads,
    /// The most blocks one multiprocessor holds, however small.
    Blocks,
}

/// [`Occupancy`] of `func` in `ctx` for `config`'s block and shared memory.
///
/// ```no_run
/// # fn main() -> Result<(), chevron::Error> {
/// # let (ctx, f): (std::sync::Arc<chevron::cudarc::driver::CudaContext>, chevron::cudarc::driver::CudaFunction) = todo!();
/// let cfg = chevron::LaunchConfig::new(1, 256);
/// let occ = chevron::occupancy(&ctx, &f, &cfg)?;
/// println!("{} blocks/SM × {} SMs ({:?} limits)", occ.blocks_per_sm, occ.sms, occ.limited_by);
/// # Ok(()) }
/// ```
pub fn occupancy(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    config: &LaunchConfig<'_>,
) -> Result<Occupancy, Error> {
    occupancy_named(ctx, func, config, KernelName(None))
}

/// The largest grid (in blocks) a cooperative launch of `func` with blocks of `block` and
/// `shared` bytes of dynamic shared memory may have: multiprocessors × blocks per
/// multiprocessor, the bound the driver checks (`CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE`).
pub fn max_cooperative_grid(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    block: impl Into<Dim3>,
    shared: u32,
) -> Result<u32, Error> {
    max_cooperative_grid_named(ctx, func, block.into(), shared, KernelName(None))
}

/// How many clusters of `config` can be resident at once (`cuOccupancyMaxActiveClusters` with
/// the config's grid, block, shared memory and launch attributes, its cluster included).
/// `Error::Driver` when the config has no cluster and the function no compiled-in one.
pub fn max_active_clusters(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    config: &LaunchConfig<'_>,
) -> Result<u32, Error> {
    max_active_clusters_named(ctx, func, config, KernelName(None))
}

fn prepare(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    config: &LaunchConfig<'_>,
    kernel: KernelName,
) -> Result<(), Error> {
    ensure_driver()?;
    ctx.bind_to_thread()
        .map_err(|e| Error::driver("cuCtxSetCurrent", kernel, e))?;
    let shared = config.shared_bytes();
    if shared > 0 {
        ensure_shared(ctx, func, shared, kernel, config)?;
    }
    Ok(())
}

fn device(ctx: &Arc<CudaContext>, attr: A, kernel: KernelName) -> Result<u32, Error> {
    ctx.attribute(attr)
        .map(|v| v.max(0) as u32)
        .map_err(|e| Error::driver("cuDeviceGetAttribute", kernel, e))
}

/// The block of a launch of `func` with `config` ([`launch_block`]); for a launch in the
/// kernel's own block shape of a function whose compiled-in block chevron does not know (one it
/// did not load), [`Error::Unavailable`], not the numbers of the placeholder block (1, 1, 1).
fn own_block(
    func: &CudaFunction,
    config: &LaunchConfig<'_>,
    kernel: KernelName,
) -> Result<Dim3, Error> {
    launch_block(func, config).ok_or_else(|| Error::Unavailable {
        what: "the occupancy of a launch in the kernel's own block shape (`_`)",
        why: format!(
            "the function{kernel} was not loaded by chevron from a PTX with `.reqntid`, so its \
             compiled-in block is not known"
        ),
        fix: "give the block (`LaunchConfig::new(grid, block)`), or declare the kernel with \
              `#[kernel]`",
    })
}

fn blocks_per_sm(
    func: &CudaFunction,
    threads: u64,
    shared: u32,
    kernel: KernelName,
) -> Result<u32, Error> {
    func.occupancy_max_active_blocks_per_multiprocessor(
        u32::try_from(threads).unwrap_or(u32::MAX),
        shared as usize,
        None,
    )
    .map_err(|e| Error::driver("cuOccupancyMaxActiveBlocksPerMultiprocessor", kernel, e))
}

pub(crate) fn occupancy_named(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    config: &LaunchConfig<'_>,
    kernel: KernelName,
) -> Result<Occupancy, Error> {
    let shared = config.shared_bytes();
    prepare(ctx, func, config, kernel)?;
    let threads = own_block(func, config, kernel)?.volume();
    let blocks = blocks_per_sm(func, threads, shared, kernel)?;
    let sms = device(ctx, A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, kernel)?;
    let warp = device(ctx, A::CU_DEVICE_ATTRIBUTE_WARP_SIZE, kernel)?.max(1);
    let max_threads = device(
        ctx,
        A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
        kernel,
    )?;
    let warps_per_block = u32::try_from(threads.div_ceil(u64::from(warp))).unwrap_or(u32::MAX);
    let limited_by = limit(ctx, func, warps_per_block, warp, shared, blocks, kernel)?;
    Ok(Occupancy {
        blocks_per_sm: blocks,
        sms,
        active_warps_per_sm: blocks.saturating_mul(warps_per_block),
        max_warps_per_sm: max_threads / warp,
        limited_by,
    })
}

/// The resource whose simple bound (the per-multiprocessor amount over the per-block need)
/// equals the driver's answer. Register allocation is rounded to 256 registers per warp, as on
/// every architecture chevron targets (7.0 and newer).
fn limit(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    warps_per_block: u32,
    warp: u32,
    shared: u32,
    blocks: u32,
    kernel: KernelName,
) -> Result<Option<OccupancyLimit>, Error> {
    use sys::CUfunction_attribute as F;
    let attribute = |attr| {
        // SAFETY: the function handle is live for as long as `func`.
        unsafe { cu::function::get_function_attribute(func.cu_function(), attr) }
            .map(|v| v.max(0) as u64)
            .map_err(|e| Error::driver("cuFuncGetAttribute", kernel, e))
    };
    let dev = |attr| device(ctx, attr, kernel).map(u64::from);
    let warps = u64::from(warps_per_block.max(1));
    let regs = attribute(F::CU_FUNC_ATTRIBUTE_NUM_REGS)?;
    let per_warp_regs = (regs * u64::from(warp)).div_ceil(256) * 256;
    let by_regs = dev(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?
        .checked_div(per_warp_regs * warps)
        .unwrap_or(u64::MAX);
    let per_block_shared = attribute(F::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)? + u64::from(shared);
    let by_shared = if per_block_shared == 0 {
        u64::MAX
    } else {
        let reserved = dev(A::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK).unwrap_or(0);
        dev(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?
            / (per_block_shared + reserved)
    };
    let by_threads =
        dev(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)? / (warps * u64::from(warp));
    let by_blocks = dev(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?;
    let bounds = [
        (OccupancyLimit::Registers, by_regs),
        (OccupancyLimit::SharedMemory, by_shared),
        (OccupancyLimit::Threads, by_threads),
        (OccupancyLimit::Blocks, by_blocks),
    ];
    Ok(bounds
        .iter()
        .find(|(_, bound)| *bound == u64::from(blocks))
        .map(|(l, _)| *l))
}

pub(crate) fn max_cooperative_grid_named(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    block: Dim3,
    shared: u32,
    kernel: KernelName,
) -> Result<u32, Error> {
    prepare(
        ctx,
        func,
        &LaunchConfig::new(1, block).shared(shared),
        kernel,
    )?;
    let blocks = blocks_per_sm(func, block.volume(), shared, kernel)?;
    let sms = device(ctx, A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, kernel)?;
    Ok(sms.saturating_mul(blocks))
}

pub(crate) fn max_active_clusters_named(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    config: &LaunchConfig<'_>,
    kernel: KernelName,
) -> Result<u32, Error> {
    // The query ignores the stream for a function of a module.
    max_active_clusters_stream(ctx, func, config, core::ptr::null_mut(), kernel)
}

/// [`max_active_clusters`] asked with `stream` in the driver's launch config: an SM partition's
/// stream, for [`crate::Partition::max_active_clusters`].
pub(crate) fn max_active_clusters_on(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    config: &LaunchConfig<'_>,
    stream: &cudarc::driver::CudaStream,
) -> Result<u32, Error> {
    max_active_clusters_stream(ctx, func, config, stream.cu_stream(), KernelName(None))
}

fn max_active_clusters_stream(
    ctx: &Arc<CudaContext>,
    func: &CudaFunction,
    config: &LaunchConfig<'_>,
    stream: sys::CUstream,
    kernel: KernelName,
) -> Result<u32, Error> {
    if let Err(violation) = config.validate() {
        return Err(Error::InvalidConfig { kernel, violation });
    }
    prepare(ctx, func, config, kernel)?;
    let raw = config.raw(stream);
    driver::max_active_clusters(func, &raw)
        .map(|n| n.max(0) as u32)
        .map_err(|source| Error::Driver {
            call: "cuOccupancyMaxActiveClusters",
            kernel,
            attributes: config.describe_attributes(),
            source,
        })
}
