//! The kinds whose value is one of a few named values: `SyncPolicy`, `ClusterScheduling`,
//! `MemSyncDomain`.

use super::{u32_at, word, Samples};
use crate::sys;

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
    pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
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
    pub(super) fn from_stream(value: &sys::CUstreamAttrValue) -> Option<Self> {
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
/// On a launch and on a graph node.
///
/// Below CUDA 13.4, `ClusterScheduling::RubinDsmemLocality` still names something, so that the
/// error says what to do: a constant of type [`NeedsCuda13040`](crate::NeedsCuda13040), which
/// is not a `ClusterScheduling` ("expected `ClusterScheduling`, found `NeedsCuda13040`").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ClusterScheduling {
    /// `CU_CLUSTER_SCHEDULING_POLICY_DEFAULT`.
    #[default]
    Default,
    /// `CU_CLUSTER_SCHEDULING_POLICY_SPREAD`: spread clusters over the GPU.
    Spread,
    /// `CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING`: allow load-balanced placement.
    LoadBalancing,
    /// `CU_CLUSTER_SCHEDULING_POLICY_RUBIN_DSMEM_LOCALITY` (CUDA 13.4, value 3): place clusters
    /// for distributed-shared-memory locality on Rubin GPUs.
    #[cfg(cuda_13040)]
    RubinDsmemLocality,
}

/// The CUDA 13.4 value, below CUDA 13.4: it names the feature that has it.
#[cfg(not(cuda_13040))]
#[allow(non_upper_case_globals)]
impl ClusterScheduling {
    /// `CU_CLUSTER_SCHEDULING_POLICY_RUBIN_DSMEM_LOCALITY`: needs CUDA 13.4 (feature
    /// `cuda-13040`); with an older feature it is a [`NeedsCuda13040`](crate::NeedsCuda13040),
    /// not a policy.
    pub const RubinDsmemLocality: super::NeedsCuda13040 = super::NeedsCuda13040;
}

impl ClusterScheduling {
    pub(crate) fn sample(_: &Samples<'_>) -> Option<Self> {
        Some(Self::Spread)
    }

    #[inline]
    pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
        use sys::CUclusterSchedulingPolicy as P;
        word(
            (match self {
                Self::Default => P::CU_CLUSTER_SCHEDULING_POLICY_DEFAULT,
                Self::Spread => P::CU_CLUSTER_SCHEDULING_POLICY_SPREAD,
                Self::LoadBalancing => P::CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING,
                #[cfg(cuda_13040)]
                Self::RubinDsmemLocality => P::CU_CLUSTER_SCHEDULING_POLICY_RUBIN_DSMEM_LOCALITY,
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
    pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
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
    pub(super) fn from_stream(value: &sys::CUstreamAttrValue) -> Option<Self> {
        match u32_at(value, 0) {
            0 => Some(Self::Default),
            1 => Some(Self::Remote),
            _ => None,
        }
    }
}
