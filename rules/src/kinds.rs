//! The launch-attribute kinds: one row per `CU_LAUNCH_ATTRIBUTE_*` value, for every CUDA version
//! chevron supports.
//!
//! This table is the one declaration of a kind. The runtime builds its types' ids, placement
//! traits and its `KINDS` list from it (checked by const asserts), the macros take keys, value
//! forms, enum variants and version requirements from it, and the key tables in the guide
//! (`guide/src/launch.md`) and the `launch!` docs are generated from it ([`markdown_table`]) and
//! checked by a test.
//!
//! Placement (the `launch` and `stream` columns) was measured on an H200 by calling
//! `cuLaunchKernelEx` and `cuStreamSetAttribute` with a valid value of each kind; the runtime's
//! GPU test `placement_table_matches_the_driver` re-checks it against the driver it runs on.
//! The `graph` column (accepted by `cuGraphKernelNodeSetAttribute` on a kernel node captured
//! from a launch) was measured the same way on the same H200 (CUDA 13.0 driver) and is re-checked
//! by `graph_node_placement_matches_the_driver`; the CUDA 13.2 kinds' `graph` entries are
//! declared, not yet measured. A fourth column, what a launch on a capturing stream does with
//! each kind, is [`CAPTURE`] (documented where not measured yet).

mod capture;
mod docs;
#[cfg(test)]
mod tests;

pub use capture::{capture_row, CaptureRow, Captured, Evidence, CAPTURE};
pub use docs::{attributes_table, markdown_table, TABLE_BEGIN, TABLE_END};

/// Calls `$callback! { … }` with every CUDA version chevron (through cudarc) supports, oldest
/// first, as `cuda_12040 = 12040` pairs: the `cfg` (and marker type) name and cudarc's feature
/// number (`12040` is CUDA 12.4, feature `cuda-12040`).
///
/// This is the one list of versions: [`CUDA_VERSIONS`], the runtime's version markers and
/// `cfg`s and the macros' selected version are generated from it. A test checks that each name
/// is its number's.
#[macro_export]
macro_rules! for_each_cuda_version {
    ($callback:ident) => {
        $callback! {
            cuda_12000 = 12000, cuda_12010 = 12010, cuda_12020 = 12020, cuda_12030 = 12030,
            cuda_12040 = 12040, cuda_12050 = 12050, cuda_12060 = 12060, cuda_12080 = 12080,
            cuda_12090 = 12090, cuda_13000 = 13000, cuda_13010 = 13010, cuda_13020 = 13020,
            cuda_13030 = 13030, cuda_13040 = 13040,
        }
    };
}

macro_rules! versions {
    ($($name:ident = $number:literal),* $(,)?) => {
        /// Every CUDA version chevron (through cudarc) supports, as cudarc's feature numbers:
        /// `12040` is CUDA 12.4, feature `cuda-12040`.
        pub const CUDA_VERSIONS: &[u32] = &[$($number),*];

        /// Each version's number under its `cfg` name, for the rows of [`for_each_kind!`](crate::for_each_kind).
        #[doc(hidden)]
        #[allow(non_upper_case_globals)]
        pub mod cuda {
            $(
                #[doc = concat!("Feature `cuda-", $number, "`.")]
                pub const $name: u32 = $number;
            )*
        }

        /// The `cfg` name of each version in [`CUDA_VERSIONS`], in the same order.
        #[cfg(test)]
        const VERSION_NAMES: &[&str] = &[$(stringify!($name)),*];
    };
}

for_each_cuda_version!(versions);

/// The CUDA version chevron selects when no feature says otherwise (feature `cuda-13000`).
pub const DEFAULT_CUDA_VERSION: u32 = 13000;

/// The CUDA version that has `CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM`, the block of a launch in the
/// kernel's own block shape (`_` in `launch!`, `LaunchConfig::kernel_block`): 12.9. The macros
/// refuse `_` under an older feature, the runtime such a launch on an older driver.
pub const KERNEL_BLOCK_SINCE: u32 = cuda::cuda_12090;

/// `13000` as `"13.0"`.
pub fn version_name(version: u32) -> String {
    format!("{}.{}", version / 1000, version % 1000 / 10)
}

/// `13000` as `"cuda-13000"`, the Cargo feature that selects it.
pub fn feature_name(version: u32) -> String {
    format!("cuda-{version}")
}

