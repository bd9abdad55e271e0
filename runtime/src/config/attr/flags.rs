//! The flag kinds: present means on (`Cooperative`, `DeviceUpdatable`, …).

use super::{word, Samples};
use crate::sys;

macro_rules! flag {
    ($(#[$doc:meta])* $ty:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $ty;

        impl $ty {
            // Every flag is an `int`/`unsigned` at offset 0 of the union.
            #[inline]
            pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
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
    pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
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
