//! Many GPUs: a set of devices, each with its context and a stream; the same kernel checked
//! against every device's limits before anything launches, launched on each, and awaited
//! together.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaStream};

use crate::completion::{completion, Completion};
use crate::config::attr::Cooperative;
use crate::config::LaunchConfig;
use crate::driver::device::{context, ensure_driver};
use crate::error::driver_error;
use crate::error::{Error, KernelName};
use crate::launch::function::ensure_shared;
use crate::launch::occupancy::{max_active_clusters_named, occupancy_named};

// The set and its completions can move to other threads and be awaited there, unpinned.
const _: () = {
    const fn send_sync_unpin<T: Send + Sync + Unpin>() {}
    send_sync_unpin::<Completions>();
    send_sync_unpin::<DeviceSet>();
};

/// One device of a [`DeviceSet`]: its primary context and a stream of its own.
#[derive(Debug)]
pub struct Device {
    index: usize,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

impl Device {
    /// The device's place in its set: 0, 1, … (the rank of a collective over the set).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The device's ordinal (`CUdevice`), as `chevron::context` takes it.
    pub fn ordinal(&self) -> usize {
        self.ctx.ordinal()
    }

    /// The device's context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// The device's stream: launch on it.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }
}

/// Devices that run the same kernels: one context and one stream per device, kernels loaded in
/// each context once (by their declaration's cache), launch configurations checked against each
/// device's limits before anything launches, and one future for all their streams.
///
/// ```no_run
/// # async fn run() -> Result<(), chevron::Error> {
/// use chevron::cudarc::driver::{LaunchConfig as Grid, PushKernelArg};
/// use chevron::{DeviceSet, Kernel, LaunchConfig};
///
/// static TICK: Kernel = Kernel::ptx(
///     "tick",
///     "tick",
///     concat!(env!("CARGO_MANIFEST_DIR"), "/../kernels/sync_policy.ptx"),
///     include_str!("../../../kernels/sync_policy.ptx"),
/// );
/// let set = DeviceSet::all()?;
/// let mut counts = set.map(|dev| Ok(dev.stream().alloc_zeros::<u32>(1)?))?;
/// let cfg = LaunchConfig::new(1, 32);
/// set.check(|ctx| TICK.function(ctx), &cfg)?; // every device, before any launch
/// set.launch(|dev| {
///     let f = TICK.get(dev.context())?;
///     let mut launch = dev.stream().launch_builder(f);
///     launch.arg(&mut counts[dev.index()]);
///     // SAFETY: `tick(unsigned int* count)` takes one device pointer.
///     let grid = Grid { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 };
///     unsafe { launch.launch(grid) }?;
///     Ok(())
/// })?
/// .await?; // every device's stream is done
/// # Ok(()) }
/// ```
///
/// With the `chevron` facade, the launch is typed: `set.launch(|dev| unsafe {
/// tick::kernel().launch(dev.stream(), &cfg, (&mut counts[dev.index()],)) })` for a
/// `#[kernel] fn tick`.
#[derive(Debug)]
pub struct DeviceSet {
    devices: Vec<Device>,
}

impl DeviceSet {
    /// Every device the driver reports, in ordinal order.
    pub fn all() -> Result<Self, Error> {
        ensure_driver()?;
        let count = CudaContext::device_count()
            .map_err(|e| Error::driver("cuDeviceGetCount", KernelName(None), e))?;
        Self::new(0..count.max(0) as usize)
    }

    /// The devices of `ordinals`, in that order (their indices in the set). An empty list, or
    /// one naming a device twice, is [`Error::Unavailable`]; a device that cannot be opened is
    /// its error in [`Error::OnDevice`].
    pub fn new(ordinals: impl IntoIterator<Item = usize>) -> Result<Self, Error> {
        let mut devices: Vec<Device> = Vec::new();
        for ordinal in ordinals {
            if devices.iter().any(|d| d.ordinal() == ordinal) {
                return Err(Error::Unavailable {
                    what: "a device set",
                    why: format!("device {ordinal} is listed twice"),
                    fix: "list each device once",
                });
            }
            let opened = context(ordinal).and_then(|ctx| {
                let stream = ctx.new_stream()?;
                Ok((ctx, stream))
            });
            let (ctx, stream) = opened.map_err(|e| on_device(ordinal, e))?;
            devices.push(Device {
                index: devices.len(),
                ctx,
                stream,
            });
        }
        if devices.is_empty() {
            return Err(Error::Unavailable {
                what: "a device set",
                why: "it has no device (the driver reports none, or none was listed)".to_string(),
                fix: "list at least one device",
            });
        }
        Ok(Self { devices })
    }

    /// How many devices.
    pub fn len(&self) -> usize {
        self.devices.len()
    }

    /// Never true: a set has at least one device.
    pub fn is_empty(&self) -> bool {
        self.devices.is_empty()
    }