/// The CUDA version of the `cuda-*` features that are on, as `on(version)` says: the oldest one
/// on, or `None` when none is. The build scripts of the runtime and the macros read the features
/// through it.
pub fn selected_version(on: impl Fn(u32) -> bool) -> Option<u32> {
    CUDA_VERSIONS.iter().copied().find(|v| on(*v))
}

/// The environment variable Cargo sets for a build script when feature `cuda-{version}` is on.
pub fn feature_env(version: u32) -> String {
    format!("CARGO_FEATURE_CUDA_{version}")
}

/// Where the driver takes a launch attribute: one entry point each. A kind's row lists the
/// positions it is accepted in ([`Kind::accepts`]); the runtime has a marker trait per position,
/// the macros a place in their grammar for the positions they can write.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Position {
    /// An entry of `cuLaunchKernelEx`'s attribute array: the launch list of `launch!` and
    /// `config!`, `LaunchConfig::with`.
    Launch,
    /// `cuStreamSetAttribute`: `stream(...)` in `launch!`, `LaunchConfig::with_stream`,
    /// `set_stream_attribute`. The value stays on the stream.
    Stream,
    /// `cuGraphKernelNodeSetAttribute` on a captured kernel node: `Graph::set_node_attribute`.
    GraphNode,
}

impl Position {
    /// Every position, in the order of the table's columns.
    pub const ALL: [Position; 3] = [Self::Launch, Self::Stream, Self::GraphNode];

    /// The driver call that takes the kinds of this position.
    pub const fn driver_call(self) -> &'static str {
        match self {
            Self::Launch => "cuLaunchKernelEx",
            Self::Stream => "cuStreamSetAttribute",
            Self::GraphNode => "cuGraphKernelNodeSetAttribute",
        }
    }

    /// The position's column in `ATTRIBUTES.md`: `stream`.
    pub const fn title(self) -> &'static str {
        match self {
            Self::Launch => "launch",
            Self::Stream => "stream",
            Self::GraphNode => "graph node",
        }
    }

    /// The position's column in the key table of the guide and the `launch!` docs, named as
    /// the DSL writes it: `` `stream(...)` ``.
    pub const fn dsl_title(self) -> &'static str {
        match self {
            Self::Launch => "launch list",
            Self::Stream => "`stream(...)`",
            Self::GraphNode => "graph node",
        }
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// A set of [`Position`]s: where one kind is accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Positions(u8);

impl Positions {
    /// The positions in `list`.
    pub const fn of(list: &[Position]) -> Self {
        let (mut bits, mut i) = (0, 0);
        while i < list.len() {
            bits |= list[i].bit();
            i += 1;
        }
        Self(bits)
    }

    /// Whether `position` is in the set.
    pub const fn contains(self, position: Position) -> bool {
        self.0 & position.bit() != 0
    }
}

/// How a key's value is written in `launch!`/`config!`, and so how the macros build the kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueForm {
    /// A flag: bare `key` (on) or `key = <bool>`; the kind is a unit struct.
    Flag,
    /// A dim (`u32`, `(u32, u32)`, `(u32, u32, u32)` or `impl Into<Dim3>`): `Kind::from_dim(e)`.
    Dim,
    /// A variant name of the kind's enum (`sync = Spin`), or an expression of the kind's type.
    Enum(&'static [&'static str]),
    /// An `i32` expression: `Kind(e)`.
    I32,
    /// A percentage 0 to 100: `Kind::percent(e)`.
    Percent,
    /// An event: anything the kind converts from (`&CudaEvent`), as `Kind::from(e)`.
    Event,
    /// An expression of the kind's type.
    Expr,
}

impl ValueForm {
    /// How to write the value, for messages: `` `cluster = <dim>` ``.
    pub fn describe(self, key: &str) -> String {
        match self {
            Self::Flag => format!("`{key}` or `{key} = <bool>`"),
            Self::Dim => format!(
                "`{key} = <dim>` (a `u32`, a tuple of two or three `u32`, or a `Dim3` expression)"
            ),
            Self::Enum(variants) => format!("`{key} = {}` or an expression", variants.join("|")),
            Self::I32 => format!("`{key} = <i32>`"),
            Self::Percent => format!("`{key} = <percent 0 to 100>`"),
            Self::Event => format!("`{key} = &event` (a `&CudaEvent`)"),
            Self::Expr => format!("`{key} = <expression>`"),
        }
    }
}

