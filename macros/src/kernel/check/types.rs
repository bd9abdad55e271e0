//! What a parameter's type is as written: its wording for the bound's message, the form its
//! spelling promises, and its text in messages.

use chevron_cuda_rules::param::{class_fits, Class, CppParam, Num};
use chevron_cuda_rules::ptx::Expected;
use quote::ToTokens;
use syn::{GenericArgument, PathArguments, Type};

use crate::kernel::ast::{Spelled, Wording};

/// Device buffer types, by the last segment of their path.
const BUFFERS: [&str; 3] = ["CudaSlice", "CudaView", "CudaViewMut"];

pub(super) fn host_data(text: &str, elem: &str) -> String {
    format!(
        "`{text}` is host memory, which a kernel cannot access: copy it to the device first \
         (`let x = stream.clone_htod(&data)?;` gives a `CudaSlice<{elem}>`) and declare the \
         parameter as `&CudaSlice<{elem}>`"
    )
}

/// Sees through parentheses and invisible groups (from `macro_rules!` fragments).
pub(super) fn strip(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => strip(&g.elem),
        Type::Paren(p) => strip(&p.elem),
        other => other,
    }
}

/// The last segment of a path type, with its generic arguments.
fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match strip(ty) {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

/// The first type argument of a path type's last segment: `T` in `Vec<T>`, `CudaView<'_, T>`.
fn type_arg(ty: &Type) -> Option<&Type> {
    let PathArguments::AngleBracketed(args) = &last_segment(ty)?.arguments else {
        return None;
    };
    args.args.iter().find_map(|a| match a {
        GenericArgument::Type(t) => Some(t),
        _ => None,
    })
}

/// `E` when `ty` is spelled as host data of elements `E`: `[E]`, `Vec<E>`, `Box<[E]>`, `str`,
/// `String` (elements `u8`).
fn host_elem(ty: &Type) -> Option<Type> {
    if let Type::Slice(s) = strip(ty) {
        return Some((*s.elem).clone());
    }
    let seg = last_segment(ty)?;
    match seg.ident.to_string().as_str() {
        "Vec" | "Box" => type_arg(ty).map(|t| match strip(t) {
            Type::Slice(s) => (*s.elem).clone(),
            other => other.clone(),
        }),
        "String" | "str" if seg.arguments.is_none() => {
            Some(syn::parse_quote!(::core::primitive::u8))
        }
        _ => None,
    }
}

/// Which trait words the error of a type that is no kernel parameter (see [`Wording`]).
pub(super) fn wording(ty: &Type) -> Wording {
    let spelled = match strip(ty) {
        Type::Reference(r) => {
            let write = r.mutability.is_some();
            if let Some(elem) = host_elem(&r.elem) {
                Wording::HostData { elem, write }
            } else if let (true, Some("CudaView"), Some(elem)) = (
                write,
                last_segment(&r.elem)
                    .map(|s| s.ident.to_string())
                    .as_deref(),
                type_arg(&r.elem),
            ) {
                Wording::ReadOnlyView { elem: elem.clone() }
            } else {
                Wording::HostRef {
                    referent: (*r.elem).clone(),
                    write,
                }
            }
        }
        Type::Path(_) => match last_segment(ty).map(|s| s.ident.to_string()).as_deref() {
            Some(b) if BUFFERS.contains(&b) => Wording::BufferByValue,
            _ => match host_elem(ty) {
                Some(elem) => Wording::HostData { elem, write: false },
                None => Wording::Value,
            },
        },
        Type::Array(_) | Type::Tuple(_) | Type::FnPtr(_) => Wording::Value,
        Type::Ptr(_) => Wording::RawPointer,
        _ => Wording::Any,
    };
    // A hint type is written a second time in the expansion, where `_` would be inferred
    // (ambiguously) instead of reported once at the parameter.
    let infers = |t: &Type| t.to_token_stream().into_iter().any(|tt| is_underscore(&tt));
    match &spelled {
        Wording::HostData { elem: t, .. }
        | Wording::ReadOnlyView { elem: t }
        | Wording::HostRef { referent: t, .. }
            if infers(t) =>
        {
            Wording::Any
        }
        _ => spelled,
    }
}

fn is_underscore(tt: &proc_macro2::TokenTree) -> bool {
    match tt {
        proc_macro2::TokenTree::Ident(i) => i == "_",
        proc_macro2::TokenTree::Punct(p) => p.as_char() == '_',
        proc_macro2::TokenTree::Group(g) => g.stream().into_iter().any(|t| is_underscore(&t)),
        proc_macro2::TokenTree::Literal(_) => false,
    }
}

/// The name a path type gives a primitive, if it can name one: a bare name (`f32`) or its path
/// in `core`/`std` (`std::primitive::f32`); whether that name is a primitive is the caller's.
pub(in crate::kernel) fn primitive_name(p: &syn::TypePath) -> Option<String> {
    if p.qself.is_some() {
        return None;
    }
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let name = match segs.as_slice() {
        [name] if p.path.leading_colon.is_none() => name,
        [root, module, name] if (root == "std" || root == "core") && module == "primitive" => name,
        _ => return None,
    };
    Some(name.clone())
}

/// What the spelling says, where it names a primitive (`u32`, `std::primitive::f32`) or a device
/// buffer (`&CudaSlice<T>`): only to guess which PTX parameters a shorter declaration left out.
pub(super) fn hint(ty: &Type) -> Option<Expected> {
    match strip(ty) {
        Type::Path(p) => {
            let name = primitive_name(p)?;
            Some(match name.as_str() {
                "u8" | "i8" => Expected::Int(8),
                "u16" | "i16" => Expected::Int(16),
                "u32" | "i32" => Expected::Int(32),
                "u64" | "i64" | "usize" | "isize" => Expected::Int(64),
                "f32" => Expected::Float(32),
                "f64" => Expected::Float(64),
                "bool" => Expected::Bool,
                _ => return None,
            })
        }
        Type::Reference(r) => last_segment(&r.elem)
            .filter(|s| BUFFERS.contains(&s.ident.to_string().as_str()))
            .map(|_| Expected::Pointer),
        _ => None,
    }
}

/// What the spelling says in C++ terms (see [`Spelled`]): a primitive or half/vector type by
/// value, or a device buffer of one.
pub(super) fn spelled(ty: &Type) -> Option<Spelled> {
    match strip(ty) {
        Type::Reference(r) => {
            let seg = last_segment(&r.elem)?;
            if !BUFFERS.contains(&seg.ident.to_string().as_str()) {
                return None;
            }
            let class = type_arg(&r.elem).map_or(Class::Unknown, spelled_class);
            Some(Spelled {
                buffer: true,
                class,
            })
        }
        Type::Path(_) => {
            let class = spelled_class(ty);
            (class != Class::Unknown).then_some(Spelled {
                buffer: false,
                class,
            })
        }
        _ => None,
    }
}

/// The class a type's spelling names: a primitive (as [`hint`] reads one), `f16`/`bf16`, or a
/// vector type of `chevron::vec` by its last segment.
fn spelled_class(ty: &Type) -> Class {
    let int = |bits, signed| Class::Num(Num::Int { bits, signed });
    let Some(seg) = last_segment(ty) else {
        return Class::Unknown;
    };
    let name = seg.ident.to_string();
    let primitive = hint(ty).is_some();
    let class = match name.as_str() {
        "u8" if primitive => int(8, false),
        "i8" if primitive => int(8, true),
        "u16" if primitive => int(16, false),
        "i16" if primitive => int(16, true),
        "u32" if primitive => int(32, false),
        "i32" if primitive => int(32, true),
        "u64" | "usize" if primitive => int(64, false),
        "i64" | "isize" if primitive => int(64, true),
        "f32" if primitive => Class::Num(Num::Float(32)),
        "f64" if primitive => Class::Num(Num::Float(64)),
        "bool" if primitive => Class::Num(Num::Bool),
        "f16" => Class::Num(Num::F16),
        "bf16" => Class::Num(Num::BF16),
        _ => {
            let lanes = name.chars().last().and_then(|c| c.to_digit(10));
            let num = match name.get(..name.len().saturating_sub(1)) {
                Some("Float") => Num::Float(32),
                Some("Double") => Num::Float(64),
                Some("Int") => Num::Int {
                    bits: 32,
                    signed: true,
                },
                Some("UInt") => Num::Int {
                    bits: 32,
                    signed: false,
                },
                _ => return Class::Unknown,
            };
            match lanes {
                Some(n @ 2..=4) => Class::Vector(num, n),
                _ => Class::Unknown,
            }
        }
    };
    class
}

/// Whether a declared parameter spelled as `spelled` can be the C++ parameter `cpp`, for
/// telling overloads apart (the const assertions check the types rustc resolves).
pub(super) fn spelled_fits(spelled: Spelled, cpp: CppParam) -> bool {
    let class_ok = |cpp: Class| {
        let rust = spelled.class;
        rust == Class::Unknown || class_fits(rust, rust.bytes(), rust.align(), cpp)
    };
    match (spelled.buffer, cpp) {
        (_, CppParam::Unknown) => true,
        (true, CppParam::Pointer { pointee, .. }) => class_ok(pointee),
        (true, CppParam::Value(_)) => false,
        (false, CppParam::Pointer { .. }) => matches!(
            spelled.class,
            Class::Num(Num::Int { bits: 64, .. }) | Class::Unknown
        ),
        (false, CppParam::Value(class)) => class_ok(class),
    }
}

/// The type as a user would write it: `&mut CudaSlice<f32>`, not `& mut CudaSlice < f32 >`.
pub(super) fn type_text(ty: &Type) -> String {
    compact(&ty.to_token_stream().to_string())
}

/// Token-stream text (tokens separated by single spaces) without the spaces a user would not
/// write: around `<`, before `>`, `,`, `]`, `;` and `)`, after `&`, `[`, `(`, `*` and `::`, and
/// before a `::` followed by a space. One pass over the bytes: each space's fate depends only on
/// its neighbours, which are no spaces (the unoptimised build cargo makes of proc macros runs
/// `str::replace` loops slowly, and every parameter's type goes through here).
fn compact(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    for (i, &b) in bytes.iter().enumerate() {
        if b == b' ' {
            let prev = i.checked_sub(1).map(|k| bytes[k]);
            let next = bytes.get(i + 1).copied();
            let after_path_sep = i >= 2 && bytes[i - 1] == b':' && bytes[i - 2] == b':';
            let before_path_sep = bytes.get(i + 1..i + 4) == Some(b":: ");
            let drop = matches!(prev, Some(b'<' | b'&' | b'[' | b'(' | b'*'))
                || matches!(next, Some(b'<' | b'>' | b',' | b']' | b';' | b')'))
                || after_path_sep
                || before_path_sep;
            if drop {
                continue;
            }
        }
        out.push(b);
    }
    // Only ASCII spaces were left out: still UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

#[cfg(test)]
mod compact_tests {
    use super::compact;

    /// The pass gives what replacing each pattern until none is left gave.
    #[test]
    fn compact_is_the_replacements_to_a_fixpoint() {
        let reference = |text: &str| {
            let mut s = text.to_string();
            for (from, to) in [
                (" < ", "<"),
                ("< ", "<"),
                (" <", "<"),
                (" >", ">"),
                ("& ", "&"),
                (" :: ", "::"),
                (":: ", "::"),
                (" ,", ","),
                ("[ ", "["),
                (" ]", "]"),
                (" ;", ";"),
                ("( ", "("),
                (" )", ")"),
                ("* ", "*"),
            ] {
                while s.contains(from) {
                    s = s.replace(from, to);
                }
            }
            s
        };
        for text in [
            "& mut CudaSlice < f32 >",
            "& 'r CudaView < '_ , f32 >",
            ":: std :: primitive :: f32",
            "[u32 ; 4]",
            "* const u8",
            "(u32 , f32)",
            "< T as Trait > :: Assoc",
            "chevron :: vec :: Half2",
            "& [f32]",
            "fn (u32) -> u32",
            "Foo < \"a < b\" , 3 >",
            "& & CudaSlice < Vec < u8 > >",
            "< :: a",
            "a ::b",
        ] {
            assert_eq!(compact(text), reference(text), "{text}");
        }
    }
}
