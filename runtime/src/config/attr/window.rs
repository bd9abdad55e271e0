//! The access-policy window kind (`AccessPolicyWindow`) and its `AccessProperty`.

use super::{bytes, empty, put, u32_at, Samples};
use crate::sys;
use cudarc::driver::{CudaStream, DevicePtr};

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
    pub(super) fn encode(&self) -> sys::CUlaunchAttributeValue {
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
    pub(super) fn from_stream(value: &sys::CUstreamAttrValue) -> Option<Self> {
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
