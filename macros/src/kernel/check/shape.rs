//! The declaration's shape and its parameters as written: what `#[kernel]` refuses before
//! reading any PTX.

use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{FnArg, Pat, ReturnType, Type};

use crate::kernel::ast::{is_read_only, KernelItem, KernelParam};
use crate::report::Errors;

use super::types::{hint, host_data, spelled, strip, type_text, wording};

/// Rejects what a declaration cannot have: a body, generics, `async`, `const`, an ABI, `self`,
/// variadics, a return type.
pub(super) fn check_shape(item: &KernelItem, cx: &mut Errors) {
    let sig = &item.sig;
    for attr in item.attrs.iter().filter(|a| is_function_only(a)) {
        let name = attr.path().to_token_stream().to_string();
        let why = match name.as_str() {
            "test" | "bench" | "ignore" | "should_panic" => format!(
                "`#[{name}]` cannot be used on a `#[kernel]` declaration: it declares a kernel, \
                 not a test; write the test as its own function that launches `{}`",
                sig.ident
            ),
            _ => format!(
                "`#[{name}]` cannot be used on a `#[kernel]` declaration: it expands to a \
                 type (`{k}`, with `{k}::kernel()`), not a function{also}; remove it",
                k = sig.ident,
                also = if name == "inline" {
                    ", and its launch is inlined already"
                } else {
                    ""
                }
            ),
        };
        cx.push(syn::Error::new_spanned(attr, why));
    }
    if let Some(body) = item.body {
        cx.error(
            body,
            "a `#[kernel]` declaration has no body: the kernel's code is in its PTX or CUDA file; \
             replace `{ … }` with `;`",
        );
    }
    if sig.generics.lt_token.is_some() || sig.generics.where_clause.is_some() {
        let generics = &sig.generics;
        let only_lifetimes = sig
            .generics
            .params
            .iter()
            .all(|p| matches!(p, syn::GenericParam::Lifetime(_)));
        cx.push(syn::Error::new_spanned(
            quote::quote!(#generics),
            if only_lifetimes {
                "a kernel declaration takes no lifetime parameters: a launch borrows its buffers \
                 for the call only; remove them, and write `'_` where a type needs one \
                 (`&CudaView<'_, f32>`)"
            } else {
                "a kernel cannot be generic: each PTX entry is one instance; declare each \
                 template instance as its own kernel with `name = \"…\"` (its C++ name, such \
                 as `name = \"gemm<128>\"`)"
            },
        ));
    }
    for attr in sig.inputs.iter().flat_map(|a| match a {
        FnArg::Typed(t) => &t.attrs,
        FnArg::Receiver(r) => &r.attrs,
    }) {
        if attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr") {
            cx.push(syn::Error::new_spanned(
                attr,
                "`#[cfg]` cannot be used on a kernel parameter: the declaration is checked \
                 against the PTX entry's parameters as written; declare the kernel once per \
                 configuration, each declaration under its own `#[cfg(…)]`",
            ));
        }
    }
    if let Some(token) = &sig.asyncness {
        cx.error(
            token.span,
            "a kernel cannot be `async`: a launch is enqueued on a stream and returns at once; \
             remove `async`",
        );
    }
    if let Some(token) = &sig.constness {
        cx.error(token.span, "a kernel cannot be `const`; remove `const`");
    }
    if let Some(abi) = &sig.abi {
        cx.error(
            abi.span(),
            "a `#[kernel]` declaration takes no ABI: the launch goes through the CUDA driver; \
             remove it",
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.push(syn::Error::new_spanned(
            variadic,
            "a kernel cannot be variadic: the PTX entry has a fixed parameter list; declare \
             each parameter",
        ));
    }
    if let ReturnType::Type(..) = &sig.output {
        cx.push(syn::Error::new_spanned(
            &sig.output,
            "a kernel returns nothing (`void` in CUDA): write results into a `&mut CudaSlice<T>` \
             parameter and copy them back with `stream.clone_dtoh(&out)?`; remove the return type",
        ));
    }
}

/// Built-in attributes that apply to functions only: on the generated type rustc would reject
/// them (or give them another meaning, as `#[must_use]`), so `check_shape` reports them at the
/// declaration and the expansion drops them.
const FUNCTION_ONLY: [&str; 14] = [
    "inline",
    "cold",
    "track_caller",
    "must_use",
    "test",
    "bench",
    "ignore",
    "should_panic",
    "no_mangle",
    "export_name",
    "link_section",
    "target_feature",
    "naked",
    "instruction_set",
];

/// Whether `attr` is one of [`FUNCTION_ONLY`].
pub fn is_function_only(attr: &syn::Attribute) -> bool {
    attr.path()
        .get_ident()
        .is_some_and(|i| FUNCTION_ONLY.iter().any(|f| i == f))
}

/// Reads each parameter's pattern and type: the parameters read, and whether all were. Which
/// types a kernel can take is for rustc to decide (the expansion asserts it); only types no
/// alias can make valid are refused here: slices and `str` by value, `impl Trait`, `dyn Trait`,
/// `_`, `!`.
pub(super) fn check_params(item: &KernelItem, cx: &mut Errors) -> (Vec<KernelParam>, bool) {
    let mut out = Vec::new();
    let mut ok = true;
    for arg in &item.sig.inputs {
        let typed = match arg {
            FnArg::Receiver(r) => {
                cx.push(syn::Error::new_spanned(
                    r,
                    "a kernel has no `self`: `#[kernel]` declares a free function; remove `self`",
                ));
                ok = false;
                continue;
            }
            FnArg::Typed(t) => t,
        };
        let ident = match &*typed.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
            other => {
                cx.push(syn::Error::new_spanned(
                    other,
                    "a kernel parameter needs a plain name, like `n: u32`; patterns cannot be \
                     used here",
                ));
                None
            }
        };
        let ty = &*typed.ty;
        let valid = refuse_unsized(ty, cx);
        let read_only = check_read_only(typed, cx);
        match ident {
            Some(ident) if valid => out.push(KernelParam {
                ident,
                ty: ty.clone(),
                ty_text: type_text(ty),
                by_ref: matches!(strip(ty), Type::Reference(_)),
                hint: hint(ty),
                wording: wording(ty),
                spelled: spelled(ty),
                read_only,
                ptx: Vec::new(),
            }),
            _ => ok = false,
        }
    }
    (out, ok)
}