    /// The devices, in index order.
    pub fn devices(&self) -> &[Device] {
        &self.devices
    }

    /// The device of `index`.
    pub fn get(&self, index: usize) -> Option<&Device> {
        self.devices.get(index)
    }

    /// The devices, in index order.
    pub fn iter(&self) -> core::slice::Iter<'_, Device> {
        self.devices.iter()
    }

    /// `f` on each device in index order, collecting what it returns (each device's buffers,
    /// say); the first error stops and comes back in [`Error::OnDevice`].
    pub fn map<T, F>(&self, mut f: F) -> Result<Vec<T>, Error>
    where
        F: FnMut(&Device) -> Result<T, Error>,
    {
        self.devices
            .iter()
            .map(|d| f(d).map_err(|e| on_device(d.ordinal(), e)))
            .collect()
    }

    /// The kernel's function in every device's context: `kernel` gives it for a context, as a
    /// `#[kernel]` declaration's `function` does (`|ctx| saxpy::kernel().function(ctx)`), which
    /// loads its module once per context.
    pub fn functions<K>(&self, kernel: K) -> Result<Vec<CudaFunction>, Error>
    where
        K: Fn(&Arc<CudaContext>) -> Result<CudaFunction, Error>,
    {
        self.map(|d| kernel(&d.ctx))
    }

    /// Checks `config` for the kernel on every device before anything launches, so that a set
    /// does not run on some devices and fail on others: the limits of
    /// [`LaunchConfig::validate`], dynamic shared memory against each device's opt-in limit
    /// (opting in where a launch would, [`Error::SharedMemoryTooLarge`]), a `cooperative` grid
    /// against each device's co-resident blocks ([`Error::CooperativeTooLarge`]), a `cluster`
    /// against each device's compute capability and residency ([`Error::ArchTooLow`],
    /// [`Error::ClusterNotResident`]). The first failure comes back in [`Error::OnDevice`].
    ///
    /// `kernel` gives the kernel's function for a context, as a `#[kernel]` declaration's
    /// `function` does (`|ctx| saxpy::kernel().function(ctx)`); the kernel's own rules (its PTX
    /// directives) are checked by every launch.
    pub fn check<K>(&self, kernel: K, config: &LaunchConfig<'_>) -> Result<(), Error>
    where
        K: Fn(&Arc<CudaContext>) -> Result<CudaFunction, Error>,
    {
        self.map(|d| check_on(d, &kernel(&d.ctx)?, config))
            .map(drop)
    }

    /// Calls `launch` on each device in index order (it launches on [`Device::stream`]), then
    /// returns the completion of every device's stream. The first error stops and comes back in
    /// [`Error::OnDevice`]; devices launched before it keep running.
    pub fn launch<F>(&self, launch: F) -> Result<Completions, Error>
    where
        F: FnMut(&Device) -> Result<(), Error>,
    {
        self.map(launch)?;
        Ok(self.completion())
    }

    /// The completion of what every device's stream has been given so far (see
    /// [`crate::completion`]). Allocates one list of the devices' completions.
    pub fn completion(&self) -> Completions {
        Completions {
            parts: self
                .devices
                .iter()
                .map(|d| Part {
                    device: d.ordinal(),
                    completion: Some(completion(&d.stream)),
                    result: None,
                })
                .collect(),
        }
    }

    /// Blocks until every device's stream is done ([`Completions::wait`] of
    /// [`DeviceSet::completion`]).
    pub fn synchronize(&self) -> Result<(), Error> {
        self.completion().wait()
    }
}

impl<'a> IntoIterator for &'a DeviceSet {
    type Item = &'a Device;
    type IntoIter = core::slice::Iter<'a, Device>;
    fn into_iter(self) -> Self::IntoIter {
        self.devices.iter()
    }
}

/// `error` in [`Error::OnDevice`], unless it already is one.
fn on_device(device: usize, error: Error) -> Error {
    match error {
        e @ Error::OnDevice { .. } => e,
        e => Error::OnDevice {
            device,
            source: Box::new(e),
        },
    }
}

fn check_on(dev: &Device, func: &CudaFunction, config: &LaunchConfig<'_>) -> Result<(), Error> {
    let kernel = KernelName(None);
    if let Err(violation) = config.validate() {
        return Err(Error::InvalidConfig { kernel, violation });
    }
    let ctx = &dev.ctx;
    ctx.bind_to_thread()
        .map_err(|e| driver_error("cuCtxSetCurrent", kernel, ctx, e))?;
    let shared = config.shared_bytes();
    if shared > 0 {
        ensure_shared(ctx, func, shared, kernel, config)?;
    }
    if config.has::<Cooperative>() {
        let occ = occupancy_named(ctx, func, config, kernel)?;
        let requested = config.grid().volume();
        if requested > occ.co_resident_blocks() {
            return Err(Error::CooperativeTooLarge {
                kernel,
                requested,
                co_resident: occ.co_resident_blocks(),
                sms: occ.sms,
                per_sm: occ.blocks_per_sm,
            });
        }
    }
    if let Some(cluster) = config.cluster() {
        let (major, minor) = ctx
            .compute_capability()
            .map_err(|e| Error::driver("cuDeviceGetAttribute", kernel, e))?;
        if major < 9 {
            return Err(Error::ArchTooLow {
                attribute: "cluster (CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)".to_string(),
                kernel,
                major,
                minor,
            });
        }
        if max_active_clusters_named(ctx, func, config, kernel)? == 0 {
            return Err(Error::ClusterNotResident {
                kernel,
                cluster,
                block: config.block(),
                shared,
            });
        }
    }
    Ok(())
}

/// The completions of a [`DeviceSet`]'s streams: a future that is ready once every one is, with
/// the first device's error (in index order) in [`Error::OnDevice`], or `Ok(())`.
#[must_use = "the launches already ran; dropping their completions only stops waiting for them and loses their errors: `.await` them in async code, or call `.wait()`"]
#[derive(Debug)]
pub struct Completions {
    parts: Vec<Part>,
}

#[derive(Debug)]
struct Part {
    device: usize,
    completion: Option<Completion>,
    result: Option<Result<(), Error>>,
}

impl Completions {
    /// Blocks the calling thread until every device's stream is done (see
    /// [`Completion::wait`]).
    pub fn wait(self) -> Result<(), Error> {
        let mut first = Ok(());
        for part in self.parts {
            let result = match (part.result, part.completion) {
                (Some(result), _) => result,
                (None, Some(c)) => c.wait(),
                (None, None) => Ok(()),
            };
            if let (Ok(()), Err(e)) = (&first, result) {
                first = Err(on_device(part.device, e));
            }
        }
        first
    }
}

impl Future for Completions {
    type Output = Result<(), Error>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let mut pending = false;
        for part in &mut this.parts {
            if let Some(c) = &mut part.completion {
                match Pin::new(c).poll(cx) {
                    Poll::Ready(result) => {
                        part.result = Some(result);
                        part.completion = None;
                    }
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            return Poll::Pending;
        }
        let mut first = Ok(());
        for part in &mut this.parts {
            if let Some(Err(e)) = part.result.take() {
                if first.is_ok() {
                    first = Err(on_device(part.device, e));
                }
            }
        }
        Poll::Ready(first)
    }
}

#[cfg(feature = "nccl")]
mod nccl {
    use super::*;
    use cudarc::nccl::result::NcclError;
    use cudarc::nccl::Comm;

