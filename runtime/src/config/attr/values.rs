//! The kinds with a value: cluster dimensions, `Priority`, `MemSyncDomainMap`,
//! `SharedCarveout`, and the event kinds.

use super::{bytes, empty, put, word, Samples};
use crate::config::dim::Dim3;
use crate::sys;
use cudarc::driver::CudaEvent;

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
            pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
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
    pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
        word(self.0 as u32)
    }
}

impl Priority {
    /// The value a stream reports, if one is set.
    pub(super) fn from_stream(value: &sys::CUstreamAttrValue) -> Option<Self> {
        Some(Self(i32::from_ne_bytes(bytes(value, 0))))
    }
}

/// `CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP`: maps the logical memory-synchronization domains to
/// physical ones. Valid on launches and on streams.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct MemSyncDomainMap {
    /// Physical domain for [`MemSyncDomain::Default`](super::MemSyncDomain::Default).
    pub default: u8,
    /// Physical domain for [`MemSyncDomain::Remote`](super::MemSyncDomain::Remote).
    pub remote: u8,
}

impl MemSyncDomainMap {
    pub(crate) fn sample(_: &Samples<'_>) -> Option<Self> {
        Some(Self::default())
    }

    #[inline]
    pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
        let mut v = empty();
        put(&mut v, 0, [self.default, self.remote]);
        v
    }
}

impl MemSyncDomainMap {
    /// The value a stream reports, if one is set.
    pub(super) fn from_stream(value: &sys::CUstreamAttrValue) -> Option<Self> {
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
    pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
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
    pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
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
    pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
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
