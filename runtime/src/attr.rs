//! The launch-attribute kinds and where the driver accepts each one.
//!
//! CUDA has one enum of launch attributes (`CUlaunchAttributeID`) for three entry points,
//! `cuLaunchKernelEx`, `cuStreamSetAttribute` and `cuGraphKernelNodeSetAttribute`, but each kind
//! is accepted by only some of them. chevron gives every kind its own type and declares each
//! kind once, as a row of the spec crate's table ([`chevron_cuda_spec::for_each_kind!`]): the
//! impls below are generated from the rows (the id, the version gate and its message, a marker
//! trait per [`Position`](chevron_cuda_spec::kinds::Position): [`LaunchAttribute`],
//! [`StreamAttribute`], [`GraphAttribute`]), so a kind in the wrong place is a compile error and
//! there is no second list to keep in step. What remains here per kind is its type: the value,
//! its encoding (`encode`), its decoding where a stream reports it (`from_stream`) and a valid
//! value for the tests (`sample`). The table, with the measurements behind it, is
//! `ATTRIBUTES.md`.
//!
//! Every type exists with every CUDA feature. A kind the selected CUDA version lacks (such as
//! [`NvlinkCentric`] with `cuda-12080`) is a compile error where it is used: the entry points
//! require `A::Since: Reached<A>`, whose message names the feature ("`NvlinkCentric` needs a
//! later CUDA version than this build's: use feature cuda_13000 or later"; a type name cannot
//! hold the hyphen). Its [`Attribute::ID`] fails to evaluate with "`nvlink_centric` needs CUDA
//! 13.0: use feature cuda-13000 or later", for code that reaches the id another way.

use crate::dim::Dim3;
use crate::sys;
use chevron_cuda_spec::kinds::{self as spec, Kind};
use cudarc::driver::{CudaEvent, CudaStream, DevicePtr};

mod sealed {
    pub trait Sealed {}
}
use sealed::Sealed;

/// A launch-attribute kind: one `CU_LAUNCH_ATTRIBUTE_*` value with its payload.
///
/// Sealed: the kinds are the ones in this module. Where a kind is accepted is said by
/// [`LaunchAttribute`], [`StreamAttribute`] and [`GraphAttribute`].
pub trait Attribute: Sealed + Copy {
    /// The driver's id for this kind. Evaluating it fails the build, naming the feature to use,
    /// when the selected CUDA version lacks the kind.
    const ID: sys::CUlaunchAttributeID;
    /// The kind's row of the spec table.
    const KIND: &'static Kind;
    /// The `CU_LAUNCH_ATTRIBUTE_*` name, for messages.
    const CUDA_NAME: &'static str = Self::KIND.cuda_name;
    /// The key that names this kind in `launch!` and `config!`.
    const KEY: &'static str = Self::KIND.key;
    /// The CUDA version that introduced the kind, as a marker type of [`cuda`]; the entry
    /// points require `A::Since: Reached<A>`, so a kind of a later version than the selected one
    /// is an error that names the feature to use.
    type Since;
    /// The driver's value union for this attribute.
    fn value(&self) -> sys::CUlaunchAttributeValue;
}

/// Implemented by the CUDA versions up to the selected one: `V: Reached<K>` says the build has
/// the kinds version `V` introduced, among them `K`.
#[diagnostic::on_unimplemented(
    message = "`{K}` needs a later CUDA version than this build's: use feature {Self} or later",
    label = "not in the selected CUDA version",
    note = "the feature is spelled with a hyphen (`cuda-13000` for `cuda_13000`); with the default features on, also set `default-features = false`"
)]
pub trait Reached<K> {}

macro_rules! versions {
    ($($name:ident = $number:literal),* $(,)?) => {
        /// Marker types for the CUDA versions, named like their Cargo features (`cuda_13000`
        /// for `cuda-13000`), so that an error about a kind of a later version can name the
        /// feature.
        pub mod cuda {
            $(
                #[doc = concat!("The CUDA version of feature `cuda-", $number, "`.")]
                #[allow(non_camel_case_types)]
                #[derive(Debug)]
                pub enum $name {}
            )*
        }

        $(
            #[cfg($name)]
            #[diagnostic::do_not_recommend]
            impl<K> Reached<K> for cuda::$name {}
        )*
    };
}

chevron_cuda_spec::for_each_cuda_version!(versions);

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

