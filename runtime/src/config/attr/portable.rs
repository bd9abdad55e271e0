//! The CUDA 13.2 kinds, about going past the portable limits: `PortableClusterSizeMode` and
//! `SharedMemoryMode` (with `NeedsCuda13040`, the oversized values below CUDA 13.4).

use super::{word, Samples};
use crate::sys;

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
    pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
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

/// The type of `SharedMemoryMode::AllowOversized`, `SharedMemoryMode::PreferOversized` and
/// `ClusterScheduling::RubinDsmemLocality` below CUDA 13.4: given where a [`SharedMemoryMode`]
/// (or a [`ClusterScheduling`](crate::ClusterScheduling)) is expected, it is a type error
/// ("expected `SharedMemoryMode`, found `NeedsCuda13040`") that names the feature to use,
/// `cuda-13040`.
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
    pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
        word(self.raw())
    }
}
