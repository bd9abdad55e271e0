//! C++ kernel symbols: their demangled names and the parameter types they carry.
//!
//! nvcc gives every kernel not declared `extern "C"` an Itanium-mangled symbol
//! (`_Z14softmax_kernelILi128EEvPfPKfi`), which spells its whole signature:
//! `softmax_kernel<128>(float*, float const*, int)`. [`demangle`] reads it (through the
//! `cpp_demangle` crate) into a [`Signature`]: its name, for `name = "softmax_kernel<128>"`
//! ([`Signature::matches`], which compares the names parsed into a [`CppName`], so that
//! `tu<128>`, `tu<128u>` and `tu<(unsigned int)128>` are one name), and each parameter's C++
//! type, for the type checks ([`crate::param::check`]).
//!
//! The types are read as the Itanium ABI of a 64-bit target lays them out (LP64: `long` and
//! `size_t` are 64 bits), the only one nvcc mangles this way; typedefs are gone from a symbol
//! (`size_t` is `unsigned long`, `half` is `__half`), struct and enum names stay.

mod name;
mod rust;
mod spelling;
mod symbol;
#[cfg(test)]
mod tests;

pub use name::{CppName, Style};
pub use rust::{rust_for, vector_rust};
pub use spelling::parse_type;
pub use symbol::{cxxfilt_name, demangle, display_name, Signature};

/// A C++ arithmetic type, or one of CUDA's 2-byte floats, as the Itanium ABI on a 64-bit
/// target (LP64) lays it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Num {
    /// `bool`.
    Bool,
    /// `char`: 8 bits, whose signedness C++ leaves to the platform, so either Rust integer fits.
    Char,
    /// An integer: `int` is `Int { bits: 32, signed: true }`, `size_t` (`unsigned long`)
    /// `Int { bits: 64, signed: false }`.
    Int {
        /// Width in bits.
        bits: u32,
        /// Signed (`int`, `long`) or unsigned (`unsigned`, `size_t`).
        signed: bool,
    },
    /// `float` (32), `double` (64).
    Float(u32),
    /// `__half` (`half::f16`).
    F16,
    /// `__nv_bfloat16` (`half::bf16`).
    BF16,
}

impl Num {
    /// Size in bytes.
    pub const fn bytes(self) -> u64 {
        match self {
            Num::Bool | Num::Char => 1,
            Num::Int { bits, .. } | Num::Float(bits) => bits as u64 / 8,
            Num::F16 | Num::BF16 => 2,
        }
    }

    /// Whether a Rust number of class `rust` is this C++ type: equal, or either 8-bit integer
    /// for `char`.
    pub const fn accepts(self, rust: Num) -> bool {
        match (self, rust) {
            (Num::Char, Num::Int { bits: 8, .. }) | (Num::Char, Num::Char) => true,
            (Num::Int { bits: a, signed: x }, Num::Int { bits: b, signed: y }) => a == b && x == y,
            (Num::Float(a), Num::Float(b)) => a == b,
            (Num::Bool, Num::Bool) | (Num::F16, Num::F16) | (Num::BF16, Num::BF16) => true,
            _ => false,
        }
    }

    /// The Rust type of this class, for messages: `` `i32` ``, `` `f16` ``.
    pub const fn rust_name(self) -> &'static str {
        match self {
            Num::Bool => "`bool`",
            Num::Char => "`i8` or `u8`",
            Num::Int { bits, signed } => match (bits, signed) {
                (8, true) => "`i8`",
                (8, false) => "`u8`",
                (16, true) => "`i16`",
                (16, false) => "`u16`",
                (32, true) => "`i32`",
                (32, false) => "`u32`",
                (64, true) => "`i64`",
                (64, false) => "`u64`",
                (_, true) => "a signed integer",
                (_, false) => "an unsigned integer",
            },
            Num::Float(32) => "`f32`",
            Num::Float(64) => "`f64`",
            Num::Float(_) => "a float",
            Num::F16 => "`f16`",
            Num::BF16 => "`bf16`",
        }
    }

    /// What a value of this class is, in words: "a signed 32-bit integer".
    pub const fn words(self) -> &'static str {
        match self {
            Num::Bool => "a `bool`",
            Num::Char => "an 8-bit integer",
            Num::Int { bits, signed } => match (bits, signed) {
                (8, true) => "a signed 8-bit integer",
                (8, false) => "an unsigned 8-bit integer",
                (16, true) => "a signed 16-bit integer",
                (16, false) => "an unsigned 16-bit integer",
                (32, true) => "a signed 32-bit integer",
                (32, false) => "an unsigned 32-bit integer",
                (64, true) => "a signed 64-bit integer",
                (64, false) => "an unsigned 64-bit integer",
                (_, true) => "a signed integer",
                (_, false) => "an unsigned integer",
            },
            Num::Float(32) => "a 32-bit float",
            Num::Float(64) => "a 64-bit float",
            Num::Float(_) => "a float",
            Num::F16 => "an `f16` (`__half`)",
            Num::BF16 => "a `bf16` (`__nv_bfloat16`)",
        }
    }
}

/// What a type is in C++ terms, as far as chevron can tell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// Not known: on the Rust side a type chevron does not name (the user's own struct), on
    /// the C++ side a struct, enum or class by name, which the PTX checks by size and
    /// alignment only.
    Unknown,
    /// `void`, the pointee of a `void*`: any element fits.
    Void,
    /// A number.
    Num(Num),
    /// A CUDA vector type of `lanes` numbers: `float4` is `Vector(Num::Float(32), 4)`
    /// (`chevron::vec::Float4`).
    Vector(Num, u32),
}

impl Class {
    /// Size in bytes of a number or vector; 0 for the others.
    pub const fn bytes(self) -> u64 {
        match self {
            Class::Num(n) => n.bytes(),
            Class::Vector(n, lanes) => n.bytes() * lanes as u64,
            Class::Unknown | Class::Void => 0,
        }
    }

    /// Alignment in bytes as CUDA lays it out (`float4`: 16, `float3`: 4); 0 where not known.
    pub const fn align(self) -> u64 {
        match self {
            Class::Num(n) => n.bytes(),
            Class::Vector(n, lanes) => {
                let whole = n.bytes() * lanes as u64;
                if lanes == 3 {
                    n.bytes()
                } else if whole > 16 {
                    16
                } else {
                    whole
                }
            }
            Class::Unknown | Class::Void => 0,
        }
    }
}

/// What a C++ kernel's symbol says about one of its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CppParam {
    /// Nothing: the kernel is `extern "C"`, or the type is one chevron does not check (a
    /// reference, a function pointer).
    Unknown,
    /// `T*` or `T const*` (for `T**`, `pointee` is the 8-byte device address each element is,
    /// as `u64`).
    Pointer {
        /// What it points to.
        pointee: Class,
        /// `T const*`: the kernel only reads through it.
        is_const: bool,
    },
    /// `T` by value.
    Value(Class),
}
