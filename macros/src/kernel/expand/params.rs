//! Each parameter's compile-time check against its PTX parameter, and the expressions that
//! name a parameter's `Param` and form (shared by the check, the slots and the run-time
//! signature of `cuda = "…"` kernels).

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::{Attribute, Ident, Type};

use crate::kernel::ast::{KernelParam, Wording};
use chevron_cuda_rules::param::{Class, CppParam, Num};

/// The first and last spans of `ty`'s tokens: an expression spanned from one to the other is
/// reported over the whole type (on stable, `Spanned::span` gives the first token's only).
fn type_spans(ty: &Type) -> (Span, Span) {
    let tokens: Vec<TokenTree> = ty.to_token_stream().into_iter().collect();
    let first = tokens.first().map_or_else(Span::call_site, TokenTree::span);
    let last = match tokens.last() {
        Some(TokenTree::Group(g)) => g.span_close(),
        Some(t) => t.span(),
        None => first,
    };
    (first, last)
}

/// `<chevron>::__private::host_data::<&[f32], f32, _>()`: the parameter's `Param` (its generic
/// form and how it is passed), through the constructor whose bound words the error for a type
/// that is no kernel parameter. Every use of a parameter is this same call with the same spans,
/// so that rustc reports that error once, at the parameter's type.
pub(super) fn param_expr(q: &KernelParam) -> TokenStream {
    let ty = &q.ty;
    let (span, _) = type_spans(ty);
    let p = crate::krate::private_at(span);
    let (ctor, hint) = match &q.wording {
        Wording::Any => ("param", None),
        Wording::Value => ("value", None),
        Wording::HostData { elem, write } => (
            if *write { "host_data_mut" } else { "host_data" },
            Some(elem),
        ),
        Wording::HostRef { referent, write } => {
            (if *write { "host_mut" } else { "host_ref" }, Some(referent))
        }
        Wording::ReadOnlyView { elem } => ("read_only_view", Some(elem)),
        Wording::BufferByValue => ("buffer_by_value", None),
        Wording::RawPointer => ("raw_pointer", None),
    };
    let ctor = Ident::new(ctor, span);
    let hint = hint.map(|h| quote_spanned!(span=> #h,));
    quote_spanned!(span=> #p::#ctor::<#ty, #hint _>())
}

/// The parameter's form, the exact one for numbers and `bool` (see the runtime's `Of`), with
/// the C++ class of a value or of a buffer's elements where `classes` (the check needs them
/// only against a C++ type).
fn form_expr(q: &KernelParam, classes: bool) -> TokenStream {
    let ty = &q.ty;
    let (span, _) = type_spans(ty);
    let p = crate::krate::private_at(span);
    let param = param_expr(q);
    if !classes && q.by_ref {
        // A reference is no number: its form is its `Param`'s.
        return quote_spanned!(span=> #param.form);
    }
    let (class, elem) = if classes {
        (
            quote_spanned!(span=> #p::Of::<#ty>::CLASS),
            quote_spanned!(span=> #p::Of::<#ty>::ELEM),
        )
    } else {
        (
            quote_spanned!(span=> #p::None),
            quote_spanned!(span=> #p::None),
        )
    };
    quote_spanned! {span=> {
        #[allow(unused_imports)]
        use #p::NotScalar as _;
        #p::form(
            #p::Of::<#ty>::SCALAR,
            #class,
            #elem,
            #param.form,
        )
    }}
}

/// The compile-time check of one parameter, with `attrs` (the declaration's `#[cfg]` and lint
/// attributes): its type must be a kernel parameter type (a bound, whose error points at the
/// type), and, against a PTX file, fit the PTX parameter in its place (a const panic over the
/// type, in rustc's voice: "`a: Scale` is a 32-bit float, but the kernel takes a 32-bit
/// integer here (…); declare it as `u32` or `i32`").
pub fn param_check(q: &KernelParam, attrs: &[&Attribute]) -> TokenStream {
    let ty = &q.ty;
    let (first, last) = type_spans(ty);
    let p = crate::krate::private_at(first);
    if q.ptx.is_empty() {
        let param = param_expr(q);
        return quote_spanned! {first=>
            #(#attrs)*
            const _: () = {
                let _ = #param;
            };
        };
    }
    // One assertion per distinct PTX parameter (the variants of `ptx = [...]` may differ).
    q.ptx
        .iter()
        .map(|ptx| {
            // Classes matter only against a C++ type (`check`'s rule 3).
            let form = form_expr(q, !matches!(ptx.words.facts.cpp, CppParam::Unknown));
            let variant = Ident::new(&format!("{:?}", ptx.ty), first);
            let some = |n: Option<u32>| match n {
                Some(n) => quote_spanned!(first=> #p::Some(#n)),
                None => quote_spanned!(first=> #p::None),
            };
            let words = &ptx.words;
            let (array_len, align) = (some(ptx.array_len), some(words.facts.ptx_align));
            let cpp = cpp_tokens(&p, words.facts.cpp);
            let (written, read_only) = (words.facts.written, q.read_only);
            let prefix = format!("`{}: {}` is ", q.ident, q.ty_text);
            let (suffix, layout, cpp_suffix) = (&words.ptx, &words.layout, &words.cpp);
            let (not_const, written_suffix) = (&words.not_const, &words.written);
            let message = Ident::new("__chevron_mismatch", Span::mixed_site());
            // `panic!` from the parameter's name to its type's last token: the error covers the
            // whole parameter, `a: Scale`.
            let panic = quote_spanned!(q.ident.span()=> #p::panic!);
            let panic_args = quote_spanned!(last=> ("{}", #message.as_str()));
            quote_spanned! {first=>
                #(#attrs)*
                const _: () = {
                    let #message: #p::Message = #p::check_param(
                        #form,
                        #p::PtxType::#variant,
                        #array_len,
                        #align,
                        #cpp,
                        #written,
                        #read_only,
                        [#prefix, #suffix, #layout, #cpp_suffix, #not_const, #written_suffix],
                    );
                    if !#message.is_empty() {
                        #panic #panic_args
                    }
                };
            }
        })
        .collect()
}

/// A `CppParam` as the expression that builds it.
fn cpp_tokens(p: &TokenStream, cpp: CppParam) -> TokenStream {
    let num = |n: Num| match n {
        Num::Bool => quote!(#p::Num::Bool),
        Num::Char => quote!(#p::Num::Char),
        Num::Int { bits, signed } => quote!(#p::Num::Int { bits: #bits, signed: #signed }),
        Num::Float(bits) => quote!(#p::Num::Float(#bits)),
        Num::F16 => quote!(#p::Num::F16),
        Num::BF16 => quote!(#p::Num::BF16),
    };
    let class = |c: Class| match c {
        Class::Unknown => quote!(#p::Class::Unknown),
        Class::Void => quote!(#p::Class::Void),
        Class::Num(n) => {
            let n = num(n);
            quote!(#p::Class::Num(#n))
        }
        Class::Vector(n, lanes) => {
            let n = num(n);
            quote!(#p::Class::Vector(#n, #lanes))
        }
    };
    match cpp {
        CppParam::Unknown => quote!(#p::CppParam::Unknown),
        CppParam::Pointer { pointee, is_const } => {
            let pointee = class(pointee);
            quote!(#p::CppParam::Pointer { pointee: #pointee, is_const: #is_const })
        }
        CppParam::Value(c) => {
            let c = class(c);
            quote!(#p::CppParam::Value(#c))
        }
    }
}

/// One `ParamSig` of the run-time signature check (`cuda = "…"`).
pub(super) fn signature_entry(q: &KernelParam, p: &TokenStream) -> TokenStream {
    let name = q.ident.to_string();
    let ty_text = &q.ty_text;
    let form = form_expr(q, true);
    let read_only = q.read_only;
    quote!(#p::ParamSig::new(#name, #ty_text, #form, #read_only))
}
