//! The launch-attribute kinds and where the driver accepts each one.
//!
//! CUDA has one enum of launch attributes (`CUlaunchAttributeID`) for two entry points,
//! `cuLaunchKernelEx` and `cuStreamSetAttribute`, but each kind is accepted by only some of them.
//! chevron gives every kind its own type and encodes the placement table once, as the marker
//! traits [`LaunchAttribute`] and [`StreamAttribute`]; a kind in the wrong place is a compile error.
//!
//! The table was measured on an H200 (driver 580.159.04) by calling both entry points with a valid
//! value of each kind:
//!
//! | kind | launch (`cuLaunchKernelEx`) | stream (`cuStreamSetAttribute`) |
//! |---|---|---|
//! | [`AccessPolicyWindow`], [`Priority`], [`MemSyncDomain`], [`MemSyncDomainMap`] | yes | yes |
//! | [`SyncPolicy`] | no: `CUDA_ERROR_INVALID_VALUE` | yes |
//! | [`Cooperative`], [`ClusterDim`], [`ClusterScheduling`], [`PreferredClusterDim`], [`ProgrammaticSerialization`], [`ProgrammaticEvent`], [`CompletionEvent`], [`SharedCarveout`] | yes | no |
//! | [`NvlinkCentric`] | yes | no (`cuda.h` says "valid for streams"; the driver rejects it) |
//! | [`DeviceUpdatable`] | only while the stream is capturing | no |
//!
//! [`NvlinkCentric`] needs the `cuda-13000` feature or newer; with an older CUDA feature it is
//! absent.

use crate::dim::Dim3;
use crate::sys;
use cudarc::driver::{CudaEvent, CudaStream, DevicePtr};

use sys::CUlaunchAttributeID as Id;

mod sealed {
    pub trait Sealed {}
}

/// A launch-attribute kind: one `CU_LAUNCH_ATTRIBUTE_*` value with its payload.
///
/// Sealed: the kinds are the ones in this module. Whether a kind may go into a launch or onto a
/// stream is said by [`LaunchAttribute`] and [`StreamAttribute`].
pub trait Attribute: sealed::Sealed + Copy {
    /// The driver's id for this kind.
    const ID: sys::CUlaunchAttributeID;
    /// The `CU_LAUNCH_ATTRIBUTE_*` name, for messages.
    const CUDA_NAME: &'static str;
    /// The key that names this kind in `launch!` and `config!`.
    const KEY: &'static str;
    /// The driver's value union for this attribute.
    fn value(&self) -> sys::CUlaunchAttributeValue;
}

/// A kind that `cuLaunchKernelEx` accepts in its attribute array.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a stream attribute: the driver rejects it in cuLaunchKernelEx (CUDA_ERROR_INVALID_VALUE)",
    label = "stream-only attribute passed as a launch attribute",
    note = "apply it to the launch's stream instead: `.with_stream(...)` on a `LaunchConfig`, `stream(...)` in `launch!`, or `chevron::set_stream_attribute`"
)]
pub trait LaunchAttribute: Attribute {}

/// A kind that `cuStreamSetAttribute` accepts.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a launch attribute: the driver rejects it in cuStreamSetAttribute",
    label = "launch-only attribute set on a stream",
    note = "pass it to the launch instead: `.with(...)` on a `LaunchConfig`, or the launch list of `launch!`"
)]
pub trait StreamAttribute: Attribute {
    /// Decodes what `cuStreamGetAttribute` reports; `None` where the stream has no value set
    /// (the driver reports an out-of-range value such as -1 for a fresh stream).
    fn from_stream_value(value: &sys::CUstreamAttrValue) -> Option<Self>;
}

/// A flag kind: present means on; `launch!` writes it as a bare key.
pub trait FlagAttribute: LaunchAttribute + Default {}

