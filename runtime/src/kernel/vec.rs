//! CUDA's vector types (`float4`, `int2`, `uint4`, … of `vector_types.h`) with their size and
//! alignment, for kernel parameters and device buffers.
//!
//! A kernel taking `float4*` reads 16 bytes at a time from 16-byte aligned addresses: declare it
//! with a `&CudaSlice<Float4>` (or `&mut`), whose elements are laid out as CUDA's. A C++
//! kernel's symbol says `float4`, and `#[kernel]` checks that the Rust element type is
//! [`Float4`] (or a struct of the same size and alignment), not `f32` or `[f32; 4]`.
//!
//! ```
//! use chevron::vec::Float4;
//! assert_eq!((core::mem::size_of::<Float4>(), core::mem::align_of::<Float4>()), (16, 16));
//! let v = Float4::new(1.0, 2.0, 3.0, 4.0);
//! assert_eq!(<[f32; 4]>::from(v), [1.0, 2.0, 3.0, 4.0]);
//! ```
//!
//! `Float3` is 12 bytes aligned to 4, as CUDA's `float3`. Each type is `DeviceRepr` (a kernel
//! parameter by value, an element of `CudaSlice`) and `ValidAsZeroBits` (`alloc_zeros`).

use cudarc::driver::{DeviceRepr, ValidAsZeroBits};

use crate::kernel::param::KnownType;
use chevron_cuda_rules::param::{Class, Num};

macro_rules! vectors {
    ($(
        $(#[$doc:meta])*
        $name:ident($elem:ty; $num:expr; $align:literal) { $($field:ident),+ }
    )*) => {$(
        $(#[$doc])*
        #[repr(C, align($align))]
        #[derive(Clone, Copy, Debug, Default, PartialEq)]
        pub struct $name {
            $(
                #[allow(missing_docs)]
                pub $field: $elem,
            )+
        }

        impl $name {
            /// The vector of these lanes.
            #[inline]
            pub const fn new($($field: $elem),+) -> Self {
                Self { $($field),+ }
            }
        }

        impl From<[$elem; vectors!(@count $($field)+)]> for $name {
            #[inline]
            fn from([$($field),+]: [$elem; vectors!(@count $($field)+)]) -> Self {
                Self { $($field),+ }
            }
        }

        impl From<$name> for [$elem; vectors!(@count $($field)+)] {
            #[inline]
            fn from(v: $name) -> Self {
                [$(v.$field),+]
            }
        }

        // SAFETY: `#[repr(C)]` plain numbers, laid out as CUDA's type of the same name; all
        // zeros is a valid value. Not listed among "other types implementing `DeviceRepr`"
        // under an error about a type that is not.
        #[diagnostic::do_not_recommend]
        unsafe impl DeviceRepr for $name {}
        unsafe impl ValidAsZeroBits for $name {}

        impl KnownType for $name {
            const CLASS: Class = Class::Vector($num, vectors!(@count $($field)+));
        }
    )*};
    (@count $($field:ident)+) => { 0 $(+ vectors!(@one $field))+ };
    (@one $field:ident) => { 1 };
}

const F32: Num = Num::Float(32);
const F64: Num = Num::Float(64);
const I32: Num = Num::Int {
    bits: 32,
    signed: true,
};
const U32: Num = Num::Int {
    bits: 32,
    signed: false,
};

vectors! {
    /// CUDA's `float2`: 8 bytes, aligned to 8.
    Float2(f32; F32; 8) { x, y }
    /// CUDA's `float3`: 12 bytes, aligned to 4.
    Float3(f32; F32; 4) { x, y, z }
    /// CUDA's `float4`: 16 bytes, aligned to 16.
    Float4(f32; F32; 16) { x, y, z, w }
    /// CUDA's `int2`: 8 bytes, aligned to 8.
    Int2(i32; I32; 8) { x, y }
    /// CUDA's `int3`: 12 bytes, aligned to 4.
    Int3(i32; I32; 4) { x, y, z }
    /// CUDA's `int4`: 16 bytes, aligned to 16.
    Int4(i32; I32; 16) { x, y, z, w }
    /// CUDA's `uint2`: 8 bytes, aligned to 8.
    UInt2(u32; U32; 8) { x, y }
    /// CUDA's `uint3`: 12 bytes, aligned to 4.
    UInt3(u32; U32; 4) { x, y, z }
    /// CUDA's `uint4`: 16 bytes, aligned to 16.
    UInt4(u32; U32; 16) { x, y, z, w }
    /// CUDA's `double2`: 16 bytes, aligned to 16.
    Double2(f64; F64; 16) { x, y }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::mem::{align_of, size_of};

    /// Each type's layout is CUDA's (`vector_types.h`), and the class the checks compare with
    /// a symbol's spelling agrees with the size.
    #[test]
    fn layouts_are_cudas() {
        fn layout<T: KnownType>() -> (usize, usize, u64, u64) {
            (
                size_of::<T>(),
                align_of::<T>(),
                T::CLASS.bytes(),
                T::CLASS.align(),
            )
        }
        assert_eq!(layout::<Float2>(), (8, 8, 8, 8));
        assert_eq!(layout::<Float3>(), (12, 4, 12, 4));
        assert_eq!(layout::<Float4>(), (16, 16, 16, 16));
        assert_eq!(layout::<Int2>(), (8, 8, 8, 8));
        assert_eq!(layout::<Int3>(), (12, 4, 12, 4));
        assert_eq!(layout::<Int4>(), (16, 16, 16, 16));
        assert_eq!(layout::<UInt2>(), (8, 8, 8, 8));
        assert_eq!(layout::<UInt3>(), (12, 4, 12, 4));
        assert_eq!(layout::<UInt4>(), (16, 16, 16, 16));
        assert_eq!(layout::<Double2>(), (16, 16, 16, 16));
        let v = Int3::from([1, -2, 3]);
        assert_eq!((v.x, v.y, v.z), (1, -2, 3));
        assert_eq!(<[u32; 4]>::from(UInt4::new(1, 2, 3, 4)), [1, 2, 3, 4]);
    }
}
