//! What chevron's macros and its runtime must agree on, with no dependency but `std`: the PTX
//! reader. The macros read it at compile time without linking cudarc; the runtime reads NVRTC's
//! output with the same code.
#![deny(missing_docs)]

pub mod ptx;
