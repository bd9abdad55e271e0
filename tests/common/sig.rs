//! A kernel's argument types as rustc sees them: `let _: fn((R<f32>, M<f32>, u32)) =
//! sig::<K>();` compiles only when `K`'s parameters are exactly those types.

#![allow(dead_code)] // Each test binary uses what it needs.

use chevron::cudarc::driver::CudaSlice;
use chevron::TypedKernel;

/// A buffer read (`&`), with the lifetime `sig` asks for.
pub type R<T> = &'static CudaSlice<T>;
/// A buffer written (`&mut`), with the lifetime `sig` asks for.
pub type M<T> = &'static mut CudaSlice<T>;

/// The argument tuple of `K` as a function type (rustc's own check of its parameters).
pub fn sig<K: TypedKernel>() -> fn(K::Args<'static, 'static>) {
    |_| ()
}