/// One launch-attribute kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// The key that names it in `launch!` and `config!`.
    pub key: &'static str,
    /// The runtime's type for it.
    pub type_name: &'static str,
    /// The `CU_LAUNCH_ATTRIBUTE_*` name.
    pub cuda_name: &'static str,
    /// The driver's id (`CUlaunchAttributeID`).
    pub id: u32,
    /// Where the driver accepts it.
    pub positions: Positions,
    /// How its value is written.
    pub form: ValueForm,
    /// The CUDA version that introduced it (cudarc's feature number: `12080` is CUDA 12.8).
    pub since: u32,
    /// The compute capability the driver needs for it, where it needs more than any GPU CUDA
    /// 12 supports.
    pub min_cc: Option<(u32, u32)>,
    /// The value, for the key tables in the docs.
    pub value: &'static str,
    /// A note for the placement column of the docs, where the placement has a condition.
    pub note: &'static str,
}

impl Kind {
    /// Whether the driver accepts this kind at `position`.
    pub const fn accepts(&self, position: Position) -> bool {
        self.positions.contains(position)
    }

    /// Whether CUDA `version` has this kind.
    pub const fn in_version(&self, version: u32) -> bool {
        version >= self.since
    }

    /// The message for a key used with a CUDA feature that lacks it:
    /// ``"`nvlink_centric` needs CUDA 13.0: use feature cuda-13000 or later"``.
    pub fn missing_message(&self) -> String {
        self.missing_message_const().as_str().to_string()
    }

    /// [`Self::missing_message`], built in a `const` (the runtime's `Attribute::ID` of a kind
    /// the selected version lacks panics with it).
    pub const fn missing_message_const(&self) -> ConstStr<MESSAGE_BYTES> {
        ConstStr::new()
            .push("`")
            .push(self.key)
            .push("` needs CUDA ")
            .push_u32(self.since / 1000)
            .push(".")
            .push_u32(self.since % 1000 / 10)
            .push(": use feature cuda-")
            .push_u32(self.since)
            .push(" or later")
    }
}

/// The capacity of a message built in a `const`.
pub const MESSAGE_BYTES: usize = 128;

/// A string built in a `const` context, of at most `N` bytes (longer input is cut at a
/// character boundary).
#[derive(Clone, Copy, Debug)]
pub struct ConstStr<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> ConstStr<N> {
    /// The empty string.
    pub const fn new() -> Self {
        Self {
            bytes: [0; N],
            len: 0,
        }
    }

    /// `self` followed by `s`.
    pub const fn push(mut self, s: &str) -> Self {
        let s = s.as_bytes();
        let mut i = 0;
        while i < s.len() && self.len < N {
            self.bytes[self.len] = s[i];
            self.len += 1;
            i += 1;
        }
        self
    }

