//! Checking a declared Rust kernel signature against a PTX entry's parameters.

use super::{rule, words, Entry, Expected, Param, PtxType};

/// One declared parameter of a kernel: its name, its Rust type as written and what it needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamSig {
    /// The Rust parameter name.
    pub name: &'static str,
    /// The Rust type as written, for messages.
    pub ty: &'static str,
    /// What it needs from the PTX.
    pub expected: Expected,
    /// Its whole form, for the C++ and write checks ([`check_cpp`]).
    pub form: rule::ParamForm,
    /// Declared `#[read_only]`.
    pub read_only: bool,
}

impl ParamSig {
    /// The parameter `name: ty` of form `form`.
    pub const fn new(
        name: &'static str,
        ty: &'static str,
        form: rule::ParamForm,
        read_only: bool,
    ) -> ParamSig {
        ParamSig {
            name,
            ty,
            expected: form.expected,
            form,
            read_only,
        }
    }
}

impl Param {
    /// What the PTX side is, for messages: "a 32-bit integer", "a 16-byte struct".
    pub fn describe(&self) -> String {
        use PtxType::*;
        let bits = self.ty.bits();
        match (self.array_len, self.ty) {
            (Some(_), _) => format!("a {}-byte struct", self.size_bytes()),
            (None, F16 | F32 | F64) => format!("a {bits}-bit float"),
            (None, U64 | S64) => "a 64-bit integer or device pointer".into(),
            (None, U8 | U16 | U32 | S8 | S16 | S32) => format!("a {bits}-bit integer"),
            (None, B8 | B16 | B32 | B64) => format!("{bits} untyped bits (`{}`)", self.ty.name()),
            (None, Pred) => "a predicate".into(),
        }
    }

    /// The Rust types that fit this parameter, for the fix in a message.
    pub fn suggest(&self) -> String {
        use PtxType::*;
        match (self.array_len, self.ty) {
            (Some(_), _) if self.size_bytes() == 2 => "a 2-byte type by value: `chevron::half::f16` \
                or `bf16` (feature `f16`) for `__half` or `__nv_bfloat16`, or a `#[repr(C)]` struct \
                of 2 bytes"
                .into(),
            (Some(_), _) => format!(
                "a `#[repr(C)]` struct of {} bytes, passed by value",
                self.size_bytes()
            ),
            (None, F32) => "`f32`".into(),
            (None, F64) => "`f64`".into(),
            (None, F16) => "a 2-byte type by value such as `half::f16`".into(),
            (None, U8 | S8 | B8) => "`u8`, `i8` or `bool`".into(),
            (None, U16 | S16 | B16) => "`u16` or `i16`".into(),
            (None, U32 | S32) => "`u32` or `i32`".into(),
            (None, B32) => "`u32`, `i32` or `f32`".into(),
            (None, U64 | S64) => "`u64`, `i64` or a device buffer (`&CudaSlice<T>`)".into(),
            (None, B64) => "`u64`, `i64`, `f64` or a device buffer (`&CudaSlice<T>`)".into(),
            (None, Pred) => "nothing: `.pred` parameters cannot be passed from the host".into(),
        }
    }
}

/// Checks one declared parameter against the PTX parameter in its place.
///
/// Widths must agree; integers accept either signedness and the untyped `.bN`; floats accept
/// `.fN` and `.bN`; pointers need 64 bits; by-value types match a `.b8 name[N]` array or any
/// scalar of their size. `Ok` carries the size in bytes the Rust type must have, for
/// [`Expected::Value`] with an unknown size (the macro asserts it at compile time).
///
/// The error says what differs, without naming the Rust parameter or the line (see
/// [`check_signature`] for the full message).
pub fn check_param(expected: Expected, param: &Param) -> Result<Option<u64>, String> {
    // One rule for both: `#[kernel]` applies it in const code (`param::fits`).
    if rule::fits(expected, param.ty, param.array_len) {
        return Ok(match expected {
            Expected::Value(None) => Some(param.size_bytes()),
            _ => None,
        });
    }
    Err(format!(
        "{}, but the kernel takes {} here",
        expected.describe(),
        param.describe()
    ))
}

/// Checks a whole declared signature against an entry; every difference is reported, one per
/// line, each with the PTX line it is about.
pub fn check_signature(params: &[ParamSig], entry: &Entry) -> Result<(), String> {
    if params.len() != entry.params.len() {
        return Err(format!(
            "the PTX entry `{}` (line {}) has {} parameter{}, the declaration {}",
            entry.name,
            entry.line,
            entry.params.len(),
            if entry.params.len() == 1 { "" } else { "s" },
            params.len()
        ));
    }
    let problems: Vec<String> = params
        .iter()
        .zip(&entry.params)
        .filter_map(|(sig, param)| {
            check_param(sig.expected, param).err().map(|why| {
                format!(
                    "`{}: {}` is {why} (line {}: `{}`); declare it as {}",
                    sig.name,
                    sig.ty,
                    param.line,
                    param.text,
                    param.suggest()
                )
            })
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}

/// Checks a declared signature that [`check_signature`] accepted against what `entry`'s symbol
/// and PTX say beyond the PTX types: each parameter's C++ type, a by-value struct's alignment
/// and write access ([`crate::param::check`], the rule `#[kernel]` asserts at compile time for
/// PTX files). `file` names the PTX in messages; `ptx_text` is the PTX, for quoting stores.
/// Every difference is reported, one per line.
pub fn check_cpp(
    params: &[ParamSig],
    entry: &Entry,
    file: &str,
    ptx_text: &str,
) -> Result<(), String> {
    let problems: Vec<String> = params
        .iter()
        .zip(&entry.params)
        .enumerate()
        .filter_map(|(k, (sig, param))| {
            let words = words::ParamWords::of(entry, k, file, ptx_text, sig.ty);
            let prefix = format!("`{}: {}` is ", sig.name, sig.ty);
            let facts = rule::Facts {
                read_only: sig.read_only,
                ..words.facts
            };
            let message = rule::check(
                sig.form,
                param.ty,
                param.array_len,
                facts,
                &words.texts(&prefix),
            );
            (!message.is_empty()).then(|| message.as_str().to_string())
        })
        .collect();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n"))
    }
}