/// Reads `#[read_only]` on a parameter: a bare attribute, on a buffer not written `&mut`, not
/// on a number or vector by value (which the kernel gets a copy of: there is nothing to vouch
/// for).
fn check_read_only(typed: &syn::PatType, cx: &mut Errors) -> bool {
    let mut found = false;
    for attr in typed.attrs.iter().filter(|a| is_read_only(a)) {
        if !matches!(attr.meta, syn::Meta::Path(_)) {
            cx.push(syn::Error::new_spanned(
                attr,
                "`#[read_only]` takes no arguments: write `#[read_only] y: &CudaSlice<f32>`",
            ));
        } else if found {
            cx.push(syn::Error::new_spanned(attr, "duplicate `#[read_only]`"));
        } else if spelled(&typed.ty).is_some_and(|s| !s.buffer) {
            cx.push(syn::Error::new_spanned(
                attr,
                format!(
                    "`#[read_only]` on `{}`, a value: the kernel gets a copy of it, never a \
                     pointer it could write through; remove `#[read_only]` (it is for device \
                     buffers declared `&`, like `#[read_only] x: &CudaSlice<f32>`)",
                    type_text(&typed.ty)
                ),
            ));
        } else if let Type::Reference(r) = strip(&typed.ty) {
            if r.mutability.is_some() {
                cx.push(syn::Error::new_spanned(
                    attr,
                    "`#[read_only]` on a `&mut` buffer: the kernel may write it as declared; \
                     remove `#[read_only]`, or declare the buffer `&` if the kernel only reads it",
                ));
            }
        }
        found = true;
    }
    found
}

/// Refuses the types no alias or import can make a kernel parameter, which rustc would reject
/// in the generated signatures with less helpful words; `false` when refused.
fn refuse_unsized(ty: &Type, cx: &mut Errors) -> bool {
    // The type's text only for the message: printing it is most of this check's time.
    let why = match strip(ty) {
        Type::Slice(s) => host_data(&type_text(ty), &type_text(&s.elem)),
        Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => {
            host_data(&type_text(ty), "u8")
        }
        Type::ImplTrait(_) | Type::TraitObject(_) | Type::Infer(_) | Type::Never(_) => format!(
            "`{}` cannot be a kernel parameter: use a number, `bool`, a device buffer \
             (`&CudaSlice<T>`, `&mut CudaSlice<T>`, `&CudaView<'_, T>`, \
             `&mut CudaViewMut<'_, T>`) or a `#[repr(C)]` struct by value",
            type_text(ty)
        ),
        _ => return true,
    };
    cx.push(syn::Error::new_spanned(ty, why));
    false
}
