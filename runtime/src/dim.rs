//! Three-dimensional extents for grids, blocks and clusters.

use core::fmt;

/// A grid, block or cluster extent: `x × y × z`.
///
/// Converts from `u32` (`x`), `(u32, u32)` and `(u32, u32, u32)`, so every place that takes
/// `impl Into<Dim3>` accepts the forms CUDA C++ programmers write with `dim3`.
///
/// ```
/// use chevron_cuda_runtime::Dim3;
/// assert_eq!(Dim3::from(256), Dim3::new(256, 1, 1));
/// assert_eq!(Dim3::from((16, 16)).volume(), 256);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// Extent along x.
    pub x: u32,
    /// Extent along y.
    pub y: u32,
    /// Extent along z.
    pub z: u32,
}

impl Dim3 {
    /// `x × y × z`.
    pub const fn new(x: u32, y: u32, z: u32) -> Self {
        Self { x, y, z }
    }

    /// The number of elements, `x · y · z`, without overflow.
    pub const fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }

    /// Whether every extent of `self` divides the matching extent of `outer`.
    pub const fn divides(self, outer: Dim3) -> bool {
        self.x != 0
            && self.y != 0
            && self.z != 0
            && outer.x.is_multiple_of(self.x)
            && outer.y.is_multiple_of(self.y)
            && outer.z.is_multiple_of(self.z)
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Self::new(x, 1, 1)
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Self::new(x, y, 1)
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Self::new(x, y, z)
    }
}

impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}
