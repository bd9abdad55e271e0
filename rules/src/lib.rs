//! What chevron's macros and its runtime must agree on, without the driver bindings or a parser
//! of Rust: the launch-attribute kinds of every supported CUDA version ([`kinds`]), the driver's
//! launch limits and the rules over them ([`limits`]), the PTX reader ([`ptx`]), the targets PTX
//! runs on ([`target`]), the C++ names and types of kernel symbols ([`cpp`]) and the rules a
//! kernel parameter type must meet against them ([`param`]). The macros read them at compile time
//! without linking cudarc; the runtime builds its types and checks from them.
//!
//! Its one dependency, `cpp_demangle`, reads Itanium-mangled symbols: both sides resolve
//! `name = "softmax_kernel<128>"` the same way (the macros in a PTX file, the runtime in
//! NVRTC's output), so the demangler sits here, under both.
#![deny(missing_docs)]

pub mod cpp;
pub mod fit;
pub mod kinds;
pub mod limits;
pub mod param;
pub mod ptx;
pub mod target;
