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
//! Every type of `vector_types.h` is here: `Char1` to `Double4` (`char`, `uchar`, `short`,
//! `ushort`, `int`, `uint`, `long`, `ulong`, `float`, `double`; `longlong`/`ulonglong` are
//! aliases of `Long`/`ULong`), and with the `f16` feature `Half2` (`__half2`) and `BFloat162`
//! (`__nv_bfloat162`). `Float3` is 12 bytes aligned to 4, as CUDA's `float3`. Each type is `DeviceRepr` (a kernel
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

const I8: Num = Num::Int {
    bits: 8,
    signed: true,
};
const U8: Num = Num::Int {
    bits: 8,
    signed: false,
};
const I16: Num = Num::Int {
    bits: 16,
    signed: true,
};
const U16: Num = Num::Int {
    bits: 16,
    signed: false,
};
const I64: Num = Num::Int {
    bits: 64,
    signed: true,
};
const U64: Num = Num::Int {
    bits: 64,
    signed: false,
};
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
    /// CUDA's `char1`: 1 bytes, aligned to 1.
    Char1(i8; I8; 1) { x }
    /// CUDA's `char2`: 2 bytes, aligned to 2.
    Char2(i8; I8; 2) { x, y }
    /// CUDA's `char3`: 3 bytes, aligned to 1.
    Char3(i8; I8; 1) { x, y, z }
    /// CUDA's `char4`: 4 bytes, aligned to 4.
    Char4(i8; I8; 4) { x, y, z, w }
    /// CUDA's `uchar1`: 1 bytes, aligned to 1.
    UChar1(u8; U8; 1) { x }
    /// CUDA's `uchar2`: 2 bytes, aligned to 2.
    UChar2(u8; U8; 2) { x, y }
    /// CUDA's `uchar3`: 3 bytes, aligned to 1.
    UChar3(u8; U8; 1) { x, y, z }
    /// CUDA's `uchar4`: 4 bytes, aligned to 4.
    UChar4(u8; U8; 4) { x, y, z, w }
    /// CUDA's `short1`: 2 bytes, aligned to 2.
    Short1(i16; I16; 2) { x }
    /// CUDA's `short2`: 4 bytes, aligned to 4.
    Short2(i16; I16; 4) { x, y }
    /// CUDA's `short3`: 6 bytes, aligned to 2.
    Short3(i16; I16; 2) { x, y, z }
    /// CUDA's `short4`: 8 bytes, aligned to 8.
    Short4(i16; I16; 8) { x, y, z, w }
    /// CUDA's `ushort1`: 2 bytes, aligned to 2.
    UShort1(u16; U16; 2) { x }
    /// CUDA's `ushort2`: 4 bytes, aligned to 4.
    UShort2(u16; U16; 4) { x, y }
    /// CUDA's `ushort3`: 6 bytes, aligned to 2.
    UShort3(u16; U16; 2) { x, y, z }
    /// CUDA's `ushort4`: 8 bytes, aligned to 8.
    UShort4(u16; U16; 8) { x, y, z, w }
    /// CUDA's `int1`: 4 bytes, aligned to 4.
    Int1(i32; I32; 4) { x }
    /// CUDA's `int2`: 8 bytes, aligned to 8.
    Int2(i32; I32; 8) { x, y }
    /// CUDA's `int3`: 12 bytes, aligned to 4.
    Int3(i32; I32; 4) { x, y, z }
    /// CUDA's `int4`: 16 bytes, aligned to 16.
    Int4(i32; I32; 16) { x, y, z, w }
    /// CUDA's `uint1`: 4 bytes, aligned to 4.
    UInt1(u32; U32; 4) { x }
    /// CUDA's `uint2`: 8 bytes, aligned to 8.
    UInt2(u32; U32; 8) { x, y }
    /// CUDA's `uint3`: 12 bytes, aligned to 4.
    UInt3(u32; U32; 4) { x, y, z }
    /// CUDA's `uint4`: 16 bytes, aligned to 16.
    UInt4(u32; U32; 16) { x, y, z, w }
    /// CUDA's `long1` (and `longlong1`, the same on 64-bit targets): 8 bytes, aligned to 8.
    Long1(i64; I64; 8) { x }
    /// CUDA's `long2` (and `longlong2`, the same on 64-bit targets): 16 bytes, aligned to 16.
    Long2(i64; I64; 16) { x, y }
    /// CUDA's `long3` (and `longlong3`, the same on 64-bit targets): 24 bytes, aligned to 8.
    Long3(i64; I64; 8) { x, y, z }
    /// CUDA's `long4` (and `longlong4`, the same on 64-bit targets): 32 bytes, aligned to 16.
    Long4(i64; I64; 16) { x, y, z, w }
    /// CUDA's `ulong1` (and `ulonglong1`, the same on 64-bit targets): 8 bytes, aligned to 8.
    ULong1(u64; U64; 8) { x }
    /// CUDA's `ulong2` (and `ulonglong2`, the same on 64-bit targets): 16 bytes, aligned to 16.
    ULong2(u64; U64; 16) { x, y }
    /// CUDA's `ulong3` (and `ulonglong3`, the same on 64-bit targets): 24 bytes, aligned to 8.
    ULong3(u64; U64; 8) { x, y, z }
    /// CUDA's `ulong4` (and `ulonglong4`, the same on 64-bit targets): 32 bytes, aligned to 16.
    ULong4(u64; U64; 16) { x, y, z, w }
    /// CUDA's `float1`: 4 bytes, aligned to 4.
    Float1(f32; F32; 4) { x }
    /// CUDA's `float2`: 8 bytes, aligned to 8.
    Float2(f32; F32; 8) { x, y }
    /// CUDA's `float3`: 12 bytes, aligned to 4.
    Float3(f32; F32; 4) { x, y, z }
    /// CUDA's `float4`: 16 bytes, aligned to 16.
    Float4(f32; F32; 16) { x, y, z, w }
    /// CUDA's `double1`: 8 bytes, aligned to 8.
    Double1(f64; F64; 8) { x }
    /// CUDA's `double2`: 16 bytes, aligned to 16.
    Double2(f64; F64; 16) { x, y }
    /// CUDA's `double3`: 24 bytes, aligned to 8.
    Double3(f64; F64; 8) { x, y, z }
    /// CUDA's `double4`: 32 bytes, aligned to 16.
    Double4(f64; F64; 16) { x, y, z, w }
}

