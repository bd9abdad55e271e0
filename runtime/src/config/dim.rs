//! Three-dimensional extents for grids, blocks and clusters.

use core::fmt;

/// A grid, block or cluster extent: `x × y × z`.
///
/// Converts from `u32` (`x`), `(u32, u32)` and `(u32, u32, u32)`, so every place that takes
/// `impl Into<Dim3>` accepts the forms CUDA C++ programmers write with `dim3`.
///
/// ```
/// use chevron::Dim3;
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

/// An extent or byte count out of `u32`'s range, found when a `launch!`/`config!` value of
/// another integer type was converted; reported by [`crate::LaunchConfig::validate`].
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExtentError {
    /// The value as written.
    pub value: i128,
    /// The axis (0, 1, 2) of a dim; `None` for a scalar such as `shared`.
    pub axis: Option<u8>,
}

impl ExtentError {
    /// The limit rule's [`Violation::NotU32`](chevron_cuda_rules::limits::Violation::NotU32) for
    /// `what` ("grid", "block", "shared"): the value and why it is refused.
    pub fn violation(&self, what: &'static str) -> chevron_cuda_rules::limits::Violation {
        chevron_cuda_rules::limits::Violation::NotU32 {
            what,
            axis: self.axis,
            value: self.value,
        }
    }
}

/// An integer a `launch!`/`config!` extent or byte count may be written in: `u32` as is;
/// `usize`, `u64` and `i32` (what `len()`, `size_of` and unsuffixed integers give) are
/// converted, and a value out of `u32`'s range becomes `Error::InvalidConfig` at the launch.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an extent or a byte count",
    label = "expected an integer: `u32`, or `usize`, `u64`, `i32` (checked when launching)"
)]
pub trait Extent: Copy {
    /// The value as `u32`, or the value itself when out of range.
    fn extent(self) -> Result<u32, ExtentError>;
}

impl Extent for u32 {
    #[inline]
    fn extent(self) -> Result<u32, ExtentError> {
        Ok(self)
    }
}

impl Extent for usize {
    #[inline]
    fn extent(self) -> Result<u32, ExtentError> {
        u32::try_from(self).map_err(|_| ExtentError {
            value: self as i128,
            axis: None,
        })
    }
}

impl Extent for u64 {
    #[inline]
    fn extent(self) -> Result<u32, ExtentError> {
        u32::try_from(self).map_err(|_| ExtentError {
            value: self as i128,
            axis: None,
        })
    }
}

impl Extent for i32 {
    #[inline]
    fn extent(self) -> Result<u32, ExtentError> {
        u32::try_from(self).map_err(|_| ExtentError {
            value: self as i128,
            axis: None,
        })
    }
}

/// What a `launch!`/`config!` grid or block may be: an [`Extent`], a tuple of two or three, or a
/// [`Dim3`].
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a grid or block",
    label = "expected `u32`, `(u32, u32)`, `(u32, u32, u32)` or a `Dim3`",
    note = "`usize`, `u64` and `i32` extents are accepted too and checked when launching; convert other types with `Dim3::from(…)`"
)]
pub trait IntoDim {
    /// The extents, or the first one out of `u32`'s range.
    fn into_dim(self) -> Result<Dim3, ExtentError>;
}

impl IntoDim for Dim3 {
    #[inline]
    fn into_dim(self) -> Result<Dim3, ExtentError> {
        Ok(self)
    }
}

fn axis<X: Extent>(x: X, axis: u8) -> Result<u32, ExtentError> {
    x.extent().map_err(|e| ExtentError {
        axis: Some(axis),
        ..e
    })
}

impl<X: Extent> IntoDim for X {
    #[inline]
    fn into_dim(self) -> Result<Dim3, ExtentError> {
        Ok(Dim3::new(axis(self, 0)?, 1, 1))
    }
}

impl<X: Extent, Y: Extent> IntoDim for (X, Y) {
    #[inline]
    fn into_dim(self) -> Result<Dim3, ExtentError> {
        Ok(Dim3::new(axis(self.0, 0)?, axis(self.1, 1)?, 1))
    }
}

impl<X: Extent, Y: Extent, Z: Extent> IntoDim for (X, Y, Z) {
    #[inline]
    fn into_dim(self) -> Result<Dim3, ExtentError> {
        Ok(Dim3::new(
            axis(self.0, 0)?,
            axis(self.1, 1)?,
            axis(self.2, 2)?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_extents_convert_or_say_why_not() {
        assert_eq!((4usize, 2i32, 1u64).into_dim(), Ok(Dim3::new(4, 2, 1)));
        assert_eq!(7u32.into_dim(), Ok(Dim3::new(7, 1, 1)));
        let e = (1u32, -3i32).into_dim().unwrap_err();
        assert_eq!(
            e.violation("block").to_string(),
            "block y is -3: it is negative"
        );
        let big = u64::from(u32::MAX) + 1;
        let e = (1u32, 1u32, big).into_dim().unwrap_err();
        assert_eq!(
            e.violation("grid").to_string(),
            "grid z is 4294967296, which does not fit in `u32`"
        );
        let e = (big as usize).extent().unwrap_err();
        assert_eq!(
            e.violation("shared").to_string(),
            "shared is 4294967296, which does not fit in `u32`"
        );
        assert_eq!(u32::MAX.extent(), Ok(u32::MAX));
    }
}
