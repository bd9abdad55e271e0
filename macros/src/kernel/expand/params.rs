//! Each parameter's compile-time check against its PTX parameter, and the expressions that
//! name a parameter's `Param` and form (shared by the check, the slots and the run-time
//! signature of `cuda = "…"` kernels).

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::{Attribute, Ident, Type};

use crate::code::Code;
use crate::kernel::ast::{KernelParam, Wording};
use chevron_cuda_rules::param::{
    check_param, Class, CppParam, Num, ParamForm, SpelledNumber, SPELLED_NUMBERS,
};

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
    if q.ptx.is_empty() {
        let (first, _) = type_spans(&q.ty);
        let param = param_expr(q);
        return quote_spanned! {first=>
            #(#attrs)*
            const _: () = {
                let _ = #param;
            };
        };
    }
    // One assertion per distinct PTX parameter (the variants of `ptx = [...]` may differ).
    let prefix = format!("`{}: {}` is ", q.ident, q.ty_text);
    q.ptx
        .iter()
        .filter_map(|ptx| {
            let words = &ptx.words;
            let facts = words.facts;
            let texts = [
                prefix.as_str(),
                &words.ptx,
                &words.layout,
                &words.cpp,
                &words.not_const,
                &words.written,
            ];
            // Classes matter only against a C++ type (`check`'s rule 3).
            let classes = !matches!(facts.cpp, CppParam::Unknown);
            let (first, last) = type_spans(&q.ty);
            // Where the spelling decides the form, the macro applies the rule itself: a
            // mismatch is its own spanned error, in rustc's voice (no const panic);
            // `spelling_guard` asserts that the spelling means what it says.
            if let Some((form, _)) = known_form(q, classes) {
                let (cpp, written, align) = (facts.cpp, facts.written, facts.ptx_align);
                let message = check_param(
                    form,
                    ptx.ty,
                    ptx.array_len,
                    align,
                    cpp,
                    written,
                    q.read_only,
                    texts,
                );
                if message.is_empty() {
                    return None;
                }
                return Some(mismatch_error(q, message.as_str(), attrs));
            }
            let p = crate::krate::private_at(first);
            let form = form_expr(q, classes);
            let variant = Ident::new(&format!("{:?}", ptx.ty), first);
            let some = |n: Option<u32>| match n {
                Some(n) => quote_spanned!(first=> #p::Some(#n)),
                None => quote_spanned!(first=> #p::None),
            };
            let (array_len, align) = (some(ptx.array_len), some(facts.ptx_align));
            let cpp = cpp_tokens(&p, facts.cpp);
            let (written, read_only) = (facts.written, q.read_only);
            let message = Ident::new("__chevron_mismatch", Span::mixed_site());
            // `panic!` from the parameter's name to its type's last token: the error covers the
            // whole parameter, `a: Scale`.
            let panic = quote_spanned!(q.ident.span()=> #p::panic!);
            let panic_args = quote_spanned!(last=> ("{}", #message.as_str()));
            Some(quote_spanned! {first=>
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
                        [#(#texts),*],
                    );
                    if !#message.is_empty() {
                        #panic #panic_args
                    }
                };
            })
        })
        .collect()
}

/// The error for a parameter whose spelling the macro read and found not to fit the PTX
/// parameter, over the whole parameter (`a: u64`), under the declaration's attributes (a
/// `#[cfg]`'d-out declaration reports nothing).
fn mismatch_error(q: &KernelParam, message: &str, attrs: &[&Attribute]) -> TokenStream {
    let (ident, ty) = (&q.ident, &q.ty);
    let error = syn::Error::new_spanned(quote!(#ident: #ty), message).to_compile_error();
    quote! {
        #(#attrs)*
        const _: () = { #error };
    }
}

/// The primitive number `ty` spells: a bare name (`f32`) or its path in `core`/`std`
/// (`std::primitive::f32`).
fn scalar(ty: &Type) -> Option<&'static SpelledNumber> {
    let Type::Path(p) = ty else { return None };
    if p.path.segments.iter().any(|s| !s.arguments.is_none()) {
        return None;
    }
    let name = crate::kernel::check::primitive_name(p)?;
    SPELLED_NUMBERS.iter().find(|n| n.name == name)
}

/// What rustc computes as `q`'s form (see [`form_expr`]; with the C++ classes where
/// `classes`), when the spelling alone decides it: a primitive number by value, or a device
/// buffer of one (`&CudaSlice<f32>`, `&mut CudaViewMut<'_, u32>`), with the number's spelling.
/// `None` for anything else (an alias, a struct, `usize`, `half::f16`), which rustc decides.
///
/// A name can be shadowed (`struct f32;`, another `CudaSlice`): a buffer type that is not one
/// of cudarc's fails its `KernelParam` bound anyway, and [`spelling_guard`] makes a shadowed
/// number a type error, so the macro's reading is never silently wrong.
pub(super) fn known_form(q: &KernelParam, classes: bool) -> Option<(ParamForm, &Type)> {
    if !SPELLING_DECIDES.with(std::cell::Cell::get) {
        return None;
    }
    let ty = &q.ty;
    if let Some(n) = scalar(ty) {
        return Some((n.value_form(classes), ty));
    }
    let Type::Reference(r) = ty else { return None };
    let Type::Path(p) = &*r.elem else { return None };
    let last = p.path.segments.last()?;
    let writes = r.mutability.is_some();
    match last.ident.to_string().as_str() {
        "CudaSlice" | "CudaViewMut" => {}
        "CudaView" if !writes => {}
        _ => return None,
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    });
    let (Some(elem), None) = (types.next(), types.next()) else {
        return None;
    };
    Some((scalar(elem)?.buffer_form(writes, classes), elem))
}

thread_local! {
    /// Whether [`known_form`] reads forms from spellings; tests turn it off to see the const
    /// assertions rustc checks for every other type.
    static SPELLING_DECIDES: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// `f()` with every parameter's check left to rustc, as for a type the spelling does not
/// decide.
#[cfg(test)]
pub fn rustc_checks_all<R>(f: impl FnOnce() -> R) -> R {
    SPELLING_DECIDES.with(|d| d.set(false));
    let r = f();
    SPELLING_DECIDES.with(|d| d.set(true));
    r
}

/// The assertion behind [`known_form`]: the numbers the macro read from spellings are the
/// primitive types (`PhantomData<(f32, u32)>` of the user's spellings from one of
/// `core::primitive`'s), so that a shadowed name is a type error, not a wrong check.
pub fn spelling_guard(params: &[KernelParam], attrs: &[&Attribute]) -> TokenStream {
    let Some((spelled, primitive)) = guard_types(params) else {
        return TokenStream::new();
    };
    let p = crate::krate::private();
    let primitive = primitive.iter().map(|n| Ident::new(n, Span::call_site()));
    quote! {
        #(#attrs)*
        const _: #p::PhantomData<(#(#spelled,)*)> =
            #p::PhantomData::<(#(#p::primitive::#primitive,)*)>;
    }
}

/// [`spelling_guard`] as a statement, for a function body the declaration already has (one
/// body fewer for rustc to check than an item of its own), written into `code` (`pt`: the
/// path of `chevron::__private`, as text).
pub fn spelling_guard_statement(code: &mut Code, pt: &str, params: &[KernelParam]) {
    let Some((spelled, primitive)) = guard_types(params) else {
        return;
    };
    let primitive: String = primitive
        .iter()
        .map(|n| format!("{pt}::primitive::{n},"))
        .collect();
    code.s(&format!("let _: {pt}::PhantomData<"))
        .tokens(quote!((#(#spelled,)*)))
        .s(&format!("> = {pt}::PhantomData::<({primitive})>;"));
}

/// The guard's two sides: the spellings the macro read, and the names of the primitive types
/// they must be; `None` when it read none.
fn guard_types(params: &[KernelParam]) -> Option<(Vec<&Type>, Vec<&'static str>)> {
    let (spelled, primitive): (Vec<&Type>, Vec<&'static str>) = params
        .iter()
        .filter(|q| !q.ptx.is_empty())
        .filter_map(|q| known_form(q, false))
        .filter_map(|(_, ty)| Some((ty, scalar(ty)?.name)))
        .unzip();
    (!spelled.is_empty()).then_some((spelled, primitive))
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