    /// `self` followed by `n` in decimal.
    pub const fn push_u32(self, n: u32) -> Self {
        let mut digits = [0u8; 10];
        let (mut at, mut n) = (digits.len(), n);
        loop {
            at -= 1;
            digits[at] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        match core::str::from_utf8(digits.split_at(at).1) {
            Ok(text) => self.push(text),
            Err(_) => self,
        }
    }

    /// The string so far.
    pub const fn as_str(&self) -> &str {
        let mut len = self.len;
        loop {
            // A cut inside a character: shorten to the last whole one.
            match core::str::from_utf8(self.bytes.split_at(len).0) {
                Ok(text) => return text,
                Err(_) => len -= 1,
            }
        }
    }
}

impl<const N: usize> Default for ConstStr<N> {
    fn default() -> Self {
        Self::new()
    }
}

/// Calls `$callback! { … }` with every launch-attribute kind of every supported CUDA version,
/// one row each, in the driver's id order: the one declaration of a kind. One row reads
///
/// ```text
/// key: RustType<'lifetime?> = CU_LAUNCH_ATTRIBUTE_NAME (id),
///     at [positions…], form ValueForm ["variants"…]?, since cuda_NNNNN, cc any|(major, minor),
///     value "docs", note "docs"?;
/// ```
///
/// [`KINDS`] is built from it here; the runtime builds from it each kind's trait impls (its id,
/// version gate and missing-version message, a marker trait per position), its list of this
/// build's kinds and the sample values of its tests. The runtime's type named in the row must
/// exist, with the inherent functions its value form and positions need (`encode`, `sample`,
/// and `from_stream` where it is accepted on a stream): the compiler names any that is missing.
///
/// Placement (`at`) was measured on an H200 by calling `cuLaunchKernelEx`,
/// `cuStreamSetAttribute` and `cuGraphKernelNodeSetAttribute` (on a kernel node captured from a
/// launch, CUDA 13.0 driver) with a valid value of each kind; the runtime's GPU tests
/// `placement_table_matches_the_driver` and `graph_node_placement_matches_the_driver` re-check
/// it against the driver they run on. The CUDA 13.2 kinds' positions are declared from `cuda.h`,
/// not yet measured.
#[macro_export]
macro_rules! for_each_kind {
    ($callback:ident) => {
        $callback! {
            access_policy_window: AccessPolicyWindow = CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW (1),
                at [Launch, Stream, GraphNode], form Expr, since cuda_12000, cc any,
                value "an `AccessPolicyWindow`";
            cooperative: Cooperative = CU_LAUNCH_ATTRIBUTE_COOPERATIVE (2),
                at [Launch, GraphNode], form Flag, since cuda_12000, cc any,
                value "flag";
            sync: SyncPolicy = CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY (3),
                at [Stream], form Enum ["Auto", "Spin", "Yield", "BlockingSync"],
                since cuda_12000, cc any,
                value "`Auto`/`Spin`/`Yield`/`BlockingSync` or a `SyncPolicy`";
            cluster: ClusterDim = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION (4),
                at [Launch, GraphNode], form Dim, since cuda_12000, cc (9, 0),
                value "dim";
            cluster_scheduling: ClusterScheduling =
                CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE (5),
                at [Launch, GraphNode],
                form Enum ["Default", "Spread", "LoadBalancing",
                    // CU_CLUSTER_SCHEDULING_POLICY_RUBIN_DSMEM_LOCALITY (3).
                    "RubinDsmemLocality" since cuda_13040],
                since cuda_12000, cc (9, 0),
                value "`Default`/`Spread`/`LoadBalancing` (13.4: `RubinDsmemLocality`) or a `ClusterScheduling`";
            programmatic_serialization: ProgrammaticSerialization =
                CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION (6),
                at [Launch], form Flag, since cuda_12000, cc (9, 0),
                value "flag";
            programmatic_event: ProgrammaticEvent<'a> = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT (7),
                at [Launch], form Event, since cuda_12000, cc (9, 0),
                value "`&CudaEvent` or a `ProgrammaticEvent`";
            priority: Priority = CU_LAUNCH_ATTRIBUTE_PRIORITY (8),
                at [Launch, Stream, GraphNode], form I32, since cuda_12000, cc any,
                value "`i32`";
            mem_sync_domain_map: MemSyncDomainMap = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP (9),
                at [Launch, Stream, GraphNode], form Expr, since cuda_12000, cc any,
                value "a `MemSyncDomainMap`";
            mem_sync_domain: MemSyncDomain = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN (10),
                at [Launch, Stream, GraphNode], form Enum ["Default", "Remote"],
                since cuda_12000, cc any,
                value "`Default`/`Remote` or a `MemSyncDomain`";
            preferred_cluster: PreferredClusterDim =
                CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION (11),
                at [Launch], form Dim, since cuda_12080, cc (9, 0),
                value "dim";
            completion_event: CompletionEvent<'a> =
                CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT (12),
                at [Launch], form Event, since cuda_12030, cc any,
                value "`&CudaEvent`";
            device_updatable: DeviceUpdatable =
                CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE (13),
                at [Launch, GraphNode], form Flag, since cuda_12040, cc any,
                value "flag", note "while the stream captures";
            shared_carveout: SharedCarveout =
                CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT (14),
                at [Launch, GraphNode], form Percent, since cuda_12050, cc any,
                value "percent, 0 to 100";
            nvlink_centric: NvlinkCentric =
                CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING (16),
                at [Launch, GraphNode], form Flag, since cuda_13000, cc any,
                value "flag";
            portable_cluster_size_mode: PortableClusterSizeMode =
                CU_LAUNCH_ATTRIBUTE_PORTABLE_CLUSTER_SIZE_MODE (17),
                at [Launch, GraphNode], form Enum ["Default", "RequirePortable", "AllowNonPortable"],
                since cuda_13020, cc (9, 0),
                value "`Default`/`RequirePortable`/`AllowNonPortable` or a `PortableClusterSizeMode`";
            shared_memory_mode: SharedMemoryMode = CU_LAUNCH_ATTRIBUTE_SHARED_MEMORY_MODE (18),
                at [Launch, GraphNode],
                form Enum ["Default", "RequirePortable", "AllowNonPortable",
                    // CU_SHARED_MEMORY_MODE_ALLOW_OVERSIZED_SHARED_MEMORY (3) and
                    // CU_SHARED_MEMORY_MODE_PREFER_OVERSIZED_SHARED_MEMORY (4).
                    "AllowOversized" since cuda_13040, "PreferOversized" since cuda_13040],
                since cuda_13020, cc any,
                value "`Default`/`RequirePortable`/`AllowNonPortable` (13.4: `AllowOversized`/`PreferOversized`) or a `SharedMemoryMode`";
        }
    };
}

macro_rules! kinds {
    ($($key:ident: $ty:ident $(<$lt:lifetime>)? = $cuda:ident ($id:literal),
        at [$($position:ident),*],
        form $form:ident $([$($variant:literal $(since $variant_since:ident)?),*])?,
        since $since:ident, cc $cc:tt, value $value:literal $(, note $note:literal)?;)*) => {
        /// Every kind of every supported CUDA version, in the driver's id order: the rows of
        /// [`for_each_kind!`](crate::for_each_kind).
        pub const KINDS: &[Kind] = &[$(
            Kind {
                key: stringify!($key),
                type_name: stringify!($ty),
                cuda_name: stringify!($cuda),
                id: $id,
                positions: Positions::of(&[$(Position::$position),*]),
                form: ValueForm::$form $((&[$($variant),*]))?,
                since: cuda::$since,
                min_cc: kinds!(@cc $cc),
                value: $value,
                note: kinds!(@note $($note)?),
            },
        )*];

        /// Enum values of a kind that came with a later CUDA version than the kind: `(key,
        /// variant, version)`, the row's `"Variant" since cuda_NNNNN`. A variant not listed is as
        /// old as its kind.
        pub const LATER_VARIANTS: &[(&str, &str, u32)] = &[$($($($(
            (stringify!($key), $variant, cuda::$variant_since),
        )?)*)?)*];
    };
    (@cc any) => { None };
    (@cc ($major:literal, $minor:literal)) => { Some(($major, $minor)) };
    (@note) => { "" };
    (@note $note:literal) => { $note };
}

for_each_kind!(kinds);

/// The CUDA version that introduced value `variant` of kind `key`: the kind's own unless
/// [`LATER_VARIANTS`] lists it.
pub fn variant_since(key: &str, variant: &str) -> Option<u32> {
    let kind = by_key(key)?;
    Some(
        LATER_VARIANTS
            .iter()
            .find(|(k, v, _)| *k == key && *v == variant)
            .map_or(kind.since, |&(_, _, since)| since),
    )
}

/// The message for a value used with a CUDA feature that lacks it:
/// ``"`AllowOversized` (`shared_memory_mode`) needs CUDA 13.4: use feature cuda-13040 or later"``.
pub fn variant_missing_message(key: &str, variant: &str, since: u32) -> String {
    format!(
        "`{variant}` (`{key}`) needs CUDA {}: use feature {} or later",
        version_name(since),
        feature_name(since)
    )
}

/// The row of the kind with driver id `id`, in any supported version.
pub const fn by_id(id: u32) -> Option<&'static Kind> {
    let mut i = 0;
    while i < KINDS.len() {
        if KINDS[i].id == id {
            return Some(&KINDS[i]);
        }
        i += 1;
    }
    None
}

/// The row of the kind named `key` in `launch!`, in any supported version.
pub fn by_key(key: &str) -> Option<&'static Kind> {
    KINDS.iter().find(|k| k.key == key)
}

/// Whether two strings are equal, in a const context (for the runtime's const asserts).
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}