    /// Whether the NCCL library (`libnccl`) can be loaded; checked once per process.
    pub fn nccl_present() -> bool {
        use std::sync::OnceLock;
        static PRESENT: OnceLock<bool> = OnceLock::new();
        // SAFETY: only tries to open the library by its usual names.
        *PRESENT.get_or_init(|| unsafe { cudarc::nccl::sys::is_culib_present() })
    }

    /// `Err(Error::Unavailable)` unless `libnccl` can be loaded. Call before anything that would
    /// make cudarc load it (cudarc panics when it is missing).
    pub fn ensure_nccl() -> Result<(), Error> {
        if nccl_present() {
            Ok(())
        } else {
            Err(Error::Unavailable {
                what: "NCCL",
                why: "libnccl could not be loaded (no libnccl.so.2 on the library path)"
                    .to_string(),
                fix: "install NCCL (the libnccl2 package, or the nvidia-nccl-cu13 wheel with its \
                      `lib` directory on LD_LIBRARY_PATH)",
            })
        }
    }

    /// Lets `?` take an NCCL call's error (`comm.all_reduce(…)?`, `group_end()?`) in a function
    /// returning chevron's [`Error`] (feature `nccl`).
    impl From<NcclError> for Error {
        fn from(e: NcclError) -> Self {
            Error::Nccl {
                call: "an NCCL call",
                result: format!("{:?}", e.0),
            }
        }
    }

    impl DeviceSet {
        /// One NCCL communicator per device (`ncclCommInitAll`), ranked by index in the set and
        /// working on each device's stream, for collectives over the set from one thread
        /// (group them between `cudarc::nccl::group_start()` and `group_end()`). Feature `nccl`;
        /// [`Error::Unavailable`] where `libnccl` is missing.
        pub fn nccl(&self) -> Result<Vec<Comm>, Error> {
            ensure_nccl()?;
            Comm::from_devices(self.devices.iter().map(|d| d.stream.clone()).collect()).map_err(
                |e| Error::Nccl {
                    call: "ncclCommInitAll",
                    result: format!("{:?}", e.0),
                },
            )
        }
    }
}

#[cfg(feature = "nccl")]
pub use nccl::{ensure_nccl, nccl_present};