/// A launch-attribute kind the driver accepts on a graph kernel node
/// (`cuGraphKernelNodeSetAttribute`): the spec table's graph-node position.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be set on a graph kernel node: the driver rejects it there",
    label = "not accepted by `cuGraphKernelNodeSetAttribute`",
    note = "set it on the launch inside the capture instead (`programmatic_serialization` there becomes a programmatic edge of the graph)"
)]
pub trait GraphAttribute: Attribute {}

/// A flag kind: present means on; `launch!` writes it as a bare key.
pub trait FlagAttribute: LaunchAttribute + Default {}

/// One row of the placement table, as data (for messages, docs and the agreement test): the
/// spec table's row.
pub type KindInfo = Kind;

/// The CUDA version this build selected, as cudarc's feature number (`13000` for `cuda-13000`).
pub const CUDA_VERSION: u32 = parse_version(env!("CHEVRON_CUDA_VERSION"));

const fn parse_version(s: &str) -> u32 {
    let b = s.as_bytes();
    let mut v = 0;
    let mut i = 0;
    while i < b.len() {
        v = v * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    v
}

#[inline]
fn empty() -> sys::CUlaunchAttributeValue {
    sys::CUlaunchAttributeValue { pad: [0; 64] }
}

/// The first `N` bytes of a value union, to decode without reading an enum field that may hold a
/// discriminant outside its Rust enum (the driver reports -1 for "unset").
#[inline]
fn bytes<const N: usize>(value: &sys::CUlaunchAttributeValue, at: usize) -> [u8; N] {
    // SAFETY: `pad` spans the whole union and every byte pattern is a valid `c_char`.
    let pad = unsafe { value.pad };
    core::array::from_fn(|i| pad[at + i] as u8)
}

#[inline]
pub(crate) fn u32_at(value: &sys::CUlaunchAttributeValue, at: usize) -> u32 {
    u32::from_ne_bytes(bytes(value, at))
}

/// Writes `data` at byte `at` of a value union. Values are encoded by offset, not through the
/// union's named fields: bindgen renames the fields' types between CUDA versions
/// (`CUlaunchAttributeValue_union__bindgen_ty_4` is one struct in 12.4 and another in 12.8),
/// while the C layout stays.
#[inline]
fn put<const N: usize>(value: &mut sys::CUlaunchAttributeValue, at: usize, data: [u8; N]) {
    // SAFETY: writing `c_char`s into `pad`, which spans the whole union.
    let pad = unsafe { &mut value.pad };
    for (i, b) in data.into_iter().enumerate() {
        pad[at + i] = b as core::ffi::c_char;
    }
}

/// A value union holding one 32-bit field at offset 0 (flags, enums, percentages).
#[inline]
fn word(v: u32) -> sys::CUlaunchAttributeValue {
    let mut value = empty();
    put(&mut value, 0, v.to_ne_bytes());
    value
}

/// The spec row with driver id `id`, at compile time.
const fn row(id: u32) -> &'static Kind {
    match spec::by_id(id) {
        Some(k) => k,
        None => panic!("a runtime kind without a row in the spec table"),
    }
}

/// What the kinds' test samples are built from: the GPU tests pass a real event (created with
/// timing disabled) and a device buffer; a CPU test passes no event and any address. Each kind's
/// `sample` is beside its type; `samples.rs` turns them into values and configs. Not a public
/// API.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Samples<'a> {
    /// An event for the event kinds; without one they have no sample.
    pub event: Option<&'a CudaEvent>,
    /// A device address and length for an access policy window.
    pub window: (sys::CUdeviceptr, usize),
}

/// The impls of one row of the spec table (`kinds!` calls it once per row).
macro_rules! kind {
    ($key:ident, $ty:ident $generics:tt, $cuda:ident ($id:literal), [$($position:ident)*],
     $form:ident, $since:ident) => {
        impl_generic!($generics Sealed for $ty);
        impl_generic!($generics Attribute for $ty {
            #[cfg($since)]
            const ID: sys::CUlaunchAttributeID = sys::CUlaunchAttributeID::$cuda;
            #[cfg(not($since))]
            const ID: sys::CUlaunchAttributeID = {
                const MISSING: spec::ConstStr<{ spec::MESSAGE_BYTES }> =
                    row($id).missing_message_const();
                panic!("{}", MISSING.as_str())
            };
            const KIND: &'static Kind = row($id);
            type Since = cuda::$since;
            #[inline]
            fn value(&self) -> sys::CUlaunchAttributeValue {
                self.encode()
            }
        });
        $(position!($position, $ty $generics);)*
        form!($form, $ty $generics);
        // The build script's `cfg`s and this build's CUDA version agree.
        const _: () = assert!(row($id).in_version(CUDA_VERSION) == cfg!($since));
        // The row's id is the driver's.
        #[cfg($since)]
        const _: () = assert!(sys::CUlaunchAttributeID::$cuda as u32 == $id);
    };
}

