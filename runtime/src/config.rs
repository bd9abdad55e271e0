//! [`LaunchConfig`]: grid, block, shared memory and attributes of a launch, as a reusable value.

use core::fmt;
use core::marker::PhantomData;

use cudarc::driver::CudaEvent;

use crate::attr::{kind_info, FlagAttribute, LaunchAttribute, StreamAttribute, KINDS};
use crate::dim::{Dim3, ExtentError};
use crate::sys;

/// How many launch-attribute kinds this build knows: the capacity of a config's attribute array.
/// Each kind appears at most once, so the array never overflows.
pub const MAX_LAUNCH_ATTRIBUTES: usize = count_kinds(true);
/// How many stream-attribute kinds this build knows.
pub const MAX_STREAM_ATTRIBUTES: usize = count_kinds(false);

const fn count_kinds(launch: bool) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < KINDS.len() {
        if (launch && KINDS[i].launch) || (!launch && KINDS[i].stream) {
            n += 1;
        }
        i += 1;
    }
    n
}

/// The driver's per-axis block limits (x, y, z), in threads.
pub const MAX_BLOCK_DIM: [u32; 3] = [1024, 1024, 64];
/// The driver's limit on threads per block.
pub const MAX_BLOCK_THREADS: u64 = 1024;
/// The driver's per-axis grid limits (x, y, z), in blocks.
pub const MAX_GRID_DIM: [u32; 3] = [i32::MAX as u32, 65535, 65535];
/// Blocks per cluster every cluster-capable GPU accepts without the kernel opting into more.
pub const PORTABLE_CLUSTER_BLOCKS: u64 = 8;
/// The largest [`crate::SharedCarveout`], in percent.
pub const MAX_SHARED_CARVEOUT: u32 = 100;

const EMPTY_VALUE: sys::CUlaunchAttributeValue = sys::CUlaunchAttributeValue { pad: [0; 64] };
const EMPTY_ATTR: sys::CUlaunchAttribute = sys::CUlaunchAttribute {
    id: sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_IGNORE,
    pad: [0; 4],
    value: EMPTY_VALUE,
};

/// The grid, block, dynamic shared memory and attributes of a launch.
///
/// A plain value: build it once, inspect it, reuse it in a hot loop. Building allocates nothing;
/// attributes live in fixed arrays sized by the number of kinds. Adding a kind that is already
/// there replaces it, so the driver never sees a kind twice (it would silently accept that).
///
/// ```
/// use chevron_cuda_runtime::{ClusterDim, Cooperative, LaunchConfig, SyncPolicy};
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
/// ```compile_fail
/// use chevron_cuda_runtime::{LaunchConfig, SyncPolicy};
/// let cfg = LaunchConfig::new(1, 1).with(SyncPolicy::Spin); // stream only
/// ```
///
/// ```compile_fail
/// use chevron_cuda_runtime::{Cooperative, LaunchConfig};
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
    attrs: [sys::CUlaunchAttribute; MAX_LAUNCH_ATTRIBUTES],
    n_attrs: usize,
    stream_attrs: [(sys::CUstreamAttrID, sys::CUstreamAttrValue); MAX_STREAM_ATTRIBUTES],
    n_stream_attrs: usize,
    /// An extent given as another integer type that did not fit `u32` (see [`Self::validate`]).
    invalid: Option<(&'static str, ExtentError)>,
    _events: PhantomData<&'a CudaEvent>,
}

// SAFETY: the raw pointers inside are driver handles (events) and device addresses, which the
// driver lets any thread use; `'a` keeps the events alive.
unsafe impl Send for LaunchConfig<'_> {}
// SAFETY: as above; a config is never mutated through a shared reference.
unsafe impl Sync for LaunchConfig<'_> {}

impl<'a> LaunchConfig<'a> {
    /// A launch of `grid` blocks of `block` threads, no dynamic shared memory, no attributes.
    pub fn new(grid: impl Into<Dim3>, block: impl Into<Dim3>) -> Self {
        Self {
            grid: grid.into(),
            block: block.into(),
            shared: 0,
            attrs: [EMPTY_ATTR; MAX_LAUNCH_ATTRIBUTES],
            n_attrs: 0,
            stream_attrs: [(
                sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_IGNORE,
                EMPTY_VALUE,
            ); MAX_STREAM_ATTRIBUTES],
            n_stream_attrs: 0,
            invalid: None,
            _events: PhantomData,
        }
    }

