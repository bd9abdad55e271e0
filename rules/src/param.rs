//! What a Rust kernel parameter type is in PTX terms ([`ParamForm`]) and whether it fits a PTX
//! `.param` ([`fits`]), as `const fn`s.
//!
//! `#[kernel]` cannot resolve `type Scale = f32`, `std::primitive::f32` or a renamed import; rustc
//! can. So each parameter type says what it is through a trait (in the runtime) whose associated
//! const is a [`ParamForm`], and the declaration expands to a const block that compares it with
//! the PTX parameter the macro read, calling [`mismatch`] for the message. [`ptx::check_param`]
//! applies the same rule at run time, for CUDA C compiled by NVRTC.
//!
//! Where the kernel's symbol carries its C++ signature (any kernel not declared `extern "C"`),
//! each parameter's C++ type ([`CppParam`], from [`crate::cpp`]) is compared too, in the same
//! const block: [`check`] applies every rule, the PTX one first.
//!
//! [`ptx::check_param`]: crate::ptx::check_param

use crate::ptx::PtxType;
// The rule itself is the PTX reader's (`ptx/rule.rs`, which `ptx::check_param` applies at run
// time) and the C++ types are `cpp`'s; this module gives them their compile-time face.
pub use crate::cpp::{Class, CppParam, Num};
pub use crate::ptx::rule::{
    article, check, check_param, class_fits, cpp_fits, describe, describe_rust, fits, size_bytes,
    Facts, Message, ParamForm, Texts, MESSAGE_CAPACITY,
};
pub use crate::ptx::words::ParamWords;

/// The message for a Rust parameter of form `form` in the place of a PTX parameter of type `ty`
/// (`array_len` as for [`fits`]): empty when it fits, else `prefix`, what the Rust type is ("a
/// 32-bit float"), then `suffix`. `#[kernel]` passes "`` `a: Scale` is ``" and ", but the kernel
/// takes a 32-bit integer here (…); declare it as …".
pub const fn mismatch(
    form: ParamForm,
    ty: PtxType,
    array_len: Option<u32>,
    prefix: &str,
    suffix: &str,
) -> Message {
    if fits(form.expected, ty, array_len) {
        return Message::new();
    }
    describe(Message::new().push(prefix), form.expected).push(suffix)
}

/// A primitive number whose spelling decides its form, so that `#[kernel]` checks a parameter
/// written as it (or as a cudarc buffer of it) without rustc: see [`SPELLED_NUMBERS`].
#[derive(Clone, Copy, Debug)]
pub struct SpelledNumber {
    /// The type's name, as written (`f32`).
    pub name: &'static str,
    /// Its size, which is also its alignment on every target CUDA runs on.
    pub bytes: u64,
    /// Its exact form (the runtime's `Scalar::FORM`).
    pub exact: ParamForm,
    /// Its C++ class (the runtime's `KnownType::CLASS`).
    pub num: Num,
}

impl SpelledNumber {
    /// The form of a parameter of this type by value, with its C++ class where `classes`:
    /// what the runtime's `form(Of::<T>::SCALAR, …)` computes for it.
    pub const fn value_form(&self, classes: bool) -> ParamForm {
        let form = ParamForm {
            expected: self.exact.expected,
            ..ParamForm::value(self.bytes).with_layout(self.bytes, self.bytes)
        };
        if classes {
            form.with_class(Class::Num(self.num))
        } else {
            form
        }
    }

    /// The form of a device buffer of this type (`&CudaSlice<T>`; `writes` for `&mut`), with
    /// its elements' C++ class where `classes`.
    pub const fn buffer_form(&self, writes: bool, classes: bool) -> ParamForm {
        let form = ParamForm::buffer(self.bytes, writes).with_layout(self.bytes, self.bytes);
        if classes {
            form.with_class(Class::Num(self.num))
        } else {
            form
        }
    }
}