/// `impl<'a> Trait for Type<'a> { … }` or `impl Trait for Type { … }`, by the row's generics.
macro_rules! impl_generic {
    ([$($lt:lifetime)?] $trait:ident for $ty:ident) => {
        impl$(<$lt>)? $trait for $ty$(<$lt>)? {}
    };
    ([$($lt:lifetime)?] $trait:ident for $ty:ident { $($body:tt)* }) => {
        impl$(<$lt>)? $trait for $ty$(<$lt>)? { $($body)* }
    };
    (@hidden [$($lt:lifetime)?] $trait:ident for $ty:ident { $($body:tt)* }) => {
        // The kinds a trait is implemented for are the table's: rustc need not list them when a
        // kind is used in the wrong place.
        #[diagnostic::do_not_recommend]
        impl$(<$lt>)? $trait for $ty$(<$lt>)? { $($body)* }
    };
}

/// The marker trait of one position (a [`Position`](chevron_cuda_spec::kinds::Position)).
macro_rules! position {
    (Launch, $ty:ident $generics:tt) => {
        impl_generic!(@hidden $generics LaunchAttribute for $ty {});
    };
    (Stream, $ty:ident $generics:tt) => {
        impl_generic!(@hidden $generics StreamAttribute for $ty {
            fn from_stream_value(value: &sys::CUstreamAttrValue) -> Option<Self> {
                Self::from_stream(value)
            }
        });
    };
    (GraphNode, $ty:ident $generics:tt) => {
        impl_generic!(@hidden $generics GraphAttribute for $ty {});
    };
}

/// What a value form adds: flags are [`FlagAttribute`]s.
macro_rules! form {
    (Flag, $ty:ident $generics:tt) => {
        impl_generic!(@hidden $generics FlagAttribute for $ty {});
    };
    ($form:ident, $ty:ident $generics:tt) => {};
}

macro_rules! kinds {
    ($($key:ident: $ty:ident $(<$lt:lifetime>)? = $cuda:ident ($id:literal),
        at [$($position:ident),*], form $form:ident $([$($variant:literal $(since $variant_since:ident)?),*])?,
        since $since:ident, cc $cc:tt, value $value:literal $(, note $note:literal)?;)*) => {
        $(kind!($key, $ty [$($lt)?], $cuda ($id), [$($position)*], $form, $since);)*

        /// Every kind this build's CUDA version has, in the driver's id order: the spec table's
        /// rows for this version.
        pub const KINDS: &[KindInfo] = &[$(
            #[cfg($since)]
            *row($id),
        )*];

        /// The driver's id for the kind with number `id`, if this build's CUDA version has it
        /// (for code that talks to the driver directly, such as the placement test).
        pub fn raw_id(id: u32) -> Option<sys::CUlaunchAttributeID> {
            match id {
                $(
                    #[cfg($since)]
                    $id => Some(sys::CUlaunchAttributeID::$cuda),
                )*
                _ => None,
            }
        }
    };
}

chevron_cuda_spec::for_each_kind!(kinds);

/// The row of [`KINDS`] for a driver id, if this build knows it.
pub fn kind_info(id: sys::CUlaunchAttributeID) -> Option<&'static KindInfo> {
    KINDS.iter().find(|k| k.id == id as u32)
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
    fn raw(self) -> u32 {
        use sys::CUaccessProperty as P;
        (match self {
            Self::Normal => P::CU_ACCESS_PROPERTY_NORMAL,
            Self::Streaming => P::CU_ACCESS_PROPERTY_STREAMING,
            Self::Persisting => P::CU_ACCESS_PROPERTY_PERSISTING,
        }) as u32
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

    pub(crate) fn sample(samples: &Samples<'_>) -> Option<Self> {
        Some(Self::new(samples.window.0, samples.window.1))
    }

    #[inline]
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        // Layout of CUaccessPolicyWindow: base_ptr @0, num_bytes @8, hitRatio @16, hitProp @20,
        // missProp @24.
        let mut v = empty();
        put(&mut v, 0, self.base.to_ne_bytes());
        put(&mut v, 8, (self.num_bytes as u64).to_ne_bytes());
        put(&mut v, 16, self.hit_ratio.to_ne_bytes());
        put(&mut v, 20, self.hit_prop.raw().to_ne_bytes());
        put(&mut v, 24, self.miss_prop.raw().to_ne_bytes());
        v
    }
}

