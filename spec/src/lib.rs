//! What chevron's macros and its runtime must agree on, with no dependency but `std`: the
//! launch-attribute kinds of every supported CUDA version ([`kinds`]), the driver's launch limits
//! and the rules over them ([`limits`]), the PTX reader ([`ptx`]), the targets PTX runs on
//! ([`target`]) and the rule a kernel parameter type must meet against it ([`param`]). The macros
//! read them at compile time without linking cudarc; the runtime builds its types and checks from
//! them.
#![deny(missing_docs)]

pub mod fit;
pub mod kinds;
pub mod limits;
pub mod param;
pub mod ptx;
pub mod target;
