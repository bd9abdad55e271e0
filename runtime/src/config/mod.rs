//! What a launch is made of, as values, with no driver call: [`Dim3`] and the extents a launch
//! position accepts (`dim`), the launch-attribute kinds and where the driver accepts each one
//! (`attr`), the kinds' test samples (`samples`), and here the config that holds them.
//!
//! [`LaunchConfig`]: grid, block, shared memory and attributes of a launch, as a reusable value.

use core::fmt;
use core::marker::PhantomData;
use core::mem::MaybeUninit;

use cudarc::driver::CudaEvent;

use crate::config::attr::{
    kind_info, u32_at, Attribute, ClusterDim, FlagAttribute, LaunchAttribute, PreferredClusterDim,
    Reached, SharedCarveout, StreamAttribute, KINDS,
};
use crate::config::dim::{Dim3, ExtentError};
use crate::sys;
use chevron_cuda_rules::kinds::Position;
use chevron_cuda_rules::limits::{
    check_launch, LaunchShape, Violation, MAX_BLOCK_DIM, MAX_BLOCK_THREADS, MAX_GRID_DIM,
};

pub(crate) mod attr;
pub(crate) mod dim;
mod samples;

/// How many launch-attribute kinds this build knows: the capacity of a config's attribute array.
/// Each kind appears at most once, so the array never overflows.
pub const MAX_LAUNCH_ATTRIBUTES: usize = count_kinds(Position::Launch);
/// How many stream-attribute kinds this build knows.
pub const MAX_STREAM_ATTRIBUTES: usize = count_kinds(Position::Stream);

/// The bit of kind `id` in a config's `present` mask. Ids from 63 on (none yet) share the top
/// bit, which then only says "maybe": the array is scanned, and removing one such kind leaves
/// the bit set.
#[inline(always)]
pub(crate) const fn bit(id: u32) -> u64 {
    1 << if id < 63 { id } else { 63 }
}

/// The kinds a stream capture drops (`chevron_cuda_rules::kinds::CAPTURE`, measured: accepted
/// by the launch, then found neither on the captured node nor on its edges).
pub(crate) const CAPTURE_DROPPED: u64 = {
    use chevron_cuda_rules::kinds::{Captured, CAPTURE, KINDS};
    let mut mask = 0;
    let mut k = 0;
    // One row per kind, in KINDS' order (a test of the rules crate checks it).
    while k < CAPTURE.len() && k < KINDS.len() {
        if matches!(CAPTURE[k].captured, Captured::Dropped) {
            mask |= bit(KINDS[k].id);
        }
        k += 1;
    }
    mask
};

/// The launch-attribute kinds with limit rules of their own ([`LaunchConfig::validate`]): a
/// config with none of them is checked on its grid and block alone.
const RULED_KINDS: u64 =
    bit(ClusterDim::KIND.id) | bit(PreferredClusterDim::KIND.id) | bit(SharedCarveout::KIND.id);

/// Whether `block` and `grid` are within their limits, in a few branch-free compares: what
/// [`check_launch`] checks of them when no attribute with a rule of its own is present. A
/// `const fn`, so that a config made at compile time can be given its flag there too.
#[inline(always)]
const fn extents_within_limits(grid: Dim3, block: Dim3) -> bool {
    // Extent in `1..=limit`: `x - 1 < limit`, 0 wrapping to `u32::MAX`.
    const fn within(d: Dim3, [lx, ly, lz]: [u32; 3]) -> bool {
        (d.x.wrapping_sub(1) < lx) & (d.y.wrapping_sub(1) < ly) & (d.z.wrapping_sub(1) < lz)
    }
    // Where the product wraps, an extent is over 1024 and `within` is false already.
    let threads = (block.x as u64)
        .wrapping_mul(block.y as u64)
        .wrapping_mul(block.z as u64);
    within(block, MAX_BLOCK_DIM) & (threads <= MAX_BLOCK_THREADS) & within(grid, MAX_GRID_DIM)
}