impl AccessPolicyWindow {
    /// The value a stream reports, if one is set.
    fn from_stream(value: &sys::CUstreamAttrValue) -> Option<Self> {
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
    ($(#[$doc:meta])* $ty:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $ty;

        impl $ty {
            // Every flag is an `int`/`unsigned` at offset 0 of the union.
            #[inline]
            fn encode(&self) -> sys::CUlaunchAttributeValue {
                word(1)
            }

            pub(crate) fn sample(_: &Samples<'_>) -> Option<Self> {
                Some(Self)
            }
        }
    };
}

flag!(
    /// `CU_LAUNCH_ATTRIBUTE_COOPERATIVE`: a cooperative launch, whose blocks may synchronize
    /// grid-wide (`cooperative_groups::this_grid().sync()`); all blocks must be co-resident.
    /// Launch only.
    Cooperative
);
flag!(
    /// `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`: lets this kernel start before the
    /// previous kernel in the stream finishes (programmatic dependent launch). Launch only.
    ProgrammaticSerialization
);

/// `CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE`: the kernel node this launch creates while
/// the stream is being captured into a graph can be updated from the device. Launch only, and
/// only while the stream is capturing (the driver answers `CUDA_ERROR_NOT_SUPPORTED` otherwise).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DeviceUpdatable;

impl DeviceUpdatable {
    #[inline]
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        // `{ int deviceUpdatable; CUgraphDeviceNode devNode; }`: the driver fills `devNode`.
        word(1)
    }

    pub(crate) fn sample(_: &Samples<'_>) -> Option<Self> {
        Some(Self)
    }
}

flag!(
    /// `CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING`: schedule the grid for NVLink
    /// utilization. Launch only: `cuda.h` lists it as valid for streams, but driver 580 rejects it
    /// there. Needs CUDA 13.0 (feature `cuda-13000` or later).
    NvlinkCentric
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
    pub(crate) fn sample(_: &Samples<'_>) -> Option<Self> {
        Some(Self::Spin)
    }

    #[inline]
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        use sys::CUsynchronizationPolicy as P;
        word(
            (match self {
                Self::Auto => P::CU_SYNC_POLICY_AUTO,
                Self::Spin => P::CU_SYNC_POLICY_SPIN,
                Self::Yield => P::CU_SYNC_POLICY_YIELD,
                Self::BlockingSync => P::CU_SYNC_POLICY_BLOCKING_SYNC,
            }) as u32,
        )
    }
}

impl SyncPolicy {
    /// The value a stream reports, if one is set.
    fn from_stream(value: &sys::CUstreamAttrValue) -> Option<Self> {
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
    pub(crate) fn sample(_: &Samples<'_>) -> Option<Self> {
        Some(Self::Spread)
    }

    #[inline]
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        use sys::CUclusterSchedulingPolicy as P;
        word(
            (match self {
                Self::Default => P::CU_CLUSTER_SCHEDULING_POLICY_DEFAULT,
                Self::Spread => P::CU_CLUSTER_SCHEDULING_POLICY_SPREAD,
                Self::LoadBalancing => P::CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING,
            }) as u32,
        )
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
    pub(crate) fn sample(_: &Samples<'_>) -> Option<Self> {
        Some(Self::Default)
    }

    #[inline]
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        use sys::CUlaunchMemSyncDomain as D;
        word(
            (match self {
                Self::Default => D::CU_LAUNCH_MEM_SYNC_DOMAIN_DEFAULT,
                Self::Remote => D::CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE,
            }) as u32,
        )
    }
}

