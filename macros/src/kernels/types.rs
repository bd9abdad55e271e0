//! The Rust type `#[kernels]` declares for each C++ parameter type: the parameter table.
//!
//! | C++ parameter (as the symbol spells it) | Rust parameter | checked |
//! |---|---|---|
//! | `int`, `unsigned`, `long`, `size_t`, `float`, `double`, `bool`, `char` | `i32`, `u32`, `i64`, `u64`, `f32`, `f64`, `bool`, `i8` | PTX width and class, C++ class and signedness |
//! | `__half`, `__nv_bfloat16`, `__half2`, `__nv_bfloat162` | `chevron::half::f16`, `bf16`, `chevron::vec::Half2`, `BFloat162` (feature `f16`) | as numbers and vectors |
//! | every vector type of `vector_types.h`: `char1` … `uchar4`, `short2`, `int2`, `uint3`, `longlong2`, `float4`, `double4` … | `chevron::vec::Char1` … `UChar4`, `Short2`, `Int2`, `UInt3`, `Long2`, `Float4`, `Double4` … | lanes, element, size, alignment |
//! | `T const*` | `&CudaSlice<T>` (`&mut` where the PTX stores through it: a `const_cast`) | element type |
//! | `T*` that the PTX provably never writes through | `#[read_only] &CudaSlice<T>` (two inputs may be one buffer) | element type, no store |
//! | `T*` otherwise | `&mut CudaSlice<T>` | element type |
//! | `void*`, `void const*` | `&mut CudaSlice<u8>`, `&CudaSlice<u8>` (bytes) | a device pointer |
//! | `T**`, `T* const*` | `&mut CudaSlice<u64>`, `&CudaSlice<u64>` (device addresses) | a device pointer |
//! | a type mapped with `types("C++ type" = RustType)` | `RustType` (by value) or `&(mut) CudaSlice<RustType>` | size (and alignment) against the PTX |
//! | a struct, class or enum by value; types chevron has no Rust type for; dependent typedefs (`vec4<float>::Type*`, which the symbol spells so); references, function pointers | nothing: one error, whose fix is `types(…)`, a hand declaration in the module, or `skip` | |

use proc_macro2::TokenStream;
use quote::quote;

use chevron_cuda_rules::cpp::{parse_type, vector_rust};
use chevron_cuda_rules::param::{Class, CppParam, Num};
use chevron_cuda_rules::ptx::Seen;

use super::cpp::same_spelling;

/// A user's mapping of a C++ type to a Rust type: `types("Affine" = super::Affine)`.
pub struct UserType {
    pub cpp: syn::LitStr,
    pub rust: syn::Type,
    /// Whether a parameter used it (an unused mapping is reported: a misspelled name).
    pub used: std::cell::Cell<bool>,
}

/// One parameter's Rust type, or why chevron cannot pick one.
pub enum Mapped {
    /// The type, its text for the docs, and whether it is `#[read_only]` (a `T*` the PTX never
    /// writes through).
    Rust {
        ty: TokenStream,
        text: String,
        read_only: bool,
    },
    /// A struct, class or enum by value: its C++ spelling.
    ByValue(String),
    /// `__half` or `__nv_bfloat16` (or a pointer to them) without chevron's `f16` feature: the
    /// C++ spelling.
    NeedsF16(String),
    /// A type chevron has no Rust type for: its C++ spelling, and the pointee's spelling (what
    /// `types(…)` would map).
    Unknown { cpp: String, base: String },
}

