//! The Rust type to declare for a C++ parameter type, for the fix in a message.

use super::spelling::{parse_type, Spelled};
use super::{Class, CppParam, Num};

/// The Rust type to declare for a parameter of C++ type `text` (as the symbol spells it), for
/// the fix in a message: `&mut CudaSlice<f32>` for `float*`, `&CudaSlice<f32>` for
/// `float const*`, `i32` for `int`.
pub fn rust_for(text: &str) -> String {
    let spelled = Spelled::read(text);
    // `cudaGraphExec_t` (a device-launchable graph, passed to `cudaGraphLaunch`).
    if spelled.base == "CUgraphExec_st" && spelled.pointers == 1 && !spelled.other {
        return "`chevron::DeviceGraphHandle`".into();
    }
    let rust = |class: Class| -> String {
        match class {
            Class::Num(n) => match n {
                Num::Char => "`i8`".into(),
                Num::F16 => "`chevron::half::f16`".into(),
                Num::BF16 => "`chevron::half::bf16`".into(),
                Num::Int { bits: 64, signed } => {
                    if signed {
                        "`i64`".into()
                    } else {
                        "`u64`".into()
                    }
                }
                n => n.rust_name().to_string(),
            },
            Class::Vector(n, lanes) => match vector_rust(n, lanes) {
                Some(name) => format!("`chevron::vec::{name}`"),
                None => format!(
                    "a `#[repr(C, align({}))]` struct of {lanes} {}",
                    class.align(),
                    n.rust_name()
                ),
            },
            Class::Void | Class::Unknown => format!(
                "a `#[repr(C)]` type laid out like `{}`",
                spelled.base.replace(',', ", ")
            ),
        }
    };
    match parse_type(text) {
        CppParam::Value(class) => rust(class),
        CppParam::Pointer { pointee, is_const } => {
            let r = if is_const { "&" } else { "&mut " };
            match pointee {
                Class::Void => format!("`{r}CudaSlice<T>` of any `T`"),
                Class::Unknown => format!(
                    "`{r}CudaSlice<T>` of a `#[repr(C)]` type `T` laid out like `{}`",
                    spelled.base
                ),
                class => {
                    let inner = rust(class);
                    match inner.strip_prefix('`').and_then(|s| s.strip_suffix('`')) {
                        Some(name) if !name.contains('`') => format!("`{r}CudaSlice<{name}>`"),
                        _ => format!("`{r}CudaSlice<T>` of {inner}"),
                    }
                }
            }
        }
        CppParam::Unknown => format!("a type matching `{text}`"),
    }
}

/// The name of chevron's vector type for `lanes` numbers of class `n` (`chevron::vec::Float4`).
pub fn vector_rust(n: Num, lanes: u32) -> Option<String> {
    let elem = match n {
        Num::Char => "Char",
        Num::Int { bits, signed } => match (bits, signed) {
            (8, true) => "Char",
            (8, false) => "UChar",
            (16, true) => "Short",
            (16, false) => "UShort",
            (32, true) => "Int",
            (32, false) => "UInt",
            (64, true) => "Long",
            (64, false) => "ULong",
            _ => return None,
        },
        Num::Float(32) => "Float",
        Num::Float(64) => "Double",
        // `__half2`, `__nv_bfloat162` (feature `f16`); CUDA has no other lane counts of them.
        Num::F16 => "Half",
        Num::BF16 => "BFloat16",
        _ => return None,
    };
    let lanes_ok = match n {
        Num::F16 | Num::BF16 => lanes == 2,
        _ => (1..=4).contains(&lanes),
    };
    lanes_ok.then(|| format!("{elem}{lanes}"))
}