impl MemSyncDomain {
    /// The value a stream reports, if one is set.
    fn from_stream(value: &sys::CUstreamAttrValue) -> Option<Self> {
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
    ($(#[$doc:meta])* $ty:ident, $what:literal, sample: $x:literal) => {
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

            pub(crate) fn sample(_: &Samples<'_>) -> Option<Self> {
                Some(Self::new($x, 1, 1))
            }

            // `{ unsigned x, y, z; }` at offset 0.
            #[inline]
            fn encode(&self) -> sys::CUlaunchAttributeValue {
                let mut v = empty();
                put(&mut v, 0, self.0.x.to_ne_bytes());
                put(&mut v, 4, self.0.y.to_ne_bytes());
                put(&mut v, 8, self.0.z.to_ne_bytes());
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
    "cluster",
    sample: 2
);

dim_kind!(
    /// `CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION`: a larger cluster the driver uses where
    /// it fits, falling back to [`ClusterDim`]. Must be a multiple of the cluster dimension, with
    /// the same z. Launch only.
    PreferredClusterDim,
    "preferred cluster",
    sample: 4
);

/// `CU_LAUNCH_ATTRIBUTE_PRIORITY`: the launch's scheduling priority (lower is higher priority;
/// see `cuCtxGetStreamPriorityRange`). Valid on launches and on streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Priority(pub i32);

impl Priority {
    pub(crate) fn sample(_: &Samples<'_>) -> Option<Self> {
        Some(Self(0))
    }

    #[inline]
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        word(self.0 as u32)
    }
}

impl Priority {
    /// The value a stream reports, if one is set.
    fn from_stream(value: &sys::CUstreamAttrValue) -> Option<Self> {
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
    pub(crate) fn sample(_: &Samples<'_>) -> Option<Self> {
        Some(Self::default())
    }

    #[inline]
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        let mut v = empty();
        put(&mut v, 0, [self.default, self.remote]);
        v
    }
}

impl MemSyncDomainMap {
    /// The value a stream reports, if one is set.
    fn from_stream(value: &sys::CUstreamAttrValue) -> Option<Self> {
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

    pub(crate) fn sample(_: &Samples<'_>) -> Option<Self> {
        Some(Self::percent(50))
    }

    #[inline]
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        word(self.0)
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

    pub(crate) fn sample(samples: &Samples<'a>) -> Option<Self> {
        samples.event.map(Self::new)
    }

    #[inline]
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        // `{ CUevent event; int flags; int triggerAtBlockStart; }`.
        let mut v = empty();
        put(&mut v, 0, (self.event.cu_event() as usize).to_ne_bytes());
        put(
            &mut v,
            12,
            (self.trigger_at_block_start as i32).to_ne_bytes(),
        );
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

impl<'a> CompletionEvent<'a> {
    pub(crate) fn sample(samples: &Samples<'a>) -> Option<Self> {
        samples.event.map(Self)
    }

    #[inline]
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        // `{ CUevent event; int flags; }`.
        let mut v = empty();
        put(&mut v, 0, (self.0.cu_event() as usize).to_ne_bytes());
        v
    }
}

impl<'a> From<&'a CudaEvent> for CompletionEvent<'a> {
    fn from(event: &'a CudaEvent) -> Self {
        Self(event)
    }
}

// ---------------------------------------------------------------------------------------------
// CUDA 13.2

/// `CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE` (`CUlaunchAttributePortableClusterMode`):
/// whether the launch may use a cluster larger than the portable 8 blocks. Launch only. Needs
/// CUDA 13.2 (feature `cuda-13020` or later) and a driver that knows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum PortableClusterSizeMode {
    /// `CU_LAUNCH_PORTABLE_CLUSTER_MODE_DEFAULT`: the kernel's own setting decides.
    #[default]
    Default,
    /// `CU_LAUNCH_PORTABLE_CLUSTER_MODE_REQUIRE_PORTABLE`: at most the portable size.
    RequirePortable,
    /// `CU_LAUNCH_PORTABLE_CLUSTER_MODE_ALLOW_NON_PORTABLE`: larger clusters where the GPU has
    /// them.
    AllowNonPortable,
}

impl PortableClusterSizeMode {
    pub(crate) fn sample(_: &Samples<'_>) -> Option<Self> {
        Some(Self::RequirePortable)
    }

    // The enum's values are the same in every version that has it (0, 1, 2); encoded as the
    // plain number so the type exists with every CUDA feature.
    #[inline]
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        word(match self {
            Self::Default => 0,
            Self::RequirePortable => 1,
            Self::AllowNonPortable => 2,
        })
    }
}

/// `CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE` (`CUsharedMemoryMode`): whether the launch may use
/// more shared memory per block than is portable. Launch only. Needs CUDA 13.2 (feature
/// `cuda-13020` or later) and a driver that knows it; the oversized modes need CUDA 13.4
/// (feature `cuda-13040`).
///
/// The same values set the function attribute `CU_FUNC_ATTRIBUTE_SHARED_MEMORY_MODE` (CUDA 13.4)
/// through [`FunctionSharedMemoryMode`](crate::FunctionSharedMemoryMode).
///
/// Below CUDA 13.4, `SharedMemoryMode::AllowOversized` and `SharedMemoryMode::PreferOversized`
/// still name something, so that the error says what to do: constants of type
/// [`NeedsCuda13040`], which is not a `SharedMemoryMode` ("expected `SharedMemoryMode`, found
/// `NeedsCuda13040`").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SharedMemoryMode {
    /// `CU_SHARED_MEMORY_MODE_DEFAULT`: the function's
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` decides.
    #[default]
    Default,
    /// `CU_SHARED_MEMORY_MODE_REQUIRE_PORTABLE`: at most
    /// `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK`.
    RequirePortable,
    /// `CU_SHARED_MEMORY_MODE_ALLOW_NON_PORTABLE`: up to
    /// `CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`.
    AllowNonPortable,
    /// `CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY` (CUDA 13.4): oversized shared memory
    /// configurations may be used, up to `CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK`,
    /// leaving only 8 KiB of L1 cache.
    #[cfg(cuda_13040)]
    AllowOversized,
    /// `CU_SHARED_MEMORY_MODE_PREFER_OVERSIZED_SHARED_MEMORY` (CUDA 13.4): as `AllowOversized`,
    /// and an oversized configuration is preferred.
    #[cfg(cuda_13040)]
    PreferOversized,
}

/// The type of `SharedMemoryMode::AllowOversized` and `SharedMemoryMode::PreferOversized` below
/// CUDA 13.4: given where a [`SharedMemoryMode`] is expected, it is a type error ("expected
/// `SharedMemoryMode`, found `NeedsCuda13040`") that names the feature to use, `cuda-13040`.
#[derive(Clone, Copy)]
pub struct NeedsCuda13040;

/// The CUDA 13.4 values, below CUDA 13.4: they name the feature that has them.
#[cfg(not(cuda_13040))]
#[allow(non_upper_case_globals)]
impl SharedMemoryMode {
    /// `CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY`: needs CUDA 13.4 (feature
    /// `cuda-13040`); with an older feature it is a [`NeedsCuda13040`], not a mode.
    pub const AllowOversized: NeedsCuda13040 = NeedsCuda13040;
    /// `CU_SHARED_MEMORY_MODE_PREFER_OVERSIZED_SHARED_MEMORY`: needs CUDA 13.4 (feature
    /// `cuda-13040`); with an older feature it is a [`NeedsCuda13040`], not a mode.
    pub const PreferOversized: NeedsCuda13040 = NeedsCuda13040;
}

impl SharedMemoryMode {
    pub(crate) fn sample(_: &Samples<'_>) -> Option<Self> {
        Some(Self::Default)
    }

    /// The `CUsharedMemoryMode` value (the same in every version that has it).
    pub(crate) fn raw(self) -> u32 {
        match self {
            Self::Default => 0,
            Self::RequirePortable => 1,
            Self::AllowNonPortable => 2,
            #[cfg(cuda_13040)]
            Self::AllowOversized => 3,
            #[cfg(cuda_13040)]
            Self::PreferOversized => 4,
        }
    }

    /// Whether the mode allows oversized shared memory (CUDA 13.4).
    pub fn allows_oversized(self) -> bool {
        self.raw() >= 3
    }

    #[inline]
    fn encode(&self) -> sys::CUlaunchAttributeValue {
        word(self.raw())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_build_has_the_kinds_of_its_version() {
        assert!(spec::CUDA_VERSIONS.contains(&CUDA_VERSION));
        for kind in spec::KINDS {
            assert_eq!(
                raw_id(kind.id).is_some(),
                kind.in_version(CUDA_VERSION),
                "{}",
                kind.key
            );
            assert_eq!(KINDS.contains(kind), kind.in_version(CUDA_VERSION));
        }
    }

    #[test]
    fn every_kind_has_a_sample_but_events_need_an_event() {
        let samples = Samples {
            event: None,
            window: (0x1000, 256),
        };
        for kind in spec::KINDS {
            let event = kind.form == spec::ValueForm::Event;
            assert_eq!(samples.value(kind.id).is_none(), event, "{}", kind.key);
        }
        assert!(samples.value(15).is_none() && samples.value(0).is_none());
    }
}