#[cfg(feature = "f16")]
vectors! {
    /// CUDA's `__half2` (feature `f16`): 4 bytes, aligned to 4.
    Half2(half::f16; Num::F16; 4) { x, y }
    /// CUDA's `__nv_bfloat162` (feature `f16`): 4 bytes, aligned to 4.
    BFloat162(half::bf16; Num::BF16; 4) { x, y }
}

/// CUDA's `longlong1`: [`Long1`], as on every 64-bit target CUDA supports.
pub type LongLong1 = Long1;
/// CUDA's `longlong2`: [`Long2`].
pub type LongLong2 = Long2;
/// CUDA's `longlong3`: [`Long3`].
pub type LongLong3 = Long3;
/// CUDA's `longlong4`: [`Long4`].
pub type LongLong4 = Long4;
/// CUDA's `ulonglong1`: [`ULong1`].
pub type ULongLong1 = ULong1;
/// CUDA's `ulonglong2`: [`ULong2`].
pub type ULongLong2 = ULong2;
/// CUDA's `ulonglong3`: [`ULong3`].
pub type ULongLong3 = ULong3;
/// CUDA's `ulonglong4`: [`ULong4`].
pub type ULongLong4 = ULong4;

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
        assert_eq!(layout::<Char1>(), (1, 1, 1, 1));
        assert_eq!(layout::<Char2>(), (2, 2, 2, 2));
        assert_eq!(layout::<Char3>(), (3, 1, 3, 1));
        assert_eq!(layout::<Char4>(), (4, 4, 4, 4));
        assert_eq!(layout::<UChar1>(), (1, 1, 1, 1));
        assert_eq!(layout::<UChar2>(), (2, 2, 2, 2));
        assert_eq!(layout::<UChar3>(), (3, 1, 3, 1));
        assert_eq!(layout::<UChar4>(), (4, 4, 4, 4));
        assert_eq!(layout::<Short1>(), (2, 2, 2, 2));
        assert_eq!(layout::<Short2>(), (4, 4, 4, 4));
        assert_eq!(layout::<Short3>(), (6, 2, 6, 2));
        assert_eq!(layout::<Short4>(), (8, 8, 8, 8));
        assert_eq!(layout::<UShort1>(), (2, 2, 2, 2));
        assert_eq!(layout::<UShort2>(), (4, 4, 4, 4));
        assert_eq!(layout::<UShort3>(), (6, 2, 6, 2));
        assert_eq!(layout::<UShort4>(), (8, 8, 8, 8));
        assert_eq!(layout::<Int1>(), (4, 4, 4, 4));
        assert_eq!(layout::<Int2>(), (8, 8, 8, 8));
        assert_eq!(layout::<Int3>(), (12, 4, 12, 4));
        assert_eq!(layout::<Int4>(), (16, 16, 16, 16));
        assert_eq!(layout::<UInt1>(), (4, 4, 4, 4));
        assert_eq!(layout::<UInt2>(), (8, 8, 8, 8));
        assert_eq!(layout::<UInt3>(), (12, 4, 12, 4));
        assert_eq!(layout::<UInt4>(), (16, 16, 16, 16));
        assert_eq!(layout::<Long1>(), (8, 8, 8, 8));
        assert_eq!(layout::<Long2>(), (16, 16, 16, 16));
        assert_eq!(layout::<Long3>(), (24, 8, 24, 8));
        assert_eq!(layout::<Long4>(), (32, 16, 32, 16));
        assert_eq!(layout::<ULong1>(), (8, 8, 8, 8));
        assert_eq!(layout::<ULong2>(), (16, 16, 16, 16));
        assert_eq!(layout::<ULong3>(), (24, 8, 24, 8));
        assert_eq!(layout::<ULong4>(), (32, 16, 32, 16));
        assert_eq!(layout::<Float1>(), (4, 4, 4, 4));
        assert_eq!(layout::<Float2>(), (8, 8, 8, 8));
        assert_eq!(layout::<Float3>(), (12, 4, 12, 4));
        assert_eq!(layout::<Float4>(), (16, 16, 16, 16));
        assert_eq!(layout::<Double1>(), (8, 8, 8, 8));
        assert_eq!(layout::<Double2>(), (16, 16, 16, 16));
        assert_eq!(layout::<Double3>(), (24, 8, 24, 8));
        assert_eq!(layout::<Double4>(), (32, 16, 32, 16));
        #[cfg(feature = "f16")]
        {
            assert_eq!(layout::<Half2>(), (4, 4, 4, 4));
            assert_eq!(layout::<BFloat162>(), (4, 4, 4, 4));
        }
        let v = Int3::from([1, -2, 3]);
        assert_eq!((v.x, v.y, v.z), (1, -2, 3));
        assert_eq!(<[u32; 4]>::from(UInt4::new(1, 2, 3, 4)), [1, 2, 3, 4]);
    }
}