/// One row of the placement table, as data (for messages, docs and the agreement test).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KindInfo {
    /// The Rust type name.
    pub type_name: &'static str,
    /// The `launch!` key.
    pub key: &'static str,
    /// The `CU_LAUNCH_ATTRIBUTE_*` name.
    pub cuda_name: &'static str,
    /// The driver's id.
    pub id: sys::CUlaunchAttributeID,
    /// Accepted by `cuLaunchKernelEx`.
    pub launch: bool,
    /// Accepted by `cuStreamSetAttribute`.
    pub stream: bool,
}

fn empty() -> sys::CUlaunchAttributeValue {
    sys::CUlaunchAttributeValue { pad: [0; 64] }
}

/// The first `N` bytes of a value union, to decode without reading an enum field that may hold a
/// discriminant outside its Rust enum (the driver reports -1 for "unset").
fn bytes<const N: usize>(value: &sys::CUlaunchAttributeValue, at: usize) -> [u8; N] {
    // SAFETY: `pad` spans the whole union and every byte pattern is a valid `c_char`.
    let pad = unsafe { value.pad };
    core::array::from_fn(|i| pad[at + i] as u8)
}

fn u32_at(value: &sys::CUlaunchAttributeValue, at: usize) -> u32 {
    u32::from_ne_bytes(bytes(value, at))
}