/// The Rust type for the C++ parameter `text` (as the symbol spells it) through which the
/// entry's PTX `writes` (or not), with the user's `types`; `p` is `<chevron>::__private`.
pub fn map_param(text: &str, writes: Option<&Seen>, types: &[UserType], p: &TokenStream) -> Mapped {
    let (base, pointers) = base_and_pointers(text);
    let user = types
        .iter()
        .find(|t| same_spelling(&t.cpp.value(), &base))
        .map(|t| {
            t.used.set(true);
            let rust = &t.rust;
            (quote!(#rust), quote!(#rust).to_string())
        });
    let cpp = parse_type(text);
    let half = |c: &Class| {
        matches!(
            c,
            Class::Num(Num::F16 | Num::BF16) | Class::Vector(Num::F16 | Num::BF16, 2)
        )
    };
    let is_half = match &cpp {
        CppParam::Value(c) => half(c),
        CppParam::Pointer { pointee, .. } => pointers == 1 && half(pointee),
        CppParam::Unknown => false,
    };
    if user.is_none() && is_half && !cfg!(feature = "f16") {
        return Mapped::NeedsF16(text.to_string());
    }
    if let (Some((ty, ty_text)), 0) = (&user, pointers) {
        return Mapped::Rust {
            ty: ty.clone(),
            text: ty_text.clone(),
            read_only: false,
        };
    }
    match cpp {
        CppParam::Value(class) => match value_type(class, p) {
            Some((ty, text)) => Mapped::Rust {
                ty,
                text,
                read_only: false,
            },
            None if matches!(class, Class::Unknown) => Mapped::ByValue(text.to_string()),
            None => Mapped::Unknown {
                cpp: text.to_string(),
                base,
            },
        },
        CppParam::Pointer { pointee, is_const } => {
            let elem = match (&user, pointers) {
                (Some((ty, text)), 1) => Some((ty.clone(), text.clone())),
                (_, 1) => match pointee {
                    Class::Void => Some((quote!(::core::primitive::u8), "u8".into())),
                    class => value_type(class, p),
                },
                // A pointer to pointers: its elements are 8-byte device addresses.
                _ => Some((quote!(::core::primitive::u64), "u64".into())),
            };
            let Some((elem, elem_text)) = elem else {
                return Mapped::Unknown {
                    cpp: text.to_string(),
                    base,
                };
            };
            let never_written = matches!(writes, Some(Seen::No));
            // A store through a `const T*` (a `const_cast`) wins over the `const`.
            let stored = matches!(writes, Some(Seen::Yes(_)));
            let slice = quote!(#p::cudarc::driver::CudaSlice<#elem>);
            let (ty, text, read_only) = if is_const && !stored {
                (quote!(&#slice), format!("&CudaSlice<{elem_text}>"), false)
            } else if never_written {
                (quote!(&#slice), format!("&CudaSlice<{elem_text}>"), true)
            } else {
                (
                    quote!(&mut #slice),
                    format!("&mut CudaSlice<{elem_text}>"),
                    false,
                )
            };
            Mapped::Rust {
                ty,
                text,
                read_only,
            }
        }
        CppParam::Unknown => Mapped::Unknown {
            cpp: text.to_string(),
            base,
        },
    }
}

/// The Rust type of a value of class `class`, with its text for the docs; `None` for a class
/// chevron has no Rust type for.
fn value_type(class: Class, p: &TokenStream) -> Option<(TokenStream, String)> {
    let prim = |name: &str| {
        let id = proc_macro2::Ident::new(name, proc_macro2::Span::call_site());
        Some((quote!(::core::primitive::#id), name.to_string()))
    };
    match class {
        Class::Num(n) => match n {
            Num::Bool => prim("bool"),
            Num::Char => prim("i8"),
            Num::Int { bits, signed } => {
                let name = format!("{}{bits}", if signed { "i" } else { "u" });
                prim(&name)
            }
            Num::Float(bits) => prim(&format!("f{bits}")),
            Num::F16 => Some((quote!(#p::runtime::half::f16), "chevron::half::f16".into())),
            Num::BF16 => Some((
                quote!(#p::runtime::half::bf16),
                "chevron::half::bf16".into(),
            )),
        },
        Class::Vector(n, lanes) => {
            let name = vector_rust(n, lanes)?;
            let id = proc_macro2::Ident::new(&name, proc_macro2::Span::call_site());
            Some((
                quote!(#p::runtime::vec::#id),
                format!("chevron::vec::{name}"),
            ))
        }
        Class::Void | Class::Unknown => None,
    }
}

/// The type under its pointers and qualifiers, and how many pointers: `("float", 1)` for
/// `float const*`, `("vec4<float>::Type", 1)` for `vec4<float>::Type*`.
fn base_and_pointers(text: &str) -> (String, usize) {
    let mut depth = 0i32;
    let mut pointers = 0;
    let mut base = String::new();
    for c in text.chars() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            '*' if depth == 0 => {
                pointers += 1;
                continue;
            }
            _ => {}
        }
        if pointers == 0 || depth > 0 {
            base.push(c);
        }
    }
    let words: Vec<&str> = base
        .split_whitespace()
        .filter(|w| {
            !matches!(
                *w,
                "const" | "volatile" | "__restrict__" | "struct" | "class"
            )
        })
        .collect();
    (words.join(" "), pointers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rust(text: &str, writes: Option<&Seen>) -> String {
        match map_param(text, writes, &[], &quote!(P)) {
            Mapped::Rust {
                text, read_only, ..
            } => {
                format!("{}{text}", if read_only { "#[read_only] " } else { "" })
            }
            Mapped::ByValue(c) => format!("by value: {c}"),
            Mapped::Unknown { cpp, base } => format!("unknown: {cpp} ({base})"),
            Mapped::NeedsF16(c) => format!("needs f16: {c}"),
        }
    }

    #[test]
    fn the_parameter_table() {
        let written = Seen::Unknown;
        assert_eq!(rust("int", None), "i32");
        assert_eq!(rust("unsigned long", None), "u64");
        assert_eq!(rust("char", None), "i8");
        assert_eq!(rust("float4", None), "chevron::vec::Float4");
        // The feature is the facade's `f16`, on in the workspace's tests (a dev-dependency),
        // off in `cargo test -p chevron-cuda-macros`.
        if cfg!(feature = "f16") {
            assert_eq!(rust("__half", None), "chevron::half::f16");
            assert_eq!(
                rust("__nv_bfloat16 const*", None),
                "&CudaSlice<chevron::half::bf16>"
            );
        } else {
            assert_eq!(rust("__half", None), "needs f16: __half");
            assert_eq!(rust("__half2 const*", None), "needs f16: __half2 const*");
            assert_eq!(
                rust("__nv_bfloat16 const*", None),
                "needs f16: __nv_bfloat16 const*"
            );
            // A pointer to pointers is a buffer of addresses, whatever they point at.
            assert_eq!(rust("__half**", Some(&written)), "&mut CudaSlice<u64>");
        }
        assert_eq!(rust("float const*", None), "&CudaSlice<f32>");
        let stored = Seen::Yes(chevron_cuda_rules::ptx::Site {
            line: 40,
            func: None,
        });
        assert_eq!(rust("float const*", Some(&stored)), "&mut CudaSlice<f32>");
        assert_eq!(rust("float*", Some(&written)), "&mut CudaSlice<f32>");
        assert_eq!(
            rust("float*", Some(&Seen::No)),
            "#[read_only] &CudaSlice<f32>"
        );
        assert_eq!(
            rust("float4 const*", None),
            "&CudaSlice<chevron::vec::Float4>"
        );
        assert_eq!(rust("void*", Some(&written)), "&mut CudaSlice<u8>");
        assert_eq!(rust("void const*", None), "&CudaSlice<u8>");
        assert_eq!(rust("float**", Some(&written)), "&mut CudaSlice<u64>");
        assert_eq!(rust("float* const*", None), "&CudaSlice<u64>");
        assert_eq!(rust("Affine", None), "by value: Affine");
        assert_eq!(
            rust("__half2*", Some(&written)),
            if cfg!(feature = "f16") {
                "&mut CudaSlice<chevron::vec::Half2>"
            } else {
                "needs f16: __half2*"
            }
        );
        assert_eq!(
            rust("uchar4 const*", None),
            "&CudaSlice<chevron::vec::UChar4>"
        );
        assert_eq!(
            rust("vec4<float>::Type*", Some(&written)),
            "unknown: vec4<float>::Type* (vec4<float>::Type)"
        );
        assert_eq!(rust("float&", None), "unknown: float& (float&)");
    }

    #[test]
    fn user_types_map_values_and_pointees() {
        let types = [UserType {
            cpp: syn::parse_quote!("vec4<float>::Type"),
            rust: syn::parse_quote!(super::F4),
            used: Default::default(),
        }];
        let Mapped::Rust { text, .. } =
            map_param("vec4<float>::Type const*", None, &types, &quote!(P))
        else {
            panic!("not mapped");
        };
        assert_eq!(text, "&CudaSlice<super :: F4>");
        assert!(types[0].used.get());
    }
}