    /// What `launch!`/`config!` build on: extents converted from any integer type, an
    /// out-of-range one kept for [`Self::validate`] to report.
    #[doc(hidden)]
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
        config
    }

    /// [`Self::shared`] for `launch!`/`config!`: an out-of-range byte count is kept for
    /// [`Self::validate`].
    #[doc(hidden)]
    pub fn __shared_extent(mut self, bytes: Result<u32, ExtentError>) -> Self {
        match bytes {
            Ok(b) => self.shared = b,
            Err(e) => {
                self.invalid = self.invalid.or(Some(("shared", e)));
            }
        }
        self
    }

    /// Sets the dynamic shared memory per block, in bytes.
    pub fn shared(mut self, bytes: u32) -> Self {
        self.shared = bytes;
        self
    }

    /// Adds a launch attribute, replacing one of the same kind.
    pub fn with<A: LaunchAttribute + 'a>(mut self, attr: A) -> Self {
        let entry = sys::CUlaunchAttribute {
            id: A::ID,
            pad: [0; 4],
            value: attr.value(),
        };
        match self.attrs[..self.n_attrs]
            .iter()
            .position(|a| a.id == A::ID)
        {
            Some(i) => self.attrs[i] = entry,
            None => {
                self.attrs[self.n_attrs] = entry;
                self.n_attrs += 1;
            }
        }
        self
    }

    /// Adds the flag `attr` when `on`, removes it otherwise (`cooperative = false` in `launch!`).
    pub fn with_flag<A: FlagAttribute + 'a>(self, attr: A, on: bool) -> Self {
        if on {
            self.with(attr)
        } else {
            self.without::<A>()
        }
    }

    /// Removes the launch attribute of kind `A`, if present.
    pub fn without<A: LaunchAttribute>(mut self) -> Self {
        if let Some(i) = self.attrs[..self.n_attrs]
            .iter()
            .position(|a| a.id == A::ID)
        {
            self.attrs.copy_within(i + 1..self.n_attrs, i);
            self.n_attrs -= 1;
            self.attrs[self.n_attrs] = EMPTY_ATTR;
        }
        self
    }

    /// Adds a stream attribute, replacing one of the same kind. It is set on the launch's stream
    /// with `cuStreamSetAttribute` before the launch, and stays set on that stream afterwards.
    pub fn with_stream<A: StreamAttribute>(mut self, attr: A) -> Self {
        let entry = (A::ID, attr.value());
        let set = &self.stream_attrs[..self.n_stream_attrs];
        match set.iter().position(|(id, _)| *id == A::ID) {
            Some(i) => self.stream_attrs[i] = entry,
            None => {
                self.stream_attrs[self.n_stream_attrs] = entry;
                self.n_stream_attrs += 1;
            }
        }
        self
    }

    /// The grid, in blocks.
    pub fn grid(&self) -> Dim3 {
        self.grid
    }

    /// The block, in threads.
    pub fn block(&self) -> Dim3 {
        self.block
    }

    /// Dynamic shared memory per block, in bytes.
    pub fn shared_bytes(&self) -> u32 {
        self.shared
    }

    /// Exactly the attribute array `cuLaunchKernelEx` receives.
    pub fn launch_attributes(&self) -> &[sys::CUlaunchAttribute] {
        &self.attrs[..self.n_attrs]
    }

    /// Exactly the `(id, value)` pairs `cuStreamSetAttribute` receives, in order.
    pub fn stream_attributes(&self) -> &[(sys::CUstreamAttrID, sys::CUstreamAttrValue)] {
        &self.stream_attrs[..self.n_stream_attrs]
    }

    /// Whether a launch attribute of kind `A` is present.
    pub fn has<A: LaunchAttribute>(&self) -> bool {
        self.launch_value(A::ID).is_some()
    }

    pub(crate) fn launch_value(
        &self,
        id: sys::CUlaunchAttributeID,
    ) -> Option<&sys::CUlaunchAttributeValue> {
        self.launch_attributes()
            .iter()
            .find(|a| a.id == id)
            .map(|a| &a.value)
    }

    /// The cluster extent, if a [`crate::ClusterDim`] is set.
    pub fn cluster(&self) -> Option<Dim3> {
        let v =
            self.launch_value(sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)?;
        // SAFETY: the entry with this id was written through `clusterDim`.
        let c = unsafe { v.clusterDim };
        Some(Dim3::new(c.x, c.y, c.z))
    }

    /// The preferred cluster extent, if a [`crate::PreferredClusterDim`] is set.
    pub fn preferred_cluster(&self) -> Option<Dim3> {
        let id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION;
        let v = self.launch_value(id)?;
        // SAFETY: the entry with this id was written through `preferredClusterDim`.
        let c = unsafe { v.preferredClusterDim };
        Some(Dim3::new(c.x, c.y, c.z))
    }

    fn shared_carveout(&self) -> Option<u32> {
        let id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
        // SAFETY: the entry with this id was written through `sharedMemCarveout`.
        self.launch_value(id)
            .map(|v| unsafe { v.sharedMemCarveout })
    }

    /// Checks the limits the driver enforces on every launch, so that a value known only at run
    /// time gets a precise message: block extents (x, y ≤ 1024, z ≤ 64, volume ≤ 1024, none 0),
    /// grid extents (none 0, y and z ≤ 65535), cluster extents (none 0) and divisibility of the
    /// grid, the preferred cluster against the cluster, carveout ≤ 100 %. Cluster volumes over
    /// the portable 8 are left to the driver, which allows up to 16 for kernels that opt in.
    /// First, a `launch!`/`config!` extent or `shared` written as `usize`, `u64` or `i32` that
    /// is negative or over `u32::MAX`.
    ///
    /// [`crate::launch_function`] calls this before each launch; it is a handful of comparisons.
    pub fn validate(&self) -> Result<(), String> {
        if let Some((what, e)) = self.invalid {
            return Err(e.message(what));
        }
        let (g, b) = (self.grid, self.block);
        if b.x == 0 || b.y == 0 || b.z == 0 {
            return Err(format!("block {b} has a zero extent"));
        }
        let [bx, by, bz] = MAX_BLOCK_DIM;
        if b.x > bx || b.y > by || b.z > bz {
            return Err(format!(
                "block {b} exceeds the per-dimension limits ({bx}, {by}, {bz})"
            ));
        }
        if b.volume() > MAX_BLOCK_THREADS {
            return Err(format!(
                "block {b} has {} threads; the limit is {MAX_BLOCK_THREADS}",
                b.volume()
            ));
        }
        if g.x == 0 || g.y == 0 || g.z == 0 {
            return Err(format!("grid {g} has a zero extent"));
        }
        // y and z share one limit.
        let [_, gy, gz] = MAX_GRID_DIM;
        if g.y > gy || g.z > gz {
            return Err(format!("grid {g}: y and z are limited to {gy}"));
        }
        if let Some(c) = self.cluster() {
            if c.x == 0 || c.y == 0 || c.z == 0 {
                return Err(format!("cluster {c} has a zero extent"));
            }
            if !c.divides(g) {
                return Err(format!("cluster {c} does not divide grid {g}"));
            }
        }
        if let Some(p) = self.preferred_cluster() {
            let Some(c) = self.cluster() else {
                return Err(format!(
                    "preferred cluster {p} is set without a cluster dimension"
                ));
            };
            if !c.divides(p) || p.z != c.z {
                return Err(format!(
                    "preferred cluster {p} must be a multiple of cluster {c} with the same z"
                ));
            }
        }
        if let Some(pct) = self.shared_carveout() {
            if pct > MAX_SHARED_CARVEOUT {
                return Err(format!(
                    "shared_carveout is {pct} %; the limit is {MAX_SHARED_CARVEOUT}"
                ));
            }
        }
        Ok(())
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