macro_rules! kinds {
    ($( $ty:ident $(<$lt:lifetime>)? => $id:ident, $key:literal, launch: $l:tt, stream: $s:tt $(, cfg($($cfg:tt)*))? ;)*) => {
        $(
            $(#[cfg($($cfg)*)])?
            impl $(<$lt>)? sealed::Sealed for $ty $(<$lt>)? {}
            $(#[cfg($($cfg)*)])?
            impl $(<$lt>)? Attribute for $ty $(<$lt>)? {
                const ID: sys::CUlaunchAttributeID = Id::$id;
                const CUDA_NAME: &'static str = stringify!($id);
                const KEY: &'static str = $key;
                fn value(&self) -> sys::CUlaunchAttributeValue {
                    self.encode()
                }
            }
            kinds!(@launch $l, $ty $(<$lt>)? $(, cfg($($cfg)*))?);
        )*

        /// Every kind this build knows, in the driver's id order: the placement table as data.
        pub const KINDS: &[KindInfo] = &[
            $(
                $(#[cfg($($cfg)*)])?
                KindInfo {
                    type_name: stringify!($ty),
                    key: $key,
                    cuda_name: stringify!($id),
                    id: Id::$id,
                    launch: $l,
                    stream: $s,
                },
            )*
        ];
    };
    (@launch true, $ty:ident $(<$lt:lifetime>)? $(, cfg($($cfg:tt)*))?) => {
        $(#[cfg($($cfg)*)])?
        impl $(<$lt>)? LaunchAttribute for $ty $(<$lt>)? {}
    };
    (@launch false, $ty:ident $(<$lt:lifetime>)? $(, cfg($($cfg:tt)*))?) => {};
}

kinds! {
    AccessPolicyWindow => CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, "access_policy_window", launch: true, stream: true;
    Cooperative => CU_LAUNCH_ATTRIBUTE_COOPERATIVE, "cooperative", launch: true, stream: false;
    SyncPolicy => CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY, "sync", launch: false, stream: true;
    ClusterDim => CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION, "cluster", launch: true, stream: false;
    ClusterScheduling => CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE, "cluster_scheduling", launch: true, stream: false;
    ProgrammaticSerialization => CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION, "programmatic_serialization", launch: true, stream: false;
    ProgrammaticEvent<'a> => CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT, "programmatic_event", launch: true, stream: false;
    Priority => CU_LAUNCH_ATTRIBUTE_PRIORITY, "priority", launch: true, stream: true;
    MemSyncDomainMap => CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP, "mem_sync_domain_map", launch: true, stream: true;
    MemSyncDomain => CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN, "mem_sync_domain", launch: true, stream: true;
    PreferredClusterDim => CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION, "preferred_cluster", launch: true, stream: false;
    CompletionEvent<'a> => CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT, "completion_event", launch: true, stream: false;
    DeviceUpdatable => CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE, "device_updatable", launch: true, stream: false;
    SharedCarveout => CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, "shared_carveout", launch: true, stream: false;
    NvlinkCentric => CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING, "nvlink_centric", launch: true, stream: false, cfg(not(any(feature = "cuda-12080", feature = "cuda-12090")));
}

/// The row of [`KINDS`] for a driver id, if this build knows it.
pub fn kind_info(id: sys::CUlaunchAttributeID) -> Option<&'static KindInfo> {
    KINDS.iter().find(|k| k.id == id)
}

// ---------------------------------------------------------------------------------------------
// AccessPolicyWindow

/// How the L2 cache treats accesses in an [`AccessPolicyWindow`] (`CUaccessProperty`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AccessProperty {
    /// `CU_ACCESS_PROPERTY_NORMAL`.
    #[default]
    Normal,
    /// `CU_ACCESS_PROPERTY_STREAMING`: less likely to persist in L2.
    Streaming,
    /// `CU_ACCESS_PROPERTY_PERSISTING`: more likely to persist in the set-aside L2.
    Persisting,
}

impl AccessProperty {
    fn raw(self) -> sys::CUaccessProperty {
        match self {
            Self::Normal => sys::CUaccessProperty::CU_ACCESS_PROPERTY_NORMAL,
            Self::Streaming => sys::CUaccessProperty::CU_ACCESS_PROPERTY_STREAMING,
            Self::Persisting => sys::CUaccessProperty::CU_ACCESS_PROPERTY_PERSISTING,
        }
    }

    fn from_raw(raw: u32) -> Option<Self> {
        match raw {
            0 => Some(Self::Normal),
            1 => Some(Self::Streaming),
            2 => Some(Self::Persisting),
            _ => None,
        }
    }
}

/// `CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW`: an L2 persistence hint for a range of device
/// memory. Valid on launches and on streams.
///
/// A hint only: a window over memory the kernel does not touch is harmless.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AccessPolicyWindow {
    /// Start of the window (a device address).
    pub base: sys::CUdeviceptr,
    /// Length of the window in bytes.
    pub num_bytes: usize,
    /// Fraction of accesses in the window that get `hit_prop`, 0.0 to 1.0.
    pub hit_ratio: f32,
    /// Property for the `hit_ratio` share of accesses.
    pub hit_prop: AccessProperty,
    /// Property for the rest.
    pub miss_prop: AccessProperty,
}

impl AccessPolicyWindow {
    /// A window over `num_bytes` from `base`: all hits persisting, misses streaming.
    pub const fn new(base: sys::CUdeviceptr, num_bytes: usize) -> Self {
        Self {
            base,
            num_bytes,
            hit_ratio: 1.0,
            hit_prop: AccessProperty::Persisting,
            miss_prop: AccessProperty::Streaming,
        }
    }

    /// A window over the whole of a device buffer (a `CudaSlice` or view), as [`Self::new`].
    pub fn over<T, B: DevicePtr<T>>(buffer: &B, stream: &CudaStream) -> Self {
        let (ptr, _record) = buffer.device_ptr(stream);
        Self::new(ptr, buffer.num_bytes())
    }

    /// Sets the hit ratio.
    pub const fn hit_ratio(mut self, ratio: f32) -> Self {
        self.hit_ratio = ratio;
        self
    }

    /// Sets the properties for hits and misses.
    pub const fn props(mut self, hit: AccessProperty, miss: AccessProperty) -> Self {
        self.hit_prop = hit;
        self.miss_prop = miss;
        self
    }

    fn encode(&self) -> sys::CUlaunchAttributeValue {
        let mut v = empty();
        v.accessPolicyWindow = sys::CUaccessPolicyWindow {
            base_ptr: self.base as usize as *mut core::ffi::c_void,
            num_bytes: self.num_bytes,
            hitRatio: self.hit_ratio,
            hitProp: self.hit_prop.raw(),
            missProp: self.miss_prop.raw(),
        };
        v
    }
}

impl StreamAttribute for AccessPolicyWindow {
    fn from_stream_value(value: &sys::CUstreamAttrValue) -> Option<Self> {
        // Layout of CUaccessPolicyWindow: base_ptr @0, num_bytes @8, hitRatio @16, hitProp @20,
        // missProp @24.
        let base = u64::from_ne_bytes(bytes(value, 0));
        let num_bytes = u64::from_ne_bytes(bytes(value, 8)) as usize;
        if num_bytes == 0 {
            return None;
        }
        Some(Self {
            base,
            num_bytes,
            hit_ratio: f32::from_ne_bytes(bytes(value, 16)),
            hit_prop: AccessProperty::from_raw(u32_at(value, 20))?,
            miss_prop: AccessProperty::from_raw(u32_at(value, 24))?,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Flags

macro_rules! flag {
    ($(#[$doc:meta])* $ty:ident, $field:ident $(, cfg($($cfg:tt)*))?) => {
        $(#[$doc])*
        $(#[cfg($($cfg)*)])?
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $ty;

        $(#[cfg($($cfg)*)])?
        impl $ty {
            fn encode(&self) -> sys::CUlaunchAttributeValue {
                let mut v = empty();
                v.$field = 1;
                v
            }
        }

        $(#[cfg($($cfg)*)])?
        impl FlagAttribute for $ty {}
    };
}

flag!(
    /// `CU_LAUNCH_ATTRIBUTE_COOPERATIVE`: a cooperative launch, whose blocks may synchronize
    /// grid-wide (`cooperative_groups::this_grid().sync()`); all blocks must be co-resident.
    /// Launch only.
    Cooperative,
    cooperative
);
flag!(
    /// `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`: lets this kernel start before the
    /// previous kernel in the stream finishes (programmatic dependent launch). Launch only.
    ProgrammaticSerialization,
    programmaticStreamSerializationAllowed
);

/// `CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE`: the kernel node this launch creates while
/// the stream is being captured into a graph can be updated from the device. Launch only, and
/// only while the stream is capturing (the driver answers `CUDA_ERROR_NOT_SUPPORTED` otherwise).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DeviceUpdatable;

impl DeviceUpdatable {
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        let mut v = empty();
        v.deviceUpdatableKernelNode = sys::CUlaunchAttributeValue_union__bindgen_ty_5 {
            deviceUpdatable: 1,
            devNode: core::ptr::null_mut(),
        };
        v
    }
}
impl FlagAttribute for DeviceUpdatable {}

flag!(
    /// `CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING`: schedule the grid for NVLink
    /// utilization. Launch only: `cuda.h` lists it as valid for streams, but driver 580 rejects it
    /// there. Needs the `cuda-13000` feature or newer.
    NvlinkCentric,
    nvlinkUtilCentricScheduling,
    cfg(not(any(feature = "cuda-12080", feature = "cuda-12090")))
);

// ---------------------------------------------------------------------------------------------
// Enums

/// `CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY`: how a host thread waits for the stream.
///
/// **Stream only**: `cuLaunchKernelEx` rejects it with `CUDA_ERROR_INVALID_VALUE`, so
/// `LaunchConfig::with(SyncPolicy::Spin)` does not compile; use `with_stream` or
/// [`set_stream_attribute`](crate::set_stream_attribute).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SyncPolicy {
    /// `CU_SYNC_POLICY_AUTO`.
    Auto,
    /// `CU_SYNC_POLICY_SPIN`: busy-wait; lowest latency, burns a core.
    Spin,
    /// `CU_SYNC_POLICY_YIELD`: spin, yielding the thread.
    Yield,
    /// `CU_SYNC_POLICY_BLOCKING_SYNC`: block on an OS primitive.
    BlockingSync,
}

impl SyncPolicy {
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        use sys::CUsynchronizationPolicy as P;
        let mut v = empty();
        v.syncPolicy = match self {
            Self::Auto => P::CU_SYNC_POLICY_AUTO,
            Self::Spin => P::CU_SYNC_POLICY_SPIN,
            Self::Yield => P::CU_SYNC_POLICY_YIELD,
            Self::BlockingSync => P::CU_SYNC_POLICY_BLOCKING_SYNC,
        };
        v
    }
}

impl StreamAttribute for SyncPolicy {
    fn from_stream_value(value: &sys::CUstreamAttrValue) -> Option<Self> {
        match u32_at(value, 0) {
            1 => Some(Self::Auto),
            2 => Some(Self::Spin),
            3 => Some(Self::Yield),
            4 => Some(Self::BlockingSync),
            _ => None,
        }
    }
}

/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE`: how clusters are placed on GPCs.
/// Launch only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ClusterScheduling {
    /// `CU_CLUSTER_SCHEDULING_POLICY_DEFAULT`.
    #[default]
    Default,
    /// `CU_CLUSTER_SCHEDULING_POLICY_SPREAD`: spread clusters over the GPU.
    Spread,
    /// `CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING`: allow load-balanced placement.
    LoadBalancing,
}

impl ClusterScheduling {
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        use sys::CUclusterSchedulingPolicy as P;
        let mut v = empty();
        v.clusterSchedulingPolicyPreference = match self {
            Self::Default => P::CU_CLUSTER_SCHEDULING_POLICY_DEFAULT,
            Self::Spread => P::CU_CLUSTER_SCHEDULING_POLICY_SPREAD,
            Self::LoadBalancing => P::CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING,
        };
        v
    }
}

/// `CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN`: the memory-synchronization domain of the kernel's
/// fences. Valid on launches and on streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum MemSyncDomain {
    /// `CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT`.
    #[default]
    Default,
    /// `CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE`: for kernels that talk to other GPUs.
    Remote,
}

impl MemSyncDomain {
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        use sys::CUlaunchMemSyncDomain as D;
        let mut v = empty();
        v.memSyncDomain = match self {
            Self::Default => D::CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT,
            Self::Remote => D::CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE,
        };
        v
    }
}

impl StreamAttribute for MemSyncDomain {
    fn from_stream_value(value: &sys::CUstreamAttrValue) -> Option<Self> {
        match u32_at(value, 0) {
            0 => Some(Self::Default),
            1 => Some(Self::Remote),
            _ => None,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Values

macro_rules! dim_kind {
    ($(#[$doc:meta])* $ty:ident, $field:ident, $raw:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub struct $ty(pub Dim3);

        impl $ty {
            #[doc = concat!("A ", $what, " of `x × y × z` blocks.")]
            pub const fn new(x: u32, y: u32, z: u32) -> Self {
                Self(Dim3::new(x, y, z))
            }

            #[doc = concat!("A ", $what, " from anything that converts to [`Dim3`].")]
            pub fn from_dim(dim: impl Into<Dim3>) -> Self {
                Self(dim.into())
            }

            fn encode(&self) -> sys::CUlaunchAttributeValue {
                let mut v = empty();
                v.$field = sys::$raw {
                    x: self.0.x,
                    y: self.0.y,
                    z: self.0.z,
                };
                v
            }
        }
    };
}

dim_kind!(
    /// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`: thread-block cluster extent (compute capability
    /// 9.0+). The grid must be a multiple of it; 8 blocks is the portable maximum volume.
    /// Launch only.
    ClusterDim,
    clusterDim,
    CUlaunchAttributeValue_union__bindgen_ty_1,
    "cluster"
);

dim_kind!(
    /// `CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION`: a larger cluster the driver uses where
    /// it fits, falling back to [`ClusterDim`]. Must be a multiple of the cluster dimension, with
    /// the same z. Launch only.
    PreferredClusterDim,
    preferredClusterDim,
    CUlaunchAttributeValue_union__bindgen_ty_4,
    "preferred cluster"
);

/// `CU_LAUNCH_ATTRIBUTE_PRIORITY`: the launch's scheduling priority (lower is higher priority;
/// see `cuCtxGetStreamPriorityRange`). Valid on launches and on streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Priority(pub i32);

impl Priority {
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        let mut v = empty();
        v.priority = self.0;
        v
    }
}

impl StreamAttribute for Priority {
    fn from_stream_value(value: &sys::CUstreamAttrValue) -> Option<Self> {
        Some(Self(i32::from_ne_bytes(bytes(value, 0))))
    }
}

/// `CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP`: maps the logical memory-synchronization domains to
/// physical ones. Valid on launches and on streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MemSyncDomainMap {
    /// Physical domain for [`MemSyncDomain::Default`].
    pub default: u8,
    /// Physical domain for [`MemSyncDomain::Remote`].
    pub remote: u8,
}

impl MemSyncDomainMap {
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        let mut v = empty();
        v.memSyncDomainMap = sys::CUlaunchMemSyncDomainMap {
            default_: self.default,
            remote: self.remote,
        };
        v
    }
}

impl StreamAttribute for MemSyncDomainMap {
    fn from_stream_value(value: &sys::CUstreamAttrValue) -> Option<Self> {
        let [default, remote] = bytes(value, 0);
        Some(Self { default, remote })
    }
}

/// `CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT`: preferred share of the L1/shared
/// memory split given to shared memory, in percent (0 to 100). Launch only.
///
/// A value over 100 is reported as [`Error::InvalidConfig`](crate::Error::InvalidConfig) at launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SharedCarveout(pub u32);

impl SharedCarveout {
    /// `percent` of the unified L1/shared storage as shared memory.
    pub const fn percent(percent: u32) -> Self {
        Self(percent)
    }

    fn encode(&self) -> sys::CUlaunchAttributeValue {
        let mut v = empty();
        v.sharedMemCarveout = self.0;
        v
    }
}

/// `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT`: an event the kernel triggers (programmatic dependent
/// launch) when all blocks have called `cudaTriggerProgrammaticLaunchCompletion()` or exited.
/// Launch only. The event must be created with timing disabled.
#[derive(Clone, Copy, Debug)]
pub struct ProgrammaticEvent<'a> {
    /// The event to trigger.
    pub event: &'a CudaEvent,
    /// Trigger when each block starts rather than when it triggers or exits.
    pub trigger_at_block_start: bool,
}

impl<'a> ProgrammaticEvent<'a> {
    /// Triggers `event`; `trigger_at_block_start` is off.
    pub fn new(event: &'a CudaEvent) -> Self {
        Self {
            event,
            trigger_at_block_start: false,
        }
    }

    fn encode(&self) -> sys::CUlaunchAttributeValue {
        let mut v = empty();
        v.programmaticEvent = sys::CUlaunchAttributeValue_union__bindgen_ty_2 {
            event: self.event.cu_event(),
            flags: 0,
            triggerAtBlockStart: self.trigger_at_block_start as i32,
        };
        v
    }
}

impl<'a> From<&'a CudaEvent> for ProgrammaticEvent<'a> {
    fn from(event: &'a CudaEvent) -> Self {
        Self::new(event)
    }
}

/// `CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT`: an event recorded when every block of the
/// kernel has begun execution. Launch only. The event must be created with timing disabled.
#[derive(Clone, Copy, Debug)]
pub struct CompletionEvent<'a>(pub &'a CudaEvent);

impl CompletionEvent<'_> {
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        let mut v = empty();
        v.launchCompletionEvent = sys::CUlaunchAttributeValue_union__bindgen_ty_3 {
            event: self.0.cu_event(),
            flags: 0,
        };
        v
    }
}

impl<'a> From<&'a CudaEvent> for CompletionEvent<'a> {
    fn from(event: &'a CudaEvent) -> Self {
        Self(event)
    }
}