/// The numbers whose spelling decides their form: the primitive types but `usize` and `isize`
/// (whose width is the target's). The runtime's tests compare each with what its
/// `KernelParam`, `Scalar` and `KnownType` impls say.
pub const SPELLED_NUMBERS: [SpelledNumber; 11] = {
    const fn int(name: &'static str, bits: u32, signed: bool) -> SpelledNumber {
        SpelledNumber {
            name,
            bytes: bits as u64 / 8,
            exact: ParamForm::int(bits),
            num: Num::Int { bits, signed },
        }
    }
    [
        int("u8", 8, false),
        int("i8", 8, true),
        int("u16", 16, false),
        int("i16", 16, true),
        int("u32", 32, false),
        int("i32", 32, true),
        int("u64", 64, false),
        int("i64", 64, true),
        SpelledNumber {
            name: "f32",
            bytes: 4,
            exact: ParamForm::float(32),
            num: Num::Float(32),
        },
        SpelledNumber {
            name: "f64",
            bytes: 8,
            exact: ParamForm::float(64),
            num: Num::Float(64),
        },
        SpelledNumber {
            name: "bool",
            bytes: 1,
            exact: ParamForm::bool(),
            num: Num::Bool,
        },
    ]
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::Expected;
    use crate::ptx::PtxType::*;

    #[test]
    fn floats_integers_pointers_and_values() {
        // A float never fits an integer of its width, nor an integer a float.
        assert!(!fits(Expected::Float(32), U32, None));
        assert!(!fits(Expected::Float(64), U64, None));
        assert!(!fits(Expected::Int(32), F32, None));
        assert!(!fits(Expected::Int(64), F64, None));
        // Untyped bits take either; signedness is free; widths must agree.
        assert!(fits(Expected::Float(32), B32, None));
        assert!(fits(Expected::Int(32), B32, None));
        assert!(fits(Expected::Int(32), S32, None));
        assert!(!fits(Expected::Int(64), U32, None));
        assert!(fits(Expected::Bool, U8, None));
        assert!(!fits(Expected::Bool, U32, None));
        // Pointers: 64-bit integers, not arrays.
        assert!(fits(Expected::Pointer, U64, None));
        assert!(!fits(Expected::Pointer, U32, None));
        assert!(!fits(Expected::Pointer, B8, Some(8)));
        // Values: by size, arrays included; never `.pred`.
        assert!(fits(Expected::Value(Some(16)), B8, Some(16)));
        assert!(!fits(Expected::Value(Some(12)), B8, Some(16)));
        assert!(fits(Expected::Value(Some(4)), U32, None));
        assert!(!fits(Expected::Value(Some(1)), Pred, None));
        assert!(!fits(Expected::Int(32), B8, Some(4)));
    }

    #[test]
    fn mismatches_say_what_the_rust_type_is() {
        let m = |form, ty, len| mismatch(form, ty, len, "`a: Scale` is ", ", but …");
        assert_eq!(
            m(ParamForm::float(32), U32, None).as_str(),
            "`a: Scale` is a 32-bit float, but …"
        );
        assert_eq!(
            m(ParamForm::int(64), F64, None).as_str(),
            "`a: Scale` is a 64-bit integer, but …"
        );
        assert_eq!(
            m(ParamForm::value(12), B8, Some(16)).as_str(),
            "`a: Scale` is a 12-byte value, but …"
        );
        assert_eq!(
            m(ParamForm::buffer(4, true), U32, None).as_str(),
            "`a: Scale` is a device pointer (64-bit), but …"
        );
        assert_eq!(
            m(ParamForm::bool(), U32, None).as_str(),
            "`a: Scale` is a `bool` (8-bit), but …"
        );
        assert!(m(ParamForm::int(32), U32, None).is_empty());
    }

    #[test]
    fn articles() {
        for (n, a) in [
            (8, "an "),
            (16, "a "),
            (11, "an "),
            (18, "an "),
            (80, "an "),
            (64, "a "),
            (1, "a "),
            (100, "a "),
            (800, "an "),
            (11_000, "an "),
            (18_500, "an "),
            (110, "a "),
            (1_100, "a "),
        ] {
            assert_eq!(article(n), a, "{n}");
        }
    }

    #[test]
    fn messages_are_cut_at_a_character_boundary() {
        let long = "é".repeat(MESSAGE_CAPACITY);
        let m = Message::new().push("x").push(&long);
        assert!(m.as_str().len() <= MESSAGE_CAPACITY);
        assert!(m.as_str().len() > MESSAGE_CAPACITY - 2);
        assert!(m.as_str().starts_with("xé"));
        assert_eq!(Message::new().push_u64(0).as_str(), "0");
        assert_eq!(
            Message::new().push_u64(u64::MAX).as_str(),
            u64::MAX.to_string()
        );
    }

    /// The form a const block computes is usable in const context.
    const _: () = {
        let m = mismatch(ParamForm::float(32), U32, None, "`a: Scale` is ", ", but …");
        assert!(!m.is_empty());
        assert!(mismatch(ParamForm::int(32), U32, None, "", "").is_empty());
    };
}