const fn count_kinds(position: Position) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < KINDS.len() {
        if KINDS[i].accepts(position) {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The block a launch in the kernel's own block shape hands the driver as `blockDimX` (with
/// `blockDimY = blockDimZ = 1`): `CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM` (CUDA 12.9, `cuda.h`:
/// "Launch with the required block dimension"). Written out so that the config builds under
/// every CUDA feature; a launch with it is refused below CUDA 12.9 before it reaches the driver.
pub(crate) const REQUIRED_BLOCK_DIM: u32 = 1;

#[cfg(cuda_12090)]
const _: () = assert!(REQUIRED_BLOCK_DIM == sys::CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM);

/// One stream attribute: what `cuStreamSetAttribute` takes.
type StreamEntry = (sys::CUstreamAttrID, sys::CUstreamAttrValue);

/// The grid, block, dynamic shared memory and attributes of a launch.
///
/// A plain value: build it once, inspect it, reuse it in a hot loop. Building allocates nothing
/// and writes only what is set: attributes live in fixed arrays sized by the number of kinds,
/// whose unused entries are never initialized. Adding a kind that is already there replaces it,
/// so the driver never sees a kind twice (it would silently accept that).
///
/// ```
/// use chevron::{ClusterDim, Cooperative, LaunchConfig, SyncPolicy};
///
/// let cfg = LaunchConfig::new((64, 1, 1), 256)
///     .shared(1024)
///     .with(Cooperative)
///     .with(ClusterDim::new(2, 1, 1))
///     .with_stream(SyncPolicy::Spin);
/// assert_eq!(cfg.launch_attributes().len(), 2);
/// assert_eq!(cfg.stream_attributes().len(), 1);
/// assert_eq!(cfg.shared_bytes(), 1024);
/// ```
///
/// A kind in the wrong place does not compile:
///
/// ```compile_fail,E0277
/// use chevron::{LaunchConfig, SyncPolicy};
/// let cfg = LaunchConfig::new(1, 1).with(SyncPolicy::Spin); // stream only
/// ```
///
/// ```compile_fail,E0277
/// use chevron::{Cooperative, LaunchConfig};
/// let cfg = LaunchConfig::new(1, 1).with_stream(Cooperative); // launch only
/// ```
///
/// The lifetime `'a` is that of the events an attribute refers to ([`crate::CompletionEvent`],
/// [`crate::ProgrammaticEvent`]): a config cannot outlive them.
#[derive(Clone, Copy)]
pub struct LaunchConfig<'a> {
    grid: Dim3,
    block: Dim3,
    shared: u32,
    /// The first `n_attrs` entries are initialized; the rest never are. A config is a large value
    /// (about 1.4 KiB with every kind's room) and `launch!` builds one per launch: filling the
    /// unused room cost more than the launch's own checks.
    attrs: [MaybeUninit<sys::CUlaunchAttribute>; MAX_LAUNCH_ATTRIBUTES],
    n_attrs: usize,
    /// Bit `id` set for each launch-attribute kind present (ids from 63 on: see [`bit`]), so
    /// that asking for a kind that is absent, as every launch's checks do for the cluster, the
    /// preferred cluster, the carveout, `cooperative` and `programmatic_serialization`, costs no
    /// scan of the array.
    present: u64,
    /// As `attrs`: the first `n_stream_attrs` entries are initialized.
    stream_attrs: [MaybeUninit<StreamEntry>; MAX_STREAM_ATTRIBUTES],
    n_stream_attrs: usize,
    non_portable_cluster: bool,
    /// The block is the kernel's own ([`Self::kernel_block`]): `block` holds the driver's
    /// sentinel, [`REQUIRED_BLOCK_DIM`].
    kernel_block: bool,
    /// An extent given as another integer type that did not fit `u32` (see [`Self::validate`]).
    invalid: Option<(&'static str, ExtentError)>,
    /// No such extent, and the grid and block within their limits: decided when the config is
    /// made (the grid and block never change afterwards; a bad shared-memory extent clears it),
    /// so that a launch's limit check reads one flag (see [`Self::plainly_valid`]).
    extents_plain: bool,
    _events: PhantomData<&'a CudaEvent>,
}

// SAFETY: the raw pointers inside are driver handles (events) and device addresses, which the
// driver lets any thread use; `'a` keeps the events alive.
unsafe impl Send for LaunchConfig<'_> {}
// SAFETY: as above; a config is never mutated through a shared reference.
unsafe impl Sync for LaunchConfig<'_> {}

impl<'a> LaunchConfig<'a> {
    /// A launch of `grid` blocks of `block` threads, no dynamic shared memory, no attributes.
    #[inline(always)]
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Self {
        let (grid, block) = (grid.into(), block.into());
        Self {
            grid,
            block,
            shared: 0,
            attrs: [const { MaybeUninit::uninit() }; MAX_LAUNCH_ATTRIBUTES],
            n_attrs: 0,
            present: 0,
            stream_attrs: [const { MaybeUninit::uninit() }; MAX_STREAM_ATTRIBUTES],
            n_stream_attrs: 0,
            non_portable_cluster: false,
            kernel_block: false,
            invalid: None,
            extents_plain: extents_within_limits(grid, block),
            _events: PhantomData,
        }
    }

    /// A launch of `grid` in the kernel's own block shape: the block the kernel was compiled
    /// with (`.reqntid`, from CUDA 13's `__block_size__`), which the driver takes from the
    /// kernel (`CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM` in place of the block). For a kernel
    /// compiled with `__block_size__((x, y, z), (cx, cy, cz))` (`.blocksareclusters`) the grid
    /// counts clusters of `(cx, cy, cz)` blocks. `_` in the block position of `launch!` and
    /// `config!`.
    ///
    /// A typed launch refuses it for a kernel without compiled-in block dimensions
    /// ([`crate::Error::KernelConstraint`]; `launch!` at compile time). The launch needs CUDA
    /// 12.9 (feature `cuda-12090`) and a CUDA 12.9 driver, else [`crate::Error::Unavailable`].
    /// [`Self::block`] is then `(1, 1, 1)`, what the driver receives.
    ///
    /// ```
    /// use chevron::LaunchConfig;
    /// let cfg = LaunchConfig::kernel_block(3);
    /// assert!(cfg.uses_kernel_block());
    /// assert_eq!(cfg.grid().x, 3);
    /// ```
    #[inline(always)]
    pub fn kernel_block(grid: impl Into<Dim3>) -> Self {
        let mut config = Self::new(grid, Dim3::new(REQUIRED_BLOCK_DIM, 1, 1));
        config.kernel_block = true;
        config
    }

    /// What `launch!`/`config!` build on for `<<<GRID, _>>>`: [`Self::kernel_block`] with the
    /// grid converted from any integer type, an out-of-range one kept for [`Self::validate`].
    #[doc(hidden)]
    #[inline(always)]
    pub fn __from_grid_kernel_block(grid: Result<Dim3, ExtentError>) -> Self {
        let mut config = Self::__from_extents(grid, Ok(Dim3::new(REQUIRED_BLOCK_DIM, 1, 1)));
        config.kernel_block = true;
        config
    }

    /// Whether the launch takes the kernel's own block shape ([`Self::kernel_block`]).
    #[inline(always)]
    pub fn uses_kernel_block(&self) -> bool {
        self.kernel_block
    }

    /// [`Self::__from_extents`] of a grid and a block of literals (`launch!`'s, `config!`'s).
    #[doc(hidden)]
    #[inline(always)]
    pub fn __from_grid_block(grid: Result<Dim3, ExtentError>, x: u32, y: u32, z: u32) -> Self {
        Self::__from_extents(grid, Ok(Dim3::new(x, y, z)))
    }

    /// What `launch!`/`config!` build on: extents converted from any integer type, an
    /// out-of-range one kept for [`Self::validate`] to report.
    #[doc(hidden)]
    #[inline(always)]
    pub fn __from_extents(
        grid: Result<Dim3, ExtentError>,
        block: Result<Dim3, ExtentError>,
    ) -> Self {
        let mut config = Self::new(
            grid.unwrap_or(Dim3::new(1, 1, 1)),
            block.unwrap_or(Dim3::new(1, 1, 1)),
        );
        config.invalid = match (grid, block) {
            (Err(e), _) => Some(("grid", e)),
            (_, Err(e)) => Some(("block", e)),
            _ => None,
        };
        config.extents_plain &= config.invalid.is_none();
        config
    }

    /// [`Self::shared`] for `launch!`/`config!`: an out-of-range byte count is kept for
    /// [`Self::validate`].
    #[doc(hidden)]
    #[inline(always)]
    pub fn __shared_extent(mut self, bytes: Result<u32, ExtentError>) -> Self {
        self.__set_shared_extent(bytes);
        self
    }

    /// [`Self::__shared_extent`] in place: `launch!` and `config!` build their config in place,
    /// one statement per item, so that the value is never moved while it is built.
    #[doc(hidden)]
    #[inline(always)]
    pub fn __set_shared_extent(&mut self, bytes: Result<u32, ExtentError>) {
        match bytes {
            Ok(b) => self.shared = b,
            Err(e) => {
                self.invalid = self.invalid.or(Some(("shared", e)));
                self.extents_plain = false;
            }
        }
    }

    /// Sets the dynamic shared memory per block, in bytes.
    #[inline(always)]
    pub fn shared(mut self, bytes: u32) -> Self {
        self.shared = bytes;
        self
    }

    /// Allows a cluster of 9 to 16 blocks (the portable limit is 8): before the first such launch
    /// of a function, chevron sets `CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED` on it,
    /// once per function. Without it, [`Self::validate`] rejects clusters over 8 blocks.
    /// `non_portable_cluster` in `launch!`/`config!`. Needs compute capability 9.0; the GPU
    /// decides the actual maximum (16 on an H100/H200).
    ///
    /// ```
    /// use chevron::{ClusterDim, LaunchConfig};
    /// let cfg = LaunchConfig::new(32, 128).with(ClusterDim::new(16, 1, 1));
    /// assert!(cfg.validate().is_err());
    /// assert!(cfg.non_portable_cluster().validate().is_ok());
    /// ```
    #[inline(always)]
    pub fn non_portable_cluster(mut self) -> Self {
        self.__set_non_portable_cluster();
        self
    }

    /// [`Self::non_portable_cluster`] in place (see [`Self::__set_shared_extent`]).
    #[doc(hidden)]
    #[inline(always)]
    pub fn __set_non_portable_cluster(&mut self) {
        self.non_portable_cluster = true;
    }

    /// Whether a launch with this config needs nothing besides `cuLaunchKernelEx`: no dynamic
    /// shared memory (whose opt-in is looked up per function), no non-portable cluster, no
    /// stream attribute, not the kernel's own block (whose driver version is checked first), no
    /// kind a stream capture drops (whose stream is asked whether it captures).
    #[inline(always)]
    pub(crate) fn is_plain(&self) -> bool {
        (self.shared == 0)
            & !self.non_portable_cluster
            & (self.n_stream_attrs == 0)
            & !self.kernel_block
            & (self.present & CAPTURE_DROPPED == 0)
    }

    /// Whether [`Self::non_portable_cluster`] was set.
    #[inline]
    pub fn allows_non_portable_cluster(&self) -> bool {
        self.non_portable_cluster
    }

    /// Adds a launch attribute, replacing one of the same kind.
    #[inline(always)]
    pub fn with<A: LaunchAttribute + 'a>(mut self, attr: A) -> Self
    where
        A::Since: Reached<A>,
    {
        self.__set(attr);
        self
    }

    /// [`Self::with`] in place (see [`Self::__set_shared_extent`]).
    #[doc(hidden)]
    #[inline(always)]
    pub fn __set<A: LaunchAttribute + 'a>(&mut self, attr: A)
    where
        A::Since: Reached<A>,
    {
        let entry = sys::CUlaunchAttribute {
            id: A::ID,
            pad: [0; 4],
            value: attr.value(),
        };
        match self.launch_attributes().iter().position(|a| a.id == A::ID) {
            Some(i) => self.attrs[i] = MaybeUninit::new(entry),
            None => {
                // Each kind is present at most once and the array has room for every kind.
                self.attrs[self.n_attrs] = MaybeUninit::new(entry);
                self.n_attrs += 1;
                self.present |= bit(A::ID as u32);
            }
        }
    }

    /// Adds the flag `attr` when `on`, removes it otherwise (`cooperative = false` in `launch!`).
    #[inline(always)]
    pub fn with_flag<A: FlagAttribute + 'a>(mut self, attr: A, on: bool) -> Self
    where
        A::Since: Reached<A>,
    {
        self.__set_flag(attr, on);
        self
    }

    /// [`Self::with_flag`] in place (see [`Self::__set_shared_extent`]).
    #[doc(hidden)]
    #[inline(always)]
    pub fn __set_flag<A: FlagAttribute + 'a>(&mut self, attr: A, on: bool)
    where
        A::Since: Reached<A>,
    {
        if on {
            self.__set(attr);
        } else {
            self.remove::<A>();
        }
    }

    /// Removes the launch attribute of kind `A`, if present.
    #[inline(always)]
    pub fn without<A: LaunchAttribute>(mut self) -> Self
    where
        A::Since: Reached<A>,
    {
        self.remove::<A>();
        self
    }

    #[inline(always)]
    fn remove<A: LaunchAttribute>(&mut self)
    where
        A::Since: Reached<A>,
    {
        if let Some(i) = self.launch_attributes().iter().position(|a| a.id == A::ID) {
            self.attrs.copy_within(i + 1..self.n_attrs, i);
            self.n_attrs -= 1;
            if (A::ID as u32) < 63 {
                self.present &= !bit(A::ID as u32);
            }
        }
    }

    /// Adds a stream attribute, replacing one of the same kind. It is set on the launch's stream
    /// with `cuStreamSetAttribute` before the launch, and stays set on that stream afterwards.
    #[inline(always)]
    pub fn with_stream<A: StreamAttribute>(mut self, attr: A) -> Self
    where
        A::Since: Reached<A>,
    {
        self.__set_stream(attr);
        self
    }

    /// [`Self::with_stream`] in place (see [`Self::__set_shared_extent`]).
    #[doc(hidden)]
    #[inline(always)]
    pub fn __set_stream<A: StreamAttribute>(&mut self, attr: A)
    where
        A::Since: Reached<A>,
    {
        let entry = MaybeUninit::new((A::ID, attr.value()));
        match self
            .stream_attributes()
            .iter()
            .position(|(id, _)| *id == A::ID)
        {
            Some(i) => self.stream_attrs[i] = entry,
            None => {
                self.stream_attrs[self.n_stream_attrs] = entry;
                self.n_stream_attrs += 1;
            }
        }
    }

    /// The grid, in blocks.
    #[inline]
    pub fn grid(&self) -> Dim3 {
        self.grid
    }

    /// The block, in threads; `(1, 1, 1)`, what the driver receives, for a launch in the
    /// kernel's own block shape ([`Self::uses_kernel_block`]).
    #[inline]
    pub fn block(&self) -> Dim3 {
        self.block
    }

    /// Dynamic shared memory per block, in bytes.
    #[inline]
    pub fn shared_bytes(&self) -> u32 {
        self.shared
    }

    /// The driver's `CUlaunchConfig` for `stream`: grid, block, dynamic shared memory and the
    /// attribute array, which it points into (valid while `self` is, and not to be changed
    /// through: the driver only reads it). For the kernel's own block shape the block is already
    /// `(CU_LAUNCH_KERNEL_REQUIRED_BLOCK_DIM, 1, 1)`.
    #[inline]
    pub(crate) fn raw(&self, stream: sys::CUstream) -> sys::CUlaunchConfig {
        let attrs = self.launch_attributes();
        sys::CUlaunchConfig {
            gridDimX: self.grid.x,
            gridDimY: self.grid.y,
            gridDimZ: self.grid.z,
            blockDimX: self.block.x,
            blockDimY: self.block.y,
            blockDimZ: self.block.z,
            sharedMemBytes: self.shared,
            hStream: stream,
            attrs: attrs.as_ptr() as *mut sys::CUlaunchAttribute,
            // At most one entry per kind: far below `u32::MAX`.
            numAttrs: attrs.len() as u32,
        }
    }

    /// [`Self::raw`], for the host-cost benchmark (`benches/host_cost.rs`), which reads back what
    /// a launch would hand the driver. Not a public API.
    #[doc(hidden)]
    #[inline(always)]
    pub fn __driver_config(&self, stream: sys::CUstream) -> sys::CUlaunchConfig {
        self.raw(stream)
    }

    /// Exactly the attribute array `cuLaunchKernelEx` receives.
    #[inline(always)]
    pub fn launch_attributes(&self) -> &[sys::CUlaunchAttribute] {
        // SAFETY: the first `n_attrs` entries are initialized (every writer keeps it so), and
        // `MaybeUninit<T>` has `T`'s layout.
        unsafe {
            core::slice::from_raw_parts(
                self.attrs.as_ptr().cast::<sys::CUlaunchAttribute>(),
                self.n_attrs,
            )
        }
    }

    /// Exactly the `(id, value)` pairs `cuStreamSetAttribute` receives, in order.
    #[inline(always)]
    pub fn stream_attributes(&self) -> &[(sys::CUstreamAttrID, sys::CUstreamAttrValue)] {
        // SAFETY: as in `launch_attributes`, for the first `n_stream_attrs` entries.
        unsafe {
            core::slice::from_raw_parts(
                self.stream_attrs.as_ptr().cast::<StreamEntry>(),
                self.n_stream_attrs,
            )
        }
    }

    /// The kinds present, one bit each (see [`bit`]).
    #[inline(always)]
    pub(crate) fn present(&self) -> u64 {
        self.present
    }

    /// Whether a launch attribute of kind `A` is present.
    #[inline]
    pub fn has<A: LaunchAttribute>(&self) -> bool
    where
        A::Since: Reached<A>,
    {
        self.launch_value(A::KIND.id).is_some()
    }

    /// Whether the config has a launch attribute that a stream capture drops: one mask test.
    #[inline(always)]
    pub(crate) fn has_capture_dropped(&self) -> bool {
        self.present & CAPTURE_DROPPED != 0
    }

    /// The keys of the config's launch attributes that a stream capture drops
    /// ([`CAPTURE_DROPPED`]); empty (no scan) for a config with none.
    #[inline]
    pub(crate) fn capture_dropped(&self) -> Vec<&'static str> {
        if self.present & CAPTURE_DROPPED == 0 {
            return Vec::new();
        }
        self.launch_attributes()
            .iter()
            .filter(|a| CAPTURE_DROPPED & bit(a.id as u32) != 0)
            .filter_map(|a| chevron_cuda_rules::kinds::by_id(a.id as u32).map(|k| k.key))
            .collect()
    }

    /// The value of the launch attribute with driver id `id` (a `u32`, so that kinds of newer
    /// CUDA versions can be named with every feature).
    #[inline]
    pub(crate) fn launch_value(&self, id: u32) -> Option<&sys::CUlaunchAttributeValue> {
        if self.present & bit(id) == 0 {
            return None;
        }
        self.launch_attributes()
            .iter()
            .find(|a| a.id as u32 == id)
            .map(|a| &a.value)
    }

    #[inline]
    fn dim_value(&self, id: u32) -> Option<Dim3> {
        // Both dim kinds are `{ unsigned x, y, z; }` at offset 0.
        let v = self.launch_value(id)?;
        Some(Dim3::new(u32_at(v, 0), u32_at(v, 4), u32_at(v, 8)))
    }

    /// The cluster extent, if a [`crate::ClusterDim`] is set.
    #[inline]
    pub fn cluster(&self) -> Option<Dim3> {
        self.dim_value(ClusterDim::KIND.id)
    }

    /// The preferred cluster extent, if a [`crate::PreferredClusterDim`] is set.
    #[inline]
    pub fn preferred_cluster(&self) -> Option<Dim3> {
        self.dim_value(PreferredClusterDim::KIND.id)
    }

    #[inline]
    fn shared_carveout(&self) -> Option<u32> {
        self.launch_value(SharedCarveout::KIND.id)
            .map(|v| u32_at(v, 0))
    }

    /// Checks the limits the driver enforces on every launch, so that a value known only at run
    /// time gets a precise message: block extents (x, y ≤ 1024, z ≤ 64, volume ≤ 1024, none 0),
    /// grid extents (none 0, y and z ≤ 65535), cluster extents (none 0), volume (≤ 8, or ≤ 16
    /// with [`Self::non_portable_cluster`]) and divisibility of the grid, the preferred cluster
    /// against the cluster, carveout ≤ 100 %. The rules and their wording are the ones `launch!`
    /// and `config!` apply to literals (`chevron_cuda_rules::limits`).
    ///
    /// [`crate::launch_function`] calls this before each launch and returns a violation as
    /// [`crate::Error::InvalidConfig`]; it is a handful of comparisons.
    ///
    /// First comes a `launch!`/`config!` extent or `shared` written as `usize`, `u64` or `i32`
    /// that is negative or over `u32::MAX` ([`Violation::NotU32`]).
    #[inline]
    pub fn validate(&self) -> Result<(), Violation> {
        if self.plainly_valid() {
            return Ok(());
        }
        self.validate_all()
    }

    /// Whether the config passes [`Self::validate`] on its grid and block alone: every extent
    /// given fitted `u32`, no attribute with a rule of its own (cluster, preferred cluster,
    /// carveout), and block and grid within their limits. Then no other rule applies; this is
    /// what [`check_launch`] checks of such a config. The extents were compared when the config
    /// was made ([`extents_within_limits`]): a launch tests a flag and a mask. Anything else goes
    /// to the rules one by one, which also name the first violation.
    #[inline(always)]
    pub(crate) fn plainly_valid(&self) -> bool {
        self.extents_plain & (self.present & RULED_KINDS == 0)
    }

    /// [`Self::validate`] rule by rule: the first violation, in the order the macros report.
    #[cold]
    #[inline(never)]
    fn validate_all(&self) -> Result<(), Violation> {
        if let Some((what, e)) = self.invalid {
            return Err(e.violation(what));
        }
        check_launch(&self.shape())
    }

    /// What the limit rules look at.
    #[inline]
    pub fn shape(&self) -> LaunchShape {
        let arr = |d: Dim3| [d.x, d.y, d.z];
        LaunchShape {
            grid: arr(self.grid),
            block: arr(self.block),
            cluster: self.cluster().map(arr),
            preferred_cluster: self.preferred_cluster().map(arr),
            carveout: self.shared_carveout(),
            non_portable_cluster: self.non_portable_cluster,
        }
    }

    /// The config's attributes as `key (CU_LAUNCH_ATTRIBUTE_…)` names, for messages.
    pub fn describe_attributes(&self) -> String {
        let launch = self.launch_attributes().iter().map(|a| a.id);
        let stream = self.stream_attributes().iter().map(|(id, _)| *id);
        let mut out = String::new();
        for (i, id) in launch.chain(stream).enumerate() {
            let where_ = if i < self.n_attrs { "" } else { "stream " };
            if !out.is_empty() {
                out.push_str(", ");
            }
            match kind_info(id) {
                Some(k) => out.push_str(&format!("{where_}{} ({})", k.key, k.cuda_name)),
                None => out.push_str(&format!("{where_}{id:?}")),
            }
        }
        out
    }
}

impl fmt::Debug for LaunchConfig<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = |ids: &mut dyn Iterator<Item = sys::CUlaunchAttributeID>| {
            ids.map(|id| kind_info(id).map_or("?", |k| k.key))
                .collect::<Vec<_>>()
        };
        f.debug_struct("LaunchConfig")
            .field("grid", &self.grid)
            .field("block", &self.block)
            .field("kernel_block", &self.kernel_block)
            .field("shared", &self.shared)
            .field(
                "attributes",
                &names(&mut self.launch_attributes().iter().map(|a| a.id)),
            )
            .field(
                "stream_attributes",
                &names(&mut self.stream_attributes().iter().map(|a| a.0)),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests;
